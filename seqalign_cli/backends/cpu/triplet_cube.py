"""One triplet at a time: the exact 3-D DP of the triplet family, with the checkpointed walk (numba).

The recurrence, modes and tie rules are the README's (section "Triplets"):
sum-of-pairs scoring with linear gaps, seven column kinds
(``results.Column``), one score per cell ``D(i, j, k)``.

Layout: the sweep runs over i (A) one (j, k) slice at a time, rows over j,
the inner loop over k. Slices are padded with a guard row and column of
minus infinity (index 0), so cell (i, j, k) sits at [j + 1, k + 1] and every
predecessor exists. Of the seven moves, six come from the previous slice or
the previous row and are computed for a whole row in one loop that the
compiler vectorises; the seventh (a residue of C only, from the cell to the
left) is a running maximum over the row afterwards. The row functions take
the whole slices and a row index (per-row views cost reference counting,
about a fifth of a row's time), and take every sum back to the cell type
at once (``_as``): numba widens int32 arithmetic to int64, which would
halve the lanes of the vector loop. The score bound (``triplet.INT32_LIMIT``) keeps
these sums, minus infinity included, inside the cell type. The pair score
of B against C is a (j, k) table made once per triplet; A's letter picks
one row of a profile against C and one against B.

Score only keeps two slices. With traceback, one direction byte per cell
(the column kind that won, or 7 where the alignment starts) is kept for the
whole cube when it fits the budget; beyond it the forward pass keeps every
s-th slice (checkpoints) and the walk recomputes one block of s slices with
its direction bytes at a time, so the alignment is the full cube's.
"""

from __future__ import annotations

import math

import numpy as np

from ...config import Mode
from ...jit import nb
from numba.extending import overload  # after .jit, which sets numba up
from .dp import pair_table

_JIT = dict(nogil=True, cache=True, boundscheck=False)
GLOBAL, SEMI, LOCAL = int(Mode.GLOBAL), int(Mode.SEMI_GLOBAL), int(Mode.LOCAL)
#: direction byte of a cell where the alignment starts
START = 7
@nb.njit(**_JIT)
def _tables(a, b, c, sc, neg):
    """Pair-score tables: B x C per cell, A's letter x against C and against B (padded like the slices)."""
    n2 = b.shape[0]
    n3 = c.shape[0]
    S = pair_table(sc, neg)
    bc = np.zeros((n2 + 2, n3 + 2), neg.dtype)
    for j in range(1, n2 + 1):
        for k in range(1, n3 + 1):
            bc[j + 1, k + 1] = S[min(b[j - 1], 4), min(c[k - 1], 4)]
    ac = np.zeros((5, n3 + 2), neg.dtype)
    ab = np.zeros((5, n2 + 2), neg.dtype)
    for x in range(5):
        for k in range(1, n3 + 1):
            ac[x, k + 1] = S[x, min(c[k - 1], 4)]
        for j in range(1, n2 + 1):
            ab[x, j + 1] = S[x, min(b[j - 1], 4)]
    return bc, ac, ab


def _as(x, like):
    """``x`` in the cell type of array ``like`` (compiled code only)."""


@overload(_as, inline="always")
def _as_cell(x, like):
    cell = like.dtype
    return lambda x, like: cell(x)


@nb.njit(**_JIT)
def _row(P, Q, jj, bct, acr, sab, g2):
    """Row ``jj`` of slice ``Q`` from the six moves that do not come from the left (score only).

    Rows are padded (index 0 is the guard); the loop runs with unsigned
    indices, so that it carries no negative-index checks, and every sum is
    taken back to the cell type at once, so that the compiler vectorises it
    in lanes of that width. The gap cost common to five of the six moves is
    taken off their maximum once (the move of three residues gets it added).
    """
    n = np.uint64(Q.shape[1] - 1)
    j1 = np.uint64(jj)
    j0 = j1 - np.uint64(1)
    s, sg, g = _as(sab, Q), _as(sab + g2, Q), _as(g2, Q)
    for u in range(n):
        v = u + np.uint64(1)
        bc, ac = bct[j1, v], acr[v]
        m = max(_as(P[j0, u] + _as(sg + _as(ac + bc, Q), Q), Q), _as(Q[j0, u] + bc, Q))
        m = max(m, _as(P[j1, u] + ac, Q))
        m = max(m, _as(P[j0, v] + s, Q))
        Q[j1, v] = _as(max(m, max(P[j1, v], Q[j0, v])) - g, Q)


