"""One triplet at a time: the exact 3-D DP of the triplet family, with the checkpointed walk (numba).

The recurrence, modes and tie rules are the README's (section "Triplets"):
sum-of-pairs scoring with linear gaps, seven column kinds
(``results.Column``), one score per cell ``D(i, j, k)``.

Layout: the sweep runs over i (A) one (j, k) slice at a time, each slice
one anti-diagonal j + k after another. Along an anti-diagonal no cell
needs another: all seven moves come from the previous slice or the two
previous diagonals, so one loop takes them all and the compiler vectorises
it (a sweep by rows had the move from the left as a scalar running maximum
after each row; benchmarks/decisions/triplet_cpu_antidiagonals.md,
2026-11-29, compares them). Slices are stored skewed, cell (i, j, k) of
slice i at [J + K, J] with J = j + 1, K = k + 1; row 0 and column 0 of the
unskewed slice (J = 0 or K = 0) are guards of minus infinity, never
written, so every predecessor exists. The slice functions take whole
arrays and unsigned indices (no views, which cost reference counting, nor
negative-index checks) and take every sum back to the cell type at once
(``_as``): numba widens int32 arithmetic to int64, which would halve the
lanes of the vector loop. The score bound (``triplet.INT32_LIMIT``) keeps
these sums, minus infinity included, inside the cell type. The pair score
of B against C is a table made once per triplet, by anti-diagonal; A's
letter picks one row of a profile against C (reversed, to run along a
diagonal) and one against B.

Score only keeps two slices. With traceback, one byte per cell is kept for
the whole cube when it fits the budget (a slice's bytes by anti-diagonal,
``_diagonal_starts``): the low byte of the cell's value where the scoring
allows the walk to find each kind from them (``_walk_values``), else the
column kind that won, or 7 where the alignment starts. Beyond the budget
the traceback stays within it (or a floor of a few slices): the forward
pass keeps checkpoint slices and the walk sweeps again, from them, blocks
of slices with their kinds, only over its own rectangle of (j, k), where
``cpu_checkpoint`` schedules them (``_walk_parts``); the alignment is
the full cube's.
"""

from __future__ import annotations

import numpy as np

from ...config import Mode
from ...jit import nb
from numba.extending import overload  # after .jit, which sets numba up
from ..pairwise.cpu_dp import pair_table
from .cpu_checkpoint import marks, plan, pool_bytes, round8

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
def _skewed(tabs):
    """The pair tables in the sweep's layout: B x C by anti-diagonal (``bcs[J + K, J]`` = ``bc[J, K]``), A's
    letter x against C reversed (``acr[x, n2 + n3 + 2 - K]`` = ``ac[x, K]``), so that both are contiguous
    along a diagonal; A against B as it is."""
    bc, ac, ab = tabs
    n2, n3 = bc.shape[0] - 2, bc.shape[1] - 2
    bcs = np.zeros((n2 + n3 + 3, n2 + 2), bc.dtype)
    for J in range(1, n2 + 2):
        for K in range(1, n3 + 2):
            bcs[J + K, J] = bc[J, K]
    acr = np.zeros((5, n2 + n3 + 2), bc.dtype)
    for x in range(5):
        for K in range(1, n3 + 2):
            acr[x, n2 + n3 + 2 - K] = ac[x, K]
    return bcs, acr, ab


