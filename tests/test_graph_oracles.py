"""The graph oracles (``tests/support/graph_oracles.py``) checked against each other and against published scores.

* the oriented graph of a hand-made GFA, node by node and base by base
  (ids, Kahn order with the smallest ready node first, reverse complements,
  predecessors, sources and sinks, forward only);
* the DP (``dp_graph``) against the best pairwise score over every
  source-to-sink path (``best_over_paths``, ``seqalign pair``'s CPU engine) on
  seeded random small DAGs, every mode, both orientations; the tie-rule walk
  (``ref_align``) reaching the same score with a valid alignment;
* ``rescore`` and ``check_alignment`` on hand-made good and broken records;
* ``tests/data/graph/small_dag_expected.tsv``: exact scores of real reads
  against small vg test graphs, computed elsewhere as the best parasail
  score over every path (gap of length L costing O + (L-1) E there, so our
  gap_open is O - E; N scores 0). The file's ``semiglobal`` is our
  ``glocal`` (read end to end, path ends free): the rows with a negative
  ``semiglobal`` score (f.gfa: -25) rule out a free-ended semi-global mode.
  Its reads are cut to 20 letters; the full reads come from the same vg and
  GraphAligner test files (``tests/data/graph/small_dag_reads.fa``). The
  three rows of a ``graph.gfa`` with segments seq1..seq3 are skipped: that
  graph is not GraphAligner's graph of the same name and neither it nor the
  full read is available;
* ``cactus-BRCA2_reads_vs_paths_m1_x4_o6_e1_vg.tsv``: the per-read best
  score against the graph's three embedded paths, reproduced from the P
  lines with the pairwise engine (the conversion of its gap convention).
"""

from __future__ import annotations

import random

import pytest

from support.graph_oracles import (
    GRAPH_DATA, MODES, GfaError, GraphRecord, GraphScoring, best_over_paths, cactus_rows, check_alignment,
    count_paths, cycle_segments, dp_graph, enumerate_paths, gfa_paths, mutated_walk, orient, pair_scores,
    parse_gfa, random_gfa, random_seq, read_fastx, read_text, ref_align, rescore, revcomp, row_is_available,
    small_dag_rows, spell_steps, vg_scoring, SMALL_DAG_FILES,
)

DATA = GRAPH_DATA
DEFAULT = GraphScoring(match=2, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1)
SCORINGS = {
    "default": DEFAULT,
    "bwa": GraphScoring(match=1, mismatch=4, gap_open=6, gap_extend=1, n_penalty=1),
    "linear": GraphScoring(match=3, mismatch=2, gap_open=0, gap_extend=2, n_penalty=0),
}


# ---------------------------------------------------------------- the oriented graph

HAND = "S\ta\tAC\nS\tb\tG\nS\tc\tT\nL\ta\t+\tb\t+\t0M\nL\ta\t+\tc\t-\t0M\n"


def test_orientation_of_a_hand_made_graph():
    g = orient(HAND)
    # >a=0 <a=1 >b=2 <b=3 >c=4 <c=5; edges 0->2, 3->1 (complement), 0->5, 4->1 (complement)
    assert {u: sorted(w) for u, w in g.succ.items()} == {0: [2, 5], 1: [], 2: [], 3: [1], 4: [1], 5: []}
    assert g.order == [0, 2, 3, 4, 1, 5]
    assert g.bases == "ACGCTGTA"
    assert [g.node_seq[v] for v in g.order] == ["AC", "G", "C", "T", "GT", "A"]
    assert g.base_node == [0, 0, 2, 3, 4, 1, 1, 5] and g.base_offset == [0, 1, 0, 0, 0, 0, 1, 0]
    assert g.preds == [[], [0], [1], [], [], [3, 4], [5], [1]]
    assert g.source == [True, False, False, True, True, False, False, False]
    assert g.sink == [False, False, True, False, False, False, True, True]
    assert [g.node_name(v) for v in g.order] == [">a", ">b", "<b", ">c", "<a", "<c"]
    assert g.parse_path(">a<c") == [0, 5] and g.path_name([0, 5]) == ">a<c"
    f = orient(HAND, forward_only=True)
    assert f.order == [0, 2, 4] and f.bases == "ACGT" and f.preds == [[], [0], [1], []]
    assert f.source == [True, False, False, True] and f.sink == [False, False, True, True]


def test_minus_minus_link_is_the_same_edge_forward():
    """``L b - a -`` is ``<b -> <a`` and its complement ``>a -> >b``: forward only keeps the latter."""
    text = "S\ta\tAC\nS\tb\tG\nL\tb\t-\ta\t-\t0M\n"
    assert orient(text, True).succ == orient("S\ta\tAC\nS\tb\tG\nL\ta\t+\tb\t+\t*\n", True).succ == {0: {2}, 2: set()}


