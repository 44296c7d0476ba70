"""Pairing of records into alignment pairs, streamed in chunks.

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
from dataclasses import dataclass, field
from typing import Iterator

from ..errors import InputError, UsageError
from .fastx import FastxReader, Record, display_name


@dataclass
class PairChunk:
    """Up to batch-size pairs in input order."""

    queries: list[Record] = field(default_factory=list)
    targets: list[Record] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.queries)

    def add(self, q: Record, t: Record):
        self.queries.append(q)
        self.targets.append(t)


def _chunked(pairs: Iterator[tuple[Record, Record]], size: int) -> Iterator[PairChunk]:
    chunk = PairChunk()
    for q, t in pairs:
        chunk.add(q, t)
        if len(chunk) >= size:
            yield chunk
            chunk = PairChunk()
    if len(chunk):
        yield chunk


def _require_records(reader: FastxReader, count: int):
    if count == 0:
        raise InputError("no records found (empty input)", path=reader.name)


def zip_pairs(query: str, target: str) -> Iterator[tuple[Record, Record]]:
    qr, tr = FastxReader(query), FastxReader(target)
    qit, tit = iter(qr), iter(tr)
    for q in qit:
        t = next(tit, None)
        if t is None:
            nq = qr.count + sum(1 for _ in qit)
            raise InputError(f"unequal record counts: {nq} queries in {qr.name} but "
                             f"{tr.count} targets in {tr.name}")
        yield q, t
    rest = sum(1 for _ in tit)
    _require_records(qr, qr.count)
    if rest:
        raise InputError(f"unequal record counts: {qr.count} queries in {qr.name} but "
                         f"{tr.count} targets in {tr.name}")


def cross_pairs(query: str, target: str) -> Iterator[tuple[Record, Record]]:
    tr = FastxReader(target)
    targets = list(tr)
    _require_records(tr, len(targets))
    qr = FastxReader(query)
    for q in qr:
        for t in targets:
            yield q, t
    _require_records(qr, qr.count)


def interleaved_pairs(query: str) -> Iterator[tuple[Record, Record]]:
    qr = FastxReader(query)
    it = iter(qr)
    for q in it:
        t = next(it, None)
        if t is None:
            raise InputError(f"odd number of records ({qr.count}) in an interleaved file: "
                             f"record {qr.count} ({q.name}) has no partner", path=qr.name)
        yield q, t
    _require_records(qr, qr.count)


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


def file_pairs(pairs_file: str, query: str, target: str | None) -> Iterator[tuple[Record, Record]]:
    qr = FastxReader(query)
    queries: dict[str, Record] = {}
    for rec in qr:
        if rec.name in queries:
            raise InputError(f"duplicate query name {rec.name!r}; --pairs looks queries up by name",
                             path=qr.name, record=qr.count)
        queries[rec.name] = rec
    _require_records(qr, qr.count)
    fetcher = RegionFetcher(target if target is not None else query)
    shown = display_name(pairs_file)
    try:
        fh = open(pairs_file) if pairs_file != "-" else None  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot open pairs file ({exc.strerror})", path=pairs_file) from None
    import sys

    n = 0
    with fh or sys.stdin as lines:
        for lineno, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\r\n").split("\t")
            where = f"{shown}: line {lineno}"
            if len(fields) < 2:
                raise InputError("expected query_name<TAB>target_name[:start-end]", path=where)
            q = queries.get(fields[0])
            if q is None:
                raise InputError(f"unknown query name {fields[0]!r} (not in {qr.name})", path=where)
            n += 1
            yield q, fetcher.fetch(fields[1], where)
    if n == 0:
        raise InputError("no pairs listed (empty pairs file)", path=shown)


def pair_chunks(pairing: str, query: str, target: str | None, pairs_file: str | None,
                size: int) -> Iterator[PairChunk]:
    """The pairs of a run, in input order, in chunks of ``size``."""
    if pairing == "pairs":
        pairs = file_pairs(pairs_file, query, target)
    elif pairing == "interleaved":
        pairs = interleaved_pairs(query)
    elif pairing == "cross":
        pairs = cross_pairs(query, target)
    else:
        pairs = zip_pairs(query, target)
    return _chunked(pairs, size)
