"""Correctness of the triplet family (exact 3-way alignment) against independent oracles, on every backend.

* brute force (every alignment of tiny triplets, all modes): the score; the
  plain-Python 3-D DP of ``triplet_oracles``: the exact alignment the tie
  rules pick (score, spans, columns), random triplets up to 40 bp;
* invariants on every alignment: the columns cover the spans, rescoring
  gives the score, and (linear gaps) so does the sum of the three pairwise
  projections;
* what follows from the definitions: identical sequences score 3*match*n;
  (X, X, Y) in global mode scores n*match + 2 * the pairwise score of X and Y;
* score only against traceback, checkpointed walk against the full cube,
  wide (int64) scores, large scores just under the int32 cell limit;
* the real SARS-CoV-2 set (``tests/data/triplet``) against the oracle's scores;
* affine gaps: tiny triplets against brute force and, with the tie rules,
  ``ref_align_affine``; random triplets up to 24 bp; the checkpointed walk;
  score only; the command line (and on the cuda backend, the route to the
  CPU engine said on stderr);
* the command line: TSV and MAF (read back by Biopython, rows projecting to
  the inputs), lockstep and interleaved input, bad input, usage errors.

Tests taking ``triplet_backend`` run on the CPU engine and, where a GPU is
usable, on the cuda backend.
"""

from __future__ import annotations

import csv
import itertools
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Mode, Scoring
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.families.triplet.batch import make_triplets

from support.backends import make_backend
from support.generators import random_dna, related_triplet
from support.helpers import gpu_count

from support.triplet_oracles import brute_force, gapped_rows, projection_score, ref_align, ref_align_affine, rescore

MODES = ("global", "semi-global", "local")
LINEAR = Scoring(match=2, mismatch=4, gap_open=0, gap_extend=2, n_penalty=1)
SCORINGS = {
    "default": LINEAR,
    "cheap_gaps": Scoring(match=5, mismatch=3, gap_open=0, gap_extend=1, n_penalty=2),
    "edit": Scoring(match=0, mismatch=1, gap_open=0, gap_extend=1, n_penalty=1),
}
#: int64 cells on the CPU (bound past 2**28), scores past 2**24 and 2**32
WIDE = Scoring(match=300_000_000, mismatch=500_000_000, gap_open=0, gap_extend=200_000_000, n_penalty=7)
#: affine gaps (quasi-natural costs); the wide one in int64 cells
AFFINE = {
    "affine": Scoring(match=2, mismatch=4, gap_open=3, gap_extend=1, n_penalty=1),
    "affine_cheap": Scoring(match=5, mismatch=3, gap_open=1, gap_extend=1, n_penalty=2),
    "affine_wide": Scoring(match=300_000_000, mismatch=500_000_000, gap_open=100_000_000, gap_extend=200_000_000,
                           n_penalty=7),
}
DATA = Path(__file__).parent / "data" / "triplet"


def align(backend, a, b, c, scoring, mode, traceback=True, budget=None):
    enc = lambda xs: [x.encode() if isinstance(x, str) else x for x in xs]  # noqa: E731
    cfg = dict(scoring=scoring, mode=mode, traceback=traceback)
    if budget is not None:
        cfg["matrix_budget"] = budget
    return backend.align(make_triplets(enc(a), enc(b), enc(c)), AlignConfig(**cfg))


def records(res):
    cols = res.column_strings()
    return [(int(res.score[t]), tuple(res.start[t].tolist()), tuple(res.end[t].tolist()), cols[t])
            for t in range(res.size)]


def check_invariants(a, b, c, res, scoring):
    for t, (score, begins, ends, cols) in enumerate(records(res)):
        if cols == "*":
            assert begins == ends == (0, 0, 0)
            continue
        assert rescore(a[t], b[t], c[t], begins, ends, cols, scoring) == score, t
        assert projection_score(a[t], b[t], c[t], begins, ends, cols, scoring) == score, t


# ------------------------------------------------------------- oracles


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(SCORINGS))
def test_tiny_triplets_vs_brute_force(triplet_backend, mode, name):
    scoring = SCORINGS[name]
    words = ["".join(p) for k in range(3) for p in itertools.product("ACN", repeat=k)]
    rng = random.Random(hash((mode, name)) & 0xFFFF)
    trip = [(x, y, z) for x in words[:7] for y in words[:7] for z in words[:7]]
    trip += [tuple(random_dna(rng, rng.randint(0, 4), "ACGTN") for _ in range(3)) for _ in range(120)]
    a, b, c = (list(x) for x in zip(*trip))
    res = align(triplet_backend, a, b, c, scoring, mode)
    got = records(res)
    bad = []
    for t in range(len(a)):
        want = brute_force(a[t], b[t], c[t], scoring, mode)[0]
        exact = ref_align(a[t], b[t], c[t], scoring, mode)
        if got[t][0] != want or got[t] != tuple(exact):
            bad.append((a[t], b[t], c[t], want, exact, got[t]))
    assert not bad, bad[:5]
    check_invariants(a, b, c, res, scoring)


