"""Correctness of the graph family (reads against a DAG, ``seqalign graph``) against independent oracles.

Oracles: ``tests/support/graph_oracles.py`` (its own GFA orientation, the DP of the
specification with its tie-rule walk, the best pairwise score over every
source-to-sink path, rescoring and the alignment invariants).

* the reader (``families/graph/chunks_gfa.load_graph``) against the oracle's orientation, base
  by base, and the row storage plan;
* a single chain scores exactly what ``seqalign pair`` scores, every mode,
  score only and with traceback (both orientations: the better strand);
* seeded random small DAGs against the oracle DP, every mode, both
  orientations: the score, the invariants of every traceback
  (``check_alignment``) and, separately, the exact alignment the tie rules
  pick; reads of length 0 and 1, reads longer than every path, one-base
  segments, several sources and sinks;
* real graphs: GraphAligner's test read (path >1>2>4, edit distance 5), vg's
  tiny graph and x graph with vg's test reads, the small vg graphs of
  ``small_dag_expected.tsv``, and cactus-BRCA2 (local scores never below
  the best score against its embedded paths, equal where that is perfect);
* the command line: TSV and GAF (read back by the strict reader of
  ``tests/support/gaf.py``) against the oracle, score only, ``--forward-only``,
  unaligned records, bad graphs (exit 1, one line naming the file and the
  line, no output left), and byte-identical CPU and GPU output on every
  test set (marked gpu).

Tests taking ``graph_backend`` run on the CPU engine and, where a GPU is
usable, on the cuda backend.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from seqalign_cli.config import AlignConfig, Scoring

from support.backends import BACKENDS, GPU, make_backend
from support.graph_oracles import (
    GRAPH_DATA, GraphRecord, check_alignment, enumerate_paths, gfa_paths, mutate, mutated_walk, orient,
    pair_scores, random_gfa, random_seq, random_walk, read_fastx, read_text, ref_align, revcomp, row_is_available,
    cactus_rows, cycle_segments, slot_plan, small_dag_rows, spell_steps, vg_scoring,
)
from support.helpers import gpu_count, messages

DATA = GRAPH_DATA
MODES = ("global", "glocal", "local")
DEFAULT = Scoring()
SCORINGS = {
    "default": DEFAULT,
    "bwa": Scoring(match=1, mismatch=4, gap_open=6, gap_extend=1, n_penalty=1),
    "linear": Scoring(match=3, mismatch=2, gap_open=0, gap_extend=2, n_penalty=0),
}
UNIT = Scoring(match=0, mismatch=1, gap_open=0, gap_extend=1, n_penalty=1)
TSV_HEADER = ["#read", "length", "start", "end", "score", "path", "path_start", "path_end", "cigar"]


@pytest.fixture(scope="session", params=BACKENDS)
def graph_backend(request):
    """The graph family's backend (cuda: the GPU scheduler, the CPU engine for what it cannot hold)."""
    return make_backend("graph", request.param)


# ------------------------------------------------------------------ running the engines

_TMP = tempfile.TemporaryDirectory(prefix="seqalign-graph-tests-")


def gfa_file(text: str) -> Path:
    """A GFA file holding ``text`` (one per distinct text, kept until the test run ends)."""
    p = Path(_TMP.name) / f"g{hashlib.sha1(text.encode()).hexdigest()[:16]}.gfa"
    if not p.exists():
        p.write_text(text)
    return p


@lru_cache(maxsize=None)
def _load(path: str, forward_only: bool):
    from seqalign_cli.families.graph.chunks_gfa import load_graph

    return load_graph(path, forward_only), orient(read_text(path), forward_only)


def load(text_or_path, forward_only: bool = False):
    """(the reader's Graph, the oracle's OrientedGraph) of a GFA text or file."""
    path = text_or_path if isinstance(text_or_path, Path) else gfa_file(text_or_path)
    return _load(str(path), forward_only)


def align(backend, graph, reads, scoring, mode, traceback=True):
    from seqalign_cli.io.encode import encode_many
    from seqalign_cli.families.graph.batch import GraphBatch

    codes, offs = encode_many([r.encode() for r in reads])
    cfg = AlignConfig(scoring=scoring, mode=mode, traceback=traceback)
    return backend.align(GraphBatch(codes, offs, graph), cfg)


def records(res) -> list[GraphRecord]:
    """The results as ``GraphRecord``s (cigar '' when there is none)."""
    from seqalign_cli.results import CIGAR_LETTERS

    cigars = res.cigar.strings(CIGAR_LETTERS)
    out = []
    for k in range(res.size):
        path = res.path_nodes[res.path_off[k]:res.path_off[k + 1]].tolist()
        out.append(GraphRecord(int(res.score[k]), int(res.qstart[k]), int(res.qend[k]), path, int(res.pstart[k]),
                               int(res.pend[k]), "" if cigars[k] == "*" else cigars[k], int(res.end_base[k])))
    return out


def check_against_oracle(backend, text_or_path, reads, scoring, mode, forward_only=False, exact=False):
    """Traceback and score only of ``reads``: oracle scores, valid alignments; ``exact``: the tie rules too."""
    graph, og = load(text_or_path, forward_only)
    refs = [ref_align(r, og, scoring, mode) for r in reads]
    got = records(align(backend, graph, reads, scoring, mode))
    only = records(align(backend, graph, reads, scoring, mode, traceback=False))
    for k, (read, ref, rec, sco) in enumerate(zip(reads, refs, got, only)):
        what = (mode, forward_only, scoring, read, ref, rec)
        assert rec.score == ref.score, what
        assert sco.score == ref.score, ("score only", what, sco)
        check_alignment(read, og, rec, scoring, mode)
        assert sco.path == [] and sco.cigar == "", ("score only", sco)
        if exact:
            assert rec[:7] == ref[:7], what
            if ref.path:
                assert (sco.qstart, sco.qend, sco.end_base) == (-1 if mode == "local" else 0, ref.qend,
                                                                ref.end_base), ("score only", what, sco)
            else:
                assert (sco.qstart, sco.qend, sco.end_base) == (0, 0, -1), ("score only", what, sco)
    return refs, got


# ------------------------------------------------------------------ the reader


