"""Database search on the CPU (the reference engine): ``CpuSearch`` and its result, ``SearchHits``.

Two passes over a batch of queries, both through the pairwise engine
(``CpuPairwise``: the same recurrence, tie rule and substitution array):

1. scores: every query against every database record, score only, one
   query at a time: in local mode through the striped vectors (``pairwise.cpu_striped``:
   the query's profile made once, threads across the records, longest
   first), elsewhere (or where a query's scores could pass 32-bit lanes)
   through the lane groups, in slices of at most ``PAIRS_PER_PASS``
   records, taken shortest first so that each group holds targets of one
   size;
2. the kept hits of each query (``select``: non-empty alignments, at least
   ``--min-score``, at most ``--evalue``, the best ``--top`` by score, ties
   in database order) aligned again with traceback, all queries' hits in
   one batch (``kept_hits``, which the GPU engine's first pass ends in too).

The traceback pass must give each hit the score the first pass gave it;
a difference is an internal error, never a silent change of the ranking.
"""

from __future__ import annotations

import numpy as np

from ...batching import gather_runs
from ...config import AlignConfig, Mode
from ...jit import nb
from ...matrices import statistics
from ...protocols import CpuEngine
from ..pairwise import cpu_striped as striped
from ..pairwise.batch import PairBatch
from ..pairwise.cpu import CpuPairwise
from ..pairwise.cpu_dp import pair_table
from .results import SearchHits

#: database records of one score pass (the query's codes are repeated for each: that many copies in memory)
PAIRS_PER_PASS = 1 << 15


def substitution_array(scoring) -> np.ndarray:
    """The integer scores of every pair of codes: the matrix's, else match/mismatch/N (``cpu_dp.pair_table``)."""
    if scoring.matrix is not None:
        return scoring.table(np.int64)
    return pair_table(np.array(scoring.as_list(), np.int64), np.zeros(1, np.int64))


#: the largest --top kept by one compiled pass (``_best``, which inserts each record into the list so far);
#: a larger one takes a partition of the candidates instead
TOP_BY_INSERTION = 64


def select(score: np.ndarray, empty: np.ndarray, floor: int, top: int) -> np.ndarray:
    """The database records kept for one query, best first: non-empty, scoring at least ``floor``, the best
    ``top`` by score, ties in database order. One pass over the records (``_best``) for the usual ``top``:
    a search's database may hold millions, and every query's scores are cut here."""
    if top <= TOP_BY_INSERTION:
        return _best(score, empty, np.int64(floor), top)
    cand = np.flatnonzero(~empty & (score >= floor))
    if len(cand) > top:  # the top-th best score, then every record above it and the first ones at it
        edge = -np.partition(-score[cand], top - 1)[top - 1]
        above, at = cand[score[cand] > edge], cand[score[cand] == edge]
        cand = np.concatenate([above, at[:top - len(above)]])
    return cand[np.lexsort((cand, -score[cand]))]


@nb.njit(nogil=True, cache=True)
def _best(score, empty, floor, top):
    kept = np.empty(top, np.int64)
    n = 0
    for i in range(len(score)):
        s = score[i]
        if empty[i] or s < floor or (n == top and s <= score[kept[top - 1]]):
            continue
        p = min(n, top - 1)  # the last place; a full list drops its last
        while p > 0 and score[kept[p - 1]] < s:  # after every earlier record of an equal score
            kept[p] = kept[p - 1]
            p -= 1
        kept[p] = i
        n = min(n + 1, top)
    return kept[:n]


