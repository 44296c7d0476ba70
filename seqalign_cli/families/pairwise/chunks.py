"""Pairing of records into alignment pairs, streamed in chunks.

Pairing works on record blocks and index arrays (no object per record):

* zip (default): the i-th query with the i-th target;
* cross: every query against every target (targets held in memory);
* interleaved: the query file alone holds pairs as consecutive records;
* pairs file: a TSV of ``query_name<TAB>target_name[:region]``; queries are
  looked up by name, targets (and regions in every form samtools takes,
  1-based inclusive) cut from the target FASTA through its index (pyfaidx;
  the index is built beside the file, or in a temporary folder where that
  cannot be written), or read into memory where the file cannot be indexed
  (gzip that is not bgzip, lines of uneven length).

An input without records is no error: the run writes an output without
records, and one warning line says which file was empty. A part of a
sharded run (``--shard``, ``shard.py``) reads only its range of the file
that defines the units (QUERY, or the pairs file), which is read twice and
so must be a regular file (``shard.require_file``, checked before anything
opens it); a part left empty by a non-empty input says nothing. Where the output
is SAM/BAM (``PairInputs.sam_scoring``), the queries' names are held to
SAM's rules by the reader, and every pair's score bound to the 32-bit
integers SAM and BAM store.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ...errors import InputError, UsageError, warn
from ...io.ahead import Ahead
from ...io.block import Record, RecordBlock
from ...io.fastx import FastxReader, display_name, open_binary
from ...io.sizing import ChunkSize
from ...io.shard import at_end, plan, plan_lines, records, require_file
from ...io.validate import first_bad_letter, record_label, sam_name_error
from ...protocols import Chunk
from .batch import PairBatch
from .chunks_mapping import best_strand, both_strands, primary_roles
from .inputs import PairInputs

#: the largest score SAM's AS:i and BAM's 32-bit integer tags hold
INT32_MAX = 2**31 - 1


@dataclass(eq=False)
class PairChunk(Chunk):
    """Up to batch-size pairs in input order: the i-th query with the i-th target.

    ``q`` and ``t`` are record blocks of equal length; ``queries`` and
    ``targets`` give them as ``Record`` lists for the writers that go record
    by record (SAM/BAM). With ``both`` (``--strand both``) the batch holds
    each pair twice, the query as read and reverse-complemented, and
    ``finish`` keeps the better; ``per_query`` (``--cross``: the target
    count) says that every ``per_query`` pairs are one query's records, of
    which ``finish`` makes the best the primary (``chunks_mapping``).
    """

    q: RecordBlock
    t: RecordBlock
    both: bool = False
    per_query: int = 0

    def __len__(self) -> int:
        return len(self.q)

    @property
    def queries(self) -> list[Record]:
        return self.q.records()

    @property
    def targets(self) -> list[Record]:
        return self.t.records()

    def batch(self) -> PairBatch:
        """The encoded pairs a backend aligns (2n with ``both``: the n pairs, then their reverse strands)."""
        if self.both:
            return both_strands(self.q, self.t)
        return PairBatch(self.q.codes(), self.q.seq_off, self.t.codes(), self.t.seq_off)

    def finish(self, res):
        """The results the writers see: each pair's better strand (``both``), each query's primary."""
        if self.both:
            res = best_strand(res, len(self))
        if self.per_query:
            res.role = primary_roles(res, self.t, self.per_query)
        return res


class _Records:
    """The records of a reader, taken n at a time as one block each; ``limit`` records at most in all
    (a part of a sharded run, ``shard.Part.limit``), or every record (None).

    ``ahead`` (a chunk's size, a count or a ``ChunkSize``; the files of a lockstep pairing, each beside the
    others): one thread parses the file, another takes its records a chunk's size at a time and encodes
    them, so that taking a chunk is one block made ready, its codes with it. ``blocks``: the parsed blocks
    (default: the reader's).
    """

    def __init__(self, reader: FastxReader, limit: int | None = None, ahead: int | ChunkSize = 0, blocks=None):
        self.reader = reader
        self.blocks = reader.blocks() if blocks is None else blocks
        self.threads: list[Ahead] = []
        if ahead:
            parsed = Ahead(self.blocks)
            # one chunk ready and one in the making a file (the run's reader thread keeps its own chunks ahead):
            # a chunk of long reads is large
            self.blocks = Ahead(_encoded(_Records(reader, blocks=parsed), ChunkSize.of(ahead)), depth=1,
                                name="seqalign-take-ahead")
            self.threads = [self.blocks, parsed]
        self.parts: deque[RecordBlock] = deque()
        self.held = 0
        self.limit = limit

    def fitting(self, n: int, letters: int) -> int:
        """How many of the next ``n`` records (fewer at the end) hold at most ``letters`` letters together;
        reads blocks ahead as needed and takes none."""
        if self.limit is not None:
            n = min(n, self.limit)
        held = sum(int(block.seq_off[-1]) for block in self.parts)
        while self.held < n and held <= letters:
            block = next(self.blocks, None)
            if block is None:
                break
            self.parts.append(block)
            self.held += len(block)
            held += int(block.seq_off[-1])
        count = used = 0
        for block in self.parts:
            m = min(len(block), n - count)
            if m <= 0:
                break
            if used + block.seq_off[m] > letters:  # the bound falls inside this block
                return count + int(np.searchsorted(block.seq_off[1:m + 1], letters - used, side="right"))
            used += int(block.seq_off[m])
            count += m
        return count

    def take(self, n: int) -> RecordBlock:
        """The next n records (fewer at the end of the file, or of the limit)."""
        if self.limit is not None:
            n = min(n, self.limit)
            self.limit -= n
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

    def close(self):
        """Stop the threads that make records ahead (the end of the pairing, or an error)."""
        for thread in self.threads:
            thread.close()

    def drain(self, whole: bool = False) -> int:
        """Read to the end of the file (of the limit, unless ``whole``), keeping nothing; returns the records
        that were left."""
        if self.limit is not None and not whole:
            return len(self.take(self.limit))
        left = self.held
        self.parts.clear()
        self.held = 0
        for block in self.blocks:
            left += len(block)
        return left


def _encoded(records: _Records, size: ChunkSize) -> Iterator[RecordBlock]:
    """``records`` taken a chunk's ``size`` at a time, each block's codes made; before an error, the records
    read."""
    while True:
        try:
            block = records.take(size.next_count(records.fitting))
        except BaseException:
            if records.held:
                yield _encode(records.take(records.held))
            raise
        if not len(block):
            return
        yield _encode(block)


def _encode(block: RecordBlock) -> RecordBlock:
    block.codes()  # kept by the block
    return block


def warn_if_empty(*readers: FastxReader, what: str = "records"):
    """One warning line when the run has nothing to align: names the readers that found no record."""
    empty = [r.name for r in readers if r.count == 0]
    if empty:
        warn(f"no {what} (empty input): nothing to align, the output holds no records", path=", ".join(empty))


def _require_records(reader: FastxReader, count: int):
    """The end of a reader that may have found nothing (an empty input warns; see ``warn_if_empty``)."""
    if count == 0:
        warn_if_empty(reader)


def zip_chunks(query: str, target: str, size: int | ChunkSize, sam_names: int = 0,
               shard=None) -> Iterator[PairChunk]:
    size = ChunkSize.of(size)
    part = plan(shard, query)
    skip, limit = records(part)
    qr, tr = FastxReader(query, sam_names, skip), FastxReader(target, skip=skip)
    qs, ts = _Records(qr, limit, ahead=size), _Records(tr, limit, ahead=size)
    try:
        while True:
            qb = qs.take(size.next_count(qs.fitting, ts.fitting))
            if not len(qb):
                break
            tb = ts.take(len(qb))
            if len(tb) < len(qb):
                qs.drain(whole=True)
                raise InputError(f"unequal record counts: {qr.count} queries in {qr.name} but "
                                 f"{tr.count} targets in {tr.name}")
            yield PairChunk(qb, tb)
        rest = ts.drain()
    finally:
        qs.close()
        ts.close()
    if rest:
        raise InputError(f"unequal record counts: {qr.count} queries in {qr.name} but "
                         f"{tr.count} targets in {tr.name}")
    if at_end(part):
        warn_if_empty(qr, tr)


def cross_chunks(query: str, target: str, size: int, sam_names: int = 0, shard=None) -> Iterator[PairChunk]:
    """Every query against every target, query-major; the targets are held in memory. A part of a sharded
    run takes a part of the queries, against every target. A chunk holds whole queries (``size`` // targets
    of them, at least one), each with all its targets."""
    part = plan(shard, query)
    skip, limit = records(part)
    tr = FastxReader(target)
    targets = RecordBlock.concat(list(tr.blocks()))
    qs = _Records(FastxReader(query, sam_names, skip), limit)
    nt = len(targets)
    if nt == 0:  # no pair: the queries are still read through (and checked)
        qs.drain()
        warn_if_empty(*((qs.reader,) if at_end(part) else ()), tr)
        return
    # whole queries a chunk: a query's records stay together (its primary is chosen among them); one
    # query with more targets than ``size`` is one chunk of its own
    per_chunk = max(1, size // nt)
    while True:
        queries = qs.take(per_chunk)
        if not len(queries):
            break
        p = np.arange(len(queries) * nt, dtype=np.int64)
        yield PairChunk(queries.take(p // nt), targets.take(p % nt), per_query=nt)
    if at_end(part):
        warn_if_empty(qs.reader)


def interleaved(path: str, size: int, k: int, uneven, sam_names: int = 0,
                shard=None) -> Iterator[tuple[RecordBlock, ...]]:
    """Records k*t .. k*t + k - 1 of one file, ``size`` groups at a time, as k blocks.

    ``uneven(reader, block)``: the error when the record count is not a multiple of k.
    ``sam_names``: see ``FastxReader``. ``shard``: (K, N), the K-th part of the groups.
    """
    part = plan(shard, path, k)
    skip, limit = records(part)
    reader = FastxReader(path, sam_names, skip)
    held = _Records(reader, limit)
    while True:
        block = held.take(k * size)
        if len(block) % k:
            raise uneven(reader, block)
        if not len(block):
            break
        idx = np.arange(0, len(block), k, dtype=np.int64)
        yield tuple(block.take(idx + s) for s in range(k))
    if at_end(part):
        warn_if_empty(reader)


def interleaved_chunks(query: str, size: int, sam_names: int = 0, shard=None) -> Iterator[PairChunk]:
    def uneven(qr, block):
        return InputError(f"odd number of records ({qr.count}) in an interleaved file: record "
                          f"{qr.count} ({block.name(len(block) - 1)}) has no partner", path=qr.name)

    for q, t in interleaved(query, size, 2, uneven, 2 if sam_names else 0, shard):  # queries: records 1, 3, 5...
        yield PairChunk(q, t)


#: the coordinates of a region: beg, beg-, -end, beg-end (numbers with commas, a k/M/G multiplier)
_NUMBER = r"([0-9][0-9,]*(?:\.[0-9]+)?[kKmMgG]?)"
_SPAN = re.compile(rf"{_NUMBER}?(-)?{_NUMBER}?")
_MULTIPLIER = {"k": 10**3, "m": 10**6, "g": 10**9}
#: how messages describe the forms a region takes
REGION_FORMS = ("NAME, NAME:BEG (to the end), NAME:BEG-, NAME:-END or NAME:BEG-END, 1-based inclusive, "
                "commas allowed; {NAME} or {NAME}:BEG-END for a name that holds ':'")


def _number(text: str) -> int | None:
    """A region coordinate as samtools reads it (``1,000``, ``2k``, ``1.5M``), None if not a whole number."""
    text = text.replace(",", "")
    scale = 1
    if text[-1:].lower() in _MULTIPLIER:
        scale = _MULTIPLIER[text[-1].lower()]
        text = text[:-1]
    whole, _, frac = text.partition(".")
    if frac and not scale > 1:
        return None
    value = int(whole) * scale + (int(frac) * scale // 10 ** len(frac) if frac else 0)
    if frac and int(frac) * scale % 10 ** len(frac):
        return None
    return value


def parse_region(spec: str, known) -> tuple[str, int | None, int | None] | None:
    """(name, beg, end) of a region string, 1-based inclusive, None for "from the start" / "to the end".

    The forms samtools takes: NAME (a name that exists as a whole is never
    split), NAME:BEG (to the end), NAME:BEG-, NAME:-END, NAME:BEG-END,
    {NAME} and {NAME}:... for names that hold ':'. ``known(name)``: whether the
    index holds the name. None when ``spec`` names nothing known.
    """
    if known(spec):
        return spec, None, None
    if spec.startswith("{"):
        close = spec.find("}")
        if close < 0:
            return None
        name, rest = spec[1:close], spec[close + 1:]
        if not rest:
            return (name, None, None) if known(name) else None
        if not rest.startswith(":"):
            return None
        rest = rest[1:]
    else:
        name, colon, rest = spec.rpartition(":")
        if not colon:
            return None
    if not known(name) or not rest:
        return None
    m = _SPAN.fullmatch(rest)
    if not m or (m.group(1) is None and m.group(3) is None and not m.group(2)):
        return None
    beg = _number(m.group(1)) if m.group(1) else None
    end = _number(m.group(3)) if m.group(3) else None
    if (m.group(1) and beg is None) or (m.group(3) and end is None) or (m.group(3) and not m.group(2)):
        return None
    return name, beg, end


def _is_bgzf(path: str) -> bool | None:
    """Whether a file is BGZF (gzip with the 'BC' extra field), False for other gzip, None when not gzip."""
    with open(path, "rb") as fh:
        head = fh.read(18)
    if head[:2] != b"\x1f\x8b":
        return None
    return len(head) >= 16 and bool(head[3] & 4) and head[12:14] == b"BC"


class RegionFetcher:
    """Target sequences and regions by name from a FASTA file.

    Through its index where the file can be indexed (plain or bgzip, lines
    of equal length: pyfaidx): the ``.fai`` beside the file is used when it
    is current, built there when it is missing and the folder can be
    written, and otherwise built in a temporary folder that is removed once
    read (a read-only reference folder works and is left as it was). Any
    other FASTA (gzip that is not bgzip, uneven lines) is read into memory
    through the reader, and so is a reference that is not a regular file (a
    pipe). Sequences are checked as the reader checks them: a region the
    index gives with anything but accepted letters (spaces inside lines,
    another character) makes the whole file read through the reader, which
    removes the spaces or names the first record that breaks a rule.
    """

    def __init__(self, path: str):
        if path == "-":
            raise UsageError("--pairs needs the target FASTA as a file, not stdin")
        self.path = path
        self.fasta = None  # the pyfaidx index
        self.block: RecordBlock | None = None  # the records, when held in memory
        self.number: dict[str, int] = {}  # name -> 1-based record number
        if os.path.isfile(path):  # not a pipe (``<(zcat ref.fa.gz)``), which is read once, into memory
            open_binary(path).close()  # an unreadable file is a usage error, as for any input
            if _is_bgzf(path) is not False:
                self.fasta = self._indexed(path)
        if self.fasta is not None:
            self.number = {name: k + 1 for k, name in enumerate(self.fasta.keys())}
        else:
            self._load(path)

    @staticmethod
    def _indexed(path: str):
        """The pyfaidx index of ``path`` (beside it, else in a temporary folder), None where it cannot be had."""
        import pyfaidx

        def open_index(**where):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return pyfaidx.Fasta(path, as_raw=True, sequence_always_upper=False, rebuild=True,
                                     build_index=True, **where)

        bad_file = (pyfaidx.FastaIndexingError, pyfaidx.UnsupportedCompressionFormat, ValueError, ImportError,
                    RuntimeError, IndexError)
        try:
            return open_index()
        except bad_file:
            return None
        except OSError:  # the index cannot be written (or read) beside the file: one of our own
            pass
        folder = tempfile.mkdtemp(prefix="seqalign-index-")
        try:
            base = os.path.join(folder, os.path.basename(path))
            return open_index(indexname=base + ".fai", gzi_indexname=base + ".gzi")  # read into memory at once
        except (OSError, *bad_file):
            return None
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _load(self, path: str):
        reader = FastxReader(path)
        self.block = RecordBlock.concat(list(reader.blocks()))
        for k, name in enumerate(self.block.names_list()):
            if name in self.number:
                raise InputError(f"duplicate target name {name!r} (first as record {self.number[name]}); "
                                 f"--pairs looks targets up by name", path=reader.name,
                                 record=record_label(k + 1, name))
            self.number[name] = k + 1

    def _length(self, name: str) -> int:
        if self.block is not None:
            k = self.number[name] - 1
            return int(self.block.seq_off[k + 1] - self.block.seq_off[k])
        return len(self.fasta[name])

    def _letters(self, name: str, beg: int, end: int) -> bytes:
        """Bases beg..end-1 (0-based) of ``name``; ``_NotPlain`` when the index cannot give them as the reader would."""
        if self.block is not None:
            k = self.number[name] - 1
            a = int(self.block.seq_off[k])
            return self.block.seq[a + beg:a + end].tobytes()  # checked by the reader
        try:
            seq = str(self.fasta[name][beg:end]).encode("ascii")
        except (UnicodeError, ValueError):
            raise _NotPlain from None
        if first_bad_letter(np.frombuffer(seq, np.uint8)) >= 0:
            raise _NotPlain
        return seq

    def fetch(self, spec: str, where: str) -> Record:
        try:
            return self._fetch(spec, where)
        except _NotPlain:
            # a region the index does not give plainly (spaces inside lines, a letter the reader refuses,
            # bytes outside ASCII): the file is read as the reader reads it, which names the first record
            # that breaks a rule, or gives the letters without the spaces
            self.fasta, self.number = None, {}
            self._load(self.path)
            return self._fetch(spec, where)

    def _fetch(self, spec: str, where: str) -> Record:
        found = parse_region(spec, self.number.__contains__)
        if found is None:
            raise InputError(f"unknown target name {spec!r} (not in {self.path}, nor a region of a name in it: "
                             f"{REGION_FORMS})", path=where)
        name, beg, end = found
        length = self._length(name)
        first = 1 if beg is None else beg
        last = length if end is None else end
        if beg is None and end is None:
            return Record(spec, self._letters(name, 0, length))
        if first < 1 or last < first or last > length:
            raise InputError(f"region {spec!r} is outside {name} (length {length}); regions are "
                             f"1-based inclusive with 1 <= start <= end <= length", path=where)
        return Record(spec, self._letters(name, first - 1, last))


class _NotPlain(Exception):
    """A region the FASTA index cannot give as the reader would read it."""


def file_chunks(pairs_file: str, query: str, target: str | None, size: int,
                sam_names: int = 0, shard=None) -> Iterator[PairChunk]:
    """The pairs listed in a pairs file; queries by name, targets (or regions) through the index.

    ``sam_names``: the names of the queries listed are held to SAM's rules. ``shard``: (K, N), the
    K-th part of the pair lines (the lines before it are passed over unread, reading stops after it).
    """
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
    queries = RecordBlock.concat(blocks)
    fetcher = RegionFetcher(target if target is not None else query)
    shown = display_name(pairs_file)
    try:
        fh = open(pairs_file) if pairs_file != "-" else None  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot open pairs file ({exc.strerror})", path=pairs_file) from None
    part = plan_lines(shard, pairs_file)
    first, last = (part.start, part.stop) if part is not None else (0, None)
    import sys

    def chunk(picked, targets):
        q = queries.take(np.array(picked, np.int64))
        bad = sam_name_error(q) if sam_names else None
        if bad is not None:
            raise InputError(bad[1], path=qr.name, record=record_label(int(q.num[bad[0]]), q.name(bad[0])))
        return PairChunk(q, RecordBlock.from_records(targets))

    n = 0
    picked: list[int] = []
    targets: list[Record] = []
    with fh or sys.stdin as lines:
        for lineno, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                continue
            n += 1
            if n <= first:  # before the part
                continue
            if last is not None and n > last:  # after it
                break
            fields = line.rstrip("\r\n").split("\t")
            where = f"{shown}: line {lineno}"
            if len(fields) < 2:
                raise InputError("expected query_name<TAB>target_name[:start-end]", path=where)
            k = index.get(fields[0])
            if k is None:
                raise InputError(f"unknown query name {fields[0]!r} (not in {qr.name})", path=where)
            picked.append(k)
            targets.append(fetcher.fetch(fields[1], where))
            if len(picked) >= size:
                yield chunk(picked, targets)
                picked, targets = [], []
    if n == 0:
        warn("no pairs listed (empty pairs file): nothing to align, the output holds no records", path=shown)
    if picked:
        yield chunk(picked, targets)


def _sam_bounds(chunks: Iterator[PairChunk], inputs: PairInputs) -> Iterator[PairChunk]:
    """The chunks, each once its pairs are known to score within SAM/BAM's 32-bit integers (the bound)."""
    scoring = inputs.sam_scoring
    for chunk in chunks:
        ql = np.diff(chunk.q.seq_off).astype(np.float64)
        tl = np.diff(chunk.t.seq_off).astype(np.float64)
        over = np.flatnonzero(scoring.score_bound(ql, tl) > INT32_MAX)
        if len(over):
            k = int(over[0])
            raise UsageError(
                f"with this scoring a pair of {int(ql[k]):,} x {int(tl[k]):,} bases (target "
                f"{chunk.t.name(k)!r}) may score beyond the 32-bit integers SAM/BAM store (AS:i, at most "
                f"{INT32_MAX:,}); use smaller --match/--mismatch/--gap-open/--gap-extend/--n-penalty, or "
                f"write TSV or PAF", path=display_name(inputs.query),
                record=record_label(int(chunk.q.num[k]), chunk.q.name(k)))
        yield chunk


def pair_chunks(inputs: PairInputs, size: int | ChunkSize,
                shard: tuple[int, int] | None = None) -> Iterator[PairChunk]:
    """The pairs of a run, in input order, in chunks of ``size`` (a count, or ``ChunkSize``'s rule: for two
    files read side by side; the other pairings take its ``count``); ``shard`` (K, N): the K-th of N parts
    (``shard.py``) of the pairs (zip, interleaved), the queries (cross) or the pair lines (pairs file)."""
    sam = 1 if inputs.sam_scoring is not None else 0
    size = ChunkSize.of(size)
    if inputs.pairing == "pairs":
        require_file(shard, inputs.pairs_file, "the --pairs file")
        chunks = file_chunks(inputs.pairs_file, inputs.query, inputs.target, size.count, sam, shard)
    elif inputs.pairing == "interleaved":
        require_file(shard, inputs.query, "QUERY")
        chunks = interleaved_chunks(inputs.query, size.count, sam, shard)
    elif inputs.pairing == "cross":
        require_file(shard, inputs.query, "QUERY")
        chunks = cross_chunks(inputs.query, inputs.target, size.count, sam, shard)
    else:
        require_file(shard, inputs.query, "QUERY")
        chunks = zip_chunks(inputs.query, inputs.target, size, sam, shard)
    if inputs.strand == "both":
        chunks = _both_strands(chunks)
    return chunks if not sam else _sam_bounds(chunks, inputs)


def _both_strands(chunks: Iterator[PairChunk]) -> Iterator[PairChunk]:
    """The chunks, each aligning its queries on both strands (``--strand both``)."""
    for chunk in chunks:
        chunk.both = True
        yield chunk
