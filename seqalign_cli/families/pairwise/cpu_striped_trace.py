"""Alignments with traceback of a substitution matrix, through the striped vectors (``cpu_striped``).

The forward pass is the score pass's (``cpu_striped._score_ends`` in local mode,
``cpu_striped._score_bordered`` in the others), with every column's H kept (a
``(n + 1, seg, W)`` store in the lanes' type: 2 or 4 bytes a cell) instead
of two columns taking turns; its end cell is the tie rule's. The walk
back (``walk``) reads only those H values and the substitution array and
takes the engines' tie rule (README, Ties), which the lane groups' direction
bytes (``cpu_dp.trace``) encode:

* at a cell of value v: the alignment's start where v is 0 in local mode;
  else the diagonal where H[i-1][j-1] + S[q_i][t_j] = v; else a gap in the
  target (``I``) where some H[i-k][j] - goe - (k-1)*ge = v, the smallest such
  k (a gap prefers opening to extending, step by step); else a gap in the
  query (``D``), the same along the row;
* the borders as ``cpu_dp.trace``: leading gaps in global (both) and glocal
  (the query's) mode, a free start elsewhere.

A gap's search stops where no H above (or left) could still reach v (no H
passes the best end value in local mode), so the walk costs about the
alignment's length plus its gaps' search; the forward pass about twice the
score pass (the store's writes). The ops then become CIGAR runs and counts
through ``cpu_dp.finish_ops``, as the lane groups' do.
"""

from __future__ import annotations

import numpy as np

from ...jit import nb
from . import cpu_striped as striped
from .cpu_dp import OP_D, OP_I, border_ops, finish_ops
from .cpu_striped import GLOBAL, LOCAL, SEMI_GLOBAL, VEC_BYTES

_JIT = dict(nogil=True, cache=True, boundscheck=False)


