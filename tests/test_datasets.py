"""The CPU engine on real public data with expected results from peer tools.

Data: subsets under tests/data/pairwise/ (provenance in tests/data/README.md).

* GASAL2, SARS-CoV-2 ONT and NA12878 Illumina pairs: parasail 1.3.4 scores for
  global / glocal / local x two scoring schemes. Our score must equal theirs;
  our CIGAR must rescore to our score (several CIGARs can be optimal, so CIGAR
  strings are not compared).
* WFA2-lib's unit-test pairs: our global score equals the (negated) WFA
  penalty for every penalty set that maps onto our scoring.
* GenomeWorks cudaaligner's edge cases: global edit distance.
"""

from __future__ import annotations

import gzip
import os
import re

import numpy as np
import pytest

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch

from support.oracles import CigarError, cigar_counts, rescore

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pairwise")

PEER_SETS = ("gasal2", "covid_ont", "na12878_illumina")
SCHEMES = ("m1_x4_o6_e1", "m2_x4_o4_e2")
PEER_MODES = ("global", "glocal", "local")


# ------------------------------------------------------------------ helpers


def read_fasta(path):
    """[(name, sequence)] of a (gzipped) FASTA file; the name is the first word."""
    opener = gzip.open if path.endswith(".gz") else open
    recs = []
    with opener(path, "rt") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith(">"):
                recs.append([line[1:].split()[0], []])
            elif line:
                recs[-1][1].append(line)
    return [(name, "".join(parts)) for name, parts in recs]


def read_expected(path):
    """Rows of an expected TSV as dicts (comment lines skipped)."""
    with gzip.open(path, "rt") as fh:
        lines = [ln.rstrip("\n") for ln in fh if not ln.startswith("#")]
    header = lines[0].split("\t")
    rows = []
    for ln in lines[1:]:
        row = dict(zip(header, ln.split("\t")))
        for key in ("idx", "qlen", "tlen", "score", "qbeg", "qend", "tbeg", "tend"):
            row[key] = int(row[key])
        rows.append(row)
    return rows


def scheme_scoring(scheme: str) -> Scoring:
    m, x, o, e = (int(v) for v in re.fullmatch(r"m(\d+)_x(\d+)_o(\d+)_e(\d+)", scheme).groups())
    return Scoring(match=m, mismatch=x, gap_open=o, gap_extend=e, n_penalty=1)


def align(queries, targets, scoring, mode, traceback=True):
    batch = make_batch([q.encode() for q in queries], [t.encode() for t in targets])
    return CpuPairwise(threads=2).align(batch, AlignConfig(scoring=scoring, mode=mode,
                                                          traceback=traceback))


def check_own_cigars(queries, targets, res, scoring, mode):
    """Our CIGARs cover their spans, rescore to our score and match our stats."""
    cigars = res.cigars()
    errors = []
    for k, (q, t) in enumerate(zip(queries, targets)):
        span = [int(res.qstart[k]), int(res.qend[k]), int(res.tstart[k]), int(res.tend[k])]
        try:
            got = rescore(q, t, *span, cigars[k], scoring)
        except CigarError as exc:
            errors.append(f"pair {k}: {exc}")
            continue
        if got != int(res.score[k]):
            errors.append(f"pair {k}: CIGAR {cigars[k]} rescores to {got}, score {res.score[k]}")
        if tuple(int(v) for v in res.stats[k]) != cigar_counts(cigars[k]):
            errors.append(f"pair {k}: stats {res.stats[k].tolist()} vs CIGAR {cigars[k]}")
        if mode == "global" and span != [0, len(q), 0, len(t)]:
            errors.append(f"pair {k}: global spans {span}")
        if mode == "glocal" and span[:2] != [0, len(q)]:
            errors.append(f"pair {k}: glocal query span {span[:2]}")
    assert not errors, "\n".join(errors[:20])


# ------------------------------------------- parasail-made expected files


def load_peer_set(name):
    queries = read_fasta(os.path.join(DATA, f"{name}.query.fa.gz"))
    targets = read_fasta(os.path.join(DATA, f"{name}.target.fa.gz"))
    assert len(queries) == len(targets) >= 250
    return queries, targets


@pytest.mark.parametrize("mode", PEER_MODES)
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", PEER_SETS)
def test_peer_expected_scores(name, scheme, mode):
    queries, targets = load_peer_set(name)
    rows = read_expected(os.path.join(DATA, f"{name}_{scheme}.{mode}.tsv.gz"))
    assert len(rows) == len(queries)
    scoring = scheme_scoring(scheme)
    qs = [s for _, s in queries]
    ts = [s for _, s in targets]
    for k, row in enumerate(rows):  # the expected rows describe our FASTA records
        assert (row["qname"], row["tname"]) == (queries[k][0], targets[k][0]), k
        assert (row["qlen"], row["tlen"]) == (len(qs[k]), len(ts[k])), k
    # the expected file itself is consistent (its CIGARs rescore to its scores)
    for k in range(0, len(rows), 10):
        row = rows[k]
        assert rescore(qs[k], ts[k], row["qbeg"], row["qend"], row["tbeg"], row["tend"],
                       row["cigar"], scoring) == row["score"], (name, k)
    res = align(qs, ts, scoring, mode)
    expected = np.array([row["score"] for row in rows])
    bad = np.flatnonzero(res.score != expected)
    assert not len(bad), [(int(k), rows[k]["qname"], int(expected[k]), int(res.score[k]))
                          for k in bad[:10]]
    check_own_cigars(qs, ts, res, scoring, mode)
    so = align(qs, ts, scoring, mode, traceback=False)
    np.testing.assert_array_equal(so.score, res.score)
    np.testing.assert_array_equal(so.qend, res.qend)
    np.testing.assert_array_equal(so.tend, res.tend)