@pytest.mark.parametrize("mode", MODES)
def test_random_triplets_vs_reference(triplet_backend, mode):
    rng = random.Random(7 + MODES.index(mode))
    trip = [related_triplet(rng, rng.randint(0, 40), alphabet="ACGTN" if k % 5 == 0 else "ACGT") for k in range(40)]
    trip += [[random_dna(rng, rng.randint(0, 30)) for _ in range(3)] for _ in range(20)]
    a, b, c = (list(x) for x in zip(*trip))
    for name in ("default", "cheap_gaps"):
        res = align(triplet_backend, a, b, c, SCORINGS[name], mode)
        got = records(res)
        for t in range(len(a)):
            assert got[t] == tuple(ref_align(a[t], b[t], c[t], SCORINGS[name], mode)), (name, a[t], b[t], c[t])
        check_invariants(a, b, c, res, SCORINGS[name])
        only = align(triplet_backend, a, b, c, SCORINGS[name], mode, traceback=False)
        assert only.score.tolist() == res.score.tolist()
        assert only.end.tolist() == res.end.tolist()
        assert only.column_strings() == ["*"] * len(a)
        start = 0 if mode == "global" else -1
        empty = res.columns.count == 0
        assert (only.start[~empty] == start).all() and (only.start[empty] == 0).all()


@pytest.mark.parametrize("mode", MODES)
def test_short_triplets_score_only_vs_reference(triplet_backend, mode):
    """Score only at slice sides up to 14 (on the GPU: a thread a whole slice up to the plan's largest, the
    lane groups past it, one tile of squares of 7 for sides 13-14): every length mix, N and empty sequences, an
    odd count (one item of one triplet)."""
    rng = random.Random(31 + MODES.index(mode))
    trip = [[random_dna(rng, n, "ACGTN" if k % 4 == 0 else "ACGT") for n in lens]
            for k, lens in enumerate(itertools.product((0, 1, 4, 5, 8, 9, 12, 13), repeat=3))]
    trip += [related_triplet(rng, rng.choice((4, 8)), rate=0.2) for _ in range(60)]
    trip += [[random_dna(rng, 8)] * 3, [random_dna(rng, rng.randint(0, 8)) for _ in range(3)]]
    a, b, c = (list(x) for x in zip(*trip))
    for name in ("default", "cheap_gaps", "edit"):
        res = align(triplet_backend, a, b, c, SCORINGS[name], mode, traceback=False)
        got = [(int(res.score[t]), tuple(res.end[t].tolist())) for t in range(len(a))]
        want = [(w[0], w[2]) for w in (ref_align(a[t], b[t], c[t], SCORINGS[name], mode) for t in range(len(a)))]
        bad = [(a[t], b[t], c[t], want[t], got[t]) for t in range(len(a)) if got[t] != want[t]]
        assert not bad, (name, len(bad), bad[:3])


@pytest.mark.parametrize("mode", MODES)
def test_checkpointed_walk_equals_the_whole_cube(mode):
    """The walk through recomputed blocks of slices (budget 1 byte: every triplet; 5,000: the larger ones)."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet

    rng = random.Random(30 + MODES.index(mode))
    trip = [related_triplet(rng, rng.randint(1, 70)) for _ in range(25)]
    trip += [[random_dna(rng, rng.randint(0, 12)) for _ in range(3)] for _ in range(20)]
    a, b, c = (list(x) for x in zip(*trip))
    engine = CpuTriplet(2)
    full = records(align(engine, a, b, c, LINEAR, mode))
    assert records(align(engine, a, b, c, LINEAR, mode, budget=1)) == full
    assert records(align(engine, a, b, c, LINEAR, mode, budget=5000)) == full
    one = align(CpuTriplet(1), a, b, c, SCORINGS["cheap_gaps"], mode)
    assert records(one) == records(align(engine, a, b, c, SCORINGS["cheap_gaps"], mode, budget=1))


@pytest.mark.parametrize("mode", MODES)
def test_cpu_walk_keeps_the_kinds_past_the_value_bound(mode):
    """Where a candidate may fall 256 or more below its cell, the CPU engine's cube keeps each cell's kind, not
    its value's low byte (whole and checkpointed), against the plain DP; within the bound the walk on the
    values' bytes gives the checkpointed walk's alignments (test_checkpointed_walk_equals_the_whole_cube)."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet

    codes = Scoring(match=20, mismatch=30, gap_open=0, gap_extend=25, n_penalty=5)
    assert not codes.triplet_values_fit() and LINEAR.triplet_values_fit()
    rng = random.Random(40 + MODES.index(mode))
    trip = [related_triplet(rng, rng.randint(1, 30)) for _ in range(12)]
    trip += [[random_dna(rng, rng.randint(0, 10), "ACGTN") for _ in range(3)] for _ in range(12)]
    a, b, c = (list(x) for x in zip(*trip))
    got = records(align(CpuTriplet(2), a, b, c, codes, mode))
    for t in range(len(a)):
        assert got[t] == tuple(ref_align(a[t], b[t], c[t], codes, mode)), (a[t], b[t], c[t])
    assert records(align(CpuTriplet(2), a, b, c, codes, mode, budget=1)) == got


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(AFFINE))
def test_affine_triplets_vs_oracles(triplet_backend, mode, name):
    """Affine gaps: tiny triplets against brute force, every triplet (up to 24 bp) against the plain DP of seven
    values a cell with the tie rules; rescoring the columns gives the score; score only gives it too."""
    scoring = AFFINE[name]
    words = ["".join(p) for k in range(3) for p in itertools.product("ACN", repeat=k)]
    rng = random.Random(70 + MODES.index(mode) + 3 * list(AFFINE).index(name))
    trip = [(x, y, z) for x in words[:5] for y in words[:5] for z in words[:5]]
    trip += [tuple(random_dna(rng, rng.randint(0, 4), "ACGTN") for _ in range(3)) for _ in range(60)]
    tiny = len(trip)
    trip += [related_triplet(rng, rng.randint(0, 24), alphabet="ACGTN" if k % 4 == 0 else "ACGT")
             for k in range(16)]
    a, b, c = (list(x) for x in zip(*trip))
    res = align(triplet_backend, a, b, c, scoring, mode)
    got = records(res)
    for t in range(len(a)):
        want = ref_align_affine(a[t], b[t], c[t], scoring, mode)
        assert got[t] == want, (a[t], b[t], c[t], got[t], want)
        if t < tiny:
            assert want[0] == brute_force(a[t], b[t], c[t], scoring, mode)[0]
        if want[3] != "*":
            assert rescore(a[t], b[t], c[t], *want[1:], scoring) == want[0]
    only = align(triplet_backend, a, b, c, scoring, mode, traceback=False)
    assert only.score.tolist() == res.score.tolist() and only.end.tolist() == res.end.tolist()


