"""The graph family's batch: ``GraphBatch``, encoded reads and the graph they are aligned to (loaded once a
run, shared by every batch, never copied); ``make_graph_batch`` builds one from reads in memory (the Python API).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...batching import FlatCodes, gather_runs
from ...protocols import Batch
from .chunks_gfa import Graph


@dataclass
class GraphBatch(FlatCodes, Batch):
    """Encoded reads of a batch (flat ``codes``, (n+1,) ``offs``) and the graph they are aligned to.

    What every family's batch offers the runner and the GPU scheduler:
    ``size``, ``cells()``, ``cells_each()`` (read length x graph bases) and
    ``subset(idx)`` (same graph).
    """

    codes: np.ndarray
    offs: np.ndarray
    graph: Graph

    def seq(self, k: int) -> np.ndarray:
        """The codes of read ``k``."""
        return self.codes[self.offs[k]:self.offs[k + 1]]

    def cells_each(self) -> np.ndarray:
        return self.lengths * np.int64(self.graph.n_bases)

    def subset(self, idx: np.ndarray) -> "GraphBatch":
        """A new batch holding the reads ``idx`` in that order, against the same graph."""
        codes, offs = gather_runs(self.codes, self.offs, idx)
        return GraphBatch(codes, offs, self.graph)


def make_graph_batch(graph: Graph, reads: list[bytes]) -> GraphBatch:
    """A GraphBatch of ``reads`` against ``graph`` (tests, benchmarks, the API)."""
    from ...io.encode import encode_many

    codes, offs = encode_many(list(reads))
    return GraphBatch(codes, offs, graph)
