"""Row sweep and traceback of the Gotoh DP, vectorised across pairs (numba).

This is the reference recurrence of seqalign: every backend must give exactly
what these functions give. A group holds ``L`` pairs side by side ("lanes");
the innermost loop runs across the lanes, so that LLVM turns it into SIMD code
(inter-sequence vectorisation). Scores are held in float32 (float64 for pairs
whose score bound exceeds 2**24): every value is an integer well inside the
exactly representable range, so the arithmetic is exact.

Conventions (i over the query, j over the target, both 1-based in the matrix):

* ``H[i][j]`` best score of an alignment ending at (i, j);
* ``E`` horizontal gap state (``D``, base only in the target), ``F`` vertical
  gap state (``I``, base only in the query);
* a gap of length k costs ``go + k*ge``.

Tie rule (documented in the README, shared by every backend):

* H takes the diagonal first, then ``I`` (F), then ``D`` (E); in local mode a
  cell whose best is 0 ends the alignment (nothing zero-scoring is kept);
* a gap state prefers opening over extending on a tie;
* the end cell is the best allowed end cell; ties go to the smallest query
  end, then the smallest target end.

Direction byte per cell: bits 0-1 the source of H (0 diagonal, 1 I, 2 D,
3 stop), bit 2 "D extends", bit 3 "I extends".
"""

from __future__ import annotations

import numpy as np

from ...config import Mode
from ...jit import nb

#: the mode codes as compile-time constants
GLOBAL, SEMI, GLOCAL, LOCAL = (int(m) for m in Mode)
OP_EQ, OP_X, OP_I, OP_D = 0, 1, 2, 3
ST_H, ST_I, ST_D = 0, 1, 2
N_CODE = 4
#: ``finish_ops``' ``eq_below`` where two equal codes always align as = (proteins)
EQ_ALL = 255

_JIT = dict(nogil=True, cache=True, boundscheck=False)


@nb.njit(**_JIT)
def pair_table(sc, neg):
    """Scores of two codes (0..4) in the cell dtype (``neg``'s): +match, -mismatch, -n_penalty where either is N.

    The substitution table of the triplet and graph engines (scoring list ``sc`` as ``Scoring.as_list``).
    """
    S = np.empty((5, 5), neg.dtype)
    for x in range(5):
        for y in range(5):
            S[x, y] = -sc[4] if (x > 3 or y > 3) else (sc[0] if x == y else -sc[1])
    return S


@nb.njit(**_JIT)
def neg_inf(dt_sample):
    """Minus infinity in the score dtype (float lanes: below every score)."""
    return dt_sample.dtype.type(-np.inf)


@nb.njit(**_JIT)
def left_value(mode, i, go, ge):
    """H[i][0]: leading query gap, free in semi-global and local modes."""
    if i == 0 or mode == SEMI or mode == LOCAL:
        return 0.0
    return -(go + i * ge)


@nb.njit(**_JIT)
def top_value(mode, j, go, ge):
    """H[0][j]: leading target gap, charged in global mode only."""
    if j == 0 or mode != GLOBAL:
        return 0.0
    return -(go + j * ge)


@nb.njit(**_JIT)
def init_rows(mode, sc, H, F):
    """Row 0 of H and F for every lane."""
    go, ge = sc[2], sc[3]
    ninf = neg_inf(H)
    n1, L = H.shape
    for j in range(n1):
        v = top_value(mode, j, go, ge)
        for l in range(L):
            H[j, l] = v
            F[j, l] = ninf


@nb.njit(**_JIT)
def track_row(mode, i, H, qlen, tlen, best, bi, bj):
    """Update the end cell of each lane with the allowed end cells of row i.

    Local mode tracks its end cell inside the sweep and is not handled here.
    """
    L = H.shape[1]
    for l in range(L):
        m = qlen[l]
        n = tlen[l]
        if i > m:
            continue
        if mode == GLOBAL:
            if i == m:
                best[l] = H[n, l]
                bi[l] = i
                bj[l] = n
        elif i == m and (mode == GLOCAL or mode == SEMI):
            for j in range(n + 1):
                if H[j, l] > best[l]:
                    best[l] = H[j, l]
                    bi[l] = i
                    bj[l] = j
        elif mode == SEMI:
            if H[n, l] > best[l]:
                best[l] = H[n, l]
                bi[l] = i
                bj[l] = n