@pytest.mark.parametrize("mode", MODES)
def test_affine_checkpointed_walk_equals_the_whole_cube(mode):
    """Affine gaps: the walk through recomputed blocks of slices (budget 1 byte: every triplet; 20,000: the
    larger ones) gives the whole cube's alignments, on one thread or two."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet

    rng = random.Random(90 + MODES.index(mode))
    trip = [related_triplet(rng, rng.randint(1, 40)) for _ in range(12)]
    trip += [[random_dna(rng, rng.randint(0, 10)) for _ in range(3)] for _ in range(10)]
    a, b, c = (list(x) for x in zip(*trip))
    for scoring in (AFFINE["affine"], AFFINE["affine_wide"]):
        full = records(align(CpuTriplet(1), a, b, c, scoring, mode))
        assert records(align(CpuTriplet(2), a, b, c, scoring, mode, budget=1)) == full
        assert records(align(CpuTriplet(1), a, b, c, scoring, mode, budget=20_000)) == full


def test_affine_gaps_cost_more_than_linear(triplet_backend):
    """Each opening costs gap-open: with it 0 the affine engine gives the linear scores; with it above 0 a
    triplet whose best alignment has gaps scores less, one without gaps the same."""
    rng = random.Random(11)
    trip = [related_triplet(rng, rng.randint(5, 30)) for _ in range(20)] + [("ACGTAC",) * 3]
    a, b, c = (list(x) for x in zip(*trip))
    linear = align(triplet_backend, a, b, c, LINEAR, "global")
    affine = align(triplet_backend, a, b, c, replace(LINEAR, gap_open=5), "global")
    gapped = np.array([set(cols) != {"M"} and cols != "*" for cols in linear.column_strings()]) & (
        np.array([len(set(map(len, t))) > 1 for t in trip]))
    assert (affine.score <= linear.score).all()
    assert (affine.score[gapped] < linear.score[gapped]).all() and gapped.any()
    assert affine.score[-1] == linear.score[-1] == 3 * 2 * 6


@pytest.mark.parametrize("mode", MODES)
def test_wide_scores(triplet_backend, mode):
    rng = random.Random(50 + MODES.index(mode))
    trip = [related_triplet(rng, rng.randint(0, 25), alphabet="ACGTN") for _ in range(20)]
    a, b, c = (list(x) for x in zip(*trip))
    res = align(triplet_backend, a, b, c, WIDE, mode)
    for t, got in enumerate(records(res)):
        assert got == tuple(ref_align(a[t], b[t], c[t], WIDE, mode))
    assert np.abs(res.score).max() > 2**32


@pytest.mark.parametrize("mode", MODES)
def test_scores_near_the_int32_cell_limit(triplet_backend, mode):
    """Large scores whose bound stays just under the int32 cell limit (32-bit sums everywhere on the CPU)."""
    from seqalign_cli.families.triplet.cpu import INT32_LIMIT

    rng = random.Random(60 + MODES.index(mode))
    trip = [related_triplet(rng, rng.randint(15, 25), alphabet="ACGTN") for _ in range(10)]
    trip.append(["ACGT" * 6 + "A", "ACGT" * 6 + "A", "ACGT" * 6 + "A"])
    a, b, c = (list(x) for x in zip(*trip))
    big = Scoring(match=1_000_000, mismatch=1_100_000, gap_open=0, gap_extend=900_000, n_penalty=7)
    lengths = np.array([[len(a[t]), len(b[t]), len(c[t])] for t in range(len(a))])
    assert big.triplet_bound(lengths).max() < INT32_LIMIT
    res = align(triplet_backend, a, b, c, big, mode)
    for t, got in enumerate(records(res)):
        assert got == tuple(ref_align(a[t], b[t], c[t], big, mode))
    assert np.abs(res.score).max() > 2**26


@pytest.mark.parametrize("mode", MODES)
def test_scores_near_the_16bit_lane_limit(triplet_backend, mode):
    """Score only, values that reach the 16-bit lanes' bound from above (identical sequences: match a residue)
    and from below (a residue alone in its column: two gaps); the GPU takes them in 16-bit lanes."""
    from seqalign_cli.families.triplet import plan as tp

    rng = random.Random(70 + MODES.index(mode))
    x = random_dna(rng, 44)
    cases = {
        Scoring(match=100, mismatch=1, gap_open=0, gap_extend=1, n_penalty=1):  # 100 a residue: 13,200 at the end
            [[x, x, x], [x[:40], x[:41], x[:42]]] + [related_triplet(rng, 40) for _ in range(2)],
        Scoring(match=1, mismatch=40, gap_open=0, gap_extend=40, n_penalty=40):  # -80 a residue alone
            [[random_dna(rng, 150), "", ""], ["", random_dna(rng, 3), random_dna(rng, 147)],
             [random_dna(rng, 100), random_dna(rng, 50), ""]],
    }
    for sc, trip in cases.items():
        a, b, c = (list(t) for t in zip(*trip))
        lengths = np.array([[len(a[t]), len(b[t]), len(c[t])] for t in range(len(a))])
        T, R = tp.plan_shapes(lengths, Mode.parse(mode), scoring=sc)
        assert tp.fits16(sc, lengths, T, R).all()
        res = align(triplet_backend, a, b, c, sc, mode, traceback=False)
        for t in range(len(a)):
            want = ref_align(a[t], b[t], c[t], sc, mode)
            assert (int(res.score[t]), tuple(res.end[t].tolist())) == (want[0], tuple(want[2])), (t, sc)
        assert np.abs(res.score).max() >= 11000 or mode != "global"


# ------------------------------------------------------- from the definitions


def test_identical_sequences_score_three_matches_a_column(triplet_backend):
    rng = random.Random(3)
    seqs = [random_dna(rng, n) for n in (1, 8, 64, 150)]
    res = align(triplet_backend, seqs, seqs, seqs, LINEAR, "global")
    assert res.score.tolist() == [3 * LINEAR.match * len(s) for s in seqs]
    assert res.column_strings() == [f"{len(s)}M" for s in seqs]


@pytest.mark.parametrize("scoring", [LINEAR, SCORINGS["cheap_gaps"]], ids=["default", "cheap_gaps"])
def test_x_x_y_is_x_against_itself_plus_twice_x_against_y(triplet_backend, scoring):
    """Global, linear gaps, ACGT only: the sum of pairs is at most opt(X,X) + 2 opt(X,Y), and aligning the two X
    identically reaches it; so the 3-way score is len(X) * match + 2 * the pairwise global score of X and Y."""
    rng = random.Random(11)
    xs = [random_dna(rng, rng.randint(1, 60)) for _ in range(30)]
    ys = [related_triplet(rng, len(x))[0] if k % 2 else random_dna(rng, rng.randint(0, 60)) for k, x in enumerate(xs)]
    res = align(triplet_backend, xs, xs, ys, scoring, "global")
    pair = CpuPairwise(1).align(make_batch([x.encode() for x in xs], [y.encode() for y in ys]),
                                AlignConfig(scoring=scoring, mode="global", traceback=False))
    expected = [len(x) * scoring.match + 2 * int(p) for x, p in zip(xs, pair.score)]
    assert res.score.tolist() == expected


def test_zero_length_sequences(triplet_backend):
    a, b, c = ["", "ACGT", "", ""], ["", "", "AC", ""], ["", "", "", "G"]
    for mode in MODES:
        res = align(triplet_backend, a, b, c, LINEAR, mode)
        for t, got in enumerate(records(res)):
            assert got == tuple(ref_align(a[t], b[t], c[t], LINEAR, mode)), (mode, t)


# --------------------------------------------------------------- real data


def _sars():
    from seqalign_cli.io.fastx import FastxReader

    seqs = [[r.seq.decode() for r in FastxReader(str(DATA / f"sars.{s}.fa"))] for s in "abc"]
    expected = {}
    with open(DATA / "sars.expected.tsv") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            expected[int(row["index"]), row["mode"]] = int(row["score"])
    return seqs, expected


@pytest.mark.parametrize("mode", MODES)
def test_sars_cov_2_triplets(triplet_backend, mode):
    (a, b, c), expected = _sars()
    res = align(triplet_backend, a, b, c, LINEAR, mode)
    assert res.score.tolist() == [expected[t, mode] for t in range(len(a))]
    small = [t for t in range(len(a)) if max(len(a[t]), len(b[t]), len(c[t])) <= 40]
    for t in small:
        assert records(res)[t] == tuple(ref_align(a[t], b[t], c[t], LINEAR, mode))
    check_invariants(a, b, c, res, LINEAR)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 2, reason="needs two GPUs")
@pytest.mark.parametrize("traceback", [False, True])
def test_several_gpus_equal_the_cpu(traceback):
    """Every GPU through the shared scheduler, mixed lengths: batches whole to one GPU's pipeline and in
    pieces of similar cell counts over all of them."""
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend
    from seqalign_cli.families.triplet.cpu import CpuTriplet

    rng = random.Random(77)
    trip = [related_triplet(rng, int(2 ** rng.uniform(0, 8))) for _ in range(300)]
    a, b, c = (list(x) for x in zip(*trip))
    multi = select_backend(families.get("triplet"), "cuda", 4, lambda m: None, "all")
    multi.spread_cells = multi.piece_records = 0  # to the GPUs' pipelines, whatever the cells a triplet
    for mode in MODES:
        want = records(align(CpuTriplet(4), a, b, c, LINEAR, mode, traceback))
        for split in (10**15, 0):  # whole batches, then pieces
            multi.split_cells = split
            assert records(align(multi, a, b, c, LINEAR, mode, traceback)) == want, (mode, split)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
@pytest.mark.parametrize("traceback", [False, True])
def test_tile_wave_equals_the_cpu(monkeypatch, traceback):
    """Every triplet of several tiles as a tile wave (each tile its own group): lengths around the tiles'
    sides, unequal tile counts, 16-bit and int32 lanes, an empty sequence among long ones."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.families.triplet import plan as tp

    monkeypatch.setattr(tp, "WAVE_TILES", 2)
    rng = random.Random(91)
    trip = [related_triplet(rng, n) for n in (11, 12, 13, 23, 24, 25, 47, 48, 49, 60, 95, 130)]
    trip += [[random_dna(rng, rng.randint(0, 140)) for _ in range(3)] for _ in range(30)]
    trip += [["", random_dna(rng, 70), random_dna(rng, 90)], [random_dna(rng, 50), "", random_dna(rng, 60)]]
    a, b, c = (list(x) for x in zip(*trip))
    gpu = make_backend("triplet", "cuda")
    for scoring in (LINEAR, Scoring(match=40, mismatch=40, gap_open=0, gap_extend=40, n_penalty=40)):
        for mode in MODES:
            assert records(align(gpu, a, b, c, scoring, mode, traceback)) == \
                records(align(CpuTriplet(4), a, b, c, scoring, mode, traceback)), (mode, scoring)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
