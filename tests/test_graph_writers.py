"""Graph results and writers: ``GraphAlignments`` (allocate, paths, take, finish) and the TSV and GAF rows.

Results are made by hand for a small stand-in graph (segment names and
lengths are all a writer reads of it) and written through the registry;
the rows are compared with exact text, GAF is read back with the strict
reader of ``gaf.py`` and its columns checked against its cg:Z CIGAR, on
hand-made rows and on many random ones.
"""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import numpy as np
import pytest

from seqalign_cli.config import AlignConfig
from seqalign_cli.errors import UsageError
from seqalign_cli.io.block import Record, RecordBlock
from seqalign_cli.families.graph.results import GraphAlignments
from seqalign_cli.results import Op
from seqalign_cli.writers import WriterContext, format_from_path, formats, make_writer
from seqalign_cli.families.graph.formats import node_labels
from seqalign_cli.writers.output import OutputFile

from support.gaf import GafError, check_cigar, parse_gaf, parse_line

OPS = {"=": Op.MATCH, "X": Op.MISMATCH, "I": Op.INSERTION, "D": Op.DELETION}
TSV_HEADER = "#read\tlength\tstart\tend\tscore\tpath\tpath_start\tpath_end\tcigar\n"


def make_graph(segments):
    """The fields of a graph a writer reads: segment names and lengths (file order)."""
    return SimpleNamespace(names=[n for n, _ in segments], seg_len=np.array([n for _, n in segments], np.int64))


def make_chunk(reads, graph):
    block = RecordBlock.from_records(Record(name, seq.encode(), None, k + 1) for k, (name, seq) in enumerate(reads))
    return SimpleNamespace(block=block, graph=graph)


def node(graph, label: str) -> int:
    return 2 * graph.names.index(label[1:]) + (label[0] == "<")


def set_cigar(res, k, cigar: str):
    runs = [(int(n), op) for n, op in re.findall(r"(\d+)([=XID])", cigar)]
    s = res.cigar.off[k]
    for i, (n, op) in enumerate(runs):
        res.cigar.op[s + i] = OPS[op]
        res.cigar.length[s + i] = n
    res.cigar.count[k] = len(runs)


def build(graph, rows, traceback=True):
    """``GraphAlignments`` from rows (read length, score, qstart, qend, path labels, pstart, pend, cigar)."""
    res = GraphAlignments.allocate(np.array([r[0] for r in rows]), traceback)
    paths = []
    for k, (_, score, qs, qe, path, ps, pe, cigar) in enumerate(rows):
        res.score[k], res.qstart[k], res.qend[k], res.pstart[k], res.pend[k] = score, qs, qe, ps, pe
        if traceback:
            set_cigar(res, k, cigar)
        paths.append([node(graph, x) for x in re.findall(r"[<>][^<>]+", path)])
    if traceback:
        res.set_paths(paths)
    return res


def write(tmp_path, fmt, chunks, traceback=True, name="out"):
    """Chunks of (chunk, results) through the registered writer; the file's text."""
    path = tmp_path / f"{name}.{fmt}"
    writer = make_writer("graph", fmt, WriterContext(out=OutputFile(str(path)), traceback=traceback))
    for chunk, res in chunks:
        writer.write(chunk, res)
    writer.close()
    return path.read_text()


SEGMENTS = [("s1", 4), ("s2", 3), ("s3", 5)]
READS = [("r1", "ACGTACGT"), ("r2", "TTTTT"), ("r3", "GGCCAA"), ("r4", ""), ("r5", "ACGA")]
ROWS = [
    (8, 3, 1, 6, ">s1>s2", 1, 6, "2=1X1I1D1="),
    (5, 0, 0, 0, "", 0, 0, ""),  # empty
    (6, 7, 0, 6, "<s3<s2>s1", 4, 9, "2=1I3="),
    (0, -10, 0, 0, ">s2", 0, 3, "3D"),  # an empty read aligned globally: deletions only
    (4, 1, 0, 4, "<s1", 0, 4, "1X3="),
]


def test_registry_and_extension():
    assert set(formats("graph")) == {"tsv", "gaf"}
    assert format_from_path("x.gaf") == "gaf" and format_from_path("x.gaf.gz") == "gaf"


