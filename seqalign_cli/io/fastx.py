"""FASTA/FASTQ reader: plain or gzip/bgzip, detected from content; '-' is stdin.

Every problem is an ``InputError`` naming the file and the record (1-based
number and name): truncated gzip, a FASTQ record without its '+' line, a
quality string whose length differs from the sequence, text that is neither
FASTA nor FASTQ. Zero-length sequences are valid records.

Records come in blocks (``FastxReader.blocks``, see ``block.RecordBlock``):
the input is read a few MB at a time and parsed by numba functions that
find the records, names and sequence lines and encode the letters in one
pass, with no Python object per record. FASTA is cut on newline + '>'.
FASTQ takes a fast path for the usual four-line records; at the first record
it cannot take (multi-line FASTQ, or anything malformed) the rest of the file
goes through the line parser, which gives the exact error. Iterating a
reader yields ``Record`` objects.
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from typing import BinaryIO, Iterator

import numba as nb
import numpy as np

from ..errors import InputError, UsageError
from .block import Record, RecordBlock
from .encode import _LUT

__all__ = ["FastxReader", "Record", "RecordBlock", "display_name", "open_binary"]

#: bytes asked of the stream at a time
READ_SIZE = 1 << 22
#: input gathered before a block is parsed (gzip and pipes deliver less per read)
MIN_BLOCK = 1 << 20
#: records per block on the line parser's path
SLOW_BLOCK = 4096
_JIT = dict(nogil=True, cache=True, boundscheck=False)


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def open_binary(path: str) -> BinaryIO:
    """Open a file or stdin for reading, decompressing gzip/bgzip if present."""
    if path == "-":
        raw = sys.stdin.buffer
    else:
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed by the reader
        except FileNotFoundError:
            raise UsageError("no such file", path=path) from None
        except IsADirectoryError:
            raise UsageError("is a directory, expected a FASTA/FASTQ file", path=path) from None
        except PermissionError:
            raise UsageError("permission denied", path=path) from None
    head = raw.read(2)
    while 0 < len(head) < 2:  # a pipe may deliver one byte first
        more = raw.read(2 - len(head))
        if not more:
            break
        head += more
    stream = io.BufferedReader(_Prefixed(head, raw, path != "-"), buffer_size=1 << 20)
    if head == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=stream, mode="rb")
    return stream


class _Prefixed(io.RawIOBase):
    """A raw stream that yields ``head`` (already read) before the rest of ``raw``."""

    def __init__(self, head: bytes, raw, owns: bool):
        self.head = head
        self.raw = raw
        self.owns = owns

    def readable(self):
        return True

    def readinto(self, buf):
        if self.head:
            n = min(len(buf), len(self.head))
            buf[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.raw.read1(len(buf)) if hasattr(self.raw, "read1") else self.raw.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    def close(self):
        if self.owns:
            self.raw.close()
        super().close()


@nb.njit(**_JIT)
def _is_space(c):
    """ASCII whitespace as bytes.split()/strip() see it: space, \t \n \v \f \r."""
    return c == 32 or (c >= 9 and c <= 13)


@nb.njit(**_JIT)
def _put_name(data, hs, he, names, npos):
    """The first word of the header data[hs:he] (bytes.split() semantics) into names."""
    a = hs
    while a < he and _is_space(data[a]):
        a += 1
    high = False
    while a < he and not _is_space(data[a]):
        c = data[a]
        names[npos] = c
        high |= c >= 128
        npos += 1
        a += 1
    return npos, high


@nb.njit(**_JIT)
def _parse_fasta(data, end, nrec, lut):
    """Records of data[:end], which starts with '>' and is cut on newline + '>'.

    As ``chunk[1:].split(b"\\n>")`` then ``partition(b"\\n")``: the first line is
    the header (name: its first word), the rest is the sequence with spaces,
    tabs, CR and LF removed. Returns (names, name_off, seq, codes, seq_off,
    first record with an empty name or -1, whether any name byte is non-ASCII).
    """
    names = np.empty(end, np.uint8)
    seq = np.empty(end, np.uint8)
    codes = np.empty(end, np.uint8)
    name_off = np.empty(nrec + 1, np.int64)
    seq_off = np.empty(nrec + 1, np.int64)
    name_off[0] = 0
    seq_off[0] = 0
    bad = -1
    high = False
    npos = 0
    o = 0
    i = 1
    r = 0
    while r < nrec:
        hs = i
        while i < end and data[i] != 10:
            i += 1
        before = npos
        npos, h = _put_name(data, hs, i, names, npos)
        high |= h
        if npos == before and bad < 0:
            bad = r
        name_off[r + 1] = npos
        if i < end:  # data[i] is the header's newline
            if i + 1 < end and data[i + 1] == 62:  # newline + '>': no sequence lines
                i += 2
            else:
                i += 1
                while i < end:
                    c = data[i]
                    if c == 10:
                        if i + 1 < end and data[i + 1] == 62:
                            i += 2
                            break
                    elif c != 32 and c != 9 and c != 13:
                        seq[o] = c
                        codes[o] = lut[c]
                        o += 1
                    i += 1
        seq_off[r + 1] = o
        r += 1
    return names[:npos], name_off, seq[:o], codes[:o], seq_off, bad, high


#: what stopped the FASTQ fast path
FQ_END, FQ_MORE, FQ_OTHER = 0, 1, 2


@nb.njit(**_JIT)
def _line_end(data, p, n):
    while p < n and data[p] != 10:
        p += 1
    return p


@nb.njit(**_JIT)
def _strip(data, a, b):
    while a < b and _is_space(data[a]):
        a += 1
    while b > a and _is_space(data[b - 1]):
        b -= 1
    return a, b


@nb.njit(**_JIT)
def _parse_fastq(data, n, final, cap, lut):
    """Four-line FASTQ records of data[:n] (header, sequence, '+', quality).

    Reproduces the line parser on the records it takes: blank lines between
    records are skipped, sequence and quality lines are stripped, a record
    whose sequence is empty has no quality line. Stops at the end (FQ_END),
    at a record not complete in data unless ``final`` (FQ_MORE), or at a record
    it does not take (FQ_OTHER: more than one sequence or quality line, or
    anything malformed). Returns the columns of the records taken, their
    count, where the first record not taken starts, the status and whether
    any name byte is non-ASCII.
    """
    names = np.empty(n, np.uint8)
    seq = np.empty(n, np.uint8)
    codes = np.empty(n, np.uint8)
    qual = np.empty(n, np.uint8)
    name_off = np.empty(cap + 1, np.int64)
    seq_off = np.empty(cap + 1, np.int64)
    name_off[0] = 0
    seq_off[0] = 0
    high = False
    npos = 0
    o = 0
    r = 0
    p = 0
    status = FQ_END
    start = 0
    while True:
        # blank lines before a record
        e = p
        while p < n:
            e = _line_end(data, p, n)
            if e == n and not final:
                break
            a, b = _strip(data, p, e)
            if a < b:
                break
            p = e + 1
        if p >= n:
            p = n
            status = FQ_END
            break
        start = p
        if e == n and not final:
            status = FQ_MORE
            break
        if r == cap:
            status = FQ_MORE
            break
        # header
        if data[p] != 64:
            status = FQ_OTHER
            break
        ha, hb = p + 1, e
        # sequence line (or the '+' line when the sequence is empty)
        s2 = e + 1
        if s2 >= n:
            status = FQ_OTHER if final else FQ_MORE
            break
        e2 = _line_end(data, s2, n)
        if e2 == n and not final:
            status = FQ_MORE
            break
        qa = qb = 0
        if data[s2] == 43:
            sa = sb = s2
            p = e2 + 1
        else:
            sa, sb = _strip(data, s2, e2)
            s3 = e2 + 1
            if s3 >= n:
                status = FQ_OTHER if final else FQ_MORE
                break
            e3 = _line_end(data, s3, n)
            if e3 == n and not final:
                status = FQ_MORE
                break
            if data[s3] != 43:
                status = FQ_OTHER
                break
            p = e3 + 1
            if sb > sa:
                s4 = e3 + 1
                if s4 >= n:
                    status = FQ_OTHER if final else FQ_MORE
                    break
                e4 = _line_end(data, s4, n)
                if e4 == n and not final:
                    status = FQ_MORE
                    break
                qa, qb = _strip(data, s4, e4)
                if qb - qa != sb - sa:
                    status = FQ_OTHER
                    break
                p = e4 + 1
        before = npos
        npos, h = _put_name(data, ha, hb, names, npos)
        if npos == before:
            status = FQ_OTHER
            break
        high |= h
        for i in range(sa, sb):
            c = data[i]
            seq[o] = c
            codes[o] = lut[c]
            qual[o] = data[qa + i - sa]
            o += 1
        r += 1
        name_off[r] = npos
        seq_off[r] = o
        if p > n:
            p = n
    # where the first record not taken starts (its blank lines skipped)
    stop = n if status == FQ_END else start
    return (names[:npos], name_off[:r + 1], seq[:o], codes[:o], qual[:o], seq_off[:r + 1], r, stop,
            status, high)


def _clean_names(names: np.ndarray, name_off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Names as UTF-8, invalid bytes replaced (as decode(errors='replace') does per name)."""
    text = names.tobytes()
    off = name_off.tolist()
    fixed = [text[off[k]:off[k + 1]].decode("utf-8", "replace").encode() for k in range(len(off) - 1)]
    new_off = np.zeros(len(fixed) + 1, np.int64)
    np.cumsum([len(x) for x in fixed], out=new_off[1:])
    return np.frombuffer(b"".join(fixed), np.uint8), new_off