@nb.njit(**_JIT)
def _row_dirs(P, Q, jj, bct, acr, sab, g2, code):
    """As ``_row``, noting the winning column kind (the first of equal ones) in ``code``."""
    n = np.uint64(Q.shape[1] - 1)
    j1 = np.uint64(jj)
    j0 = j1 - np.uint64(1)
    sag, g = _as(sab - g2, Q), _as(g2, Q)
    for u in range(n):
        v = u + np.uint64(1)
        bc, ac = bct[j1, v], acr[v]
        m = _as(P[j0, u] + _as(sab + _as(ac + bc, Q), Q), Q)
        d = np.uint8(0)
        t = _as(Q[j0, u] + _as(bc - g, Q), Q)
        d = np.uint8(1) if t > m else d
        m = max(m, t)
        t = _as(P[j1, u] + _as(ac - g, Q), Q)
        d = np.uint8(2) if t > m else d
        m = max(m, t)
        t = _as(P[j0, v] + sag, Q)
        d = np.uint8(3) if t > m else d
        m = max(m, t)
        t = _as(P[j1, v] - g, Q)
        d = np.uint8(4) if t > m else d
        m = max(m, t)
        t = _as(Q[j0, v] - g, Q)
        d = np.uint8(5) if t > m else d
        Q[j1, v] = max(m, t)
        code[v] = d


@nb.njit(**_JIT)
def _finish_row(Q, jj, code, mode, i, g2, want):
    """Start cells, the local floor and the move from the left (a running maximum) of row ``jj``.

    D[k] = max(T[k], D[k-1] - g2); the move from the left wins where the
    previous cell's value minus g2 is strictly above T[k]. ``want``: the
    codes of the row are kept (without them the local floor is a plain
    maximum, which the compiler vectorises).
    """
    n = np.uint64(Q.shape[1])
    r = np.uint64(jj)
    j = jj - 1
    one = np.uint64(1)
    if mode == SEMI and (i == 0 or j == 0):
        for v in range(one, n):
            Q[r, v] = 0
            code[v] = START
        return
    if (mode == GLOBAL and i == 0 and j == 0) or mode == SEMI:
        Q[r, one] = 0
        code[one] = START
    if mode == LOCAL and want:
        for v in range(one, n):
            start = Q[r, v] <= 0
            Q[r, v] = 0 if start else Q[r, v]
            code[v] = START if start else code[v]
    elif mode == LOCAL:
        zero = _as(0, Q)
        for v in range(one, n):
            Q[r, v] = max(Q[r, v], zero)
    g = _as(g2, Q)
    run = Q[r, one]
    for v in range(np.uint64(2), n):
        run = _as(run - g, Q)
        if run > Q[r, v]:
            Q[r, v] = run
            code[v] = 6
        else:
            run = Q[r, v]


@nb.njit(**_JIT)
def _track(Q, jj, mode, i, n1, n2, best, at):
    """Keep the best allowed end cell of row (i, jj - 1) (the first of equal ones in (i, j, k) order)."""
    n3 = Q.shape[1] - 2
    r = np.uint64(jj)
    j = jj - 1
    if mode == LOCAL or (mode == SEMI and (i == n1 or j == n2)):
        top = Q[r, 1]
        for u in range(np.uint64(1), np.uint64(n3 + 2)):
            top = max(top, Q[r, u])
        if top > best[0]:
            for kk in range(1, n3 + 2):
                if Q[r, kk] == top:
                    best[0] = top
                    at[0], at[1], at[2] = i, j, kk - 1
                    break
    elif mode == SEMI or (i == n1 and j == n2):
        if Q[r, n3 + 1] > best[0]:
            best[0] = Q[r, n3 + 1]
            at[0], at[1], at[2] = i, j, n3


