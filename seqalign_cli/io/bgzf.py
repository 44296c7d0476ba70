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

    def readable(self):
        return True

    def _members(self, members: list):
        """The next ``GROUP`` members of the stream (fewer at its end), added to ``members``."""
        while len(members) < GROUP:
            head = self.raw.read(18)
            if not head:
                self.ended = True
                break
            if len(head) < 18:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            if not is_bgzf(head):
                raise gzip.BadGzipFile("not a BGZF block where one should start")
            xlen = struct.unpack_from("<H", head, 10)[0]
            extra = head[12:]
            more = self.raw.read(12 + xlen - 18) if xlen > 6 else b""
            extra = (extra + more)[:xlen]
            size = _block_size(extra)
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
            self._fill()
            if not self.flight:
                return 0
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


def _block_size(extra: bytes) -> int:
    """BSIZE (the member's size less one) from a member's extra field."""
    at = 0
    while at + 4 <= len(extra):
        sub, length = extra[at:at + 2], struct.unpack_from("<H", extra, at + 2)[0]
        if sub == b"BC" and length == 2:
            return struct.unpack_from("<H", extra, at + 4)[0]
        at += 4 + length
    raise gzip.BadGzipFile("a BGZF block without its size")
