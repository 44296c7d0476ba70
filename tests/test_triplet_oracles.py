"""The triplet oracles (tests/support/triplet_oracles.py) against each other, and the SARS-CoV-2 triplet set.

* hand-worked examples: letters and columns, identical sequences, empty
  inputs, each tie rule, the semi-global start faces;
* every triplet of lengths 0..3 with at most 6 letters in all, up to the
  symmetries of the score (renaming the bases, reordering the three
  sequences; each class is tried in a seeded random order, renaming and
  letter case), under two scorings and in the three modes: ``brute_force``
  and ``ref_align`` give the same score, and ``rescore`` and
  ``projection_score`` of both alignments give it back;
* seeded random triplets of lengths 0..3 (7-9 letters) and up to 4 and 5
  bases each under two more scorings; ``explicit_best`` (every alignment
  listed one by one) against ``brute_force`` on triplets of at most 4 letters;
* affine gaps: the openings of hand-worked columns and an alignment worked
  by hand; ``brute_force`` and ``ref_align_affine`` agree on every class of
  the small triplets under two affine scorings, ``explicit_best`` agrees
  with ``brute_force``, and with no opening cost the affine DP scores as
  the linear one;
* ``tests/data/triplet``: the lockstep and interleaved files agree, the
  expected table is complete, and its scores equal ``ref_align`` on the short
  triplets.
"""

from __future__ import annotations

import itertools
import os
import random
import zlib

import pytest

from support.triplet_oracles import (DEFAULT_SCORING, GAP, MODES, TripletScoring, all_alignments,
                                     brute_force, column_score, explicit_best, gapped_rows, openings, pair_score,
                                     projection_score, ref_align, ref_align_affine, rescore, runs)

FACE_POSITIVE = TripletScoring(match=5, mismatch=3, gap_open=0, gap_extend=1, n_penalty=2)  # match > 2g
FREE_GAPS = TripletScoring(match=1, mismatch=1, gap_open=0, gap_extend=0, n_penalty=0)
NO_N_PENALTY = TripletScoring(match=3, mismatch=2, gap_open=0, gap_extend=1, n_penalty=0)
AFFINE = TripletScoring(match=2, mismatch=4, gap_open=3, gap_extend=1, n_penalty=1)
AFFINE_CHEAP = TripletScoring(match=5, mismatch=3, gap_open=1, gap_extend=1, n_penalty=2)
DATA = os.path.join(os.path.dirname(__file__), "data", "triplet")


def check_agree(a, b, c, scoring, mode):
    """brute_force and the plain DP (``ref_align``; ``ref_align_affine`` with affine gaps) agree on the score; both
    alignments rescore to it, and with linear gaps so do their pairwise projections."""
    want = brute_force(a, b, c, scoring, mode)
    got = (ref_align_affine if scoring.gap_open else ref_align)(a, b, c, scoring, mode)
    assert got[0] == want[0], (a, b, c, scoring, mode, got, want)
    for score, begins, ends, columns in (got, want):
        assert rescore(a, b, c, begins, ends, columns, scoring) == score, (a, b, c, mode, columns)
        if not scoring.gap_open:
            assert projection_score(a, b, c, begins, ends, columns, scoring) == score
    return got


# ---------------------------------------------------------------- letters and columns


def test_pair_score_letters():
    s = DEFAULT_SCORING
    assert pair_score("A", "a", s) == 2
    assert pair_score("U", "t", s) == 2
    assert pair_score(b"G", b"g", s) == 2
    assert pair_score(ord("C"), "c", s) == 2
    assert pair_score("A", "C", s) == -4
    assert pair_score("N", "N", s) == -1
    assert pair_score("R", "A", s) == -1
    assert pair_score("x", "x", s) == -1


def test_column_score():
    s = DEFAULT_SCORING
    assert column_score("AAA", s) == 6
    assert column_score("ACG", s) == -12
    assert column_score("ANa", s) == -1 - 1 + 2
    assert column_score("A-C", s) == -4 - 2 - 2
    assert column_score("-GG", s) == 2 - 4
    assert column_score("A--", s) == -4
    assert column_score("---", s) == 0
    assert column_score([b"A", b"-", b"a"], s) == 2 - 4