# ------------------------------------------------------------------ WFA2

# WFA2 penalty sets that map onto our scoring: M,X,O,E (gap O + k*E, score =
# -penalty) -> Scoring(match=-M, mismatch=X, gap_open=O, gap_extend=E), so our
# global score equals the WFA score. Edit and indel files hold distances
# (positive): edit = (0,1,0,1); indel-only = mismatch 2 (never better than a
# 1I+1D pair, which costs 2), gaps 0+k*1; our score = -distance.
# test.affine2p (dual-cost gaps) has no equivalent and is not used.
WFA_SETS = {
    "test.affine": (Scoring(match=0, mismatch=4, gap_open=6, gap_extend=2), 1),
    "test.biwfa.affine": (Scoring(match=0, mismatch=4, gap_open=6, gap_extend=2), 1),
    "test.affine.p0": (Scoring(match=0, mismatch=1, gap_open=2, gap_extend=1), 1),
    "test.affine.p1": (Scoring(match=0, mismatch=3, gap_open=1, gap_extend=4), 1),
    "test.affine.p2": (Scoring(match=0, mismatch=5, gap_open=3, gap_extend=2), 1),
    "test.affine.p3": (Scoring(match=5, mismatch=1, gap_open=2, gap_extend=1), 1),
    "test.affine.p4": (Scoring(match=2, mismatch=3, gap_open=1, gap_extend=4), 1),
    "test.affine.p5": (Scoring(match=3, mismatch=5, gap_open=3, gap_extend=2), 1),
    "test.edit": (Scoring(match=0, mismatch=1, gap_open=0, gap_extend=1), -1),
    "test.indel": (Scoring(match=0, mismatch=2, gap_open=0, gap_extend=1), -1),
}
WFA_SHORT_MAX = 2_000


def load_wfa():
    patterns, texts = [], []
    with gzip.open(os.path.join(DATA, "wfa.utest.seq.gz"), "rt") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith(">"):
                patterns.append(line[1:])
            elif line.startswith("<"):
                texts.append(line[1:])
    assert len(patterns) == len(texts) == 305
    with gzip.open(os.path.join(DATA, "wfa2_expected_scores.tsv.gz"), "rt") as fh:
        lines = fh.read().splitlines()
    header = lines[0].split("\t")
    table = {h: [int(ln.split("\t")[c]) for ln in lines[1:]] for c, h in enumerate(header)}
    assert table["pair"] == list(range(305))
    return patterns, texts, table


@pytest.fixture(scope="module")
def wfa():
    return load_wfa()


@pytest.mark.parametrize("set_name", list(WFA_SETS))
def test_wfa2_global_scores(wfa, set_name):
    patterns, texts, table = wfa
    scoring, sign = WFA_SETS[set_name]
    idx = list(range(len(patterns)))  # all 305 pairs, the ten 10 kb ones included
    qs = [patterns[k] for k in idx]
    ts = [texts[k] for k in idx]
    res = align(qs, ts, scoring, "global", traceback=False)
    want = np.array([sign * table[set_name][k] for k in idx])
    bad = np.flatnonzero(res.score != want)
    assert not len(bad), [(idx[k], len(qs[k]), len(ts[k]), int(want[k]), int(res.score[k]))
                          for k in bad[:10]]


def test_wfa2_global_cigars(wfa):
    """Traceback on the WFA pairs up to 2 kb: CIGARs rescore to the WFA score."""
    patterns, texts, table = wfa
    scoring, sign = WFA_SETS["test.affine"]
    idx = [k for k in range(len(patterns)) if max(len(patterns[k]), len(texts[k])) <= WFA_SHORT_MAX]
    qs = [patterns[k] for k in idx]
    ts = [texts[k] for k in idx]
    res = align(qs, ts, scoring, "global")
    np.testing.assert_array_equal(res.score, [sign * table["test.affine"][k] for k in idx])
    check_own_cigars(qs, ts, res, scoring, "global")


# ---------------------------------------------------- cudaaligner edge cases

EDIT = Scoring(match=0, mismatch=1, gap_open=0, gap_extend=1)


def load_edge_cases():
    rows = []
    with open(os.path.join(DATA, "cudaaligner_global_edge_cases.tsv")) as fh:
        lines = [ln.rstrip("\n") for ln in fh if not ln.startswith("#")]
    header = lines[0].split("\t")
    for ln in lines[1:]:
        rows.append(dict(zip(header, ln.split("\t"))))
    assert len(rows) == 9
    return rows


def test_cudaaligner_edge_cases():
    rows = load_edge_cases()
    qs = [r["query"] for r in rows]
    ts = [r["target"] for r in rows]
    dist = [int(r["expected_edit_distance"]) for r in rows]
    assert dist == [int(r["edlib_NW_distance"]) for r in rows]
    for r, d in zip(rows, dist):
        # GenomeWorks CIGAR: M = match/mismatch, D = query only, I = target only
        theirs = r["expected_cigar_genomeworks"].translate(str.maketrans("ID", "DI"))
        q, t = r["query"], r["target"]
        assert rescore(q, t, 0, len(q), 0, len(t), theirs or "*", EDIT) == -d, r
    for traceback in (True, False):
        res = align(qs, ts, EDIT, "global", traceback=traceback)
        assert res.score.tolist() == [-d for d in dist]
        assert res.qend.tolist() == [len(q) for q in qs]
        assert res.tend.tolist() == [len(t) for t in ts]
        if traceback:
            check_own_cigars(qs, ts, res, EDIT, "global")
            cig = res.cigars()
            assert cig[-1] == "*"  # both empty
            assert cig[6] == f"{len(ts[6])}D" and cig[7] == f"{len(qs[7])}I"
