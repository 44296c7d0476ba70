"""The Python API (``seqalign_cli.align_pairs``, ``align_triplets``, ``align_graph`` and their iterators).

The records must hold what the command line writes in its TSV for the same
inputs and options (run in process through click's CliRunner, on the same
backend), whether the sequences come from files or from memory. Data: small
sets of tests/data (GASAL2 pairs, ex1 reads and reference, SARS-CoV-2
triplets, vg graphs; provenance in tests/data/README.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import seqalign_cli
from seqalign_cli import align_graph, align_pairs, align_triplets, iter_pairs
from seqalign_cli.cli import cli
from seqalign_cli.errors import InputError, UsageError

from support.clidata import EX1, EX1_READS, GQ, GT, read_fastx, write_fasta
from support.backends import BACKENDS, make_backend

DATA = Path(__file__).parent / "data"
SARS = [DATA / "triplet" / f"sars.{s}.fa" for s in "abc"]
X_GFA = DATA / "graph" / "x.gfa"
TINY_GFA = DATA / "graph" / "tiny.gfa"
DAG_READS = DATA / "graph" / "small_dag_reads.fa"


@pytest.fixture(scope="session", params=BACKENDS)
def graph_backend(request):
    """The graph family's backend (cuda: the GPU scheduler, the CPU engine for what it cannot hold)."""
    return make_backend("graph", request.param)


def records(path) -> list[tuple[str, str]]:
    """(name, sequence) of every record of a small FASTA/FASTQ file (the tests' own parser)."""
    return [(name, seq) for name, seq, _ in read_fastx(path)]


def cli_rows(tmp_path, *args) -> list[list[str]]:
    """The TSV rows (header left out) that ``seqalign ARGS -q -o out.tsv`` writes."""
    out = tmp_path / "out.tsv"
    res = CliRunner().invoke(cli, [str(a) for a in args] + ["-q", "-o", str(out)])
    assert res.exit_code == 0, (args, res.output, res.exception)
    lines = out.read_text().splitlines()
    assert lines[0].startswith("#")
    return [line.split("\t") for line in lines[1:]]


def as_row(record) -> list[str]:
    """A record as TSV text: None (not computed) is '*'."""
    return ["*" if v is None else str(v) for v in record]


@pytest.fixture(scope="module")
def sars(tmp_path_factory) -> list[Path]:
    """Every other SARS-CoV-2 triplet of at most 150 bp (a mix of the set's kinds), as files A, B, C."""
    triplets = list(zip(*(records(p) for p in SARS)))
    keep = [t for t in triplets if max(len(s) for _, s in t) <= 150][::2]
    folder = tmp_path_factory.mktemp("sars")
    return [write_fasta(folder / f"{s}.fa", [t[k] for t in keep]) for k, s in enumerate("abc")]


# ------------------------------------------------------------------ the same values as the TSV

PAIR_CASES = [
    ("global", [], {}),
    ("local", ["--match", 1, "--mismatch", 4, "--gap-open", 6, "--gap-extend", 1, "--cigar-m"],
     dict(match=1, mismatch=4, gap_open=6, gap_extend=1, cigar_m=True)),
    ("glocal", ["--score-only"], dict(score_only=True)),
    ("semi-global", ["--score-only", "--gap-open", 0], dict(score_only=True, gap_open=0)),
]


@pytest.mark.parametrize("mode, args, options", PAIR_CASES, ids=[c[0] for c in PAIR_CASES])
def test_pairs_equal_cli_tsv(backend, tmp_path, mode, args, options):
    rows = cli_rows(tmp_path, "pair", GQ, GT, "--mode", mode, "--backend", backend.name, *args)
    got = align_pairs(GQ, GT, mode=mode, backend=backend.name, batch_size=64, **options)
    assert len(rows) == 200
    assert [as_row(r) for r in got] == rows
    if options.get("score_only"):
        assert all(r.cigar is None and r.nm is None for r in got)
        assert all(r.qstart is None for r in got) == (mode == "semi-global")
    else:
        assert all(isinstance(r.cigar, str) and r.cigar != "*" for r in got)


@pytest.mark.parametrize("mode, score_only", [("global", False), ("semi-global", False), ("local", True)])
def test_triplets_equal_cli_tsv(triplet_backend, tmp_path, sars, mode, score_only):
    flag = ["--score-only"] if score_only else []
    rows = cli_rows(tmp_path, "triplet", *sars, "--mode", mode, "--backend", triplet_backend.name, *flag)
    got = align_triplets(*sars, mode=mode, score_only=score_only, backend=triplet_backend.name, batch_size=5)
    assert len(rows) == len(records(sars[0])) > 5
    assert [as_row(r) for r in got] == rows
    assert all((r.columns is None) == score_only for r in got)