def _reader_agrees(graph, og):
    from seqalign_cli.io.encode import encode

    n = og.n_bases
    assert graph.n_bases == n
    assert graph.codes.tolist() == encode(og.bases).tolist()
    assert graph.node.tolist() == og.base_node and graph.offset.tolist() == og.base_offset
    assert graph.pred_off.tolist() == np.cumsum([0] + [len(p) for p in og.preds]).tolist()
    assert graph.pred.tolist() == [u for p in og.preds for u in p]
    assert graph.source.tolist() == og.source and graph.sink.tolist() == og.sink
    assert graph.names == og.names and graph.seg_len.tolist() == [len(s) for s in og.seqs]
    first = [-1] * (2 * len(og.names))
    for v, b in og.node_first.items():
        first[v] = b
    assert graph.node_first.tolist() == first
    slots, n_slots = slot_plan(og.preds)
    assert graph.slot.tolist() == slots and graph.n_slots == n_slots
    assert [graph.node_name(v) for v in og.order] == [og.node_name(v) for v in og.order]


@pytest.mark.parametrize("forward_only", [False, True], ids=["both", "forward"])
def test_reader_matches_the_oracle_orientation(forward_only):
    rng = random.Random(3 + forward_only)
    for k in range(40):
        text = random_gfa(rng, rng.randint(1, 9), max_len=rng.choice((1, 4, 9)), alphabet="ACGTNacgtRY")
        _reader_agrees(*load(text, forward_only))
    for name in ("tiny.gfa", "graphaligner.gfa", "x.gfa", "f.gfa", "cactus-BRCA2.gfa"):
        _reader_agrees(*load(DATA / name, forward_only))


# ------------------------------------------------------------------ a single chain is a pair


@pytest.mark.parametrize("mode", MODES)
def test_single_chain_scores_what_pair_scores(graph_backend, mode):
    rng = random.Random(11 + MODES.index(mode))
    for k in range(6):
        seq = random_seq(rng, rng.randint(1, 80), "ACGT" if k % 3 else "ACGTN")
        cuts = sorted(rng.sample(range(1, len(seq)), min(len(seq) - 1, rng.randint(0, 5)))) if len(seq) > 1 else []
        parts = [seq[a:b] for a, b in zip([0] + cuts, cuts + [len(seq)])]
        text = "".join(f"S\tc{i}\t{p}\n" for i, p in enumerate(parts))
        text += "".join(f"L\tc{i}\t+\tc{i + 1}\t+\t0M\n" for i in range(len(parts) - 1))
        reads = [mutate(rng, seq[rng.randrange(len(seq)):], 0.15) for _ in range(8)]
        reads += [random_seq(rng, rng.randint(0, 60), "ACGTN") for _ in range(6)] + ["", seq[:1], seq + "A"]
        for name, sc in SCORINGS.items():
            fwd = pair_scores(reads, [seq] * len(reads), sc, mode)
            rev = pair_scores(reads, [revcomp(seq)] * len(reads), sc, mode)
            for forward_only, want in ((True, fwd), (False, [max(a, b) for a, b in zip(fwd, rev)])):
                graph, og = load(text, forward_only)
                for traceback in (True, False):
                    res = align(graph_backend, graph, reads, sc, mode, traceback)
                    assert res.score.tolist() == want, (name, forward_only, traceback, seq)
                    if traceback:
                        for read, rec in zip(reads, records(res)):
                            check_alignment(read, og, rec, sc, mode)


# ------------------------------------------------------------------ random DAGs


def _dag_cases(seed: int, n: int, **kw):
    rng = random.Random(seed)
    out = []
    for k in range(n):
        text = random_gfa(rng, rng.randint(1, 8), max_len=rng.choice((1, 3, 7)),
                          alphabet="ACGT" if k % 3 else "ACGTNacgt", **kw)
        og = orient(text)
        reads = [mutated_walk(rng, og, rate=0.2) for _ in range(5)]
        reads += [random_seq(rng, rng.randint(0, 15), "ACGTN"), random_seq(rng, 1)]
        out.append((text, reads))
    return out


@pytest.mark.parametrize("forward_only", [False, True], ids=["both", "forward"])
@pytest.mark.parametrize("mode", MODES)
def test_random_dags_against_the_oracle_dp(graph_backend, mode, forward_only):
    for name, sc in SCORINGS.items():
        for text, reads in _dag_cases(hash((mode, forward_only, name)) & 0xFFFF, 10):
            check_against_oracle(graph_backend, text, reads, sc, mode, forward_only)


@pytest.mark.parametrize("mode", MODES)
def test_random_dags_follow_the_tie_rules(graph_backend, mode):
    """The exact alignment (spans, path, CIGAR) and the score-only ends the specification's walk picks."""
    for forward_only in (False, True):
        for name in ("default", "linear"):
            for text, reads in _dag_cases(100 + MODES.index(mode) + 10 * forward_only, 12):
                check_against_oracle(graph_backend, text, reads, SCORINGS[name], mode, forward_only, exact=True)


def test_reads_of_length_0_and_1(graph_backend):
    rng = random.Random(21)
    texts = [random_gfa(rng, rng.randint(1, 6)) for _ in range(6)] + ["S\tone\tA\n", "S\tn\tN\n"]
    reads = ["", "A", "c", "N", "G", "T"]
    for text in texts:
        for mode in MODES:
            for forward_only in (False, True):
                refs, got = check_against_oracle(graph_backend, text, reads, DEFAULT, mode, forward_only, exact=True)
                if mode == "global":
                    assert all(r.path for r in got)  # an empty read still crosses the graph (deletions)
                elif mode == "glocal":
                    assert got[0] == GraphRecord(0, 0, 0, [], 0, 0, "", got[0].end_base)


def test_reads_longer_than_every_path_in_global_mode(graph_backend):
    rng = random.Random(31)
    for k in range(8):
        text = random_gfa(rng, rng.randint(1, 6), max_len=4)
        og = orient(text)
        longest = max(og.path_length(p) for p, _ in enumerate_paths(og))
        reads = [og.spell(random_walk(rng, og)) + random_seq(rng, rng.randint(1, 30)) for _ in range(3)]
        reads += [random_seq(rng, longest + rng.randint(1, 40)) for _ in range(3)]
        for mode in MODES:
            check_against_oracle(graph_backend, text, reads, DEFAULT, mode, exact=True)
            check_against_oracle(graph_backend, text, reads, SCORINGS["linear"], mode, True, exact=True)


@pytest.mark.parametrize("mode", MODES)
def test_one_base_segments(graph_backend, mode):
    rng = random.Random(41 + MODES.index(mode))
    for k in range(6):
        text = random_gfa(rng, rng.randint(2, 12), max_len=1, p_edge=0.5)
        og = orient(text)
        reads = [mutated_walk(rng, og, 0.1) for _ in range(5)] + [random_seq(rng, 6)]
        for forward_only in (False, True):
            check_against_oracle(graph_backend, text, reads, DEFAULT, mode, forward_only, exact=True)


