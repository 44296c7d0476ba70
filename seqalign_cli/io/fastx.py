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
    buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)
    magic = buffered.peek(2)[:2]
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=buffered, mode="rb")
    return buffered


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
            if self.path != "-":
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
            yield from self._fasta(first, lines)
        elif first.startswith(b"@"):
            yield from self._fastq(first, lines)
        else:
            shown = first[:20].decode("ascii", "replace").rstrip()
            raise self._error(f"expected a FASTA ('>') or FASTQ ('@') header, found {shown!r}")

    @staticmethod
    def _name(header: bytes) -> str:
        parts = header[1:].split(None, 1)
        return parts[0].decode("utf-8", "replace") if parts else ""

    def _fasta(self, header: bytes, lines) -> Iterator[Record]:
        name = self._name(header)
        chunks: list[bytes] = []
        for line in lines:
            if line.startswith(b">"):
                self.count += 1
                yield Record(name, b"".join(chunks))
                name = self._name(line)
                chunks = []
            else:
                chunks.append(line.strip())
        self.count += 1
        yield Record(name, b"".join(chunks))

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
            yield Record(name, seq, qual)
            header = None
            for line in lines:
                if line.strip():
                    header = line
                    break