def test_modes_and_scoring_checks():
    from seqalign_cli.config import Mode, Scoring

    assert ref_align("ACG", "AG", "CG", DEFAULT_SCORING, Mode.LOCAL) == ref_align("ACG", "AG", "CG",
                                                                                   DEFAULT_SCORING, "local")
    assert ref_align("ACG", "AG", "CG", Scoring(gap_open=0), 1) == ref_align("ACG", "AG", "CG",
                                                                              DEFAULT_SCORING, "semi-global")
    with pytest.raises(ValueError):
        ref_align("A", "A", "A", Scoring(), "global")  # gap_open 4: not linear
    with pytest.raises(ValueError):
        brute_force("A", "A", "A", DEFAULT_SCORING, 2)  # glocal does not exist for triplets


# ---------------------------------------------------------------- hand-worked examples


@pytest.mark.parametrize("mode", MODES)
def test_identical_sequences(mode):
    for seq in ("A", "ACGT", "acgu"):
        n = len(seq)
        assert ref_align(seq, seq, seq, DEFAULT_SCORING, mode) == (3 * 2 * n, (0, 0, 0), (n, n, n), f"{n}M")
        assert brute_force(seq, seq, seq, DEFAULT_SCORING, mode)[0] == 3 * 2 * n
    assert ref_align("ACGT", "ACGT", "ACGT", DEFAULT_SCORING, mode)[0] == 24


def test_empty_inputs():
    s = DEFAULT_SCORING
    for mode in MODES:
        assert ref_align("", "", "", s, mode) == (0, (0, 0, 0), (0, 0, 0), "*")
        assert brute_force("", "", "", s, mode) == (0, (0, 0, 0), (0, 0, 0), "*")
    assert ref_align("AC", "", "", s, "global") == (-8, (0, 0, 0), (2, 0, 0), "2A")
    assert ref_align("", "", "ACG", s, "global") == (-12, (0, 0, 0), (0, 0, 3), "3C")
    assert ref_align("", "GA", "GA", s, "global") == (2 * (2 - 4), (0, 0, 0), (0, 2, 2), "2a")
    # one empty sequence: everything lies on a start face, so semi-global is empty
    assert ref_align("", "GA", "GA", s, "semi-global") == (0, (0, 0, 0), (0, 0, 0), "*")
    # no column scores above 0: local is empty
    assert ref_align("A", "C", "G", s, "local") == (0, (0, 0, 0), (0, 0, 0), "*")


def test_tie_rules():
    s = DEFAULT_SCORING
    # walking back, M (kind 0) is preferred at the end cell: A then M, not M then A
    assert ref_align("AA", "A", "A", s, "global") == (2, (0, 0, 0), (2, 1, 1), "1A1M")
    # end cell: (1,1,1) and (3,3,3) both score 6; the first in (i, j, k) order wins
    assert ref_align("ATA", "AGA", "ACA", s, "local") == (6, (0, 0, 0), (1, 1, 1), "1M")
    # local: the walk stops at the first cell whose D is 0 (the zero-scoring prefix "2M" is dropped)
    assert ref_align("AGAA", "AGAA", "ACAA", s, "local") == (12, (2, 2, 2), (4, 4, 4), "2M")
    # semi-global: starts on a start face, ends on an end face
    assert ref_align("GGAC", "AC", "AC", s, "semi-global") == (12, (2, 0, 0), (4, 2, 2), "2M")
    assert ref_align("AC", "TTAC", "AC", s, "semi-global") == (12, (0, 2, 0), (2, 4, 2), "2M")
    # semi-global: the alignment may stop as soon as it reaches an end face (here i == n1)
    assert ref_align("A", "AT", "AT", s, "semi-global") == (6, (0, 0, 0), (1, 1, 1), "1M")


def test_semi_global_start_faces():
    """Cells on a start face are 0 and not computed: an alignment cannot run along a start face first.

    With match > 2 * gap_extend a column with a gap (here ``c``: 5 - 2 = 3) scores positively,
    so the global score can exceed the semi-global one.
    """
    s = FACE_POSITIVE
    assert ref_align("AA", "AA", "", s, "global") == (6, (0, 0, 0), (2, 2, 0), "2c")
    assert ref_align("AA", "AA", "", s, "semi-global") == (0, (0, 0, 0), (0, 0, 0), "*")
    assert brute_force("AA", "AA", "", s, "semi-global")[0] == explicit_best("AA", "AA", "", s, "semi-global") == 0
    assert ref_align("AA", "AA", "", s, "local")[0] == 6
    # the same prefix once C has a residue: global goes along k == 0 first, semi-global cannot
    assert ref_align("AAG", "AAG", "G", s, "global") == (6 + 15, (0, 0, 0), (3, 3, 1), "2c1M")
    assert ref_align("AAG", "AAG", "G", s, "semi-global") == (15, (2, 2, 0), (3, 3, 1), "1M")
    assert explicit_best("AAG", "AAG", "G", s, "semi-global") == 15
    # end faces are not start faces: columns along i == n1 at the end are kept when they pay
    assert ref_align("A", "AG", "AG", s, "semi-global") == (18, (0, 0, 0), (1, 2, 2), "1M1a")