@nb.njit(**_JIT)
def _slice(P, Q, bcs, acr, ab, x, g2, mode, i, vals, starts, n2, n3):
    """Slice ``Q`` (slice i) from ``P`` (slice i - 1), one anti-diagonal after another (score only), its cells
    j <= n2, k <= n3 (the whole slice, or the walk's rectangle: ``cpu_checkpoint``).

    Along an anti-diagonal no cell needs another, so each diagonal's loop
    takes all seven moves and the compiler vectorises it: it runs with
    unsigned indices, so that it carries no negative-index checks, and every
    sum is taken back to the cell type at once (numba widens int32
    arithmetic to int64, which would halve the lanes). The gap cost common
    to six of the seven moves is taken off their maximum once (the move of
    three residues gets it added). Local mode floors every cell at 0 in the
    same loop; the start faces are set after their diagonal (``_faces``).
    ``vals`` (where it has cells): each cell's value's low byte, laid out as
    ``_slice_dirs``'s codes (the walk on values: ``_walk_values``).
    """
    one, two = np.uint64(1), np.uint64(2)
    g = _as(g2, Q)
    low = _as(0 if mode == LOCAL else P[0, 0], Q)  # the floor (the guard's minus infinity: none)
    X, W = np.uint64(x), np.uint64(acr.shape[1])
    for DD in range(2, n2 + n3 + 3):
        lo, hi = max(1, DD - n3 - 1), min(n2 + 1, DD - 1)
        D = np.uint64(DD)
        o = W - D  # acr[x, o + J]: A's letter against C at K = D - J (o >= 0)
        for J in range(np.uint64(lo), np.uint64(hi) + one):
            J1 = J - one
            bc, ac, s = bcs[D, J], acr[X, o + J], ab[X, J]
            m = max(_as(P[D - two, J1] + _as(_as(s + ac, Q) + _as(bc + g, Q), Q), Q), _as(Q[D - two, J1] + bc, Q))
            m = max(m, _as(P[D - one, J] + ac, Q))
            m = max(m, _as(P[D - one, J1] + s, Q))
            m = max(m, max(P[D, J], Q[D - one, J1]))
            Q[D, J] = max(_as(max(m, Q[D - one, J]) - g, Q), low)
        _faces(Q, DD, lo, hi, mode, i, vals, starts[DD - 2] - lo)  # (their codes: overwritten below)
        if vals.shape[0] > 0:
            at = np.uint64(starts[DD - 2]) - np.uint64(lo)
            for J in range(np.uint64(lo), np.uint64(hi) + one):
                vals[at + J] = np.uint8(Q[D, J] & 0xFF)


@nb.njit(**_JIT)
def _slice_dirs(P, Q, bcs, acr, ab, x, g2, mode, i, dirs, starts, n2, n3):
    """As ``_slice``, noting each cell's winning column kind (the first of equal ones in kind order; START
    where the alignment starts) in ``dirs``, anti-diagonal d = j + k at ``starts[d]``, by j along it."""
    one, two = np.uint64(1), np.uint64(2)
    g = _as(g2, Q)
    local = mode == LOCAL
    X, W = np.uint64(x), np.uint64(acr.shape[1])
    for DD in range(2, n2 + n3 + 3):
        lo, hi = max(1, DD - n3 - 1), min(n2 + 1, DD - 1)
        D = np.uint64(DD)
        o = W - D
        at = np.uint64(starts[DD - 2]) - np.uint64(lo)  # dirs[at + J]: cell J of this diagonal
        for J in range(np.uint64(lo), np.uint64(hi) + one):
            J1 = J - one
            bc, ac, s = bcs[D, J], acr[X, o + J], ab[X, J]
            m = _as(P[D - two, J1] + _as(_as(s + ac, Q) + bc, Q), Q)
            d = np.uint8(0)
            t = _as(Q[D - two, J1] + _as(bc - g, Q), Q)
            d = np.uint8(1) if t > m else d
            m = max(m, t)
            t = _as(P[D - one, J] + _as(ac - g, Q), Q)
            d = np.uint8(2) if t > m else d
            m = max(m, t)
            t = _as(P[D - one, J1] + _as(s - g, Q), Q)
            d = np.uint8(3) if t > m else d
            m = max(m, t)
            t = _as(P[D, J] - g, Q)
            d = np.uint8(4) if t > m else d
            m = max(m, t)
            t = _as(Q[D - one, J1] - g, Q)
            d = np.uint8(5) if t > m else d
            m = max(m, t)
            t = _as(Q[D - one, J] - g, Q)
            d = np.uint8(6) if t > m else d
            m = max(m, t)
            start = local & (m <= 0)
            Q[D, J] = _as(0, Q) if start else m
            dirs[at + J] = np.uint8(START) if start else d
        _faces(Q, DD, lo, hi, mode, i, dirs, starts[DD - 2] - lo)


