"""The one loader of GPU kernels: kernels/*.cu compiled through CuPy RawModule.

Template variants are instantiated through ``name_expressions``; modules are
cached in-process (and on disk by CuPy). Sources are found in the installed
package (``seqalign_cli/kernels``) or in a source checkout (``kernels/``); each
is prefixed with ``#line 1 "file.cu"`` so compile errors point at the file, and
ends with a comment naming a digest of the headers it may include (every
``.cuh`` of the folder and its subfolders, such as ``kernels/triplet/``):
CuPy keys its kernel cache by the source text alone, so a changed header must
change that text. Constants the host owns reach the kernels as defines
(``defines``); ``python -m seqalign_cli.backends.cuda.loader`` prints them for
a build by hand or in CI.
"""

from __future__ import annotations

import functools
import hashlib
import os

from .launch import THREADS

_HERE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = (
    os.path.join(_HERE, "..", "..", "kernels"),  # installed wheel: seqalign_cli/kernels
    os.path.join(_HERE, "..", "..", "..", "kernels"),  # source checkout
)


def kernel_dir() -> str:
    for path in _CANDIDATES:
        if os.path.isfile(os.path.join(path, "common.cuh")):
            return os.path.abspath(path)
    raise FileNotFoundError("kernel sources (common.cuh) not found next to the package")


@functools.lru_cache(maxsize=None)
def _headers_digest(folder: str) -> str:
    """A digest of every header under folder (names and contents): the part of a kernel CuPy's key misses."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".cuh"):
                path = os.path.join(root, name)
                digest.update(os.path.relpath(path, folder).encode() + b"\0")
                with open(path, "rb") as fh:
                    digest.update(fh.read() + b"\0")
    return digest.hexdigest()[:16]


def _source(name: str) -> str:
    folder = kernel_dir()
    with open(os.path.join(folder, name)) as fh:
        return f'#line 1 "{name}"\n' + fh.read() + f"\n// headers {_headers_digest(folder)}\n"


def defines() -> tuple[str, ...]:
    """The compiler options that give the kernels the host's constants (checked there by static_assert)."""
    return (f"-DSA_THREADS={THREADS}",)


@functools.lru_cache(maxsize=None)
def module(name: str, expressions: tuple[str, ...], device: int = 0):
    """A compiled module of kernels/<name> with the given template variants.

    CuPy compiles for the current device's own architecture (SASS, so Hopper
    gets its DPX instructions) and caches the binary on disk.
    """
    import cupy

    # SEQALIGN_KERNEL_DEFINES (e.g. "SHARED_BLOCKS=1"): tuning constants for benchmarks
    tuning = tuple(f"-D{d}" for d in os.environ.get("SEQALIGN_KERNEL_DEFINES", "").split())
    options = ("-std=c++17", f"-I{kernel_dir()}") + defines() + tuning
    with cupy.cuda.Device(device):
        mod = cupy.RawModule(code=_source(name), options=options,  # exact str (a table's Variant is a subclass)
                             name_expressions=[str(e) for e in expressions])
        mod.compile()
    return mod


if __name__ == "__main__":
    print(" ".join(defines()))