def test_tsv_rows(tmp_path):
    graph = make_graph(SEGMENTS)
    text = write(tmp_path, "tsv", [(make_chunk(READS, graph), build(graph, ROWS))])
    assert text == TSV_HEADER + (
        "r1\t8\t1\t6\t3\t>s1>s2\t1\t6\t2=1X1I1D1=\n"
        "r2\t5\t0\t0\t0\t*\t0\t0\t*\n"
        "r3\t6\t0\t6\t7\t<s3<s2>s1\t4\t9\t2=1I3=\n"
        "r4\t0\t0\t0\t-10\t>s2\t0\t3\t3D\n"
        "r5\t4\t0\t4\t1\t<s1\t0\t4\t1X3=\n")


def test_gaf_rows(tmp_path):
    graph = make_graph(SEGMENTS)
    text = write(tmp_path, "gaf", [(make_chunk(READS, graph), build(graph, ROWS))])
    assert text == (
        "r1\t8\t1\t6\t+\t>s1>s2\t7\t1\t6\t3\t6\t255\tAS:i:3\tNM:i:3\tcg:Z:2=1X1I1D1=\n"
        "r2\t5\t0\t0\t*\t*\t0\t0\t0\t0\t0\t0\tAS:i:0\n"
        "r3\t6\t0\t6\t+\t<s3<s2>s1\t12\t4\t9\t5\t6\t255\tAS:i:7\tNM:i:1\tcg:Z:2=1I3=\n"
        "r4\t0\t0\t0\t+\t>s2\t3\t0\t3\t0\t3\t255\tAS:i:-10\tNM:i:3\tcg:Z:3D\n"
        "r5\t4\t0\t4\t+\t<s1\t4\t0\t4\t3\t4\t255\tAS:i:1\tNM:i:1\tcg:Z:1X3=\n")
    seg_len = dict(SEGMENTS)
    recs = parse_gaf(text)
    assert [r.qname for r in recs] == [name for name, _ in READS]
    assert [r.aligned for r in recs] == [True, False, True, True, True]
    for rec in recs:
        if rec.aligned:
            check_cigar(rec, seg_len)
        else:
            assert set(rec.tags) == {"AS"} and rec.mapq == 0


def test_chunks_graphs_and_empty_runs(tmp_path):
    """Several chunks (the header once; labels kept for the same graph, made again for another), none at all."""
    g1 = make_graph(SEGMENTS)
    g2 = make_graph([("x", 2), ("s1", 9)])
    c1 = (make_chunk(READS[:2], g1), build(g1, ROWS[:2]))
    c2 = (make_chunk(READS[2:], g1), build(g1, ROWS[2:]))
    c3 = (make_chunk([("q", "AC")], g2), build(g2, [(2, 4, 0, 2, "<x>s1", 1, 3, "2=")]))
    text = write(tmp_path, "tsv", [c1, c2, c3])
    lines = text.splitlines()
    assert lines[0] + "\n" == TSV_HEADER and len(lines) == 1 + len(READS) + 1
    assert lines[-1] == "q\t2\t0\t2\t4\t<x>s1\t1\t3\t2="
    gaf = write(tmp_path, "gaf", [c1, c2, c3])
    assert gaf.splitlines()[-1] == "q\t2\t0\t2\t+\t<x>s1\t11\t1\t3\t2\t2\t255\tAS:i:4\tNM:i:0\tcg:Z:2="
    assert write(tmp_path, "tsv", [], name="none") == TSV_HEADER
    assert write(tmp_path, "gaf", [], name="none") == ""


def test_utf8_names(tmp_path):
    graph = make_graph([("sé", 2), ("ü", 1)])
    res = build(graph, [(3, 5, 0, 3, ">sé<ü", 0, 3, "3=")])
    text = write(tmp_path, "gaf", [(make_chunk([("rä", "ACG")], graph), res)])
    assert text == "rä\t3\t0\t3\t+\t>sé<ü\t3\t0\t3\t3\t3\t255\tAS:i:5\tNM:i:0\tcg:Z:3=\n"
    check_cigar(parse_gaf(text)[0], {"sé": 2, "ü": 1})


def test_node_labels():
    text, off = node_labels(["a", "bc", "é"])
    labels = [text[off[u]:off[u + 1]].tobytes().decode() for u in range(6)]
    assert labels == [">a", "<a", ">bc", "<bc", ">é", "<é"]
    text, off = node_labels([])
    assert len(text) == 0 and off.tolist() == [0]