@pytest.mark.parametrize("mode", MODES)
def test_long_score_only_in_squares_of_6_and_7_equal_the_cpu(mode):
    """Score only past the shape choice (slice sides over 100): 16 lanes of 7 x 7 where they pad fewer cells
    than 6 x 6 (sides 101-112, 121-140), of 6 x 6 beside them; one pass and several, the sweep and the tile
    wave, 16-bit and int32 lanes (a scoring past the 16-bit bound), unequal lengths, an empty sequence."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.families.triplet import plan as tp

    rng = random.Random(97)
    sizes = (99, 100, 104, 111, 112, 119, 120, 128, 139, 140, 150)
    trip = [related_triplet(rng, n) for n in sizes]
    trip += [[random_dna(rng, rng.randint(95, 145)) for _ in range(3)] for _ in range(12)]
    trip += [["", random_dna(rng, 110), random_dna(rng, 130)], [random_dna(rng, 120), random_dna(rng, 105), ""]]
    a, b, c = (list(x) for x in zip(*trip))
    lengths = np.array([[len(a[t]), len(b[t]), len(c[t])] for t in range(len(a))])
    T, R = tp.plan_shapes(lengths, Mode.parse(mode))
    assert {(16, 6), (16, 7)} <= set(zip(T.tolist(), R.tolist()))
    gpu = make_backend("triplet", "cuda")
    engines = gpu.engines
    try:
        for wave in (0, 2):
            for e in engines:
                e.tuning = replace(e.tuning, wave_tiles=wave)
            for scoring in (LINEAR, Scoring(match=40, mismatch=40, gap_open=0, gap_extend=40, n_penalty=40)):
                got = records(align(gpu, a, b, c, scoring, mode, traceback=False))
                assert got == records(align(CpuTriplet(4), a, b, c, scoring, mode, traceback=False)), (wave, scoring)
    finally:
        for e in engines:
            e.tuning = replace(e.tuning, wave_tiles=None)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
def test_traceback_in_both_lane_widths_equals_the_cpu():
    """Traceback in 16-bit lanes (two triplets a group, each one's codes laid out by its own lengths: partners
    of unequal lengths, empty sequences) and in int32 lanes (forced), every mode, the sweep only (the tile
    wave: test_tile_wave_equals_the_cpu); lengths around the groups' tiles (4 lanes of 6: 12, 16 lanes of
    6: 24) and past one tile. The bytes are the values' low bytes (Scoring.triplet_values_fit; a scoring whose candidates
    may fall the most, 255, below a cell) or the codes (a scoring past it)."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet

    edge = Scoring(match=10, mismatch=25, gap_open=0, gap_extend=20, n_penalty=3)
    codes = Scoring(match=20, mismatch=30, gap_open=0, gap_extend=25, n_penalty=5)
    assert LINEAR.triplet_values_fit() and edge.triplet_values_fit() and not codes.triplet_values_fit()

    rng = random.Random(93)
    trip = [related_triplet(rng, n) for n in (1, 3, 4, 5, 11, 12, 13, 23, 24, 25, 47, 48, 49, 60, 95)]
    trip += [[random_dna(rng, rng.randint(0, 110)) for _ in range(3)] for _ in range(40)]
    trip += [["", random_dna(rng, 30), random_dna(rng, 20)], [random_dna(rng, 9), "", ""]]
    a, b, c = (list(x) for x in zip(*trip))
    gpu = make_backend("triplet", "cuda")
    engines = gpu.engines
    try:
        for pack16 in (True, False):
            for e in engines:
                e.tuning = replace(e.tuning, pack16=pack16, wave_tiles=0)
            for mode in MODES:
                for scoring in (LINEAR, edge, codes):
                    got = records(align(gpu, a, b, c, scoring, mode))
                    assert got == records(align(CpuTriplet(4), a, b, c, scoring, mode)), (mode, pack16, scoring)
    finally:
        for e in engines:
            e.tuning = replace(e.tuning, pack16=True, wave_tiles=None)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
