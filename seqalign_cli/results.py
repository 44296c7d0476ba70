"""Alignment results of a batch, in input order, as arrays.

Two layers:

* ``RunStore``: the run-length alignment strings of every record of a batch
  (CIGAR runs for pairs; column runs for triplets; a graph path's CIGAR),
  each record with room for its runs at ``off`` and ``count`` runs in use.
  Every family's results hold one, and the GPU scheduler, the CPU fallback
  and the writers use its ``allocate``, ``take``, ``packed`` and ``view``.
* ``Alignments``: the pairwise record (score, spans, edit statistics) around
  a ``RunStore`` of CIGAR runs.

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
        for k, p in enumerate(idx):
            ops, lens = other.runs(k)
            s = self.off[p]
            self.op[s:s + len(ops)] = ops
            self.length[s:s + len(lens)] = lens

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


class PairView(NamedTuple):
    """An ``Alignments``' per-pair arrays as compiled formatters take them."""

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    stats: np.ndarray


@dataclass
class Alignments:
    """Pairwise alignments of a batch: scores, spans, edit statistics and CIGAR runs."""

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    stats: np.ndarray  # (n, 4): matches, mismatches, inserted bases, deleted bases
    cigar: RunStore
    traceback: bool

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

    def view(self) -> PairView:
        return PairView(self.score, self.qstart, self.qend, self.tstart, self.tend, self.stats)

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


class Column(IntEnum):
    """Triplet column kinds (run ops of a triplet alignment); ``COLUMN_LETTERS[kind]`` is its letter.

    The value is also the walk's order of preference on ties.
    """

    ALL = 0  # 'M': a residue of A, B and C
    GAP_A = 1  # 'a': a gap in A only
    GAP_B = 2  # 'b': a gap in B only
    GAP_C = 3  # 'c': a gap in C only
    ONLY_A = 4  # 'A': a residue of A only
    ONLY_B = 5  # 'B': a residue of B only
    ONLY_C = 6  # 'C': a residue of C only


#: the letter of each ``Column``
COLUMN_LETTERS = np.frombuffer(b"MabcABC", np.uint8).copy()
#: the residues each ``Column`` takes from A, B and C
COLUMN_STEPS = np.array([[1, 1, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.int64)


class TripletView(NamedTuple):
    """A ``TripletAlignments``' per-triplet arrays as compiled formatters take them."""

    score: np.ndarray
    start: np.ndarray
    end: np.ndarray


@dataclass
class TripletAlignments:
    """3-way alignments of a batch: scores, spans over A, B and C, and runs of column kinds."""

    score: np.ndarray  # (n,) int64
    start: np.ndarray  # (n, 3) int64: where the alignment starts in A, B, C (-1: not computed)
    end: np.ndarray  # (n, 3) int64
    columns: RunStore
    traceback: bool

    @classmethod
    def allocate(cls, lengths: np.ndarray, traceback: bool) -> "TripletAlignments":
        n = len(lengths)
        runs = RunStore.allocate(lengths.sum(axis=1) + 1 if traceback else None, n)
        return cls(np.zeros(n, np.int64), np.zeros((n, 3), np.int64), np.zeros((n, 3), np.int64), runs, traceback)

    @property
    def size(self) -> int:
        return len(self.score)

    def take(self, idx: np.ndarray, other: "TripletAlignments"):
        """Copy the results of ``other`` (triplets 0..) into triplets ``idx`` of self."""
        self.score[idx] = other.score
        self.start[idx] = other.start
        self.end[idx] = other.end
        self.columns.take(idx, other.columns)

    def view(self) -> TripletView:
        return TripletView(self.score, self.start, self.end)

    def column_strings(self) -> list[str]:
        """The columns of every triplet as runs of kinds ('*' for an empty alignment or score only)."""
        return self.columns.strings(COLUMN_LETTERS)

    def finish(self, cfg) -> "TripletAlignments":
        """Spans of empty alignments become 0; score-only starts follow the mode (``Mode.score_only_starts``).

        With traceback an alignment is empty when it has no columns; score
        only, when it scores 0 in semi-global or local mode (its end cell is
        then on a free border) or when all three sequences are empty.
        """
        mode: Mode = cfg.mode_code
        if self.traceback:
            empty = self.columns.count == 0
        else:
            empty = self.score == 0 if mode is not Mode.GLOBAL else (self.end == 0).all(axis=1)
            self.start[:] = 0 if mode is Mode.GLOBAL else -1
        self.start[empty] = 0
        self.end[empty] = 0
        return self