@nb.njit(**_JIT)
def _h(H, mode, go, ge, i, j):
    """H[i][j] of the DP (1-based rows and columns; row 0 and column 0 the mode's borders) from the store."""
    if i == 0:
        return np.int64(0) if j == 0 or mode != GLOBAL else -(go + j * ge)
    if j == 0:
        return np.int64(0) if mode == SEMI_GLOBAL or mode == LOCAL else -(go + i * ge)
    seg = H.shape[1]
    return np.int64(H[j, (i - 1) % seg, (i - 1) // seg])


@nb.njit(**_JIT)
def walk(H, S, q, t, mode, go, ge, top, i, j, ops):
    """Walk back from the end cell (i, j) (1-based; (0, 0): an empty alignment) over the store ``H``; the ops
    (``ops``: 255 for a diagonal, resolved to = or X by ``cpu_dp.finish_ops``; ``OP_I``, ``OP_D``) in reverse
    order. ``top``: no H exceeds it (a gap's search stops there). Returns (start row, start column, ops)."""
    n = 0
    while True:
        if i == 0 or j == 0:  # the borders: leading gaps where the mode charges them
            return border_ops(mode, i, j, ops, n)
        v = _h(H, mode, go, ge, i, j)
        if mode == LOCAL and v == 0:
            return i, j, n
        if _h(H, mode, go, ge, i - 1, j - 1) + S[q[i - 1], t[j - 1]] == v:
            ops[n] = 255
            n += 1
            i -= 1
            j -= 1
            continue
        k = _gap(H, mode, go, ge, top, v, i, j, True)
        if k > 0:
            for _ in range(k):
                ops[n] = OP_I
                n += 1
            i -= k
            continue
        k = _gap(H, mode, go, ge, top, v, i, j, False)
        if k == 0:
            return -1, -1, n  # no move reaches v: the store is not the recurrence's (an internal error)
        for _ in range(k):
            ops[n] = OP_D
            n += 1
        j -= k


@nb.njit(**_JIT)
def _gap(H, mode, go, ge, top, v, i, j, down):
    """The smallest k with H[i-k][j] - goe - (k-1)*ge == v (``down``: a gap in the target; else H[i][j-k]
    along the row: a gap in the query), or 0 where none is."""
    need = v + go + ge
    last = i if down else j
    for k in range(1, last + 1):
        if need > top:
            return 0
        h = _h(H, mode, go, ge, i - k, j) if down else _h(H, mode, go, ge, i, j - k)
        if h == need:
            return k
        need += ge
    return 0


@nb.njit(**_JIT)
def _align(S, q, t, go, ge, mode, ops):
    """(score, start row, start column, end row, end column, ops) of one pair (its walk's ops in ``ops``; a start
    row of -1: the walk found no move)."""
    W = VEC_BYTES // S.itemsize
    m, n = q.shape[0], t.shape[0]
    P = striped.profile(q, S, W)
    H = np.empty((n + 1, P.shape[1], W), S.dtype)
    work = np.empty((3, P.shape[1], W), S.dtype)
    state = np.empty(2 * W, S.dtype)
    if mode == LOCAL:
        best, bi, bj = striped._score_ends(P, m, t, np.int32(go + ge), np.int32(ge), H, work, state)
        top = best
    else:
        best, bi, bj = striped._score_bordered(P, m, t, go, ge, mode, H, work[0], state)
        top = max(np.int64(H.max()), np.int64(0))  # the borders: 0 or below
    i, j, nops = walk(H, S, q, t, mode, go, ge, top, bi, bj, ops)
    return best, i, j, bi, bj, nops


@nb.njit(parallel=True, **_JIT)
def pair_traces(S, qcodes, qoff, tcodes, toff, idx, go, ge, mode, eq_below, score, qs, qe, ts, te, run_off, nruns,
                run_op, run_len, stats):
    """Every pair p of ``idx`` aligned with traceback in ``mode`` (``config.Mode``'s code), in the lanes of S's
    type (``_align``), its CIGAR runs (at ``run_off[p]``) and counts (``stats[p]``); threads across the pairs."""
    for k in nb.prange(idx.shape[0]):
        p = idx[k]
        q = qcodes[qoff[p]:qoff[p + 1]]
        t = tcodes[toff[p]:toff[p + 1]]
        ops = np.empty(q.shape[0] + t.shape[0] + 1, np.uint8)
        score[p], i, j, qe[p], te[p], nops = _align(S, q, t, go, ge, mode, ops)
        if i < 0:
            nruns[p] = -1  # the caller raises
            continue
        qs[p], ts[p] = i, j
        st = np.zeros(4, np.int64)
        r0 = run_off[p]
        nruns[p] = finish_ops(ops, nops, q, t, i, j, run_op[r0:], run_len[r0:], st, eq_below)
        for c in range(4):
            stats[p, c] = st[c]


def store_bytes(qlen: np.ndarray, tlen: np.ndarray, itemsize: int) -> np.ndarray:
    """The bytes of each pair's store of columns: (n + 1) columns of the query's segments in whole vectors."""
    W = VEC_BYTES // itemsize
    return (tlen + 1) * (-(-qlen // W) * W) * itemsize


def align_traces(batch, S: np.ndarray, gap_open: int, gap_extend: int, subset: np.ndarray, out, mode: int,
                 eq_below: int, budget: int) -> np.ndarray:
    """Alignments with traceback of the pairs ``subset`` of a ``PairBatch`` into ``out`` (an ``Alignments``),
    where int16 or int32 lanes hold the pair exactly (``cpu_striped.pair_lanes``) and its store of columns is
    within ``budget`` bytes; returns the pairs of ``subset`` left to the other routes."""
    qlen, tlen = batch.qlen.astype(np.int64)[subset], batch.tlen.astype(np.int64)[subset]
    narrow, wide = striped.pair_lanes(S, qlen, tlen, mode, gap_open, gap_extend)
    narrow &= store_bytes(qlen, tlen, 2) <= budget
    wide &= store_bytes(qlen, tlen, 4) <= budget
    args = (np.require(batch.q_codes, np.uint8), np.require(batch.q_off, np.int64, "CW"),
            np.require(batch.t_codes, np.uint8), np.require(batch.t_off, np.int64, "CW"))
    runs = out.cigar
    with nb.parallel_chunksize(1):
        for sel, dtype in ((narrow, np.int16), (wide, np.int32)):
            if sel.any():
                pair_traces(S.astype(dtype), *args, np.ascontiguousarray(subset[sel], np.int64), np.int64(gap_open),
                            np.int64(gap_extend), np.int64(mode), eq_below, out.score, out.qstart, out.qend,
                            out.tstart, out.tend, runs.off, runs.count, runs.op, runs.length, out.stats)
    done = subset[narrow | wide]
    if len(done) and runs.count[done].min() < 0:
        bad = int(done[np.argmin(runs.count[done])])
        raise RuntimeError(f"internal error: the striped traceback of pair {bad} found no move")
    return subset[~narrow & ~wide]
