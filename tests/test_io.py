"""Readers and pairing: ``seqalign_cli.io.fastx`` and ``seqalign_cli.families.pairwise.chunks``.

The FASTA/FASTQ reader (plain, gzip, bgzip, stdin; every malformation an
``InputError`` naming file and record), and the four pairings in chunks.
"""

from __future__ import annotations

import gzip
import io
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from seqalign_cli.config import Scoring
from seqalign_cli.errors import InputError, SeqalignError, UsageError
from seqalign_cli.io.fastx import FastxReader, Record, open_binary
from seqalign_cli.families.pairwise.chunks import PairInputs, RegionFetcher, pair_chunks

from support.clidata import DATA, EX1, EX1_PAIRS, EX1_READS, GQ, GT  # noqa: F401


def records(path) -> list[Record]:
    return list(FastxReader(str(path)))


def write(path: Path, data) -> Path:
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


def ex1_chroms() -> dict[str, str]:
    chroms, name = {}, None
    for line in EX1.read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            chroms[name] = ""
        else:
            chroms[name] += line.strip()
    return chroms


# ------------------------------------------------------------- FASTA

def test_fasta_multiline_names_case_and_crlf(tmp_path):
    f = write(tmp_path / "a.fa", ">r1 some description\r\nACGT\r\nacgt\r\n\r\n>r2\tx\nNNRY\n>r3\n")
    recs = records(f)
    assert [(r.name, r.seq, r.qual) for r in recs] == [
        ("r1", b"ACGTacgt", None), ("r2", b"NNRY", None), ("r3", b"", None)]


def test_fasta_real_data_counts():
    q, t = records(GQ), records(GT)
    assert len(q) == len(t) == 200
    assert [r.name for r in q] == [str(i) for i in range(1, 201)]
    assert {len(r.seq) for r in q} == {150}
    assert all(152 <= len(r.seq) <= 277 for r in t)


def test_fasta_zero_length_records(tmp_path):
    f = write(tmp_path / "z.fa", ">a\n>b\n\n>c\nAC\n>d\n")
    assert [(r.name, r.seq) for r in records(f)] == [("a", b""), ("b", b""), ("c", b"AC"), ("d", b"")]


def test_leading_blank_lines_are_skipped(tmp_path):
    f = write(tmp_path / "b.fa", "\n\n>a\nAC\n")
    assert [(r.name, r.seq) for r in records(f)] == [("a", b"AC")]


# ------------------------------------------------------------- FASTQ

def test_fastq_real_reads_keep_qualities():
    recs = records(EX1_READS)
    assert len(recs) == 100
    lines = EX1_READS.read_text().splitlines()
    assert recs[0].name == lines[0][1:] and recs[0].seq == lines[1].encode() and recs[0].qual == lines[3].encode()
    assert all(len(r.seq) == len(r.qual) == 35 for r in recs)


def test_fastq_multiline_and_tricky_quality_lines(tmp_path):
    # quality lines that start with '@' or '+' must not be taken for headers
    f = write(tmp_path / "m.fq", "@r1 desc\nACG\nTA\n+r1 desc\n@@I\n+I\n\n@r2\nAC\n+\n+@\n")
    recs = records(f)
    assert [(r.name, r.seq, r.qual) for r in recs] == [("r1", b"ACGTA", b"@@I+I"), ("r2", b"AC", b"+@")]


def test_fastq_zero_length_records(tmp_path):
    f = write(tmp_path / "z.fq", "@e1\n\n+\n\n@a\nAC\n+\nII\n@e2\n\n+\n\n")
    assert [(r.name, r.seq, r.qual) for r in records(f)] == [("e1", b"", b""), ("a", b"AC", b"II"),
                                                            ("e2", b"", b"")]


