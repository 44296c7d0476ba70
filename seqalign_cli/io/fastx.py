"""FASTA/FASTQ reader: plain, gzip/bgzip, bzip2 or xz (zstd where Python reads it), detected from content;
'-' is stdin.

Every problem is an ``InputError`` naming the file and the record (1-based
number and name): a truncated or damaged compressed file (named by its
format: ``CompressedError``), a FASTQ record without its '+' line, a
quality string whose length differs from the sequence, text that is neither
FASTA nor FASTQ, and what ``validate`` refuses (a letter that is not a
nucleotide code, a quality outside printable ASCII, and where the output is
SAM/BAM a read name SAM cannot hold), checked once per block as it is read.
Zero-length sequences are valid records.

Records come in blocks (``FastxReader.blocks``, see ``block.RecordBlock``):
the input is read a few MB at a time and parsed by numba functions that
find the records, names and sequence lines and encode the letters in one
pass, with no Python object per record. FASTA is cut on newline + '>'.
FASTQ takes a fast path for the usual four-line records; at the first record
it cannot take (multi-line FASTQ, or anything malformed) the rest of the file
goes through the line parser, which gives the exact error. Iterating a
reader yields ``Record`` objects.

A reader counts the bytes it has consumed of its file (``consumed``, the
compressed bytes for gzip) against the file's ``size`` where it is a regular
file, and tells the progress bar when it opens one (``progress.opened``).

A reader given ``skip`` (a part of a run, ``--shard``) passes over the
records before its first unparsed (``skip_records``): ``_kind`` and
``_walk`` follow the raw text with the compiled scan of ``parse``
(``_scan``), as ``shard`` does to count a file's records and ``cut`` to
cut it into pieces.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import sys
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import BinaryIO, Iterator

import numpy as np

from .. import progress
from ..errors import InputError, UsageError
from .block import Record, RecordBlock
from .parse import _FASTA, _FASTQ, _OTHER, FQ_OTHER, _scan, next_header, parse_fasta, parse_fastq
from .validate import check_block, record_label

__all__ = ["FastxReader", "Record", "RecordBlock", "display_name", "open_binary"]

#: size of the input array (grown for longer records)
READ_SIZE = 1 << 22
#: input read before a block is parsed (gzip and pipes deliver less per read)
MIN_BLOCK = 1 << 21
#: records per block on the line parser's path
SLOW_BLOCK = 4096
#: threads that parse parts of a FASTA input's text at once (the parser is compiled code that runs
#: outside the interpreter lock): a reader of one thread parsed 2 GB of FASTA in about 0.9 s of the
#: 2.5 s its thread was busy in a run of 10,000,000 pairs on an H100's host, the run's slowest thread
#: (with several, ``MIN_BLOCK`` for each is read before a block is parsed)
PARSE_THREADS = max(1, min(4, os.cpu_count() or 1))

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _parse_pool() -> ThreadPoolExecutor:
    """The threads that parse parts of FASTA text, shared by every reader of the process."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(PARSE_THREADS, thread_name_prefix="seqalign-parse")
        return _pool


