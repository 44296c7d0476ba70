"""Exact 3-way alignment with affine gaps on the CPU (numba): seven values a cell, one a kind of last column.

The README's section "Triplets" defines the costs and the tie rules; the
plain DP of ``tests/support/triplet_oracles.py`` (``ref_align_affine``) is the same
recurrence written from that text. Quasi-natural gap costs: in a column
where one sequence of a pair has a residue and the other a gap, the pair
opens a gap unless the previous column has the same residue and gap (the
first column opens every gap it has); each opening costs gap-open, on top
of the linear column scores of ``cpu_cube``.

Cell (i, j, k) holds D_t, the best score of an alignment ending there with
a column of kind t (``results.Column``): the column's score plus the best
over the previous kinds s of D_s at the cell the column comes from less
``results.opening_costs[s, t]``, or a start there (row 7 of the costs: no
column before). Slices over i are (7, n2 + 2, n3 + 2), a guard row and
column of minus infinity at index 0 (kind t of cell (i, j, k) at
[t, j + 1, k + 1]). A row at a time, kind by kind: score only, the seven
previous kinds in one pass along the row that the compiler vectorises;
with traceback, a pass a previous kind (which one wins, too); kind C,
which comes from the cell before it in the row, ends with a chain along k
(the chain alone serial; which candidate won, over the row after it).
About 0.10-0.19 GCUPS score only on one thread at 64-256 bp (six to ten
times slower than the linear engine).

With traceback each cell keeps a word of seven 3-bit fields, the previous
kind of each kind (7: the alignment starts before this column). Within the
budget (four bytes a cell) the whole cube of words; beyond it the
traceback stays within the budget (or a floor of a few slices): slices of
values are kept as checkpoints and the walk sweeps again, from them, blocks
of slices with their words, only over its own rectangle of (j, k), where
``cpu_checkpoint`` schedules them (``_walk_parts``); the alignment is the
whole cube's.
"""

from __future__ import annotations

import numpy as np

from ...jit import nb
from .cpu_checkpoint import marks, plan, pool_bytes, round8
from .cpu_cube import GLOBAL, LOCAL, SEMI, _JIT, _as, _tables, runs_of
from .results import COLUMN_START, COLUMN_STEPS

#: the previous-kind field of a column that starts the alignment
START = COLUMN_START


@nb.njit(**_JIT)
def _columns(t, x, jj, tabs, g2, k0, m, col):
    """Scores of columns of kind t in row jj (padded) for cells k0 .. m - 1, A's letter ``x`` (linear part)."""
    bc, ac, ab = tabs
    lo, hi, one = np.uint64(k0), np.uint64(m), np.uint64(1)
    if t == 0:
        base = ab[x, jj]
        for k in range(lo, hi):
            col[k] = _as(base + _as(ac[x, k + one] + bc[jj, k + one], col), col)
    elif t == 1:
        for k in range(lo, hi):
            col[k] = _as(bc[jj, k + one] - g2, col)
    elif t == 2:
        for k in range(lo, hi):
            col[k] = _as(ac[x, k + one] - g2, col)
    else:
        value = _as((ab[x, jj] if t == 3 else 0) - g2, col)
        for k in range(lo, hi):
            col[k] = value