def test_reverse_complement_keeps_case_and_other_letters():
    assert revcomp("ACGTacgtNRU") == "ARNacgtACGT"  # U counts as T: its complement is A
    assert revcomp("u") == "a"
    g = orient("S\tx\taCgN\n")
    assert g.order == [0, 1] and g.bases == "aCgNNcGt"


@pytest.mark.parametrize("text,needle,line", [
    ("H\tVN:Z:1.0\n", "no segment", None),
    ("S\ta\t*\n", "no sequence", 1),
    ("S\ta\tA\nS\ta\tC\n", "duplicate", 2),
    ("S\ta\tA\nL\ta\t+\tb\t+\t0M\n", "missing segment b", 2),
    ("S\ta\tA\nS\tb\tC\nL\ta\t+\tb\t+\t3M\n", "overlap 3M", 3),
])
def test_the_oracle_reader_refuses_bad_text(text, needle, line):
    with pytest.raises(GfaError) as err:
        parse_gfa(text)
    assert needle in str(err.value) and err.value.line == line


def test_cycles_are_refused_and_named():
    loop = "S\ta\tA\nS\tb\tC\nS\tc\tG\nL\ta\t+\tb\t+\t0M\nL\tb\t+\tc\t+\t0M\nL\tc\t+\tb\t+\t0M\n"
    with pytest.raises(GfaError, match="cycle through segment b"):
        orient(loop)
    assert cycle_segments(loop) == {"b", "c"}
    # an inversion loop: >a -> <a needs no cycle, but >a -> <b together with <b -> >a... is one
    inv = "S\ta\tA\nS\tb\tC\nL\ta\t+\tb\t-\t0M\nL\tb\t-\ta\t+\t0M\n"
    with pytest.raises(GfaError, match="cycle"):
        orient(inv)
    assert orient(inv, forward_only=True).order == [0, 2]
    assert orient("S\ta\tA\nL\ta\t+\ta\t-\t0M\n").succ == {0: {1}, 1: set()}


def test_enumerate_paths_lists_every_source_to_sink_walk():
    rng = random.Random(5)
    for _ in range(30):
        text = random_gfa(rng, rng.randint(1, 8))
        for fwd in (False, True):
            g = orient(text, fwd)
            paths = enumerate_paths(g)
            assert len(paths) == count_paths(g) == len({tuple(p) for p, _ in paths})
            for path, seq in paths:
                assert not g.pred[path[0]] and not g.succ[path[-1]]
                assert all(w in g.succ[u] for u, w in zip(path, path[1:]))
                assert seq == g.spell(path)
    assert [p for p, _ in enumerate_paths(orient(HAND))] == [[0, 2], [0, 5], [3, 1], [4, 1]]


# ---------------------------------------------------------------- DP against the best path


def _cases(seed: int, n_graphs: int):
    """(gfa text, reads) of seeded random small DAGs: mutated walks, random reads, the empty read, one base."""
    rng = random.Random(seed)
    out = []
    for k in range(n_graphs):
        text = random_gfa(rng, rng.randint(1, 7), max_len=rng.choice((1, 3, 6)),
                          alphabet="ACGT" if k % 4 else "ACGTNacgt")
        g = orient(text)
        reads = [mutated_walk(rng, g, rate=0.2) for _ in range(3)]
        reads += [random_seq(rng, rng.randint(0, 12), "ACGTN"), "", random_seq(rng, 1)]
        reads.append(g.spell(max((p for p, _ in enumerate_paths(g)), key=g.path_length)) + random_seq(rng, 3))
        out.append((text, reads))
    return out


@pytest.mark.parametrize("forward_only", [False, True], ids=["both", "forward"])
@pytest.mark.parametrize("mode", MODES)
def test_dp_equals_the_best_path(mode, forward_only):
    for name, sc in SCORINGS.items():
        cases = _cases(hash((mode, forward_only, name)) & 0xFFFF, 12)
        reads, targets, owner = [], [], []
        for c, (text, rs) in enumerate(cases):
            g = orient(text, forward_only)
            for read in rs:
                for _, seq in enumerate_paths(g):
                    reads.append(read)
                    targets.append(seq)
                    owner.append((c, read))
        best = {}
        for key, s in zip(owner, pair_scores(reads, targets, sc, mode)):
            best[key] = max(best.get(key, s), s)
        for c, (text, rs) in enumerate(cases):
            g = orient(text, forward_only)
            for read in rs:
                dp = dp_graph(read, g.bases, g.preds, g.source, g.sink, sc, mode)
                assert dp == best[c, read], (name, text, read, dp, best[c, read])
                rec = ref_align(read, g, sc, mode)
                assert rec.score == dp, (name, text, read)
                check_alignment(read, g, rec, sc, mode)


