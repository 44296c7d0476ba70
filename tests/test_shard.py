"""``--shard K/N``: the parts of a run, concatenated in K order, are its output, for every family and pairing.

The runs go through the command line in process (click's ``CliRunner``) on
the CPU backend, with small inputs cut from ``tests/data`` (a few units each,
so that N can exceed them). Expectations are independent of the code under
test: the unsharded run's output, the input's record names read by a
test-side parser, and the arithmetic of the parts written out here.
"""

from __future__ import annotations

import gzip
import shutil

import pysam
import pytest
from click.testing import CliRunner

from seqalign_cli.cli import cli, main
from seqalign_cli.io.fastx import FastxReader
from seqalign_cli.io.shard import bounds, count_records

from support import clidata
from support.clidata import DATA, EX1, EX1_PAIRS, EX1_READS, GQ, GT, write_fasta

GRAPH_DATA = DATA.parent / "graph"
TRIPLET_DATA = DATA.parent / "triplet"


# ----------------------------------------------------------------- helpers

def invoke(family: str, args) -> bytes:
    """One run's output (stdout), checked to succeed without a word on stderr."""
    res = CliRunner().invoke(cli, [family, "-q", "--backend", "cpu", *[str(a) for a in args]])
    assert res.exit_code == 0, (res.output, res.exception)
    assert res.stderr == "", res.stderr
    return res.stdout_bytes


def parts(family: str, args, n: int) -> list[bytes]:
    """The outputs of parts 1..n."""
    return [invoke(family, [*args, "--shard", f"{k}/{n}"]) for k in range(1, n + 1)]


def data_lines(text: bytes, header: bytes) -> list[bytes]:
    """The lines of an output but its header lines (those starting with ``header``)."""
    return [line for line in text.splitlines() if not line.startswith(header)]


def counts(units: int) -> list[int]:
    """The N tried for an input of ``units``: 1, 2, 3 and more than the units."""
    return [1, 2, 3, units + 2]


def write_fastq_multiline(path, recs):
    """FASTQ with sequence and quality wrapped at 7 characters, qualities starting with '@' (gzip)."""
    text = ""
    for name, seq, qual in recs:
        qual = "@" + qual[1:]
        text += f"@{name}\n" + "".join(seq[i:i + 7] + "\n" for i in range(0, len(seq), 7)) + "+\n"
        text += "".join(qual[i:i + 7] + "\n" for i in range(0, len(qual), 7))
    path.write_bytes(gzip.compress(text.encode()))
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Small inputs of every kind (see the module)."""
    d = tmp_path_factory.mktemp("shard")
    reads = clidata.read_fastx(EX1_READS)[:7]
    targets = clidata.read_fastx(GT)[:7]
    sars = [clidata.read_fastx(TRIPLET_DATA / f"sars.{s}.fa") for s in "abc"]
    short = [i for i in range(len(sars[0])) if max(len(f[i][1]) for f in sars) <= 60][:5]
    pairs = [line for line in EX1_PAIRS.read_text().splitlines() if not line.startswith("#")][:6]
    (d / "p.tsv").write_text("# pairs\n" + "\n".join(pairs[:3]) + "\n\n" + "\n".join(pairs[3:]) + "\n")
    shutil.copy(EX1, d / "ex1.fa")
    write_fasta(d / "inter.fa", [r for pair in zip(clidata.read_fastx(GQ)[:5], targets) for r in pair])
    for s in range(3):
        write_fasta(d / f"t{s}.fa", [sars[s][i] for i in short])
    write_fasta(d / "t_inter.fa", [sars[s][i] for i in short for s in range(3)])
    return dict(
        q=write_fastq_multiline(d / "q.fq.gz", reads), t=write_fasta(d / "t.fa", targets),
        cq=write_fasta(d / "cq.fa", clidata.read_fastx(GQ)[:4]), ct=write_fasta(d / "ct.fa", targets[:3]),
        inter=d / "inter.fa", pairs=d / "p.tsv", ref=d / "ex1.fa", reads=EX1_READS,
        a=d / "t0.fa", b=d / "t1.fa", c=d / "t2.fa", t_inter=d / "t_inter.fa",
        gfa=GRAPH_DATA / "113968116-113968146.gfa", g_reads=GRAPH_DATA / "small_dag_reads.fa",
    )


#: case: (family, its arguments, the file that defines the units (None: the pairs file), records per
#: unit, a format besides TSV); a row's first column names the unit's first record
CASES = {
    "zip": ("pair", lambda f: [f["q"], f["t"]], "q", 1, "paf"),
    "cross": ("pair", lambda f: ["--cross", f["cq"], f["ct"]], "cq", 1, "paf"),
    "interleaved": ("pair", lambda f: ["--interleaved", f["inter"]], "inter", 2, None),
    "pairs file": ("pair", lambda f: ["--pairs", f["pairs"], f["reads"], f["ref"]], None, 1, "paf"),
    "triplet lockstep": ("triplet", lambda f: [f["a"], f["b"], f["c"]], "a", 1, "maf"),
    "triplet interleaved": ("triplet", lambda f: ["--interleaved", f["t_inter"]], "t_inter", 3, "maf"),
    "graph": ("graph", lambda f: [f["gfa"], f["g_reads"]], "g_reads", 1, "gaf"),
}


def record_names(path) -> list[str]:
    """The names of a file's records (a test-side parser; the wrapped FASTQ is written from EX1_READS)."""
    if path.name == "q.fq.gz":
        return [r[0] for r in clidata.read_fastx(EX1_READS)[:7]]
    return [r[0] for r in clidata.read_fastx(path)]


