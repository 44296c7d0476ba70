"""A read mapper's SAM semantics for pairs: ``--strand both``, primary/secondary records in ``--cross``, ``-R``.

Oracles are independent of the code under test: the reverse complement is
spelled here from its own table and aligned by the forward engine (the
``backend`` fixture), primaries are chosen here from the TSV rows of a
forward run, and SAM/BAM are read back and checked with pysam (``calmd``
against the targets, ``flagstat``).
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from click.testing import CliRunner

from seqalign_cli.cli import cli, main
from seqalign_cli.config import AlignConfig
from seqalign_cli.io.block import Record, RecordBlock
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.families.pairwise.chunks_mapping import reverse_complement

from support.clidata import write_fasta
from support.generators import decorate, mutate, random_dna
from support.oracles import parse_cigar

pysam = pytest.importorskip("pysam")

#: the complement of each accepted letter, case kept (the IUPAC pairs; U as A)
PARTNER = dict(zip("ACGTURYKMSWBDHVNX", "TGCAAYRMKSWVHDBNX"))
PARTNER.update({k.lower(): v.lower() for k, v in PARTNER.items()})
TSV_COLS = ["qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm"]


def revcomp(seq: str) -> str:
    return "".join(PARTNER[c] for c in reversed(seq))


def sam_seq(seq: str) -> str:
    """A read's letters as SAM's SEQ shows them."""
    return seq.upper().replace("U", "T")


def run(args, backend="cpu") -> str:
    res = CliRunner().invoke(cli, ["pair", "-q", "--backend", backend, *[str(a) for a in args]])
    assert res.exit_code == 0, (res.output, res.exception)
    return res.stdout


def tsv(args, backend="cpu") -> list[dict]:
    """The rows of a TSV run; a ``strand`` column where the header has one."""
    lines = run([*args, "--format", "tsv"], backend).splitlines()
    cols = lines[0][1:].split("\t")
    assert cols[:len(TSV_COLS)] == TSV_COLS
    rows = []
    for line in lines[1:]:
        row = dict(zip(cols, line.split("\t")))
        for k in ("qlen", "qstart", "qend", "tlen", "tstart", "tend", "score"):
            row[k] = int(row[k]) if row[k] != "*" else row[k]
        rows.append(row)
    return rows


def sam_records(path):
    with pysam.AlignmentFile(str(path), check_sq=False) as fh:
        return fh.header.to_dict(), list(fh.fetch(until_eof=True))


def calmd_unchanged(sam, ref):
    """``samtools calmd`` (pysam's) recomputes MD and NM of every record from ``ref``: nothing changes, and
    it skips no record and warns of nothing."""
    body = [line for line in sam.read_text().splitlines() if not line.startswith("@")]
    redone = pysam.calmd(str(sam), str(ref))
    messages = pysam.calmd.get_messages() or ""
    messages = "\n".join(messages) if isinstance(messages, list) else str(messages)
    assert not re.search(r"different|skip|fail|error|warn", messages, re.I), messages
    assert [line for line in redone.splitlines() if not line.startswith("@")] == body


def mapped(row) -> bool:
    """Whether a TSV row is a mapped SAM record: a target and at least one aligned (= or X) base."""
    return row["tlen"] > 0 and any(op in "=X" for _, op in parse_cigar(row["cigar"]))


def reads_and_windows(seed: int, n: int, fastq: bool = False):
    """Reads taken from reference windows, about half of them from the reverse strand, and the windows."""
    rng = random.Random(seed)
    queries, targets = [], []
    for k in range(n):
        window = random_dna(rng, rng.randint(40, 90))
        a = rng.randint(0, 10)
        read = decorate(rng, mutate(rng, window[a:a + rng.randint(20, 60)], 0.08)) or "ACGT"
        if k % 2:
            read = revcomp(read)
        qual = "".join(chr(33 + rng.randint(0, 40)) for _ in read) if fastq else None
        queries.append((f"r{k}", read, qual))
        targets.append((f"w{k}", window))
    return queries, targets


def write_reads(path, recs):
    if recs[0][2] is None:
        return write_fasta(path, recs)
    path.write_text("".join(f"@{r[0]}\n{r[1]}\n+\n{r[2]}\n" for r in recs))
    return path


def strand_oracle(backend, queries, targets, mode):
    """Per pair: the forward engine's results for the read as given and for its reverse complement (ours)."""
    cfg = AlignConfig(mode=mode)
    fwd = backend.align(make_batch([q[1].encode() for q in queries], [t[1].encode() for t in targets]), cfg)
    rev = backend.align(make_batch([revcomp(q[1]).encode() for q in queries], [t[1].encode() for t in targets]),
                        cfg)
    return fwd, rev


# ----------------------------------------------------------------- the reverse complement


def test_reverse_complement_of_a_block():
    recs = [Record("a", b"ACGTURYKMSWBDHVNXacgturykmswbdhvnx", b"".join(bytes([33 + k]) for k in range(34))),
            Record("b", b"", b""), Record("c", b"ggA", b"!#%")]
    block = RecordBlock.from_records(recs)
    out = reverse_complement(block, np.array([1, 1, 0], np.uint8))
    got = out.records()
    assert got[0].seq.decode() == revcomp(recs[0].seq.decode())
    assert got[0].qual == recs[0].qual[::-1]
    assert got[1].seq == b"" and got[2].seq == b"ggA" and got[2].qual == b"!#%"
    assert [r.name for r in got] == ["a", "b", "c"]


# ----------------------------------------------------------------- --strand both


@pytest.mark.parametrize("mode", ["global", "semi-global", "glocal", "local"])
def test_both_strands_keep_the_better(backend, tmp_path, mode):
    queries, targets = reads_and_windows(7, 24)
    q, t = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "t.fa", targets)
    rows = tsv(["--mode", mode, "--strand", "both", q, t], backend.name)
    fwd, rev = strand_oracle(backend, queries, targets, mode)
    fc, rc = fwd.cigars(), rev.cigars()
    assert len(rows) == len(queries)
    for k, row in enumerate(rows):
        better = rev if rev.score[k] > fwd.score[k] else fwd  # a tie keeps the forward strand
        assert row["strand"] == ("-" if better is rev else "+")
        assert row["score"] == max(fwd.score[k], rev.score[k])
        assert (row["qstart"], row["qend"], row["tstart"], row["tend"]) == tuple(
            int(getattr(better, f)[k]) for f in ("qstart", "qend", "tstart", "tend"))
        assert row["cigar"] == (rc if better is rev else fc)[k]
    assert {r["strand"] for r in rows} == {"+", "-"}  # both strands met
    # score only: the same scores and strands
    fast = tsv(["--mode", mode, "--strand", "both", "--score-only", q, t], backend.name)
    assert [(r["score"], r["strand"]) for r in fast] == [(r["score"], r["strand"]) for r in rows]
    # --strand forward is the default, and scores the reads as given
    plain = run(["--mode", mode, q, t], backend.name)
    assert run(["--mode", mode, "--strand", "forward", q, t], backend.name) == plain
    assert [int(line.split("\t")[8]) for line in plain.splitlines()[1:]] == fwd.score.tolist()