SOURCES_SINKS = (
    "S\ta1\tACGTA\nS\ta2\tTTGCA\nS\ta3\tG\nS\thub\tCCATGGA\nS\tz1\tAATT\nS\tz2\tGCGCGC\nS\tz3\tT\nS\tlone\tTACGGAT\n"
    "L\ta1\t+\thub\t+\t0M\nL\ta2\t+\thub\t+\t0M\nL\ta3\t+\thub\t+\t0M\n"
    "L\thub\t+\tz1\t+\t0M\nL\thub\t+\tz2\t+\t0M\nL\thub\t+\tz3\t+\t0M\n"
)


def test_several_sources_and_sinks(graph_backend):
    graph, og = load(SOURCES_SINKS, True)
    assert len(og.sources()) == 4 and len(og.sinks()) == 4
    paths = enumerate_paths(og)
    reads = [seq for _, seq in paths]
    res = records(align(graph_backend, graph, reads, DEFAULT, "global"))
    for (path, seq), rec in zip(paths, res):
        assert rec == GraphRecord(2 * len(seq), 0, len(seq), path, 0, len(seq), f"{len(seq)}=", rec.end_base)
    mixed = [reads[0][:3] + reads[4][3:], reads[2][:-2], "CCATGGA", "GG", "TACG"]
    for mode in MODES:
        for forward_only in (False, True):
            check_against_oracle(graph_backend, SOURCES_SINKS, reads + mixed, DEFAULT, mode, forward_only, exact=True)


# ------------------------------------------------------------------ real graphs


@pytest.mark.parametrize("forward_only", [False, True], ids=["both", "forward"])
def test_graphaligner_read_edit_distance_5(graph_backend, forward_only):
    """GraphAligner's test: the 71 bp read on path >1>2>4 with edit distance 5 (unit costs, glocal)."""
    graph, og = load(DATA / "graphaligner.gfa", forward_only)
    read = read_fastx(DATA / "graphaligner_read.fa")["read"]
    assert len(read) == 71
    (rec,) = records(align(graph_backend, graph, [read], UNIT, "glocal"))
    assert rec.score == -5
    assert "".join(graph.node_name(v) for v in rec.path) == ">1>2>4"
    check_alignment(read, og, rec, UNIT, "glocal")
    assert rec[:7] == ref_align(read, og, UNIT, "glocal")[:7]


def test_vg_tiny_graph(graph_backend):
    """vg's tiny graph: its reference read (the P line x) end to end, and vg's test read against the oracle."""
    graph, og = load(DATA / "tiny.gfa")
    text = read_text(DATA / "tiny.gfa")
    (steps,) = gfa_paths(text).values()
    ref_read = spell_steps(text, steps)
    assert len(ref_read) == 50
    (rec,) = records(align(graph_backend, graph, [ref_read], DEFAULT, "global"))
    assert rec[:7] == (100, 0, 50, [2 * og.names.index(n) for n, _ in steps], 0, 50, "50=")
    vg_read = read_fastx(DATA / "small_dag_reads.fa")["tiny"]
    for mode in MODES:
        check_against_oracle(graph_backend, DATA / "tiny.gfa", [vg_read, ref_read, revcomp(vg_read)], DEFAULT, mode,
                             exact=True)


def test_vg_x_graph_test_read(graph_backend):
    """vg's alignment test on its x graph: a 48 bp read scoring 48 (vg defaults) and 96 (match 2, mismatch 2, 3/1)."""
    read = "CTACTGACAGCAGAAGTTTGCTGTGAAGATTAAATTAGGTGATGCTTG"
    graph, og = load(DATA / "x.gfa")
    for scoring, want in ((vg_scoring(1, 4, 6, 1), 48), (vg_scoring(2, 2, 3, 1), 96)):
        sc = Scoring(*scoring)
        for mode in ("local", "glocal"):
            (rec,) = records(align(graph_backend, graph, [read], sc, mode))
            assert rec.score == want and rec.cigar == "48="
            check_alignment(read, og, rec, sc, mode)


def test_small_vg_graphs_expected_scores(graph_backend):
    """Every available row of small_dag_expected.tsv on the engine (forward strand, as the file was made)."""
    done = 0
    for row in small_dag_rows():
        if not row_is_available(row):
            continue
        sc = Scoring(*row["scoring"])
        graph, og = load(row["gfa"], True)
        for traceback in (True, False):
            (rec,) = records(align(graph_backend, graph, [row["read"]], sc, row["mode"], traceback))
            assert rec.score == row["score"], (row["graph"], row["their_mode"], row["scoring"], traceback)
            if traceback:
                check_alignment(row["read"], og, rec, sc, row["mode"])
        done += 1
    assert done == 39


def test_cactus_brca2_local_scores_reach_the_embedded_paths(graph_backend):
    """Local, both orientations: never below the best score against the 3 P-line paths, equal where that is 100."""
    sc = Scoring(*vg_scoring(1, 4, 6, 1))
    rows = cactus_rows()
    reads = read_fastx(DATA / "cactus-BRCA2.fastq")
    on_cpu = getattr(graph_backend, "name", "") == "cpu"
    subset = rows[::10] if on_cpu else rows
    graph, og = load(DATA / "cactus-BRCA2.gfa")
    seqs = [reads[r["read"]] for r in subset]
    res = align(graph_backend, graph, seqs, sc, "local", traceback=False)
    lb = np.array([int(r["local_lb"]) for r in subset])
    full = np.array([int(r["len"]) for r in subset])
    assert (res.score >= lb).all(), np.flatnonzero(res.score < lb)
    assert (res.score[lb == full] == full[lb == full]).all()
    assert (res.score <= full).all()  # match 1: at most the read length
    few = subset[:: (20 if on_cpu else 50)]
    tb = records(align(graph_backend, graph, [reads[r["read"]] for r in few], sc, "local"))
    for r, rec in zip(few, tb):
        assert rec.score >= int(r["local_lb"])
        check_alignment(reads[r["read"]], og, rec, sc, "local")


# ------------------------------------------------------------------ command line


def invoke(args) -> str:
    """Run ``seqalign`` in process; returns its stdout (AssertionError on a failure)."""
    from click.testing import CliRunner

    from seqalign_cli.cli import cli

    res = CliRunner().invoke(cli, [str(a) for a in args])
    assert res.exit_code == 0, (args, res.output, res.exception)
    return res.output


def run_graph(gfa, reads, out: Path, *opts) -> str:
    """``seqalign graph -q OPTS GFA READS -o OUT``; the output's text."""
    invoke(["graph", "-q", *opts, gfa, reads, "-o", out])
    return out.read_text()


