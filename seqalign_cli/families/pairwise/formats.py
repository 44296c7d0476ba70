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

from ...formatting import INT_WIDTH, RUN_WIDTH, TAB, put_bytes, put_cigar, put_int, put_int_or_star, put_span
from ...jit import nb
from ...results import CIGAR_LETTERS
from ...writers.text import TextWriter

_JIT = dict(nogil=True, cache=True, boundscheck=False)
_STAR = 42
NEWLINE = 10

@nb.njit(**_JIT)
def _row_bound(q, t, runs, ints):
    """Bytes enough for every row: both names, ``ints`` integers and separators, the runs."""
    total = 0
    for p in range(runs.count.shape[0]):
        total += (q.name_off[p + 1] - q.name_off[p]) + (t.name_off[p + 1] - t.name_off[p]) + ints * (INT_WIDTH + 1)
        total += runs.count[p] * RUN_WIDTH + 32
    return total


@nb.njit(**_JIT)
def put_strand(buf, pos, strand, p):
    """``\t+`` or ``\t-``: the strand column of pair ``p`` (``--strand both``; ``strand``: the pairs'
    ``PairView.strand``)."""
    buf[pos] = TAB
    buf[pos + 1] = 45 if strand[p] else 43  # '-', '+'
    return pos + 2


@nb.njit(**_JIT)
def format_tsv(q, t, rec, runs, letters, merge_m, strand_column=False):
    """TSV rows: qname qlen qstart qend tname tlen tstart tend score cigar nm ('*' for no runs).

    ``q``, ``t``: the queries and targets (``BlockView``); ``rec``: a
    ``PairView``; nm is stats columns 1 to 3 (mismatches, inserted and
    deleted bases). With ``strand_column`` a last column holds the strand
    (``put_strand``). The tuples' fields are read once, before the rows
    (``formatting.put_cigar``).
    """
    qn, qo, qs, tn, to, ts = q.names, q.name_off, q.seq_off, t.names, t.name_off, t.seq_off
    qstart, qend, tstart, tend, score, stats = rec.qstart, rec.qend, rec.tstart, rec.tend, rec.score, rec.stats
    strand = rec.strand
    run_op, run_len, run_off, run_count = runs.op, runs.length, runs.off, runs.count
    n = run_count.shape[0]
    buf = np.empty(_row_bound(q, t, runs, 8), np.uint8)
    pos = 0
    for p in range(n):
        pos = put_bytes(buf, pos, qn, qo[p], qo[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qs[p + 1] - qs[p])
        pos = put_span(buf, pos, qstart[p], qend[p])
        buf[pos] = TAB
        pos = put_bytes(buf, pos + 1, tn, to[p], to[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, ts[p + 1] - ts[p])
        pos = put_span(buf, pos, tstart[p], tend[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, score[p])
        buf[pos] = TAB
        pos = put_cigar(buf, pos + 1, run_op, run_len, run_off[p], run_count[p], letters, merge_m, _STAR)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, stats[p, 1] + stats[p, 2] + stats[p, 3])
        if strand_column:
            pos = put_strand(buf, pos, strand, p)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


COLUMNS = ("qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm")
#: the column ``--strand both`` adds
STRAND_COLUMN = "strand"


@nb.njit(**_JIT)
def format_tsv_score_only(q, t, rec, strand_column):
    """Score-only TSV rows: qname qlen qstart qend tname tlen tstart tend score * * [strand]; a start of -1 is
    '*'."""
    qn, qo, qs, tn, to, ts = q.names, q.name_off, q.seq_off, t.names, t.name_off, t.seq_off
    qstart, qend, tstart, tend, score, strand = rec.qstart, rec.qend, rec.tstart, rec.tend, rec.score, rec.strand
    n = score.shape[0]
    total = 0
    for p in range(n):
        total += (qo[p + 1] - qo[p]) + (to[p + 1] - to[p]) + 8 * (INT_WIDTH + 1) + 10
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = put_bytes(buf, pos, qn, qo[p], qo[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qs[p + 1] - qs[p])
        buf[pos] = TAB
        pos = put_int_or_star(buf, pos + 1, qstart[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qend[p])
        buf[pos] = TAB
        pos = put_bytes(buf, pos + 1, tn, to[p], to[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, ts[p + 1] - ts[p])
        buf[pos] = TAB
        pos = put_int_or_star(buf, pos + 1, tstart[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, tend[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, score[p])
        buf[pos] = TAB
        buf[pos + 1] = _STAR
        buf[pos + 2] = TAB
        buf[pos + 3] = _STAR
        pos += 4
        if strand_column:
            pos = put_strand(buf, pos, strand, p)
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
