"""A run's input files cut into pieces of whole records, unparsed, for the worker processes (``workers``).

The main process of a run with workers reads each input file once (plain,
gzip, stdin or a FIFO alike, through ``fastx.open_source``) and cuts it with
the compiled scan of ``parse`` (``_scan``, which ``shard`` counts records
with: lines found with memchr; no names, letters or checks) into pieces of
``per * size`` records, the last one holding what is left. Files read in
lockstep (a query file beside a target file; the three files of triplets)
are cut alike, each in a thread of its own, so
that piece k of every file holds the same records. A piece is written into
an anonymous in-memory file (``os.memfd_create``): a worker reads it as a
regular file through its family's own reader, which names the records as
the whole file does (``fastx.alias``); nothing is left on disk or in
``/dev/shm`` however the run ends.

A file that is neither FASTA nor FASTQ goes whole into one piece, whose
reader then reports it. A damaged compressed file is an ``InputError`` naming it,
raised where the pieces before it have been handed out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .. import progress
from ..errors import InputError
from ..jit import nb
from .fastx import MIN_BLOCK, CompressedError, SourceBytes, _Input, _kind, display_name, open_source
from .parse import _FASTA, _FASTQ, _OTHER, _scan, find_byte


@dataclass
class Piece:
    """Records ``first`` .. ``first + records - 1`` (0-based) of the file ``name``: in the memory file ``fd``,
    or (``fd`` -1) bytes ``offset`` .. ``offset + length - 1`` of the regular file ``path``."""

    fd: int
    first: int
    records: int
    name: str = ""
    path: str | None = None
    offset: int = 0
    length: int = 0

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def where(self) -> tuple:
        """What a worker needs besides the descriptor: (name, first record, path, offset, length)."""
        return self.name, self.first, self.path, self.offset, self.length


class _Mapped:
    """What the progress bar reads of a mapped file: its size and the bytes cut so far."""

    def __init__(self, size: int):
        self.size = size
        self.consumed = 0


def _mapped(path: str):
    """A read-only mapping of ``path`` where it is a regular, non-empty, uncompressed file, else None."""
    import mmap
    import stat

    if path == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # not opened: a FIFO's writer must meet one reader only
            return None
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size < 2 or fh.read(2) == b"\x1f\x8b":
                return None
            mapped = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)
    except (OSError, ValueError):  # the reader of the file reports it
        return None
    if hasattr(mmap, "MADV_SEQUENTIAL"):
        mapped.madvise(mmap.MADV_SEQUENTIAL)
    return mapped


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _fasta_seek(data, p, n, state, target):
    """FASTA records from ``p`` (a line start) to the start of record ``target`` or ``n``: headers found with
    memchr for '>' (a '>' counts at a line start only), the lines between them not read."""
    count = state[0]
    while p < n:
        if data[p] == 62:
            if count == target:
                state[0] = count
                return p
            count += 1
        q = find_byte(data, p + 1, n, 62)
        while q < n and data[q - 1] != 10:
            q = find_byte(data, q + 1, n, 62)
        p = q
    state[0] = count
    return n


def _seek(data: np.ndarray, pos: int, kind: int, state: np.ndarray, target: int) -> int:
    """Where record ``target`` starts in ``data`` (whole) from ``pos`` on, or its end; ``state`` as ``_scan``'s."""
    n = len(data)
    if kind == _FASTA:
        return int(_fasta_seek(data, pos, n, state, target))
    stop, _ = _scan(data[pos:], n - pos, True, kind, state, target)
    return pos + int(stop)


def compile_ahead():
    """Compile (or load) the FASTA seek on a small input (``precompile``)."""
    data = np.frombuffer(b">a\nAC\n>b\nG\n", np.uint8)
    state = np.zeros(4, np.int64)
    assert _seek(data, 0, _FASTA, state, 1) == 6


def memory_file(data=None) -> int:
    """A new anonymous in-memory file (closed on exec), holding ``data`` (bytes-like) where given."""
    fd = os.memfd_create("seqalign", os.MFD_CLOEXEC)
    if data is not None:
        write_all(fd, data)
    return fd


def write_all(fd: int, data):
    view = memoryview(data).cast("B")
    while len(view):
        view = view[os.write(fd, view):]


