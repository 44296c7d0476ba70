"""SAM/BAM writer: the query is the read, the target the reference; streamed chunk by chunk.

Records: unaligned query ends are soft-clipped; tags AS:i (score), NM:i and
MD:Z. A pair without aligned bases (empty alignment, empty query or target)
is an unmapped record carrying AS:i. A pair aligned reverse-complemented
(``--strand both``) has flag 16, its SEQ reverse-complemented and QUAL
reversed (the read as it lies along the reference); with ``--cross`` every
record but its query's primary has flag 256 (``chunks_mapping``), SEQ and QUAL
kept, so that every record can be checked on its own (``samtools calmd``).
With a read group (``-R``) its line goes to the header and every record
ends with ``RG:Z:<ID>``. The records of a chunk are formatted in one
compiled call (``formats_sam_bulk.format_sam``, ``formats_sam_bulk.encode_bam``) and
written at once, in input order; BAM goes through BGZF (``bgzf.py``),
deflated by ``threads`` threads (``WriterContext.threads``, 1 without it),
and so does SAM to a ``.gz`` name.

Header: ``@HD``, one ``@SQ`` per distinct non-empty target in input order
(used by a mapped record or not, as aligners list every reference), the
``@RG`` line of ``-R``, ``@PG`` with the full command line. It goes out
first, so the references are read in a thread beside the run
(``reference_batches``): the target file for zip and cross pairing, the
even records of the interleaved file, the pairs file with the reference's ``.fai`` (or the reference itself) for ``--pairs``.
The chunks that come before that read ends are held in a temporary file;
then the header, the held records and every later chunk go out in order.
Where the targets cannot be read twice (stdin, a pipe) every record is held
and follows the header at the end of the run. The BAM reference ids are
given in order of first appearance as the chunks come, which is the order
the read found (checked). Every part of a sharded run (``--shard``) writes
the header; a part after the first waits for that read, and its records
take the header's ids, so that the parts' headers are the whole run's
(where the targets cannot be read twice, a part's header lists its own).

Target names must be unique: the same name with two different sequences is
an error, found before any record is written where the targets are read
first.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
import threading

import numpy as np

from ... import __version__
from ...errors import InputError
from ...formatting import INT_WIDTH, put_bytes, put_int
from ...jit import nb
from ...protocols import Writer
from ...results import CIGAR_LETTERS, Op
from ...writers.bgzf import BgzfWriter
from ...writers.parts import Parts
from .chunks_mapping import reverse_complement
from .formats_readgroup import read_group_id
from .formats_sam_bulk import encode_bam, format_sam, put_le

_JIT = dict(nogil=True, cache=True, boundscheck=False)

UNMAPPED = 4
#: reference letters as MD:Z shows them: upper case, U as T
_REF_LETTER = {c: chr(c).upper() for c in b"ACGTNacgtnRYSWKMBDHVrysw kmbdhv".replace(b" ", b"")}
_REF_LETTER.update({ord("U"): "T", ord("u"): "T"})


def _table(letter) -> np.ndarray:
    return np.array([letter(b) for b in range(256)], np.uint8)


#: MD:Z letter of a target byte (N for anything else)
REF_LETTERS = _table(lambda b: ord(_REF_LETTER.get(b, "N")))
#: SEQ letter of a query byte: upper case, U as T; a byte outside ASCII as N
SEQ_LETTERS = _table(lambda b: ord("N") if b >= 128 else ord(chr(b).upper().replace("U", "T")))
#: QUAL letter of a quality byte: as read; a byte outside ASCII as '!' (quality 0)
QUAL_LETTERS = _table(lambda b: ord("!") if b >= 128 else b)
#: BAM 4-bit code of a query byte, through its SEQ letter ('=ACMGRSVTWYHKDBN'; anything else N)
_NT16 = {c: k for k, c in enumerate(b"=ACMGRSVTWYHKDBN")}
NT16 = _table(lambda b: _NT16.get(SEQ_LETTERS[b], 15))
#: BAM quality value of a quality byte (its QUAL letter less 33)
QUAL_VALUES = _table(lambda b: (int(QUAL_LETTERS[b]) - 33) & 0xFF)
#: the longest query name BAM holds
MAX_QNAME = 254
_NO_QUAL = np.zeros(0, np.uint8)
#: no tags after a record's own (no read group)
NO_TAGS = np.zeros(0, np.uint8)


def md_tag(ops, lens, target: bytes, tstart: int) -> str:
    """The MD:Z string of an alignment (reference bases upper-case); ``formats_sam_bulk.put_md`` in Python."""
    parts = []
    num = 0
    tpos = tstart
    for op, n in zip(ops, lens):
        if op == Op.MATCH:
            num += n
            tpos += n
        elif op == Op.MISMATCH:
            for b in target[tpos:tpos + n]:
                parts.append(f"{num}{_REF_LETTER.get(b, 'N')}")
                num = 0
            tpos += n
        elif op == Op.DELETION:
            parts.append(f"{num}^{''.join(_REF_LETTER.get(b, 'N') for b in target[tpos:tpos + n])}")
            num = 0
            tpos += n
    parts.append(str(num))
    return "".join(parts)


# ------------------------------------------------------------------ references
#
# The @SQ table: names back to back (``names``, ``off``), lengths and sequence
# hashes, looked up by name through an open-addressing table of slots (-1:
# free) over 64-bit FNV-1a hashes of the names.


@nb.njit(**_JIT)
def _fnv(buf, a, b):
    h = np.uint64(0xCBF29CE484222325)
    for i in range(a, b):
        h = (h ^ np.uint64(buf[i])) * np.uint64(0x100000001B3)
    return h


@nb.njit(**_JIT)
def _words_hash(buf, a, b):
    """A 64-bit hash of ``buf[a:b]`` taken 8 bytes at a time (FNV-1a on words, each step folded)."""
    h = np.uint64(0xCBF29CE484222325)
    i = a
    while i + 8 <= b:
        w = np.uint64(0)
        for j in range(8):
            w |= np.uint64(buf[i + j]) << np.uint64(8 * j)
        h = (h ^ w) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
        i += 8
    while i < b:
        h = (h ^ np.uint64(buf[i])) * np.uint64(0x100000001B3)
        i += 1
    return h


@nb.njit(**_JIT)
def _slot(slots, name_hash, ref_names, ref_off, names, a, b, h):
    """The reference named ``names[a:b]`` (hash ``h``) and its slot; -1 and a free slot when none has the name."""
    mask = slots.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while True:
        r = slots[i]
        if r < 0:
            return -1, i
        if name_hash[r] == h and ref_off[r + 1] - ref_off[r] == b - a:
            base = ref_off[r]
            same = True
            for j in range(b - a):
                if ref_names[base + j] != names[a + j]:
                    same = False
                    break
            if same:
                return r, i
        i = (i + 1) & mask


@nb.njit(**_JIT)
def _add(slots, name_hash, ref_names, ref_off, ref_len, ref_seq, n, names, name_off, lengths, seq, seq_off,
         check_repeats, ids):
    """Register the records of non-zero ``lengths`` in order (``ids``: their reference; -1 for the others).

    A record's sequence (``seq[seq_off[k]:seq_off[k + 1]]``) is hashed when its
    name is new, and when it is seen again with ``check_repeats``. Returns the
    new reference count and the first record whose name has another length or
    sequence than before (-1 for none; the records from it on are not
    registered).
    """
    for k in range(lengths.shape[0]):
        if lengths[k] == 0:
            ids[k] = -1
            continue
        a = name_off[k]
        b = name_off[k + 1]
        h = _fnv(names, a, b)
        r, i = _slot(slots, name_hash, ref_names, ref_off, names, a, b, h)
        if r >= 0:
            if ref_len[r] != lengths[k] or (check_repeats and ref_seq[r] != _words_hash(seq, seq_off[k],
                                                                                       seq_off[k + 1])):
                return n, k
            ids[k] = r
            continue
        base = ref_off[n]
        for j in range(b - a):
            ref_names[base + j] = names[a + j]
        ref_off[n + 1] = base + b - a
        ref_len[n] = lengths[k]
        ref_seq[n] = _words_hash(seq, seq_off[k], seq_off[k + 1])
        name_hash[n] = h
        slots[i] = n
        ids[k] = n
        n += 1
    return n, -1


@nb.njit(**_JIT)
def _rehash(slots, name_hash, n):
    slots[:] = -1
    mask = slots.shape[0] - 1
    for r in range(n):
        i = np.int64(name_hash[r] & np.uint64(mask))
        while slots[i] >= 0:
            i = (i + 1) & mask
        slots[i] = r


_SQ = np.frombuffer(b"@SQ\tSN:", np.uint8).copy()
_LN = np.frombuffer(b"\tLN:", np.uint8).copy()


@nb.njit(**_JIT)
def _sq_lines(ref_names, ref_off, ref_len, n):
    buf = np.empty(ref_off[n] + n * (INT_WIDTH + 12), np.uint8)
    pos = 0
    for r in range(n):
        for c in range(7):
            buf[pos + c] = _SQ[c]
        pos = put_bytes(buf, pos + 7, ref_names, ref_off[r], ref_off[r + 1])
        for c in range(4):
            buf[pos + c] = _LN[c]
        pos = put_int(buf, pos + 4, ref_len[r])
        buf[pos] = 10
        pos += 1
    return buf[:pos]


@nb.njit(**_JIT)
def _bam_refs(ref_names, ref_off, ref_len, n):
    """n_ref and every (l_name, name, NUL, l_ref) of a BAM header."""
    buf = np.empty(4 + ref_off[n] + 9 * n, np.uint8)
    pos = put_le(buf, 0, n, 4)
    for r in range(n):
        pos = put_le(buf, pos, ref_off[r + 1] - ref_off[r] + 1, 4)
        pos = put_bytes(buf, pos, ref_names, ref_off[r], ref_off[r + 1])
        buf[pos] = 0
        pos = put_le(buf, pos + 1, ref_len[r], 4)
    return buf[:pos]


class References:
    """The references of a SAM/BAM header in order of first appearance, found again by name."""

    def __init__(self):
        self.n = 0
        self.names = np.empty(1 << 16, np.uint8)
        self.off = np.zeros(1025, np.int64)
        self.length = np.zeros(1024, np.int64)
        self.seq = np.zeros(1024, np.uint64)
        self.name_hash = np.zeros(1024, np.uint64)
        self.slots = np.full(4096, -1, np.int64)

    def _room(self, records: int, name_bytes: int):
        need = self.n + records
        if need > len(self.length):
            size = max(2 * len(self.length), need)
            for attr in ("length", "seq", "name_hash"):
                old = getattr(self, attr)
                new = np.zeros(size, old.dtype)
                new[:self.n] = old[:self.n]
                setattr(self, attr, new)
            off = np.zeros(size + 1, np.int64)
            off[:self.n + 1] = self.off[:self.n + 1]
            self.off = off
        used = int(self.off[self.n])
        if used + name_bytes > len(self.names):
            names = np.empty(max(2 * len(self.names), used + name_bytes), np.uint8)
            names[:used] = self.names[:used]
            self.names = names
        if 2 * need > len(self.slots):
            self.slots = np.empty(1 << (4 * need - 1).bit_length(), np.int64)
            _rehash(self.slots, self.name_hash, self.n)

    def add(self, names, name_off, lengths, seq, seq_off, check_repeats: bool = True) -> tuple[np.ndarray, int]:
        """Register records (those of length 0 are not references): their ids, and the first record whose
        name was registered with another length or sequence (-1 for none; the sequences of a name seen
        again are compared with ``check_repeats`` only)."""
        m = len(lengths)
        ids = np.empty(m, np.int64)
        self._room(m, int(name_off[-1] - name_off[0]) if m else 0)
        self.n, bad = _add(self.slots, self.name_hash, self.names, self.off, self.length, self.seq, self.n,
                           names, name_off, lengths, seq, seq_off, check_repeats, ids)
        return ids, int(bad)

    def starts(self, other: "References", first: int = 0) -> bool:
        """Whether ``other``'s references (from its ``first`` on) are this table's first ones, in order."""
        n = other.n
        if n > self.n:
            return False
        a, b = int(other.off[first]), int(other.off[n])
        return (np.array_equal(self.off[first:n + 1], other.off[first:n + 1])
                and np.array_equal(self.names[a:b], other.names[a:b])
                and np.array_equal(self.length[first:n], other.length[first:n]))

    def sq_lines(self) -> bytes:
        return _sq_lines(self.names, self.off, self.length, self.n).tobytes()

    def bam_refs(self) -> bytes:
        return _bam_refs(self.names, self.off, self.length, self.n).tobytes()


# ------------------------------------------------------------------ reading the references first


def _rereadable(path: str | None) -> bool:
    """A regular file (a pipe, stdin or a device cannot be read a second time)."""
    return path is not None and path != "-" and os.path.isfile(path)


def reference_batches(inputs):
    """The targets of a run, in input order, as batches of (names, name_off, lengths, seq, seq_off, nums),
    read from the files beside the pairs; None where they cannot be read twice (stdin, a pipe, no pair
    inputs)."""
    pairing = getattr(inputs, "pairing", None)
    if pairing in ("zip", "cross"):
        return _fastx_targets(inputs.target, 1) if _rereadable(inputs.target) else None
    if pairing == "interleaved":
        return _fastx_targets(inputs.query, 2) if _rereadable(inputs.query) else None
    if pairing == "pairs":
        ref = inputs.target if inputs.target is not None else inputs.query
        if _rereadable(inputs.pairs_file) and _rereadable(ref):
            return _pairs_targets(inputs.pairs_file, ref)
    return None


def _fastx_targets(path: str, every: int):
    """The records of a FASTA/FASTQ file (every second one, the targets of an interleaved file, for 2)."""
    from ...io.fastx import FastxReader

    for block in FastxReader(path).blocks():
        if every == 2:
            block = block.take(np.flatnonzero(block.num % 2 == 0))
        yield block.names, block.name_off, np.diff(block.seq_off), block.seq, block.seq_off, block.num


def _fai_lengths(path: str) -> dict[str, int] | None:
    """Sequence lengths from ``path.fai`` when it is newer than the FASTA and complete: its last
    sequence ends where the file does, but for line breaks (an index still being written, or one of
    a compressed FASTA, is not used). None otherwise."""
    fai = path + ".fai"
    try:
        if os.path.getmtime(fai) < os.path.getmtime(path):
            return None
        with open(fai) as fh:
            text = fh.read()
        lengths: dict[str, int] = {}
        end = -1
        if not text.endswith("\n"):
            return None
        for line in text.splitlines():
            name, length, offset, bases, width = line.split("\t")[:5]
            length, offset, bases, width = int(length), int(offset), int(bases), int(width)
            lengths.setdefault(name, length)
            end = offset + (length // bases) * width + length % bases if bases > 0 else offset
        with open(path, "rb") as fasta:
            fasta.seek(max(end, 0))
            tail = fasta.read(65)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return lengths if end >= 0 and len(tail) <= 64 and not tail.strip() else None


def _sequence_lengths(path: str) -> dict[str, int]:
    lengths = _fai_lengths(path)
    if lengths is not None:
        return lengths
    from ...io.fastx import FastxReader

    lengths = {}
    for block in FastxReader(path).blocks():
        for name, n in zip(block.names_list(), np.diff(block.seq_off).tolist()):
            lengths.setdefault(name, n)
    return lengths


def _spec_length(spec: str, lengths: dict[str, int]) -> int | None:
    """The length of a pairs file's target (a whole sequence or a region of one, as the reader reads
    it: ``chunks.parse_region``), None where the reader refuses it."""
    from .chunks import parse_region

    found = parse_region(spec, lengths.__contains__)
    if found is None:
        return None
    name, beg, end = found
    first = 1 if beg is None else beg
    last = lengths[name] if end is None else end
    if beg is None and end is None:
        return last
    return last - first + 1 if 1 <= first <= last <= lengths[name] else None


def _pack(specs: list[str], lengths: list[int]):
    """A batch of pairs-file targets: no letters to compare (a spec always names the same ones)."""
    names = [s.encode() for s in specs]
    off = np.zeros(len(names) + 1, np.int64)
    np.cumsum([len(x) for x in names], out=off[1:])
    return (np.frombuffer(b"".join(names), np.uint8), off, np.array(lengths, np.int64), _NO_QUAL,
            np.zeros(len(names) + 1, np.int64), np.zeros(len(names), np.int64))


def _pairs_targets(pairs_file: str, reference: str):
    """The targets of a pairs file up to its first line the reader refuses (the run then stops there)."""
    lengths = _sequence_lengths(reference)
    specs: list[str] = []
    sizes: list[int] = []
    with open(pairs_file) as lines:
        for line in lines:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\r\n").split("\t")
            size = _spec_length(fields[1], lengths) if len(fields) >= 2 else None
            if size is None:
                break
            specs.append(fields[1])
            sizes.append(size)
            if len(specs) >= 1 << 16:
                yield _pack(specs, sizes)
                specs, sizes = [], []
    if specs:
        yield _pack(specs, sizes)


# ------------------------------------------------------------------ the writers


#: records a thread formats at least
class SamWriter(Writer):
    """SAM (``bam = False``) or BAM records of pairs, chunk by chunk; see the module.

    ``refs``: the references of the chunks written so far, in order of first
    appearance (the BAM ids); ``scanned``: every reference, read beside the
    run (the header). Until the scan ends the records go to a temporary file
    (``spool``); then the header, what was held and every later chunk go to
    the output (``sink``). Without a scan the records are held to the end and
    the header is ``refs``.
    """

    bam = False

    def __init__(self, ctx):
        self.out = ctx.out
        self.command_line = ctx.command_line.replace("\t", " ").replace("\n", " ")
        self.cigar_m = ctx.cigar_m
        self.read_group = getattr(ctx, "read_group", None)  # the @RG line, checked by the command line
        rg = read_group_id(self.read_group).encode() if self.read_group else None
        #: the bytes every record ends with: its RG tag, as SAM text or BAM binary
        self.tags = (np.frombuffer(b"RGZ" + rg + b"\0" if self.bam else b"\tRG:Z:" + rg, np.uint8).copy()
                     if rg is not None else NO_TAGS)
        self.threads = max(1, int(getattr(ctx, "threads", 1) or 1))
        inputs = ctx.inputs
        self.target_file = getattr(inputs, "reference", None) or "target"
        self.query_file = getattr(inputs, "query", None) or "query"
        self.refs = References()
        self.scanned: References | None = None
        self.scan_error: BaseException | None = None
        self.sink = None  # the output, once the header is written
        self.spool = None  # the records held until the header can be written
        self.parts = Parts(self.threads)  # formats the parts of a chunk side by side
        self.scan = None
        #: a part after the first of a sharded run (``WriterContext.header`` False): see ``_start_part``
        self.later_part = not getattr(ctx, "header", True)
        source = reference_batches(inputs)
        if source is not None:
            self.scan = threading.Thread(target=self._scan, args=(source,), name="seqalign-references", daemon=True)
            self.scan.start()

    # -- references

    def _scan(self, source):
        table = References()
        try:
            for names, name_off, lengths, seq, seq_off, nums in source:
                self._register(table, names, name_off, lengths, seq, seq_off, nums, True)
        except BaseException as exc:  # raised by the next write
            self.scan_error = exc
        else:
            self.scanned = table

    def _register(self, table, names, name_off, lengths, seq, seq_off, nums, check_repeats) -> np.ndarray:
        ids, bad = table.add(names, name_off, lengths, seq, seq_off, check_repeats)
        if bad >= 0:
            name = names[name_off[bad]:name_off[bad + 1]].tobytes().decode("utf-8", "replace")
            num = int(nums[bad])
            raise InputError(f"target name {name!r} is used for two different sequences; "
                             f"SAM/BAM need unique reference names (rename one, or write TSV/PAF)",
                             path=self.target_file, record=f"{num} ({name})" if num else name)
        return ids

    # -- output

    def header_text(self, refs: References) -> bytes:
        rg = f"{self.read_group}\n".encode() if self.read_group else b""
        return b"".join((b"@HD\tVN:1.6\tSO:unsorted\n", refs.sq_lines(), rg,
                         f"@PG\tPN:seqalign\tID:seqalign\tVN:{__version__}\tCL:{self.command_line}\n".encode()))

    def _start(self, refs: References):
        """Open the output, write the header of ``refs`` and what was held back."""
        if self.bam:
            self.out.compress = False  # BGZF by itself, whatever the name
            self.sink = BgzfWriter(self.out.open(), self.threads, getattr(self.out, "level", None))
            text = self.header_text(refs)
            self.sink.write(b"BAM\1" + len(text).to_bytes(4, "little") + text + refs.bam_refs())
            self.sink.flush()  # records start on a block boundary (samtools cat relies on it)
        else:
            self.sink = self.out.open(threads=self.threads)
            self.sink.write(self.header_text(refs))
        if self.spool is not None:
            self.spool.seek(0)
            shutil.copyfileobj(self.spool, self.sink, 1 << 20)
            self.spool.close()
            self.spool = None

    def _scanned(self, first: int = 0) -> References:
        """The references read beside the run (waits for the end of the scan), checked against the chunks'
        (from their ``first`` on): the BAM ids the records took are the header's."""
        self.scan.join()
        if self.scan_error is not None:
            raise self.scan_error
        if not self.scanned.starts(self.refs, first):
            raise InputError("the targets differ from those read before the first record (did the file "
                             "change during the run?)", path=self.target_file)
        return self.scanned

    def _start_part(self):
        """A later part of a sharded run: its targets do not start the file's, so the header (every
        reference, read beside the run: the whole run's) is written first and the records take its ids;
        a name it lacks is the error of ``_scanned``."""
        self.refs = copy.deepcopy(self._scanned())
        self._start(self.refs)

    def write(self, chunk, res):
        q, t = chunk.q, chunk.t
        if self.later_part and self.sink is None and self.scan is not None:
            self._start_part()
        known = self.refs.n
        # with a scan, the sequences of a name met again were compared there
        ids = self._register(self.refs, t.names, t.name_off, np.diff(t.seq_off), t.seq, t.seq_off, t.num,
                             self.scan is None)
        if self.sink is not None and self.scan is not None and self.refs.n > known:
            self._scanned(known)
        if self.bam:
            self._check_names(q)
        if res.strand is not None and res.strand.any():
            q = reverse_complement(q, res.strand)  # the reads as they lie along the references
        parts = self._records(q, t, res, ids)
        if self.sink is None and self.scan is not None and not self.scan.is_alive():
            self._start(self._scanned())
        if self.sink is None and self.spool is None:
            self.spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed once copied, or by discard
        out = self.sink if self.sink is not None else self.spool
        for data in parts:
            out.write(data)

    def _records(self, q, t, res, ids) -> list:
        """The records of a chunk as bytes, in parts formatted side by side by ``threads`` threads."""
        has_qual = q.qual is not None
        qual = q.qual if has_qual else _NO_QUAL

        def one(qv, tv, rec, runs, part_ids):
            if self.bam:
                return encode_bam(qv, qual, has_qual, tv, rec, runs, self.cigar_m, part_ids, NT16, QUAL_VALUES,
                                  REF_LETTERS, self.tags)
            return format_sam(qv, qual, has_qual, tv, rec, runs, CIGAR_LETTERS, self.cigar_m, SEQ_LETTERS,
                              QUAL_LETTERS, REF_LETTERS, self.tags)

        return self.parts.map(one, (q.view(), t.view(), res.view(), res.cigar.view(), ids), len(ids))

    def _check_names(self, q):
        long = np.flatnonzero(np.diff(q.name_off) > MAX_QNAME)
        if len(long):
            k = int(long[0])
            raise InputError(f"query name of {int(q.name_off[k + 1] - q.name_off[k])} bytes: BAM holds "
                             f"{MAX_QNAME} at most (write SAM, or shorten the names)",
                             path=self.query_file, record=f"{int(q.num[k])} ({q.name(k)[:40]}...)")

    def close(self):
        if self.sink is None:
            self._start(self._scanned() if self.scan is not None else self.refs)
        if self.bam:
            self.sink.close()  # the last blocks and the EOF block
        self.out.commit()
        self.parts.shutdown()

    def discard(self):
        if self.spool is not None:
            self.spool.close()
        abort = getattr(self.sink, "abort", None) or getattr(self.out.stream, "abort", None)
        if abort is not None:
            abort()
        self.parts.shutdown(wait=False)


class BamWriter(SamWriter):
    bam = True
