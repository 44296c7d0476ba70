"""BGZF input (bgzip, samtools' compressed FASTA/FASTQ) inflated block by block on threads.

A BGZF file is a series of gzip members of at most 64 KiB each, whose
headers give their sizes (the ``BC`` extra field). ``BgzfInput`` reads the
members in order, hands groups of ``GROUP`` of them to a pool of threads
that inflate them (the inflaters release the interpreter lock: igzip's
where python-isal is installed, else zlib's) and checks each member's CRC
and size, and gives their data back in order as a raw stream: the reader
(``fastx.open_source``) takes it where it would take a gzip stream. A file
that ends inside a member raises ``EOFError``, a damaged member
``gzip.BadGzipFile``, as the gzip reader does.

From the first member that is not a BGZF block (a plain gzip member, as
``cat a.fa.bgz b.fa.gz`` writes one; a header whose ``BC`` field or sizes do
not hold together) the rest of the file is read as plain gzip, one member
after another, as every gzip reader reads it; zero bytes after the last
member are padding, as gzip takes them.
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor

#: members inflated by one task (about 1 MB of data: the pool's overhead a task stays small)
GROUP = 16
#: the most threads that inflate a file
THREADS = 8


def _inflater():
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib
    return isal_zlib


_Z = _inflater()


def _gzip_file(fileobj):
    """A plain gzip reader of ``fileobj``: igzip's where python-isal is installed (as ``fastx.GZIP``)."""
    try:
        from isal import igzip
    except ImportError:
        return gzip.GzipFile(fileobj=fileobj, mode="rb")
    return igzip.GzipFile(fileobj=fileobj, mode="rb")


def is_bgzf(head: bytes) -> bool:
    """Whether ``head`` (18 bytes or more) begins a BGZF member: gzip with FEXTRA and the 'BC' subfield."""
    return len(head) >= 18 and head[:4] == b"\x1f\x8b\x08\x04" and head[12:14] == b"BC"


def _inflate(members: list, error: BaseException | None = None) -> tuple[bytes, BaseException | None]:
    """The data of ``members``, and the error of the first damaged one (or ``error``, met reading them) after
    the data of those before it."""
    out = []
    for member in members:
        xlen = struct.unpack_from("<H", member, 10)[0]
        crc, size = struct.unpack_from("<II", member, len(member) - 8)
        try:
            data = _Z.decompress(member[12 + xlen:len(member) - 8], wbits=-15)
        except Exception as exc:  # zlib.error, isal's IsalError
            return b"".join(out), gzip.BadGzipFile(f"a damaged BGZF block ({exc})")
        if len(data) != size or _Z.crc32(data) != crc:
            return b"".join(out), gzip.BadGzipFile("CRC check failed in a BGZF block")
        out.append(data)
    return b"".join(out), error


class BgzfInput(io.RawIOBase):
    """The data of the BGZF stream ``raw`` (a buffered binary stream at a member's start)."""

    def __init__(self, raw, threads: int | None = None):
        self.raw = raw
        threads = threads or min(THREADS, os.cpu_count() or 1)
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="seqalign-bgzf-in")
        self.window = 2 * threads
        self.flight: deque = deque()
        self.data = memoryview(b"")
        self.ended = False
        self.error: BaseException | None = None  # raised once the data before it is read
        #: the bytes read of the first member that is not a BGZF block (``_members``), then its plain reader
        self.rest: bytes | None = None
        self.plain = None

    def readable(self):
        return True

    def _members(self, members: list):
        """The next ``GROUP`` members of the stream (fewer at its end, or before a member that is not BGZF:
        its bytes read so far are kept in ``rest``), added to ``members``."""
        while len(members) < GROUP:
            head = self.raw.read(18)
            if not head:
                self.ended = True
                break
            more, size = b"", None
            if is_bgzf(head):
                xlen = struct.unpack_from("<H", head, 10)[0]
                more = self.raw.read(xlen - 6) if xlen > 6 else b""
                size = _block_size((head[12:] + more)[:xlen], xlen)
            if size is None:
                self.rest, self.ended = head + more, True
                break
            rest = self.raw.read(size + 1 - 18 - len(more))
            if len(rest) < size + 1 - 18 - len(more):
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            members.append(head + more + rest)

    def _fill(self):
        while not self.ended and len(self.flight) < self.window:
            members: list = []
            try:
                self._members(members)
            except (EOFError, gzip.BadGzipFile) as exc:  # raised after the members before it
                self.ended = True
                self.flight.append(self.pool.submit(_inflate, members, exc))
                return
            if members:
                self.flight.append(self.pool.submit(_inflate, members))

    def readinto(self, buf) -> int:
        while not len(self.data):
            if self.error is not None:
                raise self.error
            if self.plain is not None:
                return self.plain.readinto1(buf)
            self._fill()
            if not self.flight:
                if self.rest is None:
                    return 0
                self.plain = _plain_rest(self.rest, self.raw)
                continue
            data, self.error = self.flight.popleft().result()
            self.data = memoryview(data)
        n = min(len(buf), len(self.data))
        buf[:n] = self.data[:n]
        self.data = self.data[n:]
        return n

    readinto1 = readinto

    def close(self):
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.raw.close()
        super().close()


def _block_size(extra: bytes, xlen: int) -> int | None:
    """BSIZE (the member's size less one) from a member's extra field of ``xlen`` bytes; None where the field
    holds no BC subfield of two bytes or the size cannot hold the member's header and trailer."""
    at = 0
    while at + 4 <= len(extra):
        sub, length = extra[at:at + 2], struct.unpack_from("<H", extra, at + 2)[0]
        if sub == b"BC" and length == 2 and at + 6 <= len(extra):
            size = struct.unpack_from("<H", extra, at + 4)[0]
            return size if size + 1 >= 12 + xlen + 8 else None
        at += 4 + length
    return None


class _Joined(io.RawIOBase):
    """``head`` (bytes already read), then the rest of ``raw``."""

    def __init__(self, head: bytes, raw):
        self.head, self.raw = head, raw

    def readable(self):
        return True

    def readinto(self, buf):
        if self.head:
            n = min(len(buf), len(self.head))
            buf[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        return self.raw.readinto(buf)


class _Nothing:
    """The end of a stream that held only zero bytes after its last member."""

    def readinto1(self, buf):
        return 0


def _plain_rest(head: bytes, raw):
    """The rest of a BGZF stream as plain gzip, from ``head`` (the start of a member that is not a BGZF
    block) on; zero bytes before it are padding."""
    head = head.lstrip(b"\0")
    while not head:
        more = raw.read(1 << 16)
        if not more:
            return _Nothing()
        head = more.lstrip(b"\0")
    return _gzip_file(io.BufferedReader(_Joined(head, raw)))