def test_traceback_in_windows_of_slices_equals_the_cpu():
    """Triplets whose codes pass the budget trace back on the GPU in windows of slices (a sweep and a walk a
    window, from the end): every mode, 16-bit and int32 lanes, the tile wave and the sweep, one slice a
    window up to many; the walk carries its runs from window to window. The first window's sweep keeps the
    slice below each other window where those checkpoints fit the budget, from which that window's sweep
    starts (16-bit partners of unequal lengths in the same windows where the budget allows, else from slice
    0; without checkpoints, every window's sweep); the bytes are the values' low bytes (with checkpoints: the
    walk takes the values at a window's edge from them) or the codes (a scoring past Scoring.triplet_values_fit, or no
    checkpoints)."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.families.triplet import plan as tp

    edge = Scoring(match=10, mismatch=25, gap_open=0, gap_extend=20, n_penalty=3)
    codes = Scoring(match=20, mismatch=30, gap_open=0, gap_extend=25, n_penalty=5)
    assert LINEAR.triplet_values_fit() and edge.triplet_values_fit() and not codes.triplet_values_fit()
    rng = random.Random(95)
    trip = [related_triplet(rng, n) for n in (20, 24, 25, 48, 49, 70, 95, 130, 160)]
    trip += [[random_dna(rng, rng.randint(1, 120)) for _ in range(3)] for _ in range(12)]
    trip += [[random_dna(rng, n) for _ in range(3)] for n in (60, 60, 90, 90)]  # partners of equal lengths
    a, b, c = (list(x) for x in zip(*trip))
    batch = make_triplets(*([x.encode() for x in xs] for xs in (a, b, c)))
    gpu = make_backend("triplet", "cuda")
    engines = gpu.engines
    kept, shared = set(), False
    try:
        for budget, scoring in ((60_000, LINEAR), (400_000, codes), (150_000, edge)):
            for mode in MODES:
                cfg = AlignConfig(scoring=scoring, mode=mode, traceback=True, matrix_budget=budget)
                T, R = tp.plan_shapes(batch.lengths, cfg.mode_code, True, cfg.scoring)
                m = tp.window_slices(batch.lengths, cfg.mode_code, budget, T, R)
                assert (m > 0).sum() >= 5 and (m == 0).any(), (budget, m)
                kept |= set(tp.window_checkpoints(batch.lengths, cfg.mode_code, m, budget, T, R)[m > 0].tolist())
                # 16-bit partners of unequal lengths in the same windows (shared_windows)
                for pl in tp.plan_launches(batch.lengths, np.arange(len(trip)), cfg, tp.Tuning()):
                    if pl.wslices is not None and pl.pack16:
                        two = pl.order.reshape(-1, 2)
                        two = two[(two >= 0).all(axis=1)]
                        shared |= bool(((batch.lengths[two[:, 0], 0] != batch.lengths[two[:, 1], 0])
                                        & (pl.wslices[two[:, 0]] == pl.wslices[two[:, 1]]).all(axis=1)).any())
                want = records(align(CpuTriplet(4), a, b, c, scoring, mode))
                # the plan's lanes (the tile wave: few triplets); in global mode int32 lanes and the sweep too
                for pack16, wave in ((True, None),) + (((False, None), (True, 0)) if mode == "global" else ()):
                    for e in engines:
                        e.tuning = replace(e.tuning, pack16=pack16, wave_tiles=wave)
                    got = records(align(gpu, a, b, c, scoring, mode, budget=budget))
                    assert got == want, (budget, scoring, mode, pack16, wave)
        assert kept == {True, False} and shared
    finally:
        for e in engines:
            e.tuning = replace(e.tuning, pack16=True, wave_tiles=None)


# ------------------------------------------------------------ command line


def seqalign(*args, input=None):
    return subprocess.run([sys.executable, "-m", "seqalign_cli", *map(str, args)], capture_output=True, input=input)


@pytest.mark.parametrize("fmt", ["tsv", "maf"])
def test_parts_formatted_side_by_side_equal_one_call(tmp_path, monkeypatch, fmt):
    """A chunk's triplets cut into parts and formatted by several threads give the bytes of one call."""
    from seqalign_cli.families.triplet.chunks import lockstep_chunks
    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.writers import WRITERS, WriterContext, load, parts
    from seqalign_cli.writers.output import OutputFile

    monkeypatch.setattr(parts, "PART", 4)  # 60 triplets: several parts of a chunk
    cuts = []
    real_cut = parts.cut
    monkeypatch.setattr(parts, "cut", lambda views, a, b: cuts.append((a, b)) or real_cut(views, a, b))
    files = tuple(str(DATA / f"sars.{s}.fa") for s in "abc")
    engine, cfg = CpuTriplet(2), AlignConfig(mode="local", traceback=True)
    chunks = [(c, engine.align(c.batch(), cfg)) for c in lockstep_chunks(files, 30)]
    outs = []
    for threads in (1, 3):
        out = tmp_path / f"{threads}.{fmt}"
        ctx = WriterContext(out=OutputFile(str(out)), command_line="seqalign test", traceback=True, threads=threads)
        writer = load(WRITERS[("triplet", fmt)])(ctx)
        for chunk, res in chunks:
            writer.write(chunk, res)
        writer.close()
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and len(outs[0]) > 1000
    assert cuts[:3] == [(0, 10), (10, 20), (20, 30)]  # threads 3: 30 triplets in three parts


