"""The triplet family's results: ``TripletAlignments``, the triplet record (score, spans) around a ``RunStore``
of column runs; ``Column``, the column kinds, their letters and steps; ``opening_costs``, every engine's table
of affine costs; ``TripletView``, its arrays as the compiled formatters take them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from ...config import Mode
from ...protocols import DeviceResults
from ...results import RunStore


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


#: with affine gaps, the previous kind of a column that starts the alignment
COLUMN_START = 7


def opening_costs(gap_open: int, dtype=np.int32) -> np.ndarray:
    """(8, 7): ``gap_open`` times the gaps a column of kind t opens after a column of kind s (s = 7: the first
    column), the quasi-natural rule of the README: over the pairs of sequences whose column has a residue and a
    gap, the gap opens unless column s has the same residue and gap. Every engine's table of affine costs."""
    costs = np.zeros((8, 7), dtype)
    for s in range(8):
        for t in range(7):
            step = COLUMN_STEPS[t]
            for x, y in ((0, 1), (0, 2), (1, 2)):
                if step[x] != step[y]:
                    same = s != COLUMN_START and COLUMN_STEPS[s, x] == step[x] and COLUMN_STEPS[s, y] == step[y]
                    costs[s, t] += 0 if same else gap_open
    return costs


class TripletView(NamedTuple):
    """A ``TripletAlignments``' per-triplet arrays as compiled formatters take them."""

    score: np.ndarray
    start: np.ndarray
    end: np.ndarray


@dataclass
class TripletAlignments(DeviceResults):
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

    #: what ``aligned_spans`` measures (the run statistics name it)
    SPAN = "span over A (end - start of the first sequence)"

    def aligned_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """(aligned, span) after ``finish``, for the run statistics: which triplets hold a non-empty
        alignment (an empty one ends at 0 in A, B and C), and the span over A, -1 where the start was not
        computed (score only, a free start)."""
        aligned = (self.end != 0).any(axis=1)
        return aligned, np.where(self.start[:, 0] >= 0, self.end[:, 0] - self.start[:, 0], -1)
