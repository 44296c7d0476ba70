"""Parts of a run's input (``--shard K/N``): which records a part holds, counted and skipped fast.

Part K of N of an input of n units holds units [floor((K-1)n/N), floor(Kn/N)):
N jobs align every unit exactly once, and their outputs concatenated in K
order are the output of the whole run (the parts after the first leave out
the text header: ``writers.WriterContext.header``). A unit is one record of
the file that defines it, or k consecutive records (interleaved pairs and
triplets: a last, incomplete group counts as a unit, so the part holding it
reports the error the whole run would), or one pair line of a pairs file.

A part is found in two passes over that file, which therefore must be a
regular file (``require_file``; a link to one, plain or gzip): stdin, a pipe
(a FIFO, a shell's ``<(...)``), a device or a socket gives its records to the
first pass only, and a FIFO's second opening waits for a writer that never
comes. ``count_records`` counts its records, then the reader skips the
records before the part (``fastx.skip_records``, called by
``fastx.FastxReader`` given ``skip``) and stops after it (``Part.limit``).
Counting and skipping follow the raw text with the compiled scan of
``parse`` (``_scan``, driven by ``fastx._walk``; lines found with memchr;
no names, letters or checks): a FASTA record starts at a line
starting with '>'; FASTQ records are followed as the reader reads them (a
header, sequence lines up to the '+' line, quality lines until they are as
long as the sequence), so multi-line FASTQ and qualities starting with '@'
count right. Only the records of a part are checked, as they are read. A
part's records (a pairs file's: its pair lines) are announced to the
progress bar (``progress.announce_records``, ``progress.announce_total``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .. import progress
from ..errors import InputError, UsageError
from .fastx import CompressedError, FastxReader, _Input, _kind, _walk, display_name, open_binary
from .parse import _OTHER


@dataclass(frozen=True)
class Part:
    """Units ``start .. stop-1`` of ``total``; a unit is ``per`` consecutive records."""

    total: int
    start: int
    stop: int
    per: int = 1

    @property
    def size(self) -> int:
        return self.stop - self.start

    @property
    def last(self) -> bool:
        """Whether the part ends where the input does (its reader reads to the end, and finds what is left)."""
        return self.stop == self.total

    @property
    def skip(self) -> int:
        """The records before the part."""
        return self.start * self.per

    @property
    def limit(self) -> int | None:
        """The records the part takes at most; None for the last part, which reads to the end of its files."""
        return None if self.last else self.size * self.per


def bounds(shard: tuple[int, int], n: int) -> tuple[int, int]:
    """Units [floor((K-1)n/N), floor(Kn/N)) of n for ``shard`` = (K, N)."""
    k, parts = shard
    return (k - 1) * n // parts, k * n // parts


#: what a file that is not regular is, by its ``stat`` type (the first that matches)
_NOT_REGULAR = ((stat.S_ISFIFO, "a pipe"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def not_regular(path: str) -> str | None:
    """What ``path`` is when it is not a regular file ("stdin", "a pipe", ...), None for a regular file (a link
    to one too) and for a path that cannot be looked at (its reader then says why).

    ``os.stat`` only: opening a FIFO for reading waits for a writer, so the file is never opened here.
    """
    if path == "-":
        return "stdin"
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # missing, unreadable folder, a NUL byte: the reader's own error
        return None
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _NOT_REGULAR if test(mode)), "not a regular file")


def require_file(shard: tuple[int, int] | None, path: str | None, what: str):
    """A usage error when ``path``, the file that defines the units of a sharded run (``what``: as the
    command's help names it), is not a regular file: it is read twice (``plan``, then its reader). Called
    before anything opens it, so that a pipe never gives an empty run and a FIFO never a wait."""
    if shard is None or path is None:
        return
    kind = not_regular(path)
    if kind is not None:
        shown = "'-'" if path == "-" else repr(path)  # as written; repr keeps an odd name on one line
        raise UsageError(f"--shard needs a regular file to count and skip records (it reads {what} twice); "
                         f"{shown} is {kind}: write it to a file first")


def plan(shard: tuple[int, int] | None, path: str, per: int = 1) -> Part | None:
    """The part ``shard`` takes of the records of ``path`` in units of ``per`` records (None: the whole)."""
    if shard is None:
        return None
    n = -(-count_records(path) // per)
    part = Part(n, *bounds(shard, n), per)
    progress.announce_records(path, part.skip, part.size * per)  # the progress bar's total
    return part


def plan_lines(shard: tuple[int, int] | None, path: str) -> Part | None:
    """The part ``shard`` takes of the pair lines of a pairs file (not blank, not starting with '#')."""
    if shard is None:
        return None
    with open(path) as lines:
        n = sum(1 for line in lines if line.strip() and not line.startswith("#"))
    part = Part(n, *bounds(shard, n))
    progress.announce_total(part.size)  # the progress bar's total: pairs
    return part


def at_end(part: Part | None) -> bool:
    """Whether a reader of ``part`` reads its files to their end (the whole input, or its last part): it
    alone finds what is left over in them, and says that an input is empty."""
    return part is None or part.last


def records(part: Part | None) -> tuple[int, int | None]:
    """(records skipped, records taken at most or None) of a part; (0, None) for the whole input."""
    return (0, None) if part is None else (part.skip, part.limit)


def _compressed_error(exc: CompressedError, path: str) -> InputError:
    return InputError(f"{exc.detail()} (found counting its records for --shard)", path=display_name(path))


def count_records(path: str) -> int:
    """The records of a FASTA/FASTQ file (plain or gzip), counted without parsing them.

    A file that is neither FASTA nor FASTQ gets the reader's error.
    """
    fh = open_binary(path)
    try:
        src = _Input(fh, b"")
        src.fill()
        kind = _kind(src)
        if kind == _OTHER:
            reader = FastxReader(path)
            for _ in reader.blocks():  # raises the reader's error at the first line
                pass
            return reader.count
        return _walk(src, kind, -1)[0]
    except CompressedError as exc:
        raise _compressed_error(exc, path) from None
    finally:
        fh.close()