class FastxReader:
    """The records of one FASTA or FASTQ file, as blocks (``blocks()``) or one by one."""

    def __init__(self, path: str):
        self.path = path
        self.name = display_name(path)
        #: records read so far
        self.count = 0

    def __iter__(self) -> Iterator[Record]:
        for block in self.blocks():
            yield from block.records()

    def blocks(self) -> Iterator[RecordBlock]:
        """The records in blocks of a few thousand or more, in file order (no empty blocks)."""
        fh = open_binary(self.path)
        try:
            yield from self._blocks(fh)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            detail = "truncated gzip file" if isinstance(exc, EOFError) else f"corrupt gzip data ({exc})"
            raise InputError(f"{detail} after {self.count} complete records", path=self.name) from None
        finally:
            fh.close()

    def _error(self, message: str, name: str | None = None):
        record = self.count + 1 if name is None else f"{self.count + 1} ({name})"
        return InputError(message, path=self.name, record=record)

    def _blocks(self, fh) -> Iterator[RecordBlock]:
        lines = iter(fh)
        first = b""
        for first in lines:
            if first.strip():
                break
        else:
            return
        if first.startswith(b">"):
            yield from self._fasta(first, fh)
        elif first.startswith(b"@"):
            yield from self._fastq_blocks(first, fh)
        else:
            shown = first[:20].decode("ascii", "replace").rstrip()
            raise self._error(f"expected a FASTA ('>') or FASTQ ('@') header, found {shown!r}")

    def _name(self, header: bytes) -> str:
        parts = header[1:].split(None, 1)
        if not parts:
            raise self._error("empty record name (a header line with no name)")
        return parts[0].decode("utf-8", "replace")

    def _block(self, names, name_off, seq, codes, seq_off, qual, high) -> RecordBlock:
        """A parsed block; numbers the records."""
        n = len(seq_off) - 1
        if high:
            names, name_off = _clean_names(names, name_off)
        num = np.arange(self.count + 1, self.count + 1 + n, dtype=np.int64)
        self.count += n
        return RecordBlock(names, name_off, seq, codes, seq_off, qual, num)

    @staticmethod
    def _read(fh, parts: list[bytes], size: int) -> tuple[bytes, int]:
        """Read until at least MIN_BLOCK bytes are at hand or the input ends; b'' at the end."""
        got = b""
        while size < MIN_BLOCK:
            block = fh.read1(READ_SIZE)
            if not block:
                break
            got = block
            parts.append(block)
            size += len(block)
        return got, size

    def _fasta(self, header: bytes, fh) -> Iterator[RecordBlock]:
        """FASTA in blocks: cut on newline + '>', parsed by ``_parse_fasta``."""
        parts = [header]
        size = len(header)
        while True:
            try:
                more, size = self._read(fh, parts, 0)
            except BaseException:
                # what is at hand flows before the error (its records count as read)
                data = b"".join(parts)
                cut = data.rfind(b"\n>")
                if cut > 0:
                    yield from self._fasta_records(data, cut)
                raise
            data = b"".join(parts)
            if more:
                cut = data.rfind(b"\n>")
                if cut < 0:
                    parts = [data]
                    continue
                parts = [data[cut + 1:]]
            else:
                cut = len(data)
            yield from self._fasta_records(data, cut)
            if not more:
                return

    def _fasta_records(self, data: bytes, end: int) -> Iterator[RecordBlock]:
        nrec = data.count(b"\n>", 1, end) + 1
        names, name_off, seq, codes, seq_off, bad, high = _parse_fasta(
            np.frombuffer(data, np.uint8), end, nrec, _LUT)
        block = self._block(names, name_off, seq, codes, seq_off, None, high)
        if bad >= 0:
            self.count -= len(block) - bad
            if bad:
                yield block.slice(0, bad)
            raise self._error("empty record name (a header line with no name)")
        yield block

    def _fastq_blocks(self, header: bytes, fh) -> Iterator[RecordBlock]:
        """FASTQ in blocks through ``_parse_fastq``; the line parser from its first refusal on."""
        parts = [header]
        while True:
            try:
                more, _ = self._read(fh, parts, 0)
            except BaseException:
                block, _, _ = self._fastq_records(b"".join(parts), False)
                if block is not None:
                    yield block
                raise
            data = b"".join(parts)
            block, stop, status = self._fastq_records(data, not more)
            if block is not None:
                yield block
            if status == FQ_OTHER:
                yield from self._fastq_slow(data[stop:], fh)
                return
            if not more:
                return
            parts = [data[stop:]]

    def _fastq_records(self, data: bytes, final: bool):
        cap = data.count(b"\n") // 2 + 2
        names, name_off, seq, codes, qual, seq_off, n, stop, status, high = _parse_fastq(
            np.frombuffer(data, np.uint8), len(data), final, cap, _LUT)
        block = self._block(names, name_off, seq, codes, seq_off, qual, high) if n else None
        return block, stop, status

    def _fastq_slow(self, rest: bytes, fh) -> Iterator[RecordBlock]:
        """The line parser from ``rest`` then the stream on, its records gathered in blocks."""
        lines = iter(io.BufferedReader(_Prefixed(rest, fh, False), buffer_size=1 << 20))
        header = None
        for line in lines:
            if line.strip():
                header = line
                break
        if header is None:
            return
        batch: list[Record] = []
        try:
            for rec in self._fastq(header, lines):
                batch.append(rec)
                if len(batch) >= SLOW_BLOCK:
                    yield RecordBlock.from_records(batch)
                    batch = []
        except BaseException:
            if batch:  # what was read flows before the error
                yield RecordBlock.from_records(batch)
            raise
        if batch:
            yield RecordBlock.from_records(batch)

    def _fastq(self, header: bytes, lines) -> Iterator[Record]:
        while header is not None:
            if not header.startswith(b"@"):
                shown = header[:20].decode("ascii", "replace").rstrip()
                raise self._error(f"expected a FASTQ header starting with '@', found {shown!r}")
            name = self._name(header)
            seq_parts: list[bytes] = []
            for line in lines:
                if line.startswith(b"+"):
                    break
                seq_parts.append(line.strip())
            else:
                raise self._error("missing '+' line (truncated or not FASTQ)", name)
            seq = b"".join(seq_parts)
            qual_parts: list[bytes] = []
            got = 0
            while got < len(seq):
                line = next(lines, None)
                if line is None:
                    break
                part = line.strip()
                qual_parts.append(part)
                got += len(part)
            qual = b"".join(qual_parts)
            if len(qual) != len(seq):
                raise self._error(
                    f"quality length {len(qual)} differs from sequence length {len(seq)}", name)
            self.count += 1
            yield Record(name, seq, qual, self.count)
            header = None
            for line in lines:
                if line.strip():
                    header = line
                    break