def test_ties_keep_the_forward_strand(backend, tmp_path):
    palindromes = ["ACGT", "GAATTC", "ACGTTAACGT", "TTAGCGCTAA"]  # each its own reverse complement
    queries = [(f"p{k}", s, None) for k, s in enumerate(palindromes)] + [("n0", "NNNN", None)]
    targets = [("t0", "ACGT"), ("t1", "CCGAATTCGG"), ("t2", "ACGTTTACGT"), ("t3", "GGTTAGCGCTAAGG"),
               ("t4", "ACGT")]
    assert all(revcomp(s) == s for s in palindromes)
    q, t = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "t.fa", targets)
    for mode in ("global", "local"):
        rows = tsv(["--mode", mode, "--strand", "both", q, t], backend.name)
        assert [r["strand"] for r in rows] == ["+"] * len(queries)
        _, recs = sam_records_of(tmp_path, ["--mode", mode, "--strand", "both", q, t], backend.name)
        assert all(not rec.is_reverse for rec in recs)


def sam_records_of(tmp_path, args, backend="cpu", name="out.sam"):
    out = tmp_path / name
    run([*args, "-o", out], backend)
    return sam_records(out)


@pytest.mark.parametrize("fmt", ["sam", "bam"])
def test_reverse_records_in_sam_and_bam(backend, tmp_path, fmt):
    queries, targets = reads_and_windows(11, 16, fastq=True)
    q, t = write_reads(tmp_path / "q.fq", queries), write_fasta(tmp_path / "t.fa", targets)
    args = ["--mode", "glocal", "--strand", "both", "-R", r"@RG\tID:grp1\tSM:sample\tPL:ILLUMINA", q, t]
    rows = tsv(args, backend.name)
    header, recs = sam_records_of(tmp_path, args, backend.name, f"out.{fmt}")
    assert header["RG"] == [{"ID": "grp1", "SM": "sample", "PL": "ILLUMINA"}]
    assert len(recs) == len(rows) == len(queries)
    for rec, row, (name, read, qual) in zip(recs, rows, queries):
        reverse = row["strand"] == "-"
        assert rec.query_name == name and rec.get_tag("RG") == "grp1"
        assert rec.get_tag("AS") == row["score"]
        assert rec.flag == (16 if reverse else 0) and mapped(row)
        assert rec.query_sequence == sam_seq(revcomp(read) if reverse else read)
        assert list(rec.query_qualities) == [ord(c) - 33 for c in (qual[::-1] if reverse else qual)]
        clip_l = f"{row['qstart']}S" if row["qstart"] else ""
        clip_r = f"{row['qlen'] - row['qend']}S" if row["qend"] < row["qlen"] else ""
        assert rec.cigarstring == clip_l + row["cigar"] + clip_r
        assert rec.reference_name == row["tname"] and rec.reference_start == row["tstart"]
    assert any(rec.is_reverse for rec in recs) and not all(rec.is_reverse for rec in recs)
    # calmd recomputes MD and NM from the reference: nothing changes
    ref = write_fasta(tmp_path / "ref.fa", targets)
    sam = tmp_path / "out.sam"
    if fmt == "bam":
        pysam.view("-h", "-o", str(sam), str(tmp_path / "out.bam"), catch_stdout=False)
    calmd_unchanged(sam, ref)