def test_rescore_checks_spans():
    s = DEFAULT_SCORING
    assert rescore("AC", "A", "C", (0, 0, 0), (2, 1, 1), "1c1b", s) == (2 - 4) + (2 - 4)
    assert gapped_rows("AC", "A", "C", (0, 0, 0), "1c1b") == ("AC", "A-", "-C")
    assert gapped_rows("xac", "a", "uc", (1, 0, 1), "1c1b") == ("ac", "a-", "-c")
    assert rescore("AC", "A", "G", (0, 0, 0), (2, 1, 1), "1c1b", s) == (2 - 4) + (-4 - 4)
    assert projection_score("AC", "A", "C", (0, 0, 0), (2, 1, 1), "1c1b", s) == -4
    with pytest.raises(AssertionError):
        rescore("AC", "A", "C", (0, 0, 0), (2, 1, 0), "1c1b", s)  # covers C, but C's span is empty
    with pytest.raises(AssertionError):
        rescore("AC", "A", "C", (0, 0, 0), (2, 1, 1), "1c", s)  # too short
    with pytest.raises(AssertionError):
        rescore("AC", "A", "C", (0, 0, 0), (2, 1, 1), "c1b", s)  # malformed
    with pytest.raises(AssertionError):
        rescore("A", "A", "A", (0, 0, 0), (2, 1, 1), "1A1M", s)  # span past the end
    assert rescore("A", "A", "A", (0, 0, 0), (0, 0, 0), "*", s) == 0


# ---------------------------------------------------------------- exhaustive and random


def _restricted(length: int):
    """Every code string of ``length``: 4 = N, bases numbered by first use (up to 4 bases)."""
    def grow(prefix, used):
        if len(prefix) == length:
            yield prefix
            return
        yield from grow(prefix + (4,), used)
        for base in range(min(used + 1, 4)):
            yield from grow(prefix + (base,), max(used, base + 1))
    return grow((), 0)


def symmetry_classes(max_len: int, max_total: int, seed: int):
    """One triplet per class of letter strings (lengths 0..max_len, <= max_total letters in all).

    Classes are up to renaming the bases and reordering the three sequences;
    each is returned in a seeded random order, renaming and letter case.
    """
    rng = random.Random(seed)
    out = []
    for lens in itertools.combinations_with_replacement(range(max_len + 1), 3):
        if sum(lens) > max_total:
            continue
        for codes in _restricted(sum(lens)):
            names = rng.sample("ACGT", 4) + ["N"]
            text = "".join(names[x] for x in codes)
            text = "".join(ch.lower() if rng.random() < 0.2 else ch for ch in text).replace("T", rng.choice("TU"))
            seqs = [text[:lens[0]], text[lens[0]:lens[0] + lens[1]], text[lens[0] + lens[1]:]]
            rng.shuffle(seqs)
            out.append(tuple(seqs))
    return out


CLASSES = symmetry_classes(3, 6, seed=1)


def test_class_count():
    assert len(CLASSES) == 3385
    assert any(len(set(x.upper() for x in "".join(t)) - {"N"}) == 4 for t in CLASSES)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scoring", [DEFAULT_SCORING, FACE_POSITIVE], ids=["default", "match-gt-2g"])
def test_every_small_triplet(scoring, mode):
    for a, b, c in CLASSES:
        check_agree(a, b, c, scoring, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scoring", [FREE_GAPS, NO_N_PENALTY, DEFAULT_SCORING],
                         ids=["free-gaps", "no-n-penalty", "default"])
def test_random_triplets(scoring, mode):
    rng = random.Random(zlib.crc32(repr((scoring, mode)).encode()))
    for _ in range(300):
        a, b, c = ("".join(rng.choice("ACGTN") for _ in range(rng.randint(2, 3))) for _ in range(3))
        if len(a + b + c) > 6:
            check_agree(a, b, c, scoring, mode)
    for _ in range(10):
        lens = rng.choice([(4, 4, 4), (5, 5, 2), (5, 1, 4), (0, 5, 5)])
        a, b, c = ("".join(rng.choice("ACGTN") for _ in range(n)) for n in lens)
        check_agree(a, b, c, scoring, mode)