def parse_tsv(text: str, score_only: bool = False) -> list[list[str]]:
    lines = text.splitlines()
    header = TSV_HEADER[:5] if score_only else TSV_HEADER
    assert lines and lines[0].split("\t") == header, lines[:1]
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(r) == len(header) for r in rows)
    return rows


def tsv_record(row, og) -> GraphRecord:
    """A TSV row as a GraphRecord (empty alignments: path '*', CIGAR '*', spans 0)."""
    path = og.parse_path(row[5])
    if not path:
        assert row[8] == "*" and row[2:4] == ["0", "0"] and row[6:8] == ["0", "0"], row
    return GraphRecord(int(row[4]), int(row[2]), int(row[3]), path, int(row[6]), int(row[7]),
                       "" if row[8] == "*" else row[8], -1)


def gaf_records(text: str, og, reads: dict) -> list[tuple[str, GraphRecord]]:
    """Every GAF line read by the strict reader of tests/support/gaf.py and checked column by column; (name, record)."""
    from support.gaf import check_cigar, parse_gaf

    seg_len = {n: len(s) for n, s in zip(og.names, og.seqs)}
    out = []
    for g in parse_gaf(text):
        assert g.qlen == len(reads[g.qname])
        if not g.aligned:
            assert (g.qstart, g.qend, g.strand, g.plen, g.pstart, g.pend, g.matches, g.block, g.mapq) == \
                (0, 0, "*", 0, 0, 0, 0, 0, 0), g
            assert set(g.tags) == {"AS"}, g
            out.append((g.qname, GraphRecord(g.tags["AS"][1], 0, 0, [], 0, 0, "", -1)))
            continue
        assert g.strand == "+" and g.mapq == 255 and set(g.tags) == {"AS", "NM", "cg"}, g
        check_cigar(g, seg_len)
        path = og.parse_path(g.path)
        assert g.plen == og.path_length(path)
        out.append((g.qname, GraphRecord(g.tags["AS"][1], g.qstart, g.qend, path, g.pstart, g.pend,
                                         g.tags["cg"][1], -1)))
    return out


def write_reads(path: Path, reads: dict) -> Path:
    path.write_text("".join(f">{n}\n{s}\n" for n, s in reads.items()))
    return path


def cli_set(name: str, folder: Path) -> tuple[Path, Path]:
    """(GFA, reads) of a named command-line test set."""
    small = DATA / "small_dag_reads.fa"
    if name == "random":
        rng = random.Random(77)
        text = random_gfa(rng, 9, max_len=5, alphabet="ACGTNacgt")
        og = orient(text)
        reads = {f"r{k}": mutated_walk(rng, og, 0.2) for k in range(12)}
        reads.update(empty="", one="A", noise=random_seq(rng, 20))
        return gfa_file(text), write_reads(folder / "random.fa", reads)
    if name == "tiny":
        r = read_fastx(small)
        picked = {"tiny": r["tiny"], "tiny_ref": "CAAATAAGGCTTGGAAATTTTCTGGAGTTCTATTATATTCCAACTCTCTG", "f": r["f"],
                  "tiny_rc": revcomp(r["tiny"])}
        return DATA / "tiny.gfa", write_reads(folder / "tiny.fa", picked)
    if name == "graphaligner":
        return DATA / "graphaligner.gfa", DATA / "graphaligner_read.fa"
    if name == "f":
        r = read_fastx(small)
        return DATA / "f.gfa", write_reads(folder / "f.fa", {k: r[k] for k in ("f", "tiny", "graphaligner")})
    if name == "cactus":
        reads = read_fastx(DATA / "cactus-BRCA2.fastq")
        return DATA / "cactus-BRCA2.gfa", write_reads(folder / "cactus20.fa", dict(list(reads.items())[:20]))
    return DATA / name, small  # a vg graph with the small reads


#: the oracle-checked sets (small enough for the plain-Python walk), with the orientations they are run in
ORACLE_SETS = {"random": (False, True), "tiny": (False,), "graphaligner": (False, True), "f": (True,)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(ORACLE_SETS))
def test_cli_tsv_and_gaf_match_the_oracle(tmp_path, name, mode):
    gfa, reads_path = cli_set(name, tmp_path)
    reads = read_fastx(reads_path)
    for forward_only in ORACLE_SETS[name]:
        og = orient(read_text(gfa), forward_only)
        opts = ["--mode", mode, "--backend", "cpu"] + (["--forward-only"] if forward_only else [])
        refs = {n: ref_align(s, og, DEFAULT, mode) for n, s in reads.items()}
        rows = parse_tsv(run_graph(gfa, reads_path, tmp_path / "out.tsv", *opts))
        assert [r[0] for r in rows] == list(reads) and [int(r[1]) for r in rows] == [len(s) for s in reads.values()]
        for row in rows:
            rec = tsv_record(row, og)
            assert rec[:7] == refs[row[0]][:7], (name, mode, forward_only, row)
            check_alignment(reads[row[0]], og, rec, DEFAULT, mode)
        gaf = gaf_records(run_graph(gfa, reads_path, tmp_path / "out.gaf", *opts), og, reads)
        assert [n for n, _ in gaf] == list(reads)
        for n, rec in gaf:
            assert rec[:7] == refs[n][:7], (name, mode, forward_only, n)
        only = parse_tsv(run_graph(gfa, reads_path, tmp_path / "only.tsv", "--score-only", *opts), score_only=True)
        assert [r[:2] + r[3:5] for r in only] == [r[:2] + r[3:5] for r in rows]
        for r in only:
            empty = not refs[r[0]].path
            assert r[2] == ("0" if empty or mode != "local" else "*"), r


def test_cli_forward_only_and_reverse_reads(tmp_path):
    text = read_text(DATA / "graphaligner.gfa")
    og = orient(text, True)
    fwd = og.spell(enumerate_paths(og)[0][0])
    reads = write_reads(tmp_path / "r.fa", {"fwd": fwd[10:60], "rev": revcomp(fwd[10:60])})
    both = parse_tsv(run_graph(DATA / "graphaligner.gfa", reads, tmp_path / "b.tsv", "--mode", "local"))
    one = parse_tsv(run_graph(DATA / "graphaligner.gfa", reads, tmp_path / "f.tsv", "--mode", "local",
                              "--forward-only"))
    assert [int(r[4]) for r in both] == [100, 100]
    assert both[0][5].startswith(">") and both[1][5].startswith("<") and "<" not in both[0][5]
    assert int(one[0][4]) == 100 and int(one[1][4]) < 100 and "<" not in one[1][5]