# --------------------------------------------------------------- score only

@pytest.mark.parametrize("mode, start", [("global", 0), ("glocal", 0), ("local", -1)])
def test_score_only_tsv(tmp_path, mode, start):
    """Starts follow the mode; an empty alignment (end base -1, or a local score of 0) has spans 0."""
    graph = make_graph(SEGMENTS)
    res = GraphAlignments.allocate(np.array([8, 5, 0]), False)
    if mode == "global":  # r2 ends on a sink; the empty read r4 deletes its way through the graph
        res.score[:], res.qend[:], res.end_base[:] = [3, -6, -4], [6, 5, 0], [5, 2, 3]
        want = ["r1\t8\t0\t6\t3", "r2\t5\t0\t5\t-6", "r4\t0\t0\t0\t-4"]
    elif mode == "glocal":  # r2 and r4 all inserted before any graph base: empty paths
        res.score[:], res.qend[:], res.end_base[:] = [3, -14, 0], [6, 5, 0], [5, -1, -1]
        want = ["r1\t8\t0\t6\t3", "r2\t5\t0\t0\t-14", "r4\t0\t0\t0\t0"]
    else:  # nothing scores above 0 for r2 and r4
        res.score[:], res.qend[:], res.end_base[:] = [3, 0, 0], [6, 3, 0], [5, 7, -1]
        want = ["r1\t8\t*\t6\t3", "r2\t5\t0\t0\t0", "r4\t0\t0\t0\t0"]  # '*': not computed
    res.finish(AlignConfig(mode=mode, traceback=False))
    assert res.path_off.tolist() == [0, 0, 0, 0] and res.cigars() == ["*"] * 3
    assert res.qstart[0] == start
    text = write(tmp_path, "tsv", [(make_chunk(READS[:2] + [READS[3]], graph), res)], traceback=False)
    assert text == "#read\tlength\tstart\tend\tscore\n" + "".join(x + "\n" for x in want)
    with pytest.raises(UsageError, match="score-only"):
        make_writer("graph", "gaf", WriterContext(out=OutputFile(str(tmp_path / "x.gaf")), traceback=False))


# ------------------------------------------------------------------ results

def test_allocate_capacity():
    res = GraphAlignments.allocate(np.array([0, 3, 10]), True)
    room = np.diff(np.append(res.cigar.off, len(res.cigar.op)))
    assert room.tolist() == [1, 7, 21]
    assert res.size == 3 and res.path_off.tolist() == [0, 0, 0, 0] and len(res.path_nodes) == 0
    assert res.end_base.tolist() == [-1, -1, -1]
    score_only = GraphAlignments.allocate(np.array([5, 6]), False)
    assert score_only.cigar.count.tolist() == [0, 0] and score_only.view().path_off.tolist() == [0, 0, 0]


def test_set_paths_forms():
    res = GraphAlignments.allocate(np.array([1, 1, 1]), True)
    res.set_paths([[0, 2], [], [5]])
    assert res.path_off.tolist() == [0, 2, 2, 3] and res.path_nodes.tolist() == [0, 2, 5]
    assert res.path_nodes.dtype == np.int32 and res.path_off.dtype == np.int64
    res.set_paths((np.array([0, 1, 1, 4]), np.array([3, 0, 2, 4])))
    assert res.path_strings(["a", "b", "c"]) == ["<b", "*", ">a>b>c"]
    res.set_paths((np.array([0, 10, 20]), np.array([2, 0, 3]), np.arange(30)))  # per-read scratch
    assert [res.path(k).tolist() for k in range(3)] == [[0, 1], [], [20, 21, 22]]
    res.set_paths([[7]], idx=np.array([1]))  # one read's path only
    assert [res.path(k).tolist() for k in range(3)] == [[0, 1], [7], [20, 21, 22]]
    res.set_paths((np.array([0, 0, 2]), np.array([4, 4])), idx=np.array([2, 0]))
    assert [res.path(k).tolist() for k in range(3)] == [[4, 4], [7], []]
    nodes = res.allocate_paths(np.array([1, 0, 2]))
    nodes[:] = [9, 8, 6]
    assert [res.path(k).tolist() for k in range(3)] == [[9], [], [8, 6]]
    with pytest.raises(ValueError):
        res.set_paths([[1], [2]])
    with pytest.raises(ValueError):
        res.set_paths((np.array([0, 2, 1, 3]), np.array([1, 2, 3])))


