"""The long-pair route (``families/pairwise/cpu_long_pair.py``: SIMD along anti-diagonals inside one pair).

Every result must be bit-identical to the lane-group and checkpointed routes
of ``pairwise.py`` (score, spans, end cell by the tie rule, CIGAR, stats):
the route is forced onto small pairs by lowering its thresholds, with short
stripes, blocks and tiles so that every border of the sweep is crossed, and
compared with the same batch aligned with the route switched off. Tests
taking ``backend`` run the forced route on the CPU engine (and, with a GPU,
compare the GPU's results with the same reference). Ties (repeats,
homopolymers), N letters, empty and one-base sequences, int32 lanes (large
scoring values), int16 lanes tried first where the bound needs int32 (kept
where exact, else the pair again in int32), threads inside a pair, the
routing rule, and a check of the route against parasail and CIGAR rescoring.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from seqalign_cli.families.pairwise import cpu_long_pair as long_pair
from seqalign_cli.families.pairwise.cpu import LANES, CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch

from support.generators import AFFINE, BWA, LINEAR, mutate, random_dna
from support.helpers import assert_same_results
from support.oracles import MODES, cigar_counts, parasail_score, rescore

EDIT = Scoring(match=0, mismatch=1, gap_open=0, gap_extend=1, n_penalty=1)
WIDE = Scoring(match=1000, mismatch=3000, gap_open=5000, gap_extend=1000, n_penalty=700)
#: a costly opening: every pair's bound needs int32, and cells stay within int16 unless two gaps are needed
TRIAL = Scoring(match=2, mismatch=100, gap_open=10000, gap_extend=1, n_penalty=50)


def forced(mp, stripe=48, min_block=0, tile=40, thread_cells=0):
    """Send every pair of a batch below ``LANES`` pairs through the route, in small stripes, blocks and tiles."""
    mp.setattr(long_pair, "LONG_MIN_LEN", 0)
    mp.setattr(long_pair, "STRIPE", stripe)
    mp.setattr(long_pair, "MIN_BLOCK", min_block)
    mp.setattr(long_pair, "TILE", tile)
    mp.setattr(long_pair, "THREAD_MIN_CELLS", thread_cells)


def reference(qs, ts, cfg):
    """The batch through the previous routes only (lane groups, ``align_long``), one thread."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(long_pair, "routed", lambda qlen, *rest: np.zeros(len(qlen), bool))
        return CpuPairwise(1).align(make_batch(qs, ts), cfg)


def spy(mp):
    """Count the pairs the route aligns."""
    seen = []
    real = long_pair.align_one
    mp.setattr(long_pair, "align_one", lambda q, *a: (seen.append(len(q)), real(q, *a))[1])
    return seen


def compare(qs, ts, cfg, engine, **route):
    """engine (a backend or ``CpuPairwise``) on the forced route gives exactly the reference's results."""
    qs = [s.encode() if isinstance(s, str) else s for s in qs]
    ts = [s.encode() if isinstance(s, str) else s for s in ts]
    assert len(qs) < LANES
    want = reference(qs, ts, cfg)
    with pytest.MonkeyPatch.context() as mp:
        forced(mp, **route)
        seen = spy(mp)
        got = engine.align(make_batch(qs, ts), cfg)
    assert_same_results(want, got, ("previous routes", "long-pair route"))
    return seen, got


def random_pairs(seed, count, lo=0, hi=700):
    rng = random.Random(seed)
    qs, ts = [], []
    for k in range(count):
        q = random_dna(rng, rng.randint(lo, hi), "ACGTN" if k % 5 == 0 else "ACGT")
        t = mutate(rng, q, rng.choice((0.02, 0.08, 0.3)))
        if k % 3 == 0:  # flanks: free end gaps matter
            t = random_dna(rng, rng.randint(0, 60)) + t + random_dna(rng, rng.randint(0, 60))
        if k % 4 == 0:
            q, t = t, q
        if k % 7 == 0:  # unrelated
            t = random_dna(rng, rng.randint(lo, hi))
        qs.append(q)
        ts.append(t)
    return qs, ts