@nb.njit(inline="always", **_JIT)
def _faces(Q, D, lo, hi, mode, i, code, at):
    """The start cells on anti-diagonal ``D`` (cells J = lo..hi, K = D - J) once it is computed: 0, and
    START in ``code[at + J]`` (where ``code`` has cells). Global: the origin (0, 0, 0). Semi-global: the
    start faces i = 0, j = 0 (J = 1) and k = 0 (K = 1)."""
    if mode == GLOBAL:
        if i == 0 and D == 2:
            Q[2, 1] = 0
            if code.shape[0] > 0:
                code[at + 1] = START
    elif mode == SEMI:  # slice 0 whole; else the diagonal's ends, where they lie on a face
        step = 1 if i == 0 else max(hi - lo, 1)
        for J in range(lo, hi + 1, step):
            if i == 0 or J == 1 or J == D - 1:
                Q[D, J] = 0
                if code.shape[0] > 0:
                    code[at + J] = START


@nb.njit(**_JIT)
def _first_in_rows(Q, rows, top):
    """The first cell (j, k) in row-major order of the slice ``Q`` holding ``top``, from ``rows``, its rows'
    largest values (J = j + 1)."""
    J = 1
    while rows[J] != top:
        J += 1
    K = 1
    while Q[J + K, J] != top:
        K += 1
    return J - 1, K - 1


@nb.njit(**_JIT)
def _track(Q, mode, i, n1, n2, n3, best, at, rows):
    """Keep the best allowed end cell of slice i (the first of equal ones in (i, j, k) order).

    Local mode, and semi-global's last slice: every cell, through the rows'
    largest values (``rows``); semi-global elsewhere: the cells k = n3 of
    rows j < n2, then the row j = n2; global: the end cell.
    """
    if mode == LOCAL or (mode == SEMI and i == n1):
        rows[:] = Q[0, 0]
        for D in range(2, n2 + n3 + 3):
            lo, hi = max(1, D - n3 - 1), min(n2 + 1, D - 1)
            for J in range(np.uint64(lo), np.uint64(hi) + np.uint64(1)):
                rows[J] = max(rows[J], Q[D, J])
        top = rows[1:].max()
        if top > best[0]:
            best[0] = top
            j, k = _first_in_rows(Q, rows, top)
            at[0], at[1], at[2] = i, j, k
    elif mode == SEMI:
        for J in range(1, n2 + 1):
            if Q[J + n3 + 1, J] > best[0]:
                best[0] = Q[J + n3 + 1, J]
                at[0], at[1], at[2] = i, J - 1, n3
        J = n2 + 1
        for K in range(1, n3 + 2):
            if Q[J + K, J] > best[0]:
                best[0] = Q[J + K, J]
                at[0], at[1], at[2] = i, n2, K - 1
    elif i == n1:
        best[0] = Q[n2 + n3 + 2, n2 + 1]
        at[0], at[1], at[2] = n1, n2, n3


@nb.njit(**_JIT)
def _diagonal_starts(n2, n3):
    """Where each anti-diagonal d = j + k of a slice's direction bytes begins (its cells by j), and the total."""
    starts = np.zeros(n2 + n3 + 2, np.int64)
    for d in range(n2 + n3 + 1):
        starts[d + 1] = starts[d] + min(n2, d) - max(0, d - n3) + 1
    return starts


@nb.njit(**_JIT)
def _sweep(a, tabs, mode, g2, i_from, i_to, n2, n3, P, Q, dirs, values, track, best, at, keep, pool, offs):
    """Slices i_from .. i_to from ``P`` (slice i_from - 1), cells j <= n2, k <= n3; returns (last slice, the
    other).

    ``dirs`` (when it has slices) receives the direction bytes of slice i at
    [i - i_from] (``_slice_dirs``), or with ``values`` the low bytes of its
    values (``_slice``); ``track``: keep the best end cell (whole slices);
    slice ``keep[x]`` (ascending) is kept in ``pool`` from byte ``offs[x]``
    (``_save``).
    """
    bcs, acr, ab = tabs
    n1 = a.shape[0]
    rows = np.empty(n2 + 2, P.dtype)
    starts = _diagonal_starts(n2, n3)
    none = np.zeros(0, np.uint8)
    nk = 0
    for i in range(i_from, i_to + 1):
        x = min(a[i - 1], 4) if i > 0 else 4
        if dirs.shape[0] > 0 and not values:
            _slice_dirs(P, Q, bcs, acr, ab, x, g2, mode, i, dirs[i - i_from], starts, n2, n3)
        else:
            _slice(P, Q, bcs, acr, ab, x, g2, mode, i, dirs[i - i_from] if dirs.shape[0] > 0 else none, starts,
                   n2, n3)
        if track:
            _track(Q, mode, i, n1, n2, n3, best, at, rows)
        if nk < keep.shape[0] and keep[nk] == i:
            _save(Q, pool, offs[nk], n2, n3, starts)
            nk += 1
        P, Q = Q, P
    return P, Q