def test_take_copies_paths_and_overwrites():
    graph = make_graph(SEGMENTS)
    rows = ROWS + [(3, 2, 0, 3, ">s3", 1, 4, "3=")]
    whole = build(graph, rows)
    out = GraphAlignments.allocate(np.array([r[0] for r in rows]), True)
    # an earlier part writes reads 0, 2, 4 with wrong paths; a later one writes them again
    wrong = build(graph, [rows[1], rows[3], rows[2]])
    out.take(np.array([0, 2, 4]), wrong)
    out.take(np.array([5, 1, 3]), build(graph, [rows[5], rows[1], rows[3]]))
    out.take(np.array([4, 0, 2]), build(graph, [rows[4], rows[0], rows[2]]))
    for name in ("score", "qstart", "qend", "pstart", "pend", "end_base"):
        assert getattr(out, name).tolist() == getattr(whole, name).tolist(), name
    assert out.cigars() == whole.cigars()
    assert out.path_strings(graph.names) == whole.path_strings(graph.names) == [
        ">s1>s2", "*", "<s3<s2>s1", ">s2", "<s1", ">s3"]
    assert out.path_off.tolist() == whole.path_off.tolist()
    assert out.path_nodes.tolist() == whole.path_nodes.tolist()


def test_take_score_only():
    out = GraphAlignments.allocate(np.array([4, 4, 4]), False)
    part = GraphAlignments.allocate(np.array([4, 4]), False)
    part.score[:] = [5, 6]
    part.qend[:] = [3, 4]
    part.end_base[:] = [7, 8]
    out.take(np.array([2, 0]), part)
    assert out.score.tolist() == [6, 0, 5] and out.end_base.tolist() == [8, -1, 7]
    assert out.path_off.tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("mode", ["global", "glocal", "local"])
def test_finish_traceback(mode):
    """An empty path makes an empty alignment: no runs, spans 0 (a glocal read all inserted included)."""
    graph = make_graph(SEGMENTS)
    res = build(graph, [ROWS[0], (4, -12, 0, 4, "", 0, 0, "4I"), (5, 0, 2, 2, "", 0, 0, "")])
    res.end_base[:] = [4, -1, -1]
    res.finish(AlignConfig(mode=mode))
    assert res.cigars() == ["2=1X1I1D1=", "*", "*"]
    assert res.qstart.tolist() == [1, 0, 0] and res.qend.tolist() == [6, 0, 0]
    assert res.pstart.tolist() == [1, 0, 0] and res.pend.tolist() == [6, 0, 0]
    assert res.score.tolist() == [3, -12, 0]
    assert res.end_base.tolist() == [4, -1, -1]


# ------------------------------------------------------------ random rows

def random_rows(rng: random.Random, segments, n):
    """Alignments whose columns follow from a random path and CIGAR, as the spec defines them."""
    rows, reads = [], []
    for k in range(n):
        if rng.random() < 0.1:
            m = rng.randrange(0, 30)
            rows.append((m, rng.randrange(-50, 1), 0, 0, "", 0, 0, ""))
            reads.append((f"read{k}", "A" * m))
            continue
        path, used = [], set()
        for _ in range(rng.randrange(1, 6)):
            seg = rng.randrange(len(segments))
            label = rng.choice("<>") + segments[seg][0]
            if path and path[-1] == label:
                continue
            path.append(label)
            used.add(seg)
        lens = [dict(segments)[x[1:]] for x in path]
        pstart = rng.randrange(lens[0])
        last = rng.randrange(lens[-1]) if len(path) > 1 else rng.randrange(pstart, lens[0])
        pend = sum(lens[:-1]) + last + 1
        span = pend - pstart
        ops = []
        graph_left = span
        while graph_left:
            op = rng.choice("==XDI")
            n_op = rng.randrange(1, 5)
            if op != "I":
                n_op = min(n_op, graph_left)
                graph_left -= n_op
            if ops and ops[-1][1] == op:
                ops[-1][0] += n_op
            else:
                ops.append([n_op, op])
        cigar = "".join(f"{a}{b}" for a, b in ops)
        qspan = sum(a for a, b in ops if b in "=XI")
        qstart = rng.randrange(0, 5)
        m = qstart + qspan + rng.randrange(0, 5)
        rows.append((m, rng.randrange(-100, 200), qstart, qstart + qspan, "".join(path), pstart, pend, cigar))
        reads.append((f"read{k}" + "x" * rng.randrange(0, 40), "C" * m))
    return rows, reads


