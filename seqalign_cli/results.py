"""Alignment results of a batch, in input order, as arrays.

Two layers:

* ``RunStore``: the run-length alignment strings of every record of a batch
  (CIGAR runs for pairs; column runs for triplets; a graph path's CIGAR),
  each record with room for its runs at ``off`` and ``count`` runs in use.
  Every family's results hold one, and the GPU scheduler, the CPU fallback
  and the writers use its ``allocate``, ``take`` (one compiled copy,
  ``scatter_runs``), ``packed`` and ``view``.
* ``Alignments``: the pairwise record (score, spans, edit statistics) around
  a ``RunStore`` of CIGAR runs; ``TripletAlignments``: the triplet record
  around a ``RunStore`` of column runs; ``GraphAlignments``: the read-to-graph
  record around a ``RunStore`` of CIGAR runs and a path of oriented nodes per
  read.

Coordinates are 0-based half-open. Pairwise runs hold the CIGAR as
(op, length) with the ops of ``Op``. An empty alignment has no runs, score 0
and all spans 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from .config import Mode
from .jit import nb
from .protocols import DeviceResults


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


class Role(IntEnum):
    """What a pair's record is among the records of its query (``Alignments.role``)."""

    ONLY = 0  # one record per query (no primary to choose): no flag, no tp:A tag
    PRIMARY = 1  # the query's best record (``--cross``)
    SECONDARY = 2  # another record of a query that has a primary (SAM flag 256, PAF tp:A:S)


class PairView(NamedTuple):
    """An ``Alignments``' per-pair arrays as compiled formatters take them."""

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    stats: np.ndarray
    strand: np.ndarray  # uint8: 1 where the query aligned reverse-complemented
    role: np.ndarray  # uint8 ``Role``


@dataclass
class Alignments(DeviceResults):
    """Pairwise alignments of a batch: scores, spans, edit statistics and CIGAR runs.

    ``strand`` and ``role`` are set once a chunk has chosen among its results
    (``io.mapping``; None until then, and where there is nothing to choose):
    with ``strand[k]`` 1 pair k aligned the reverse complement of its query
    (spans, CIGAR and statistics are then those of the reverse-complemented
    query); ``role[k]`` is a ``Role``.
    """

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    stats: np.ndarray  # (n, 4): matches, mismatches, inserted bases, deleted bases
    cigar: RunStore
    traceback: bool
    strand: np.ndarray | None = None  # (n,) uint8
    role: np.ndarray | None = None  # (n,) uint8 ``Role``

    @classmethod
    def allocate(cls, qlen: np.ndarray, tlen: np.ndarray, traceback: bool) -> "Alignments":
        n = len(qlen)
        cigar = RunStore.allocate(2 * np.minimum(qlen, tlen) + 2 if traceback else None, n)
        z = lambda: np.zeros(n, np.int64)  # noqa: E731
        return cls(z(), z(), z(), z(), z(), np.zeros((n, 4), np.int64), cigar, traceback)

    @property
    def size(self) -> int:
        return len(self.score)

    def take(self, idx: np.ndarray, other: "Alignments"):
        """Copy the results of ``other`` (pairs 0..) into pairs ``idx`` of self."""
        for name in ("score", "qstart", "qend", "tstart", "tend", "stats"):
            getattr(self, name)[idx] = getattr(other, name)
        self.cigar.take(idx, other.cigar)

    @classmethod
    def concat(cls, parts: list["Alignments"], traceback: bool) -> "Alignments":
        """The pairs of ``parts`` back to back, as new results (each pair's runs copied; a slot more than its runs a
        pair, so that a store of one run is not taken for a score-only one)."""
        count = np.concatenate([p.cigar.count for p in parts]) if parts else np.zeros(0, np.int64)
        out = cls(*(np.zeros(len(count), np.int64) for _ in range(5)), np.zeros((len(count), 4), np.int64),
                  RunStore.allocate(count + 1 if traceback else None, len(count)), traceback)
        start = 0
        for part in parts:
            out.take(np.arange(start, start + part.size), part)
            start += part.size
        return out

    def select(self, idx: np.ndarray) -> "Alignments":
        """The pairs ``idx`` in that order, as new results; their runs stay where they are (shared)."""
        cigar = RunStore(self.cigar.off[idx], self.cigar.count[idx], self.cigar.op, self.cigar.length)
        pick = lambda a: None if a is None else a[idx]  # noqa: E731
        return Alignments(self.score[idx], self.qstart[idx], self.qend[idx], self.tstart[idx], self.tend[idx],
                          self.stats[idx], cigar, self.traceback, pick(self.strand), pick(self.role))

    def view(self) -> PairView:
        zeros = None if self.strand is not None and self.role is not None else np.zeros(self.size, np.uint8)
        return PairView(self.score, self.qstart, self.qend, self.tstart, self.tend, self.stats,
                        zeros if self.strand is None else self.strand, zeros if self.role is None else self.role)

    def cigars(self, merge_m: bool = False) -> list[str]:
        """CIGAR strings of all pairs ('*' for an empty alignment or score only)."""
        return self.cigar.strings(CIGAR_LETTERS, merge_m)

    def finish(self, cfg) -> "Alignments":
        """Give empty alignments score 0 and zero spans; the last step of every backend.

        With traceback an alignment is empty when it has no runs; score only,
        when its end cell lies on a border its mode makes free
        (``Mode.empty_ends``).
        """
        mode: Mode = cfg.mode_code
        empty = self.cigar.count == 0 if self.traceback else mode.empty_ends(self.qend, self.tend)
        for arr in (self.qstart, self.qend, self.tstart, self.tend):
            arr[empty] = 0
        return self

    #: what ``aligned_spans`` measures (the run statistics name it)
    SPAN = "query span (qend - qstart)"

    def aligned_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """(aligned, span) after ``finish``, for the run statistics: which pairs hold a non-empty alignment
        (an empty one has all spans 0, a non-empty one covers a base), and the query span, -1 where the
        start was not computed (score only, a free start)."""
        aligned = (self.qend != 0) | (self.tend != 0)
        return aligned, np.where(self.qstart >= 0, self.qend - self.qstart, -1)


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
