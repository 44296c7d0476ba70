"""Exact 3-way alignment with affine gaps on the CPU (numba): seven values a cell, one a kind of last column.

The README's section "Triplets" defines the costs and the tie rules; the
plain DP of ``tests/triplet_oracles.py`` (``ref_align_affine``) is the same
recurrence written from that text. Quasi-natural gap costs: in a column
where one sequence of a pair has a residue and the other a gap, the pair
opens a gap unless the previous column has the same residue and gap (the
first column opens every gap it has); each opening costs gap-open, on top
of the linear column scores of ``triplet_cube``.

Cell (i, j, k) holds D_t, the best score of an alignment ending there with
a column of kind t (``results.Column``): the column's score plus the best
over the previous kinds s of D_s at the cell the column comes from less
``results.opening_costs[s, t]``, or a start there (row 7 of the costs: no column
before). Slices over i are (n2 + 2, n3 + 2, 7), a guard row and column of
minus infinity at index 0 (kind t of cell (i, j, k) at [j + 1, k + 1, t]);
a scalar loop over the cells, 7 x 8 candidates a cell (about 0.025 GCUPS
on one thread, forty times slower than the linear engine).

With traceback each cell keeps a word of seven 3-bit fields, the previous
kind of each kind (7: the alignment starts before this column). Within the
budget (four bytes a cell) the whole cube of words; beyond it every s-th
slice of values is kept and the walk recomputes one block of s slices with
their words at a time, so the alignment is the whole cube's.
"""

from __future__ import annotations

import math

import numpy as np

from ...jit import nb
from ...results import COLUMN_START, COLUMN_STEPS
from .triplet_cube import GLOBAL, LOCAL, SEMI, _JIT, _tables, runs_of

#: the previous-kind field of a column that starts the alignment
START = COLUMN_START


@nb.njit(**_JIT)
def _starts(mode, i, j, k):
    """Whether an alignment of the mode may start at cell (i, j, k)."""
    if mode == LOCAL:
        return True
    if mode == SEMI:
        return i == 0 or j == 0 or k == 0
    return i == 0 and j == 0 and k == 0


@nb.njit(**_JIT)
def _column(t, x, jj, kk, tabs, g2):
    """Score of a column of kind t at the cell of padded indices (jj, kk), A's letter ``x`` (linear part)."""
    bc, ac, ab = tabs
    if t == 0:
        return ab[x, jj] + ac[x, kk] + bc[jj, kk]
    if t == 1:
        return bc[jj, kk] - g2
    if t == 2:
        return ac[x, kk] - g2
    if t == 3:
        return ab[x, jj] - g2
    return -g2


@nb.njit(**_JIT)
def _slice(a, tabs, costs, mode, g2, i, n, P, Q, words, track, best, at):
    """Slice i into ``Q`` from slice i - 1 (``P``); ``words`` ((n2 + 1, n3 + 1), or none) gets its cells' words;
    ``track``: keep the first best allowed end (cell in (i, j, k) order, then kind) in ``best``/``at``."""
    n1, n2, n3 = n
    neg = P[0, 0, 0]  # the guard
    real = neg // 2
    x = min(a[i - 1], 4) if i > 0 else 4
    want = words.shape[0] > 0
    for j in range(n2 + 1):
        for k in range(n3 + 1):
            word = np.uint32(0)
            computed = not (mode == SEMI and (i == 0 or j == 0 or k == 0))
            for t in range(7):
                di, dj, dk = COLUMN_STEPS[t, 0], COLUMN_STEPS[t, 1], COLUMN_STEPS[t, 2]
                value = neg
                if computed and i >= di and j >= dj and k >= dk:
                    src = P if di else Q
                    pj, pk = j + 1 - dj, k + 1 - dk
                    top, how = neg, 0
                    for s in range(7):
                        cand = src[pj, pk, s] - costs[s, t]
                        if cand > top:
                            top, how = cand, s
                    if _starts(mode, i - di, j - dj, k - dk) and -costs[START, t] >= top:
                        top, how = -costs[START, t], START
                    if top > real:
                        value = top + _column(t, x, j + 1, k + 1, tabs, g2)
                        word |= np.uint32(how) << np.uint32(3 * t)
                Q[j + 1, k + 1, t] = value
                if track and value > best[0] and (mode == LOCAL or (mode == SEMI and (i == n1 or j == n2 or k == n3))
                                                  or (i == n1 and j == n2 and k == n3)):
                    best[0] = value
                    at[0], at[1], at[2], at[3] = i, j, k, t
            if want:
                words[j, k] = word


