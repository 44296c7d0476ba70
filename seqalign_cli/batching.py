"""What every family's batch shares: ``gather_runs`` (the runs of some records, back to back: every
``subset``), ``FlatCodes`` (a batch of one sequence a record) and ``PAD``, the padding code.

Each family's batch type is in its own ``batch.py`` (``families/<family>/``; the pairs' lane groups in
``families/pairwise/batch.py``).
"""

from __future__ import annotations

import numpy as np

from .jit import nb
from .results import RunStore

PAD = 4  # padding code (scores as N; never reaches a lane's result)


def gather_runs(values: np.ndarray, off: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs ``values[off[k]:off[k + 1]]`` of the records ``idx``, back to back, and their offsets.

    Every family's ``subset`` (the GPU scheduler's pieces, the CPU engine's share of a batch): one
    compiled pass that releases the interpreter lock, no temporaries of the runs' size.
    """
    off = np.require(off, np.int64, "CW")  # the one array type compiled ahead (a read-only one is another)
    idx = np.require(idx, np.int64, "CW")
    new_off = np.zeros(len(idx) + 1, np.int64)
    np.cumsum(off[idx + 1] - off[idx], out=new_off[1:])
    out = np.empty(int(new_off[-1]), values.dtype)
    _gather(values, off, idx, new_off, out)
    return out, new_off


@nb.njit(cache=True, nogil=True)
def _gather(values, off, idx, new_off, out):
    for k in range(idx.shape[0]):
        start = off[idx[k]]
        out[new_off[k]:new_off[k + 1]] = values[start:start + new_off[k + 1] - new_off[k]]


def compile_ahead():
    """Compile ``gather_runs`` and ``results.scatter_runs`` (``RunStore.take``) for the arrays of a run
    (``precompile``: a GPU run's first subset and merge of results then compile nothing)."""
    gather_runs(np.zeros(3, np.uint8), np.arange(4), np.arange(2))
    store = RunStore.allocate(np.full(2, 3, np.int64), 2)
    store.take(np.arange(2), RunStore.allocate(np.full(2, 3, np.int64), 2))


class FlatCodes:
    """A batch of one sequence a record: the codes back to back (``codes``) and their (n+1,) offsets (``offs``)."""

    codes: np.ndarray
    offs: np.ndarray

    @property
    def size(self) -> int:
        return len(self.offs) - 1

    @property
    def lengths(self) -> np.ndarray:
        """(n,) int64: the length of each record."""
        return np.diff(self.offs).astype(np.int64)