@pytest.mark.parametrize("mode", MODES)
def test_explicit_enumeration(mode):
    """Every alignment of every allowed substring triple, listed one by one, against the memoised search."""
    for scoring in (DEFAULT_SCORING, FACE_POSITIVE):
        for a, b, c in symmetry_classes(3, 4, seed=2):
            assert explicit_best(a, b, c, scoring, mode) == brute_force(a, b, c, scoring, mode)[0], (a, b, c)


# ---------------------------------------------------------------- affine gaps


def test_openings():
    assert openings(None, "M") == 0
    assert openings(None, "a") == 2 and openings(None, "A") == 2  # the first column opens every gap
    assert openings("M", "a") == 2 and openings("a", "a") == 0
    assert openings("B", "a") == 1  # A's gap against B goes on; against C it opens (C had a gap too before)
    assert openings("a", "b") == 2  # B's gaps against A and C open; A's gap against B closes
    assert openings("A", "M") == 0
    assert openings("C", "A") == 2  # B's gap against A opens (A had a gap too before), and C's
    assert openings("c", "c") == 0 and openings("A", "A") == 0
    assert openings(1, 2) == openings("a", "b")


def test_quasi_natural_against_natural_openings():
    """Against natural costs (the gap runs of each pairwise projection, columns of two gaps left out), the
    quasi-natural openings of every alignment of lengths up to (3, 3, 2) are the same, but where a pair's gap
    is interrupted by columns of two gaps (the README's one case), where they are more."""
    def natural(rows):
        count = 0
        for r1, r2 in ((rows[0], rows[1]), (rows[0], rows[2]), (rows[1], rows[2])):
            kept = [(x == GAP, y == GAP) for x, y in zip(r1, r2) if not (x == GAP and y == GAP)]
            count += sum(1 for n, col in enumerate(kept) if col != (False, False) and (n == 0 or kept[n - 1] != col))
        return count

    def interrupted(rows):
        for r1, r2 in ((rows[0], rows[1]), (rows[0], rows[2]), (rows[1], rows[2])):
            cols = [(x == GAP, y == GAP) for x, y in zip(r1, r2)]
            for n in range(1, len(cols)):
                if cols[n] == (True, True) and cols[n - 1] != (True, True):
                    after = next((c for c in cols[n:] if c != (True, True)), None)
                    if after is not None and after == cols[n - 1] and after != (False, False):
                        return True
        return False

    seen = {False: 0, True: 0}
    for lens in itertools.product(range(4), range(4), range(3)):
        for kinds in all_alignments(*lens):
            quasi = sum(openings(prev, kind) for prev, kind in zip((None,) + kinds[:-1], kinds))
            rows = gapped_rows("A" * lens[0], "C" * lens[1], "G" * lens[2], (0, 0, 0), runs(kinds))
            nat, extra = natural(rows), interrupted(rows)
            assert quasi > nat if extra else quasi == nat, (runs(kinds), quasi, nat)
            seen[extra] += 1
    assert seen[True] and seen[False]


def test_affine_hand_worked():
    """ACGT / AT / ACGT, match 2, gap 1, open 3: M, two columns with B gapped (its two gaps open once), M:
    6 + (2 - 2 - 6) + (2 - 2) + 6 = 6."""
    got = ref_align_affine("ACGT", "AT", "ACGT", AFFINE, "global")
    assert got == (6, (0, 0, 0), (4, 2, 4), "1M2b1M")
    assert brute_force("ACGT", "AT", "ACGT", AFFINE, "global")[0] == 6
    # M, b (its gaps open), M (G T G), b (B had a residue before it: its gaps open again)
    assert rescore("ACGT", "AT", "ACGT", (0, 0, 0), (4, 2, 4), "1M1b1M1b", AFFINE) == 6 + (2 - 2 - 6) + (
        -4 + 2 - 4) + (2 - 2 - 6)
    # local: the best is the first column alone (6) or the whole; the first best end cell is taken
    assert ref_align_affine("ACGT", "AT", "ACGT", AFFINE, "local")[0] == 6


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scoring", [AFFINE, AFFINE_CHEAP], ids=["affine", "affine-cheap"])
def test_affine_every_small_triplet(scoring, mode):
    for a, b, c in CLASSES:
        check_agree(a, b, c, scoring, mode)
    rng = random.Random(zlib.crc32(repr((scoring, mode)).encode()))
    for _ in range(10):
        lens = rng.choice([(4, 4, 4), (5, 5, 2), (5, 1, 4), (0, 5, 5)])
        check_agree(*("".join(rng.choice("ACGTN") for _ in range(n)) for n in lens), scoring, mode)


