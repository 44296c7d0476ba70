"""BGZF output (SAM specification, section 4.1): gzip members of at most 64 KiB each, compressed by a pool of threads.

BAM is BGZF, and so is every ``.gz`` output: plain gzip readers
(``gzip -d``, ``zcat``) read it as a multi-member gzip file, and htslib
(``samtools``, ``tabix``, ``bgzip``) as BGZF. A block holds at most
``BLOCK`` bytes of data (htslib's size: the deflated data then always fits
the 16-bit block size field); blocks are deflated by ``threads`` threads
(the compressors release the GIL) and written in order; the file ends with
the empty 28-byte EOF block. A block's header is fixed (FLG = FEXTRA with
the ``BC`` field, no file name, MTIME 0), as BGZF requires.

Levels (``--compress-level``, as samtools' ``-l``): 0 stores, 1 to 3 deflate
with Intel's igzip (python-isal) where it is installed, 4 to 9 with zlib.
igzip's level 1 compressed seqalign's TSV 16 times as fast as zlib's
level 6, to a file 15 % larger (``LEVEL``).
"""

from __future__ import annotations

import struct
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor

#: data bytes per block (htslib's BGZF_BLOCK_SIZE)
BLOCK = 0xFF00
#: the default level: igzip's fastest, which keeps pace with the aligners; the measurements are in
#: benchmarks/decisions/compress_level.md
LEVEL = 1


def _deflaters():
    """(raw deflate, crc32) for a level: igzip's for levels 1-3 where python-isal is installed, else zlib's."""
    try:
        from isal import isal_zlib
    except ImportError:
        return {}, zlib.crc32
    return {lv: isal_zlib for lv in (1, 2, 3)}, isal_zlib.crc32


_FAST, _crc32 = _deflaters()
#: the empty block that ends a BGZF file
EOF = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")
_HEADER = b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC\x02\x00"
_MAX_BLOCK = 1 << 16


def compress_block(data, level: int = LEVEL) -> bytes:
    """One BGZF block (or more, in the unlikely case a block would not fit 64 KiB) holding ``data``."""
    body = _FAST.get(level, zlib).compress(data, level, wbits=-15)
    size = len(_HEADER) + 2 + len(body) + 8
    if size > _MAX_BLOCK:
        half = len(data) // 2
        return compress_block(data[:half], level) + compress_block(data[half:], level)
    return b"".join((_HEADER, struct.pack("<H", size - 1), body,
                     struct.pack("<II", _crc32(data), len(data))))


class BgzfWriter:
    """A binary stream that writes BGZF to ``raw`` (left open by ``close``).

    ``write`` cuts the data into blocks and hands them to the pool, keeping a
    few blocks per thread in flight; finished blocks go to ``raw`` in order.
    ``flush`` ends the current block (the next data starts a new one: BAM's
    header ends on a block boundary this way) and writes out every block.
    """

    def __init__(self, raw, threads: int = 1, level: int | None = None):
        self.raw = raw
        self.level = LEVEL if level is None else level
        threads = max(1, int(threads or 1))
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="seqalign-bgzf")
        self.window = 4 * threads + 4  # blocks in flight before write waits for the oldest
        self.flight: deque = deque()
        self.pending = bytearray()
        self.closed = False

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        n = len(view)
        at = 0
        if self.pending:
            at = min(BLOCK - len(self.pending), n)
            self.pending += view[:at]
            if len(self.pending) < BLOCK:
                return n
            self._submit(bytes(self.pending))
            self.pending = bytearray()
        while n - at >= BLOCK:
            self._submit(bytes(view[at:at + BLOCK]))  # a copy: the caller may reuse its buffer
            at += BLOCK
        if at < n:
            self.pending += view[at:]
        return n

    def _submit(self, data: bytes):
        self.flight.append(self.pool.submit(compress_block, data, self.level))
        self._drain(self.window)

    def _drain(self, keep: int):
        """Write finished blocks in order; wait for the oldest while more than ``keep`` are in flight."""
        flight = self.flight
        while flight and (len(flight) > keep or flight[0].done()):
            self.raw.write(flight.popleft().result())

    def flush(self):
        if self.pending:
            self._submit(bytes(self.pending))
            self.pending = bytearray()
        self._drain(0)
        self.raw.flush()

    def close(self):
        """Write what is left and the EOF block; ``raw`` stays open."""
        if self.closed:
            return
        self.flush()
        self.raw.write(EOF)
        self.raw.flush()
        self.closed = True
        self.pool.shutdown()

    def abort(self):
        """Drop what is not written yet (after an error): no more blocks, no EOF block."""
        self.closed = True
        self.flight.clear()
        self.pending = bytearray()
        self.pool.shutdown(wait=False, cancel_futures=True)
