"""Text output written in bulk: numba helpers that put ASCII straight into a byte buffer.

Every text writer (TSV, PAF, SAM, MAF, GAF), the BAM records and
``Alignments.cigars`` format through these, one call per chunk rather than
one Python string per row.
Records come in as
named tuples of arrays (``RecordBlock.view``, ``Alignments.view``,
``RunStore.view``); run strings are spelled through a letter table given by
the caller (``results.CIGAR_LETTERS`` for pairs). The helpers take
the buffer and a write position and return the new position; the caller
sizes the buffer beforehand from upper bounds (``INT_WIDTH`` per integer,
``RUN_WIDTH`` per CIGAR run). A formatter reads its tuples' fields into
local arrays before its rows and calls helpers of arrays and numbers
(``put_bytes``, ``put_int``, ``put_cigar``): several times faster than
reading the tuples at every row (``put_cigar`` says why).
"""

from __future__ import annotations

import numpy as np

from .jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: widest int64 in decimal, sign included
INT_WIDTH = 20
#: widest CIGAR run: an int32 length and its letter
RUN_WIDTH = 11
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
def put_runs(buf, pos, runs, p, letters, merge_m, empty):
    """The run string of record ``p`` of a ``RunStore.view`` (``put_cigar``)."""
    return put_cigar(buf, pos, runs.op, runs.length, runs.off[p], runs.count[p], letters, merge_m, empty)


@nb.njit(**_JIT)
def put_cigar(buf, pos, run_op, run_len, r0, nr, letters, merge_m, empty):
    """The runs ``r0 .. r0 + nr - 1`` spelled with ``letters[op]``; with ``merge_m`` ops 0 and 1 merge into
    'M'. No runs write ``empty`` ('*') when it is non-zero, nothing otherwise.

    It takes plain arrays: a formatter's loop that reads the fields of its named tuples once, before the
    loop, and calls only helpers of arrays and numbers runs several times faster than one that reads them at
    every row (benchmarks/decisions/format_fields.md).
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
        letter = letters[op]
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
def format_runs(runs, letters, merge_m):
    """The run strings of every record in one byte buffer (empty for no runs). Returns (buffer, offsets)."""
    n = runs.count.shape[0]
    total = 0
    for p in range(n):
        total += runs.count[p] * RUN_WIDTH + 1
    buf = np.empty(total, np.uint8)
    offs = np.empty(n + 1, np.int64)
    pos = 0
    for p in range(n):
        offs[p] = pos
        pos = put_runs(buf, pos, runs, p, letters, merge_m, 0)
    offs[n] = pos
    return buf[:pos], offs


@nb.njit(**_JIT)
def put_record(buf, pos, block, p):
    """Name and sequence length of record ``p`` of a ``BlockView``, tab-separated."""
    pos = put_bytes(buf, pos, block.names, block.name_off[p], block.name_off[p + 1])
    buf[pos] = TAB
    return put_int(buf, pos + 1, block.seq_off[p + 1] - block.seq_off[p])


@nb.njit(**_JIT)
def put_int_or_star(buf, pos, value):
    """``value`` in decimal, or '*' when it is negative (not computed)."""
    if value < 0:
        buf[pos] = _STAR
        return pos + 1
    return put_int(buf, pos, value)


@nb.njit(**_JIT)
def put_span(buf, pos, start, end):
    """``\tstart\tend``."""
    buf[pos] = TAB
    pos = put_int(buf, pos + 1, start)
    buf[pos] = TAB
    return put_int(buf, pos + 1, end)


@nb.njit(**_JIT)
def _put_text(buf, pos, text):
    for i in range(text.shape[0]):
        buf[pos + i] = text[i]
    return pos + text.shape[0]


def _text(s: bytes) -> np.ndarray:
    return np.frombuffer(s, np.uint8).copy()


_PAF_NM = _text(b"\tNM:i:")
