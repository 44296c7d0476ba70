"""The pairwise family's results: ``Alignments``, the pairwise record (score, spans, edit statistics, strand
and role) around a ``RunStore`` of CIGAR runs (ops of ``results.Op``); ``PairView``, its arrays as the compiled
formatters take them; ``Role``, a record's primary or secondary role (``--cross``). The search family's hits
hold one too.

Coordinates are 0-based half-open. An empty alignment has no runs, score 0 and all spans 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from ...config import Mode
from ...protocols import DeviceResults
from ...results import CIGAR_LETTERS, RunStore


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
    (``chunks_mapping``; None until then, and where there is nothing to choose):
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