@nb.njit(**_JIT)
def _save(Q, pool, off, n2, n3, starts):
    """Slice ``Q``'s cells j <= n2, k <= n3 into ``pool`` from byte ``off``, by anti-diagonal as its direction
    bytes (``_diagonal_starts(n2, n3)``): a checkpoint."""
    ck = pool[off:off + (n2 + 1) * (n3 + 1) * Q.itemsize].view(Q.dtype)
    for D in range(2, n2 + n3 + 3):
        lo, hi = max(1, D - n3 - 1), min(n2 + 1, D - 1)
        at = starts[D - 2] - lo
        ck[at + lo:at + hi + 1] = Q[D, lo:hi + 1]


@nb.njit(**_JIT)
def _load(P, pool, off, jc, kc, n2, n3):
    """Cells j <= n2, k <= n3 of ``P`` from the checkpoint at byte ``off`` of ``pool``, kept of cells j <= jc,
    k <= kc (jc >= n2, kc >= n3); ``off`` < 0: the slice before the cube (minus infinity, ``P``'s guard)."""
    if off < 0:
        for D in range(2, n2 + n3 + 3):
            lo, hi = max(1, D - n3 - 1), min(n2 + 1, D - 1)
            P[D, lo:hi + 1] = P[0, 0]
        return
    ck = pool[off:off + (jc + 1) * (kc + 1) * P.itemsize].view(P.dtype)
    starts = _diagonal_starts(jc, kc)
    for D in range(2, n2 + n3 + 3):
        lo, hi = max(1, D - n3 - 1), min(n2 + 1, D - 1)
        at = starts[D - 2] - max(1, D - kc - 1)
        P[D, lo:hi + 1] = ck[at + lo:at + hi + 1]


@nb.njit(inline="always", **_JIT)
def _cell(starts, n3, j, k):
    """Cell (j, k)'s place among a slice's direction bytes (anti-diagonal j + k at ``starts[j + k]``, by j)."""
    return starts[j + k] + j - max(0, j + k - n3)


@nb.njit(inline="always", **_JIT)
def _before(d, i, j, k):
    """The cell that column kind ``d`` comes from: M takes a residue of each sequence, a / b / c of two (the
    gap in A / B / C), A / B / C of one."""
    return (i - (1 if d == 0 or d == 2 or d == 3 or d == 4 else 0),
            j - (1 if d == 0 or d == 1 or d == 3 or d == 5 else 0),
            k - (1 if d == 0 or d == 1 or d == 2 or d == 6 else 0))


@nb.njit(**_JIT)
def _walk(dirs, base, at, ops, nops, starts, n3):
    """Walk back from cell ``at`` through the slices base.. of ``dirs`` (``_slice_dirs``'s layout: anti-diagonal
    d = j + k at ``starts[d]``); returns (ops, done)."""
    i, j, k = at[0], at[1], at[2]
    while i >= base:
        d = dirs[i - base, _cell(starts, n3, j, k)]
        if d == START:
            at[0], at[1], at[2] = i, j, k
            return nops, True
        ops[nops] = d
        nops += 1
        i, j, k = _before(d, i, j, k)
    at[0], at[1], at[2] = i, j, k
    return nops, False