def test_best_over_paths_takes_gfa_text():
    rng = random.Random(17)
    text = random_gfa(rng, 6)
    g = orient(text)
    read = mutated_walk(rng, g, 0.1)
    for mode in MODES:
        score, path = best_over_paths(read, text, DEFAULT, mode, with_path=True)
        assert score == dp_graph(read, g.bases, g.preds, g.source, g.sink, DEFAULT, mode)
        assert path in [p for p, _ in enumerate_paths(g)]


def test_hand_made_alignments_follow_the_tie_rules():
    # >1 A, then >2 C or >3 G, then >4 T
    text = ("S\t1\tA\nS\t2\tC\nS\t3\tG\nS\t4\tT\n"
            "L\t1\t+\t2\t+\t0M\nL\t1\t+\t3\t+\t0M\nL\t2\t+\t4\t+\t0M\nL\t3\t+\t4\t+\t0M\n")
    g = orient(text, True)
    assert ref_align("ACT", g, DEFAULT, "global") == GraphRecord(6, 0, 3, [0, 2, 6], 0, 3, "3=", 3)
    # A?T: C and G both mismatch T; the tie goes to the smaller base (>2)
    assert ref_align("ATT", g, DEFAULT, "global") == GraphRecord(0, 0, 3, [0, 2, 6], 0, 3, "1=1X1=", 3)
    assert ref_align("TA", g, DEFAULT, "glocal") == GraphRecord(-4, 0, 2, [0], 0, 1, "1I1=", 0)
    # glocal: the read all inserted beats two mismatches; on a tie the path is kept
    cheap = GraphScoring(match=2, mismatch=4, gap_open=0, gap_extend=1, n_penalty=1)
    assert ref_align("TT", orient("S\tz\tAA\n", True), cheap, "glocal") == GraphRecord(-2, 0, 0, [], 0, 0, "", -1)
    tie = cheap._replace(gap_extend=4)
    assert ref_align("T", orient("S\tz\tA\n", True), tie, "glocal") == GraphRecord(-4, 0, 1, [0], 0, 1, "1X", 0)
    assert ref_align("GT", g, DEFAULT, "glocal") == GraphRecord(4, 0, 2, [4, 6], 0, 2, "2=", 3)
    assert ref_align("", g, DEFAULT, "glocal") == GraphRecord(0, 0, 0, [], 0, 0, "", -1)
    assert ref_align("", g, DEFAULT, "global") == GraphRecord(-10, 0, 0, [0, 2, 6], 0, 3, "3D", 3)
    # local: a leading mismatch is not kept; the best cell is found row by row
    assert ref_align("TGT", g, DEFAULT, "local") == GraphRecord(4, 1, 3, [4, 6], 0, 2, "2=", 3)
    assert ref_align("TTTT", g, DEFAULT, "local") == GraphRecord(2, 0, 1, [6], 0, 1, "1=", 3)
    assert ref_align("CCCC", orient("S\tz\tGG\n", True), DEFAULT, "local") == GraphRecord(0, 0, 0, [], 0, 0, "", -1)
    # glocal on a chain: leading read bases inserted (-(4 + 2)), then AC matched
    chain = orient("S\tq\tACGT\n", True)
    assert ref_align("TAC", chain, DEFAULT, "glocal") == GraphRecord(-2, 0, 3, [0], 0, 2, "1I2=", 1)
    # pstart / pend across nodes of a path
    two = orient("S\tu\tTTAC\nS\tv\tGTTT\nL\tu\t+\tv\t+\t0M\n", True)
    assert ref_align("ACGT", two, DEFAULT, "local") == GraphRecord(8, 0, 4, [0, 2], 2, 6, "4=", 5)


def test_rescore_and_check_alignment():
    sc = DEFAULT
    assert rescore("ACGT", "ACGT", "4=", sc) == 8
    assert rescore("ACNT", "ACGA", "2=2X", sc) == 4 - 1 - 4
    assert rescore("ACGT", "AGT", "1=1I2=", sc) == 6 - 6
    assert rescore("AT", "ACCT", "1=2D1=", sc) == 4 - 8
    assert rescore("", "", "", sc) == 0
    assert rescore("AC", "AG", "1=1I1D", sc) == 2 - 6 - 6
    for read, seg, cigar in [("ACGT", "ACGT", "3="), ("ACGT", "ACGA", "4="), ("AN", "AN", "2="),
                             ("AC", "AG", "1=1I"), ("ACGT", "ACGT", "2=2="), ("AC", "AC", "2M")]:
        with pytest.raises(AssertionError):
            rescore(read, seg, cigar, sc)
    g = orient(HAND)
    good = GraphRecord(4, 0, 2, [0, 5], 1, 3, "2=", 6)  # read CA on >a<c = ACA, span 1-3
    check_alignment("CA", g, good, sc, "local")
    check_alignment("CA", g, good._replace(score=4), sc, "glocal")
    bad = [good._replace(score=5), good._replace(path=[0, 3]), good._replace(pend=2),
           good._replace(pstart=2, pend=4), good._replace(cigar="1=1X"), good._replace(qstart=1)]
    for rec in bad:
        with pytest.raises(AssertionError):
            check_alignment("CA", g, rec, sc, "local")
    with pytest.raises(AssertionError):  # global must run source to sink over the whole path
        check_alignment("CA", g, good, sc, "global")
    check_alignment("ACA", g, GraphRecord(6, 0, 3, [0, 5], 0, 3, "3=", 7), sc, "global")
    check_alignment("ACA", g, GraphRecord(-10, 0, 0, [], 0, 0, "*", -1), sc, "glocal")
    with pytest.raises(AssertionError):
        check_alignment("ACA", g, GraphRecord(-10, 0, 0, [], 0, 0, "", -1), sc, "global")