def test_paf_strand_and_query_coordinates(backend, tmp_path):
    queries, targets = reads_and_windows(13, 16)
    q, t = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "t.fa", targets)
    args = ["--mode", "local", "--strand", "both", q, t]
    rows = tsv(args, backend.name)
    paf = [line.split("\t") for line in run([*args, "--format", "paf"], backend.name).splitlines()]
    for f, row in zip(paf, rows):
        if row["cigar"] == "*":
            assert f[4] == "*"
            continue
        qlen = row["qlen"]
        span = (qlen - row["qend"], qlen - row["qstart"]) if row["strand"] == "-" else (row["qstart"], row["qend"])
        assert (int(f[2]), int(f[3])) == span  # PAF: query coordinates on the read as given
        assert f[4] == row["strand"]
        assert (int(f[7]), int(f[8])) == (row["tstart"], row["tend"])
        assert f"cg:Z:{row['cigar']}" in f and not any(x.startswith("tp:A:") for x in f)
    assert any(f[4] == "-" for f in paf)


@pytest.mark.parametrize("pairing", ["interleaved", "pairs"])
def test_both_strands_under_every_pairing(tmp_path, pairing):
    queries, targets = reads_and_windows(17, 10)
    q, t = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "t.fa", targets)
    zipped = run(["--strand", "both", "--mode", "glocal", q, t])
    if pairing == "interleaved":
        both = write_fasta(tmp_path / "i.fa", [r for pair in zip(queries, targets) for r in pair])
        args = ["--interleaved", both]
    else:
        listed = tmp_path / "p.tsv"
        listed.write_text("".join(f"{a[0]}\t{b[0]}\n" for a, b in zip(queries, targets)))
        args = ["--pairs", listed, q, t]
    assert run(["--strand", "both", "--mode", "glocal", *args]) == zipped
    assert "\t-\n" in zipped


# ----------------------------------------------------------------- --cross: primary and secondary


