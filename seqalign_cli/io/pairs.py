"""Pairing of records into alignment pairs, streamed in chunks.

Pairing works on record blocks and index arrays (no object per record):

* zip (default): the i-th query with the i-th target;
* cross: every query against every target (targets held in memory);
* interleaved: the query file alone holds pairs as consecutive records;
* pairs file: a TSV of ``query_name<TAB>target_name[:start-end]``; queries are
  looked up by name, targets (and regions, 1-based inclusive like samtools)
  cut from an indexed FASTA through pyfaidx.
"""

from __future__ import annotations

import re
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..batching import PairBatch
from ..errors import InputError, UsageError
from .block import Record, RecordBlock
from .fastx import FastxReader, display_name
from .inputs import PairInputs


@dataclass(eq=False)
class PairChunk:
    """Up to batch-size pairs in input order: the i-th query with the i-th target.

    ``q`` and ``t`` are record blocks of equal length; ``queries`` and
    ``targets`` give them as ``Record`` lists for the writers that go record
    by record (SAM/BAM).
    """

    q: RecordBlock
    t: RecordBlock

    def __len__(self) -> int:
        return len(self.q)

    @property
    def queries(self) -> list[Record]:
        return self.q.records()

    @property
    def targets(self) -> list[Record]:
        return self.t.records()

    def batch(self) -> PairBatch:
        """The encoded pairs a backend aligns."""
        return PairBatch(self.q.codes(), self.q.seq_off, self.t.codes(), self.t.seq_off)


class _Records:
    """The records of a reader, taken n at a time as one block each."""

    def __init__(self, reader: FastxReader):
        self.reader = reader
        self.blocks = reader.blocks()
        self.parts: deque[RecordBlock] = deque()
        self.held = 0

    def take(self, n: int) -> RecordBlock:
        """The next n records (fewer at the end of the file)."""
        while self.held < n:
            block = next(self.blocks, None)
            if block is None:
                break
            self.parts.append(block)
            self.held += len(block)
        out = []
        need = n
        while need > 0 and self.parts:
            head = self.parts[0]
            if len(head) <= need:
                out.append(self.parts.popleft())
                need -= len(head)
            else:
                out.append(head.slice(0, need))
                self.parts[0] = head.slice(need, len(head))
                need = 0
        got = n - need
        self.held -= got
        return RecordBlock.concat(out) if out else RecordBlock.empty()

    def drain(self) -> int:
        """Read to the end of the file, keeping nothing; returns the records that were left."""
        left = self.held
        self.parts.clear()
        self.held = 0
        for block in self.blocks:
            left += len(block)
        return left


def _require_records(reader: FastxReader, count: int):
    if count == 0:
        raise InputError("no records found (empty input)", path=reader.name)


def zip_chunks(query: str, target: str, size: int) -> Iterator[PairChunk]:
    qr, tr = FastxReader(query), FastxReader(target)
    qs, ts = _Records(qr), _Records(tr)
    while True:
        qb = qs.take(size)
        if not len(qb):
            break
        tb = ts.take(len(qb))
        if len(tb) < len(qb):
            qs.drain()
            raise InputError(f"unequal record counts: {qr.count} queries in {qr.name} but "
                             f"{tr.count} targets in {tr.name}")
        yield PairChunk(qb, tb)
    rest = ts.drain()
    _require_records(qr, qr.count)
    if rest:
        raise InputError(f"unequal record counts: {qr.count} queries in {qr.name} but "
                         f"{tr.count} targets in {tr.name}")


