"""The one table of kernel variants: what ``seqalign info`` compiles at run time and what the build check
compiles with nvcc and hipcc.

Each family's ``checks`` hook gives ``{kernel file: variants}``, the names
made by the same functions its launches name kernels with (``kernel_name``,
``subwarp_name``, ...), so a launch and its check cannot drift apart. The
table is a spread, not the whole launch space: every mode, lane width and
traceback flag, and every value each template parameter takes in a launch at
least once (``tests/test_kernel_variants.py`` holds the families' launch
spaces to it). ``build_source`` writes a kernel file's variants as a
translation unit that includes the kernel and takes each variant's address,
which instantiates it; ``python -m seqalign_cli.backends.cuda.variants DIR``
writes one such file a kernel (``DIR/<kernel>_variants.cu``) for CI's ``nvcc``/``hipcc`` builds.

A variant whose group is the whole warp of a block shared by several warps
carries its own build text (``Variant.build``: ``SA_WARP`` for 32), so that a
64-wide build instantiates the variant of its own warp width.
"""

from __future__ import annotations

import os
import sys


class Variant(str):
    """A kernel variant's name, as NVRTC and the launches take it; ``build``: as the build check writes it,
    where that differs (a whole warp as ``SA_WARP``)."""

    build: str

    def __new__(cls, name: str, build: str | None = None):
        self = super().__new__(cls, name)
        self.build = build or name
        return self


def whole_warp(name: str, group: int = 32) -> Variant:
    """``name`` with its group of ``group`` lanes (the host's warp, the first of the template's arguments that
    equals it) written as the build's own warp width."""
    head, sep, args = name.partition("<")
    values = [a.strip() for a in args.rstrip(">").split(",")]
    values[values.index(str(group))] = "SA_WARP"
    return Variant(name, f"{head}{sep}{', '.join(values)}>")


def table() -> dict[str, tuple[str, ...]]:
    """Every kernel file with the variants its check compiles (``runs.cu`` has no template)."""
    from ... import families

    checks: dict[str, tuple[str, ...]] = {"runs.cu": ()}
    for family in families.FAMILIES.values():
        if family.checks:
            checks.update(family.load(family.checks)())
    return checks


def build_source(name: str, variants: tuple[str, ...]) -> str:
    """A translation unit instantiating ``variants`` of kernels/``name`` (compiled with ``-Ikernels``)."""
    lines = [f"// {name}'s variants as seqalign launches them (seqalign_cli/backends/cuda/variants.py).",
             f'#include "{name}"']
    if variants:
        stem = os.path.splitext(name)[0]
        lines.append(f"void* sa_variants_{stem}[] = {{")
        lines += [f"    (void*)&{getattr(v, 'build', v)}," for v in variants]
        lines.append("};")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    usage = "usage: python -m seqalign_cli.backends.cuda.variants DIR (writes DIR/<kernel>_variants.cu)"
    if argv in (["-h"], ["--help"]):
        print(usage)
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(usage, file=sys.stderr)
        return 2
    os.makedirs(argv[0], exist_ok=True)
    for name, variants in table().items():
        with open(os.path.join(argv[0], os.path.splitext(name)[0] + "_variants.cu"), "w") as fh:
            fh.write(build_source(name, variants))
        print(f"{name}: {len(variants)} variants")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
