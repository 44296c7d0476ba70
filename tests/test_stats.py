"""The run statistics file (``--stats``) and the progress bar's arithmetic (``progress``).

Statistics: each family runs once on a few records of tests/data (plus
records whose alignment is empty) and the JSON is checked against the TSV
the same run wrote: counts, the histograms re-counted from the TSV's scores
and spans with the bins the file names, the bins' documented rule, the
means, and the MultiQC custom-content keys. Then the usage errors, and that
no file is left behind by a failing or interrupted run.

Progress: the fraction and the rate from fake readers and a fake clock,
then a real reader's byte counts (plain and gzip), a pipe, and a sharded
run's announced range.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from seqalign_cli import progress
from seqalign_cli.cli import cli
from seqalign_cli.errors import SeqalignError
from seqalign_cli.stats import BINS, Histogram, sample_name
from support.backends import BACKENDS
from support.clidata import GQ, GT, read_fastx, write_fasta

GRAPH_DATA = Path(__file__).parent / "data" / "graph"
TRIPLET_DATA = Path(__file__).parent / "data" / "triplet"


def invoke(args):
    """``seqalign ARGS`` in process, the command line it records being ARGS."""
    args = [str(a) for a in args]
    return CliRunner().invoke(cli, args, obj={"argv": args})


def run_ok(args) -> None:
    res = invoke(args)
    assert res.exit_code == 0, (args, res.output, res.exception)


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in Path(folder).iterdir() if re.fullmatch(r"\..+\..+\.tmp", p.name))


def tsv_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text().splitlines()
    return lines[0].lstrip("#").split("\t"), [line.split("\t") for line in lines[1:]]


def load(path: Path) -> dict:
    doc = json.loads(path.read_text())
    # MultiQC custom content: one table section, one row named after the file
    assert doc["plot_type"] == "table" and doc["id"] == "seqalign"
    assert {"section_name", "description", "pconfig", "headers", "data"} <= set(doc)
    assert list(doc["data"]) == [sample_name(str(path))]
    assert set(doc["data"][sample_name(str(path))]) <= set(doc["headers"])
    return doc


def check_histogram(hist: dict, values: list[int]):
    """The bins follow the documented rule and hold exactly ``values``."""
    start, width, counts = hist["start"], hist["width"], hist["counts"]
    assert width & (width - 1) == 0 and start % width == 0 and len(counts) <= BINS
    assert sum(counts) == len(values)
    if not values:
        return
    lo, hi = min(values), max(values)
    assert start <= lo and hi < start + width * len(counts) and counts[0] and counts[-1]
    if width > 1:  # the smallest power of two that holds them
        assert hi // (width // 2) - lo // (width // 2) >= BINS
    expected = [0] * len(counts)
    for v in values:
        expected[next(i for i in range(len(counts)) if start + i * width <= v < start + (i + 1) * width)] += 1
    assert counts == expected


def check_common(doc: dict, family: str, rows: int, scores: list[int], unaligned: int, spans: list[int],
                 not_computed: int = 0):
    row = next(iter(doc["data"].values()))
    full = doc["seqalign"]
    assert row["family"] == full["family"] == family
    assert row["records"] == full["records"] == rows
    assert row["unaligned"] == full["unaligned"] == unaligned and full["aligned"] == rows - unaligned
    assert row["score_mean"] == pytest.approx(sum(scores) / rows, abs=1e-3)
    if spans:
        assert row["length_mean"] == pytest.approx(sum(spans) / len(spans), abs=1e-3)
    hist = full["histograms"]
    check_histogram(hist["scores"], scores)
    check_histogram(hist["lengths"], spans)
    assert hist["lengths"]["unaligned"] == unaligned and hist["lengths"]["not_computed"] == not_computed
    assert sum(hist["lengths"]["counts"]) + unaligned + not_computed == rows  # every record once
    assert full["command_line"].startswith("seqalign ") and "--stats" in full["command_line"]
    assert set(full["stages"]) == {"read", "align", "write"} and full["seconds"] > 0
    assert full["cells"] > 0 and full["threads"] == 1 and full["version"]


# ------------------------------------------------------------------ the histogram's bins


def test_histogram_does_not_depend_on_the_chunks():
    rng = random.Random(5)
    values = [rng.randint(-3000, 9000) for _ in range(2000)] + [12345]
    whole = Histogram()
    whole.add(values)
    pieces = Histogram()
    for k in range(0, len(values), 37):
        pieces.add(values[k:k + 37])
        pieces.add([])
    assert pieces.as_dict() == whole.as_dict()
    check_histogram(whole.as_dict(), values)


@pytest.mark.parametrize("values", [[7], [0, 63], [0, 64], [-1, -1, -2], [-64, -1], list(range(-100, 1000, 3))])
def test_histogram_bins(values):
    hist = Histogram()
    for v in values:
        hist.add([v])
    check_histogram(hist.as_dict(), values)


def test_sample_names():
    assert sample_name("out/run1_mqc.json") == "run1"
    assert sample_name("x.json") == "x"
    assert sample_name("x_mqc.json.gz") == "x"
    assert sample_name("-") == "seqalign"


# ------------------------------------------------------------------ the three families


@pytest.fixture(scope="module")
def pair_inputs(tmp_path_factory):
    """24 GASAL2 pairs, then two whose alignment may be empty: two empty sequences, and AAAA.. vs CCCC.."""
    folder = tmp_path_factory.mktemp("pairs")
    q = read_fastx(GQ)[:24] + [("empty", "", None), ("poly_a", "A" * 12, None)]
    t = read_fastx(GT)[:24] + [("empty_t", "", None), ("poly_c", "C" * 12, None)]
    return write_fasta(folder / "q.fa", q), write_fasta(folder / "t.fa", t)


def pair_run(tmp_path, inputs, backend, *opts):
    out, stats = tmp_path / f"out{len(opts)}.tsv", tmp_path / f"run{len(opts)}_mqc.json"
    run_ok(["pair", "-q", "--backend", backend, *inputs, "-o", out, "--stats", stats, *opts])
    header, rows = tsv_rows(out)
    return load(stats), [dict(zip(header, r)) for r in rows]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["global", "local"])
def test_pair_stats_agree_with_the_tsv(tmp_path, pair_inputs, backend, mode):
    doc, rows = pair_run(tmp_path, pair_inputs, backend, "--mode", mode)
    assert len(rows) == 26
    aligned = [r for r in rows if r["cigar"] != "*"]
    assert len(rows) - len(aligned) == (1 if mode == "global" else 2)  # the empty pair; local: poly-A too
    check_common(doc, "pairwise", len(rows), [int(r["score"]) for r in rows], len(rows) - len(aligned),
                 [int(r["qend"]) - int(r["qstart"]) for r in aligned])
    assert doc["seqalign"]["backend"] == backend and doc["seqalign"]["unit"] == "pairs"
    assert doc["seqalign"]["histograms"]["lengths"]["of"].startswith("query span")

    # score only, local: the same records unaligned, the start (so the span) not computed for the others
    doc2, rows2 = pair_run(tmp_path, pair_inputs, backend, "--mode", mode, "--score-only")
    assert [r["score"] for r in rows2] == [r["score"] for r in rows]
    spans = [] if mode == "local" else [int(r["qend"]) - int(r["qstart"]) for r in aligned]
    check_common(doc2, "pairwise", len(rows), [int(r["score"]) for r in rows], len(rows) - len(aligned),
                 spans, not_computed=len(aligned) - len(spans))


@pytest.mark.parametrize("backend", BACKENDS)
def test_triplet_stats_agree_with_the_tsv(tmp_path, backend):
    files = []
    for name in "abc":
        recs = read_fastx(TRIPLET_DATA / f"sars.{name}.fa")[:6] + [(f"empty_{name}", "", None)]
        files.append(write_fasta(tmp_path / f"{name}.fa", recs))
    out, stats = tmp_path / "t.tsv", tmp_path / "tri.json"
    run_ok(["triplet", "-q", "--backend", backend, *files, "-o", out, "--stats", stats])
    header, rows = tsv_rows(out)
    rows = [dict(zip(header, r)) for r in rows]
    aligned = [r for r in rows if r["columns"] != "*"]
    assert len(rows) == 7 and len(aligned) == 6
    doc = load(stats)
    check_common(doc, "triplet", 7, [int(r["score"]) for r in rows], 1,
                 [int(r["end1"]) - int(r["beg1"]) for r in aligned])
    assert doc["seqalign"]["unit"] == "triplets"


@pytest.mark.parametrize("backend", BACKENDS)
def test_graph_stats_agree_with_the_tsv(tmp_path, backend):
    reads = read_fastx(GRAPH_DATA / "cactus-BRCA2.fastq")[:12] + [("all_n", "N" * 30, "I" * 30)]
    fastq = tmp_path / "reads.fq"
    fastq.write_text("".join(f"@{n}\n{s}\n+\n{q}\n" for n, s, q in reads))
    out, stats = tmp_path / "g.tsv", tmp_path / "graph_mqc.json"
    run_ok(["graph", "-q", "--backend", backend, "--mode", "local", GRAPH_DATA / "cactus-BRCA2.gfa", fastq,
            "-o", out, "--stats", stats])
    header, rows = tsv_rows(out)
    rows = [dict(zip(header, r)) for r in rows]
    aligned = [r for r in rows if r["path"] != "*"]
    assert len(rows) == 13 and rows[-1]["path"] == "*"  # N scores below 0 everywhere: nothing aligns locally
    doc = load(stats)
    check_common(doc, "graph", 13, [int(r["score"]) for r in rows], len(rows) - len(aligned),
                 [int(r["end"]) - int(r["start"]) for r in aligned])
    assert doc["seqalign"]["unit"] == "reads"


def test_no_stats_file_without_the_option(tmp_path, pair_inputs):
    run_ok(["pair", "-q", "--backend", "cpu", *pair_inputs, "-o", tmp_path / "o.tsv"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.tsv"]


# ------------------------------------------------------------------ usage errors, failures, signals


def error(args, code: int) -> str:
    """The message of the error a run in process ends with (``main()`` makes it one line and a status)."""
    res = invoke(args)
    assert isinstance(res.exception, SeqalignError), (res.output, res.exception)
    assert res.exception.exit_code == code, res.exception
    return res.exception.format()


@pytest.mark.parametrize("case", ["input", "output", "both_stdout", "no_folder"])
def test_stats_usage_errors(tmp_path, pair_inputs, case):
    q, t = pair_inputs
    out = tmp_path / "o.tsv"
    out.write_text("kept\n")
    stats, output, needle = {
        "input": (t, out, "--stats names an input file"),
        "output": (os.path.join(tmp_path, ".", "o.tsv"), out, "--stats names the output file"),
        "both_stdout": ("-", "-", "stdout"),
        "no_folder": (tmp_path / "missing" / "s.json", out, "directory does not exist"),
    }[case]
    message = error(["pair", "-q", "--backend", "cpu", q, t, "-o", output, "--stats", stats], 2)
    assert needle in message
    assert out.read_text() == "kept\n" and t.read_text().startswith(">")
    assert leftovers(tmp_path) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["o.tsv"]


def test_a_failing_run_leaves_no_stats_file(tmp_path):
    recs = read_fastx(GQ)[:40]
    bad = recs[:30] + [("bad", "ACGT!ACGT", None)] + recs[31:]
    q = write_fasta(tmp_path / "q.fa", bad)
    t = write_fasta(tmp_path / "t.fa", read_fastx(GT)[:40])
    stats = tmp_path / "s_mqc.json"
    stats.write_text("previous\n")
    message = error(["pair", "-q", "--backend", "cpu", "--batch-size", "8", q, t, "-o", tmp_path / "o.tsv",
                     "--stats", stats], 1)
    assert "record 31 (bad)" in message
    assert stats.read_text() == "previous\n"
    assert leftovers(tmp_path) == [] and not (tmp_path / "o.tsv").exists()


def test_a_signal_leaves_no_stats_file(tmp_path):
    rng = random.Random(3)
    a = "".join(rng.choice("ACGT") for _ in range(40_000))
    b = "".join(c if i % 97 else rng.choice("ACGT") for i, c in enumerate(a))
    (tmp_path / "q.fa").write_text(f">q\n{a}\n")
    (tmp_path / "t.fa").write_text(f">t\n{b}\n")
    stats = tmp_path / "s_mqc.json"
    stats.write_text("previous\n")
    proc = subprocess.Popen([sys.executable, "-m", "seqalign_cli", "pair", "-q", "--backend", "cpu",
                             tmp_path / "q.fa", tmp_path / "t.fa", "-o", tmp_path / "o.tsv", "--stats", stats],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while len(leftovers(tmp_path)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # both temporary files: the run is aligning
        assert len(leftovers(tmp_path)) == 2, "the run did not begin"
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143
    assert stats.read_text() == "previous\n" and leftovers(tmp_path) == []


# ------------------------------------------------------------------ the progress bar's arithmetic


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def fake_reader(path="q.fa", size=1000, consumed=0, count=0):
    return SimpleNamespace(path=path, size=size, consumed=consumed, count=count)


def test_fraction_from_bytes_scaled_by_the_read_ahead():
    meter = progress.Meter("q.fa")
    assert meter.fraction(0) is None  # nothing opened yet
    meter.opened(fake_reader(path="t.fa"))  # not the main file
    assert meter.fraction(0) is None
    reader = fake_reader(consumed=250)
    meter.opened(reader)
    assert meter.fraction(10) == pytest.approx(0.25)
    assert meter.fraction(10, read=40) == pytest.approx(0.25 * 10 / 40)  # the reader is ahead
    reader.consumed = 1000
    assert meter.fraction(100, read=100) == 1.0
    assert meter.fraction(100, read=400) == pytest.approx(0.25)


def test_fraction_from_a_total_or_a_range_of_records():
    meter = progress.Meter("q.fa")
    reader = fake_reader(consumed=900, count=30)
    meter.opened(reader)
    meter.part = (20, 40)  # records 20..59 of the main file
    assert meter.fraction(0) == pytest.approx(10 / 40)
    assert meter.fraction(5, read=10) == pytest.approx(10 / 40 * 0.5)
    meter.total = 200  # a total in records wins
    assert meter.fraction(50, read=120) == pytest.approx(0.25)
    assert meter.fraction(500) == 1.0
    meter.total = 0
    assert meter.fraction(0) == 1.0


@pytest.mark.parametrize("main, size", [("-", 1000), ("q.fa", None), (None, 1000)])
def test_no_fraction_without_a_size(main, size):
    meter = progress.Meter(main)
    meter.opened(fake_reader(path=main or "q.fa", size=size, consumed=500))
    assert meter.fraction(10, read=10) is None


def test_rate_over_a_window():
    clock = Clock()
    meter = progress.Meter(None, clock=clock)
    assert meter.read(0).rate is None
    for k in range(1, 101):  # 1000 records a second for ten seconds
        clock.now += 0.1
        reading = meter.read(100 * k)
    assert reading.rate == pytest.approx(1000)
    for _ in range(60):  # then 200 a second: the window forgets the faster past
        clock.now += 0.1
        reading = meter.read(reading.records + 20)
    assert reading.rate == pytest.approx(200)
    assert progress.describe(reading, "pairs") == f"{reading.records:,} pairs aligned, 200 pairs/s"
    assert progress.describe(progress.Reading(3, 2.5, None), "reads") == "3 reads aligned, 2.5 reads/s"
    assert progress.describe(progress.Reading(0, None, None), "reads") == "0 reads aligned"


def big_fasta(path: Path, n: int = 60_000, compress: bool = False) -> Path:
    """n random records of 100 bases (6.6 MB: more than the reader takes at once)."""
    import numpy as np

    rows = np.empty((n, 110), np.uint8)
    rows[:, :9] = np.frombuffer(b"".join(b">r%06d\n" % k for k in range(n)), np.uint8).reshape(n, 9)
    rows[:, 9:109] = np.frombuffer(b"ACGT", np.uint8)[np.random.default_rng(9).integers(0, 4, (n, 100))]
    rows[:, 109] = ord("\n")
    text = rows.tobytes()
    path.write_bytes(gzip.compress(text, compresslevel=1) if compress else text)
    return path


@pytest.mark.parametrize("compress", [False, True])
def test_a_reader_counts_the_bytes_of_its_file(tmp_path, compress, monkeypatch):
    from seqalign_cli.io import fastx
    from seqalign_cli.io.fastx import FastxReader

    monkeypatch.setattr(fastx, "MIN_BLOCK", 1 << 20)  # blocks of at most 4 MB: several in this file

    path = big_fasta(tmp_path / ("r.fa.gz" if compress else "r.fa"), compress=compress)
    meter = progress.Meter(str(path))
    reader = FastxReader(str(path))
    progress.watch(meter)
    try:
        blocks = reader.blocks()
        first = next(blocks)
        assert meter.source is reader and reader.size == path.stat().st_size
        assert 0 < reader.consumed < reader.size and 0 < meter.fraction(len(first)) < 1
        total = len(first) + sum(len(b) for b in blocks)
    finally:
        progress.watch(None)
    assert total == 60_000 and reader.consumed == reader.size and meter.fraction(total, total) == 1.0


def test_a_pipe_has_no_size(tmp_path):
    from seqalign_cli.io.fastx import _regular_size

    r, w = os.pipe()
    with open(r, "rb") as pipe, open(w, "wb"):
        assert _regular_size(pipe) is None
    with open(GQ, "rb") as plain:
        assert _regular_size(plain) == GQ.stat().st_size


def test_a_shard_announces_its_range(tmp_path):
    from seqalign_cli.io.shard import plan

    path = write_fasta(tmp_path / "q.fa", [(f"r{k}", "ACGT", None) for k in range(10)])
    meter = progress.Meter(str(path))
    progress.watch(meter)
    try:
        plan((2, 3), str(path))
    finally:
        progress.watch(None)
    assert meter.part == (3, 3)  # records [floor(10/3), floor(20/3))
    assert progress._meter is None