@nb.njit(**_JIT)
def _walk_values(vals, at, x, a, b, c, sc, mode, ops, starts):
    """Walk back from end cell ``at`` of value ``x`` through the low bytes of every slice's values (``_slice``'s
    ``vals``); returns the count of ``ops``.

    At each cell the kind is the first in tie order whose neighbour's byte is
    that of x minus the kind's column score, and x becomes that neighbour's
    value: exact while no candidate falls 256 or more below its cell
    (``Scoring.triplet_value_drop``). The alignment starts at the origin
    (global), on a start face (semi-global) or at a cell of value 0 (local).
    """
    S = pair_table(sc, np.zeros(1, np.int64))
    g2 = 2 * np.int64(sc[3])
    n3 = c.shape[0]
    i, j, k = at[0], at[1], at[2]
    nops = 0
    while not ((mode == GLOBAL and i == 0 and j == 0 and k == 0) or (mode == SEMI and (i == 0 or j == 0 or k == 0))
               or (mode == LOCAL and x == 0)):
        ai = min(a[i - 1], 4) if i > 0 else 4  # (4: a kind that takes the letter needs i > 0, as for j, k)
        bj = min(b[j - 1], 4) if j > 0 else 4
        ck = min(c[k - 1], 4) if k > 0 else 4
        for kind in range(7):
            pi, pj, pk = _before(kind, i, j, k)
            if pi < 0 or pj < 0 or pk < 0:
                continue
            if kind == 0:
                score = np.int64(S[ai, bj]) + S[ai, ck] + S[bj, ck]
            elif kind == 1:
                score = S[bj, ck] - g2
            elif kind == 2:
                score = S[ai, ck] - g2
            elif kind == 3:
                score = S[ai, bj] - g2
            else:
                score = -g2
            if vals[pi, _cell(starts, n3, pj, pk)] == (x - score) & 0xFF:
                ops[nops] = kind
                nops += 1
                i, j, k, x = pi, pj, pk, x - score
                break
    at[0], at[1], at[2] = i, j, k
    return nops


@nb.njit(**_JIT)
def align_triplet(a, b, c, mode, sc, neg, values, trace, budget, run_op, run_len, out):
    """Align one triplet. ``out``: score, start (3), end (3), run count; runs go to run_op/run_len.

    ``neg``: a one-element array holding minus infinity in the cell dtype;
    ``values``: the scoring lets the walk take the kinds from the values' low
    bytes (``Scoring.triplet_value_drop``), kept instead of the kinds where
    the whole cube fits; ``budget``: direction bytes allowed before the
    checkpointed walk (which keeps the kinds, ``_walk_parts``).
    """
    n1, n2, n3 = a.shape[0], b.shape[0], c.shape[0]
    cells = (n2 + 1) * (n3 + 1)  # a slice's direction bytes
    full = trace and (n1 + 1) * cells <= budget
    # the traceback's memory first, untouched until used: where it cannot be had, nothing else was made
    dirs = np.empty((n1 + 1 if full else 0, cells), np.uint8)  # every direction byte at once
    value_bytes = round8(cells * neg.itemsize)
    pool = np.empty(pool_bytes(budget, value_bytes, cells) if trace and not full else 0, np.uint8)
    tabs = _skewed(_tables(a, b, c, sc, neg))
    P = np.full((n2 + n3 + 3, n2 + 2), neg[0], neg.dtype)
    Q = np.full((n2 + n3 + 3, n2 + 2), neg[0], neg.dtype)
    best = np.full(1, neg[0], neg.dtype)
    at = np.zeros(3, np.int64)
    keep = np.empty(n1 + 1 if trace else 0, np.int64)  # checkpoints of the first sweep
    offs = np.empty(n1 + 1 if trace else 0, np.int64)
    kept = 0
    if trace and not full:
        f, r, blk = plan(n1 + 1, pool.shape[0], value_bytes, cells)
        kept = marks(-1, n1 + 1, f, r, blk, keep)
        for x in range(kept):
            offs[x] = x * value_bytes
    _sweep(a, tabs, mode, sc[3] * 2, 0, n1, n2, n3, P, Q, dirs, values, True, best, at, keep[:kept], pool, offs)
    out[0] = best[0]
    out[4], out[5], out[6] = at[0], at[1], at[2]
    out[7] = 0
    if not trace:
        return
    ops = np.empty(n1 + n2 + n3 + 1, np.uint8)
    nops = 0
    starts = _diagonal_starts(n2, n3)
    if full and values:
        nops = _walk_values(dirs, at, best[0], a, b, c, sc, mode, ops, starts)
    elif full:
        nops, _ = _walk(dirs, 0, at, ops, nops, starts, n3)
    else:
        nops = _walk_parts(a, tabs, mode, sc[3] * 2, P, Q, best, at, ops, pool, keep, offs, kept)
    out[1], out[2], out[3] = at[0], at[1], at[2]
    out[7] = runs_of(ops, nops, run_op, run_len)


