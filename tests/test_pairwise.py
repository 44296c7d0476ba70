"""Correctness of the pairwise engines against independent oracles.

The tests that take the ``backend`` fixture (conftest) run on the CPU engine
and, where a GPU is usable, on the cuda backend too; the others exercise
CPU-only routes (threads, float lanes, hypothesis).

* brute force: tiny pairs (and every pair of sequences up to length 2) vs the
  pure-Python Gotoh of ``oracles.py`` in every mode, for several scorings: the
  score, and the exact alignment the documented tie rules pick (end cell,
  spans, CIGAR); score-only vs traceback agreement;
* 10,000 random pairs per mode and gap model (lengths 0-2,000, skewed short,
  related and unrelated, N / lowercase / U / IUPAC letters) vs parasail and
  Biopython (pairs with an empty side, which neither takes, vs the pure-Python
  reference); every CIGAR rescored over its spans;
* the checkpointed traceback (``matrix_budget=1``) gives exactly the
  full-matrix outputs; a 20 kb x 20 kb pair through it;
* float64 pairs (score bound past 2**24) score exactly, scores below -2**30
  included;
* hypothesis property tests vs the pure-Python reference."""

from __future__ import annotations

import itertools
import random
import zlib
from operator import attrgetter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch

from support.helpers import RESULT_FIELDS, assert_same_results
from support.generators import AFFINE, BWA, LINEAR, mutate, random_dna, random_pair, random_pairs  # noqa: F401
from support.oracles import (MODES, CigarError, biopython_score, canon, cigar_counts, parasail_score,
                             ref_align, ref_score, rescore)

SCORINGS = {
    "affine": AFFINE,
    "linear": LINEAR,
    "bwa": BWA,
    "cheap_mismatch": Scoring(match=3, mismatch=1, gap_open=5, gap_extend=1, n_penalty=2),
    "free_n": Scoring(match=1, mismatch=1, gap_open=1, gap_extend=1, n_penalty=0),
    "edit": Scoring(match=0, mismatch=1, gap_open=0, gap_extend=1, n_penalty=1),
    "costly_mismatch": Scoring(match=1, mismatch=9, gap_open=1, gap_extend=1, n_penalty=3),
    "free_extend": Scoring(match=2, mismatch=3, gap_open=5, gap_extend=0, n_penalty=1),
    # float32 lanes (bound < 2**24 for these tiny pairs) with gap-state values
    # far beyond 2**24
    "huge_gap_open": Scoring(match=1, mismatch=3, gap_open=2**24 - 60, gap_extend=1, n_penalty=1),
    # float64 lanes: odd scores above 2**24
    "huge_match": Scoring(match=2**24 + 1, mismatch=2**24 + 3, gap_open=5, gap_extend=2**23 + 1,
                          n_penalty=7),
}
GAP_MODELS = {"affine": AFFINE, "linear": LINEAR}


# ------------------------------------------------------------------ helpers


def as_bytes(s) -> bytes:
    return s.encode() if isinstance(s, str) else bytes(s)


def run(queries, targets, scoring, mode, traceback=True, matrix_budget=None, threads=1, backend=None):
    """The results of the pairs on ``backend`` (the conftest fixture), or on the CPU engine with ``threads``."""
    cfg = dict(scoring=scoring, mode=mode, traceback=traceback)
    if matrix_budget is not None:
        cfg["matrix_budget"] = matrix_budget
    batch = make_batch([as_bytes(q) for q in queries], [as_bytes(t) for t in targets])
    return (backend or CpuPairwise(threads=threads)).align(batch, AlignConfig(**cfg))