@pytest.mark.parametrize("traceback", [False, True], ids=["score", "trace"])
@pytest.mark.parametrize("mode", MODES)
def test_random_pairs_equal_previous_routes(mode, traceback, backend):
    qs, ts = random_pairs(10 + MODES.index(mode), 30)
    seen, _ = compare(qs, ts, AlignConfig(scoring=AFFINE, mode=mode, traceback=traceback), backend)
    if backend.name == "cpu":
        assert sorted(seen) == sorted(len(q) for q in qs)  # every pair took the route


@pytest.mark.parametrize("mode", MODES)
def test_blocks_stripes_and_scorings(mode):
    """Stripes a multiple of the checkpoint rows or not, the walk's blocks of 16+ rows or one block; linear, BWA
    and edit scoring."""
    qs, ts = random_pairs(30 + MODES.index(mode), 12, 100, 900)
    for scoring, stripe, min_block in ((LINEAR, 16, 0), (BWA, 100, 0), (EDIT, 1000, 512), (AFFINE, 5, 40)):
        cfg = AlignConfig(scoring=scoring, mode=mode)
        compare(qs, ts, cfg, CpuPairwise(1), stripe=stripe, min_block=min_block)
        compare(qs, ts, AlignConfig(scoring=scoring, mode=mode, traceback=False), CpuPairwise(1), stripe=stripe)