def score_floor(inputs, ka, qlen: int, residues: int) -> int:
    """The least score a hit of a query of ``qlen`` letters may have: ``--min-score``, and the least score
    whose E-value (``ka``'s formula, which the output prints) is within ``--evalue``."""
    floor = inputs.min_score if inputs.min_score is not None else -(1 << 62)
    if inputs.max_evalue is None or ka is None:
        return floor
    within = lambda s: bool(ka.evalue(np.array([s], float), qlen, residues)[0] <= inputs.max_evalue)  # noqa: E731
    lo, hi = -1, 1 << 62  # local scores are at least 0; E-values fall as scores grow: the edge lies between
    if within(lo):
        return max(floor, lo)
    if not within(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if within(mid) else (mid, hi)
    return max(floor, hi)


class CpuSearch(CpuEngine):
    """The search engine on the CPU: ``align(batch, cfg)`` gives the batch's ``SearchHits``."""

    def __init__(self, threads: int = 1):
        self.pairwise = CpuPairwise(threads)
        self.threads = self.pairwise.threads

    def scores(self, batch, cfg: AlignConfig) -> tuple[np.ndarray, np.ndarray]:
        """(score, empty) of every query x database record, (queries, records) arrays: the first pass."""
        db = batch.db
        nq, nd = batch.size, len(db)
        score = np.zeros((nq, nd), np.int64)
        empty = np.zeros((nq, nd), bool)
        only = AlignConfig(scoring=cfg.scoring, mode=cfg.mode, traceback=False, matrix_budget=cfg.matrix_budget)
        qoffs = np.require(batch.offs, np.int64, "CW")
        mode = Mode.parse(cfg.mode)
        S = substitution_array(cfg.scoring) if mode is Mode.LOCAL else None
        longest_first = np.ascontiguousarray(db.by_length[::-1])
        nb.set_num_threads(self.threads)
        # one query a pass: its lane groups then hold targets of one size (pairs of several queries, sorted
        # by target length, would alternate query lengths and close a group at each)
        for k in range(nq):
            if S is not None:  # local: the striped vectors, where their lanes hold the scores exactly
                got = striped.local_scores(batch.codes[qoffs[k]:qoffs[k + 1]], S, db.codes, db.offs,
                                           longest_first, cfg.scoring.gap_open, cfg.scoring.gap_extend)
                if got is not None:
                    score[k, longest_first] = got
                    empty[k] = score[k] == 0  # a local alignment is empty exactly when it scores 0
                    continue
            for a in range(0, nd, PAIRS_PER_PASS):
                recs = db.by_length[a:a + PAIRS_PER_PASS]
                qc, qo = gather_runs(batch.codes, qoffs, np.full(len(recs), k, np.int64))
                tc, to = db.gather(recs)
                res = self.pairwise.align(PairBatch(qc, qo, tc, to), only)
                score[k, recs] = res.score
                empty[k, recs] = mode.empty_ends(res.qend, res.tend)
        return score, empty

    def align(self, batch, cfg: AlignConfig) -> SearchHits:
        score, empty = self.scores(batch, cfg)
        return kept_hits(batch, cfg, score, empty, self.pairwise)


def kept_hits(batch, cfg: AlignConfig, score: np.ndarray, empty: np.ndarray, pairwise: CpuPairwise) -> SearchHits:
    """The second pass of every engine: each query's kept hits (``select``) from the first pass's (score,
    empty) of every query x record, aligned with traceback by ``pairwise``, with their statistics."""
    ka = statistics.params(cfg.scoring, cfg.mode)
    qlen = batch.lengths
    kept = [select(score[k], empty[k], score_floor(batch.inputs, ka, int(qlen[k]), batch.db.residues),
                   batch.inputs.top) for k in range(batch.size)]
    query = np.repeat(np.arange(batch.size, dtype=np.int64), [len(x) for x in kept])
    target = np.concatenate(kept).astype(np.int64) if kept else np.zeros(0, np.int64)
    rank = np.concatenate([np.arange(1, len(x) + 1) for x in kept]).astype(np.int64) if kept else target
    qc, qo = gather_runs(batch.codes, np.require(batch.offs, np.int64, "CW"), query)
    tc, to = batch.db.gather(target)
    hits = pairwise.align(PairBatch(qc, qo, tc, to), cfg)
    first = score[query, target]
    if not np.array_equal(hits.score, first):
        bad = int(np.flatnonzero(hits.score != first)[0])
        raise RuntimeError(f"internal error: the traceback pass scored hit {bad} {int(hits.score[bad])}, "
                           f"the score pass {int(first[bad])}")
    if ka is not None:
        evalue = ka.evalue(hits.score, qlen[query], batch.db.residues)
        bits = ka.bits(hits.score.astype(float))
    else:
        evalue = bits = np.full(len(query), np.nan)
    return SearchHits(query, target, rank, hits, np.asarray(evalue, float), np.asarray(bits, float))