@nb.njit(**_JIT)
def _sweep(a, tabs, costs, mode, g2, i_from, i_to, n, P, Q, words, track, best, at, ckpt, every):
    """Slices i_from .. i_to from ``P`` (slice i_from - 1); returns the last slice.

    ``words`` (when it has slices) gets the words of slice i at [i - i_from]; ``every`` > 0: slice i is copied
    to ``ckpt[(i + 1) // every - 1]`` when i + 1 is a multiple of it.
    """
    none = np.zeros((0, 0), np.uint32)
    for i in range(i_from, i_to + 1):
        _slice(a, tabs, costs, mode, g2, i, n, P, Q, words[i - i_from] if words.shape[0] else none, track, best,
               at)
        if every > 0 and (i + 1) % every == 0:
            ckpt[(i + 1) // every - 1] = Q
        P, Q = Q, P
    return P


@nb.njit(**_JIT)
def _walk(words, base, at, ops, nops):
    """Walk back from the column of kind at[3] ending at cell at[:3], through slices base.. of ``words``;
    returns (ops, done); ``at`` ends at the start cell, or where the walk left the slices."""
    i, j, k, t = at[0], at[1], at[2], at[3]
    while i >= base:
        how = (words[i - base, j, k] >> np.uint32(3 * t)) & np.uint32(7)
        ops[nops] = t
        nops += 1
        i, j, k = i - COLUMN_STEPS[t, 0], j - COLUMN_STEPS[t, 1], k - COLUMN_STEPS[t, 2]
        if how == START:
            at[0], at[1], at[2] = i, j, k
            return nops, True
        t = np.int64(how)
    at[0], at[1], at[2], at[3] = i, j, k, t
    return nops, False


@nb.njit(**_JIT)
def align_triplet(a, b, c, mode, sc, neg, costs, trace, budget, run_op, run_len, out):
    """Align one triplet with affine gaps (``costs``: ``opening_costs``). ``out``: score, start (3), end (3), run
    count; runs go to run_op/run_len. ``budget``: bytes of words allowed before the checkpointed walk."""
    n1, n2, n3 = a.shape[0], b.shape[0], c.shape[0]
    n = (n1, n2, n3)
    out[:] = 0
    tabs = _tables(a, b, c, sc, neg)
    g2 = sc[3] * 2
    P = np.full((n2 + 2, n3 + 2, 7), neg[0], neg.dtype)
    Q = np.full((n2 + 2, n3 + 2, 7), neg[0], neg.dtype)
    best = np.full(1, neg[0] if mode == GLOBAL else 0, neg.dtype)
    at = np.full(4, -1, np.int64)
    cells = (n1 + 1) * (n2 + 1) * (n3 + 1)
    full = trace and cells * 4 <= budget
    every = 0
    words = np.zeros((0, 0, 0), np.uint32)
    ckpt = np.empty((0, n2 + 2, n3 + 2, 7), neg.dtype)
    if full:
        words = np.empty((n1 + 1, n2 + 1, n3 + 1), np.uint32)
    elif trace:  # slices of values (7 cells) every s, s slices of words (4 bytes a cell) at once
        every = max(1, int(math.sqrt(7.0 * neg.itemsize / 4.0 * (n1 + 1))))
        ckpt = np.empty(((n1 + 1) // every, n2 + 2, n3 + 2, 7), neg.dtype)
    _sweep(a, tabs, costs, mode, g2, 0, n1, n, P, Q, words, True, best, at, ckpt, every)
    if at[3] < 0:  # no column: the empty alignment (nothing above 0, or three empty sequences)
        return
    out[0] = best[0]
    out[4], out[5], out[6] = at[0], at[1], at[2]
    if not trace:
        return
    ops = np.empty(n1 + n2 + n3 + 1, np.uint8)
    nops = 0
    if full:
        nops, _ = _walk(words, 0, at, ops, nops)
    else:
        done = False
        block = np.empty((every, n2 + 1, n3 + 1), np.uint32)
        while not done:
            base = (at[0] // every) * every
            P[:] = neg[0]
            if base > 0:
                P[:] = ckpt[base // every - 1]
            _sweep(a, tabs, costs, mode, g2, base, at[0], n, P, Q, block, False, best, at, ckpt, 0)
            nops, done = _walk(block, base, at, ops, nops)
    out[1], out[2], out[3] = at[0], at[1], at[2]
    out[7] = runs_of(ops, nops, run_op, run_len)


@nb.njit(parallel=True, **_JIT)
def align_each(codes_a, off_a, codes_b, off_b, codes_c, off_c, order, mode, sc, neg, costs, trace, budget,
               run_off, run_op, run_len, res):
    """Align the triplets ``order`` one by one (threads across triplets); ``res[t]`` as ``align_triplet``'s ``out``."""
    for m in nb.prange(order.shape[0]):
        t = order[m]
        r0 = run_off[t] if trace else 0
        align_triplet(codes_a[off_a[t]:off_a[t + 1]], codes_b[off_b[t]:off_b[t + 1]],
                      codes_c[off_c[t]:off_c[t + 1]], mode, sc, neg, costs, trace, budget,
                      run_op[r0:], run_len[r0:], res[t])