@pytest.mark.parametrize("mode", MODES)
def test_ties(mode, backend):
    """Repeats and homopolymers (many optimal cells and paths), also under edit scoring where matches score 0."""
    rng = random.Random(7)
    qs, ts = [], []
    for unit in ("A", "AC", "ACG", "ACGTT", "N"):
        for m, n in ((40, 40), (37, 52), (60, 21), (1, 30)):
            qs.append(unit * (m // len(unit) + 1))
            ts.append(unit * (n // len(unit) + 1))
    q = random_dna(rng, 80)
    qs += [q + q + q, "T" * 10 + "ACGT" * 30, "ACGT" * 30 + "GGGG"]
    ts += [q, "ACGT" * 30 + "T" * 10, "TTTT" + "ACGT" * 30]
    for scoring in (AFFINE, EDIT):
        for traceback in (False, True):
            compare(qs, ts, AlignConfig(scoring=scoring, mode=mode, traceback=traceback), backend, stripe=16)


@pytest.mark.parametrize("mode", MODES)
def test_empty_and_one_base(mode, backend):
    qs = ["", "", "A", "A", "A", "N", "A", "ACGTACGT", "", "N", "G" * 300, "C"]
    ts = ["", "ACGT", "", "A", "C", "N", "ACGT" * 40, "A", "A", "ACGN", "G", "G" * 300]
    for traceback in (False, True):
        seen, _ = compare(qs, ts, AlignConfig(scoring=AFFINE, mode=mode, traceback=traceback), backend)
        if backend.name == "cpu":
            assert len(seen) == len(qs)


@pytest.mark.parametrize("mode", MODES)
def test_wide_scores_use_int32(mode):
    """Scores past int16 (large --match): int32 lanes, still identical (the reference runs in float lanes)."""
    qs, ts = random_pairs(50 + MODES.index(mode), 10, 50, 400)
    assert long_pair.lane_dtype(WIDE, 50, 50) is np.int32
    for traceback in (False, True):
        compare(qs, ts, AlignConfig(scoring=WIDE, mode=mode, traceback=traceback), CpuPairwise(1), stripe=32)


def trial_pairs(seed):
    """Pairs of 250-500 bases that differ by substitutions only (each cell within one gap of the diagonal:
    int16 holds them) alternating with unrelated pairs, one with N letters (in global mode, the cells about
    (250, 250) score below -18000: past the int16 trial's sentinel)."""
    rng = random.Random(seed)
    qs, ts = [], []
    for k in range(8):
        q = random_dna(rng, rng.randint(250, 500), "ACGTN" if k == 3 else "ACGT")
        if k % 2:
            t = random_dna(rng, rng.randint(250, 500))
        else:
            t = "".join(rng.choice("ACGT") if rng.random() < 0.03 else c for c in q)
        qs.append(q)
        ts.append(t)
    return qs, ts


def forward_passes(mp):
    """Record the lane dtype and exactness of every forward pass."""
    seen = []
    real = long_pair._Pass.forward

    def forward(self, threads):
        end = real(self, threads)
        seen.append((np.dtype(self.par.dtype), self.exact))
        return end
    mp.setattr(long_pair._Pass, "forward", forward)
    return seen


@pytest.mark.parametrize("mode", MODES)
def test_int16_lanes_tried_first(mode, backend):
    """Where the bound needs int32 but the best score and the borders fit int16, int16 goes first: kept where every
    H stayed above its sentinel (all pairs but global mode's unrelated ones), else the pair goes again in int32;
    either way the results are the reference's, threads inside a pair included."""
    qs, ts = trial_pairs(70 + MODES.index(mode))
    assert long_pair.lane_dtype(TRIAL, 250, 250) is np.int32
    assert long_pair.trial_params(TRIAL, 500, 500).dtype == np.int16
    for traceback in (False, True):
        cfg = AlignConfig(scoring=TRIAL, mode=mode, traceback=traceback)
        with pytest.MonkeyPatch.context() as mp:
            seen = forward_passes(mp)
            compare(qs, ts, cfg, backend, stripe=64)
            if backend.name == "cpu":  # one pair at a time: both threads on it
                for k in (0, 1):
                    compare(qs[k:k + 1], ts[k:k + 1], cfg, CpuPairwise(2), stripe=64, tile=100)
        if backend.name != "cpu":
            continue
        i16 = np.dtype(np.int16)
        if mode == "global":  # each unrelated pair: an int16 pass that fails, then an int32 one
            assert seen.count((i16, True)) == 5 and seen.count((i16, False)) == 5
            assert seen.count((np.dtype(np.int32), True)) == 5
        else:  # free end gaps (or local's floor) keep every cell within one gap: int16 holds all
            assert seen == [(i16, True)] * 10


@pytest.mark.parametrize("mode", MODES)
def test_forward_pass_keeps_direction_bytes(mode, backend):
    """With traceback, a pair whose direction bytes fit the matrix budget, with too few cells for threads, keeps
    them from the forward pass (stripes of one tile) and the walk only follows them: the same results in int16,
    int32 and int16 tried first, in one stripe or several; a budget too small for them leaves the pair to
    checkpoints."""
    qs, ts = random_pairs(95 + MODES.index(mode), 12, 0, 600)
    tq, tt = trial_pairs(96 + MODES.index(mode))
    walks = []
    with pytest.MonkeyPatch.context() as mp:
        for name in ("_walk_kept", "_walk_part"):
            real = getattr(long_pair, name)
            mp.setattr(long_pair, name, lambda *a, _r=real, _n=name: (walks.append(_n), _r(*a))[1])
        for scoring, q, t, stripe in ((AFFINE, qs, ts, 48), (AFFINE, qs, ts, 1000), (WIDE, qs[:6], ts[:6], 32),
                                      (TRIAL, tq, tt, 64)):
            compare(q, t, AlignConfig(scoring=scoring, mode=mode), backend, stripe=stripe, thread_cells=1 << 40)
        kept, walks[:] = list(walks), []
        compare(qs[:4], ts[:4], AlignConfig(scoring=AFFINE, mode=mode, matrix_budget=1), backend, stripe=48,
                thread_cells=1 << 40)
    if backend.name == "cpu":
        assert len(kept) >= 2 * len(qs) + 6 + len(tq) and set(kept) == {"_walk_kept"}
        assert walks == ["_walk_part"] * 4


def test_lane_dtype_follows_the_score_bound():
    """int16 while the bound, the gap-open margin and the sentinel fit 16 bits; int32 next; None past it."""
    sc = Scoring()  # per base: max(2, 4, 1) + 2; bound = 4 + (m + n + 1) * 6
    margin = 2 * (sc.gap_open + sc.gap_extend) + 2
    n16 = (2**15 - 1 - margin - 4) // 6 - 1  # the largest m + n whose bound plus margin stays below 2**15 - 1
    assert 4 + (n16 + 1) * 6 + margin < 2**15 - 1 <= 4 + (n16 + 2) * 6 + margin
    assert long_pair.lane_dtype(sc, n16 // 2, n16 - n16 // 2) is np.int16
    assert long_pair.lane_dtype(sc, n16 // 2, n16 - n16 // 2 + 1) is np.int32
    assert long_pair.lane_dtype(sc, 100_000, 100_000) is np.int32
    assert long_pair.lane_dtype(Scoring(match=2**22), 1000, 1000) is None


def test_routing_rule():
    cfg = AlignConfig(traceback=False)
    n = long_pair.LONG_MIN_LEN
    qlen = np.array([n, n - 1, 5 * n, 0], np.int64)
    tlen = np.array([n, 10 * n, 5 * n, 10 * n], np.int64)
    none = np.zeros(4, bool)
    assert long_pair.routed(qlen, tlen, cfg, none, LANES).tolist() == [True, False, True, False]
    many = np.full(LANES, n, np.int64)  # enough long pairs to fill a lane group: they stay there
    assert not long_pair.routed(many, many, cfg, np.zeros(LANES, bool), LANES).any()
    over = np.array([False, True, False, True])  # traceback past the matrix budget: always routed
    tb = AlignConfig(traceback=True)
    assert long_pair.routed(qlen, tlen, tb, over, LANES).tolist() == [True, True, True, True]
    assert not long_pair.routed(qlen, tlen, cfg, over, LANES)[[1, 3]].any()
    huge = AlignConfig(scoring=Scoring(match=2**22), traceback=True)  # past int32: the float routes keep it
    assert not long_pair.routed(qlen, tlen, huge, over, LANES).any()


@pytest.mark.parametrize("mode", MODES)
def test_checkpointed_pairs_take_the_route(mode):
    """Pairs past the matrix budget (here all, budget 1 byte) leave ``align_long`` for the route, by the routing
    rule alone (default thresholds), with the same CIGARs."""
    qs, ts = random_pairs(60 + MODES.index(mode), 6, 200, 1500)
    qs, ts = [s.encode() for s in qs], [s.encode() for s in ts]
    cfg = AlignConfig(scoring=AFFINE, mode=mode, matrix_budget=1)
    want = reference(qs, ts, cfg)
    with pytest.MonkeyPatch.context() as mp:
        seen = spy(mp)
        got = CpuPairwise(1).align(make_batch(qs, ts), cfg)
    assert len(seen) == len(qs)
    assert_same_results(want, got, ("align_long", "long-pair route"))


@pytest.mark.parametrize("mode", MODES)
def test_threads_inside_a_pair(mode):
    """Two threads on one pair: the forward pass in tiles, the walk's blocks shared out; the walk alone in 3 and
    5 parts (more parts than the machine has cores: they wait on each other) gives the same CIGAR."""
    rng = random.Random(80 + MODES.index(mode))
    q = random_dna(rng, 900)
    t = random_dna(rng, 40) + mutate(rng, q, 0.06) + random_dna(rng, 40)
    calls = []
    with pytest.MonkeyPatch.context() as mp:
        for name in ("_forward_tiles", "_walk_blocks"):
            real = getattr(long_pair._Pass, name)
            mp.setattr(long_pair._Pass, name,
                       lambda self, *a, _r=real, _n=name: (calls.append((_n, a[0] if _n == "_forward_tiles" else a[2])),
                                                           _r(self, *a))[1])
        for traceback in (False, True):
            cfg = AlignConfig(scoring=AFFINE, mode=mode, traceback=traceback)
            for pair in ((q, t), (t, q)):
                compare([pair[0]], [pair[1]], cfg, CpuPairwise(2), stripe=64, tile=100)
        if CpuPairwise(2).threads == 2:
            assert calls.count(("_forward_tiles", 2)) == 4 and calls.count(("_walk_blocks", 2)) == 2
        cfg = AlignConfig(scoring=AFFINE, mode=mode)
        walk = long_pair._Pass.walk
        for parts in (3, 5):
            calls.clear()
            mp.setattr(long_pair._Pass, "walk", lambda self, i, j, threads, *a, _n=parts: walk(self, i, j, _n, *a))
            compare([q], [t], cfg, CpuPairwise(1), stripe=64, tile=100)
            assert calls == [("_walk_blocks", parts)]


def test_a_failed_thread_leaves_none_waiting():
    """Threads inside a pair wait on each other's stripes: where one part fails, the others run through and the
    error reaches the caller (no thread left waiting on the failed one)."""
    if CpuPairwise(2).threads < 2:
        pytest.skip("one CPU thread here")
    rng = random.Random(85)
    q = random_dna(rng, 900)
    t = mutate(rng, q, 0.06)
    real = long_pair._Pass._stripes

    def failing(self, part, *args):
        if part == 1:
            raise MemoryError("part 1 failed")
        return real(self, part, *args)
    with pytest.MonkeyPatch.context() as mp:
        forced(mp, stripe=64, tile=100)
        mp.setattr(long_pair._Pass, "_stripes", failing)
        with pytest.raises(MemoryError, match="part 1 failed"):
            CpuPairwise(2).align(make_batch([q.encode()], [t.encode()]), AlignConfig(scoring=AFFINE))


def test_a_failed_part_of_the_walk_leaves_none_waiting():
    """The walk's parts wait on each other's blocks: where one fails, the other ends and the error reaches the
    caller."""
    rng = random.Random(86)
    q = random_dna(rng, 900)
    t = mutate(rng, q, 0.06)
    real = long_pair._walk_part

    def failing(*args):
        if args[10] == 1:  # part
            raise MemoryError("walk part 1 failed")
        return real(*args)
    with pytest.MonkeyPatch.context() as mp:
        forced(mp, stripe=64, tile=100)
        mp.setattr(long_pair, "_walk_part", failing)
        walk = long_pair._Pass.walk
        mp.setattr(long_pair._Pass, "walk", lambda self, i, j, threads, *a: walk(self, i, j, 2, *a))
        with pytest.raises(MemoryError, match="walk part 1 failed"):
            CpuPairwise(1).align(make_batch([q.encode()], [t.encode()]), AlignConfig(scoring=AFFINE))


@pytest.mark.parametrize("mode", MODES)
def test_default_route_vs_parasail(mode):
    """A 2 kb pair alone takes the route with its default settings; parasail gives the score, the CIGAR
    rescores to it over the reported spans, and the stats count its runs."""
    rng = random.Random(90 + MODES.index(mode))
    q = random_dna(rng, 2000)
    t = random_dna(rng, 100) + mutate(rng, q, 0.05) + random_dna(rng, 100)
    with pytest.MonkeyPatch.context() as mp:
        seen = spy(mp)
        res = CpuPairwise(1).align(make_batch([q.encode()], [t.encode()]), AlignConfig(scoring=BWA, mode=mode))
    assert seen == [len(q)]
    score = int(res.score[0])
    assert score == parasail_score(q, t, BWA, mode)
    cigar = res.cigars()[0]
    spans = (int(res.qstart[0]), int(res.qend[0]), int(res.tstart[0]), int(res.tend[0]))
    assert rescore(q, t, *spans, cigar, BWA) == score
    assert tuple(int(x) for x in res.stats[0]) == cigar_counts(cigar)
