"""FASTA/FASTQ reader: plain or gzip/bgzip, detected from content; '-' is stdin.

Every problem is an ``InputError`` naming the file and the record (1-based
number and name): truncated gzip, a FASTQ record without its '+' line, a
quality string whose length differs from the sequence, text that is neither
FASTA nor FASTQ. Zero-length sequences are valid records.
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Iterator

from ..errors import InputError, UsageError


@dataclass(slots=True)
class Record:
    name: str
    seq: bytes
    qual: bytes | None = None
    #: 1-based number of the record in its file (0 for a region cut by name)
    num: int = 0


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


class FastxReader:
    """Iterates over the records of one FASTA or FASTQ file."""

    def __init__(self, path: str):
        self.path = path
        self.name = display_name(path)
        self.count = 0

    def __iter__(self) -> Iterator[Record]:
        fh = open_binary(self.path)
        try:
            yield from self._records(fh)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            detail = "truncated gzip file" if isinstance(exc, EOFError) else f"corrupt gzip data ({exc})"
            raise InputError(f"{detail} after {self.count} complete records", path=self.name) from None
        finally:
            fh.close()

    def _error(self, message: str, name: str | None = None):
        record = self.count + 1 if name is None else f"{self.count + 1} ({name})"
        return InputError(message, path=self.name, record=record)

    def _records(self, fh) -> Iterator[Record]:
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
            yield from self._fastq(first, lines)
        else:
            shown = first[:20].decode("ascii", "replace").rstrip()
            raise self._error(f"expected a FASTA ('>') or FASTQ ('@') header, found {shown!r}")

    def _name(self, header: bytes) -> str:
        parts = header[1:].split(None, 1)
        if not parts:
            raise self._error("empty record name (a header line with no name)")
        return parts[0].decode("utf-8", "replace")

    def _fasta(self, header: bytes, fh) -> Iterator[Record]:
        """FASTA in blocks: split on newline + '>' rather than line by line."""
        pending = header
        while True:
            block = fh.read1(1 << 22)  # what is at hand: records flow before a late error
            data = pending + block
            if block:
                cut = data.rfind(b"\n>")
                if cut < 0:
                    pending = data
                    continue
                chunk, pending = data[:cut], data[cut + 1:]
            else:
                chunk, pending = data, b""
            for rec in chunk[1:].split(b"\n>"):
                head, _, body = rec.partition(b"\n")
                yield Record(self._name(b">" + head), body.translate(None, b" \t\r\n"), None,
                             self._next())
            if not block:
                return

    def _next(self) -> int:
        self.count += 1
        return self.count

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
