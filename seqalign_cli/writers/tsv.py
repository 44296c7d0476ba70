"""TSV writer of pairs: a header line, then one row per pair in input order.

Columns: qname qlen qstart qend tname tlen tstart tend score cigar nm
(0-based half-open spans; nm = mismatches + inserted + deleted bases).
The rows of a chunk are formatted in one compiled call (``formatting``).
The header goes out with the first chunk, so a run that fails before it
writes nothing to stdout.
"""

from __future__ import annotations

from ..formatting import format_tsv
from .text import TextWriter

COLUMNS = ("qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm")


class TsvWriter(TextWriter):
    header = ("\t".join(COLUMNS) + "\n").encode()
    rows = staticmethod(format_tsv)
    score_only = True