@nb.njit(**_JIT)
def _sweep(a, tabs, mode, g2, i_from, i_to, P, Q, dirs, track, best, at, ckpt, every):
    """Slices i_from .. i_to from ``P`` (slice i_from - 1); returns the last slice.

    ``dirs`` (when it has slices) receives the direction bytes of slice i at
    [i - i_from]; ``track``: keep the best end cell; ``every`` > 0: slice i
    is copied to ``ckpt[(i + 1) // every - 1]`` when i + 1 is a multiple of it.
    """
    bc, ac, ab = tabs
    n1 = a.shape[0]
    n2, n3 = P.shape[0] - 2, P.shape[1] - 2
    code = np.zeros(P.shape[1], np.uint8)
    want = dirs.shape[0] > 0
    for i in range(i_from, i_to + 1):
        x = min(a[i - 1], 4) if i > 0 else 4
        acr = ac[x]
        for jj in range(1, n2 + 2):
            sab = ab[x, jj]
            if want:
                _row_dirs(P, Q, jj, bc, acr, sab, g2, code)
            else:
                _row(P, Q, jj, bc, acr, sab, g2)
            _finish_row(Q, jj, code, mode, i, g2, want)
            if want:
                for kk in range(n3 + 1):
                    dirs[i - i_from, jj - 1, kk] = code[kk + 1]
            # the call only where the row may hold the end cell (a call a row costs global mode a sixth)
            if track and (mode == LOCAL or i == n1 or jj == n2 + 1 or (mode == SEMI and Q[jj, n3 + 1] > best[0])):
                _track(Q, jj, mode, i, n1, n2, best, at)
        if every > 0 and (i + 1) % every == 0:
            ckpt[(i + 1) // every - 1, :, :] = Q
        P, Q = Q, P
    return P


@nb.njit(**_JIT)
def _walk(dirs, base, at, ops, nops):
    """Walk back from cell ``at`` through the slices base.. of ``dirs``; returns (ops, done)."""
    i, j, k = at[0], at[1], at[2]
    while i >= base:
        d = dirs[i - base, j, k]
        if d == START:
            at[0], at[1], at[2] = i, j, k
            return nops, True
        ops[nops] = d
        nops += 1
        if d == 0 or d == 2 or d == 3 or d == 4:
            i -= 1
        if d == 0 or d == 1 or d == 3 or d == 5:
            j -= 1
        if d == 0 or d == 1 or d == 2 or d == 6:
            k -= 1
    at[0], at[1], at[2] = i, j, k
    return nops, False


@nb.njit(**_JIT)
def align_triplet(a, b, c, mode, sc, neg, trace, budget, run_op, run_len, out):
    """Align one triplet. ``out``: score, start (3), end (3), run count; runs go to run_op/run_len.

    ``neg``: a one-element array holding minus infinity in the cell dtype;
    ``budget``: direction bytes allowed before the checkpointed walk.
    """
    n1, n2, n3 = a.shape[0], b.shape[0], c.shape[0]
    tabs = _tables(a, b, c, sc, neg)
    P = np.full((n2 + 2, n3 + 2), neg[0], neg.dtype)
    Q = np.full((n2 + 2, n3 + 2), neg[0], neg.dtype)
    best = np.full(1, neg[0], neg.dtype)
    at = np.zeros(3, np.int64)
    dirs = np.zeros((0, 0, 0), np.uint8)
    full = trace and (n1 + 1) * (n2 + 1) * (n3 + 1) <= budget
    every = 0  # checkpointed walk: every-th slice kept
    if full:  # every direction byte at once
        dirs = np.empty((n1 + 1, n2 + 1, n3 + 1), np.uint8)
        ckpt = np.empty((0, n2 + 2, n3 + 2), neg.dtype)
    elif trace:
        every = max(1, int(math.sqrt(4.0 * (n1 + 1))))
        ckpt = np.empty(((n1 + 1) // every, n2 + 2, n3 + 2), neg.dtype)
    else:
        ckpt = np.empty((0, n2 + 2, n3 + 2), neg.dtype)
    _sweep(a, tabs, mode, sc[3] * 2, 0, n1, P, Q, dirs, True, best, at, ckpt, every)
    out[0] = best[0]
    out[4], out[5], out[6] = at[0], at[1], at[2]
    out[7] = 0
    if not trace:
        return
    ops = np.empty(n1 + n2 + n3 + 1, np.uint8)
    nops = 0
    if full:
        nops, _ = _walk(dirs, 0, at, ops, nops)
    else:
        done = False
        block = np.empty((every, n2 + 1, n3 + 1), np.uint8)
        while not done:
            base = (at[0] // every) * every
            P[:, :] = neg[0]
            if base > 0:
                P[:, :] = ckpt[base // every - 1]
            _sweep(a, tabs, mode, sc[3] * 2, base, at[0], P, Q, block, False, best, at, ckpt, 0)
            nops, done = _walk(block, base, at, ops, nops)
    out[1], out[2], out[3] = at[0], at[1], at[2]
    out[7] = runs_of(ops, nops, run_op, run_len)


@nb.njit(**_JIT)
def runs_of(ops, nops, run_op, run_len):
    """The walk's ``ops`` (kinds from the end back) as runs from the start of the alignment on, into
    run_op/run_len; returns their count."""
    nr = 0
    p = nops - 1
    while p >= 0:
        q = p
        while q > 0 and ops[q - 1] == ops[p]:
            q -= 1
        run_op[nr] = ops[p]
        run_len[nr] = p - q + 1
        nr += 1
        p = q - 1
    return nr


@nb.njit(parallel=True, **_JIT)
def align_each(codes_a, off_a, codes_b, off_b, codes_c, off_c, order, mode, sc, neg, trace, budget,
               run_off, run_op, run_len, res):
    """Align the triplets ``order`` one by one (threads across triplets); ``res[t]`` as ``align_triplet``'s ``out``."""
    for n in nb.prange(order.shape[0]):
        t = order[n]
        r0 = run_off[t] if trace else 0
        align_triplet(codes_a[off_a[t]:off_a[t + 1]], codes_b[off_b[t]:off_b[t + 1]],
                      codes_c[off_c[t]:off_c[t + 1]], mode, sc, neg, trace, budget,
                      run_op[r0:], run_len[r0:], res[t])