def test_cli_unaligned_records(tmp_path):
    gfa = gfa_file("S\tz\tAAAA\n")
    reads = write_reads(tmp_path / "r.fa", {"none": "CCCC", "one": "A"})
    gaf = run_graph(gfa, reads, tmp_path / "o.gaf", "--mode", "local").splitlines()
    assert gaf[0] == "none\t4\t0\t0\t*\t*\t0\t0\t0\t0\t0\t0\tAS:i:0"
    assert gaf[1] == "one\t1\t0\t1\t+\t>z\t4\t0\t1\t1\t1\t255\tAS:i:2\tNM:i:0\tcg:Z:1="
    # glocal: CCCC all inserted (-(4 + 4*2) = -12) beats 4 mismatches against the path (-16)
    gaf = run_graph(gfa, reads, tmp_path / "g.gaf", "--mode", "glocal").splitlines()
    assert gaf[0] == "none\t4\t0\t0\t*\t*\t0\t0\t0\t0\t0\t0\tAS:i:-12"
    tsv = parse_tsv(run_graph(gfa, reads, tmp_path / "g.tsv", "--mode", "glocal"))
    assert tsv[0] == ["none", "4", "0", "0", "-12", "*", "0", "0", "*"]
    assert tsv[1] == ["one", "1", "0", "1", "2", ">z", "0", "1", "1="]


def test_cli_gaf_to_stdout(tmp_path):
    gfa, reads = cli_set("graphaligner", tmp_path)
    text = invoke(["graph", "-q", "--format", "gaf", "--mode", "glocal", "--match", "0", "--mismatch", "1",
                   "--gap-open", "0", "--gap-extend", "1", gfa, reads])
    (line,) = text.splitlines()
    f = line.split("\t")
    assert f[:2] == ["read", "71"] and f[4:6] == ["+", ">1>2>4"] and "AS:i:-5" in f and "NM:i:5" in f


# ------------------------------------------------------------------ CPU and GPU agree


CLI_SETS = ["random", "tiny", "graphaligner", "x.gfa", "113968116-113968146.gfa", "155227783-155227803.gfa",
            "280136066-280136088.gfa", "70211809-70211845.gfa", "59867692-59867698.gfa", "f.gfa", "cactus"]


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CLI_SETS)
def test_cli_cpu_and_gpu_outputs_are_identical(tmp_path, name, mode):
    gfa, reads = cli_set(name, tmp_path)
    for extra in ([], ["--forward-only"]):
        for out, opts in (("o.tsv", []), ("o.gaf", []), ("s.tsv", ["--score-only"])):
            texts = [run_graph(gfa, reads, tmp_path / f"{b}.{out}", "--mode", mode, "--backend", b, *extra, *opts)
                     for b in ("cpu", "cuda")]
            assert texts[0] == texts[1], (name, mode, extra, out)
            assert texts[0].count("\n") >= 1