@nb.njit(**_JIT)
def sweep(q, t, qlen, tlen, mode, sc, S, i_from, i_to, H, F, dirs, best, bi, bj):
    """Compute rows i_from+1 .. i_to of a group of lanes.

    q: (M, L) uint8 codes, t: (N, L) uint8 codes (4 = N; padding past a lane's
    length is never read into that lane's result). S: the substitution array
    (codes x codes, H's dtype) of a matrix scoring, or None (match/mismatch of ``sc``). H, F: (N+1, L) holding row
    i_from on entry and row i_to on exit. dirs: (i_to-i_from, N+1, L) uint8
    direction bytes, or None for score only. best/bi/bj: (L,) running end cell
    of each lane.
    """
    L = H.shape[1]
    local = mode == LOCAL
    hd = np.empty(L, H.dtype)
    hl = np.empty(L, H.dtype)
    el = np.empty(L, H.dtype)
    jlim = np.empty(L, H.dtype)
    rmax = np.empty(L, H.dtype)
    rarg = np.empty(L, H.dtype)
    ninf = neg_inf(H)
    for i in range(i_from + 1, i_to + 1):
        lv = H.dtype.type(left_value(mode, i, sc[2], sc[3]))
        for l in range(L):
            hd[l] = H[0, l]
            H[0, l] = lv
            hl[l] = lv
            el[l] = ninf
            jlim[l] = tlen[l] if i <= qlen[l] else -1
            rmax[l] = 0.0
            rarg[l] = 0.0
        if dirs is None:
            if local:
                _row(q[i - 1], t, sc, S, H, F, hd, hl, el, None, rmax, rarg, jlim, True)
            else:
                _row(q[i - 1], t, sc, S, H, F, hd, hl, el, None, None, None, jlim, False)
        else:
            if local:
                _row(q[i - 1], t, sc, S, H, F, hd, hl, el, dirs[i - i_from - 1], rmax, rarg, jlim, True)
            else:
                _row(q[i - 1], t, sc, S, H, F, hd, hl, el, dirs[i - i_from - 1], None, None, jlim, False)
        if local:
            for l in range(L):
                if rmax[l] > best[l]:
                    best[l] = rmax[l]
                    bi[l] = i
                    bj[l] = np.int64(rarg[l])
        else:
            track_row(mode, i, H, qlen, tlen, best, bi, bj)


@nb.njit(**_JIT)
def _row(qi, t, sc, S, H, F, hd, hl, el, drow, rmax, rarg, jlim, local):
    """One DP row for all lanes. drow None: no directions; rmax None: no local max; S None: no matrix."""
    dt = H.dtype.type
    mtc = dt(sc[0])
    mis = dt(-sc[1])
    goe = dt(sc[2] + sc[3])
    ge = dt(sc[3])
    npn = dt(-sc[4])
    floor = dt(0.0) if local else neg_inf(H)
    zero = dt(0.0)
    L = H.shape[1]
    for j in range(1, t.shape[0] + 1):
        tj = t[j - 1]
        Hj = H[j]
        Fj = F[j]
        fj = dt(j)
        for l in range(L):
            a = qi[l]
            b = tj[l]
            if S is None:
                s = mtc if a == b else mis
                s = npn if (a | b) > 3 else s
            else:
                s = S[a, b]
            diag = hd[l] + s
            hup = Hj[l]
            f_open = hup - goe
            f_ext = Fj[l] - ge
            f = max(f_open, f_ext)
            e_open = hl[l] - goe
            e_ext = el[l] - ge
            e = max(e_open, e_ext)
            h = max(max(diag, f), max(e, floor))
            if drow is not None:
                src = zero if h == diag else (dt(1.0) if h == f else dt(2.0))
                if local:
                    src = dt(3.0) if h == zero else src
                src += dt(4.0) if e_ext > e_open else zero
                src += dt(8.0) if f_ext > f_open else zero
                drow[j, l] = np.uint8(src)
            if rmax is not None:
                rm = rmax[l]
                better = (h > rm) & (fj <= jlim[l])
                rmax[l] = h if better else rm
                rarg[l] = fj if better else rarg[l]
            hd[l] = hup
            Hj[l] = h
            Fj[l] = f
            hl[l] = h
            el[l] = e


