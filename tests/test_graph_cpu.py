"""The CPU graph engine's reads side by side (``align_groups``, int32 lanes) against its one-read code.

``CpuGraph(lanes=False)`` aligns every read alone (``align_each``), the
reference; the default engine takes the int32 reads ``LANES`` at a time.
Both must give the same results field by field: score, read span, path
span, path, CIGAR and end base, score only and with traceback, every mode,
on seeded random DAGs with reads of mixed lengths (0 to 200) in one batch
(several groups, the last one partly filled), matrix budgets from the
default down to one byte (a checkpoint before every row, small graphs),
scorings with and without a gap open cost, a scoring so large that the
reads of up to about 100 bases keep int32 cells with scores near 2**28 and
the longer ones need int64 (those go the one-read way, the others stay in
lanes), one and two threads, groups of fewer lanes (long reads with
traceback), reads left to the one-read code where a group's slot rows would
pass the budget; and on cactus-BRCA2 (row slots, rows of several
predecessors).
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

from seqalign_cli.config import AlignConfig, Scoring

from support.graph_oracles import GRAPH_DATA, mutate, mutated_walk, orient, random_gfa, random_seq, read_fastx

MODES = ("global", "glocal", "local")
SCORINGS = {
    "default": Scoring(),
    "bwa": Scoring(match=1, mismatch=4, gap_open=6, gap_extend=1, n_penalty=1),
    "linear": Scoring(match=3, mismatch=2, gap_open=0, gap_extend=2, n_penalty=0),
}
BUDGETS = (None, 4096, 1)


def large_scoring(n_bases: int) -> Scoring:
    """Scores so large that reads of up to about 100 bases against ``n_bases`` just keep int32 cells (scores near
    2**28) and longer ones need int64."""
    from seqalign_cli.families.graph.cpu import INT32_LIMIT

    per_base = INT32_LIMIT // (n_bases + 102)
    ge = per_base // 3
    return Scoring(match=per_base - ge - 5, mismatch=per_base - ge, gap_open=2 * ge + 3, gap_extend=ge,
                   n_penalty=ge // 2 + 1)


def _engines(threads=1):
    from seqalign_cli.families.graph.cpu import CpuGraph

    return CpuGraph(threads), CpuGraph(threads, lanes=False)


def _batch(graph, reads):
    from seqalign_cli.families.graph.batch import make_graph_batch

    return make_graph_batch(graph, [r.encode() for r in reads])


def _fields(res) -> dict:
    from seqalign_cli.results import CIGAR_LETTERS

    out = {name: getattr(res, name).tolist() for name in ("score", "qstart", "qend", "end_base")}
    if res.traceback:
        out.update(pstart=res.pstart.tolist(), pend=res.pend.tolist(), cigar=res.cigar.strings(CIGAR_LETTERS),
                   path=[res.path_nodes[res.path_off[k]:res.path_off[k + 1]].tolist() for k in range(res.size)])
    return out


def _compare(graph, reads, scoring, mode, traceback, budget=None, threads=1, what=""):
    lanes, one = _engines(threads)
    kw = {} if budget is None else dict(matrix_budget=budget)
    cfg = AlignConfig(scoring=scoring, mode=mode, traceback=traceback, **kw)
    batch = _batch(graph, reads)
    got, want = _fields(lanes.align(batch, cfg)), _fields(one.align(batch, cfg))
    for name in want:
        for k, (a, b) in enumerate(zip(got[name], want[name])):
            assert a == b, (what, mode, traceback, budget, name, k, len(reads[k]), a, b)


def _reads(rng, og, count):
    """Reads of mixed lengths 0..200: walks of the graph (mutated, trimmed, repeated to length) and noise."""
    out = []
    for k in range(count):
        kind = k % 4
        if kind == 0:
            out.append(mutated_walk(rng, og, rate=0.1))
        elif kind == 1:  # a walk, repeated and cut to a random length up to 200
            seq = mutated_walk(rng, og, rate=0.05, trim=False) or "A"
            out.append((seq * (200 // len(seq) + 1))[:rng.randint(0, 200)])
        elif kind == 2:
            out.append(random_seq(rng, rng.randint(0, 200), "ACGTN"))
        else:
            out.append(mutate(rng, mutated_walk(rng, og, rate=0.0), 0.3, "ACGTN")[:200])
    out[rng.randrange(count)] = ""
    return out


def _graph(text, forward_only):
    from seqalign_cli.families.graph.chunks_gfa import load_graph

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.gfa"
        path.write_text(text)
        return load_graph(str(path), forward_only)


@pytest.mark.parametrize("mode", MODES)
def test_lanes_equal_the_one_read_code_on_random_dags(mode):
    from seqalign_cli.families.graph.cpu import score_dtype

    rng = random.Random(1000 + MODES.index(mode))
    for case in range(8):
        text = random_gfa(rng, rng.randint(2, 40), max_len=rng.choice((1, 4, 12, 30)),
                          alphabet="ACGT" if case % 3 else "ACGTNacgt")
        forward_only = case % 2 == 1
        graph = _graph(text, forward_only)
        og = orient(text, forward_only)
        reads = _reads(rng, og, rng.choice((5, 16, 37)))
        narrow = score_dtype(AlignConfig(scoring=large_scoring(graph.n_bases)), _batch(graph, reads).lengths,
                             graph.n_bases)
        assert narrow[[len(r) <= 95 for r in reads]].all() and not narrow[[len(r) > 105 for r in reads]].any()
        for name, scoring in list(SCORINGS.items()) + [("large", large_scoring(graph.n_bases))]:
            for traceback in (False, True):
                for budget in BUDGETS if traceback else (None,):
                    if budget == 1 and graph.n_bases > 400:  # a block a row: the small graphs are enough
                        continue
                    _compare(graph, reads, scoring, mode, traceback, budget, what=(case, name))


def test_local_walk_stops_where_h_is_zero():
    """Local mode's walk ends where the start row ties: the prefix AA (+4) then a mismatch (-4) reaches the G
    run with 0, as a fresh start does (+20 either way); both engines leave the prefix out, the read spans
    3..13. One read is shifted by a base, so that the lanes' walks differ."""
    graph = _graph("S\tx\tTTAATGGGGGGGGGGTT\n", True)
    reads = ["AACGGGGGGGGGG"] * 5 + ["CAACGGGGGGGGGG", "AACGGGGGGGGGGA"]
    for budget in BUDGETS:
        _compare(graph, reads, SCORINGS["default"], "local", True, budget)
    lanes, _ = _engines()
    res = lanes.align(_batch(graph, reads), AlignConfig(scoring=SCORINGS["default"], mode="local"))
    assert res.score.tolist() == [20] * 7
    assert res.qstart.tolist() == [3] * 5 + [4, 3] and res.qend.tolist() == [13] * 5 + [14, 13]