@nb.njit(**_JIT)
def _slice(a, tabs, costs, mode, g2, i, n, P, Q, words, track, best, at, rows):
    """Slice i into ``Q`` from slice i - 1 (``P``); ``words`` ((n2 + 1, n3 + 1), or none) gets its cells' words;
    ``track``: keep the first best allowed end (cell in (i, j, k) order, then kind) in ``best``/``at``.

    A row at a time, kind by kind; each kind's candidates s over the whole row (``rows``: the buffers top,
    how, word, col), so that the loops along k vectorise: score only all seven in one pass, with traceback
    one pass each, in order. Kind C (a residue of C only) comes from the cell before it in the row: its other
    candidates over the row first, then the chain along k.
    """
    n1, n2, n3 = n
    neg = P[0, 0, 0]  # the guard
    real = neg // 2
    x = min(a[i - 1], 4) if i > 0 else 4
    want = words.shape[0] > 0
    top, how, word, col = rows
    m = n3 + 1
    for j in range(n2 + 1):
        jj = j + 1
        if want:
            word[:] = 0
        for t in range(7):
            di, dj, dk = COLUMN_STEPS[t, 0], COLUMN_STEPS[t, 1], COLUMN_STEPS[t, 2]
            out = Q[t, jj]
            # semi-global: no value where a coordinate is 0
            if i < di or j < dj or (mode == SEMI and (i == 0 or j == 0)):
                out[1:] = neg
                continue
            k0 = 1 if (dk or mode == SEMI) else 0  # the first cell computed
            out[1:k0 + 1] = neg
            src = P if di else Q
            sj = jj - dj
            lo, hi, off = np.uint64(k0), np.uint64(m), np.uint64(1 - dk)  # unsigned: no negative-index checks
            if not want:
                # score only: every candidate kind s in one pass over the row (D_s less the opening costs; kind
                # C's own chain comes below: its cost of -neg keeps that candidate at or below minus infinity)
                r0, r1, r2, r3 = src[0, sj], src[1, sj], src[2, sj], src[3, sj]
                r4, r5, r6 = src[4, sj], src[5, sj], src[6, sj]
                c0, c1, c2, c3 = costs[0, t], costs[1, t], costs[2, t], costs[3, t]
                c4, c5, c6 = costs[4, t], costs[5, t], (costs[6, t] if t != 6 else -neg)
                for k in range(lo, hi):
                    z = k + off
                    v = max(_as(r0[z] - c0, top), _as(r1[z] - c1, top))
                    v = max(v, max(_as(r2[z] - c2, top), _as(r3[z] - c3, top)))
                    v = max(v, max(_as(r4[z] - c4, top), _as(r5[z] - c5, top)))
                    top[k] = max(v, _as(r6[z] - c6, top))
            # traceback: one pass a candidate kind (none in score only; the same as an else branch, which the
            # compiler made 7-10 % slower in score only)
            for s in range(0 if not want else (6 if t == 6 else 7)):
                cost = costs[s, t]
                row = src[s, sj]
                code = np.uint8(s)
                if s == 0:  # the first candidate: the row's values so far
                    for k in range(lo, hi):
                        top[k] = _as(row[k + off] - cost, top)
                        how[k] = 0
                    continue
                for k in range(lo, hi):  # three arrays, so that the loop vectorises
                    cand = _as(row[k + off] - cost, top)
                    up = cand > top[k]
                    top[k] = cand if up else top[k]
                    how[k] = code if up else how[k]
            _columns(t, x, jj, tabs, g2, k0, m, col)
            lead = -costs[START, t]
            # where the mode lets a column of kind t start: every cell, the row, or the one cell k = dk
            every = mode == LOCAL or (mode == SEMI and (i == di or j == dj))
            one = dk if (mode == SEMI or (i == di and j == dj)) else -1
            shift = np.uint32(3 * t)
            first = np.uint8(START)
            if every:
                for k in range(lo, hi):
                    up = lead >= top[k]
                    top[k] = lead if up else top[k]
                    how[k] = first if up else how[k]
            elif one >= k0:
                if lead >= top[one]:
                    top[one] = lead
                    how[one] = first
            if t == 6:
                # kind C after kind C, from the cell before in the row: a chain along k, the starts already in
                # top (a start wins ties with the chain too, so merging it first changes nothing); the chain
                # alone is serial, which candidate won is found over the row afterwards
                chain = costs[6, 6]
                e = out[k0]  # D_C of the cell before the first (minus infinity)
                for k in range(k0, m):
                    best_k = max(top[k], _as(e - chain, top))
                    e = _as(best_k + col[k], top) if best_k > real else neg
                    out[k + 1] = e
                if want:
                    six = np.uint8(6)
                    for k in range(lo, hi):
                        cand = _as(out[k] - chain, top)  # out[k]: D_C of the cell before k
                        kind = six if cand > top[k] else how[k]
                        ok = max(top[k], cand) > real
                        word[k] |= (np.uint32(kind) << shift) if ok else np.uint32(0)
                continue
            one_u = np.uint64(1)
            for k in range(lo, hi):
                ok = top[k] > real
                out[k + one_u] = _as(top[k] + col[k], top) if ok else neg
            if want:
                for k in range(lo, hi):
                    word[k] |= (np.uint32(how[k]) << shift) if top[k] > real else np.uint32(0)
        if want:
            words[j] = word[:m]
        if track and (mode == LOCAL or (mode == SEMI and (i == n1 or j == n2))):
            # a whole row of ends: its best over the kinds first (vectorised), the cells only where it beats
            # the best so far
            lo, hi, one_u = np.uint64(0), np.uint64(m), np.uint64(1)
            for k in range(lo, hi):
                top[k] = Q[0, jj, k + one_u]
            for t in range(1, 7):
                row = Q[t, jj]
                for k in range(lo, hi):
                    top[k] = max(top[k], row[k + one_u])
            if top[:m].max() <= best[0]:
                continue
        if track and (mode != GLOBAL or (i == n1 and j == n2)):
            # global, and semi-global inside the end faces of i and j: the last cell of the row only
            whole = mode == LOCAL or (mode == SEMI and (i == n1 or j == n2))
            for k in range(0 if whole else n3, m):
                for t in range(7):
                    value = Q[t, jj, k + 1]
                    if value > best[0]:
                        best[0] = value
                        at[0], at[1], at[2], at[3] = i, j, k, t