@nb.njit(**_JIT)
def border_ops(mode, i, j, ops, nops):
    """A walk that reached row 0 or column 0 at (i, j): the leading gaps the mode charges (the query's in global
    and glocal mode, the target's in global mode) appended to ``ops``; returns (i, j, nops) at the start."""
    if j == 0 and i > 0 and (mode == GLOBAL or mode == GLOCAL):
        for _ in range(i):
            ops[nops] = OP_I
            nops += 1
        i = 0
    elif i == 0 and j > 0 and mode == GLOBAL:
        for _ in range(j):
            ops[nops] = OP_D
            nops += 1
        j = 0
    return i, j, nops


@nb.njit(**_JIT)
def trace(dirs, l, row_off, mode, i, j, state, stop_row, ops, nops):
    """Follow direction bytes from (i, j, state) towards the start.

    dirs holds rows row_off+1 .. of the matrix. Ops are appended to ``ops`` in
    reverse order. Returns (i, j, state, nops, done); not done means the walk
    reached ``stop_row`` and needs the rows above it.
    """
    while True:
        if i == 0 or j == 0:
            i, j, nops = border_ops(mode, i, j, ops, nops)
            return i, j, state, nops, True
        if i <= stop_row:
            return i, j, state, nops, False
        d = dirs[i - row_off - 1, j, l]
        if state == ST_H:
            src = d & 3
            if src == 3:
                return i, j, state, nops, True
            if src == 0:
                ops[nops] = 255  # placeholder: = or X, decided by the caller
                nops += 1
                i -= 1
                j -= 1
            elif src == 1:
                state = ST_I
            else:
                state = ST_D
        elif state == ST_I:
            ops[nops] = OP_I
            nops += 1
            state = ST_I if (d & 8) else ST_H
            i -= 1
        else:
            ops[nops] = OP_D
            nops += 1
            state = ST_D if (d & 4) else ST_H
            j -= 1


@nb.njit(**_JIT)
def finish_ops(ops, nops, q, t, qs, ts, run_op, run_len, stats, eq_below):
    """Turn reversed ops into forward runs; resolve diagonal ops to = or X.

    q, t: 1-D codes of the pair; (qs, ts) the start of the alignment; two equal
    codes below ``eq_below`` are ``=`` (DNA: ``N_CODE``, so that N against N is X;
    proteins: every code, ``EQ_ALL``). Writes
    runs into run_op/run_len and returns their count. stats receives
    (matches, mismatches, inserted bases, deleted bases).
    """
    nr = 0
    qi = qs
    tj = ts
    nm = 0
    nx = 0
    ni = 0
    nd = 0
    for k in range(nops - 1, -1, -1):
        op = ops[k]
        if op == 255:
            a = q[qi]
            b = t[tj]
            op = OP_EQ if (a == b and a < eq_below) else OP_X
            qi += 1
            tj += 1
            if op == OP_EQ:
                nm += 1
            else:
                nx += 1
        elif op == OP_I:
            qi += 1
            ni += 1
        else:
            tj += 1
            nd += 1
        if nr > 0 and run_op[nr - 1] == op:
            run_len[nr - 1] += 1
        else:
            run_op[nr] = op
            run_len[nr] = 1
            nr += 1
    stats[0] = nm
    stats[1] = nx
    stats[2] = ni
    stats[3] = nd
    return nr