def test_tsv_and_maf_from_the_command_line(tmp_path):
    from Bio import Align

    files = [DATA / f"sars.{s}.fa" for s in "abc"]
    (a, b, c), _ = _sars()
    tsv, maf = tmp_path / "out.tsv", tmp_path / "out.maf"
    for out in (tsv, maf):
        proc = seqalign("triplet", "-q", "--mode", "local", *files, "-o", out)
        assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in tsv.read_text().splitlines()]
    assert rows[0][:7] == ["#name1", "name2", "name3", "len1", "len2", "len3", "score"] and len(rows) == len(a) + 1
    blocks = list(Align.parse(str(maf), "maf"))
    assert len(blocks) == len(a)
    for t, (row, block) in enumerate(zip(rows[1:], blocks)):
        assert int(block.score) == int(row[6])
        begins, ends = [int(x) for x in row[7:13:2]], [int(x) for x in row[8:13:2]]
        kept = [s for s in range(3) if ends[s] > begins[s]]
        assert [str(r.id) for r in block.sequences] == [row[s] for s in kept]
        texts = [str(block[k]) for k in range(len(kept))] if kept else []
        for k, s in enumerate(kept):
            assert texts[k].replace("-", "") == (a, b, c)[s][t][begins[s]:ends[s]]
        if kept:
            full = gapped_rows(a[t], b[t], c[t], begins, row[13])
            assert texts == [full[s] for s in kept]
    interleaved = seqalign("triplet", "-q", "--mode", "local", "--interleaved", DATA / "sars.interleaved.fa")
    assert interleaved.returncode == 0 and interleaved.stdout.decode() == tsv.read_text()


