"""Alignment results of a batch, in input order, as arrays: what every family's results share.

``RunStore``: the run-length alignment strings of every record of a batch
(CIGAR runs for pairs; column runs for triplets; a graph path's CIGAR),
each record with room for its runs at ``off`` and ``count`` runs in use.
Every family's results hold one, and the GPU scheduler, the CPU fallback
and the writers use its ``allocate``, ``take`` (one compiled copy,
``scatter_runs``), ``packed`` and ``view``. CIGAR runs hold (op, length)
with the ops of ``Op`` (letters ``CIGAR_LETTERS``).

Each family's record is in its own ``results.py`` (``families/<family>/``):
the pairwise ``Alignments``, the triplet ``TripletAlignments``, the graph
``GraphAlignments``, the search ``SearchHits``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from .jit import nb


class Op(IntEnum):
    """Pairwise run ops; ``CIGAR_LETTERS[op]`` is the CIGAR letter."""

    MATCH = 0  # '='
    MISMATCH = 1  # 'X'
    INSERTION = 2  # 'I': a base only in the query
    DELETION = 3  # 'D': a base only in the target


#: the CIGAR letter of each ``Op``
CIGAR_LETTERS = np.frombuffer(b"=XID", np.uint8).copy()


class RunView(NamedTuple):
    """A ``RunStore``'s arrays as compiled formatters take them."""

    off: np.ndarray
    count: np.ndarray
    op: np.ndarray
    length: np.ndarray


@dataclass
class RunStore:
    """Run-length alignment strings of n records: record k's runs are ``op/length[off[k]:off[k] + count[k]]``."""

    off: np.ndarray  # (n,) first slot of each record
    count: np.ndarray  # (n,) runs in use; 0 for empty alignments and score-only runs
    op: np.ndarray  # uint8
    length: np.ndarray  # int32

    @classmethod
    def allocate(cls, capacity: np.ndarray | None, n: int) -> "RunStore":
        """Room for ``capacity[k]`` runs of record k (None: no runs at all, score only)."""
        off = np.zeros(n, np.int64)
        if capacity is not None:
            np.cumsum(capacity[:-1], out=off[1:])
            total = int(capacity.sum())
        else:
            total = 1
        # slots are only read up to count: no need to clear them
        return cls(off, np.zeros(n, np.int64), np.empty(total, np.uint8), np.empty(total, np.int32))

    def runs(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        s = self.off[k]
        e = s + self.count[k]
        return self.op[s:e], self.length[s:e]

    def take(self, idx: np.ndarray, other: "RunStore"):
        """Copy the runs of ``other``'s records 0.. into records ``idx`` of self (counts included)."""
        self.count[idx] = other.count
        if len(self.op) <= 1:  # score only
            return
        scatter_runs(self, idx, other)

    def packed(self, subset: np.ndarray) -> tuple[np.ndarray, int]:
        """A layout with room for exactly the runs in use of ``subset`` and the full room of every other record.

        Returns the new offsets and the slots in all; the GPU brings back
        only those slots (the other records keep room for the CPU engine).
        """
        room = np.diff(np.append(self.off, len(self.op)))
        room[subset] = self.count[subset]
        off = np.zeros(len(room), np.int64)
        np.cumsum(room[:-1], out=off[1:])
        return off, int(off[-1] + room[-1]) if len(room) else 0

    def view(self) -> RunView:
        return RunView(self.off, self.count, self.op, self.length)

    def strings(self, letters: np.ndarray, merge_m: bool = False) -> list[str]:
        """The run strings of every record spelled with ``letters`` ('*' for a record without runs)."""
        from .formatting import format_runs

        buf, offs = format_runs(self.view(), letters, merge_m)
        text = buf.tobytes().decode("ascii")
        return [text[offs[k]:offs[k + 1]] or "*" for k in range(len(self.count))]


def scatter_runs(store, idx: np.ndarray, other):
    """``RunStore.take``'s copy: the runs of ``other``'s records 0.. (``count`` of them each) into the slots of
    records ``idx`` of ``store``, in one compiled pass that releases the interpreter lock."""
    _scatter(store.op, store.length, np.require(store.off, np.int64, "CW"), np.require(idx, np.int64, "CW"),
             other.op, other.length, np.require(other.off, np.int64, "CW"), np.require(other.count, np.int64, "CW"))


@nb.njit(cache=True, nogil=True)
def _scatter(op, length, off, idx, other_op, other_length, other_off, count):
    for k in range(idx.shape[0]):
        s, o, n = off[idx[k]], other_off[k], count[k]
        op[s:s + n] = other_op[o:o + n]
        length[s:s + n] = other_length[o:o + n]
