"""The search family's results: ``SearchHits``, a batch's kept hits (query-major, best first), their
alignments (a pairwise ``Alignments``) and statistics; a GPU scheduler gathers a batch's pieces in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...protocols import DeviceResults
from ..pairwise.results import Alignments


@dataclass
class SearchHits(DeviceResults):
    """The hits of a batch's queries: hit h is query ``query[h]`` (batch index) against database record
    ``target[h]``, rank ``rank[h]`` (from 1) among that query's hits; hits are query-major, best first.
    ``alignments`` holds each hit's alignment (an ``Alignments`` of the hits), ``evalue`` and ``bits``
    their statistics (NaN where none are published).

    A GPU scheduler's result (``gather``): ``take`` keeps the hits of a piece of the batch's queries,
    ``finish`` puts every piece's together, query-major.
    """

    query: np.ndarray
    target: np.ndarray
    rank: np.ndarray
    alignments: Alignments
    evalue: np.ndarray
    bits: np.ndarray
    #: pieces of the batch taken so far, (query indices, their hits)
    parts: list = field(default_factory=list, repr=False)

    SPAN = Alignments.SPAN

    @classmethod
    def gather(cls, traceback: bool) -> "SearchHits":
        """No hits yet: the pieces come through ``take``."""
        none = np.zeros(0, np.int64)
        return cls(none, none, none, Alignments.concat([], traceback), np.zeros(0), np.zeros(0))

    @property
    def score(self) -> np.ndarray:
        return self.alignments.score

    def aligned_spans(self):
        return self.alignments.aligned_spans()

    def take(self, idx, other: "SearchHits"):
        self.parts.append((np.asarray(idx, np.int64), other.finish(None)))

    def finish(self, cfg) -> "SearchHits":
        if not self.parts:
            return self
        parts, self.parts = self.parts, []
        query = np.concatenate([idx[hits.query] for idx, hits in parts])
        rank = np.concatenate([hits.rank for _, hits in parts])
        order = np.lexsort((rank, query))  # query-major, best first
        cat = lambda name: np.concatenate([getattr(hits, name) for _, hits in parts])[order]  # noqa: E731
        alignments = Alignments.concat([hits.alignments for _, hits in parts], self.alignments.traceback)
        return SearchHits(query[order], cat("target"), rank[order], alignments.select(order), cat("evalue"),
                          cat("bits"))