@pytest.mark.parametrize("mode, flags", [("glocal", []), ("local", ["--forward-only"]), ("global", []),
                                         ("local", ["--score-only"])])
def test_graph_equal_cli_tsv(graph_backend, tmp_path, mode, flags):
    rows = cli_rows(tmp_path, "graph", X_GFA, DAG_READS, "--mode", mode, "--backend", graph_backend.name, *flags)
    options = {flag[2:].replace("-", "_"): True for flag in flags}
    got = align_graph(X_GFA, DAG_READS, mode=mode, backend=graph_backend.name, batch_size=3, **options)
    assert len(got) == len(rows) == 8
    if "--score-only" in flags:  # the TSV has the first five columns alone
        assert [as_row(r)[:5] for r in got] == rows
        assert all(r.path is None and r.cigar is None and r.start is None for r in got)
    else:
        assert [as_row(r) for r in got] == rows


def test_graph_batches_in_flight_from_the_first_see_the_whole_graph(graph_backend):
    """One read a batch, several batches in flight on streams of their own from the start of each run (each run
    uploads the graph anew): every read gets the CPU engine's result."""
    want = [as_row(r) for r in align_graph(X_GFA, DAG_READS, mode="local", backend="cpu", score_only=True)]
    for _ in range(6):
        got = align_graph(X_GFA, DAG_READS, mode="local", backend=graph_backend.name, batch_size=1, score_only=True)
        assert [as_row(r) for r in got] == want


# ------------------------------------------------------------------ memory and files alike

def test_pairs_in_memory_as_from_files(backend, tmp_path):
    q, t = records(GQ)[:60], records(GT)[:60]
    q_fa, t_fa = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    files = align_pairs(q_fa, t_fa, backend=backend.name, mode="glocal")
    assert len(files) == 60
    for queries, targets in [(q, t), (dict(q), dict(t)), (q_fa, t), (q, str(t_fa))]:
        got = align_pairs(queries, targets, backend=backend.name, mode="glocal", batch_size=16)
        assert got == files
    assert align_pairs(list(zip(q, t)), backend=backend.name, mode="glocal") == files
    # unnamed sequences, str or bytes, are named by their position
    plain = align_pairs([s for _, s in q], [s.encode() for _, s in t], backend=backend.name, mode="glocal")
    assert [(r.qname, r.tname) for r in plain] == [(str(k), str(k)) for k in range(60)]
    assert [r[1:4] + r[5:] for r in plain] == [r[1:4] + r[5:] for r in files]


def test_cross_in_memory_as_from_files(backend, tmp_path):
    reads = records(EX1_READS)[:7]
    reads_fa = write_fasta(tmp_path / "reads.fa", reads)
    files = align_pairs(reads_fa, EX1, cross=True, mode="local", backend=backend.name)
    got = align_pairs(reads, records(EX1), cross=True, mode="local", backend=backend.name, batch_size=4)
    assert got == files
    assert [(r.qname, r.tname) for r in got] == [(name, ref) for name, _ in reads for ref in ("chr1", "chr2")]


def test_pairs_interleaved_and_tuples(backend, tmp_path):
    q, t = records(GQ)[:20], records(GT)[:20]
    pairs_fa = write_fasta(tmp_path / "pairs.fa", [rec for pair in zip(q, t) for rec in pair])
    got = align_pairs(pairs_fa, backend=backend.name)
    assert got == align_pairs(list(zip(q, t)), backend=backend.name)
    assert [(r.qname, r.tname) for r in got] == [(a[0], b[0]) for a, b in zip(q, t)]


def test_triplets_interleaved_and_tuples(triplet_backend, tmp_path, sars):
    a, b, c = (records(p) for p in sars)
    triplets_fa = write_fasta(tmp_path / "triplets.fa", [rec for trio in zip(a, b, c) for rec in trio])
    files = align_triplets(*sars, backend=triplet_backend.name)
    assert align_triplets(a, b, c, backend=triplet_backend.name) == files
    assert align_triplets(list(zip(a, b, c)), backend=triplet_backend.name) == files
    assert align_triplets(triplets_fa, backend=triplet_backend.name) == files