@pytest.mark.parametrize("text, record, needles", [
    ("@r1\nACGT\n+\nIII\n", "1 (r1)", ["quality length 3", "sequence length 4"]),
    ("@r1\nAC\n+\nII\n@r2\nACGT\n+\nIIIII\n", "2 (r2)", ["quality length 5", "sequence length 4"]),
    ("@r1\nAC\n+\nII\n@r2\nACGT\nIIII\n", "2 (r2)", ["missing '+'"]),
    ("@r1\nAC\n", "1 (r1)", ["missing '+'"]),
    ("@r1\nAC\n+\nII\nr2\nAC\n+\nII\n", "2", ["expected a FASTQ header", "r2"]),
])
def test_fastq_errors_name_file_and_record(tmp_path, text, record, needles):
    f = write(tmp_path / "bad.fq", text)
    with pytest.raises(InputError) as exc:
        records(f)
    err = exc.value
    assert err.exit_code == 1 and err.path == str(f)
    assert str(err.record) == record
    msg = err.format()
    assert msg.startswith(f"{f}: record {record}: ") and "\n" not in msg
    for needle in needles:
        assert needle in msg


def test_not_fasta_or_fastq(tmp_path):
    f = write(tmp_path / "x.txt", "\nID\tvalue\n1\t2\n")
    with pytest.raises(InputError) as exc:
        records(f)
    assert exc.value.record == 1 and "ID" in str(exc.value) and str(f) in str(exc.value)
    binary = write(tmp_path / "x.bin", bytes(range(256)))
    with pytest.raises(InputError):
        records(binary)


def test_empty_file_has_no_records(tmp_path):
    assert records(write(tmp_path / "e.fa", "")) == []
    assert records(write(tmp_path / "e.fa.gz", gzip.compress(b""))) == []


# ----------------------------------------------- compression and stdin

def test_compression_detected_from_content(tmp_path):
    import pysam

    plain = gzip.decompress(GQ.read_bytes())
    want = records(GQ)
    write(tmp_path / "plain.fa", plain)
    pysam.tabix_compress(str(tmp_path / "plain.fa"), str(tmp_path / "bgzf.fa"))
    write(tmp_path / "gz_no_ext", GQ.read_bytes())
    write(tmp_path / "plain.fa.gz", plain)
    # a multi-member gzip file (like concatenated .gz files)
    write(tmp_path / "multi.fa", gzip.compress(plain[:5000]) + gzip.compress(plain[5000:]))
    for name in ("plain.fa", "bgzf.fa", "gz_no_ext", "plain.fa.gz", "multi.fa"):
        assert records(tmp_path / name) == want, name
    if shutil.which("bgzip"):
        with open(tmp_path / "tool.bgz", "wb") as fh:
            import subprocess

            subprocess.run(["bgzip", "-c", str(tmp_path / "plain.fa")], stdout=fh, check=True)
        assert records(tmp_path / "tool.bgz") == want