def test_sections_cut_only_where_no_edge_crosses():
    from seqalign_cli.families.graph.gpu import sections

    rng = random.Random(21)
    for k in range(60):
        graph, _ = load(random_gfa(rng, rng.randint(1, 12), max_len=rng.choice((1, 4, 9))), k % 3 == 0)
        n = graph.n_bases
        preds = [graph.preds(v).tolist() for v in range(n)]
        cuttable = [b for b in range(1, n) if all(u >= b for v in range(b, n) for u in preds[v])]
        least = rng.choice((1, 2, 5, n))
        bounds = sections(graph.pred_off, graph.pred, least).tolist()
        assert bounds[0] == 0 and bounds[-1] == n and bounds == sorted(set(bounds)), bounds
        assert all(b in cuttable for b in bounds[1:-1]), (bounds, cuttable)
        assert all(b - a >= least for a, b in zip(bounds[:-2], bounds[1:-1])), (bounds, least)
        # greedy: each cut is the first cuttable point at least ``least`` rows into its section
        assert all(b == min(c for c in cuttable if c >= a + least) for a, b in zip(bounds[:-2], bounds[1:-1]))
        if least == 1:
            assert bounds[1:-1] == cuttable
    cactus, _ = load(DATA / "cactus-BRCA2.gfa")
    assert sections(cactus.pred_off, cactus.pred, cactus.n_bases // 8).tolist() == [0, 85094, 170188]


def test_gpu_takes_the_reads_it_can():
    """The GPU engine leaves to the CPU engine the empty reads and those whose scores could pass int32; it
    traces back reads of every length, stripes and all (host rule, checked without a GPU)."""
    from seqalign_cli.families.graph.gpu import HOOKS, INT32_LIMIT, STRIPE_COLUMNS
    from seqalign_cli.families.graph.batch import make_graph_batch

    graph, _ = load("S\ta\tACGTACGTAC\nS\tb\tTTGA\nL\ta\t+\tb\t+\t0M\n")
    reads = [b"", b"A", b"ACGT" * 30, b"A" * STRIPE_COLUMNS, b"A" * (STRIPE_COLUMNS + 1)]
    batch = make_graph_batch(graph, reads)
    for traceback in (False, True):
        assert HOOKS.on_gpu(batch, AlignConfig(traceback=traceback)).tolist() == [False, True, True, True, True]
    wide = Scoring(match=INT32_LIMIT // 60)  # a bound of about (m + 29) * match: under the limit at 1 base, over at 120
    assert [wide.score_bound(len(r), graph.n_bases) < INT32_LIMIT for r in reads] == [True, True, False, False, False]
    assert HOOKS.on_gpu(batch, AlignConfig(scoring=wide, traceback=False)).tolist() == [False, True, False, False, False]


def _launch_plan(batch, cfg, pack16=True):
    """CudaGraph.launches without a device (the plan is host arithmetic), on a device of 16 GiB."""
    from seqalign_cli.families.graph.gpu import CudaGraph
    from support.fake_cupy import fake_cupy, without_device

    # the constructor's budgets come from the pretend device's 16 GiB (trace_budgets); 64 warps a round
    eng = without_device(CudaGraph, min_width=1, pack16=pack16, cp=fake_cupy(memory=16 * 1024**3))
    eng.max_warps = 64
    return list(eng.launches(batch, cfg, np.arange(batch.size)))


def test_16bit_cells_take_the_reads_whose_values_fit():
    """Reads go two a warp in 16-bit cells when their bound fits (global mode: small graphs only); every read is
    in exactly one launch, those of a launch of one width; with traceback, a launch is one round of warps
    (pairs in 16-bit cells)."""
    from seqalign_cli.families.graph.gpu import INT16_LIMIT, fits16, width
    from seqalign_cli.families.graph.batch import make_graph_batch

    sc = Scoring()
    lengths = np.arange(1, 10000)
    ok = np.array([fits16(sc, [m], width(m))[0] for m in lengths])
    assert ok[:512].all() and not ok.all()  # default scoring: a few kb in 16-bit cells, then int32
    assert (np.diff(ok.astype(int)) <= 0).all()  # monotone: from some length on, int32 cells
    # the bound: match x columns against the limit (match 40: 384 columns fit, 512 do not)
    strong = Scoring(match=40)
    assert fits16(strong, [384], 12).tolist() == [True] and fits16(strong, [385], 16).tolist() == [False]
    assert 40 * 384 < INT16_LIMIT <= 40 * 512
    # global mode: the graph's bases count too (cactus-BRCA2's 170,188 never fit, a small graph does)
    assert fits16(sc, [100], 4, 2000).tolist() == [True] and fits16(sc, [100], 4, 170188).tolist() == [False]
    graph, _ = load("S\ta\tACGTACGTAC\nS\tb\tTTGA\nL\ta\t+\tb\t+\t0M\n")
    rng = random.Random(3)
    reads = [b"ACGT"[rng.randrange(4):][:1] * rng.randint(1, 1400) for _ in range(41)] + [b"A" * 2999]
    batch = make_graph_batch(graph, reads)
    for mode in MODES:
        for traceback in (False, True):
            for sc_ in (sc, strong, Scoring(match=200)):
                cfg = AlignConfig(scoring=sc_, mode=mode, traceback=traceback)
                plan = _launch_plan(batch, cfg)
                taken = np.concatenate([r for _, r, _ in plan])
                assert sorted(taken.tolist()) == list(range(batch.size))
                packs = sc_.match <= 127
                bases = graph.n_bases if mode == "global" else 0
                for K, r, pack in plan:
                    assert all(max(width(int(m)), 1) == K for m in batch.lengths[r])
                    if pack:
                        assert packs and fits16(sc_, batch.lengths[r], K, bases).all()
                    elif packs:
                        assert not fits16(sc_, batch.lengths[r], K, bases).any()
                    if traceback:  # the launch's warps (64 here) take a read or a pair each
                        assert len(r) <= (2 if pack else 1) * 64
                packed = sum(len(r) for _, r, p in plan if p)
                assert (packed > 0) == packs
            assert not any(p for _, _, p in _launch_plan(batch, AlignConfig(mode=mode), pack16=False))


def test_the_stripe_pipeline_takes_launches_that_leave_warps_idle(monkeypatch):
    """A launch's reads of several stripes go a warp a stripe where their items alone would leave a quarter of
    the warps idle or more and their links fit LINK_BYTES; one stripe, or items for most warps: a warp an
    item."""
    from seqalign_cli.families.graph import gpu as cuda_graph
    from seqalign_cli.families.graph.gpu import LINK_INTS, pipeline_stripes

    assert pipeline_stripes(200, 20, 2112) == 20 and pipeline_stripes(1584, 20, 2112) == 20
    assert pipeline_stripes(200, 1, 2112) == 0 and pipeline_stripes(1585, 20, 2112) == 0  # three quarters
    monkeypatch.setattr(cuda_graph, "LINK_BYTES", 200 * 20 * LINK_INTS * 4)
    assert pipeline_stripes(200, 20, 2112) == 20 and pipeline_stripes(201, 20, 2112) == 0


def test_traceback_budgets_grow_with_the_device():
    """Checkpoints and the walk's warps of reads of several stripes take their floors, or a share of a larger
    device's memory (reads of one stripe: the floors)."""
    from seqalign_cli.families.graph.gpu import trace_budgets

    assert trace_budgets(0) == trace_budgets(16 * 1024**3) == (4 * 1024**3, 2 * 1024**3)
    assert trace_budgets(80 * 1024**3) == (10 * 1024**3, 5 * 1024**3)


def test_traceback_launches_of_striped_reads_keep_the_walks_blocks_short(monkeypatch):
    """With traceback, a launch of reads of several stripes holds so few that its checkpoints fit
    the launch's checkpoint budget every walk_rows steps (the walk sweeps a block once for each stripe left of
    it): the rows between checkpoints grow no further; every read in one launch, longest first. The budget:
    CHECKPOINT_BYTES, or a share of a larger device's memory."""
    from seqalign_cli.families.graph import gpu as cuda_graph
    from seqalign_cli.families.graph.gpu import CudaGraph, walk_rows
    from seqalign_cli.families.graph.batch import make_graph_batch

    rng = random.Random(5)
    graph, _ = load(f"S\ta\t{random_seq(rng, 50000)}\nS\tb\tTTGA\nL\ta\t+\tb\t+\t0M\n")
    batch = make_graph_batch(graph, [b"A" * rng.randint(1, 6000) for _ in range(300)])
    monkeypatch.setattr(cuda_graph, "CHECKPOINT_BYTES", 64 * 1024**2)
    monkeypatch.setattr(cuda_graph, "CHECKPOINT_SHARE", 0)
    plan = _launch_plan(batch, AlignConfig(traceback=True))
    assert sorted(np.concatenate([r for _, r, _ in plan]).tolist()) == list(range(batch.size))
    dg = SimpleNamespace(n=graph.n_bases, n_slots=max(graph.n_slots, 1))
    cut = 0
    for K, r, _ in plan:
        assert (np.diff(batch.lengths[r]) <= 0).all()
        stripes = -(-int(batch.lengths[r].max()) // (32 * K))
        if stripes > 1:
            assert CudaGraph.block_steps(dg, K, len(r) * stripes, 64 * 1024**2) <= walk_rows(graph.n_bases, stripes)
            cut += len(r) < 64  # fewer than a round of warps
    assert cut > 5


def _gpu_records_equal_the_cpu(cpu, engines, batch, cfg, tag):
    """Each GPU engine's records of ``batch`` equal the CPU engine's (``tag`` names the case on failure)."""
    from seqalign_cli.families.graph.gpu import HOOKS

    want = records(cpu.align(batch, cfg))
    for eng in engines:
        out = HOOKS.allocate(batch, cfg)
        eng.align(batch, cfg, np.arange(batch.size), out)
        out.finish(cfg)
        assert records(out) == want, (*tag, eng.pack16, eng.pipeline)


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("mode", MODES)
def test_16bit_cells_agree_with_int32_cells_and_the_cpu_engine(mode):
    """Two reads a warp in 16-bit cells: random DAGs cut at every section, reads of 1 to 1,400 bases (one to
    three stripes), an odd count, N bases, scorings near the 16-bit bound, score only and traceback (the walk
    restoring its read's half of a pair's checkpoints): records equal the CPU engine's and the int32 cells'."""
    from seqalign_cli.families.graph.cpu import CpuGraph
    from seqalign_cli.families.graph.gpu import CudaGraph
    from seqalign_cli.families.graph.batch import make_graph_batch

    rng = random.Random(70 + MODES.index(mode))
    cpu = CpuGraph(1)
    engines = (CudaGraph(0, section_rows=1), CudaGraph(0, section_rows=1, pack16=False))
    near = Scoring(match=28, mismatch=9, gap_open=11, gap_extend=3, n_penalty=5)  # 28 x 512 columns: 14,336
    for k in range(8):
        graph, og = load(random_gfa(rng, rng.randint(2, 14), max_len=rng.choice((1, 4, 12))), k % 4 == 3)
        reads = [mutated_walk(rng, og) or "A" for _ in range(9)]
        reads += [random_seq(rng, rng.choice((1, 33, 150, 511, 513, 1100, 1400)), "ACGTN") for _ in range(6)]
        batch = make_graph_batch(graph, [r.encode() for r in reads])
        for traceback in (False, True):
            for sc in (DEFAULT, near, SCORINGS["bwa"]):
                cfg = AlignConfig(scoring=sc, mode=mode, traceback=traceback)
                assert any(p for _, _, p in _launch_plan(batch, cfg))
                _gpu_records_equal_the_cpu(cpu, engines, batch, cfg, (k, sc, traceback))


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("mode", MODES)
def test_reads_of_several_stripes_agree_with_the_cpu_engine(mode):
    """Reads of 513 bases and more (two stripes and up) against random DAGs of long and short segments, cut at
    every section, both strands and forward only, score only and traceback, a read's stripes on one warp and
    in the stripe pipeline (rings that wrap on the longest graph): the walk goes from stripe to stripe by
    diagonal and insertion moves (the predecessor of a stripe's first column from the stripe before's codes);
    records equal the CPU engine's."""
    from seqalign_cli.families.graph.cpu import CpuGraph
    from seqalign_cli.families.graph.gpu import HOOKS, STRIPE_COLUMNS, CudaGraph
    from seqalign_cli.families.graph.batch import make_graph_batch

    rng = random.Random(90 + MODES.index(mode))
    cpu = CpuGraph(1)
    engines = (CudaGraph(0, section_rows=1), CudaGraph(0, section_rows=1, pipeline=False))
    long_reads = 0
    for k in range(5):
        # the last: strands of about 7,000 rows, past the pipeline's rings of 4,096
        segments, longest = (rng.randint(3, 10), rng.choice((300, 700))) if k < 4 else (5, 2800)
        graph, og = load(random_gfa(rng, segments, max_len=longest), k % 2 == 1)
        reads = [mutated_walk(rng, og, rate=0.08, trim=False) or "A" for _ in range(12)]
        reads += [random_seq(rng, rng.randint(STRIPE_COLUMNS + 1, 2600), "ACGTN") for _ in range(2)]
        long_reads += sum(len(r) > STRIPE_COLUMNS for r in reads)
        batch = make_graph_batch(graph, [r.encode() for r in reads])
        for sc in (DEFAULT, SCORINGS["bwa"]):
            for traceback in (False, True):
                cfg = AlignConfig(scoring=sc, mode=mode, traceback=traceback)
                assert HOOKS.on_gpu(batch, cfg).all()
                _gpu_records_equal_the_cpu(cpu, engines, batch, cfg, (k, sc, traceback))
    assert long_reads >= 20


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("mode", MODES)
def test_10kb_reads_agree_with_the_cpu_engine(mode):
    """Reads of up to 10 kb (20 stripes: the two longest of 12 mutated walks, cut at 10 kb, and a random 10 kb
    read) against a graph of long segments, score only and traceback, in the stripe pipeline and on one warp:
    records equal the CPU engine's."""
    from seqalign_cli.families.graph.cpu import CpuGraph
    from seqalign_cli.families.graph.gpu import STRIPE_COLUMNS, CudaGraph
    from seqalign_cli.families.graph.batch import make_graph_batch

    rng = random.Random(110 + MODES.index(mode))
    graph, og = load(random_gfa(rng, 6, max_len=4000))
    walks = sorted((mutated_walk(rng, og, rate=0.05, trim=False) for _ in range(12)), key=len)
    reads = [w[:10000] for w in walks[-2:]] + [random_seq(rng, 10000, "ACGTN")]
    assert min(map(len, reads)) > 10 * STRIPE_COLUMNS
    batch = make_graph_batch(graph, [r.encode() for r in reads])
    engines = (CudaGraph(0), CudaGraph(0, pipeline=False))
    for traceback in (False, True):
        cfg = AlignConfig(mode=mode, traceback=traceback)
        _gpu_records_equal_the_cpu(CpuGraph(2), engines, batch, cfg, (traceback,))


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("mode", MODES)
def test_gpu_sections_and_wide_scores_agree_with_the_cpu_engine(mode):
    """Sections at every cut, byte-profile and wide scores: the GPU engine's records equal the CPU engine's."""
    from seqalign_cli.families.graph.cpu import CpuGraph
    from seqalign_cli.families.graph.gpu import CudaGraph
    from seqalign_cli.families.graph.batch import make_graph_batch

    rng = random.Random(40 + MODES.index(mode))
    gpu, cpu = CudaGraph(0, section_rows=1), CpuGraph(1)
    wide = Scoring(match=150, mismatch=200, gap_open=300, gap_extend=130, n_penalty=140)
    for k in range(10):
        graph, og = load(random_gfa(rng, rng.randint(2, 14), max_len=rng.choice((1, 4, 12))), k % 4 == 3)
        reads = [mutated_walk(rng, og) or "A" for _ in range(12)] + [random_seq(rng, rng.randint(1, 90), "ACGTN")]
        batch = make_graph_batch(graph, [r.encode() for r in reads])
        for sc in (DEFAULT, wide):
            for traceback in (False, True):
                cfg = AlignConfig(scoring=sc, mode=mode, traceback=traceback)
                _gpu_records_equal_the_cpu(cpu, (gpu,), batch, cfg, (k, sc, traceback))


# ------------------------------------------------------------------ bad graphs


BAD_GRAPHS = {  # name: (GFA text or data file, line named or None, words the message holds)
    "empty graph": ("H\tVN:Z:1.0\n# no segment\n", None, []),
    "missing segment": ("S\ta\tACGT\nS\tb\tGG\nL\ta\t+\tc\t+\t0M\n", 3, ["c"]),
    "duplicate name": ("S\ta\tAC\nS\tb\tG\nS\ta\tT\n", 3, ["a"]),
    "star sequence": ("H\tVN:Z:1.0\nS\ta\tACGT\nS\tb\t*\n", 3, ["b"]),
    "overlap": ("S\ta\tAC\nS\tb\tGT\nL\ta\t+\tb\t+\t2M\n", 3, []),
    "self loop": ("S\ta\tACG\nS\tb\tT\nL\tb\t+\tb\t+\t0M\n", None, ["cycle", "b"]),
    "inversion cycle": ("S\ta\tACG\nS\tb\tT\nL\ta\t+\tb\t-\t0M\nL\tb\t-\ta\t+\t0M\n", None, ["cycle"]),
    "MT.gfa cycle": (DATA / "MT.gfa", None, ["cycle", "MTh4001"]),
}


def _run_bad(name: str, folder: Path):
    spec, _, _ = BAD_GRAPHS[name]
    gfa = spec if isinstance(spec, Path) else folder / f"{name.replace(' ', '_')}.gfa"
    if not isinstance(spec, Path):
        gfa.write_text(spec)
    reads = write_reads(folder / f"{name.replace(' ', '_')}.fa", {"r": "ACGTACGT"})
    outdir = folder / f"out_{name.replace(' ', '_')}"
    outdir.mkdir()
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "graph", "-q", "--backend", "cpu", str(gfa),
                           str(reads), "-o", str(outdir / "out.gaf")], capture_output=True, timeout=120)
    return gfa, outdir, proc


@pytest.fixture(scope="module")
def bad_runs(tmp_path_factory):
    """Every bad graph through the real entry point, run side by side."""
    folder = tmp_path_factory.mktemp("bad_graphs")
    with ThreadPoolExecutor(4) as pool:
        futures = {name: pool.submit(_run_bad, name, folder) for name in BAD_GRAPHS}
    return {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", list(BAD_GRAPHS))
def test_bad_graph_is_one_clean_error(bad_runs, name):
    gfa, outdir, proc = bad_runs[name]
    _, line, words = BAD_GRAPHS[name]
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert "Traceback" not in err, err
    lines = messages(err)
    assert len(lines) == 1 and lines[0].startswith("seqalign: error: "), err
    assert str(gfa) in lines[0], err
    if line is not None:
        assert f"line {line}" in lines[0], err
    for word in words:
        assert word in lines[0], (word, err)
    if "cycle" in words and isinstance(BAD_GRAPHS[name][0], str):
        on = cycle_segments(BAD_GRAPHS[name][0])
        assert any(f"segment {s}" in lines[0] for s in on), (on, err)
    assert list(outdir.iterdir()) == [], "output left behind"
    assert proc.stdout == b""


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 2, reason="needs two GPUs")
@pytest.mark.parametrize("traceback", [False, True])
def test_several_gpus_equal_the_cpu(traceback):
    """Every GPU through the shared scheduler (the graph uploaded once to each): batches whole to one GPU's
    pipeline and in pieces over all of them, every mode, reads of 1 to 1,200 bases: records equal the CPU
    engine's."""
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend
    from seqalign_cli.families.graph.cpu import CpuGraph

    rng = random.Random(131)
    graph, og = load(random_gfa(rng, 12, max_len=300))
    reads = [mutated_walk(rng, og, rate=0.05) or "A" for _ in range(150)]
    reads += [random_seq(rng, rng.choice((1, 20, 150, 700, 1200)), "ACGTN") for _ in range(30)]
    multi = select_backend(families.get("graph"), "cuda", 4, lambda m: None, "all")
    multi.spread_cells = multi.piece_records = 0  # to the GPUs' pipelines, whatever the cells a read
    for mode in MODES:
        want = records(align(CpuGraph(4), graph, reads, DEFAULT, mode, traceback))
        for split in (10**15, 0):  # whole batches, then pieces
            multi.split_cells = split
            assert records(align(multi, graph, reads, DEFAULT, mode, traceback)) == want, (mode, split)


def test_host_arrays_made_once_for_every_device():
    """Devices asking for a graph's arrays at once get the same arrays, made once (the others wait)."""
    from seqalign_cli.families.graph import gpu as cuda_graph

    graph, _ = load(random_gfa(random.Random(3), 9, max_len=20))
    graph.__dict__.pop("_host_graphs", None)
    made = []
    real = cuda_graph._HostGraph

    class Counting(real):
        def __init__(self, *args):
            made.append(args[1])
            super().__init__(*args)

    cuda_graph._HostGraph = Counting
    try:
        with ThreadPoolExecutor(4) as pool:
            hosts = list(pool.map(lambda rows: cuda_graph.host_graph(graph, rows), [64, 64, 64, 1]))
    finally:
        cuda_graph._HostGraph = real
    assert sorted(made) == [1, 64] and hosts[0] is hosts[1] is hosts[2] and hosts[3] is not hosts[0]
    assert hosts[3].sec[-1] == graph.n_bases and len(hosts[3].sec) >= len(hosts[0].sec)


def test_row_records_follow_their_definition():
    """The kernels' per-row records, row by row as ``row_records`` documents them, on random graphs."""
    from seqalign_cli.families.graph.gpu import MANY_PREDS, graph_arrays, row_records

    rng = random.Random(12)
    for k in range(40):
        graph, _ = load(random_gfa(rng, rng.randint(1, 12), max_len=rng.choice((1, 3, 30))), k % 3 == 0)
        codes, pred_off, pred, slot, source, sink, _ = graph_arrays(graph)
        flags = source.astype(np.uint8) | (sink.astype(np.uint8) << 1)
        meta, eslot = row_records(codes, pred_off, pred, slot, flags)
        meta = meta.reshape(-1, 4)
        for v in range(graph.n_bases):
            entries = range(pred_off[v], pred_off[v + 1])
            for p in entries:
                assert eslot[p] == (-1 if pred[p] == v - 1 else slot[pred[p]])
            lone = len(entries) == 1
            word = (min(len(entries), MANY_PREDS) | int(flags[v]) << 12 | int(lone and pred[pred_off[v]] == v - 1) << 14
                    | (int(codes[v]) * 0x1111 | 0x8880) << 16)
            assert meta[v].tolist() == [pred_off[v], word - (1 << 32) if word >= 1 << 31 else word, slot[v],
                                        eslot[pred_off[v]] if lone else -1]
