"""PAF writer of pairs: the 12 standard columns plus cg:Z (CIGAR), AS:i (score), NM:i.

A pair without alignment keeps its names and lengths, with strand '*' and
zero spans, like an unmapped PAF line. The rows of a chunk are formatted in
one compiled call (``format_paf``, below, through ``formatting``'s primitives).
"""

from __future__ import annotations

import numpy as np

from ...formatting import (_JIT, _PAF_NM, _STAR, NEWLINE, TAB, _put_text, _text, put_bytes, put_int, put_record,
                           put_runs, put_span)
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
def put_tp(buf, pos, rec, p):
    """PAF's ``tp:A:P`` (primary) or ``tp:A:S`` (secondary) of pair ``p``; nothing for a query's only record."""
    role = rec.role[p]
    if role == 0:
        return pos
    return put_bytes(buf, pos, _PAF_TP, 7 * (role - 1), 7 * role)


@nb.njit(**_JIT)
def format_paf(q, t, rec, runs, letters, merge_m):
    """PAF rows: 12 columns, cg:Z, AS:i, NM:i (and ``put_tp``'s tag); a pair without runs has strand '*' and
    zero spans.

    A pair aligned reverse-complemented (``rec.strand``) has strand '-' and
    its query span on the query as read (PAF's rule); its CIGAR is that of
    the reverse-complemented query, along the target.
    """
    n = runs.count.shape[0]
    buf = np.empty(_row_bound(q, t, runs, 12), np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, q, p)
        if runs.count[p] == 0:
            pos = _put_text(buf, pos, _PAF_UNMAPPED)
            pos = put_record(buf, pos, t, p)
            pos = _put_text(buf, pos, _PAF_ZEROS)
            pos = put_int(buf, pos, rec.score[p])
            pos = put_tp(buf, pos, rec, p)
            buf[pos] = NEWLINE
            pos += 1
            continue
        matches = rec.stats[p, 0]
        edits = rec.stats[p, 1] + rec.stats[p, 2] + rec.stats[p, 3]
        if rec.strand[p]:
            qlen = q.seq_off[p + 1] - q.seq_off[p]
            pos = put_span(buf, pos, qlen - rec.qend[p], qlen - rec.qstart[p])
        else:
            pos = put_span(buf, pos, rec.qstart[p], rec.qend[p])
        buf[pos] = TAB
        buf[pos + 1] = 45 if rec.strand[p] else 43  # '-', '+'
        buf[pos + 2] = TAB
        pos = put_record(buf, pos + 3, t, p)
        pos = put_span(buf, pos, rec.tstart[p], rec.tend[p])
        pos = put_span(buf, pos, matches, matches + edits)
        pos = _put_text(buf, pos, _PAF_CG)
        pos = put_runs(buf, pos, runs, p, letters, merge_m, _STAR)
        pos = _put_text(buf, pos, _PAF_AS)
        pos = put_int(buf, pos, rec.score[p])
        pos = _put_text(buf, pos, _PAF_NM)
        pos = put_int(buf, pos, edits)
        pos = put_tp(buf, pos, rec, p)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


class PafWriter(TextWriter):
    rows = staticmethod(format_paf)