def cross_chunks(query: str, target: str, size: int) -> Iterator[PairChunk]:
    """Every query against every target, query-major; the targets are held in memory."""
    tr = FastxReader(target)
    targets = RecordBlock.concat(list(tr.blocks()))
    _require_records(tr, len(targets))
    nt = len(targets)
    qs = _Records(FastxReader(query))
    pending = RecordBlock.empty()  # queries not yet paired with every target
    first = 0  # the target the first pending query is paired with next
    while True:
        want = -(-(first + size) // nt)  # queries that cover the next chunk
        if len(pending) < want:
            pending = RecordBlock.concat([pending, qs.take(want - len(pending))])
        m = min(size, len(pending) * nt - first)
        if m <= 0:
            break
        p = np.arange(first, first + m, dtype=np.int64)
        yield PairChunk(pending.take(p // nt), targets.take(p % nt))
        done, first = divmod(first + m, nt)
        pending = pending.slice(done, len(pending))
    _require_records(qs.reader, qs.reader.count)


def interleaved(path: str, size: int, k: int, uneven) -> Iterator[tuple[RecordBlock, ...]]:
    """Records k*t .. k*t + k - 1 of one file, ``size`` groups at a time, as k blocks.

    ``uneven(reader, block)``: the error when the record count is not a multiple of k.
    """
    reader = FastxReader(path)
    records = _Records(reader)
    while True:
        block = records.take(k * size)
        if len(block) % k:
            raise uneven(reader, block)
        if not len(block):
            break
        idx = np.arange(0, len(block), k, dtype=np.int64)
        yield tuple(block.take(idx + s) for s in range(k))
    _require_records(reader, reader.count)


def interleaved_chunks(query: str, size: int) -> Iterator[PairChunk]:
    def uneven(qr, block):
        return InputError(f"odd number of records ({qr.count}) in an interleaved file: record "
                          f"{qr.count} ({block.name(len(block) - 1)}) has no partner", path=qr.name)

    for q, t in interleaved(query, size, 2, uneven):
        yield PairChunk(q, t)


_REGION = re.compile(r"^(.*):([0-9,]+)-([0-9,]+)$")


class RegionFetcher:
    """Target sequences and regions by name from an indexed FASTA (pyfaidx)."""

    def __init__(self, path: str):
        if path == "-":
            raise UsageError("--pairs needs the target FASTA as a file, not stdin")
        import pyfaidx

        self.path = path
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.fasta = pyfaidx.Fasta(path, as_raw=True, sequence_always_upper=False,
                                           rebuild=True, build_index=True)
        except (pyfaidx.FastaIndexingError, pyfaidx.UnsupportedCompressionFormat, ValueError,
                OSError) as exc:
            raise InputError(f"cannot index as FASTA ({exc})", path=path) from None

    def fetch(self, spec: str, where: str) -> Record:
        if spec in self.fasta:
            return Record(spec, str(self.fasta[spec][:]).encode())
        m = _REGION.match(spec)
        if not m or m.group(1) not in self.fasta:
            raise InputError(f"unknown target name {spec!r} (not in {self.path})", path=where)
        name = m.group(1)
        start = int(m.group(2).replace(",", ""))
        end = int(m.group(3).replace(",", ""))
        length = len(self.fasta[name])
        if start < 1 or end < start or end > length:
            raise InputError(f"region {spec!r} is outside {name} (length {length}); regions are "
                             f"1-based inclusive with 1 <= start <= end <= length", path=where)
        return Record(spec, str(self.fasta[name][start - 1:end]).encode())


def file_chunks(pairs_file: str, query: str, target: str | None, size: int) -> Iterator[PairChunk]:
    """The pairs listed in a pairs file; queries by name, targets (or regions) through the index."""
    qr = FastxReader(query)
    blocks = []
    index: dict[str, int] = {}
    base = 0
    for block in qr.blocks():
        for k, name in enumerate(block.names_list()):
            if name in index:
                raise InputError(f"duplicate query name {name!r}; --pairs looks queries up by name",
                                 path=qr.name, record=int(block.num[k]))
            index[name] = base + k
        base += len(block)
        blocks.append(block)
    _require_records(qr, qr.count)
    queries = RecordBlock.concat(blocks)
    fetcher = RegionFetcher(target if target is not None else query)
    shown = display_name(pairs_file)
    try:
        fh = open(pairs_file) if pairs_file != "-" else None  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot open pairs file ({exc.strerror})", path=pairs_file) from None
    import sys

    n = 0
    picked: list[int] = []
    targets: list[Record] = []
    with fh or sys.stdin as lines:
        for lineno, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\r\n").split("\t")
            where = f"{shown}: line {lineno}"
            if len(fields) < 2:
                raise InputError("expected query_name<TAB>target_name[:start-end]", path=where)
            k = index.get(fields[0])
            if k is None:
                raise InputError(f"unknown query name {fields[0]!r} (not in {qr.name})", path=where)
            n += 1
            picked.append(k)
            targets.append(fetcher.fetch(fields[1], where))
            if len(picked) >= size:
                yield PairChunk(queries.take(np.array(picked, np.int64)), RecordBlock.from_records(targets))
                picked, targets = [], []
    if n == 0:
        raise InputError("no pairs listed (empty pairs file)", path=shown)
    if picked:
        yield PairChunk(queries.take(np.array(picked, np.int64)), RecordBlock.from_records(targets))


def pair_chunks(inputs: PairInputs, size: int) -> Iterator[PairChunk]:
    """The pairs of a run, in input order, in chunks of ``size``."""
    if inputs.pairing == "pairs":
        return file_chunks(inputs.pairs_file, inputs.query, inputs.target, size)
    if inputs.pairing == "interleaved":
        return interleaved_chunks(inputs.query, size)
    if inputs.pairing == "cross":
        return cross_chunks(inputs.query, inputs.target, size)
    return zip_chunks(inputs.query, inputs.target, size)
