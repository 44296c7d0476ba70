"""BLAST tabular writer of pairs (``--format blast6``, ``.m8``): BLAST's ``-outfmt 6``, twelve columns a row.

    qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore

1-based inclusive spans; ``length`` counts the alignment's columns, ``pident``
its identical columns (``=``) in per cent to three decimals; ``gapopen`` the
gaps (runs of I or D). A pair without an alignment (an empty local one)
writes no row, as BLAST writes nothing for a subject without a hit; no header.
E-value and bit score as ``matrices.statistics`` computes them (the pair's
query and target lengths as the search space) and formats them (BLAST's
rules); ``*`` where no published parameters exist, said once on stderr.
"""

from __future__ import annotations

import numpy as np

from ...errors import warn
from ...matrices import statistics
from ...results import Op
from ...writers.text import TextWriter


def gap_opens(runs) -> np.ndarray:
    """The runs of I or D of each record of a ``RunStore``."""
    n = len(runs.count)
    out = np.zeros(n, np.int64)
    if n == 0:
        return out
    gap = (runs.op == Op.INSERTION) | (runs.op == Op.DELETION)
    for p in np.flatnonzero(runs.count):
        a = runs.off[p]
        out[p] = np.count_nonzero(gap[a:a + runs.count[p]])
    return out


def statistics_of(ka, score, m, n) -> tuple[np.ndarray, np.ndarray]:
    """(E-values, bit scores) of raw scores for search spaces m x n; NaN without parameters (``ka`` None)."""
    if ka is None:
        nan = np.full(len(score), np.nan)
        return nan, nan
    return np.asarray(ka.evalue(score, m, n), float), np.asarray(ka.bits(np.asarray(score, float)), float)


def counts(rec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pident, length, mismatch, gapopen) of each record of ``rec`` (an ``Alignments``), as BLAST counts
    them: the alignment's columns, its ``=`` columns in per cent of them (0 for no column), its ``X``
    columns and its gaps."""
    stats = rec.stats
    length = stats.sum(axis=1)
    return 100.0 * stats[:, 0] / length.clip(min=1), length, stats[:, 1], gap_opens(rec.cigar)


def fields(qnames, tnames, rec, evalue, bits) -> list[str]:
    """The twelve BLAST columns of each record of ``rec`` (an ``Alignments``) that holds an alignment, as
    one string each (no newline); names are lists, ``evalue`` and ``bits`` arrays (NaN: ``*``)."""
    pident, length, mismatch, opens = counts(rec)
    out = []
    for p in np.flatnonzero(rec.cigar.count[:len(length)] > 0).tolist():
        e = "*\t*" if np.isnan(evalue[p]) else f"{statistics.evalue_text(evalue[p])}\t{statistics.bits_text(bits[p])}"
        out.append(f"{qnames[p]}\t{tnames[p]}\t{pident[p]:.3f}\t{length[p]}\t{mismatch[p]}\t{opens[p]}"
                   f"\t{rec.qstart[p] + 1}\t{rec.qend[p]}\t{rec.tstart[p] + 1}\t{rec.tend[p]}\t{e}")
    return out


def warn_without_statistics(ctx):
    """The parameters of the run's scoring and mode, or None, said once on stderr (the writer that writes
    the header: a worker's writes none)."""
    align = ctx.align
    ka = statistics.params(align.scoring, align.mode)
    if ka is None and ctx.header:
        warn(statistics.why_none(align.scoring, align.mode))
    return ka


class BlastTabularWriter(TextWriter):
    """No header; rows formatted in Python (``fields``), not in parts."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ka = warn_without_statistics(ctx)

    def write(self, chunk, res):
        m = np.diff(chunk.q.seq_off)
        evalue, bits = statistics_of(self.ka, res.score, m, np.diff(chunk.t.seq_off))
        lines = fields(chunk.q.names_list(), chunk.t.names_list(), res, evalue, bits)
        self.stream.write("".join(line + "\n" for line in lines).encode())