def test_graph_text_prepared_and_reads_in_memory(graph_backend):
    from seqalign_cli.families.graph.chunks_gfa import load_graph

    reads = records(DAG_READS)
    files = align_graph(TINY_GFA, DAG_READS, backend=graph_backend.name)
    text = TINY_GFA.read_text()
    for graph in (text, text.encode(), load_graph(str(TINY_GFA)), TINY_GFA):
        assert align_graph(graph, reads, backend=graph_backend.name, batch_size=3) == files
    # tests/data/graph/small_dag_expected.tsv: local 44 (match 1, mismatch 4, a gap of L costs 6 + (L-1) * 1)
    tiny = [r for r in reads if r[0] == "tiny"]
    got = align_graph(text, tiny, mode="local", match=1, mismatch=4, gap_open=5, gap_extend=1, n_penalty=0,
                      forward_only=True, backend=graph_backend.name)
    assert got[0].score == 44 and got[0].path.startswith(">")
    with pytest.raises(ValueError, match="forward_only"):
        align_graph(load_graph(str(TINY_GFA)), reads, forward_only=True)


def test_iterator_streams_in_order():
    pairs = [("ACGT" * (k + 1), "ACGT" * (k + 1)) for k in range(25)]
    it = iter_pairs(pairs, backend="cpu", batch_size=4)
    assert not isinstance(it, list)
    scores = [r.score for r in it]
    assert scores == [8 * (k + 1) for k in range(25)]  # identical sequences: 2 a base


def test_scores_past_int32(backend):
    big = 2**31 - 1
    got = align_pairs([("a", "ACGT" * 5)], [("b", "ACGT" * 5)], match=big, backend=backend.name)
    assert got[0].score == 20 * big and got[0].cigar == "20="


# ------------------------------------------------------------------ errors, empty inputs

def test_bad_letters_raise_input_error(tmp_path):
    with pytest.raises(InputError, match=r"<targets>: record 2 \(t2\): invalid sequence character 'E' at position 3"):
        align_pairs(["ACGT", "ACGT"], [("t1", "ACGT"), ("t2", "ACEG")], backend="cpu")
    bad = write_fasta(tmp_path / "bad.fa", [("r1", "ACGT"), ("r2", "AC-GT")])
    with pytest.raises(ValueError, match=r"bad\.fa: record 2 \(r2\): invalid sequence character '-'"):
        align_pairs(bad, bad, backend="cpu")
    with pytest.raises(InputError, match="<reads>: record 1"):
        align_graph(TINY_GFA, ["AC1T"], backend="cpu")
    with pytest.raises(InputError, match="unequal record counts: 2 in <a>, 1 in <b>, 2 in <c>"):
        align_triplets(["A", "C"], ["G"], ["T", "A"], backend="cpu")


def test_affine_triplets():
    """gap_open > 0: quasi-natural affine gaps (the oracle's ``ref_align_affine``), the same on every backend."""
    from support.triplet_oracles import ref_align_affine

    from seqalign_cli.config import Scoring

    triplets = [("ACGTACGT", "ACGACGT", "ACGTTACGT"), ("ACGT", "AT", "ACGT"), ("", "AC", "A")]
    got = list(align_triplets(triplets, gap_open=3, gap_extend=1, backend="cpu"))
    sc = Scoring(match=2, mismatch=4, gap_open=3, gap_extend=1, n_penalty=1)
    for (a, b, c), res in zip(triplets, got):
        score, begins, ends, columns = ref_align_affine(a, b, c, sc, "global")
        assert (res.score, res.columns) == (score, columns)


def test_bad_options_and_items():
    with pytest.raises(ValueError, match="mode must be one of global, semi-global, local"):
        align_triplets(["A"], ["C"], ["G"], mode="glocal")
    with pytest.raises(ValueError, match="threads"):
        align_pairs(["A"], ["C"], threads=0)
    with pytest.raises(ValueError, match="backend"):
        align_pairs(["A"], ["C"], backend="gpu")
    with pytest.raises(ValueError, match="cross"):
        align_pairs(["A"], cross=True)
    with pytest.raises(TypeError, match="item 1"):
        align_pairs(["A", 7], ["C", "G"], backend="cpu")
    with pytest.raises(UsageError, match="no such file.*inside a list"):
        align_pairs("ACGT", "ACG")


def test_empty_inputs_give_no_records(tmp_path):
    empty = tmp_path / "empty.fa"
    empty.write_text("")
    assert align_pairs([], [], backend="cpu") == []
    assert align_pairs(empty, empty, backend="cpu") == []
    assert align_triplets([], [], [], backend="cpu") == []
    assert align_graph(TINY_GFA, [], backend="cpu") == []


def test_import_stays_light():
    code = ("import sys, seqalign_cli; seqalign_cli.align_pairs; "
            "print(sorted(m for m in ('numpy', 'numba', 'cupy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert set(seqalign_cli.__all__) >= {"align_pairs", "align_triplets", "align_graph", "iter_pairs"}
