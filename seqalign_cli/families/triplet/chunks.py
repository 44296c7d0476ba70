"""Triplets: three records read in lockstep (or three consecutive records of one file), streamed in chunks.

* lockstep (default): the i-th records of A, B and C form triplet i;
  different record counts are an error naming the three counts;
* interleaved: records 3t, 3t+1, 3t+2 of one file form triplet t.

Inputs without records make a run without triplets (one warning line).
``--shard`` takes a part of the triplets, counted in A (``shard.py``): A is
read twice and must be a regular file (``shard.require_file``); B and C,
read once, skipped to the part as they are read, may be stdin or a pipe.

A chunk holds three record blocks of equal length (``blocks``); its
``batch()`` is a ``TripletBatch``: the codes of the three sequences of every
triplet, flat, with offsets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ...errors import InputError
from ...io.block import RecordBlock
from ...io.fastx import FastxReader
from ...io.shard import at_end, plan, records, require_file
from ...protocols import Chunk
from ..pairwise.chunks import _Records, interleaved, warn_if_empty
from .batch import TripletBatch
from .inputs import TripletInputs


@dataclass(eq=False)
class TripletChunk(Chunk):
    """Up to batch-size triplets in input order: ``blocks[s]`` holds sequence s (A, B, C) of each."""

    blocks: tuple[RecordBlock, RecordBlock, RecordBlock]

    def __len__(self) -> int:
        return len(self.blocks[0])

    def batch(self) -> TripletBatch:
        return TripletBatch(tuple(b.codes() for b in self.blocks), tuple(b.seq_off for b in self.blocks))


def lockstep_chunks(paths: tuple[str, str, str], size: int, shard=None) -> Iterator[TripletChunk]:
    part = plan(shard, paths[0])
    skip, limit = records(part)
    readers = [FastxReader(p, skip=skip) for p in paths]
    held = [_Records(r, limit, ahead=size) for r in readers]  # made side by side

    def mismatch():
        for r in held:
            r.drain(whole=True)
        counts = ", ".join(f"{r.count} in {r.name}" for r in readers)
        return InputError(f"unequal record counts: {counts}")

    try:
        while True:
            first = held[0].take(size)
            if not len(first):
                break
            rest = [r.take(len(first)) for r in held[1:]]
            if any(len(b) < len(first) for b in rest):
                raise mismatch()
            yield TripletChunk((first, *rest))
        if any(r.drain() for r in held[1:]):
            raise mismatch()
    finally:
        for r in held:
            r.close()
    if at_end(part):
        warn_if_empty(*readers)


def interleaved_chunks(path: str, size: int, shard=None) -> Iterator[TripletChunk]:
    def uneven(reader, block):
        return InputError(f"{reader.count} records in an interleaved triplet file: not a multiple of 3",
                          path=reader.name)

    for blocks in interleaved(path, size, 3, uneven, shard=shard):
        yield TripletChunk(blocks)


def triplet_chunks(inputs: TripletInputs, size: int,
                   shard: tuple[int, int] | None = None) -> Iterator[TripletChunk]:
    """The triplets of a run, in input order, in chunks of ``size``; ``shard`` (K, N): the K-th of N parts
    of the triplets (``shard.py``), counted in A."""
    require_file(shard, inputs.paths[0], "A")
    if inputs.interleaved:
        return interleaved_chunks(inputs.paths[0], size, shard)
    return lockstep_chunks(inputs.paths, size, shard)
