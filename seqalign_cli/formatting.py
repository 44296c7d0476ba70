"""Text output written in bulk: numba helpers that put ASCII straight into a byte buffer.

Every text writer (TSV, PAF) and ``Alignments.cigars`` format through these,
one call per chunk rather than one Python string per row. The helpers take
the buffer and a write position and return the new position; the caller
sizes the buffer beforehand from upper bounds (``INT_WIDTH`` per integer,
``RUN_WIDTH`` per CIGAR run).
"""

from __future__ import annotations

import numpy as np

from .jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: widest int64 in decimal, sign included
INT_WIDTH = 20
#: widest CIGAR run: an int32 length and its letter
RUN_WIDTH = 11
#: CIGAR letters of the run ops 0..3 ('=', 'X', 'I', 'D')
_OP_LETTERS = np.frombuffer(b"=XID", np.uint8).copy()
_M = 77
_STAR = 42
TAB = 9
NEWLINE = 10


@nb.njit(**_JIT)
def put_int(buf, pos, value):
    """Write ``value`` in decimal at ``pos``; returns the position after it."""
    v = np.int64(value)
    if v < 0:
        buf[pos] = 45  # '-'
        pos += 1
    start = pos
    if v < 0:
        # digit by digit on the negative value: no overflow at the int64 minimum
        while True:
            d = -(v % -10)
            buf[pos] = 48 + d
            pos += 1
            v = (v + d) // 10
            if v == 0:
                break
    else:
        while True:
            buf[pos] = 48 + v % 10
            pos += 1
            v //= 10
            if v == 0:
                break
    i = start
    j = pos - 1
    while i < j:
        c = buf[i]
        buf[i] = buf[j]
        buf[j] = c
        i += 1
        j -= 1
    return pos


@nb.njit(**_JIT)
def put_bytes(buf, pos, src, start, end):
    """Copy ``src[start:end]`` to ``pos``; returns the position after it."""
    for i in range(start, end):
        buf[pos] = src[i]
        pos += 1
    return pos


@nb.njit(**_JIT)
def put_cigar(buf, pos, run_op, run_len, r0, nr, merge_m, empty):
    """The CIGAR of runs ``r0 .. r0+nr-1``; with ``merge_m`` '=' and 'X' runs merge into 'M'.

    No runs write ``empty`` ('*') when it is non-zero, nothing otherwise.
    """
    if nr == 0:
        if empty != 0:
            buf[pos] = empty
            pos += 1
        return pos
    k = 0
    while k < nr:
        op = run_op[r0 + k]
        length = np.int64(run_len[r0 + k])
        letter = _OP_LETTERS[op]
        if merge_m and op <= 1:
            letter = _M
            while k + 1 < nr and run_op[r0 + k + 1] <= 1:
                k += 1
                length += run_len[r0 + k]
        pos = put_int(buf, pos, length)
        buf[pos] = letter
        pos += 1
        k += 1
    return pos


@nb.njit(**_JIT)
def format_cigars(run_op, run_len, run_off, nruns, merge_m):
    """CIGAR text of every pair in one byte buffer (empty for no runs). Returns (buffer, offsets)."""
    n = nruns.shape[0]
    total = 0
    for p in range(n):
        total += nruns[p] * RUN_WIDTH + 1
    buf = np.empty(total, np.uint8)
    offs = np.empty(n + 1, np.int64)
    pos = 0
    for p in range(n):
        offs[p] = pos
        pos = put_cigar(buf, pos, run_op, run_len, run_off[p], nruns[p], merge_m, 0)
    offs[n] = pos
    return buf[:pos], offs


@nb.njit(**_JIT)
def _row_bound(qn_off, tn_off, nruns, ints):
    """Bytes enough for every row: names, ``ints`` integers and separators, CIGAR runs."""
    total = 0
    for p in range(nruns.shape[0]):
        total += (qn_off[p + 1] - qn_off[p]) + (tn_off[p + 1] - tn_off[p]) + ints * (INT_WIDTH + 1)
        total += nruns[p] * RUN_WIDTH + 32
    return total