@nb.njit(**_JIT)
def _sweep(a, tabs, costs, mode, g2, i_from, i_to, n, P, Q, words, track, best, at, keep, pool, offs, rows):
    """Slices i_from .. i_to from ``P`` (slice i_from - 1), cells j <= n[1], k <= n[2] (the whole slices, or the
    walk's rectangle); returns (last slice, the other).

    ``words`` (when it has slices) gets the words of slice i at [i - i_from]; slice ``keep[x]`` (ascending) is
    kept in ``pool`` from byte ``offs[x]`` (``_save``).
    """
    none = np.zeros((0, 0), np.uint32)
    nk = 0
    for i in range(i_from, i_to + 1):
        _slice(a, tabs, costs, mode, g2, i, n, P, Q, words[i - i_from] if words.shape[0] else none, track, best,
               at, rows)
        if nk < keep.shape[0] and keep[nk] == i:
            _save(Q, pool, offs[nk], n[1], n[2])
            nk += 1
        P, Q = Q, P
    return P, Q


@nb.njit(inline="always", **_JIT)
def _values(pool, off, like, n2, n3):
    """The checkpoint at byte ``off`` of ``pool``: seven values of cells j <= n2, k <= n3 (``like``'s type)."""
    size = 7 * (n2 + 1) * (n3 + 1)
    return pool[off:off + size * like.itemsize].view(like.dtype).reshape((7, n2 + 1, n3 + 1))


@nb.njit(**_JIT)
def _save(Q, pool, off, n2, n3):
    """Slice ``Q``'s cells j <= n2, k <= n3 into ``pool`` from byte ``off``: a checkpoint."""
    _values(pool, off, Q, n2, n3)[:, :, :] = Q[:, 1:n2 + 2, 1:n3 + 2]