def _affine_files(tmp_path):
    """Three lockstep FASTA files of related triplets up to 30 bp; their sequences."""
    rng = random.Random(13)
    trip = [related_triplet(rng, rng.randint(0, 30)) for _ in range(12)]
    seqs = list(zip(*trip))
    files = []
    for s, name in enumerate("abc"):
        path = tmp_path / f"{name}.fa"
        path.write_text("".join(f">{name}{t}\n{seq}\n" for t, seq in enumerate(seqs[s])))
        files.append(path)
    return files, seqs


@pytest.mark.parametrize("mode", MODES)
def test_affine_gaps_from_the_command_line(tmp_path, mode):
    """--gap-open > 0: the TSV rows are the oracle's; the MAF blocks score alike and project to the inputs."""
    from Bio import Align

    files, (a, b, c) = _affine_files(tmp_path)
    scoring = Scoring(match=2, mismatch=4, gap_open=3, gap_extend=1, n_penalty=1)
    args = ("triplet", "-q", "--mode", mode, "--gap-open", 3, "--gap-extend", 1, *files)
    tsv, maf = tmp_path / "out.tsv", tmp_path / "out.maf"
    for out in (tsv, maf):
        proc = seqalign(*args, "-o", out)
        assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in tsv.read_text().splitlines()[1:]]
    blocks = list(Align.parse(str(maf), "maf"))
    assert len(rows) == len(blocks) == len(a)
    for t, (row, block) in enumerate(zip(rows, blocks)):
        score, begins, ends, columns = ref_align_affine(a[t], b[t], c[t], scoring, mode)
        assert (int(row[6]), row[13]) == (score, columns) and int(block.score) == score
        assert [int(x) for x in row[7:13:2]] == list(begins) and [int(x) for x in row[8:13:2]] == list(ends)
        kept = [s for s in range(3) if ends[s] > begins[s]]
        full = gapped_rows(a[t], b[t], c[t], begins, columns) if kept else ()
        assert [str(block[k]) for k in range(len(kept))] == [full[s] for s in kept]


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
def test_affine_gaps_on_the_gpu_write_the_cpu_bytes(tmp_path):
    """A GPU run aligns affine triplets with the affine kernels and writes what the CPU backend writes (TSV,
    MAF, score only); with a budget the largest pass, in windows of slices, and where one slice's words pass
    it, on the CPU engine, said once on stderr."""
    files, _ = _affine_files(tmp_path)
    rng = random.Random(14)
    big = related_triplet(rng, 70)  # about 67**3 words of 4 bytes: past 1 MB, in windows of slices
    wide = related_triplet(rng, 560)  # B and C of about 532: one slice's words past 1 MB
    sets = {"big": (big, False), "wide": ([wide[0][:1], *wide[1:]], True)}
    for name, extra in (("maf", ()), ("tsv", ("--score-only",)), ("tsv", ("--mode", "local"))):
        outs = {}
        for backend in ("cpu", "cuda"):
            outs[backend] = tmp_path / f"{backend}.{name}"
            proc = seqalign("triplet", "--backend", backend, "--gap-open", 2, *extra, *files, "-o", outs[backend])
            assert proc.returncode == 0, proc.stderr
            assert b"go to the CPU engine" not in proc.stderr, proc.stderr
        assert outs["cuda"].read_bytes() == outs["cpu"].read_bytes(), (name, extra)
    for name, (seqs, cpu) in sets.items():
        paths = [tmp_path / f"{name}.{s}.fa" for s in "abc"]
        for path, seq in zip(paths, seqs):
            path.write_text(f">{name}\n{seq}\n")
        outs = {}
        for backend in ("cpu", "cuda"):
            outs[backend] = tmp_path / f"{backend}.{name}.maf"
            proc = seqalign("triplet", "--backend", backend, "--gap-open", 2, "--max-matrix-mb", 1, *paths,
                            "-o", outs[backend])
            assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count(b"affine traceback words (4 bytes a cell) past --max-matrix-mb even in windows "
                                 b"of slices (1 MB)") == cpu, proc.stderr
        assert outs["cuda"].read_bytes() == outs["cpu"].read_bytes(), name


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
def test_affine_kernels_equal_the_cpu(monkeypatch):
    """The affine kernels (one block a triplet, a wavefront over its row chunks): every mode, traceback and score
    only, blocks of one warp to MAX_THREADS, more chunks than threads, rows of one chunk to many and around
    the chunk's width, empty sequences and N; scores past the kernels' cells and words past the budget go to the
    CPU engine in the same batch, and the records do not change."""
    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.families.triplet import gpu_affine as ga

    rng = random.Random(97)
    trip = [related_triplet(rng, n, alphabet="ACGTN" if n % 3 == 0 else "ACGT")
            for n in (1, 2, 30, 31, 32, 33, 63, 64, 65, 100)]
    trip += [[random_dna(rng, rng.randint(0, 60)) for _ in range(3)] for _ in range(30)]
    trip += [["", random_dna(rng, 30), random_dna(rng, 20)], [random_dna(rng, 9), "", ""], ["", "", ""]]
    trip += [[random_dna(rng, 300), random_dna(rng, 290), random_dna(rng, 4)],  # one chunk a row, many rows
             [x := random_dna(rng, 270), x, random_dna(rng, 3)], [random_dna(rng, 5), "", random_dna(rng, 80)]]
    # in windows of slices, local and semi-global end far below the last window (the walk starts two windows on)
    trip += [[(x := random_dna(rng, 30)) + random_dna(rng, 200), x, x]]
    a, b, c = (list(x) for x in zip(*trip))
    lengths = np.array([[len(s) for s in t] for t in trip])
    threads = ga.threads_for(lengths)
    assert (threads == ga.MAX_THREADS).any() and (threads == 32).any() and (threads == 128).any()
    chunks = (lengths[:, 2] + ga.CHUNK) // ga.CHUNK
    assert {1, 2, 3}.issubset(set(chunks.tolist())) and chunks.max() > 5
    gpu = make_backend("triplet", "cuda")
    for mode in MODES:
        for scoring in (AFFINE["affine"], AFFINE["affine_cheap"]):
            want = records(align(CpuTriplet(4), a, b, c, scoring, mode))
            assert records(align(gpu, a, b, c, scoring, mode)) == want, (mode, scoring)
            only = align(gpu, a, b, c, scoring, mode, traceback=False)
            assert [(r[0], r[2]) for r in records(only)] == [(w[0], w[2]) for w in want], (mode, scoring)
        # the largest triplets' words past the budget: windows of slices (up to AFFINE_WINDOWS; here up to 64
        # for the walk's many hand-overs), and past it even so (at 50,000 bytes the 100 bp cube would take 101
        # windows of one slice), the CPU engine's walk in the same batch
        for budget, windows, cpu in ((600_000, ga.AFFINE_WINDOWS, 2), (300_000, 64, 0), (50_000, 64, 1)):
            monkeypatch.setattr(ga, "AFFINE_WINDOWS", windows)
            cfg = AlignConfig(scoring=AFFINE["affine"], matrix_budget=budget)
            assert (ga.window_slices(lengths, budget) > 0).sum() >= 6 and (ga.routes(lengths, cfg) == 5).sum() == cpu
            assert records(align(gpu, a, b, c, AFFINE["affine"], mode, budget=budget)) == records(
                align(CpuTriplet(4), a, b, c, AFFINE["affine"], mode)), (mode, budget)
            monkeypatch.undo()
    # scores past the kernels' int32 cells: the CPU engine's int64 cells
    wide = AFFINE["affine_wide"]
    assert records(align(gpu, a[:12], b[:12], c[:12], wide, "global")) == records(
        align(CpuTriplet(4), a[:12], b[:12], c[:12], wide, "global"))


