"""The ``seqalign`` command line, end to end.

Most runs go through click's ``CliRunner`` (in process, fast); everything that
depends on the real entry point (exit codes, stdin, stderr, broken pipes) runs
``python -m seqalign_cli`` in a subprocess, which goes through ``main()``.

Data: ``tests/data/cli/`` (provenance in ``tests/data/README.md``): the first
200 GASAL2 read/window pairs, ex1.fa (pysam, 2 x 1.6 kb) with 100 of its real
35 bp reads as FASTQ and a ``--pairs`` file of +-10 bp regions around them.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from seqalign_cli import __version__
from seqalign_cli.cli import cli, main
from seqalign_cli.errors import SeqalignError

from support.helpers import TSV_COLUMNS, parse_tsv, messages
from support.oracles import cigar_counts, parse_cigar, rescore

from support import clidata
from support.clidata import write_fasta
from support.clidata import DATA, EX1, EX1_PAIRS, EX1_READS, GQ, GT  # noqa: F401
COLUMNS = TSV_COLUMNS
MODES = ("global", "semi-global", "glocal", "local")


# ----------------------------------------------------------------- helpers

def read_fastx(path) -> list[tuple[str, str]]:
    """(name, sequence) of a small FASTA/FASTQ file."""
    return [(n, s) for n, s, _ in clidata.read_fastx(path)]



def invoke(args, input=None):
    """Run ``seqalign`` in process; returns click's Result."""
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def seqalign(args, input=None, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    """Run ``python -m seqalign_cli`` (through main()); bytes in, bytes out."""
    return subprocess.run([sys.executable, "-m", "seqalign_cli", *[str(a) for a in args]],
                          input=input, capture_output=True, cwd=cwd, timeout=timeout)


def leftovers(folder) -> list[str]:
    """Temporary output files left in ``folder`` (``.NAME.*.tmp``)."""
    return sorted(p.name for p in Path(folder).iterdir() if re.fullmatch(r"\..+\..+\.tmp", p.name))


def assert_clean_error(proc, code: int, *needles: str) -> str:
    """Exit ``code``, one stderr line 'seqalign: error: ...' holding every needle."""
    err = proc.stderr.decode()
    assert proc.returncode == code, (proc.returncode, err)
    assert "Traceback" not in err, err
    lines = messages(err)
    # the only other line allowed is the backend notice of --backend auto (before the error)
    notes = [line for line in lines[:-1] if line.startswith("seqalign: backend auto:")]
    assert lines and len(notes) == len(lines) - 1, err
    assert lines[-1].startswith("seqalign: error: "), err
    for needle in needles:
        assert needle in lines[-1], (needle, err)
    return lines[-1]


GASAL_Q = read_fastx(GQ)
GASAL_T = read_fastx(GT)
SCORING_DEFAULT = type("S", (), dict(match=2, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1))


# ------------------------------------------------------------ version/help

def test_version_prints_one_line():
    for flag in ("--version", "-V"):
        res = invoke([flag])
        assert res.exit_code == 0
        assert res.stdout == f"seqalign {__version__}\n"
    proc = seqalign(["--version"])
    assert proc.returncode == 0
    assert proc.stdout.decode() == f"seqalign {__version__}\n"
    assert proc.stderr == b""


def test_pair_help_shows_defaults():
    res = invoke(["pair", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())  # undo click's line wrapping
    for needle in ("default: 2", "default: 4", "default: 1", "default: global", "default: 16384",
                   "default: 256", "default: auto", "--cross", "--interleaved", "--pairs", "--score-only",
                   "--cigar-m", "--format", "--batch-size", "--threads", "--mode",
                   "global|semi-global|glocal|local", "tsv|sam|bam|paf"):
        assert needle in text, needle
    assert "QUERY" in text and "TARGET" in text


# ----------------------------------------------------------------- pairing

def test_zip_default_gasal2(tmp_path):
    out = tmp_path / "out.tsv"
    res = invoke(["pair", "-q", GQ, GT, "-o", out])
    assert res.exit_code == 0, res.output
    assert res.stdout == ""  # everything went to the file
    rows = parse_tsv(out.read_text())
    assert len(rows) == len(GASAL_Q) == len(GASAL_T) == 200
    for row, (qn, qs), (tn, ts) in zip(rows, GASAL_Q, GASAL_T):
        assert (row["qname"], row["tname"]) == (qn, tn)
        assert (row["qlen"], row["tlen"]) == (len(qs), len(ts))
        # global mode: both sequences end to end
        assert (row["qstart"], row["qend"], row["tstart"], row["tend"]) == (0, len(qs), 0, len(ts))
        assert rescore(qs, ts, 0, len(qs), 0, len(ts), row["cigar"], SCORING_DEFAULT) == row["score"]
        _, x, i, d = cigar_counts(row["cigar"])
        assert row["nm"] == x + i + d


def test_zip_to_stdout_equals_file(tmp_path):
    out = tmp_path / "out.tsv"
    assert invoke(["pair", "-q", GQ, GT, "-o", out]).exit_code == 0
    res = invoke(["pair", "-q", GQ, GT])
    assert res.exit_code == 0
    assert res.stdout_bytes == out.read_bytes()


@pytest.mark.parametrize("mode", ["glocal", "local"])
def test_scoring_options_reach_the_engine(tmp_path, mode):
    """BWA-like scheme through the options; scores equal parasail's (expected file)."""
    expected = [line.split("\t") for line in
                (DATA / f"gasal2_m1_x4_o6_e1.{mode}.first200.tsv").read_text().splitlines()[2:]]
    res = invoke(["pair", "-q", GQ, GT, "--mode", mode, "--match", 1, "--mismatch", 4,
                  "--gap-open", 6, "--gap-extend", 1])
    assert res.exit_code == 0, res.output
    rows = parse_tsv(res.stdout)
    assert [(r["qname"], r["tname"], r["score"]) for r in rows] == [(e[1], e[2], int(e[5])) for e in expected]
    for row, (_, qs), (_, ts) in zip(rows, GASAL_Q, GASAL_T):
        if mode == "glocal":
            assert (row["qstart"], row["qend"]) == (0, len(qs))
        sc = type("S", (), dict(match=1, mismatch=4, gap_open=6, gap_extend=1, n_penalty=1))
        assert rescore(qs, ts, row["qstart"], row["qend"], row["tstart"], row["tend"], row["cigar"],
                       sc) == row["score"]


def test_cross_is_query_major(tmp_path):
    q = write_fasta(tmp_path / "q.fa", GASAL_Q[:3])
    t = write_fasta(tmp_path / "t.fa", GASAL_T[10:14])
    res = invoke(["pair", "-q", "--cross", q, t])
    assert res.exit_code == 0, res.output
    rows = parse_tsv(res.stdout)
    assert len(rows) == 12
    assert [(r["qname"], r["tname"]) for r in rows] == [(qn, tn) for qn, _ in GASAL_Q[:3]
                                                        for tn, _ in GASAL_T[10:14]]
    # each cross row is the same alignment as the corresponding zip pair
    single = parse_tsv(invoke(["pair", "-q", write_fasta(tmp_path / "q1.fa", [GASAL_Q[1]]),
                               write_fasta(tmp_path / "t1.fa", [GASAL_T[12]])]).stdout)
    assert rows[4 + 2] == single[0]


def test_interleaved_equals_zip(tmp_path):
    recs = [r for pair in zip(GASAL_Q[:25], GASAL_T[:25]) for r in pair]
    inter = write_fasta(tmp_path / "inter.fa", recs)
    q = write_fasta(tmp_path / "q.fa", GASAL_Q[:25])
    t = write_fasta(tmp_path / "t.fa", GASAL_T[:25])
    res_i = invoke(["pair", "-q", "--interleaved", inter])
    res_z = invoke(["pair", "-q", q, t])
    assert res_i.exit_code == 0 and res_z.exit_code == 0
    assert res_i.stdout == res_z.stdout
    assert len(parse_tsv(res_i.stdout)) == 25


def test_interleaved_odd_count_is_an_error(tmp_path):
    inter = write_fasta(tmp_path / "odd.fa", GASAL_Q[:3])
    out = tmp_path / "out.tsv"
    proc = seqalign(["pair", "--interleaved", inter, "-o", out])
    assert_clean_error(proc, 1, "odd.fa", "record 3", "no partner")
    assert not out.exists() and leftovers(tmp_path) == []


def _regions_from_pairs_file():
    specs = []
    for line in EX1_PAIRS.read_text().splitlines():
        if line.startswith("#"):
            continue
        qname, spec = line.split("\t")
        name, span = spec.rsplit(":", 1)
        start, end = (int(x) for x in span.split("-"))
        specs.append((qname, spec, name, start, end))
    return specs


def test_pairs_regions_builds_index(tmp_path):
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    assert not (tmp_path / "ex1.fa.fai").exists()
    res = invoke(["pair", "-q", "--mode", "glocal", "--pairs", EX1_PAIRS, EX1_READS, ref])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "ex1.fa.fai").exists()
    chroms = dict(read_fastx(EX1))
    reads = dict(read_fastx(EX1_READS))
    rows = parse_tsv(res.stdout)
    specs = _regions_from_pairs_file()
    assert len(rows) == len(specs) == 100
    perfect = 0
    for row, (qname, spec, name, start, end) in zip(rows, specs):
        region = chroms[name][start - 1:end]  # 1-based inclusive
        assert (row["qname"], row["tname"]) == (qname, spec)
        assert row["tlen"] == end - start + 1 == len(region)
        assert (row["qstart"], row["qend"]) == (0, 35)
        assert rescore(reads[qname], region, 0, 35, row["tstart"], row["tend"], row["cigar"],
                       SCORING_DEFAULT) == row["score"]
        if row["score"] == 70 and start > 1:  # 35 matches: the read sits 10 bp into its window
            assert row["tstart"] == 10
            perfect += 1
    assert perfect > 50


def test_pairs_whole_names_and_query_as_target(tmp_path):
    """A whole name is never split; without TARGET the names come from QUERY."""
    ref = write_fasta(tmp_path / "ref.fa", [("chr1:1-10", "ACGTACGTAC" * 3), ("chrA", "TTTTGGGGCCCCAAAA")])
    pairs = tmp_path / "p.tsv"
    pairs.write_text("# comment\n\nchrA\tchr1:1-10\nchrA\tchrA:5-8\nchrA\tchrA\n")
    res = invoke(["pair", "-q", "--pairs", pairs, ref])
    assert res.exit_code == 0, res.output
    rows = parse_tsv(res.stdout)
    assert [(r["tname"], r["tlen"]) for r in rows] == [("chr1:1-10", 30), ("chrA:5-8", 4), ("chrA", 16)]
    assert rescore("TTTTGGGGCCCCAAAA", "GGGG", 0, 16, 0, 4, rows[1]["cigar"], SCORING_DEFAULT) == rows[1]["score"]
    assert rows[2]["score"] == 32 and rows[2]["cigar"] == "16="


@pytest.mark.parametrize("line, needles", [
    ("EAS56_57:6:190:289:82\tchr1:1570-1580", ["outside", "chr1:1570-1580", "1575"]),
    ("EAS56_57:6:190:289:82\tchr1:0-10", ["outside", "chr1:0-10"]),
    ("EAS56_57:6:190:289:82\tchr1:20-10", ["outside", "chr1:20-10"]),
    ("EAS56_57:6:190:289:82\tchr3:1-10", ["unknown target name", "chr3:1-10"]),
    ("EAS56_57:6:190:289:82\tchr3", ["unknown target name", "chr3"]),
    ("no_such_read\tchr1:1-10", ["unknown query name", "no_such_read"]),
    ("EAS56_57:6:190:289:82", ["expected query_name<TAB>target_name"]),
])
def test_pairs_file_errors_name_the_line(tmp_path, line, needles):
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    pairs = tmp_path / "bad_pairs.tsv"
    pairs.write_text("".join(EX1_PAIRS.read_text().splitlines(True)[:4]) + line + "\n")  # error on line 5
    out = tmp_path / "out.sam"
    proc = seqalign(["pair", "--pairs", pairs, EX1_READS, ref, "-o", out])
    assert_clean_error(proc, 1, "bad_pairs.tsv: line 5", *needles)
    assert not out.exists() and leftovers(tmp_path) == []


def test_pairs_empty_file_is_a_warning(tmp_path):
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    pairs = tmp_path / "empty_pairs.tsv"
    pairs.write_text("# nothing\n")
    proc = seqalign(["pair", "-q", "--pairs", pairs, EX1_READS, ref])
    assert proc.returncode == 0 and proc.stdout.decode() == "#" + "\t".join(COLUMNS) + "\n"
    assert proc.stderr.decode() == f"seqalign: warning: {pairs}: no pairs listed (empty pairs file): nothing to " \
                                   f"align, the output holds no records\n"


def test_pairs_conflicting_options_are_usage_errors(tmp_path):
    assert_clean_error(seqalign(["pair", "--pairs", EX1_PAIRS, "--cross", EX1_READS, EX1]), 2, "--pairs")
    assert_clean_error(seqalign(["pair", "--interleaved", GQ, GT]), 2, "--interleaved")
    assert_clean_error(seqalign(["pair", GQ]), 2, "TARGET")
    proc = seqalign(["pair", "--pairs", "-", "-", EX1], input=b"")
    assert_clean_error(proc, 2, "stdin")


# -------------------------------------------------------- stdin and gzip

def test_stdin_query_or_target(tmp_path):
    ref = seqalign(["pair", "-q", GQ, GT])
    assert ref.returncode == 0
    q_plain = gzip.decompress(GQ.read_bytes())
    via_q = seqalign(["pair", "-q", "-", GT], input=q_plain)
    via_t = seqalign(["pair", "-q", GQ, "-"], input=GT.read_bytes())  # gzip on stdin
    assert via_q.returncode == 0 and via_t.returncode == 0, (via_q.stderr, via_t.stderr)
    assert via_q.stdout == ref.stdout and via_t.stdout == ref.stdout
    # and in process
    res = invoke(["pair", "-q", "-", GT], input=q_plain)
    assert res.exit_code == 0 and res.stdout_bytes == ref.stdout


def test_both_inputs_from_stdin_is_a_usage_error():
    proc = seqalign(["pair", "-", "-"], input=b">a\nACGT\n")
    assert_clean_error(proc, 2, "stdin")
    res = invoke(["pair", "-", "-"], input=">a\nACGT\n")
    assert isinstance(res.exception, SeqalignError) and res.exception.exit_code == 2


def test_stdin_error_names_stdin():
    proc = seqalign(["pair", "-", GT], input=b"@r1\nACGT\n+\nII\n")
    assert_clean_error(proc, 1, "<stdin>", "record 1", "r1", "quality length 2")


def test_gzip_detected_from_content(tmp_path):
    import pysam

    plain = gzip.decompress(GQ.read_bytes())
    (tmp_path / "gzip_named.fa").write_bytes(GQ.read_bytes())  # gzip content, plain name
    (tmp_path / "plain_named.fa.gz").write_bytes(plain)  # plain content, gzip name
    (tmp_path / "plain.fa").write_bytes(plain)
    pysam.tabix_compress(str(tmp_path / "plain.fa"), str(tmp_path / "bgzf.txt"))  # bgzip, odd name
    assert (tmp_path / "bgzf.txt").read_bytes()[:4] == b"\x1f\x8b\x08\x04"  # BGZF: FEXTRA set
    outs = []
    for name in ("plain.fa", "gzip_named.fa", "plain_named.fa.gz", "bgzf.txt"):
        res = invoke(["pair", "-q", tmp_path / name, GT])
        assert res.exit_code == 0, (name, res.output)
        outs.append(res.stdout)
    assert len(parse_tsv(outs[0])) == 200
    assert outs[1:] == outs[:1] * 3
    if shutil.which("bgzip"):
        subprocess.run(["bgzip", "-c", str(tmp_path / "plain.fa")], check=True,
                       stdout=open(tmp_path / "bgzip_tool.fa", "wb"))
        assert invoke(["pair", "-q", tmp_path / "bgzip_tool.fa", GT]).stdout == outs[0]


# ----------------------------------------------------------------- formats

def _sniff(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # gzip or BGZF: BAM, or compressed text
        data = gzip.decompress(raw)
        if data[:4] == b"BAM\x01":
            import pysam

            with pysam.AlignmentFile(str(path), "rb", check_sq=False):
                return "bam"
        return "gz:" + _sniff_text(data.decode())
    return _sniff_text(raw.decode())


def _sniff_text(text: str) -> str:
    first = text.splitlines()[0]
    if first.startswith("@HD"):
        return "sam"
    if first.split("\t") == ["#" + COLUMNS[0], *COLUMNS[1:]]:
        return "tsv"
    if len(first.split("\t")) >= 12 and first.split("\t")[4] in "+*":
        return "paf"
    return "?"


@pytest.mark.parametrize("name, fmt, expect", [
    ("out.tsv", None, "tsv"), ("out.txt", None, "tsv"), ("out", None, "tsv"),
    ("out.sam", None, "sam"), ("out.bam", None, "bam"), ("out.paf", None, "paf"),
    ("out.tsv.gz", None, "gz:tsv"), ("out.sam.gz", None, "gz:sam"), ("out.paf.gz", None, "gz:paf"),
    ("out.txt", "sam", "sam"), ("out.x", "bam", "bam"), ("out.sam", "sam", "sam"),
    ("out.SAM", None, "sam"), ("out.Bam", None, "bam"), ("out.TSV.GZ", None, "gz:tsv"), ("out.paf.GZ", "paf", "gz:paf"),
])
def test_output_format_from_extension_or_option(tmp_path, name, fmt, expect):
    out = tmp_path / name
    args = ["pair", "-q", GQ, GT, "-o", out] + (["--format", fmt] if fmt else [])
    res = invoke(args)
    assert res.exit_code == 0, res.output
    assert _sniff(out) == expect
    assert leftovers(tmp_path) == []


def test_tsv_gz_decompresses_to_plain_tsv(tmp_path):
    assert invoke(["pair", "-q", GQ, GT, "-o", tmp_path / "a.tsv"]).exit_code == 0
    assert invoke(["pair", "-q", GQ, GT, "-o", tmp_path / "a.tsv.gz"]).exit_code == 0
    assert gzip.decompress((tmp_path / "a.tsv.gz").read_bytes()) == (tmp_path / "a.tsv").read_bytes()


@pytest.mark.parametrize("args", [["-o", "x.sam"], ["-o", "x.bam"], ["-o", "x.paf"], ["--format", "sam"],
                                  ["-o", "x.out", "--format", "bam"]])
def test_score_only_needs_tsv(tmp_path, args):
    proc = seqalign(["pair", "--score-only", GQ, GT, *args], cwd=tmp_path)
    assert_clean_error(proc, 2, "--score-only")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_score_only_tsv(tmp_path):
    for mode in MODES:
        full = parse_tsv(invoke(["pair", "-q", GQ, GT, "--mode", mode]).stdout)
        fast = parse_tsv(invoke(["pair", "-q", GQ, GT, "--mode", mode, "--score-only"]).stdout)
        assert [r["score"] for r in fast] == [r["score"] for r in full]
        assert [(r["qend"], r["tend"]) for r in fast] == [(r["qend"], r["tend"]) for r in full]
        assert {r["cigar"] for r in fast} == {"*"}


def test_cigar_m(tmp_path):
    eqx = parse_tsv(invoke(["pair", "-q", GQ, GT, "--mode", "local"]).stdout)
    m = parse_tsv(invoke(["pair", "-q", GQ, GT, "--mode", "local", "--cigar-m"]).stdout)
    for a, b in zip(eqx, m):
        assert set(re.sub(r"\d", "", b["cigar"])) <= set("MID")
        merged = []
        for n, op in parse_cigar(a["cigar"]):
            op = "M" if op in "=X" else op
            if merged and merged[-1][1] == op:
                merged[-1][0] += n
            else:
                merged.append([n, op])
        assert b["cigar"] == "".join(f"{n}{op}" for n, op in merged)
        assert {k: v for k, v in a.items() if k != "cigar"} == {k: v for k, v in b.items() if k != "cigar"}


# ------------------------------------------------------------- bad input

def _bad_inputs(tmp_path):
    """name -> (query, target, exit code, needles in the message)."""
    t = tmp_path
    half = GQ.read_bytes()[: len(GQ.read_bytes()) // 2]
    (t / "trunc.fa.gz").write_bytes(half)
    corrupt = bytearray(GQ.read_bytes())
    corrupt[-6] ^= 0xFF  # CRC/size trailer damaged
    (t / "corrupt.fa.gz").write_bytes(bytes(corrupt))
    (t / "qual.fq").write_text("@r1\nACGT\n+\nIIII\n@r2 x\nACGTA\n+\nIIIIII\n@r3\nAC\n+\nII\n")
    (t / "noplus.fq").write_text("@r1\nACGT\n+\nIIII\n@r2\nACGT\nIIII\n")
    (t / "empty.fa").write_text("")
    (t / "blank.fa").write_text("\n\n")
    (t / "text.txt").write_text("hello world\nACGT\n")
    write_fasta(t / "three.fa", GASAL_T[:3])
    return {
        "truncated gzip": (t / "trunc.fa.gz", GT, 1, ["trunc.fa.gz", "truncated gzip"]),
        "corrupt gzip": (t / "corrupt.fa.gz", GT, 1, ["corrupt.fa.gz", "gzip"]),
        "fastq quality length": (t / "qual.fq", t / "qual.fq", 1,
                                 ["qual.fq", "record 2 (r2)", "quality length 6", "sequence length 5"]),
        "fastq missing plus": (t / "noplus.fq", t / "noplus.fq", 1, ["noplus.fq", "record 2 (r2)", "'+'"]),
        "empty query": (t / "empty.fa", t / "three.fa", 1, ["empty.fa", "empty"]),
        "blank query": (t / "blank.fa", t / "three.fa", 1, ["blank.fa", "0 queries"]),
        "empty target": (t / "three.fa", t / "empty.fa", 1, ["empty.fa"]),
        "more queries": (GQ, t / "three.fa", 1, ["200", "3", "gasal2_q200.fa.gz", "three.fa"]),
        "more targets": (t / "three.fa", GT, 1, ["3", "200", "gasal2_t200.fa.gz", "three.fa"]),
        "not fastx": (t / "text.txt", GT, 1, ["text.txt", "record 1", "FASTA", "FASTQ"]),
        "missing input": (t / "missing.fa", GT, 2, ["missing.fa", "no such file"]),
        "directory input": (t, GT, 2, [str(t), "directory"]),
    }


BAD_CASES = ["truncated gzip", "corrupt gzip", "fastq quality length", "fastq missing plus", "empty query",
             "blank query", "empty target", "more queries", "more targets", "not fastx", "missing input",
             "directory input"]


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_input_clean_error_and_no_output(tmp_path, case):
    query, target, code, needles = _bad_inputs(tmp_path)[case]
    ext = [".tsv", ".sam", ".bam", ".paf", ".tsv.gz", ".sam.gz"][BAD_CASES.index(case) % 6]
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / f"result{ext}"
    proc = seqalign(["pair", query, target, "-o", out])
    line = assert_clean_error(proc, code, *needles)
    assert "error: error" not in line
    assert not out.exists() and list(outdir.iterdir()) == []
    if case == "more queries":  # both counts, and which is which
        assert re.search(r"200 queries.*3 targets", line), line


@pytest.mark.parametrize("case", ["fastq quality length", "more queries", "missing input"])
def test_bad_input_in_process(tmp_path, case):
    """CliRunner sees the same exception and exit code (main() is what turns it into a status)."""
    query, target, code, needles = _bad_inputs(tmp_path)[case]
    res = invoke(["pair", "-q", query, target, "-o", tmp_path / "r.tsv"])
    assert isinstance(res.exception, SeqalignError), res.exception
    assert res.exception.exit_code == code
    for needle in needles:
        assert needle in res.exception.format()
    assert not (tmp_path / "r.tsv").exists() and leftovers(tmp_path) == []


def test_failed_run_keeps_an_existing_output(tmp_path):
    out = tmp_path / "keep.tsv"
    out.write_text("previous result\n")
    (tmp_path / "bad.fq").write_text("@r1\nACGT\n+\nII\n")
    proc = seqalign(["pair", tmp_path / "bad.fq", tmp_path / "bad.fq", "-o", out])
    assert_clean_error(proc, 1, "bad.fq")
    assert out.read_text() == "previous result\n" and leftovers(tmp_path) == []


def test_late_error_leaves_no_output(tmp_path):
    """An error after several chunks have been written (small batch) still removes the temp file."""
    q = tmp_path / "q.fa"
    q.write_bytes(gzip.decompress(GQ.read_bytes()) + b">extra\nACGT\n")
    for name in ("late.tsv", "late.sam", "late.bam", "late.paf", "late.tsv.gz"):
        proc = seqalign(["pair", "--batch-size", "7", q, GT, "-o", tmp_path / name])
        assert_clean_error(proc, 1, "201 queries", "200 targets")
        assert not (tmp_path / name).exists()
    assert leftovers(tmp_path) == []


def test_missing_output_directory_is_a_usage_error(tmp_path):
    out = tmp_path / "no_such_dir" / "out.tsv"
    assert_clean_error(seqalign(["pair", GQ, GT, "-o", out]), 2, str(out), "directory")
    assert not out.parent.exists()
    assert_clean_error(seqalign(["pair", GQ, GT, "-o", tmp_path]), 2, "directory")


def test_output_file_mode_follows_umask(tmp_path):
    """The output is an ordinary file: mode 0666 & ~umask (not mkstemp's 0600)."""
    out = tmp_path / "perm.tsv"
    proc = subprocess.run(["bash", "-c", 'umask 022 && exec "$0" -m seqalign_cli pair -q "$1" "$2" -o "$3"',
                           sys.executable, str(GQ), str(GT), str(out)], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


# ------------------------------------------------------- zero-length seqs

@pytest.mark.parametrize("mode", MODES)
def test_zero_length_sequences(tmp_path, mode):
    q = tmp_path / "q.fa"
    q.write_text(">e1\n>a\nACGT\n>e2\n\n>e3\n")
    t = tmp_path / "t.fa"
    t.write_text(">t1\nACGT\n>e\n>t3\nACGA\n>e4\n\n")
    fq = tmp_path / "q.fq"
    fq.write_text("@e1\n\n+\n\n@a\nACGT\n+\nIIII\n@e2\n\n+\n\n@e3\n\n+\n\n")
    for query in (q, fq):
        res = invoke(["pair", "-q", "--mode", mode, query, t])
        assert res.exit_code == 0, res.output
        rows = parse_tsv(res.stdout)
        assert [(r["qname"], r["qlen"], r["tname"], r["tlen"]) for r in rows] == [
            ("e1", 0, "t1", 4), ("a", 4, "e", 0), ("e2", 0, "t3", 4), ("e3", 0, "e4", 0)]
        gap = -(4 + 4 * 2)
        want = {"global": [gap, gap, gap, 0], "semi-global": [0, 0, 0, 0], "glocal": [0, gap, 0, 0],
                "local": [0, 0, 0, 0]}[mode]
        assert [r["score"] for r in rows] == want
        assert rows[3]["cigar"] == "*" and rows[3]["score"] == 0
        for fmt in ("sam", "paf"):
            res = invoke(["pair", "-q", "--mode", mode, query, t, "--format", fmt])
            assert res.exit_code == 0, (fmt, res.output)
            # (blank lines filtered here: test_writers checks SAM validity on its own)
            body = [line for line in res.stdout.splitlines() if line and not line.startswith("@")]
            assert [line.split("\t")[0] for line in body] == ["e1", "a", "e2", "e3"]
        res = invoke(["pair", "-q", "--mode", mode, query, t, "-o", tmp_path / "z.bam"])
        assert res.exit_code == 0, res.output


# ------------------------------------------------------- broken pipe

@pytest.mark.parametrize("extra", [["--score-only"], ["--format", "sam"], ["--format", "paf"]])
def test_closed_stdout_ends_quietly(tmp_path, extra):
    """``seqalign pair ... | head -1`` on ~40,000 (or 4,000 traced) rows: no traceback, no noise."""
    target = GT
    if "--score-only" not in extra:
        target = write_fasta(tmp_path / "t20.fa", GASAL_T[:20])
    cmd = ('"$0" -m seqalign_cli pair --cross "$1" "$2" ' + " ".join(extra) +
           ' | head -1; echo "${PIPESTATUS[0]}" > "$3"')
    proc = subprocess.run(["bash", "-c", cmd, sys.executable, str(GQ), str(target), str(tmp_path / "rc")],
                          capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.stdout.count(b"\n") == 1
    for bad in ("Traceback", "BrokenPipeError", "Broken pipe", "Exception ignored", "Errno 32"):
        assert bad not in err, err
    assert all(line.startswith("seqalign") for line in err.splitlines()), err
    assert int((tmp_path / "rc").read_text()) in (0, 1), err  # exit 0 is checked on its own below


def test_closed_stdout_exit_status_is_zero(tmp_path):
    """README: exit 0 'also when the reader of stdout closes early, as | head does'."""
    cmd = '"$0" -m seqalign_cli pair -q --cross --score-only "$1" "$2" | head -1 > /dev/null; ' \
          'exit "${PIPESTATUS[0]}"'
    proc = subprocess.run(["bash", "-c", cmd, sys.executable, str(GQ), str(GT)], capture_output=True,
                          timeout=120)
    assert proc.stderr == b""
    assert proc.returncode == 0


def test_closed_stdout_bam_ends_quietly(tmp_path):
    """BAM to a closed stdout: exit 0 and nothing on stderr (no htslib write errors)."""
    target = write_fasta(tmp_path / "t20.fa", GASAL_T[:20])
    cmd = ('"$0" -m seqalign_cli pair -q --cross --format bam "$1" "$2" | head -c 100 > /dev/null; '
           'exit "${PIPESTATUS[0]}"')
    proc = subprocess.run(["bash", "-c", cmd, sys.executable, str(GQ), str(target)], capture_output=True,
                          timeout=120)
    assert proc.stderr == b"", proc.stderr.decode()
    assert proc.returncode == 0


@pytest.mark.parametrize("case", ["fastq quality length", "missing input"])
def test_early_error_writes_nothing_to_stdout(tmp_path, case):
    """A run that fails before its first chunk leaves stdout empty (no lone TSV header)."""
    query, target, code, needles = _bad_inputs(tmp_path)[case]
    proc = seqalign(["pair", query, target])
    assert_clean_error(proc, code, *needles)
    assert proc.stdout == b""


# ------------------------------------------------ batching and threads

@pytest.mark.parametrize("fmt", ["tsv", "sam", "paf"])
def test_batch_size_and_threads_do_not_change_output(tmp_path, fmt):
    def body(args):
        out = tmp_path / f"o.{fmt}"
        res = invoke(["pair", "-q", "--mode", "local", GQ, GT, "-o", out, *args])
        assert res.exit_code == 0, res.output
        return [line for line in out.read_bytes().splitlines(True) if not line.startswith(b"@PG")]

    ref = body([])
    assert len(ref) >= 200
    assert body(["--batch-size", "7"]) == ref
    assert body(["--batch-size", "1"]) == ref
    assert body(["-t", "2"]) == ref
    assert body(["-t", "2", "--batch-size", "7"]) == ref


class _Deferred:
    """A batch begun and not finished: aligned only when the writer asks for the result."""

    def __init__(self, backend, batch, cfg, fail):
        self.backend, self.batch, self.cfg, self.fail = backend, batch, cfg, fail

    def result(self):
        if self.fail:
            raise SeqalignError("device failed while finishing a batch")
        return self.backend.align(self.batch, self.cfg)


@pytest.mark.parametrize("fail_at", [None, 3])
def test_backends_that_defer_results(tmp_path, monkeypatch, fail_at):
    """A backend's pending results (the GPU engine's queued batches) are finished by the writer, in order;
    an error while finishing one leaves no output."""
    from seqalign_cli import runner
    from seqalign_cli.backends.cpu import CpuBackend
    from seqalign_cli.families.pairwise.cpu import CpuPairwise

    class DeferringCpu(CpuBackend):
        started = 0

        def start(self, batch, cfg):
            DeferringCpu.started += 1
            return _Deferred(self, batch, cfg, DeferringCpu.started == fail_at)

    monkeypatch.setattr(runner, "select_backend",
                        lambda family, name, threads, *rest: DeferringCpu(CpuPairwise(threads)))
    out = tmp_path / "o.sam"
    res = invoke(["pair", "-q", "--mode", "local", "--batch-size", "7", GQ, GT, "-o", out])
    if fail_at:
        assert isinstance(res.exception, SeqalignError) and "finishing a batch" in res.exception.format()
        assert not out.exists() and leftovers(tmp_path) == []
        return
    assert res.exit_code == 0, res.output
    assert DeferringCpu.started == 29  # 200 pairs, 7 a batch
    monkeypatch.undo()
    ref = tmp_path / "ref.sam"
    assert invoke(["pair", "-q", "--mode", "local", GQ, GT, "-o", ref]).exit_code == 0
    strip = lambda p: [x for x in p.read_bytes().splitlines() if not x.startswith(b"@PG")]  # noqa: E731
    assert strip(out) == strip(ref)


def test_cross_batches_cut_inside_a_query(tmp_path):
    q = write_fasta(tmp_path / "q.fa", GASAL_Q[:5])
    t = write_fasta(tmp_path / "t.fa", GASAL_T[:7])
    ref = invoke(["pair", "-q", "--cross", q, t])
    small = invoke(["pair", "-q", "--cross", "--batch-size", "3", "-t", "2", q, t])
    assert ref.exit_code == 0 and small.stdout == ref.stdout
    assert len(parse_tsv(ref.stdout)) == 35


# ----------------------------------------------------------- stderr

def test_summary_line_and_quiet(tmp_path):
    proc = seqalign(["pair", GQ, GT, "-o", tmp_path / "o.tsv"])
    assert proc.returncode == 0
    lines = proc.stderr.decode().splitlines()
    assert lines and all(line.startswith("seqalign") for line in lines)
    assert re.match(rf"seqalign {re.escape(__version__)}: 200 pairs, ", lines[-1]), lines
    assert proc.stdout == b""
    quiet = seqalign(["pair", "-q", GQ, GT, "-o", tmp_path / "o.tsv"])
    assert quiet.returncode == 0 and quiet.stderr == b"" and quiet.stdout == b""


def test_pg_command_line_in_process(tmp_path):
    """@PG CL is the command that was run, also through main(argv) / CliRunner (not the host's sys.argv)."""
    out = tmp_path / "pg.sam"
    with pytest.raises(SystemExit) as exc:
        main(["pair", "-q", "--mode", "local", str(GQ), str(GT), "-o", str(out)])
    assert exc.value.code == 0
    pg = [line for line in out.read_text().splitlines() if line.startswith("@PG")]
    assert len(pg) == 1
    assert "--mode local" in pg[0] and str(GQ) in pg[0], pg[0]


@pytest.mark.parametrize("args", [["-t", "0"], ["--mode", "bogus"], ["--no-such-option"], ["--match", "-1"],
                                  ["--batch-size", "0"], ["--format", "fasta"]])
def test_option_errors_are_usage_errors(args):
    proc = seqalign(["pair", *args, GQ, GT])
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and proc.stdout == b""
    assert err.strip().splitlines()[-1].startswith("Error:"), err  # click's own usage message


def test_max_matrix_mb_does_not_change_output():
    """The checkpointed traceback (tiny budget) writes the same CIGARs as the full matrix."""
    ref = invoke(["pair", "-q", "--mode", "glocal", GQ, GT])
    small = invoke(["pair", "-q", "--mode", "glocal", "--max-matrix-mb", "1", GQ, GT])
    assert ref.exit_code == 0 and small.exit_code == 0
    assert small.stdout == ref.stdout


def test_gzip_on_a_slow_stdin_pipe(tmp_path):
    """gzip detection must not depend on how the first bytes of a pipe arrive (peek may return 1 byte)."""
    writer = ("import sys, time; data = open(sys.argv[1], 'rb').read(); out = sys.stdout.buffer; "
              "out.write(data[:1]); out.flush(); time.sleep(0.5); out.write(data[1:]); out.flush()")
    feed = subprocess.Popen([sys.executable, "-c", writer, str(GQ)], stdout=subprocess.PIPE)
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", "-", str(GT)],
                          stdin=feed.stdout, capture_output=True, timeout=120)
    feed.stdout.close()
    feed.wait()
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == seqalign(["pair", "-q", GQ, GT]).stdout


def test_pairs_stale_fai_is_not_trusted(tmp_path):
    """A .fai older than its FASTA (the FASTA was rewritten) must be rebuilt, or the run must stop
    cleanly; never cut the wrong bases (here: newline bytes inside the region)."""
    ref = tmp_path / "ref.fa"
    ref.write_text(">c\nAAAAACCCCC\nGGGGGTTTTT\n")
    pairs = tmp_path / "p.tsv"
    pairs.write_text("c\tc:1-10\n")
    assert invoke(["pair", "-q", "--pairs", pairs, ref]).exit_code == 0
    fai = tmp_path / "ref.fa.fai"
    assert fai.exists()
    ref.write_text(">c\nTTTTTTTTTTGGGGGGGGGG\n")  # same sequence name, other line width
    os.utime(fai, (1_000_000_000, 1_000_000_000))  # the index is older than the FASTA
    proc = seqalign(["pair", "-q", "--pairs", pairs, ref])
    err = proc.stderr.decode()
    assert "Warning" not in err and "warnings.warn" not in err, err
    if proc.returncode == 0:
        (row,) = parse_tsv(proc.stdout.decode())
        assert row["tlen"] == 10 and row["cigar"] == "10=10I", row
    else:
        assert_clean_error(proc, 1, "ref.fa")


@pytest.mark.parametrize("name,what", [("out.cram", "CRAM"), ("out.fa.gz", "FASTA"), ("OUT.VCF", "VCF"),
                                       ("reads.fastq", "FASTQ")])
def test_output_named_for_a_format_seqalign_does_not_write(tmp_path, name, what):
    """A name of another format is a usage error listing the formats (not TSV under that name); --format
    chooses one whatever the name; .txt and names without a known extension stay TSV."""
    from seqalign_cli.cli import cli

    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    q.write_text(">a\nACGT\n")
    t.write_text(">b\nACGA\n")
    res = CliRunner().invoke(cli, ["pair", "-q", "--backend", "cpu", str(q), str(t), "-o", str(tmp_path / name)])
    from seqalign_cli.errors import UsageError

    assert isinstance(res.exception, UsageError) and res.exception.exit_code == 2
    assert f"does not write {what}" in str(res.exception) and "formats: tsv, sam, bam, paf" in str(res.exception)
    assert not (tmp_path / name).exists()
    res = CliRunner().invoke(cli, ["pair", "-q", "--backend", "cpu", str(q), str(t), "-o", str(tmp_path / name),
                                   "--format", "tsv"])
    data = (tmp_path / name).read_bytes()
    assert res.exit_code == 0 and (gzip.decompress(data) if name.endswith(".gz") else data).startswith(b"#qname")
    for other in ("out.txt", "out.dat"):
        res = CliRunner().invoke(cli, ["pair", "-q", "--backend", "cpu", str(q), str(t), "-o", str(tmp_path / other)])
        assert res.exit_code == 0 and (tmp_path / other).read_text().startswith("#qname")


@pytest.mark.parametrize("closed,args", [(1, ["pair", "q.fa", "t.fa"]), (0, ["pair", "-", "t.fa", "-o", "o.tsv"]),
                                         (1, ["triplet", "q.fa", "q.fa", "q.fa"]),
                                         (0, ["pair", "-", "t.fa", "-o", "o.tsv", "--workers", "2"])])
def test_closed_standard_streams(tmp_path, closed, args):
    """Started with stdout (>&-) or stdin (<&-) closed: one usage line naming it, exit 2, no traceback."""
    (tmp_path / "q.fa").write_text(">a\nACGT\n")
    (tmp_path / "t.fa").write_text(">b\nACGA\n")
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", *args, "-q", "--backend", "cpu"], cwd=tmp_path,
                          stderr=subprocess.PIPE, preexec_fn=lambda: os.close(closed), timeout=120,
                          **({"stdin": subprocess.DEVNULL} if closed == 1 else {"stdout": subprocess.DEVNULL}))
    lines = proc.stderr.decode().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, lines
    assert ("standard output is closed" if closed == 1 else "standard input is closed") in lines[0]
    assert not (tmp_path / "o.tsv").exists()


@pytest.mark.skipif(not os.path.exists("/dev/full") or not os.path.isdir("/proc"), reason="needs Linux")
@pytest.mark.parametrize("where,needle,code", [("-o /proc/out.tsv", "/proc/out.tsv: cannot create the output", 2),
                                               ("-o /dev/full", "/dev/full: No space left on device", 1),
                                               ("> /dev/full", "standard output: No space left on device", 1),
                                               ("--workers 2 > /dev/full", "standard output: No space left", 1)])
def test_output_errors_name_the_output(tmp_path, where, needle, code):
    """The output as the user named it (or "standard output"), never the temporary name; one line."""
    (tmp_path / "q.fa").write_bytes(b"".join(b">q%d\nACGTACGTAC\n" % k for k in range(3000)))
    (tmp_path / "t.fa").write_bytes(b"".join(b">t%d\nACGTTCGTAC\n" % k for k in range(3000)))
    proc = subprocess.run(f"{sys.executable} -m seqalign_cli pair -q --backend cpu q.fa t.fa {where}", shell=True,
                          cwd=tmp_path, stderr=subprocess.PIPE, timeout=120)
    lines = proc.stderr.decode().splitlines()
    assert proc.returncode == code and len(lines) == 1 and needle in lines[0], lines
    assert ".tmp" not in lines[0]
