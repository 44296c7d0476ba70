"""PAF writer of pairs: the 12 standard columns plus cg:Z (CIGAR), AS:i (score), NM:i.

A pair without alignment keeps its names and lengths, with strand '*' and
zero spans, like an unmapped PAF line. The rows of a chunk are formatted in
one compiled call (``format_paf``, below, through ``formatting``'s primitives).
"""

from __future__ import annotations

import numpy as np

from ...formatting import (_JIT, _PAF_NM, _STAR, NEWLINE, TAB, _put_text, _text, put_bytes, put_cigar, put_int,
                           put_span)
from ...jit import nb
from ...writers.text import TextWriter
from .formats import _row_bound


_PAF_UNMAPPED = _text(b"\t0\t0\t*\t")
_PAF_ZEROS = _text(b"\t0\t0\t0\t0\t0\tAS:i:")
_PAF_CG = _text(b"\t255\tcg:Z:")
_PAF_AS = _text(b"\tAS:i:")
#: the tp:A tag of each ``results.Role`` (none for a query's only record)
_PAF_TP = _text(b"\ttp:A:P\ttp:A:S")


@nb.njit(**_JIT)
def put_tp(buf, pos, role, p):
    """PAF's ``tp:A:P`` (primary) or ``tp:A:S`` (secondary) of pair ``p`` (``role``: ``PairView.role``); nothing
    for a query's only record."""
    if role[p] == 0:
        return pos
    return put_bytes(buf, pos, _PAF_TP, 7 * (role[p] - 1), 7 * role[p])


@nb.njit(**_JIT)
def format_paf(q, t, rec, runs, letters, merge_m):
    """PAF rows: 12 columns, cg:Z, AS:i, NM:i (and ``put_tp``'s tag); a pair without runs has strand '*' and
    zero spans.

    A pair aligned reverse-complemented (``rec.strand``) has strand '-' and
    its query span on the query as read (PAF's rule); its CIGAR is that of
    the reverse-complemented query, along the target. The tuples' fields are
    read once, before the rows (``formatting.put_cigar``).
    """
    qn, qo, qs, tn, to, ts = q.names, q.name_off, q.seq_off, t.names, t.name_off, t.seq_off
    qstart, qend, tstart, tend, score, stats = rec.qstart, rec.qend, rec.tstart, rec.tend, rec.score, rec.stats
    strand, role = rec.strand, rec.role
    run_op, run_len, run_off, run_count = runs.op, runs.length, runs.off, runs.count
    n = run_count.shape[0]
    buf = np.empty(_row_bound(q, t, runs, 12), np.uint8)
    pos = 0
    for p in range(n):
        qlen = qs[p + 1] - qs[p]
        pos = put_bytes(buf, pos, qn, qo[p], qo[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qlen)
        if run_count[p] == 0:
            pos = _put_text(buf, pos, _PAF_UNMAPPED)
            pos = put_bytes(buf, pos, tn, to[p], to[p + 1])
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, ts[p + 1] - ts[p])
            pos = _put_text(buf, pos, _PAF_ZEROS)
            pos = put_int(buf, pos, score[p])
            pos = put_tp(buf, pos, role, p)
            buf[pos] = NEWLINE
            pos += 1
            continue
        matches = stats[p, 0]
        edits = stats[p, 1] + stats[p, 2] + stats[p, 3]
        if strand[p]:
            pos = put_span(buf, pos, qlen - qend[p], qlen - qstart[p])
        else:
            pos = put_span(buf, pos, qstart[p], qend[p])
        buf[pos] = TAB
        buf[pos + 1] = 45 if strand[p] else 43  # '-', '+'
        buf[pos + 2] = TAB
        pos = put_bytes(buf, pos + 3, tn, to[p], to[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, ts[p + 1] - ts[p])
        pos = put_span(buf, pos, tstart[p], tend[p])
        pos = put_span(buf, pos, matches, matches + edits)
        pos = _put_text(buf, pos, _PAF_CG)
        pos = put_cigar(buf, pos, run_op, run_len, run_off[p], run_count[p], letters, merge_m, _STAR)
        pos = _put_text(buf, pos, _PAF_AS)
        pos = put_int(buf, pos, score[p])
        pos = _put_text(buf, pos, _PAF_NM)
        pos = put_int(buf, pos, edits)
        pos = put_tp(buf, pos, role, p)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


class PafWriter(TextWriter):
    rows = staticmethod(format_paf)