def test_random_rows_round_trip(tmp_path):
    rng = random.Random(7)
    segments = [(f"seg{k}" + "_" * rng.randrange(0, 20), rng.randrange(1, 40)) for k in range(30)]
    graph = make_graph(segments)
    rows, reads = random_rows(rng, segments, 600)
    chunks = [(make_chunk(reads[a:a + 150], graph), build(graph, rows[a:a + 150])) for a in range(0, 600, 150)]
    recs = parse_gaf(write(tmp_path, "gaf", chunks))
    tsv = write(tmp_path, "tsv", chunks).splitlines()[1:]
    assert len(recs) == len(tsv) == len(rows)
    seg_len = dict(segments)
    for rec, line, row, (name, seq) in zip(recs, tsv, rows, reads):
        m, score, qs, qe, path, ps, pe, cigar = row
        assert (rec.qname, rec.qlen, rec.tags["AS"]) == (name, len(seq), ("i", score))
        if not path:
            assert not rec.aligned and line == f"{name}\t{m}\t0\t0\t{score}\t*\t0\t0\t*"
            continue
        assert (rec.qstart, rec.qend, rec.path, rec.pstart, rec.pend, rec.tags["cg"][1]) == (qs, qe, path, ps, pe,
                                                                                            cigar)
        check_cigar(rec, seg_len)
        assert line == f"{name}\t{m}\t{qs}\t{qe}\t{score}\t{path}\t{ps}\t{pe}\t{cigar}"


# ----------------------------------------------------------- strict reader

GOOD = "r\t8\t1\t6\t+\t>s1>s2\t7\t1\t6\t3\t6\t255\tAS:i:3\tNM:i:3\tcg:Z:2=1X1I1D1="


@pytest.mark.parametrize("line", [
    GOOD.rsplit("\t", 4)[0].rsplit("\t", 1)[0],  # 11 columns
    GOOD.replace(">s1>s2", ">s1>"),
    GOOD.replace(">s1>s2", "s1>s2"),
    GOOD.replace("\t+\t", "\t.\t"),
    GOOD.replace("\t+\t>s1>s2", "\t*\t>s1>s2"),
    GOOD.replace("\t7\t1\t6\t", "\t5\t1\t6\t"),  # path end beyond the path length
    GOOD.replace("\t8\t1\t6\t", "\t8\t6\t1\t"),  # query start after its end
    GOOD.replace("\t255\t", "\t256\t"),
    GOOD.replace("AS:i:3", "AS:i:3.5"),
    GOOD.replace("AS:i:3", "AS:x:3"),
    GOOD.replace("AS:i:3", "NM:i:3"),  # a tag twice
    GOOD + "\tA:i:1",
    GOOD.replace("\t3\t6\t255", "\t7\t6\t255"),  # more matches than the block
])
def test_strict_reader_rejects(line):
    with pytest.raises(GafError):
        parse_line(line)


def test_strict_reader_accepts_and_checks():
    rec = parse_line(GOOD + "\txf:f:-1.5e3\tch:A:c\tzz:Z:a b")
    assert rec.tags["xf"] == ("f", -1500.0) and rec.tags["ch"] == ("A", "c") and rec.tags["zz"] == ("Z", "a b")
    assert rec.steps == [(">", "s1"), (">", "s2")]
    check_cigar(rec, {"s1": 4, "s2": 3})
    with pytest.raises(AssertionError):
        check_cigar(parse_line(GOOD.replace("NM:i:3", "NM:i:2")))
    with pytest.raises(AssertionError):
        check_cigar(parse_line(GOOD.replace("cg:Z:2=1X1I1D1=", "cg:Z:2=1X1I2D")))
    with pytest.raises(GafError):
        parse_gaf(GOOD)  # no final newline