@nb.njit(**_JIT)
def _walk_parts(a, tabs, mode, g2, P, Q, best, at, ops, pool, ck_at, ck_off, top):
    """The walk back from end cell ``at`` past the budget (``cpu_checkpoint``'s schedule): ``pool`` holds
    the first sweep's ``top`` checkpoints (slices ``ck_at``, from bytes ``ck_off``), then each step's; every
    sweep after the first covers the walk's rectangle only. Returns the count of ``ops``."""
    n1 = a.shape[0]
    ck_j = np.full(n1 + 1, P.shape[1] - 2, np.int64)  # the rectangle each checkpoint holds
    ck_k = np.full(n1 + 1, P.shape[0] - P.shape[1] - 1, np.int64)
    ck_end = np.empty(n1 + 1, np.int64)  # where each ends in the pool
    step = round8((ck_j[0] + 1) * (ck_k[0] + 1) * P.itemsize)
    for x in range(top):
        ck_end[x] = ck_off[x] + step
    none = np.empty(0, np.int64)
    nops = 0
    while True:
        iw, jw, kw = at[0], at[1], at[2]
        while top > 0 and ck_at[top - 1] >= iw:  # the walk is past them
            top -= 1
        p0 = ck_at[top - 1] if top > 0 else -1
        used = ck_end[top - 1] if top > 0 else 0
        _load(P, pool, ck_off[top - 1] if top > 0 else -1, ck_j[top - 1], ck_k[top - 1], jw, kw)
        cells = (jw + 1) * (kw + 1)
        value_bytes = round8(cells * P.itemsize)
        L = iw - p0
        free = pool.shape[0] - used
        count = L  # slices swept with their codes
        if L * cells > free:
            f, r, blk = plan(L, free, value_bytes, cells)
            new = marks(p0, L, f, r, blk, ck_at[top:])
            for x in range(top, top + new):
                ck_off[x] = used + (x - top) * value_bytes
                ck_end[x] = ck_off[x] + value_bytes
                ck_j[x], ck_k[x] = jw, kw
            if new > 0:  # sweep to the last new checkpoint; the next step starts from it
                _sweep(a, tabs, mode, g2, p0 + 1, ck_at[top + new - 1], jw, kw, P, Q, np.empty((0, 0), np.uint8),
                       False, False, best, at, ck_at[top:top + new], pool, ck_off[top:top + new])
                top += new
                continue
            count = blk  # no checkpoint: to the last blk slices score only, then their codes
            P, Q = _sweep(a, tabs, mode, g2, p0 + 1, iw - count, jw, kw, P, Q, np.empty((0, 0), np.uint8), False,
                          False, best, at, none, pool, none)
        base = iw - count + 1
        block = pool[used:used + count * cells].reshape((count, cells))
        _sweep(a, tabs, mode, g2, base, iw, jw, kw, P, Q, block, False, False, best, at, none, pool, none)
        nops, done = _walk(block, base, at, ops, nops, _diagonal_starts(jw, kw), kw)
        if done:
            return nops


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
def align_each(codes_a, off_a, codes_b, off_b, codes_c, off_c, order, mode, sc, neg, values, trace, budget,
               run_off, run_op, run_len, res):
    """Align the triplets ``order`` one by one (threads across triplets); ``res[t]`` as ``align_triplet``'s ``out``."""
    for n in nb.prange(order.shape[0]):
        t = order[n]
        r0 = run_off[t] if trace else 0
        align_triplet(codes_a[off_a[t]:off_a[t + 1]], codes_b[off_b[t]:off_b[t + 1]],
                      codes_c[off_c[t]:off_c[t + 1]], mode, sc, neg, values, trace, budget,
                      run_op[r0:], run_len[r0:], res[t])
