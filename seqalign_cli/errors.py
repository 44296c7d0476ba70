"""One exception family. Each error says what was seen and what was expected.

An error may name where it was seen: ``path``, then ``line`` (1-based, for
line-oriented inputs), then ``record``: ``path: line N: record R: message``.

``warn`` writes one line on stderr (``seqalign: warning: ...``) for what is
allowed but likely unintended (an empty input); ``-q`` does not silence it.
"""

from __future__ import annotations

import sys


class SeqalignError(Exception):
    """Base class; ``exit_code`` is 1 for bad data, 2 for bad usage."""

    exit_code = 1

    def __init__(self, message: str, *, path: str | None = None, record: str | int | None = None,
                 line: int | None = None):
        self.message = message
        self.path = path
        self.record = record
        #: 1-based line of the file the message is about (line-oriented inputs such as GFA)
        self.line = line
        super().__init__(self.format())

    def format(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.record is not None:
            where.append(f"record {self.record}")
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class InputError(SeqalignError, ValueError):
    """Malformed, truncated, empty or inconsistent input data (exit 1); a ``ValueError`` for Python callers."""

    exit_code = 1


class UsageError(SeqalignError):
    """Options that cannot work together, or an unusable backend (exit 2)."""

    exit_code = 2


def warn(message: str, *, path: str | None = None, record: str | int | None = None, line: int | None = None):
    """One line on stderr: ``seqalign: warning: path: message`` (where as for errors)."""
    text = SeqalignError(message, path=path, record=record, line=line).format()
    try:
        sys.stderr.write(f"seqalign: warning: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
