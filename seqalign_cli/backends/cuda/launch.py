"""A slice of kernel work ready to run: inputs uploaded, launch shapes fixed.

Planning and uploads happen once (``prepare``); ``Launch.run`` only queues
the kernels, so benchmarks time the kernels alone and a batch's host work
can be done before its kernels start. Direction codes, the one large
buffer, are allocated when the slice runs and dropped after it. Also what
every kernel family shares on the host: the byte-profile limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

import numpy as np

#: stands for the direction-code buffer in kernel arguments
DIRS = object()
#: a null pointer argument
NULL = np.uint64(0)
#: substitution scores fit the kernels' signed-byte query profile (common.cuh) up to this
PROFILE_LIMIT = 127
#: threads a block of the launches of a fixed block size; the kernels' SA_THREADS (``loader.defines``)
THREADS = 128


#: the scoring values most kernels take, in their order
SCORES = ("match", "mismatch", "gap_open", "gap_extend", "n_penalty")


def scores(scoring, names: tuple[str, ...] = SCORES) -> dict:
    """The scoring's values ``names`` as kernel arguments (int32), by name: fields of a ``KernelArgs``."""
    return {name: np.int32(getattr(scoring, name)) for name in names}


def flag(b: bool) -> str:
    """A bool template argument as a kernel name writes it."""
    return "true" if b else "false"


def profile_fits(scoring) -> bool:
    """Whether the substitution scores fit the byte profile."""
    return max(scoring.match, scoring.mismatch, scoring.n_penalty) <= PROFILE_LIMIT


@dataclass
class Launch:
    fwd: object
    grid: int
    block: int
    fwd_args: tuple
    back: object = None  # traceback kernel (one thread per pair)
    back_grid: int = 0
    back_args: tuple = ()
    dir_words: int = 0  # direction-code words the slice needs

    def run(self, cp, between=None):
        """Queue the kernels on the current stream (``between()`` after the forward kernel: benchmarks)."""
        dirs = cp.empty(self.dir_words + 1, np.uint32) if self.back is not None else None
        fill = lambda args: tuple(dirs if a is DIRS else a for a in args)  # noqa: E731
        self.fwd((self.grid,), (self.block,), fill(self.fwd_args))
        if between is not None:
            between()
        if self.back is not None:
            self.back((self.back_grid,), (self.block,), fill(self.back_args))


class KernelArgs:
    """A kernel's arguments, stated once: a dataclass whose fields are the kernel's parameters in their order
    and with their names (``KERNEL``: the source file, ``NAME``: the ``__global__`` function, ``ALSO``: other
    functions of the same parameter list); ``tests/test_kernel_contracts.py`` reads each subclass's kernels
    and holds them to the same list. ``values()`` is the tuple a launch passes."""

    KERNEL = ""
    NAME = ""
    ALSO: tuple[str, ...] = ()

    def values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self))

    @classmethod
    def contracts(cls) -> list[type]:
        """Every structure below this one that names a kernel (shared field groups name none)."""
        below = [c for sub in cls.__subclasses__() for c in [sub, *sub.contracts()]]
        return list(dict.fromkeys(c for c in below if c.NAME))


def _definitions(source: str, name: str = r"\w+"):
    """The ``__global__`` definitions of functions named ``name`` (a pattern) in CUDA ``source``: the text
    with comments dropped and object-like macros (such as a shared parameter list) expanded, and each
    match of the name and its opening parenthesis. Launch bounds (a name of two underscores) are skipped."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source.replace("\\\n", " "), flags=re.S)
    macros = dict(re.findall(r"^[ \t]*#define[ \t]+(\w+)[ \t]+([^\n]*)$", text, flags=re.M))
    for _ in range(8 if macros else 0):  # a macro may name another (a parameter list and what it adds)
        text, changed = re.subn(r"\b(" + "|".join(map(re.escape, macros)) + r")\b", lambda m: macros[m.group(1)],
                                text)
        if not changed:
            break
    for found in re.finditer(r"\b(" + name + r")\s*\(", text):
        head = text[:found.start()]
        if "__global__" in head[max(head.rfind(";"), head.rfind("}")) + 1:] and not found.group(1).startswith("__"):
            yield text, found  # not a call, nor a declaration of something else


def global_functions(source: str) -> set[str]:
    """The names of the ``__global__`` functions that CUDA ``source`` defines (not their instantiations)."""
    return {found.group(1) for _, found in _definitions(source)}


def kernel_parameters(source: str, name: str) -> list[str]:
    """The parameter names of the ``__global__`` function ``name`` in CUDA ``source`` (template heads and
    launch bounds may hold parentheses of their own)."""
    for text, found in _definitions(source, re.escape(name)):
        depth, k = 1, found.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
        params = text[found.end():k - 1]
        return [re.findall(r"\w+", p)[-1] for p in params.split(",") if p.strip()]
    raise ValueError(f"no __global__ function {name} in the source")