def check_alignments(queries, targets, res, scoring, mode):
    """Structural checks of traceback results; returns the CIGAR strings.

    Every CIGAR covers its spans exactly and rescores to the reported score;
    stats and nruns agree with it; the spans obey the mode; an empty alignment
    has score 0 and zero spans.
    """
    cigars = res.cigars()
    errors = []
    for k, (q, t) in enumerate(zip(queries, targets)):
        m, n = len(q), len(t)
        score = int(res.score[k])
        span = tuple(int(x) for x in (res.qstart[k], res.qend[k], res.tstart[k], res.tend[k]))
        cig = cigars[k]
        try:
            got = rescore(q, t, span[0], span[1], span[2], span[3], cig, scoring)
        except CigarError as exc:
            errors.append(f"pair {k} (q={q!r:.60}, t={t!r:.60}): {exc}")
            continue
        problems = []
        if got != score:
            problems.append(f"CIGAR rescores to {got}, engine score {score}")
        if tuple(int(x) for x in res.stats[k]) != cigar_counts(cig):
            problems.append(f"stats {res.stats[k].tolist()} != CIGAR counts {cigar_counts(cig)}")
        ops, lens = res.cigar.runs(k)
        if int(res.cigar.count[k]) != (0 if cig == "*" else len(ops)) or "".join(
                f"{ln}{'=XID'[op]}" for op, ln in zip(ops, lens)) != ("" if cig == "*" else cig):
            problems.append("runs() disagree with cigars()")
        if cig == "*":
            if score != 0 or span != (0, 0, 0, 0):
                problems.append(f"empty alignment with score {score} spans {span}")
            if mode == "global" and (m or n):
                problems.append("global alignment of non-empty sequences is empty")
            if mode == "glocal" and m:
                problems.append("glocal alignment of a non-empty query is empty")
        else:
            if mode == "global" and span != (0, m, 0, n):
                problems.append(f"global spans {span} for lengths {m},{n}")
            if mode == "glocal" and (span[0], span[1]) != (0, m):
                problems.append(f"glocal query span {span[:2]} for length {m}")
            if mode == "semi-global" and not (span[0] == 0 or span[2] == 0):
                problems.append(f"semi-global spans {span} start inside both sequences")
            if mode == "semi-global" and not (span[1] == m or span[3] == n):
                problems.append(f"semi-global spans {span} end inside both sequences")
            if mode == "local" and (cig[-1] != "=" or not cig.split("=")[0].isdigit()):
                problems.append("local alignment does not start and end with '='")
            if mode in ("semi-global", "local") and score <= 0:
                problems.append(f"non-empty {mode} alignment with score {score}")
        if problems:
            errors.append(f"pair {k} (q={q!r:.60}, t={t!r:.60}) {cig}: " + "; ".join(problems))
    assert not errors, f"{len(errors)} bad alignments:\n" + "\n".join(errors[:20])
    return cigars


def check_score_only(res_tb, res_so, mode):
    """Score-only output agrees with the traceback output (score and end cell)."""
    np.testing.assert_array_equal(res_so.score, res_tb.score)
    np.testing.assert_array_equal(res_so.qend, res_tb.qend)
    np.testing.assert_array_equal(res_so.tend, res_tb.tend)
    assert all(c == "*" for c in res_so.cigars())
    assert not res_so.cigar.count.any()
    empty = (res_so.qend == 0) & (res_so.tend == 0)
    if mode == "global":
        fixed_q, fixed_t = 0, 0
    elif mode == "glocal":
        fixed_q, fixed_t = 0, -1
    else:
        fixed_q, fixed_t = -1, -1
    # a global/glocal pair with one side empty is not 'empty' but has spans on
    # the border; only the both-zero end cell is normalised to all-zero spans
    nonempty = ~empty
    assert (res_so.qstart[nonempty] == fixed_q).all(), res_so.qstart[nonempty]
    assert (res_so.tstart[nonempty] == fixed_t).all(), res_so.tstart[nonempty]
    assert (res_so.qstart[empty] == 0).all() and (res_so.tstart[empty] == 0).all()


# ------------------------------------------------------------- generators

