"""Output writers: TSV, SAM/BAM (read back with pysam, checked by samtools) and PAF.

SAM/BAM records are compared with the TSV rows of the same run, their MD/NM
recomputed here from the letters, and, where samtools is installed, checked by
``samtools view`` and ``samtools calmd`` against a FASTA of the targets (calmd
warns 'different NM/MD' on stderr for every wrong tag).
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from seqalign_cli import __version__
from seqalign_cli.cli import cli
from seqalign_cli.families.pairwise.formats_sam import md_tag

from support.helpers import TSV_COLUMNS, parse_tsv
from support.samtools_checks import SAMTOOLS, check_with_samtools, sam_records, samtools_run
from support.oracles import canon, cigar_counts, parse_cigar

pysam = pytest.importorskip("pysam")

from support.clidata import read_fastx, write_fasta
from support.clidata import DATA, EX1, EX1_PAIRS, EX1_READS, GQ, GT  # noqa: F401
#: samtools is its binary where installed, else the one pysam builds in (``samtools_run``)
needs_samtools = pytest.mark.skipif(SAMTOOLS is None and not hasattr(pysam, "calmd"), reason="no samtools")
MODES = ("global", "semi-global", "glocal", "local")
COLUMNS = TSV_COLUMNS


# ----------------------------------------------------------------- helpers



def run_ok(args) -> str:
    res = CliRunner().invoke(cli, ["pair", "-q", *[str(a) for a in args]])
    assert res.exit_code == 0, (res.output, res.exception)
    return res.stdout


def tsv_rows(args) -> list[dict]:
    return parse_tsv(run_ok([*args, "--format", "tsv"]))


def letters_md_nm(query: str, target: str, qstart: int, tstart: int, cigar: str):
    """MD and NM from the letters (any pair involving N is a mismatch), for =/X/M/I/D CIGARs."""
    q, t = canon(query), canon(target)
    i, j, num, md, nm = qstart, tstart, 0, [], 0
    for n, op in parse_cigar(cigar):
        if op in "=XM":
            for k in range(n):
                if q[i + k] == t[j + k] and q[i + k] != ord("N"):
                    num += 1
                else:
                    md.append(f"{num}{target[j + k].upper()}")
                    num, nm = 0, nm + 1
            i, j = i + n, j + n
        elif op == "I":
            i, nm = i + n, nm + n
        elif op == "D":
            md.append(f"{num}^{target[j:j + n].upper()}")
            num, j, nm = 0, j + n, nm + n
    md.append(str(num))
    return "".join(md), nm


def check_sam_against_tsv(recs, rows, queries, targets, cigar_m=False):
    """Every SAM record agrees with its TSV row, in input order."""
    assert len(recs) == len(rows) == len(queries) == len(targets)
    for rec, row, q, t in zip(recs, rows, queries, targets):
        assert rec.query_name == row["qname"] == q[0]
        seq = q[1].upper()
        assert (rec.query_sequence or "") == seq
        assert rec.get_tag("AS") == row["score"]
        if not any(op in "=XM" for _, op in parse_cigar(row["cigar"])):  # no aligned base
            assert rec.is_unmapped and rec.flag == 4
            assert rec.reference_name is None and rec.cigarstring is None
            continue
        assert rec.flag == 0
        assert rec.reference_name == row["tname"] == t[0]
        assert rec.reference_start == row["tstart"] and rec.reference_end == row["tend"]
        assert rec.query_alignment_start == row["qstart"] and rec.query_alignment_end == row["qend"]
        clip_l = f"{row['qstart']}S" if row["qstart"] else ""
        clip_r = f"{row['qlen'] - row['qend']}S" if row["qend"] < row["qlen"] else ""
        assert rec.cigarstring == clip_l + row["cigar"] + clip_r
        assert rec.get_tag("NM") == row["nm"]
        md, nm = letters_md_nm(q[1], t[1], row["qstart"], row["tstart"], row["cigar"])
        assert rec.get_tag("MD") == md, rec.query_name
        assert rec.get_tag("NM") == nm
        if q[2] is not None:
            assert list(rec.query_qualities) == [ord(c) - 33 for c in q[2]]
        else:
            assert rec.query_qualities is None


def samtools_calmd_clean(aln: Path, ref: Path):
    """samtools view accepts the file and calmd changes no NM/MD tag."""
    rc, view, err = samtools_run("view", "-h", aln)
    assert rc == 0 and err == "", err
    rc, calmd, err = samtools_run("calmd", aln, ref)
    assert rc == 0, err
    assert not re.search(r"different|fail|error|warn", err, re.I), err
    before = [line for line in view.splitlines() if not line.startswith("@")]
    after = [line for line in calmd.splitlines() if not line.startswith("@")]
    assert len(before) == len(after)

    def tags(line):
        f = line.split("\t")
        return f[:11], sorted(x for x in f[11:] if x[:2] in ("NM", "MD", "AS"))

    assert [tags(x) for x in after] == [tags(x) for x in before]








# ----------------------------------------------------------------- SAM/BAM

def test_sam_header(tmp_path):
    """Through the real entry point, so @PG CL holds this very command line."""
    out = tmp_path / "h.sam"
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", "--mode", "glocal",
                           "--match", "1", str(GQ), str(GT), "-o", str(out)], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("@HD\tVN:1.6")
    header, recs = sam_records(out)
    assert header["HD"]["VN"] == "1.6"
    targets = read_fastx(GT)
    assert [(sq["SN"], sq["LN"]) for sq in header["SQ"]] == [(n, len(s)) for n, s, _ in targets]
    (pg,) = header["PG"]
    assert pg["ID"] == "seqalign" and pg["VN"] == __version__
    assert pg["CL"].startswith("seqalign pair ")
    for part in ("-q", "--mode glocal", "--match 1", str(GQ), str(GT), str(out)):
        assert part in pg["CL"], pg["CL"]
    assert [r.query_name for r in recs] == [str(i) for i in range(1, 201)]


@pytest.mark.parametrize("mode", MODES)
def test_sam_records_agree_with_tsv(tmp_path, mode):
    out = tmp_path / "r.sam"
    run_ok([GQ, GT, "--mode", mode, "-o", out])
    _, recs = sam_records(out)
    rows = tsv_rows([GQ, GT, "--mode", mode])
    check_sam_against_tsv(recs, rows, read_fastx(GQ), read_fastx(GT))
    cigars = [r.cigarstring or "" for r in recs]
    if mode in ("glocal", "global"):
        assert not any("S" in c for c in cigars)
    if mode == "local":
        assert sum("S" in c for c in cigars) > 50  # unaligned query ends are soft-clipped
        assert all(r.reference_start + 1 == r.pos + 1 for r in recs)  # POS is 1-based in the text
    text_pos = [int(line.split("\t")[3]) for line in out.read_text().splitlines() if not line.startswith("@")]
    assert text_pos == [row["tstart"] + 1 if not r.is_unmapped else 0 for row, r in zip(rows, recs)]


def test_bam_equals_sam(tmp_path):
    run_ok([GQ, GT, "--mode", "local", "-o", tmp_path / "a.sam"])
    run_ok([GQ, GT, "--mode", "local", "-o", tmp_path / "a.bam"])
    h_sam, sam = sam_records(tmp_path / "a.sam")
    h_bam, bam = sam_records(tmp_path / "a.bam")
    assert h_bam["SQ"] == h_sam["SQ"] and h_bam["HD"]["VN"] == "1.6"
    assert [r.to_string() for r in bam] == [r.to_string() for r in sam]


@pytest.mark.parametrize("level", [0, 1, 3, 6, 9])
def test_compress_levels(tmp_path, level):
    """Every --compress-level writes BAM that samtools checks and reads as the SAM, and .gz that gunzips to
    the TSV; a higher level never writes a larger file here than level 1."""
    run_ok([GQ, GT, "--mode", "local", "-o", tmp_path / "a.sam"])
    run_ok([GQ, GT, "--mode", "local", "-o", tmp_path / "a.tsv"])
    run_ok([GQ, GT, "--mode", "local", "--compress-level", level, "-o", tmp_path / "a.bam"])
    run_ok([GQ, GT, "--mode", "local", "--compress-level", level, "-o", tmp_path / "a.tsv.gz"])
    check_with_samtools(tmp_path / "a.bam", tmp_path)
    assert [r.to_string() for r in sam_records(tmp_path / "a.bam")[1]] == \
        [r.to_string() for r in sam_records(tmp_path / "a.sam")[1]]
    assert gzip.decompress((tmp_path / "a.tsv.gz").read_bytes()) == (tmp_path / "a.tsv").read_bytes()
    size = (tmp_path / "a.tsv.gz").stat().st_size
    if level == 0:
        assert size > (tmp_path / "a.tsv").stat().st_size  # stored
    else:
        run_ok([GQ, GT, "--mode", "local", "--compress-level", 1, "-o", tmp_path / "one.tsv.gz"])
        assert size <= (tmp_path / "one.tsv.gz").stat().st_size


def test_bam_to_stdout(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", "--format", "bam", "-o", "-",
                           str(GQ), str(GT)], capture_output=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert proc.stdout[:4] == b"\x1f\x8b\x08\x04"
    (tmp_path / "s.bam").write_bytes(proc.stdout)
    _, recs = sam_records(tmp_path / "s.bam")
    assert len(recs) == 200


def test_sam_fastq_qualities_and_pairs_regions(tmp_path):
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    out = tmp_path / "reads.sam"
    run_ok(["--pairs", EX1_PAIRS, "--mode", "local", EX1_READS, ref, "-o", out])
    header, recs = sam_records(out)
    rows = tsv_rows(["--pairs", EX1_PAIRS, "--mode", "local", EX1_READS, ref])
    reads = {r[0]: r for r in read_fastx(EX1_READS)}
    chroms = {r[0]: r[1] for r in read_fastx(EX1)}
    regions = []
    for row in rows:
        name, span = row["tname"].rsplit(":", 1)
        s, e = (int(x) for x in span.split("-"))
        regions.append((row["tname"], chroms[name][s - 1:e], None))
    check_sam_against_tsv(recs, rows, [reads[r["qname"]] for r in rows], regions)
    distinct = list(dict.fromkeys((n, len(s)) for n, s, _ in regions))
    assert [(sq["SN"], sq["LN"]) for sq in header["SQ"]] == distinct
    reg_fa = write_fasta(tmp_path / "regions.fa", [(n, s) for n, s in dict((n, s) for n, s, _ in regions).items()])
    samtools_calmd_clean(out, reg_fa)


def test_cross_sam_one_primary_per_query(tmp_path):
    q = write_fasta(tmp_path / "q.fa", read_fastx(GQ)[:3])
    t = write_fasta(tmp_path / "t.fa", read_fastx(GT)[:4])
    out = tmp_path / "c.sam"
    run_ok(["--cross", "--mode", "glocal", q, t, "-o", out])
    header, recs = sam_records(out)
    assert [sq["SN"] for sq in header["SQ"]] == ["1", "2", "3", "4"]
    assert [(r.query_name, r.reference_name) for r in recs] == [(a, b) for a in "123" for b in "1234"]
    assert {r.flag for r in recs} == {0, 256}  # the other records of a query are secondary (tests/test_strand.py)
    assert sorted(r.query_name for r in recs if r.flag == 0) == ["1", "2", "3"]
    samtools_calmd_clean(out, t)


def test_empty_alignment_is_unmapped(tmp_path):
    q = write_fasta(tmp_path / "q.fa", [("none", "AAAA"), ("some", "ACGTACGTAC")])
    t = write_fasta(tmp_path / "t.fa", [("cccc", "CCCC"), ("tgt", "TTACGTACGTACTT")])
    out = tmp_path / "u.sam"
    run_ok(["--mode", "local", q, t, "-o", out])
    header, recs = sam_records(out)
    assert recs[0].flag == 4 and recs[0].is_unmapped and recs[0].get_tag("AS") == 0
    assert recs[0].reference_name is None and recs[0].query_sequence == "AAAA"
    assert not recs[0].has_tag("NM") and not recs[0].has_tag("MD")
    assert recs[1].flag == 0 and recs[1].cigarstring == "10=" and recs[1].get_tag("MD") == "10"
    # every non-empty target has its @SQ, used by a mapped record or not (the header goes out first)
    assert [sq["SN"] for sq in header["SQ"]] == ["cccc", "tgt"]
    rows = tsv_rows(["--mode", "local", q, t])
    assert rows[0]["cigar"] == "*" and rows[0]["score"] == 0
    samtools_calmd_clean(out, t)


@pytest.mark.parametrize("fmt", ["sam", "bam"])
@pytest.mark.parametrize("targets", [[("t1", "ACGT"), ("t2", "CCCC")], [("t1", ""), ("t2", "")]])
def test_sam_with_only_unmapped_records_is_valid(tmp_path, fmt, targets):
    """Every pair unmapped; with empty targets only, no @SQ at all: the file must still be valid SAM (no blank
    line) and the @SQ lines those of the non-empty targets."""
    q = write_fasta(tmp_path / "q.fa", [("e", ""), ("a", "AAAA")])
    t = write_fasta(tmp_path / "t.fa", targets)
    out = tmp_path / f"only_unmapped.{fmt}"
    run_ok(["--mode", "local", q, t, "-o", out])
    if fmt == "sam":
        assert "" not in out.read_text().splitlines(), out.read_text()
    header, recs = sam_records(out)
    assert [(r.query_name, r.flag) for r in recs] == [("e", 4), ("a", 4)]
    assert [(sq["SN"], sq["LN"]) for sq in header.get("SQ", [])] == [(n, len(s)) for n, s in targets if s]
    check_with_samtools(out, tmp_path)


def test_zero_length_sequences_in_sam(tmp_path):
    q = tmp_path / "q.fq"
    q.write_text("@e1\n\n+\n\n@a\nACGT\n+\nIIII\n@b\nACGT\n+\nIIII\n")
    t = write_fasta(tmp_path / "t.fa", [("t1", "ACGT"), ("e", ""), ("t3", "ACGA")])
    for mode in MODES:
        out = tmp_path / f"z.{mode}.sam"
        run_ok(["--mode", mode, q, t, "-o", out])
        _, recs = sam_records(out)
        assert [(r.query_name, r.is_unmapped) for r in recs] == [("e1", True), ("a", True), ("b", False)]
        assert recs[0].query_sequence is None and recs[0].query_qualities is None
        samtools_calmd_clean(out, t)


def test_same_target_name_two_sequences_is_an_error(tmp_path):
    q = write_fasta(tmp_path / "q.fa", [("r1", "ACGTACGT"), ("r2", "ACGTACGT"), ("r3", "ACGTACGT")])
    t = write_fasta(tmp_path / "dup_targets.fa", [("ref", "ACGTACGT"), ("ref", "ACGTACGT"), ("ref", "ACGTACCT")])
    for name in ("d.sam", "d.bam"):
        out = tmp_path / name
        proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", str(q), str(t), "-o", str(out)],
                              capture_output=True, timeout=120)
        err = proc.stderr.decode()
        assert proc.returncode == 1, err
        assert err.count("\n") == 1 and err.startswith("seqalign: error: ") and "Traceback" not in err
        assert "'ref'" in err
        assert not out.exists()
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # the same name for the same sequence is fine: one @SQ; TSV/PAF do not care at all
    t2 = write_fasta(tmp_path / "same.fa", [("ref", "ACGTACGT")] * 3)
    run_ok([q, t2, "-o", tmp_path / "ok.sam"])
    header, recs = sam_records(tmp_path / "ok.sam")
    assert header["SQ"] == [{"SN": "ref", "LN": 8}] and len(recs) == 3
    run_ok([q, t, "-o", tmp_path / "ok.tsv"])
    run_ok([q, t, "-o", tmp_path / "ok.paf"])


def test_same_target_name_error_names_file_and_record(tmp_path):
    """Errors name the file and the record (README); this one names only the target."""
    q = write_fasta(tmp_path / "q.fa", [("r1", "ACGTACGT"), ("r2", "ACGTACGT")])
    t = write_fasta(tmp_path / "dup_targets.fa", [("ref", "ACGTACGT"), ("ref", "ACGTACCT")])
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", str(q), str(t), "--format", "sam"],
                          capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 1
    assert "dup_targets.fa" in err and "record 2" in err, err


def test_cigar_m_in_sam(tmp_path):
    out = tmp_path / "m.sam"
    run_ok([GQ, GT, "--mode", "local", "--cigar-m", "-o", out])
    _, recs = sam_records(out)
    rows = tsv_rows([GQ, GT, "--mode", "local", "--cigar-m"])
    assert all(set(re.sub(r"\d", "", r.cigarstring)) <= set("MIDS") for r in recs if not r.is_unmapped)
    assert any("M" in r.cigarstring for r in recs)
    check_sam_against_tsv(recs, rows, read_fastx(GQ), read_fastx(GT))
    samtools_calmd_clean(out, write_fasta(tmp_path / "t.fa", [(n, s) for n, s, _ in read_fastx(GT)]))


# ------------------------------------------------------------ samtools

@needs_samtools
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", ["sam", "bam", "sam.gz"])
def test_samtools_view_and_calmd_gasal2(tmp_path, mode, fmt):
    """calmd agrees with every NM/MD; quickcheck, view, flagstat, sort and index take the file (BGZF for .gz)."""
    ref = write_fasta(tmp_path / "targets.fa", [(n, s) for n, s, _ in read_fastx(GT)])
    out = tmp_path / f"g.{fmt}"
    run_ok([GQ, GT, "--mode", mode, "-t", "2", "-o", out])
    samtools_calmd_clean(out, ref)
    check_with_samtools(out, tmp_path)


@needs_samtools
def test_samtools_calmd_with_n_iupac_and_lowercase(tmp_path):
    """N against anything (N too) and an IUPAC code against a base are mismatches for samtools as
    for seqalign. (An IUPAC code against the same code is not used here: samtools counts it as a
    match, seqalign as a mismatch, as its README says.)"""
    q = write_fasta(tmp_path / "q.fa", [("q1", "ACGTNACGTAACGTTTGA"), ("q2", "acgtacgtacgtacgatc"),
                                        ("q3", "ACGTACGTACNNACGTAC"), ("q4", "GGGGACGTACACGTCCCC")])
    t = write_fasta(tmp_path / "t.fa", [("t1", "ACGTNACGTAACGTTTGA"), ("t2", "ACGTACGTRCGTACGATC"),
                                        ("t3", "ACGTAcgtAcNNACGTAC"), ("t4", "ACGTRYACGT")])
    for mode in ("global", "local"):
        out = tmp_path / f"n.{mode}.sam"
        run_ok([q, t, "--mode", mode, "-o", out])
        _, recs = sam_records(out)
        check_sam_against_tsv(recs, tsv_rows([q, t, "--mode", mode]),
                              read_fastx(q), read_fastx(t))
        samtools_calmd_clean(out, t)


@needs_samtools
def test_samtools_calmd_rna_query(tmp_path):
    """U counts as T (README); the SAM must say so too, or samtools sees a mismatch."""
    q = write_fasta(tmp_path / "q.fa", [("rna", "ACGUACGUACGU")])
    t = write_fasta(tmp_path / "t.fa", [("dna", "ACGTACGTACGT")])
    out = tmp_path / "rna.sam"
    run_ok([q, t, "-o", out])
    assert tsv_rows([q, t])[0]["cigar"] == "12="
    samtools_calmd_clean(out, t)


# ------------------------------------------------------------------ PAF

@pytest.mark.parametrize("mode", ["global", "local"])
def test_paf_columns(tmp_path, mode):
    out = tmp_path / "p.paf"
    run_ok([GQ, GT, "--mode", mode, "-o", out])
    rows = tsv_rows([GQ, GT, "--mode", mode])
    lines = out.read_text().splitlines()
    assert len(lines) == len(rows) == 200
    for line, row in zip(lines, rows):
        f = line.split("\t")
        assert len(f) == 15
        assert f[:12] == [row["qname"], str(row["qlen"]), str(row["qstart"]), str(row["qend"]), "+",
                          row["tname"], str(row["tlen"]), str(row["tstart"]), str(row["tend"]),
                          f[9], f[10], "255"]
        m, x, i, d = cigar_counts(row["cigar"])
        assert int(f[9]) == m  # residue matches: '=' bases
        assert int(f[10]) == m + x + i + d  # alignment block length
        assert f[12:] == [f"cg:Z:{row['cigar']}", f"AS:i:{row['score']}", f"NM:i:{row['nm']}"]


def test_paf_cigar_m_and_empty_alignment(tmp_path):
    q = write_fasta(tmp_path / "q.fa", [("none", "AAAA"), ("some", "ACGTTACGTAC")])
    t = write_fasta(tmp_path / "t.fa", [("cccc", "CCCC"), ("tgt", "TTACGTACGTACTT")])
    lines = run_ok(["--mode", "local", "--cigar-m", q, t, "--format", "paf"]).splitlines()
    f0, f1 = (line.split("\t") for line in lines)
    assert f0[:12] == ["none", "4", "0", "0", "*", "cccc", "4", "0", "0", "0", "0", "0"]
    assert "AS:i:0" in f0[12:]
    assert f1[4] == "+" and f1[12].startswith("cg:Z:") and set(re.sub(r"\d", "", f1[12][5:])) <= set("MID")
    rows = tsv_rows(["--mode", "local", q, t])
    m, x, i, d = cigar_counts(rows[1]["cigar"])
    assert (int(f1[9]), int(f1[10])) == (m, m + x + i + d)


# ------------------------------------------------------------------ TSV

def test_tsv_layout(tmp_path):
    out = tmp_path / "t.tsv"
    run_ok([GQ, GT, "--mode", "semi-global", "-o", out])
    lines = out.read_text().splitlines()
    assert lines[0] == "#" + "\t".join(COLUMNS)
    assert len(lines) == 201
    for line in lines[1:]:
        f = line.split("\t")
        assert len(f) == 11
        _, x, i, d = cigar_counts(f[9])
        assert int(f[10]) == x + i + d
        assert 0 <= int(f[2]) <= int(f[3]) <= int(f[1]) and 0 <= int(f[6]) <= int(f[7]) <= int(f[5])
    run_ok([GQ, GT, "--mode", "semi-global", "-o", tmp_path / "t.tsv.gz"])
    assert gzip.decompress((tmp_path / "t.tsv.gz").read_bytes()) == out.read_bytes()


# --------------------------------------------------------------- md_tag

@pytest.mark.parametrize("ops, lens, target, tstart, want", [
    ([0], [4], b"ACGT", 0, "4"),
    ([0, 1, 0], [2, 1, 1], b"ACGT", 0, "2G1"),
    ([1, 1, 0], [1, 1, 2], b"acgt", 0, "0A0C2"),
    ([3, 0], [2, 2], b"ACGT", 0, "0^AC2"),
    ([0, 3, 1, 0], [1, 1, 1, 1], b"ACGT", 0, "1^C0G1"),
    ([0, 2, 0], [2, 3, 2], b"ACGT", 0, "4"),
    ([0, 3, 0], [1, 2, 1], b"TTACGT", 2, "1^CG1"),
    ([0, 1], [1, 1], b"AN", 0, "1N0"),
])
def test_md_tag(ops, lens, target, tstart, want):
    assert md_tag(ops, lens, target, tstart) == want


@needs_samtools
def test_sam_empty_record_name(tmp_path):
    """A FASTA record with an empty name ('>' alone) gives an empty QNAME and @SQ SN, which SAM does
    not allow: either refuse it cleanly (exit 1 naming the file and record) or write valid SAM."""
    f = write_fasta(tmp_path / "noname.fa", [("", "ACGTACGT")])
    out = tmp_path / "nn.sam"
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", str(f), str(f), "-o", str(out)],
                          capture_output=True, timeout=120)
    if proc.returncode != 0:
        err = proc.stderr.decode()
        assert proc.returncode == 1 and err.startswith("seqalign: error: ") and "noname.fa" in err, err
        assert not out.exists()
        return
    rc, _, err = samtools_run("view", "-h", out)
    assert rc == 0 and err == "", err


def test_the_temporary_output_is_opened_without_truncation(tmp_path, monkeypatch):
    """ext4 flushes a file truncated to nothing when it is closed (auto_da_alloc): the temporary output,
    new and empty, is opened without O_TRUNC, and the output is still whole and in place."""
    from seqalign_cli.writers import output

    flags = []
    real = os.open
    monkeypatch.setattr(output.os, "open", lambda path, flag, *a: flags.append((path, flag)) or real(path, flag, *a))
    out = output.OutputFile(str(tmp_path / "out.tsv"))
    stream = out.open()
    stream.write(b"x" * 100000)
    out.commit()
    temp = [f for p, f in flags if p.endswith(".tmp")]
    assert temp and not any(f & os.O_TRUNC for f in temp) and temp[-1] & os.O_WRONLY  # mkstemp, then the stream
    assert (tmp_path / "out.tsv").read_bytes() == b"x" * 100000
    assert os.listdir(tmp_path) == ["out.tsv"]