def unit_names(case: str, f) -> list[str]:
    """The name of the first record of every unit, in input order (a test-side parser), repeated for
    the targets of a cross run."""
    _, _, key, per, _ = CASES[case]
    if key is None:  # pairs file: the query names of its lines
        return [line.split("\t")[0] for line in f["pairs"].read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    names = record_names(f[key])[::per]
    if case == "cross":
        names = [n for n in names for _ in clidata.read_fastx(f["ct"])]
    return names


# ----------------------------------------------------------------- the arithmetic of parts

@pytest.mark.parametrize("n", [0, 1, 2, 5, 7, 100, 101])
@pytest.mark.parametrize("parts_count", [1, 2, 3, 8])
def test_bounds_split_every_unit_once_in_order(n, parts_count):
    ranges = [bounds((k, parts_count), n) for k in range(1, parts_count + 1)]
    assert ranges[0][0] == 0 and ranges[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))  # contiguous, in order
    sizes = [b - a for a, b in ranges]
    assert sum(sizes) == n and max(sizes) - min(sizes) <= 1  # as even as whole units allow
    assert ranges == [((k - 1) * n // parts_count, k * n // parts_count) for k in range(1, parts_count + 1)]


def test_count_and_skip_follow_the_records(inputs, tmp_path):
    """Counting and skipping agree with a test-side parser on FASTA, gzip FASTQ wrapped over several lines
    (qualities starting with '@'), blank lines and an empty file."""
    odd = tmp_path / "blank.fa"
    odd.write_text("\n\n>a x\nAC\n\n>b\n>c\nGG\nT\n")
    empty = tmp_path / "empty.fa"
    empty.write_text("")
    for path in (inputs["q"], inputs["t"], inputs["reads"], inputs["t_inter"], odd, empty, GQ):
        expected = record_names(path) if path != odd else ["a", "b", "c"]
        assert count_records(str(path)) == len(expected), path
        for skip in sorted({0, 1, len(expected) // 2, len(expected), len(expected) + 3}):
            reader = FastxReader(str(path), skip=skip)
            got = [(r.name, r.num) for r in reader]
            assert got == [(name, k + 1) for k, name in enumerate(expected)][skip:], (path, skip)
            assert reader.count == len(expected)


# ----------------------------------------------------------------- every family: the parts are the run

@pytest.mark.parametrize("case", list(CASES))
def test_parts_concatenate_into_the_run(inputs, case):
    family, args, key, per, _ = CASES[case]
    args = args(inputs)
    whole = invoke(family, args)
    names = unit_names(case, inputs)
    rows = data_lines(whole, b"#")
    assert [r.split(b"\t")[0].decode() for r in rows] == names  # the run aligns every unit once
    units = len(record_names(inputs[key])) // per if key else len(names)
    repeat = len(names) // units  # the targets of a cross run
    for n in counts(units):
        got = parts(family, args, n)
        assert b"".join(got) == whole, (case, n)
        # only the first part has the header; part k holds units floor((k-1)*units/n) .. floor(k*units/n) - 1
        assert got[0].startswith(b"#") and all(not p.startswith(b"#") for p in got[1:])
        for k, p in enumerate(got, 1):
            a, b = (k - 1) * units // n, k * units // n
            rows_k = [r.split(b"\t")[0].decode() for r in data_lines(p, b"#")]
            assert rows_k == names[a * repeat:b * repeat], (case, n, k)


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][4]])
def test_other_formats_concatenate(inputs, case):
    family, args, _, _, fmt = CASES[case]
    args = [*args(inputs), "--format", fmt]
    whole = invoke(family, args)
    assert whole and b"".join(parts(family, args, 3)) == whole


@pytest.mark.parametrize("case", ["zip", "pairs file", "interleaved"])
def test_sam_parts_each_have_the_header(inputs, case):
    family, args, _, _, _ = CASES[case]
    args = [*args(inputs), "--format", "sam"]
    whole = invoke(family, args)
    got = parts(family, args, 3)

    def header(text):  # the header but its @PG line (which holds the command line)
        return [line for line in text.splitlines() if line.startswith(b"@") and not line.startswith(b"@PG")]

    assert header(whole)[0].startswith(b"@HD") and any(line.startswith(b"@SQ") for line in header(whole))
    for p in got:
        assert p.startswith(b"@HD") and header(p) == header(whole)
    assert [r for p in got for r in data_lines(p, b"@")] == data_lines(whole, b"@")


def test_bam_parts_take_the_ids_of_the_whole_header(inputs, tmp_path):
    args = ["--cross", inputs["cq"], inputs["ct"]]
    invoke("pair", [*args, "-o", tmp_path / "whole.bam"])
    for k in (1, 2, 3):
        invoke("pair", [*args, "--shard", f"{k}/3", "-o", tmp_path / f"p{k}.bam"])

    def records(path):
        with pysam.AlignmentFile(str(path), "rb", check_sq=False) as bam:
            return bam.references, [(r.query_name, r.reference_name, r.reference_start, r.cigarstring,
                                     r.get_tag("AS")) for r in bam]

    refs, whole = records(tmp_path / "whole.bam")
    assert len(refs) == 3
    got = [records(tmp_path / f"p{k}.bam") for k in (1, 2, 3)]
    assert all(r == refs for r, _ in got)
    assert [rec for _, recs in got for rec in recs] == whole


# ----------------------------------------------------------------- empty parts

def test_empty_part_of_a_non_empty_input_says_nothing(inputs):
    args = [inputs["q"], inputs["t"]]
    first, second = (invoke("pair", [*args, "--shard", f"{k}/20"]) for k in (1, 2))  # 7 pairs: these hold none
    assert first == invoke("pair", [*args, "--shard", "1/1"]).splitlines(keepends=True)[0]  # the header
    assert second == b""


def test_empty_input_still_warns(tmp_path):
    empty = tmp_path / "e.fa"
    empty.write_text("")
    res = CliRunner().invoke(cli, ["pair", "-q", "--backend", "cpu", "--shard", "2/3", str(empty), str(empty)])
    assert res.exit_code == 0 and res.stdout == ""
    assert res.stderr.count("warning") == 1 and "empty input" in res.stderr


# ----------------------------------------------------------------- usage errors

def usage_error(capsys, args) -> str:
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert err.count("\n") == 1 and err.startswith("seqalign: error: ") and "Traceback" not in err
    return err


@pytest.mark.parametrize("text", ["0/2", "2/1", "x", "1/0", "1", "a/b", "-1/2"])
def test_bad_shard_is_a_usage_error(capsys, text):
    assert "--shard" in usage_error(capsys, ["pair", "-q", "--backend", "cpu", "--shard", text, GQ, GT])


@pytest.mark.parametrize("family, args", [
    ("pair", ["-", "{t}"]),
    ("pair", ["--cross", "-", "{t}"]),
    ("pair", ["--interleaved", "-"]),
    ("pair", ["--pairs", "-", "{reads}", "{ref}"]),
    ("triplet", ["-", "{b}", "{c}"]),
    ("triplet", ["--interleaved", "-"]),
    ("graph", ["{gfa}", "-"]),
])
def test_shard_of_stdin_is_a_usage_error(capsys, inputs, family, args):
    args = [a.format(**inputs) for a in args]
    err = usage_error(capsys, [family, "-q", "--backend", "cpu", "--shard", "1/2", *args])
    assert "--shard" in err and "stdin" in err