def cross_inputs(tmp_path):
    rng = random.Random(5)
    refs = [random_dna(rng, 60) for _ in range(3)]
    targets = [("ta", refs[0]), ("tb", refs[1]), ("tc", refs[0]), ("td", refs[2]), ("te", "")]
    queries = [("q0", mutate(rng, refs[1][10:50], 0.05)),  # best: tb
               ("q1", refs[0][5:45]),  # ta and tc equal: the first, ta
               ("q2", "N" * 30),  # aligns nowhere (local): its first record is the primary
               ("q3", revcomp(refs[2][8:52])),  # td, on the reverse strand
               ("q4", mutate(rng, refs[2][0:40], 0.1))]
    # calmd's reference: the targets with letters (an empty record ends a FASTA index early)
    write_fasta(tmp_path / "ref.fa", [r for r in targets if r[1]])
    return write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "t.fa", targets), len(targets)


def primaries(rows, per_query):
    """The index of each query's primary from its TSV rows: the best score among mapped rows, the first on a
    tie; the first row where none is mapped."""
    out = []
    for a in range(0, len(rows), per_query):
        group = rows[a:a + per_query]
        live = [k for k, r in enumerate(group) if mapped(r)]
        out.append(a + (max(live, key=lambda k: (group[k]["score"], -k)) if live else 0))
    return out


@pytest.mark.parametrize("strand", ["forward", "both"])
def test_cross_primary_records(backend, tmp_path, strand):
    q, t, nt = cross_inputs(tmp_path)
    args = ["--cross", "--mode", "local", "--strand", strand, q, t]
    rows = tsv(args, backend.name)
    best = primaries(rows, nt)
    assert [rows[k]["tname"] for k in best][:2] == ["tb", "ta"] and best[2] == 2 * nt
    for size in (1, 7, 1000):  # a query's records never span chunks
        assert tsv([*args, "--batch-size", size], backend.name) == rows
    for fmt in ("sam", "bam"):
        out = tmp_path / f"cross.{fmt}"
        run([*args, "-o", out], backend.name)
        _, recs = sam_records(out)
        assert len(recs) == len(rows)
        for k, (rec, row) in enumerate(zip(recs, rows)):
            assert rec.is_secondary == (k not in best)
            assert rec.is_unmapped == (not mapped(row))
            assert rec.is_reverse == (row.get("strand") == "-")
            assert rec.query_sequence  # secondary records keep the read
        stats = pysam.flagstat(str(out))
        assert f"{len(best)} + 0 primary\n" in stats
    paf = run([*args, "--format", "paf"], backend.name).splitlines()
    assert [k for k, line in enumerate(paf) if line.endswith("\ttp:A:P")] == best
    assert all(line.endswith(("\ttp:A:P", "\ttp:A:S")) for line in paf)


def test_cross_calmd_and_read_group(tmp_path):
    q, t, _ = cross_inputs(tmp_path)
    out = tmp_path / "c.sam"
    run(["--cross", "--mode", "local", "--strand", "both", "-R", r"@RG\tID:x1", q, t, "-o", out])
    body = [line for line in out.read_text().splitlines() if not line.startswith("@")]
    assert all(line.endswith("\tRG:Z:x1") for line in body)
    assert "@RG\tID:x1" in out.read_text().splitlines()
    calmd_unchanged(out, tmp_path / "ref.fa")


# ----------------------------------------------------------------- -R


def test_read_group_left_out_of_tsv_and_paf(tmp_path):
    queries, targets = reads_and_windows(3, 4)
    q, t = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "t.fa", targets)
    for fmt in ("tsv", "paf"):
        assert run([q, t, "--format", fmt, "-R", "@RG\tID:z"]) == run([q, t, "--format", fmt])


@pytest.mark.parametrize("line, needle", [
    ("ID:x", "@RG"),
    (r"@SQ\tID:x", "@RG"),
    ("@RG", "@RG"),
    (r"@RG\tSM:y", "ID"),
    (r"@RG\tID:a\tID:b", "ID"),
    (r"@RG\tID:a\tSM", "TAG:VALUE"),
    ("@RG\tID:a\nSM:b", "TAG:VALUE"),
])
def test_bad_read_group_is_a_usage_error(tmp_path, capsys, line, needle):
    missing = tmp_path / "nothing.fa"  # never read: the error comes before any work
    with pytest.raises(SystemExit) as stop:
        main(["pair", "-R", line, str(missing), str(missing), "-o", str(tmp_path / "x.sam")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("seqalign: error: -R/--read-group") and needle in err[0], err
    assert not (tmp_path / "x.sam").exists()