@nb.njit(**_JIT)
def format_tsv(qn, qn_off, q_off, qs, qe, tn, tn_off, t_off, ts, te, score, stats, run_op, run_len, run_off,
               nruns, merge_m):
    """TSV rows: qname qlen qstart qend tname tlen tstart tend score cigar nm ('*' for no runs).

    Names are (bytes, offsets), lengths come from the sequence offsets, nm is
    stats columns 1 to 3 (mismatches, inserted and deleted bases).
    """
    n = nruns.shape[0]
    buf = np.empty(_row_bound(qn_off, tn_off, nruns, 8), np.uint8)
    pos = 0
    for p in range(n):
        pos = put_bytes(buf, pos, qn, qn_off[p], qn_off[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, q_off[p + 1] - q_off[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qs[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qe[p])
        buf[pos] = TAB
        pos = put_bytes(buf, pos + 1, tn, tn_off[p], tn_off[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, t_off[p + 1] - t_off[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, ts[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, te[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, score[p])
        buf[pos] = TAB
        pos = put_cigar(buf, pos + 1, run_op, run_len, run_off[p], nruns[p], merge_m, _STAR)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, stats[p, 1] + stats[p, 2] + stats[p, 3])
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


@nb.njit(**_JIT)
def _put_text(buf, pos, text):
    for i in range(text.shape[0]):
        buf[pos + i] = text[i]
    return pos + text.shape[0]


def _text(s: bytes) -> np.ndarray:
    return np.frombuffer(s, np.uint8).copy()


_PAF_UNMAPPED = _text(b"\t0\t0\t*\t")
_PAF_ZEROS = _text(b"\t0\t0\t0\t0\t0\tAS:i:")
_PAF_CG = _text(b"\t255\tcg:Z:")
_PAF_AS = _text(b"\tAS:i:")
_PAF_NM = _text(b"\tNM:i:")


@nb.njit(**_JIT)
def format_paf(qn, qn_off, q_off, qs, qe, tn, tn_off, t_off, ts, te, score, stats, run_op, run_len, run_off,
               nruns, merge_m):
    """PAF rows: 12 columns, cg:Z, AS:i, NM:i; a pair without runs has strand '*' and zero spans."""
    n = nruns.shape[0]
    buf = np.empty(_row_bound(qn_off, tn_off, nruns, 12), np.uint8)
    pos = 0
    for p in range(n):
        pos = put_bytes(buf, pos, qn, qn_off[p], qn_off[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, q_off[p + 1] - q_off[p])
        if nruns[p] == 0:
            pos = _put_text(buf, pos, _PAF_UNMAPPED)
            pos = put_bytes(buf, pos, tn, tn_off[p], tn_off[p + 1])
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, t_off[p + 1] - t_off[p])
            pos = _put_text(buf, pos, _PAF_ZEROS)
            pos = put_int(buf, pos, score[p])
            buf[pos] = NEWLINE
            pos += 1
            continue
        matches = stats[p, 0]
        edits = stats[p, 1] + stats[p, 2] + stats[p, 3]
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qs[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, qe[p])
        buf[pos] = TAB
        buf[pos + 1] = 43  # '+'
        buf[pos + 2] = TAB
        pos = put_bytes(buf, pos + 3, tn, tn_off[p], tn_off[p + 1])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, t_off[p + 1] - t_off[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, ts[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, te[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, matches)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, matches + edits)
        pos = _put_text(buf, pos, _PAF_CG)
        pos = put_cigar(buf, pos, run_op, run_len, run_off[p], nruns[p], merge_m, _STAR)
        pos = _put_text(buf, pos, _PAF_AS)
        pos = put_int(buf, pos, score[p])
        pos = _put_text(buf, pos, _PAF_NM)
        pos = put_int(buf, pos, edits)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]