def tiny_pairs(seed, count, maxlen=6, alphabet="ACGTN"):
    rng = random.Random(seed)
    qs, ts = [], []
    for _ in range(count):
        qs.append(random_dna(rng, rng.randint(0, maxlen), alphabet))
        ts.append(random_dna(rng, rng.randint(0, maxlen), alphabet))
    return qs, ts


# -------------------------------------------------------------- brute force


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scoring_name", list(SCORINGS))
def test_brute_force_vs_reference(mode, scoring_name, backend):
    scoring = SCORINGS[scoring_name]
    short = ["".join(p) for k in range(3) for p in itertools.product("ACGTN", repeat=k)]
    qs = [a for a in short for b in short]
    ts = [b for a in short for b in short]
    rq, rt = tiny_pairs(zlib.crc32(f"{mode}/{scoring_name}".encode()), 1500)
    qs += rq
    ts += rt
    res = run(qs, ts, scoring, mode, backend=backend)
    check_alignments(qs, ts, res, scoring, mode)
    compare_with_reference(qs, ts, res, scoring, mode)
    check_score_only(res, run(qs, ts, scoring, mode, traceback=False, backend=backend), mode)


def engine_tuple(res, cigars, k):
    return (int(res.score[k]), int(res.qstart[k]), int(res.qend[k]), int(res.tstart[k]),
            int(res.tend[k]), cigars[k])


def compare_with_reference(qs, ts, res, scoring, mode):
    """Score and end cell vs the reference; then the exact alignment chosen by the
    documented tie rules (score, spans and CIGAR: every backend must pick it)."""
    cigars = res.cigars()
    bad = []
    for k, (q, t) in enumerate(zip(qs, ts)):
        want = ref_align(q, t, scoring, mode)
        got = engine_tuple(res, cigars, k)
        if (got[0], got[2], got[4]) != (want[0], want[2], want[4]):
            bad.append(f"{q!r} vs {t!r}: (score, qend, tend) expected "
                       f"{(want[0], want[2], want[4])}, got {(got[0], got[2], got[4])}")
        elif got != want:
            bad.append(f"{q!r} vs {t!r}: tie rule: expected {want}, got {got}")
    assert not bad, f"{len(bad)} mismatches ({scoring}, {mode}):\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("mode", MODES)
def test_each_pair_alone_equals_batch(mode):
    """Lane packing must not leak between pairs: one pair per batch == whole batch."""
    qs, ts = random_pairs(11, 150, long_share=0.0)
    whole = run(qs, ts, AFFINE, mode)
    cig = whole.cigars()
    for k in range(len(qs)):
        alone = run([qs[k]], [ts[k]], AFFINE, mode)
        got = (int(alone.score[0]), int(alone.qstart[0]), int(alone.qend[0]),
               int(alone.tstart[0]), int(alone.tend[0]), alone.cigars()[0])
        want = (int(whole.score[k]), int(whole.qstart[k]), int(whole.qend[k]),
                int(whole.tstart[k]), int(whole.tend[k]), cig[k])
        assert got == want, (k, qs[k], ts[k])


@pytest.mark.parametrize("mode", MODES)
def test_letter_normalisation(mode, backend):
    """Lowercase, U and non-ACGT letters align exactly like their canonical form."""
    qs, ts = random_pairs(12, 400, long_share=0.0)
    raw = run(qs, ts, AFFINE, mode, backend=backend)
    canonical = run([canon(q) for q in qs], [canon(t) for t in ts], AFFINE, mode, backend=backend)
    for name in ("score", "qstart", "qend", "tstart", "tend", "stats"):
        np.testing.assert_array_equal(getattr(raw, name), getattr(canonical, name), err_msg=name)
    assert raw.cigars() == canonical.cigars()


