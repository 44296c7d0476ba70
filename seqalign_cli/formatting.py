"""Text output written in bulk: numba helpers that put ASCII straight into a byte buffer.

Every text writer (TSV, PAF) and ``Alignments.cigars`` format through these,
one call per chunk rather than one Python string per row. The helpers take
the buffer and a write position and return the new position; the caller
sizes the buffer beforehand from upper bounds (``INT_WIDTH`` per integer,
``RUN_WIDTH`` per CIGAR run).
"""

from __future__ import annotations

import numba as nb
import numpy as np

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
