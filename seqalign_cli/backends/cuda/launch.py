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
    and with their names (``KERNEL``: the source file, ``NAME``: the ``__global__`` function);
    ``tests/test_kernel_contracts.py`` reads each subclass's kernel and holds the two to the same list.
    ``values()`` is the tuple a launch passes."""

    KERNEL = ""
    NAME = ""

    def values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self))


def kernel_parameters(source: str, name: str) -> list[str]:
    """The parameter names of the ``__global__`` function ``name`` in CUDA ``source`` (comments dropped;
    launch bounds and template heads may hold parentheses of their own)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    for found in re.finditer(r"\b" + re.escape(name) + r"\s*\(", text):
        head = text[:found.start()]
        if "__global__" not in head[max(head.rfind(";"), head.rfind("}")) + 1:]:
            continue  # a call, or a declaration of something else
        depth, k = 1, found.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
        params = text[found.end():k - 1]
        return [re.findall(r"\w+", p)[-1] for p in params.split(",") if p.strip()]
    raise ValueError(f"no __global__ function {name} in the source")
