"""The CPU engine: exact reference for every mode, numba-compiled, threaded."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...batching import PairBatch, length_order, pack_groups
from ...config import AlignConfig
from ...errors import UsageError
from ...jit import nb as numba
from ...results import Alignments
from .. import Done
from .pairwise import align_groups, align_long, checkpoint_block

#: pairs aligned side by side in one group (SIMD lanes of the inner loop)
LANES = 64
#: float32 holds every integer below 2**24 exactly
FLOAT32_LIMIT = 2**24
#: float64 holds every integer below 2**53 exactly
FLOAT64_LIMIT = 2**53


class CpuBackend:
    """Aligns batches of pairs with the numba engine."""

    name = "cpu"
    device = "CPU"

    def __init__(self, threads: int = 1):
        self.threads = max(1, min(threads, numba.config.NUMBA_NUM_THREADS))

    def start(self, batch: PairBatch, cfg: AlignConfig) -> Done:
        """The batch aligned now (the backends' common ``start``)."""
        return Done(self.align(batch, cfg))

    def align(self, batch: PairBatch, cfg: AlignConfig) -> Alignments:
        qlen = batch.qlen.astype(np.int64)
        tlen = batch.tlen.astype(np.int64)
        out = Alignments.allocate(qlen, tlen, cfg.traceback)
        sc = cfg.scoring
        bound = sc.score_bound(qlen, tlen)
        wide = bound >= FLOAT32_LIMIT
        if len(bound) and bound.max() >= FLOAT64_LIMIT:
            raise UsageError("scoring values too large: scores could exceed 2**53 and lose exactness")
        matrix_bytes = (qlen + 1) * (tlen + 1) * LANES
        long = cfg.traceback & (matrix_bytes > cfg.matrix_budget)
        numba.set_num_threads(self.threads)
        for dtype, sel in ((np.float32, ~wide & ~long), (np.float64, wide & ~long)):
            subset = np.flatnonzero(sel)
            if len(subset):
                self._groups(batch, qlen, tlen, subset, dtype, cfg, out)
        long_idx = np.flatnonzero(long)
        if len(long_idx):
            with ThreadPoolExecutor(self.threads) as pool:
                list(pool.map(lambda k: self._long(batch, int(k), bool(wide[k]), cfg, out), long_idx))
        out.normalize_empty(cfg.mode_code)
        return out

    def _groups(self, batch, qlen, tlen, subset, dtype, cfg, out):
        order = length_order(qlen, tlen, subset)
        g = pack_groups(batch, order, LANES)
        sc = np.array(cfg.scoring.as_list(), dtype)
        scores = np.zeros(out.size, dtype)
        align_groups(g.q_buf, g.q_off, g.q_dim, g.t_buf, g.t_off, g.t_dim, g.qlen, g.tlen, g.index,
                     g.bounds, cfg.mode_code, sc, cfg.traceback, scores, out.qstart, out.qend,
                     out.tstart, out.tend, out.run_off, out.nruns, out.run_op, out.run_len, out.stats)
        out.score[subset] = scores[subset].astype(np.int64)

    def _long(self, batch, k, wide, cfg, out):
        q = batch.query(k)
        t = batch.target(k)
        sc = np.array(cfg.scoring.as_list(), np.float64 if wide else np.float32)
        res = np.zeros(6, np.float64)
        r0 = out.run_off[k]
        stats = np.zeros(4, np.int64)
        align_long(q, t, cfg.mode_code, sc, checkpoint_block(len(q)), True,
                   out.run_op[r0:], out.run_len[r0:], stats, res)
        out.score[k] = int(res[0])
        out.qstart[k], out.qend[k], out.tstart[k], out.tend[k] = (int(x) for x in res[1:5])
        out.nruns[k] = int(res[5])
        out.stats[k] = stats
