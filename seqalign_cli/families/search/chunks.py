"""Queries against one database: the database read once, the queries streamed in chunks.

``search_chunks`` reads the whole DATABASE first (``Database``: its records
in file order, encoded once, and their order by length, which the engines
walk so that each group of targets is of one size), then yields the
QUERIES in input order, whole queries a chunk: ``size // records`` of them,
at least one, as ``--cross`` cuts its chunks. A chunk's ``batch()`` is a
``SearchBatch``: the queries' codes and the database they are searched
against (shared by every batch of a run, never copied), with the rule of
which hits are kept (``SearchInputs``: ``--top``, ``--min-score``,
``--evalue``). With ``--shard`` (a part of the queries, ``shard.py``)
QUERIES must be a regular file, as it is read twice; the database, read
once, may be stdin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ...errors import UsageError
from ...io.block import RecordBlock
from ...io.fastx import FastxReader
from ...io.shard import at_end, plan, records, require_file
from ...protocols import Chunk
from ..pairwise.chunks import _Records, _require_records, warn_if_empty
from .batch import Database, SearchBatch
from .inputs import SearchInputs


@dataclass(eq=False)
class SearchChunk(Chunk):
    """Whole queries in input order (``block``) and the database they are searched against."""

    block: RecordBlock
    db: Database
    inputs: SearchInputs

    def __len__(self) -> int:
        return len(self.block)

    def batch(self) -> SearchBatch:
        return SearchBatch(self.block.codes(), np.require(self.block.seq_off, np.int64, "CW"), self.db, self.inputs)


def _chunks(inputs: SearchInputs, size: int, shard) -> Iterator[SearchChunk]:
    part = plan(shard, inputs.queries)
    skip, limit = records(part)
    db_reader = FastxReader(inputs.database)
    db = Database(RecordBlock.concat(list(db_reader.blocks())))
    reader = FastxReader(inputs.queries, skip=skip)
    held = _Records(reader, limit)
    if len(db) == 0:  # no hit can be found: the queries are still read through (and checked)
        held.drain()
        warn_if_empty(db_reader)
        return
    per_chunk = max(1, size // len(db))
    while True:
        block = held.take(per_chunk)
        if not len(block):
            break
        yield SearchChunk(block, db, inputs)
    if at_end(part):
        _require_records(reader, reader.count)


def search_chunks(inputs: SearchInputs, size: int, shard: tuple[int, int] | None = None) -> Iterator[SearchChunk]:
    """The queries of a run against its database, in input order, whole queries a chunk (see the module);
    ``shard`` (K, N): the K-th of N parts of the queries (the database is read whole by every part)."""
    if inputs.queries == "-" and inputs.database == "-":
        raise UsageError("QUERIES and DATABASE cannot both be '-' (stdin): give one of them as a file")
    require_file(shard, inputs.queries, "QUERIES")
    return _chunks(inputs, size, shard)