@pytest.mark.parametrize("mode", MODES)
def test_affine_explicit_enumeration(mode):
    for scoring in (AFFINE, AFFINE_CHEAP):
        for a, b, c in symmetry_classes(3, 4, seed=3):
            assert explicit_best(a, b, c, scoring, mode) == brute_force(a, b, c, scoring, mode)[0], (a, b, c)


@pytest.mark.parametrize("mode", MODES)
def test_affine_without_opening_cost_scores_as_linear(mode):
    for a, b, c in CLASSES[::5]:
        assert ref_align_affine(a, b, c, DEFAULT_SCORING, mode)[0] == ref_align(a, b, c, DEFAULT_SCORING, mode)[0]


# ---------------------------------------------------------------- the SARS-CoV-2 triplet set


def read_records(path):
    """[(name, description, sequence)] of a FASTA file (one sequence line per record or more)."""
    recs = []
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith(">"):
                name, _, desc = line[1:].partition(" ")
                recs.append([name, desc, ""])
            elif line:
                recs[-1][2] += line
    return [tuple(r) for r in recs]


@pytest.fixture(scope="module")
def sars():
    """(triplets as [(name, desc, seq)] * 3, expected {(index, mode): (names, score)})."""
    files = [read_records(os.path.join(DATA, f"sars.{x}.fa")) for x in "abc"]
    triplets = list(zip(*files))
    expected = {}
    with open(os.path.join(DATA, "sars.expected.tsv")) as fh:
        assert fh.readline().rstrip("\n").split("\t") == ["index", "name1", "name2", "name3", "mode", "score"]
        for line in fh:
            index, n1, n2, n3, mode, score = line.rstrip("\n").split("\t")
            expected[int(index), mode] = ((n1, n2, n3), int(score))
    return triplets, expected


def test_sars_files(sars):
    triplets, expected = sars
    assert all(len(read_records(os.path.join(DATA, f"sars.{x}.fa"))) == 60 for x in "abc")
    assert len(triplets) == 60
    interleaved = read_records(os.path.join(DATA, "sars.interleaved.fa"))
    assert interleaved == [rec for trip in triplets for rec in trip]
    assert set(expected) == {(t, mode) for t in range(60) for mode in MODES}
    size = sum(os.path.getsize(os.path.join(DATA, f)) for f in os.listdir(DATA))
    assert size < 300_000
    lengths = [len(rec[2]) for trip in triplets for rec in trip]
    assert min(lengths) == 8 and max(lengths) == 1024
    assert sum(max(len(r[2]) for r in trip) > 200 for trip in triplets) == 5
    assert sum(any("N" in r[2] for r in trip) for trip in triplets) >= 9
    assert sum(len({len(r[2]) for r in trip}) > 1 for trip in triplets) >= 8
    for t, trip in enumerate(triplets):
        names = tuple(rec[0] for rec in trip)
        assert len({name.split(":")[0] for name in names}) == 3  # three different genomes
        for name, _, seq in trip:
            lo, hi = name.split(":")[1].split("-")
            assert int(hi) - int(lo) + 1 == len(seq)
        for mode in MODES:
            assert expected[t, mode][0] == names
        score = {mode: expected[t, mode][1] for mode in MODES}
        assert score["local"] >= score["semi-global"] >= score["global"]  # match <= 2g: faces never pay


def test_sars_expected_scores(sars):
    """The generator's DP against ref_align on the triplets of at most 24 bases."""
    triplets, expected = sars
    checked = 0
    for t, trip in enumerate(triplets):
        a, b, c = (rec[2] for rec in trip)
        if max(map(len, (a, b, c))) > 24:
            continue
        for mode in MODES:
            score, begins, ends, columns = ref_align(a, b, c, DEFAULT_SCORING, mode)
            assert score == expected[t, mode][1], (t, mode)
            assert rescore(a, b, c, begins, ends, columns, DEFAULT_SCORING) == score
        checked += 1
    assert checked >= 8