def test_n_scoring_rules(backend):
    """N vs N is a -n_penalty 'X'; IUPAC letters are N; U equals T."""
    sc = Scoring(match=2, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1)
    res = run(["NNNN", "ACGU", "aRgt", "acgt"], ["NNNN", "ACGT", "ACGT", "ACGT"], sc, "global", backend=backend)
    assert res.score.tolist() == [-4, 8, 5, 8]
    assert res.cigars() == ["4X", "4=", "1=1X2=", "4="]
    res = run(["NNNN"], ["NNNN"], sc, "local", backend=backend)
    assert res.score.tolist() == [0] and res.cigars() == ["*"]


def test_threads_do_not_change_results():
    qs, ts = random_pairs(13, 600)
    for mode in MODES:
        one = run(qs, ts, AFFINE, mode, threads=1)
        for kwargs in (dict(threads=2), dict(threads=2, matrix_budget=1)):
            two = run(qs, ts, AFFINE, mode, **kwargs)
            for name in ("score", "qstart", "qend", "tstart", "tend", "stats"):
                np.testing.assert_array_equal(getattr(one, name), getattr(two, name),
                                              err_msg=f"{mode} {kwargs} {name}")
            assert one.cigars() == two.cigars(), (mode, kwargs)


def test_empty_batch(backend):
    for mode in MODES:
        for traceback in (True, False):
            res = run([], [], AFFINE, mode, traceback=traceback, backend=backend)
            assert res.size == 0 and res.cigars() == []