def test_score_only_writes_tsv_only(tmp_path):
    files = [DATA / f"sars.{s}.fa" for s in "abc"]
    proc = seqalign("triplet", "--score-only", *files, "-o", tmp_path / "x.maf")
    assert proc.returncode == 2 and b"--score-only writes TSV only" in proc.stderr
    proc = seqalign("triplet", "-q", "--score-only", "--mode", "semi-global", *files)
    assert proc.returncode == 0
    rows = [line.split("\t") for line in proc.stdout.decode().splitlines()[1:]]
    assert all(r[13] == "*" for r in rows)
    assert all(r[7] == r[9] == r[11] in ("*", "0") for r in rows)  # '*': a start score only does not compute


@pytest.mark.parametrize("args,code,needle", [
    (["--mode", "glocal"], 2, "Invalid value for '--mode'"),
])
def test_usage_errors(tmp_path, args, code, needle):
    files = [DATA / f"sars.{s}.fa" for s in "abc"]
    proc = seqalign("triplet", *args, *files)
    assert proc.returncode == code and needle.encode() in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_bad_input(tmp_path):
    short = tmp_path / "short.fa"
    short.write_text(">x\nACGT\n")
    files = [DATA / f"sars.{s}.fa" for s in "ab"]
    out = tmp_path / "o.tsv"
    proc = seqalign("triplet", *files, short, "-o", out)
    assert proc.returncode == 1 and b"unequal record counts" in proc.stderr and b"short.fa" in proc.stderr
    assert not out.exists() and b"Traceback" not in proc.stderr
    four = tmp_path / "four.fa"
    four.write_text("".join(f">r{k}\nACGT\n" for k in range(4)))
    proc = seqalign("triplet", "--interleaved", four, "-o", out)
    assert proc.returncode == 1 and b"not a multiple of 3" in proc.stderr and b"four.fa" in proc.stderr
    assert not out.exists()


def test_help_shows_the_triplet_defaults():
    proc = seqalign("triplet", "--help")
    text = " ".join(proc.stdout.decode().split())
    assert proc.returncode == 0
    for needle in ("Triplets: each pair of sequences pays its gaps (quasi-natural costs, README). "
                   "[default: 0;", "--mode [global|semi-global|local]",
                   "--interleaved", "--format [tsv|maf]"):
        assert needle in text, needle
