"""The read group of ``-R/--read-group``: the ``@RG`` header line checked and its ID (no numpy: the command line
checks it before any work).

The argument is a whole SAM header line, ``@RG`` then tab-separated
``TAG:VALUE`` fields, one of them ``ID``. As on other aligners' command
lines, a backslash-t in it stands for a tab (``'@RG\\tID:x\\tSM:y'``) and a
double backslash for one backslash. SAM and BAM output add the line to the
header and ``RG:Z:<ID>`` to every record; TSV and PAF have no header to
hold it, and leave it out.
"""

from __future__ import annotations

import re

from ...errors import UsageError

#: a header field: a two-character tag, a colon, printable ASCII (SAM specification, section 1.3)
_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9]:[ -~]+")
_ESCAPES = {"t": "\t", "\\": "\\"}


def _unescape(text: str) -> str:
    """``\\t`` as a tab and ``\\\\`` as a backslash; any other backslash is kept as it is."""
    return re.sub(r"\\([t\\])", lambda m: _ESCAPES[m.group(1)], text)


def parse_read_group(text: str) -> str:
    """The ``@RG`` line of a ``-R`` argument, tabs in place; a usage error when it is not one with an ID."""
    line = _unescape(text)
    shown = text if len(text) <= 60 else text[:57] + "..."
    fields = line.split("\t")
    if fields[0] != "@RG" or len(fields) < 2:
        raise UsageError(f"-R/--read-group expects a SAM header line like '@RG\\tID:x\\tSM:y', starting "
                         f"with @RG and a tab (got {shown!r})")
    bad = next((f for f in fields[1:] if not _FIELD.fullmatch(f)), None)
    if bad is not None:
        raise UsageError(f"-R/--read-group: {bad[:40]!r} is not a TAG:VALUE field of printable characters "
                         f"(fields are separated by tabs, written \\t)")
    ids = [f for f in fields[1:] if f.startswith("ID:")]
    if len(ids) != 1:
        raise UsageError(f"-R/--read-group: the @RG line needs exactly one ID field, like ID:sample1 "
                         f"(got {len(ids)} in {shown!r})")
    return line


def read_group_id(line: str) -> str:
    """The ID of a checked ``@RG`` line (``parse_read_group``)."""
    return next(f[3:] for f in line.split("\t")[1:] if f.startswith("ID:"))