# ------------------------------------------------------ vs parasail (bulk)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gap_model", list(GAP_MODELS))
def test_random_pairs_vs_parasail(mode, gap_model, backend):
    scoring = GAP_MODELS[gap_model]
    seed = 1000 + MODES.index(mode) * 10 + list(GAP_MODELS).index(gap_model)
    qs, ts = random_pairs(seed, 10_000)
    res = run(qs, ts, scoring, mode, threads=2, backend=backend)
    check_alignments(qs, ts, res, scoring, mode)
    bad = []
    bio_done = 0
    for k, (q, t) in enumerate(zip(qs, ts)):
        if q and t:
            want = parasail_score(q, t, scoring, mode)
            bio = biopython_score(q, t, scoring, mode)
            bio_done += 1
            if bio != want:
                bad.append(f"pair {k}: Biopython {bio} != parasail {want} (oracle disagreement)")
        else:  # neither parasail nor Biopython takes empty sequences
            want = ref_score(q, t, scoring, mode)
        if int(res.score[k]) != want:
            bad.append(f"pair {k} {q!r:.80} vs {t!r:.80}: expected {want}, got {res.score[k]}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])
    assert bio_done >= 9_500  # about 3 % of the pairs have an empty side
    so = run(qs, ts, scoring, mode, traceback=False, threads=2, backend=backend)
    check_score_only(res, so, mode)


# ------------------------------------------------------ checkpoint traceback


def checkpoint_pairs(seed):
    rng = random.Random(seed)
    qs, ts = [], []
    for k in range(260):
        if k < 8:  # empty sides
            m, n = [(0, 0), (0, 1), (1, 0), (0, 700), (700, 0), (0, 5), (3, 0), (1, 1)][k]
            qs.append(random_dna(rng, m))
            ts.append(random_dna(rng, n))
            continue
        q, t = random_pair(rng, long_share=0.0)
        if k % 12 == 0:  # long ones, up to ~1,500
            q = random_dna(rng, rng.randint(300, 1500))
            t = mutate(rng, q, rng.choice((0.02, 0.1, 0.3)))
            if k % 24 == 0:
                t = random_dna(rng, rng.randint(0, 200)) + t + random_dna(rng, rng.randint(0, 200))
            if k % 36 == 0:
                q, t = t, q
        qs.append(q)
        ts.append(t)
    return qs, ts


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gap_model", list(GAP_MODELS))
def test_checkpoint_traceback_equals_full_matrix(mode, gap_model):
    scoring = GAP_MODELS[gap_model]
    qs, ts = checkpoint_pairs(50 + MODES.index(mode))
    full = run(qs, ts, scoring, mode)
    ckpt = run(qs, ts, scoring, mode, matrix_budget=1)
    for name in RESULT_FIELDS:
        np.testing.assert_array_equal(attrgetter(name)(ckpt), attrgetter(name)(full), err_msg=name)
    fc, cc = full.cigars(), ckpt.cigars()
    diff = [k for k in range(len(qs)) if fc[k] != cc[k]]
    assert not diff, [(k, len(qs[k]), len(ts[k]), fc[k][:60], cc[k][:60]) for k in diff[:5]]
    check_alignments(qs, ts, ckpt, scoring, mode)


@pytest.mark.parametrize("mode", MODES)
def test_checkpoint_traceback_wide_scores(mode):
    """The checkpointed path in float64 (score bound past 2**24)."""
    scoring = Scoring(match=3000, mismatch=5000, gap_open=7000, gap_extend=1000, n_penalty=100)
    qs, ts = checkpoint_pairs(70 + MODES.index(mode))
    qs, ts = qs[:120], ts[:120]
    full = run(qs, ts, scoring, mode)
    ckpt = run(qs, ts, scoring, mode, matrix_budget=1)
    assert_same_results(full, ckpt, ("full", "checkpointed"))
    check_alignments(qs, ts, ckpt, scoring, mode)
    for k, (q, t) in enumerate(zip(qs, ts)):
        want = parasail_score(q, t, scoring, mode) if q and t else ref_score(q, t, scoring, mode)
        assert int(full.score[k]) == want, (k, q, t)


def test_long_pair_checkpointed():
    """A 20 kb x 20 kb related pair through the checkpointed traceback."""
    rng = random.Random(20_000)
    q = random_dna(rng, 20_000)
    t = mutate(rng, q, 0.08)
    assert abs(len(t) - 20_000) < 1_000
    res = run([q], [t], AFFINE, "global", matrix_budget=1 << 20)
    assert int(res.score[0]) == parasail_score(q, t, AFFINE, "global")
    check_alignments([q], [t], res, AFFINE, "global")


# ------------------------------------------------------ wide (float64) scores


def test_wide_identical_5kb():
    """Score 10,000,000 (> 2**24) must be exact, score only and with traceback."""
    rng = random.Random(5)
    s = random_dna(rng, 5_000)
    sc = Scoring(match=2000, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1)
    assert sc.score_bound(5_000, 5_000) >= 2**24
    for mode in ("global", "local"):
        so = run([s], [s], sc, mode, traceback=False)
        assert int(so.score[0]) == 10_000_000, mode
        assert (int(so.qend[0]), int(so.tend[0])) == (5_000, 5_000)
    tb = run([s], [s], sc, "global")
    assert int(tb.score[0]) == 10_000_000 and tb.cigars() == ["5000="]


def test_wide_odd_scores_and_mixed_batch():
    """Odd scores above 2**24 (not float32-representable), mixed with float32 pairs."""
    big = 2**24 + 1
    sc = Scoring(match=big, mismatch=3, gap_open=5, gap_extend=1, n_penalty=1)
    rng = random.Random(6)
    qs, ts = [], []
    for k in range(200):
        q = random_dna(rng, rng.randint(0, 40))
        t = mutate(rng, q, 0.2)
        qs.append(q)
        ts.append(t)
    for mode in MODES:
        res = run(qs, ts, sc, mode)
        check_alignments(qs, ts, res, sc, mode)
        compare_with_reference(qs, ts, res, sc, mode)
        check_score_only(res, run(qs, ts, sc, mode, traceback=False), mode)


def test_wide_and_narrow_pairs_in_one_batch():
    """float32 and float64 pairs of one batch come back in input order."""
    sc = Scoring(match=20_000, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1)
    rng = random.Random(7)
    lengths = [100, 600, 0, 50, 450, 1, 410, 430, 300, 5, 700]
    seqs = [random_dna(rng, n) for n in lengths]
    wide = [sc.score_bound(n, n) >= 2**24 for n in lengths]
    assert any(wide) and not all(wide)
    for traceback in (False, True):
        for mode in MODES:
            res = run(seqs, seqs, sc, mode, traceback=traceback)
            assert res.score.tolist() == [20_000 * n for n in lengths], (mode, traceback)
            assert res.qend.tolist() == lengths and res.tend.tolist() == lengths
        if traceback:
            assert res.cigars() == [f"{n}=" if n else "*" for n in lengths]


HUGE_GAP = Scoring(match=2, mismatch=4, gap_open=2**31, gap_extend=2, n_penalty=1)
HUGE_CASES = [
    # (query, target, scoring, mode): optimal scores below -2**30. float64 lanes
    # hold them exactly ("exact integers to 2**53"); the engine must not clip
    # them at its 'minus infinity'.
    ("A", "C", Scoring(match=0, mismatch=2**32, gap_open=2**32, gap_extend=1), "global"),
    ("ACGTTACG", "ACGTACG", HUGE_GAP, "global"),
    ("ACGTTACG", "ACGTACG", HUGE_GAP, "glocal"),
    ("A", "", HUGE_GAP, "glocal"),
    ("A" * 1200, "C" * 1200,
     Scoring(match=1, mismatch=10**6, gap_open=10**6, gap_extend=10**6, n_penalty=1), "global"),
]


@pytest.mark.parametrize("case", range(len(HUGE_CASES)))
def test_huge_scores(case, backend):
    q, t, sc, mode = HUGE_CASES[case]
    if len(q) > 100:  # all mismatches is optimal: every gap costs more than it saves
        want = (-sc.mismatch * len(q), 0, len(q), 0, len(t), f"{len(q)}X")
        assert want[0] == biopython_score(q, t, sc, mode)
    else:
        want = ref_align(q, t, sc, mode)
    assert want[0] < -(2**30)
    res = run([q], [t], sc, mode, backend=backend)
    assert engine_tuple(res, res.cigars(), 0) == want
    check_alignments([q], [t], res, sc, mode)
    check_score_only(res, run([q], [t], sc, mode, traceback=False, backend=backend), mode)


# --------------------------------------------------------------- hypothesis

LETTERS = "ACGTNacgtUR"
seqs = st.text(alphabet=LETTERS, min_size=0, max_size=9)
scorings = st.builds(Scoring, match=st.integers(0, 6), mismatch=st.integers(0, 8),
                     gap_open=st.integers(0, 8), gap_extend=st.integers(0, 4),
                     n_penalty=st.integers(0, 4))


@settings(max_examples=1000, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(seqs, seqs), min_size=1, max_size=8), scoring=scorings,
       mode=st.sampled_from(MODES))
def test_property_vs_reference(pairs, scoring, mode):
    check_property(pairs, scoring, mode)


def check_property(pairs, scoring, mode):
    qs = [p[0] for p in pairs]
    ts = [p[1] for p in pairs]
    res = run(qs, ts, scoring, mode)
    check_alignments(qs, ts, res, scoring, mode)
    compare_with_reference(qs, ts, res, scoring, mode)
    check_score_only(res, run(qs, ts, scoring, mode, traceback=False), mode)


big_scorings = st.builds(Scoring, match=st.integers(0, 2**24), mismatch=st.integers(0, 2**24),
                         gap_open=st.integers(0, 2**24), gap_extend=st.integers(0, 2**23),
                         n_penalty=st.integers(0, 2**24))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(seqs, seqs), min_size=1, max_size=8), scoring=big_scorings,
       mode=st.sampled_from(MODES))
def test_property_large_values_vs_reference(pairs, scoring, mode):
    """Scoring values up to 2**24: float64 lanes, and float32 lanes near their limit."""
    check_property(pairs, scoring, mode)
