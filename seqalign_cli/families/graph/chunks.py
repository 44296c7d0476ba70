"""Reads against one graph: the graph loaded once, the reads streamed in chunks.

``graph_chunks`` loads the GFA graph (``chunks_gfa.load_graph``) before the first
read, then yields the reads of the READS file in input order, ``size`` at a
time. A chunk holds one record block and the graph; its ``batch()`` is a
``GraphBatch``: the codes of the reads, flat, with offsets, and the graph
they are aligned to (shared by every batch of a run, never copied).
One of GRAPH and READS may be '-' (stdin), not both; with ``--shard`` (a
part of the reads, ``shard.py``) READS must be a regular file, as it is read
twice (``shard.require_file``: neither stdin nor a pipe); GRAPH, read once,
may be either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ...errors import UsageError
from ...io.block import RecordBlock
from ...io.fastx import FastxReader
from ...io.shard import at_end, plan, records, require_file
from ...protocols import Chunk
from ..pairwise.chunks import _Records, _require_records
from .batch import GraphBatch
from .chunks_gfa import Graph, load_graph
from .inputs import GraphInputs


@dataclass(eq=False)
class GraphChunk(Chunk):
    """Up to batch-size reads in input order (``block``) and the graph they are aligned to."""

    block: RecordBlock
    graph: Graph

    def __len__(self) -> int:
        return len(self.block)

    def batch(self) -> GraphBatch:
        return GraphBatch(self.block.codes(), self.block.seq_off, self.graph)


def _chunks(inputs: GraphInputs, size: int, shard) -> Iterator[GraphChunk]:
    graph = load_graph(inputs.graph, inputs.forward_only)
    part = plan(shard, inputs.reads)
    skip, limit = records(part)
    reader = FastxReader(inputs.reads, skip=skip)
    held = _Records(reader, limit)
    while True:
        block = held.take(size)
        if not len(block):
            break
        yield GraphChunk(block, graph)
    if at_end(part):
        _require_records(reader, reader.count)


def graph_chunks(inputs: GraphInputs, size: int, shard: tuple[int, int] | None = None) -> Iterator[GraphChunk]:
    """The reads of a run against its graph, in input order, in chunks of ``size``; ``shard`` (K, N): the
    K-th of N parts of the reads (``shard.py``; the graph is read whole by every part)."""
    if inputs.graph == "-" and inputs.reads == "-":
        raise UsageError("GRAPH and READS cannot both be '-' (stdin): give one of them as a file")
    require_file(shard, inputs.reads, "READS")
    return _chunks(inputs, size, shard)