class FileCutter(SourceBytes):
    """The pieces of one input file: ``per * size`` records each, after ``skip`` records and ``limit`` at most.

    Reading reports to the progress bar as a reader does (``path``,
    ``consumed``, ``size``); ``count``: the records passed so far.
    """

    def __init__(self, path: str, size: int, per: int = 1, skip: int = 0, limit: int | None = None):
        self.path = path
        self.name = display_name(path)
        self.step = max(1, size * per)
        self.skip = skip
        self.limit = limit
        self.count = 0
        self.source = None
        self._state = None  # the scan's (records started, FASTQ place, ...), see ``parse._scan``

    def _complete(self) -> int:
        """The records known whole so far: those started, less the last one while its end is not seen (as
        the reader counts them before a damaged compressed input)."""
        if self._state is None:
            return 0
        started, place = int(self._state[0]), int(self._state[1])
        return max(started - 1, 0) if self.fasta else started - (place != 0)

    def __iter__(self) -> Iterator[Piece]:
        mapped = _mapped(self.path)
        if mapped is not None:
            self.source = _Mapped(len(mapped))
            progress.opened(self)
            try:
                yield from self._ranges(np.frombuffer(mapped, np.uint8))
            finally:
                self._data = None
                mapped.close()
            return
        fh, self.source = open_source(self.path)
        progress.opened(self)
        try:
            yield from self._pieces(fh)
        except CompressedError as exc:
            raise InputError(f"{exc.detail()} after {self._complete()} complete records", path=self.name) from None
        finally:
            fh.close()

    def _fill(self, src: _Input, at_least: int = MIN_BLOCK):
        """``src.fill``; before a damaged compressed input, the records of what was read are counted (``_complete``)."""
        try:
            src.fill(at_least)
        except CompressedError:
            text = src.data().tobytes().lstrip()
            if self._state is None:
                self._state = np.zeros(4, np.int64)
                self.fasta = text[:1] == b">"
            if text[:1] in (b">", b"@"):
                _scan(src.data(), src.filled, False, _FASTA if self.fasta else _FASTQ, self._state, -1)
            raise

    def _pieces(self, fh) -> Iterator[Piece]:
        src = _Input(fh, b"")
        self._fill(src)
        kind = _kind(src)
        self.fasta = kind == _FASTA
        if kind == _OTHER:  # the reader of the piece says what is wrong
            fd = memory_file()
            while True:
                write_all(fd, src.data())
                src.consume(src.filled)
                if src.eof:
                    break
                self._fill(src)
            yield Piece(fd, 0, 0, self.name)
            return
        state = self._state = np.zeros(4, np.int64)
        if self.skip:
            self._walk(src, kind, state, self.skip, None)
        end = None if self.limit is None else self.skip + self.limit
        while True:
            first = int(state[0])
            target = first + self.step if end is None else min(first + self.step, end)
            if end is not None and first >= end:
                return
            fd = memory_file()
            found = self._walk(src, kind, state, target, fd)
            self.count = int(state[0])
            records = self.count - first
            if records:
                yield Piece(fd, first, records, self.name)
            else:
                os.close(fd)
            if not found:
                return

    def _ranges(self, data: np.ndarray) -> Iterator[Piece]:
        """The pieces of a regular plain file as byte ranges of it, found in its mapping (no copy)."""
        n = len(data)
        head = data[:1 << 16].tobytes().lstrip()
        kind = {62: _FASTA, 64: _FASTQ}.get(head[0] if head else -1, _OTHER)
        self.fasta = kind == _FASTA
        if kind == _OTHER:  # the reader of the piece says what is wrong
            yield Piece(-1, 0, 0, self.name, self.path, 0, n)
            return
        state = self._state = np.zeros(4, np.int64)
        pos = 0
        if self.skip:
            pos = _seek(data, pos, kind, state, self.skip)
        end = None if self.limit is None else self.skip + self.limit
        while pos < n:
            first = int(state[0])
            if end is not None and first >= end:
                return
            target = first + self.step if end is None else min(first + self.step, end)
            stop = _seek(data, pos, kind, state, target)
            self.count = int(state[0])
            self.source.consumed = stop
            if self.count > first:
                yield Piece(-1, first, self.count - first, self.name, self.path, pos, stop - pos)
            pos = stop

    def rest(self, piece: Piece | None, more: Iterator[Piece]) -> Piece:
        """``piece`` and every piece after it (``more``) in one: what is left of the file from ``piece`` on (an
        empty piece numbered after the file's last record where the file has ended)."""
        if piece is None:
            if isinstance(self.source, _Mapped):
                return Piece(-1, self.count, 0, self.name, self.path, self.source.size, 0)
            return Piece(memory_file(), self.count, 0, self.name)
        for later in more:
            if piece.fd < 0:
                piece.length = later.offset + later.length - piece.offset
            else:
                size = os.fstat(later.fd).st_size
                os.lseek(later.fd, 0, os.SEEK_SET)
                while size:
                    size -= os.sendfile(piece.fd, later.fd, None, size)
            piece.records += later.records
            later.close()
        return piece

    def _walk(self, src: _Input, kind: int, state: np.ndarray, target: int, fd: int | None) -> bool:
        """Scan to the start of record ``target`` (or the end), writing what is passed to ``fd`` (None:
        dropped); returns whether ``target`` was reached."""
        while True:
            data = src.data()
            stop, found = _scan(data, src.filled, src.eof, kind, state, target)
            if fd is not None and stop:
                write_all(fd, data[:stop])
            src.consume(stop)
            if found:
                return True
            if src.eof:  # the scan took the last line too (``final``)
                return False
            self._fill(src, max(MIN_BLOCK, src.filled))