def _cuts(data: np.ndarray, n: int, parts: int) -> list[int]:
    """Where data[:n] (FASTA text from a header) is cut into up to ``parts`` parts of about equal size,
    each from a header on: the starts of the parts, 0 first."""
    starts = [0]
    for k in range(1, parts):
        at = int(next_header(data, max(k * n // parts, starts[-1] + 1), n))
        if at < 0:
            break
        if at > starts[-1]:
            starts.append(at)
    return starts


def _gzip_module():
    """Intel's igzip (python-isal: two to four times zlib's speed) where installed, else the standard library's."""
    try:
        from isal import igzip
        from isal.igzip_lib import IsalError
    except ImportError:
        return gzip, (EOFError, zlib.error, gzip.BadGzipFile)
    return igzip, (EOFError, zlib.error, gzip.BadGzipFile, IsalError)


#: the gzip reader of the inputs, and the errors a damaged gzip stream raises through it
GZIP, GZIP_ERRORS = _gzip_module()


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


#: path -> (the name messages give, the records before it, the byte range read or None): pieces of files
#: (``io.cut``) read by workers
_ALIASES: dict[str, tuple[str, int, tuple[int, int] | None]] = {}


def alias(path: str, name: str | None, first: int = 0, window: tuple[int, int] | None = None):
    """Readers of ``path`` name it ``name`` and number its records from ``first`` + 1 (a piece of the file
    ``name`` holding its records from ``first`` on), reading only the bytes ``window`` (offset, length) of it
    where given; ``name`` None: forget ``path``."""
    if name is None:
        _ALIASES.pop(path, None)
    else:
        _ALIASES[path] = (name, first, window)


def open_binary(path: str) -> BinaryIO:
    """Open a file or stdin for reading, decompressing it where it is compressed (``open_source``)."""
    return open_source(path)[0]


def open_source(path: str) -> tuple[BinaryIO, "_Prefixed"]:
    """``open_binary``'s stream, and the raw input under it: its bytes ``consumed`` so far (compressed bytes
    for gzip) and its ``size`` (None for stdin and what is not a regular file)."""
    if path == "-":
        if sys.stdin is None:  # started with descriptor 0 closed (<&-)
            raise UsageError("standard input is closed: give the input as a file, or feed it to '-'",
                             path="<stdin>")
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
    window = _ALIASES.get(path, (None, 0, None))[2]
    if window is not None:
        raw = _Window(raw, *window)
    head = _read_head(raw, 2)  # gzip's magic number, or the start of another's
    if head == b"\x1f\x8b":
        head += _read_head(raw, 16)  # BGZF's header
    elif head in (b"BZ", b"\xfd7", b"\x28\xb5"):
        head += _read_head(raw, 4)  # bzip2's, xz's or zstd's
    source = _Prefixed(head, raw, path != "-")
    source.size = (_regular_size(raw) if window is None else window[1]) if path != "-" else None
    stream = io.BufferedReader(source, buffer_size=1 << 20)
    if head[:2] == b"\x1f\x8b":
        from .bgzf import BgzfInput, is_bgzf

        # bgzip: its blocks inflated on threads
        inner = BgzfInput(stream) if is_bgzf(head) else GZIP.GzipFile(fileobj=stream, mode="rb")
        return _checked(inner, "gzip", GZIP_ERRORS), source
    if head[:2] == b"BZ" and head[2:3] == b"h":
        import bz2

        return _checked(_Streams(stream, bz2.BZ2Decompressor), "bzip2", (EOFError, OSError)), source
    if head[:6] == b"\xfd7zXZ\x00":
        import lzma

        xz = partial(lzma.LZMADecompressor, lzma.FORMAT_XZ)
        return _checked(_Streams(stream, xz), "xz", (EOFError, lzma.LZMAError)), source
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return _checked(_zstd(stream, path), "zstd", (Exception,)), source
    return stream, source


class CompressedError(Exception):
    """A compressed input that ends early or is damaged (``detail``: the line's words, the format named)."""

    def __init__(self, fmt: str, exc: BaseException):
        self.fmt, self.exc = fmt, exc
        super().__init__(self.detail())

    def detail(self) -> str:
        if isinstance(self.exc, EOFError):
            return f"truncated {self.fmt} file"
        return f"corrupt {self.fmt} data ({self.exc})"


#: the bytes the reads of a decompressing stream ask for: the first, doubled a read up to the last
#: (``_Checked``); small at first, so that the records of a short damaged file come out before its error
_STEPS = (1 << 13, 1 << 20)


class _Checked(io.RawIOBase):
    """A decompressing stream whose damage is a ``CompressedError`` (an error of the file under it is not);
    ``failed``: that error once raised."""

    def __init__(self, inner, fmt: str, errors: tuple):
        self.inner, self.fmt, self.errors = inner, fmt, errors
        self.step = _STEPS[0]
        self.failed: CompressedError | None = None

    def readable(self):
        return True

    def readinto(self, buf):
        # a step of the decompressor at a time: what it has made comes out before an error
        view = memoryview(buf)[:self.step]
        self.step = min(2 * self.step, _STEPS[1])
        try:
            return self.inner.readinto1(view) if hasattr(self.inner, "readinto1") else self.inner.readinto(view)
        except self.errors as exc:
            if isinstance(exc, OSError) and exc.errno is not None:  # the disk, not the data
                raise
            self.failed = CompressedError(self.fmt, exc)
            raise self.failed from None

    def close(self):
        self.inner.close()
        super().close()


class _Buffered(io.BufferedReader):
    """A buffered reader whose ``readinto1`` gives what it holds before asking the stream under it for more:
    the data read before a damaged part comes out, and the error with the next read (the C reader's
    ``readinto1`` drops what it copied when the raw read fails)."""

    def readinto1(self, buf):
        held = len(self.peek(0)) if self.raw is not None else 0  # no raw read while it holds data
        if held:
            n = min(held, len(buf))
            buf[:n] = self.read(n)
            return n
        return super().readinto1(buf)


def _checked(inner, fmt: str, errors: tuple):
    return _Buffered(_Checked(inner, fmt, errors), buffer_size=1 << 20)


#: decompressed bytes read past an error in the text to see whether the file is damaged there (``damage``)
LOOK_PAST = 16 << 20


def damage(fh) -> CompressedError | None:
    """The damage of ``fh`` (a stream of ``open_binary``) met already, or within ``LOOK_PAST`` more bytes:
    None where it is not compressed or reads on undamaged.

    gzip, bzip2 and xz check their data at the end of a member, block or stream, after giving it: the data
    of a damaged part comes before its error and may be anything. An error that the text seems to hold
    (a letter, a header) is then the damage's, and is reported as the damage."""
    inner = getattr(fh, "raw", None)
    if not isinstance(fh, _Buffered) or not isinstance(inner, _Checked):
        return None
    left, scratch = LOOK_PAST, bytearray(_STEPS[1])
    try:
        while inner.failed is None and left > 0:
            n = inner.readinto(scratch)
            if not n:
                break
            left -= n
    except CompressedError:
        pass
    except (OSError, ValueError):  # the file itself (or a closed stream): the text's error stands
        return None
    return inner.failed


class _Streams(io.RawIOBase):
    """The data of concatenated bzip2 or xz streams (as pbzip2 writes them) from the binary stream ``raw``,
    each decoded to its end by a decompressor of ``factory``. What follows a stream is another stream or
    zero bytes (xz's stream padding); anything else is damage, raised as the decompressor's error
    (``bz2.BZ2File`` and ``lzma.LZMAFile`` end the data there without a word: a damaged second stream
    would cut the records short silently)."""

    def __init__(self, raw, factory):
        self.raw, self.factory = raw, factory
        self.dec = factory()
        self.pending = b""

    def readable(self):
        return True

    def readinto(self, buf):
        while True:
            if self.dec.eof:
                self.pending = self.dec.unused_data.lstrip(b"\0")
                while not self.pending:
                    more = self.raw.read(1 << 16)
                    if not more:
                        return 0
                    self.pending = more.lstrip(b"\0")
                self.dec = self.factory()
            elif not self.pending and self.dec.needs_input:
                self.pending = self.raw.read(1 << 16)
                if not self.pending:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            data = self.dec.decompress(self.pending, len(buf))
            self.pending = b""
            if data:
                buf[:len(data)] = data
                return len(data)

    def close(self):
        self.raw.close()
        super().close()


def _zstd(stream, path: str):
    """A zstd stream's reader: Python's own (3.14) or the zstandard package, where there is one."""
    try:
        from compression import zstd  # Python 3.14

        return zstd.ZstdFile(stream)
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        raise InputError("zstd-compressed input: seqalign reads plain, gzip, bgzip, bzip2 and xz; "
                         "decompress it first (zstd -dc FILE)", path=display_name(path)) from None
    return zstandard.ZstdDecompressor().stream_reader(stream)


def _read_head(raw, n: int) -> bytes:
    """The next ``n`` bytes of ``raw`` (fewer at its end): a pipe may deliver fewer a read."""
    head = raw.read(n)
    while 0 < len(head) < n:
        more = raw.read(n - len(head))
        if not more:
            break
        head += more
    return head


def _regular_size(raw) -> int | None:
    """The size of an open regular file, None for anything else (a FIFO, a device)."""
    try:
        st = os.fstat(raw.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


class _Window(io.RawIOBase):
    """Bytes ``offset`` .. ``offset + length - 1`` of the open file ``raw`` (a piece of it, ``alias``)."""

    def __init__(self, raw, offset: int, length: int):
        self.raw = raw
        self.left = length
        raw.seek(offset)

    def readable(self):
        return True

    def readinto(self, buf):
        n = self.raw.readinto(memoryview(buf)[:min(len(buf), self.left)]) if self.left else 0
        self.left -= n
        return n

    readinto1 = readinto

    def fileno(self):
        return self.raw.fileno()

    def close(self):
        self.raw.close()
        super().close()


class _Prefixed(io.RawIOBase):
    """A raw stream that yields ``head`` (already read) before the rest of ``raw``; ``consumed``: the bytes
    it has given (read by the progress bar from another thread: one integer, no lock)."""

    def __init__(self, head: bytes, raw, owns: bool):
        self.head = head
        self.raw = raw
        self.owns = owns
        self.consumed = 0
        #: the bytes of ``raw`` where it is a regular file (``open_source``), else None
        self.size: int | None = None

    def readable(self):
        return True

    def readinto(self, buf):
        n = self._readinto(buf)
        self.consumed += n or 0
        return n

    def _readinto(self, buf):
        if self.head:
            n = min(len(buf), len(self.head))
            buf[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        if hasattr(self.raw, "readinto1"):
            return self.raw.readinto1(buf)
        data = self.raw.read1(len(buf)) if hasattr(self.raw, "read1") else self.raw.read(len(buf))
        buf[:len(data)] = data
        return len(data)

    def close(self):
        if self.owns:
            self.raw.close()
        super().close()


def _clean_names(names: np.ndarray, name_off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Names as UTF-8, invalid bytes replaced (as decode(errors='replace') does per name)."""
    text = names.tobytes()
    off = name_off.tolist()
    fixed = [text[off[k]:off[k + 1]].decode("utf-8", "replace").encode() for k in range(len(off) - 1)]
    new_off = np.zeros(len(fixed) + 1, np.int64)
    np.cumsum([len(x) for x in fixed], out=new_off[1:])
    return np.frombuffer(b"".join(fixed), np.uint8), new_off


class _Input:
    """The input of a reader gathered in one array that is reused: what is not parsed stays in front."""

    def __init__(self, fh, head: bytes):
        self.fh = fh
        self.buf = np.empty(max(READ_SIZE, 2 * len(head)), np.uint8)
        self.buf[:len(head)] = np.frombuffer(head, np.uint8)
        self.filled = len(head)
        self.eof = False

    def fill(self, at_least: int = MIN_BLOCK):
        """Read until ``at_least`` more bytes are at hand or the input ends (then ``eof``)."""
        got = 0
        while got < at_least and not self.eof:
            if self.filled == len(self.buf):
                bigger = np.empty(2 * len(self.buf), np.uint8)
                bigger[:self.filled] = self.buf[:self.filled]
                self.buf = bigger
            n = self.fh.readinto1(memoryview(self.buf)[self.filled:])
            if not n:
                self.eof = True
            else:
                self.filled += n
                got += n

    def data(self) -> np.ndarray:
        return self.buf[:self.filled]

    def consume(self, k: int):
        """Drop the first k bytes."""
        rest = self.filled - k
        if rest:
            self.buf[:rest] = self.buf[k:self.filled].copy()
        self.filled = rest


# ------------------------------------------------------------------ records followed unparsed


def _kind(src: _Input) -> int:
    """FASTA or FASTQ from the first non-blank byte of the input (read until one is found)."""
    while True:
        data = src.data()
        text = data.tobytes().lstrip()
        if text or src.eof:
            break
        src.fill()
    return {62: _FASTA, 64: _FASTQ}.get(text[0] if text else -1, _OTHER)


def _walk(src: _Input, kind: int, target: int) -> tuple[int, bool]:
    """Scan the input to its end, or to the start of record ``target`` (left at the front of ``src``).

    Returns (the records before where it stopped, whether it stopped at ``target``).
    """
    state = np.zeros(4, np.int64)
    while True:
        stop, found = _scan(src.data(), src.filled, src.eof, kind, state, target)
        src.consume(stop)
        if found or src.eof:
            return int(state[0]), found
        src.fill(max(MIN_BLOCK, src.filled))


def skip_records(fh: BinaryIO, k: int) -> tuple[BinaryIO, int]:
    """The stream ``fh`` from the start of its record ``k`` (0-based) on, and the records passed over (k, or
    fewer in a shorter file) without being parsed. An input that is neither FASTA nor FASTQ is given back
    as it is (the reader reports it)."""
    src = _Input(fh, b"")
    src.fill()
    kind = _kind(src)
    skipped = _walk(src, kind, k)[0] if kind != _OTHER else 0
    rest = src.data().tobytes()
    return io.BufferedReader(_Prefixed(rest, fh, True), buffer_size=1 << 20), skipped


def _skipped(fh, reader: "FastxReader"):
    """``fh`` from its record ``reader.skip`` on (``skip_records``); ``reader.count``: those passed over."""
    fh, reader.count = skip_records(fh, reader.skip)
    return fh


class SourceBytes:
    """What the progress bar reads of a reader of one file (``progress.opened``): its ``source``'s bytes."""

    #: the raw input once open (``open_source``): what ``consumed`` and ``size`` read
    source = None

    @property
    def consumed(self) -> int:
        """Bytes of the file consumed so far (compressed bytes for gzip; read ahead of the records a little)."""
        return self.source.consumed if self.source is not None else 0

    @property
    def size(self) -> int | None:
        """Bytes of the file, None for stdin and what is not a regular file (also before it is opened)."""
        return self.source.size if self.source is not None else None


class FastxReader(SourceBytes):
    """The records of one FASTA or FASTQ file, as blocks (``blocks()``) or one by one."""

    def __init__(self, path: str, sam_names: int = 0, skip: int = 0):
        self.path = path
        # a piece of a file cut for a worker (``alias``): named as that file, its records numbered from its first
        self.name, first, _ = _ALIASES.get(path, (display_name(path), 0, None))
        #: records passed over unparsed before the first block (``skip_records``; a part of a run)
        self.skip = skip
        #: records read so far (the skipped ones count: records keep their numbers in the file)
        self.count = first + skip
        #: names checked against SAM's rules: 0 none, k records 1, 1 + k, 1 + 2k, ... (``validate``)
        self.sam_names = sam_names
        #: whether the input is FASTA (known once its first record is seen)
        self.fasta = False
        #: the raw input once open (``open_source``): what ``consumed`` and ``size`` read
        self.source = None

    def __iter__(self) -> Iterator[Record]:
        for block in self.blocks():
            yield from block.records()

    def blocks(self) -> Iterator[RecordBlock]:
        """The records in blocks of a few thousand or more, in file order (no empty blocks)."""
        fh, self.source = open_source(self.path)
        progress.opened(self)
        given = self.count  # the records given so far (those of blocks checked whole)
        try:
            blocks = self._blocks(_skipped(fh, self) if self.skip else fh)
            given = self.count
            for block in blocks:
                check_block(block, self.name, self.fasta, self.sam_names)
                yield block
                given = self.count
        except CompressedError as exc:
            raise InputError(f"{exc.detail()} after {self.count} complete records", path=self.name) from None
        except InputError:
            found = damage(fh)  # the text's error may be the garbage of a damaged compressed part
            if found is None:
                raise
            raise InputError(f"{found.detail()} after {given} complete records", path=self.name) from None
        finally:
            fh.close()

    def _error(self, message: str, name: str | None = None):
        record = self.count + 1 if name is None else record_label(self.count + 1, name)
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
            self.fasta = True
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

    def _block(self, names, name_off, seq, seq_off, qual, high) -> RecordBlock:
        """A parsed block; numbers the records."""
        n = len(seq_off) - 1
        if high:
            names, name_off = _clean_names(names, name_off)
        num = np.arange(self.count + 1, self.count + 1 + n, dtype=np.int64)
        self.count += n
        return RecordBlock(names, name_off, seq, seq_off, qual, num)

    def _fasta(self, header: bytes, fh) -> Iterator[RecordBlock]:
        """FASTA in blocks through ``parse_fasta`` (records cut on newline + '>'), large inputs parsed in parts
        side by side (``PARSE_THREADS``)."""
        src = _Input(fh, header)
        step = PARSE_THREADS * MIN_BLOCK
        want = step
        while True:
            try:
                src.fill(want)
            except BaseException:
                # what is at hand flows before the error (its records count as read)
                yield from self._fasta_records(src, False)
                raise
            got = yield from self._fasta_records(src, src.eof)
            if src.eof:
                return
            # a record longer than what is at hand: read as much again before parsing again
            want = step if got else max(step, src.filled)

    def _fasta_records(self, src: _Input, final: bool):
        """The records of the text at hand, in blocks (one a part); the text parsed is consumed."""
        data, n = src.data(), src.filled
        starts = _cuts(data, n, PARSE_THREADS) if n >= 2 * MIN_BLOCK and PARSE_THREADS > 1 else [0]
        ends = starts[1:] + [n]
        # every part but the last ends where the next record begins: its last record is whole
        jobs = [(data[a:], b - a, final or b < n) for a, b in zip(starts, ends)]
        parsed = (list(_parse_pool().map(lambda job: parse_fasta(*job), jobs)) if len(jobs) > 1
                  else [parse_fasta(*jobs[0])])
        src.consume(starts[-1] + parsed[-1][4])
        got = 0
        for names, name_off, seq, seq_off, _, bad, high in parsed:
            block = self._block(names, name_off, seq, seq_off, None, high)
            if bad >= 0:
                self.count -= len(block) - bad
                if bad:
                    yield block.slice(0, bad)
                raise self._error("empty record name (a header line with no name)")
            if len(block):
                got += len(block)
                yield block
        return got

    def _fastq_blocks(self, header: bytes, fh) -> Iterator[RecordBlock]:
        """FASTQ in blocks through ``parse_fastq``; the line parser from its first refusal on."""
        src = _Input(fh, header)
        want = MIN_BLOCK
        while True:
            try:
                src.fill(want)
            except BaseException:
                block, _ = self._fastq_records(src, False)
                if block is not None:
                    yield block
                raise
            block, status = self._fastq_records(src, src.eof)
            if block is not None:
                yield block
            if status == FQ_OTHER:
                yield from self._fastq_slow(src.data().tobytes(), fh)
                return
            if src.eof:
                return
            want = MIN_BLOCK if block is not None else max(MIN_BLOCK, src.filled)

    def _fastq_records(self, src: _Input, final: bool):
        names, name_off, seq, qual, seq_off, stop, status, high = parse_fastq(src.data(), src.filled, final)
        block = self._block(names, name_off, seq, seq_off, qual, high) if len(seq_off) > 1 else None
        src.consume(stop)
        return block, status

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
        except GeneratorExit:  # closed by the consumer (an error found in a block): nothing more to give
            raise
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