# ---------------------------------------------------------------- published scores


def test_small_dag_file_layout():
    rows = small_dag_rows()
    assert len(rows) == 42
    assert {r["their_mode"] for r in rows} == {"global", "semiglobal", "local"}
    for r in rows:
        if r["best"] != ["seq1", "seq2", "seq3"]:
            assert r["read"].startswith(r["prefix"]) and len(r["prefix"]) == 20, r["graph"]


@pytest.mark.parametrize("graph", sorted(SMALL_DAG_FILES))
def test_small_dag_expected_scores(graph):
    rows = [r for r in small_dag_rows() if r["graph"] == graph]
    checked = 0
    for r in rows:
        if not row_is_available(r):
            continue  # the seq1..seq3 graph.gfa rows (see the module notes)
        text = read_text(r["gfa"])
        g = orient(text, forward_only=True)
        assert count_paths(g) == r["paths"], r["graph"]
        sc, mode = r["scoring"], r["mode"]
        assert dp_graph(r["read"], g.bases, g.preds, g.source, g.sink, sc, mode) == r["score"], (graph, mode, sc)
        rec = ref_align(r["read"], g, sc, mode)
        assert rec.score == r["score"]
        check_alignment(r["read"], g, rec, sc, mode)
        # the path the file names scores the expected score on its own
        spelled = "".join(g.node_seq[2 * g.names.index(n)] for n in r["best"])
        assert pair_scores([r["read"]], [spelled], sc, mode) == [r["score"]]
        checked += 1
    if graph == "graph.gfa":
        assert checked == 6  # the GraphAligner rows; the three seq1..seq3 rows are skipped
    else:
        assert checked == len(rows)


def test_semiglobal_in_the_expected_file_is_glocal():
    """A row no free-ended (semi-global) alignment reproduces: f.gfa, 'semiglobal' -25 < 0."""
    row = next(r for r in small_dag_rows() if r["graph"] == "f.gfa" and r["their_mode"] == "semiglobal")
    g = orient(read_text(row["gfa"]), True)
    paths = [s for _, s in enumerate_paths(g)]
    assert row["score"] == -25
    assert max(pair_scores([row["read"]] * len(paths), paths, row["scoring"], "semi-global")) >= 0
    assert best_over_paths(row["read"], g, row["scoring"], "glocal") == -25


def test_both_orientations_never_score_below_forward_only():
    for r in small_dag_rows()[::5]:
        if not row_is_available(r):
            continue
        text = read_text(r["gfa"])
        both = orient(text)
        fwd = dp_graph(r["read"], *(lambda g: (g.bases, g.preds, g.source, g.sink))(orient(text, True)),
                       r["scoring"], r["mode"])
        assert dp_graph(r["read"], both.bases, both.preds, both.source, both.sink, r["scoring"], r["mode"]) >= fwd


def test_cactus_lower_bounds_from_the_embedded_paths():
    """local_lb / semiglobal_lb: the best of read and reverse complement against the 3 P-line paths (vg convention)."""
    rows = cactus_rows()
    assert len(rows) == 1000 and sum(int(r["local_lb"]) == int(r["len"]) for r in rows) == 848
    text = read_text(DATA / "cactus-BRCA2.gfa")
    reads = read_fastx(DATA / "cactus-BRCA2.fastq")
    paths = [spell_steps(text, steps) for steps in gfa_paths(text).values()]
    assert len(paths) == 3
    sc = vg_scoring(1, 4, 6, 1)
    subset = rows[::50]
    for col, mode in (("local_lb", "local"), ("semiglobal_lb", "glocal")):
        qs, ts = [], []
        for r in subset:
            for seq in (reads[r["read"]], revcomp(reads[r["read"]])):
                qs += [seq] * 3
                ts += paths
        scores = pair_scores(qs, ts, sc, mode)
        for k, r in enumerate(subset):
            assert max(scores[6 * k:6 * k + 6]) == int(r[col]), (r["read"], col)