@pytest.mark.parametrize("mode", MODES)
def test_lanes_with_two_threads(mode):
    rng = random.Random(77 + MODES.index(mode))
    text = random_gfa(rng, 30, max_len=20, alphabet="ACGTN")
    graph = _graph(text, False)
    reads = _reads(rng, orient(text), 70)
    for traceback in (False, True):
        _compare(graph, reads, SCORINGS["default"], mode, traceback, 4096, threads=2)


@pytest.mark.parametrize("mode", MODES)
def test_lanes_equal_the_one_read_code_on_cactus(mode):
    from seqalign_cli.families.graph.chunks_gfa import load_graph

    graph = load_graph(str(GRAPH_DATA / "cactus-BRCA2.gfa"))
    assert graph.n_slots >= 2 and (np.diff(graph.pred_off) >= 2).any()
    rng = random.Random(5)
    reads = [s[:rng.randint(0, 40)] for s in list(read_fastx(GRAPH_DATA / "cactus-BRCA2.fastq").values())[:18]]
    for traceback in (False, True):
        _compare(graph, reads, SCORINGS["default"], mode, traceback, 200_000 if traceback else None)


@pytest.mark.parametrize("mode", MODES)
def test_groups_of_fewer_lanes_for_long_reads(mode, monkeypatch):
    """With traceback, reads whose checkpoints would pass the budget go fewer to a group (down to one)."""
    from seqalign_cli.families.graph import cpu as cpu_graph

    monkeypatch.setattr(cpu_graph, "CHECKPOINT_MIN", 1_000_000)
    rng = random.Random(31 + MODES.index(mode))
    text = random_gfa(rng, 25, max_len=15, alphabet="ACGTN")
    graph = _graph(text, False)
    reads = _reads(rng, orient(text), 60)
    cfg = AlignConfig(mode=mode, traceback=True, matrix_budget=4096)
    lengths = np.sort(np.array([len(r) for r in reads]))[::-1]
    assert cpu_graph.fits_lanes(lengths, cfg, graph).all()
    sizes = np.diff(cpu_graph.lane_groups(lengths, cfg, graph))
    assert sizes.sum() == len(reads) and sizes.max() == cpu_graph.LANES and sizes.min() == 1, sizes
    _compare(graph, reads, SCORINGS["default"], mode, True, 4096)


@pytest.mark.parametrize("mode", MODES)
def test_reads_whose_slots_would_pass_the_budget_go_one_at_a_time(mode, monkeypatch):
    from seqalign_cli.families.graph import cpu as cpu_graph

    monkeypatch.setattr(cpu_graph, "CHECKPOINT_MIN", 1)
    rng = random.Random(41 + MODES.index(mode))
    text = random_gfa(rng, 25, max_len=15, alphabet="ACGTN")
    graph = _graph(text, False)
    reads = _reads(rng, orient(text), 50)
    budget = 2 * 61 * cpu_graph.LANES * 4 * max(graph.n_slots, 1)  # the lanes take reads of up to 60 bases
    fit = cpu_graph.fits_lanes(np.array([len(r) for r in reads]), AlignConfig(matrix_budget=budget), graph)
    assert fit.tolist() == [len(r) <= 60 for r in reads] and 0 < fit.sum() < len(reads)
    for traceback in (False, True):
        _compare(graph, reads, SCORINGS["default"], mode, traceback, budget)