def test_truncated_gzip(tmp_path):
    raw = GQ.read_bytes()
    f = write(tmp_path / "cut.fa.gz", raw[: len(raw) // 2])
    with pytest.raises(InputError) as exc:
        records(f)
    assert "truncated gzip" in str(exc.value) and str(f) in str(exc.value)
    # the records before the cut were read; the count is in the message
    n = exc.value.message.split("after ")[1].split()[0]
    assert 0 < int(n) < 200


def test_corrupt_gzip(tmp_path):
    raw = bytearray(GQ.read_bytes())
    raw[len(raw) // 2] ^= 0x55
    f = write(tmp_path / "bad.fa.gz", bytes(raw))
    with pytest.raises(InputError) as exc:
        records(f)
    assert "gzip" in str(exc.value) and str(f) in str(exc.value)
    raw = bytearray(GQ.read_bytes())
    raw[-8] ^= 0x01  # CRC32 of the member
    with pytest.raises(InputError):
        records(write(tmp_path / "crc.fa.gz", bytes(raw)))


def test_missing_and_directory_inputs_are_usage_errors(tmp_path):
    with pytest.raises(UsageError) as exc:
        records(tmp_path / "nope.fa")
    assert exc.value.exit_code == 2 and "nope.fa" in str(exc.value)
    with pytest.raises(UsageError):
        records(tmp_path)


def _fake_stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("gz", [False, True])
def test_stdin(monkeypatch, gz):
    data = b">a\nACGT\n>b\nGG\n"
    _fake_stdin(monkeypatch, gzip.compress(data) if gz else data)
    assert [(r.name, r.seq) for r in FastxReader("-")] == [("a", b"ACGT"), ("b", b"GG")]


def test_stdin_errors_say_stdin(monkeypatch):
    _fake_stdin(monkeypatch, b"@r1\nAC\n+\nI\n")
    with pytest.raises(InputError) as exc:
        list(FastxReader("-"))
    assert str(exc.value).startswith("<stdin>: record 1 (r1): ")


def test_open_binary_does_not_consume_magic(tmp_path):
    f = write(tmp_path / "a.fa", ">a\nAC\n")
    with open_binary(str(f)) as fh:
        assert fh.read() == b">a\nAC\n"
    g = write(tmp_path / "a.gz", gzip.compress(b">a\nAC\n"))
    with open_binary(str(g)) as fh:
        assert fh.read() == b">a\nAC\n"


# ------------------------------------------------------------- pairing

def flat(chunks):
    return [(q.name, t.name, q.seq, t.seq) for c in chunks for q, t in zip(c.queries, c.targets)]


@pytest.mark.parametrize("size", [1, 7, 200, 100000])
def test_zip_chunks_keep_order(size):
    chunks = list(pair_chunks(PairInputs(str(GQ), str(GT), "zip", None), size))
    assert all(len(c) <= size for c in chunks)
    assert all(len(c) == size for c in chunks[:-1])
    pairs = flat(chunks)
    assert [(a, b) for a, b, _, _ in pairs] == [(str(i), str(i)) for i in range(1, 201)]


def test_zip_unequal_counts(tmp_path):
    three = write(tmp_path / "three.fa", "".join(f">t{i}\nACGT\n" for i in range(3)))
    with pytest.raises(InputError) as exc:
        flat(pair_chunks(PairInputs(str(GQ), str(three), "zip", None), 50))
    msg = str(exc.value)
    assert "200 queries" in msg and "3 targets" in msg and str(GQ) in msg and str(three) in msg
    with pytest.raises(InputError) as exc:
        flat(pair_chunks(PairInputs(str(three), str(GT), "zip", None), 50))
    msg = str(exc.value)
    assert "3 queries" in msg and "200 targets" in msg


def test_zip_empty_inputs(tmp_path, capsys):
    empty = write(tmp_path / "empty.fa", "")
    with pytest.raises(InputError) as exc:
        flat(pair_chunks(PairInputs(str(empty), str(GT), "zip", None), 50))
    assert "0 queries in" in str(exc.value) and "empty.fa" in str(exc.value)
    assert flat(pair_chunks(PairInputs(str(empty), str(empty), "zip", None), 50)) == []  # nothing: a warning
    err = capsys.readouterr().err
    assert err.startswith(f"seqalign: warning: {empty}, {empty}: no records (empty input)") and err.count("\n") == 1
    with pytest.raises(InputError) as exc:
        flat(pair_chunks(PairInputs(str(GQ), str(empty), "zip", None), 50))
    assert "empty.fa" in str(exc.value) and "0 targets" in str(exc.value)


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_cross_query_major(tmp_path, size, capsys):
    q = write(tmp_path / "q.fa", ">q1\nA\n>q2\nC\n>q3\nG\n")
    t = write(tmp_path / "t.fa", ">t1\nA\n>t2\nC\n>t3\nG\n>t4\nT\n")
    pairs = flat(pair_chunks(PairInputs(str(q), str(t), "cross", None), size))
    assert [(a, b) for a, b, _, _ in pairs] == [(f"q{i}", f"t{j}") for i in (1, 2, 3) for j in (1, 2, 3, 4)]
    empty = write(tmp_path / "e.fa", "")
    for a, b in ((q, empty), (empty, t)):  # no pair: one warning naming the empty file
        assert flat(pair_chunks(PairInputs(str(a), str(b), "cross", None), size)) == []
        assert capsys.readouterr().err == f"seqalign: warning: {empty}: no records (empty input): nothing to " \
                                          f"align, the output holds no records\n"


def test_interleaved(tmp_path):
    f = write(tmp_path / "i.fq", "@a\nAC\n+\nII\n@b\nACG\n+\nIII\n@c\n\n+\n\n@d\nT\n+\nI\n")
    pairs = flat(pair_chunks(PairInputs(str(f), None, "interleaved", None), 1))
    assert pairs == [("a", "b", b"AC", b"ACG"), ("c", "d", b"", b"T")]
    odd = write(tmp_path / "odd.fa", ">a\nA\n>b\nC\n>c\nG\n")
    with pytest.raises(InputError) as exc:
        flat(pair_chunks(PairInputs(str(odd), None, "interleaved", None), 10))
    assert "odd.fa" in str(exc.value) and "record 3 (c)" in str(exc.value)


# ------------------------------------------------------- pairs/regions

@pytest.fixture
def ex1_copy(tmp_path):
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    return ref


def test_region_fetcher_one_based_inclusive(ex1_copy):
    chroms = ex1_chroms()
    fetch = RegionFetcher(str(ex1_copy))
    assert Path(str(ex1_copy) + ".fai").exists()
    assert fetch.fetch("chr1:1-10", "w").seq == chroms["chr1"][:10].encode()
    assert fetch.fetch("chr1:101-200", "w").seq == chroms["chr1"][100:200].encode()
    assert len(fetch.fetch("chr1:101-200", "w").seq) == 100
    assert fetch.fetch("chr2:1,001-1,010", "w").seq == chroms["chr2"][1000:1010].encode()
    assert fetch.fetch("chr2:1584-1584", "w").seq == chroms["chr2"][-1:].encode()
    whole = fetch.fetch("chr1", "w")
    assert whole.name == "chr1" and whole.seq == chroms["chr1"].encode() and len(whole.seq) == 1575
    assert fetch.fetch("chr1:5-6", "w").name == "chr1:5-6"


@pytest.mark.parametrize("spec", ["chr1:0-10", "chr1:1570-1576", "chr1:20-19", "chr2:1585-1585"])
def test_region_outside(ex1_copy, spec):
    with pytest.raises(InputError) as exc:
        RegionFetcher(str(ex1_copy)).fetch(spec, "p.tsv: line 7")
    msg = str(exc.value)
    assert msg.startswith("p.tsv: line 7: ") and "outside" in msg and spec in msg


@pytest.mark.parametrize("spec", ["chr3", "chr3:1-10", "chr1:a-b", "chr1:", "", "chr1:1-2-3", "{chr1", "{chr1}x",
                                  "chr1:1.5-9", "chr1:10-k"])
def test_region_unknown_name(ex1_copy, spec):
    with pytest.raises(InputError) as exc:
        RegionFetcher(str(ex1_copy)).fetch(spec, "p.tsv: line 2")
    assert str(exc.value).startswith("p.tsv: line 2: unknown target name")


def test_region_whole_name_with_colon_is_not_split(tmp_path):
    ref = write(tmp_path / "r.fa", ">chr1:1-3\nACGTACGT\n>chr1\nTTTTTTTT\n")
    fetch = RegionFetcher(str(ref))
    assert fetch.fetch("chr1:1-3", "w").seq == b"ACGTACGT"
    assert fetch.fetch("chr1:2-4", "w").seq == b"TTT"


def test_region_fetcher_rejects_stdin_and_non_fasta(tmp_path):
    with pytest.raises(UsageError):
        RegionFetcher("-")
    with pytest.raises(UsageError):
        RegionFetcher(str(tmp_path / "missing.fa"))
    with pytest.raises(InputError) as exc:
        RegionFetcher(str(write(tmp_path / "text.txt", "ID\tvalue\n"))).fetch("ID", "w")
    assert "text.txt" in str(exc.value)


def test_region_fetcher_without_an_index(tmp_path):
    """gzip that is not bgzip, and lines of uneven length, cannot be indexed: read into memory instead."""
    gz = RegionFetcher(str(write(tmp_path / "plain.fa.gz", gzip.compress(b">a\nACGT\n>b\nGG\n"))))
    assert gz.fetch("a:2-3", "w").seq == b"CG" and gz.fetch("b", "w").seq == b"GG"
    uneven = RegionFetcher(str(write(tmp_path / "uneven.fa", ">a\nAC\nGTA\nC\n")))
    assert uneven.fetch("a:2-5", "w").seq == b"CGTA"
    assert not (tmp_path / "uneven.fa.fai").exists()
    with pytest.raises(InputError) as exc:
        RegionFetcher(str(write(tmp_path / "dup.fa", ">a\nAC\nGTA\n>a\nC\n")))
    assert "duplicate target name 'a'" in str(exc.value) and "record 2 (a)" in str(exc.value)


def test_region_forms_samtools_takes(ex1_copy):
    chroms = ex1_chroms()
    fetch = RegionFetcher(str(ex1_copy))
    c1 = chroms["chr1"].encode()
    assert fetch.fetch("chr1:1,500", "w").seq == c1[1499:]  # to the end
    assert fetch.fetch("chr1:1500-", "w").seq == c1[1499:]
    assert fetch.fetch("chr1:-20", "w").seq == c1[:20]
    assert fetch.fetch("{chr1}:5-9", "w").seq == c1[4:9]
    assert fetch.fetch("{chr1}", "w").seq == c1
    assert fetch.fetch("chr1:1k-1,001", "w").seq == c1[999:1001]
    assert fetch.fetch("chr1:1.2k-1200", "w").seq == c1[1199:1200]
    assert fetch.fetch("chr1:1500", "w").name == "chr1:1500"
    with pytest.raises(InputError, match="outside"):
        fetch.fetch("chr1:1576", "w")


def test_region_fetcher_index_it_cannot_write(tmp_path):
    """The .fai cannot be written beside the FASTA (here: a folder in its place): built in a temporary one."""
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    (tmp_path / "ex1.fa.fai").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert RegionFetcher(str(ref)).fetch("chr2:1,001-1,010", "w").seq == ex1_chroms()["chr2"][1000:1010].encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_region_letters_are_checked(tmp_path):
    ref = write(tmp_path / "r.fa", ">a\nACGTACGT\n>b\nACGTAC\nGT*AAA\n")
    fetch = RegionFetcher(str(ref))
    assert fetch.fetch("b:1-8", "w").seq == b"ACGTACGT"
    with pytest.raises(InputError) as exc:
        fetch.fetch("b:2-10", "w")
    assert str(exc.value).startswith(f"{ref}: record 2 (b): invalid sequence character '*' at position 9")


def test_pairs_file_pairing(tmp_path, ex1_copy):
    pairs = flat(pair_chunks(PairInputs(str(EX1_READS), str(ex1_copy), "pairs", str(EX1_PAIRS)), 7))
    assert len(pairs) == 100
    chroms = ex1_chroms()
    reads = {r.name: r.seq for r in records(EX1_READS)}
    lines = [line.split("\t") for line in EX1_PAIRS.read_text().splitlines() if not line.startswith("#")]
    for (qn, tn, qs, ts), (want_q, spec) in zip(pairs, lines):
        assert (qn, tn) == (want_q, spec)
        name, span = spec.rsplit(":", 1)
        start, end = (int(x) for x in span.split("-"))
        assert ts == chroms[name][start - 1:end].encode()
        assert qs == reads[qn]


def test_pairs_file_errors(tmp_path, ex1_copy):
    def run(text, query=EX1_READS):
        p = write(tmp_path / "p.tsv", text)
        return flat(pair_chunks(PairInputs(str(query), str(ex1_copy), "pairs", str(p)), 10))

    first = EX1_PAIRS.read_text().splitlines()[1].split("\t")[0]
    with pytest.raises(InputError) as exc:
        run(f"{first}\tchr1:1-10\nnobody\tchr1:1-10\n")
    assert str(exc.value).startswith("p.tsv: line 2: unknown query name 'nobody'") or \
        f"{tmp_path / 'p.tsv'}: line 2: unknown query name" in str(exc.value)
    with pytest.raises(InputError) as exc:
        run(f"# header\n{first}\tchr1:1500-1600\n")
    assert ": line 2: " in str(exc.value) and "outside" in str(exc.value)
    assert run("# only comments\n\n") == []  # no pair listed: a warning, no error
    with pytest.raises(InputError) as exc:
        run(f"{first} chr1:1-10\n")  # space, not TAB
    assert ": line 1: " in str(exc.value)
    dup = write(tmp_path / "dup.fa", ">a\nAC\n>a\nGT\n")
    with pytest.raises(InputError) as exc:
        run("a\tchr1:1-10\n", query=dup)
    assert "duplicate query name 'a'" in str(exc.value) and "dup.fa" in str(exc.value)


def test_pairs_file_from_stdin(monkeypatch, ex1_copy):
    first = EX1_PAIRS.read_text().splitlines()[1].split("\t")[0]
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{first}\tchr2:11-20\n"))
    pairs = flat(pair_chunks(PairInputs(str(EX1_READS), str(ex1_copy), "pairs", "-"), 10))
    assert [(a, b, t) for a, b, _, t in pairs] == [(first, "chr2:11-20", ex1_chroms()["chr2"][10:20].encode())]


def test_error_classes():
    assert issubclass(InputError, SeqalignError) and issubclass(UsageError, SeqalignError)
    assert InputError("x").exit_code == 1 and UsageError("x").exit_code == 2
    assert InputError("bad", path="f.fa", record=3).format() == "f.fa: record 3: bad"
    assert InputError("bad", path="f.fa").format() == "f.fa: bad"
    assert UsageError("bad").format() == "bad"


# ------------------------------------------------------- what the reader accepts

def test_letter_and_quality_rules_byte_by_byte():
    import numpy as np

    from seqalign_cli.io.validate import first_bad_letter, first_bad_quality

    accepted = set(b"ACGTUNRYSWKMBDHVXacgtunryswkmbdhvx")
    for c in range(256):
        for at in (0, 5, 20000, 40000):  # inside and across the steps the check takes
            seq = np.full(40001, ord("A"), np.uint8)
            seq[at] = c
            assert first_bad_letter(seq) == (-1 if c in accepted else at), (c, at)
            qual = np.full(40001, ord("I"), np.uint8)
            qual[at] = c
            assert first_bad_quality(qual) == (-1 if 33 <= c <= 126 else at), (c, at)


def test_first_breach_in_file_order(tmp_path):
    """Within a record the name is checked first (SAM names), then the letters, then the qualities."""
    f = write(tmp_path / "q.fq", "@r1\nACGT\n+\nIIII\n@@r2\nAXGE\n+\nI II\n@r3\nAC\n+\n\x01I\n")
    with pytest.raises(InputError) as exc:
        records(f)
    assert str(exc.value).startswith(f"{f}: record 2 (@r2): invalid sequence character 'E' at position 4")
    with pytest.raises(InputError) as exc:
        list(FastxReader(str(f), sam_names=1))
    assert str(exc.value).startswith(f"{f}: record 2 (@r2): read name begins with '@'")
    f = write(tmp_path / "q2.fq", "@r1\nACGT\n+\nIIII\n@r2\nAXGT\n+\nI II\n")
    with pytest.raises(InputError) as exc:
        records(f)
    assert str(exc.value).startswith(f"{f}: record 2 (r2): quality character ' ' (a space) at position 2")


def test_sam_names_of_every_other_record(tmp_path):
    """Interleaved pairs: only the queries (records 1, 3, 5, ...) are held to SAM's QNAME rule."""
    f = write(tmp_path / "i.fa", ">q1\nAC\n>@t1\nAC\n>q2\nAC\n>" + "t" * 300 + "\nAC\n")
    assert len(list(FastxReader(str(f), sam_names=2))) == 4
    with pytest.raises(InputError) as exc:
        list(FastxReader(str(f), sam_names=1))
    assert "record 2 (@t1)" in str(exc.value)
    chunks = list(pair_chunks(PairInputs(str(f), None, "interleaved", None, sam_scoring=Scoring()), 10))
    assert [c.q.names_list() for c in chunks] == [["q1", "q2"]]


def test_sam_score_bound_is_checked_per_pair(tmp_path):
    q = write(tmp_path / "q.fa", ">a\nACGT\n>b\n" + "A" * 200 + "\n")
    t = write(tmp_path / "t.fa", ">x\nACGT\n>y\n" + "A" * 200 + "\n")
    big = Scoring(match=6_000_000)  # 4 x 4 fits, 200 x 200 may not
    with pytest.raises(UsageError) as exc:
        list(pair_chunks(PairInputs(str(q), str(t), "zip", None, sam_scoring=big), 1))
    assert str(exc.value).startswith(f"{q}: record 2 (b): with this scoring a pair of 200 x 200 bases")
    assert len(list(pair_chunks(PairInputs(str(q), str(t), "zip", None), 1))) == 2  # TSV/PAF: no bound


def test_region_of_a_reference_with_spaces_inside_lines(tmp_path):
    """The index would count the spaces as letters: the file is read as the reader reads it instead."""
    ref = write(tmp_path / "sp.fa", ">a\nAC GT\nAC GT\n>b\nGGGG\n")
    fetch = RegionFetcher(str(ref))
    assert fetch.fetch("a:2-5", "w").seq == b"CGTA" and fetch.fetch("b", "w").seq == b"GGGG"


def test_blocks_parsed_ahead_keep_their_order_and_the_error_after_them():
    from seqalign_cli.io.ahead import Ahead

    def blocks(n, fail=False):
        yield from range(n)
        if fail:
            raise InputError("bad record 7")

    assert list(Ahead(blocks(50))) == list(range(50))
    got = []
    with pytest.raises(InputError, match="bad record 7"):
        for b in Ahead(blocks(5, fail=True)):
            got.append(b)
    assert got == list(range(5))
    ahead = Ahead(blocks(10**6))  # a consumer that stops early: the thread ends
    assert next(ahead) == 0
    ahead.close()
    ahead.thread.join(timeout=5)
    assert not ahead.thread.is_alive()


def test_batch_subset_gathers_each_pair_in_the_order_asked():
    from seqalign_cli.families.pairwise.batch import make_batch

    qs = [b"ACGT", b"", b"GGA", b"T" * 40, b"CA"]
    ts = [b"A", b"CCCC", b"", b"G" * 7, b"ACGTACGT"]
    batch = make_batch(qs, ts)
    for idx in ([4, 0, 3], [1, 1, 2], [], list(range(5))[::-1]):
        part = batch.subset(np.array(idx, np.int64))
        assert part.size == len(idx)
        for j, k in enumerate(idx):
            assert part.query(j).tolist() == batch.query(k).tolist()
            assert part.target(j).tolist() == batch.target(k).tolist()
        assert part.qlen.tolist() == [len(qs[k]) for k in idx] and not part.qlen.flags.writeable