@nb.njit(**_JIT)
def _load(P, pool, off, jc, kc, n2, n3):
    """Cells j <= n2, k <= n3 of ``P`` from the checkpoint at byte ``off`` of ``pool``, kept of cells j <= jc,
    k <= kc; ``off`` < 0: the slice before the cube (minus infinity, ``P``'s guard)."""
    if off < 0:
        P[:, 1:n2 + 2, 1:n3 + 2] = P[0, 0, 0]
    else:
        P[:, 1:n2 + 2, 1:n3 + 2] = _values(pool, off, P, jc, kc)[:, :n2 + 1, :n3 + 1]


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
    count; runs go to run_op/run_len. ``budget``: bytes of words allowed before the checkpointed walk
    (``_walk_parts``)."""
    n1, n2, n3 = a.shape[0], b.shape[0], c.shape[0]
    n = (n1, n2, n3)
    out[:] = 0
    cells = (n2 + 1) * (n3 + 1)
    full = trace and (n1 + 1) * cells * 4 <= budget
    # the traceback's memory first, untouched until used: where it cannot be had, nothing else was made
    words = np.empty((n1 + 1 if full else 0, n2 + 1, n3 + 1), np.uint32)
    value_bytes = round8(7 * cells * neg.itemsize)  # slices of values (7 cells) kept, blocks of words between
    pool = np.empty(pool_bytes(budget, value_bytes, 4 * cells) if trace and not full else 0, np.uint8)
    tabs = _tables(a, b, c, sc, neg)
    g2 = sc[3] * 2
    P = np.full((7, n2 + 2, n3 + 2), neg[0], neg.dtype)
    Q = np.full((7, n2 + 2, n3 + 2), neg[0], neg.dtype)
    rows = (np.empty(n3 + 1, neg.dtype), np.empty(n3 + 1, np.uint8), np.empty(n3 + 1, np.uint32),
            np.empty(n3 + 1, neg.dtype))
    best = np.full(1, neg[0] if mode == GLOBAL else 0, neg.dtype)
    at = np.full(4, -1, np.int64)
    keep = np.empty(n1 + 1 if trace else 0, np.int64)  # checkpoints of the first sweep
    offs = np.empty(n1 + 1 if trace else 0, np.int64)
    kept = 0
    if trace and not full:
        f, r, blk = plan(n1 + 1, pool.shape[0], value_bytes, 4 * cells)
        kept = marks(-1, n1 + 1, f, r, blk, keep)
        for x in range(kept):
            offs[x] = x * value_bytes
    _sweep(a, tabs, costs, mode, g2, 0, n1, n, P, Q, words, True, best, at, keep[:kept], pool, offs, rows)
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
        nops = _walk_parts(a, tabs, costs, mode, g2, n, P, Q, best, at, ops, pool, keep, offs, kept, rows)
    out[1], out[2], out[3] = at[0], at[1], at[2]
    out[7] = runs_of(ops, nops, run_op, run_len)


@nb.njit(**_JIT)
def _walk_parts(a, tabs, costs, mode, g2, n, P, Q, best, at, ops, pool, ck_at, ck_off, top, rows):
    """The walk back from the column at ``at`` past the budget (``cpu_checkpoint``'s schedule): ``pool``
    holds the first sweep's ``top`` checkpoints (slices ``ck_at``, from bytes ``ck_off``), then each step's;
    every sweep after the first covers the walk's rectangle only. Returns the count of ``ops``."""
    n1 = n[0]
    ck_j = np.full(n1 + 1, n[1], np.int64)  # the rectangle each checkpoint holds
    ck_k = np.full(n1 + 1, n[2], np.int64)
    ck_end = np.empty(n1 + 1, np.int64)  # where each ends in the pool
    step = round8(7 * (n[1] + 1) * (n[2] + 1) * P.itemsize)
    for x in range(top):
        ck_end[x] = ck_off[x] + step
    none = np.empty(0, np.int64)
    nowords = np.empty((0, 0, 0), np.uint32)
    nops = 0
    while True:
        iw, jw, kw = at[0], at[1], at[2]
        while top > 0 and ck_at[top - 1] >= iw:  # the walk is past them
            top -= 1
        p0 = ck_at[top - 1] if top > 0 else -1
        used = ck_end[top - 1] if top > 0 else 0
        _load(P, pool, ck_off[top - 1] if top > 0 else -1, ck_j[top - 1], ck_k[top - 1], jw, kw)
        rect = (n1, jw, kw)
        cells = (jw + 1) * (kw + 1)
        value_bytes = round8(7 * cells * P.itemsize)
        L = iw - p0
        free = pool.shape[0] - used
        count = L  # slices swept with their words
        if L * cells * 4 > free:
            f, r, blk = plan(L, free, value_bytes, 4 * cells)
            new = marks(p0, L, f, r, blk, ck_at[top:])
            for x in range(top, top + new):
                ck_off[x] = used + (x - top) * value_bytes
                ck_end[x] = ck_off[x] + value_bytes
                ck_j[x], ck_k[x] = jw, kw
            if new > 0:  # sweep to the last new checkpoint; the next step starts from it
                _sweep(a, tabs, costs, mode, g2, p0 + 1, ck_at[top + new - 1], rect, P, Q, nowords, False, best,
                       at, ck_at[top:top + new], pool, ck_off[top:top + new], rows)
                top += new
                continue
            count = blk  # no checkpoint: to the last blk slices score only, then their words
            P, Q = _sweep(a, tabs, costs, mode, g2, p0 + 1, iw - count, rect, P, Q, nowords, False, best, at, none,
                          pool, none, rows)
        base = iw - count + 1
        block = pool[used:used + count * cells * 4].view(np.uint32).reshape((count, jw + 1, kw + 1))
        _sweep(a, tabs, costs, mode, g2, base, iw, rect, P, Q, block, False, best, at, none, pool, none, rows)
        nops, done = _walk(block, base, at, ops, nops)
        if done:
            return nops


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
