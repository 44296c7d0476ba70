"""TSV writer of pairs: a header line (starting with '#'), then one row per pair in input order.

Columns: qname qlen qstart qend tname tlen tstart tend score cigar nm
(0-based half-open spans; nm = mismatches + inserted and deleted bases).
The rows of a chunk are formatted in one compiled call (``formatting``).
The header goes out with the first chunk, so a run that fails before it
writes nothing to stdout; a run without pairs writes the header alone.

Score only (``--score-only``): what was not computed is ``*``: the CIGAR,
``nm``, and the start coordinates the mode leaves free (the engine reports
them as -1). ``put_int_or_star`` serves the score-only rows of every
family's TSV.

With ``--strand both`` (the inputs' ``strand``) a last column ``strand``
holds ``+`` or ``-``; on a ``-`` row the query span and the CIGAR are those
of the reverse-complemented query, as SAM's clips and CIGAR are.
"""

from __future__ import annotations

import numpy as np

from ..formatting import INT_WIDTH, TAB, format_tsv, put_int, put_int_or_star, put_record, put_strand
from ..jit import nb
from ..results import CIGAR_LETTERS
from .text import TextWriter

_JIT = dict(nogil=True, cache=True, boundscheck=False)
_STAR = 42
NEWLINE = 10

COLUMNS = ("qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm")
#: the column ``--strand both`` adds
STRAND_COLUMN = "strand"


@nb.njit(**_JIT)
def format_tsv_score_only(q, t, rec, strand_column):
    """Score-only TSV rows: qname qlen qstart qend tname tlen tstart tend score * * [strand]; a start of -1 is
    '*'."""
    n = rec.score.shape[0]
    total = 0
    for p in range(n):
        total += (q.name_off[p + 1] - q.name_off[p]) + (t.name_off[p + 1] - t.name_off[p]) + 8 * (INT_WIDTH + 1) + 10
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, q, p)
        buf[pos] = TAB
        pos = put_int_or_star(buf, pos + 1, rec.qstart[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.qend[p])
        buf[pos] = TAB
        pos = put_record(buf, pos + 1, t, p)
        buf[pos] = TAB
        pos = put_int_or_star(buf, pos + 1, rec.tstart[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.tend[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.score[p])
        buf[pos] = TAB
        buf[pos + 1] = _STAR
        buf[pos + 2] = TAB
        buf[pos + 3] = _STAR
        pos += 4
        if strand_column:
            pos = put_strand(buf, pos, rec, p)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


class TsvWriter(TextWriter):
    header = ("#" + "\t".join(COLUMNS) + "\n").encode()
    rows = staticmethod(format_tsv)
    score_only = True

    def __init__(self, ctx):
        self.strand_column = getattr(ctx.inputs, "strand", "forward") == "both"
        if self.strand_column:
            self.header = ("#" + "\t".join((*COLUMNS, STRAND_COLUMN)) + "\n").encode()
        super().__init__(ctx)
        self.traceback = ctx.traceback

    def format(self, q, t, rec, runs):
        if self.traceback:
            return format_tsv(q, t, rec, runs, CIGAR_LETTERS, self.cigar_m, self.strand_column)
        return format_tsv_score_only(q, t, rec, self.strand_column)
