"""Pairwise alignment on the CPU (the reference engine): ``CpuPairwise`` and its numba kernels.

``CpuPairwise.align`` routes each pair: lane groups of float32 lanes, of
float64 lanes where scores could pass 2**24, and the checkpointed route
(one pair at a time, threads across pairs) where a traceback matrix would
pass the budget. Long pairs (``cpu_long_pair.routed``) go through ``cpu_long_pair``,
vectorised inside the pair.

``align_groups`` runs every group of a batch (numba, threads over groups, the
largest first, each thread taking the next group when it is free):
forward sweep, end cell, and, when asked, a full-matrix traceback. Pairs too
large for a traceback matrix go through ``align_long``: the forward sweep saves
H and F every ``block`` rows (checkpoints); the traceback then recomputes one
block at a time, right-to-left and bottom-up, and follows exactly the same
direction bytes a full matrix would hold. The CIGAR is therefore identical to
the full-matrix one, with O(N * sqrt(M)) memory.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...config import AlignConfig
from ...errors import UsageError
from ...protocols import CpuEngine
from .batch import PairBatch, length_order, pack_groups
from .results import Alignments

from ...jit import nb, thread_count
from . import cpu_long_pair as long_pair
from .cpu_dp import EQ_ALL, GLOBAL, GLOCAL, LOCAL, N_CODE, ST_H, finish_ops, init_rows, neg_inf, sweep, trace, track_row

_JIT = dict(nogil=True, cache=True, boundscheck=False)


@nb.njit(**_JIT)
def _start_best(mode, best, bi, bj):
    ninf = neg_inf(best)
    for l in range(best.shape[0]):
        best[l] = 0.0 if mode == LOCAL else ninf
        bi[l] = 0
        bj[l] = 0


@nb.njit(**_JIT)
def _fixed_start(mode, bi, bj, qs_out, ts_out, p):
    """Score only: the start where the mode fixes it, -1 where it is free."""
    if mode == GLOBAL:
        qs_out[p] = 0
        ts_out[p] = 0
    elif mode == GLOCAL:
        qs_out[p] = 0
        ts_out[p] = -1
    else:
        qs_out[p] = -1
        ts_out[p] = -1


@nb.njit(parallel=True, **_JIT)
def align_groups(qbuf, qoff, gM, tbuf, toff, gN, qlen, tlen, index, bounds, mode, sc, S, eq_below, want_trace,
                 score, qs, qe, ts, te, run_off, nruns, run_op, run_len, stats):
    """Align every group of a packed batch (see batching.Groups for the layout).

    qlen/tlen/index: lengths and pair index of each slot; group g has slots
    bounds[g] .. bounds[g+1]-1. Outputs are indexed by pair index; run_off
    gives each pair's place in run_op/run_len. S, eq_below: the substitution
    array or None, and which equal codes are = (``dp.sweep``, ``dp.finish_ops``).
    """
    G = gM.shape[0]
    for last in nb.prange(G):
        g = G - 1 - last  # the groups come shortest first: the largest are taken first
        M = gM[g]
        N = gN[g]
        p0 = bounds[g]
        lanes = bounds[g + 1] - p0
        q = qbuf[qoff[g]:qoff[g] + M * lanes].reshape((M, lanes))
        t = tbuf[toff[g]:toff[g] + N * lanes].reshape((N, lanes))
        ql = qlen[p0:p0 + lanes]
        tl = tlen[p0:p0 + lanes]
        H = np.empty((N + 1, lanes), sc.dtype)
        F = np.empty((N + 1, lanes), sc.dtype)
        best = np.empty(lanes, sc.dtype)
        bi = np.empty(lanes, np.int64)
        bj = np.empty(lanes, np.int64)
        _start_best(mode, best, bi, bj)
        init_rows(mode, sc, H, F)
        if mode != LOCAL:
            track_row(mode, 0, H, ql, tl, best, bi, bj)
        if want_trace:
            dirs = np.empty((M, N + 1, lanes), np.uint8)
            sweep(q, t, ql, tl, mode, sc, S, 0, M, H, F, dirs, best, bi, bj)
        else:
            dirs = np.empty((0, 1, 1), np.uint8)
            sweep(q, t, ql, tl, mode, sc, S, 0, M, H, F, None, best, bi, bj)
        ops = np.empty(M + N + 1, np.uint8)
        st = np.zeros(4, np.int64)
        for l in range(lanes):
            p = index[p0 + l]
            score[p] = best[l]
            qe[p] = bi[l]
            te[p] = bj[l]
            if not want_trace:
                _fixed_start(mode, bi, bj, qs, ts, p)
                continue
            i, j, state, nops, done = trace(dirs, l, 0, mode, bi[l], bj[l], ST_H, 0, ops, 0)
            qs[p] = i
            ts[p] = j
            r0 = run_off[p]
            nr = finish_ops(ops, nops, q[:, l], t[:, l], i, j, run_op[r0:], run_len[r0:], st, eq_below)
            nruns[p] = nr
            for k in range(4):
                stats[p, k] = st[k]


@nb.njit(**_JIT)
def align_long(q1, t1, mode, sc, S, eq_below, block, want_trace, run_op, run_len, stats, out):
    """One pair with checkpointed traceback (bounded memory).

    q1, t1: 1-D uint8 codes. block: rows between checkpoints. out receives
    (score, qstart, qend, tstart, tend, nruns).
    """
    M = q1.shape[0]
    N = t1.shape[0]
    q = q1.reshape((M, 1))
    t = t1.reshape((N, 1))
    ql = np.full(1, M, np.int64)
    tl = np.full(1, N, np.int64)
    H = np.empty((N + 1, 1), sc.dtype)
    F = np.empty((N + 1, 1), sc.dtype)
    best = np.empty(1, sc.dtype)
    bi = np.empty(1, np.int64)
    bj = np.empty(1, np.int64)
    _start_best(mode, best, bi, bj)
    init_rows(mode, sc, H, F)
    if mode != LOCAL:
        track_row(mode, 0, H, ql, tl, best, bi, bj)
    nck = (M + block - 1) // block if want_trace else 0
    Hc = np.empty((max(nck, 1), N + 1), sc.dtype)
    Fc = np.empty((max(nck, 1), N + 1), sc.dtype)
    for k in range(max(nck, 1)):
        lo = k * block
        hi = min(lo + block, M) if want_trace else M
        if want_trace:
            Hc[k, :] = H[:, 0]
            Fc[k, :] = F[:, 0]
        sweep(q, t, ql, tl, mode, sc, S, lo, hi, H, F, None, best, bi, bj)
    out[0] = best[0]
    out[2] = bi[0]
    out[4] = bj[0]
    if not want_trace:
        out[1] = -1
        out[3] = -1
        out[5] = 0
        return
    i = bi[0]
    j = bj[0]
    state = ST_H
    ops = np.empty(M + N + 1, np.uint8)
    nops = 0
    dummy_b = np.empty(1, sc.dtype)
    dummy_i = np.empty(1, np.int64)
    dummy_j = np.empty(1, np.int64)
    while True:
        lo = ((i - 1) // block) * block if i > 0 else 0
        k = lo // block
        Hb = np.empty((j + 1, 1), sc.dtype)
        Fb = np.empty((j + 1, 1), sc.dtype)
        Hb[:, 0] = Hc[k, :j + 1]
        Fb[:, 0] = Fc[k, :j + 1]
        dirs = np.empty((max(i - lo, 0), j + 1, 1), np.uint8)
        if i > lo and j > 0:
            tl[0] = j
            dummy_b[0] = neg_inf(dummy_b)
            sweep(q, t[:j], ql, tl, mode, sc, S, lo, i, Hb, Fb, dirs, dummy_b, dummy_i, dummy_j)
        i, j, state, nops, done = trace(dirs, 0, lo, mode, i, j, state, lo, ops, nops)
        if done:
            break
    out[1] = i
    out[3] = j
    out[5] = finish_ops(ops, nops, q1, t1, i, j, run_op, run_len, stats, eq_below)


def _eq_below(cfg: AlignConfig) -> int:
    """The codes whose equal pairs align as = (``dp.finish_ops``): N against N is X, X against X (protein) =."""
    return EQ_ALL if cfg.scoring.alphabet == "protein" else N_CODE


def checkpoint_block(qlen: int) -> int:
    """Rows per checkpoint: about sqrt(8*M) balances checkpoints and one block."""
    return max(16, int(math.isqrt(8 * max(qlen, 1))))


#: pairs aligned side by side in one group (SIMD lanes of the inner loop)
LANES = 64
#: float32 holds every integer below 2**24 exactly
FLOAT32_LIMIT = 2**24
#: float64 holds every integer below 2**53 exactly
FLOAT64_LIMIT = 2**53


class CpuPairwise(CpuEngine):
    """The pairwise engine on the CPU: ``align(batch, cfg)`` gives the batch's ``Alignments``."""

    def __init__(self, threads: int = 1):
        self.threads = thread_count(threads)

    def align(self, batch: PairBatch, cfg: AlignConfig) -> Alignments:
        qlen = batch.qlen.astype(np.int64)
        tlen = batch.tlen.astype(np.int64)
        out = Alignments.allocate(qlen, tlen, cfg.traceback)
        bound = cfg.scoring.score_bound(qlen, tlen)
        wide = bound >= FLOAT32_LIMIT
        if len(bound) and bound.max() >= FLOAT64_LIMIT:
            raise UsageError("scoring values too large: scores could exceed 2**53 and lose exactness")
        matrix_bytes = (qlen + 1) * (tlen + 1) * LANES
        inner = long_pair.routed(qlen, tlen, cfg, matrix_bytes > cfg.matrix_budget, LANES)
        long = cfg.traceback & (matrix_bytes > cfg.matrix_budget) & ~inner
        nb.set_num_threads(self.threads)
        lanes = ~long & ~inner
        if cfg.scoring.matrix is not None:  # score only, ``long`` is empty
            rest = self._striped(batch, np.flatnonzero(lanes | long), cfg, out)
            lanes, long = lanes & rest, long & rest
        for dtype, sel in ((np.float32, ~wide & lanes), (np.float64, wide & lanes)):
            subset = np.flatnonzero(sel)
            if len(subset):
                self._groups(batch, qlen, tlen, subset, dtype, cfg, out)
        long_idx = np.flatnonzero(long)
        if len(long_idx):
            with ThreadPoolExecutor(self.threads) as pool:
                list(pool.map(lambda k: self._long(batch, int(k), bool(wide[k]), cfg, out), long_idx))
        inner_idx = np.flatnonzero(inner)
        if len(inner_idx):
            long_pair.align_pairs(batch, inner_idx, cfg, self.threads, checkpoint_block, out)
        return out.finish(cfg)

    @staticmethod
    def _striped(batch, subset: np.ndarray, cfg: AlignConfig, out) -> np.ndarray:
        """Pairs of a substitution matrix through the striped vectors, one profile a pair: score only
        (``cpu_striped.pair_scores``), or with traceback where their store of columns is within the matrix
        budget (``cpu_striped_trace.align_traces``); returns the mask of the pairs left to the other routes."""
        from . import cpu_striped as striped
        from . import cpu_striped_trace as striped_trace

        sc = cfg.scoring
        mode = cfg.mode_code
        S = sc.table(np.int64)
        if cfg.traceback:
            rest = striped_trace.align_traces(batch, S, sc.gap_open, sc.gap_extend, subset, out, int(mode),
                                              _eq_below(cfg), cfg.matrix_budget)
        else:
            rest = striped.pair_scores(batch, S, sc.gap_open, sc.gap_extend, subset, out, int(mode))
            done = np.setdiff1d(subset, rest)
            out.qstart[done], out.tstart[done] = mode.score_only_starts()  # the lane groups' score-only starts
        mask = np.zeros(out.size, bool)
        mask[rest] = True
        return mask

    def _groups(self, batch, qlen, tlen, subset, dtype, cfg, out):
        order = length_order(qlen, tlen, subset)
        g = pack_groups(batch, order, LANES)
        sc = np.array(cfg.scoring.as_list(), dtype)
        scores = np.zeros(out.size, dtype)
        runs = out.cigar
        with nb.parallel_chunksize(1):  # groups differ in length: threads take them one at a time
            align_groups(g.q_buf, g.q_off, g.q_dim, g.t_buf, g.t_off, g.t_dim, g.qlen, g.tlen, g.index,
                         g.bounds, int(cfg.mode_code), sc, cfg.scoring.table(dtype), _eq_below(cfg),
                         cfg.traceback, scores, out.qstart, out.qend,
                         out.tstart, out.tend, runs.off, runs.count, runs.op, runs.length, out.stats)
        out.score[subset] = scores[subset].astype(np.int64)

    def _long(self, batch, k, wide, cfg, out):
        q = batch.query(k)
        t = batch.target(k)
        dtype = np.float64 if wide else np.float32
        sc = np.array(cfg.scoring.as_list(), dtype)
        res = np.zeros(6, np.float64)
        r0 = out.cigar.off[k]
        stats = np.zeros(4, np.int64)
        align_long(q, t, int(cfg.mode_code), sc, cfg.scoring.table(dtype), _eq_below(cfg), checkpoint_block(len(q)),
                   True, out.cigar.op[r0:], out.cigar.length[r0:], stats, res)
        out.score[k] = int(res[0])
        out.qstart[k], out.qend[k], out.tstart[k], out.tend[k] = (int(x) for x in res[1:5])
        out.cigar.count[k] = int(res[5])
        out.stats[k] = stats
