"""SAM/BAM in bulk and streamed: the compiled formatters against the record-by-record writer, BAM against htslib.

* ``format_sam`` writes, byte for byte, what the record-by-record writer
  (``legacy_sam``, kept here as the reference) wrote, on real pairs in every
  mode, with and without ``--cigar-m``, FASTQ qualities, N/IUPAC/lower case/U
  letters, empty sequences, unmapped pairs, and random pairs (hypothesis);
* ``encode_bam`` writes the very bytes htslib (through pysam) makes of those
  SAM lines, a CIGAR of more than 65535 ops included (the CG tag);
* the writer streams: the header and a chunk's records are in the file once
  ``write`` returns, before ``close``;
* the references are read first in every pairing (zip, cross, interleaved,
  pairs with and without a ``.fai``), and held back only where the targets
  come from stdin; either way the output is the same;
* BGZF blocks follow the specification (BC field, at most 64 KiB, EOF block);
* formatting takes a few microseconds a record (the record-by-record writer
  took 27-40).
"""

from __future__ import annotations

import gzip
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import types
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig
from seqalign_cli.families.pairwise.formats_sam_bulk import encode_bam, format_sam
from seqalign_cli.families.pairwise.formats import format_tsv
from seqalign_cli.io.block import Record, RecordBlock
from seqalign_cli.families.pairwise.inputs import PairInputs
from seqalign_cli.families.pairwise.chunks import PairChunk, file_chunks, zip_chunks
from seqalign_cli.results import CIGAR_LETTERS
from seqalign_cli.families.pairwise.results import Alignments
from seqalign_cli.writers import bgzf
from seqalign_cli.families.pairwise import formats_sam as S
from seqalign_cli.writers.output import OutputFile

from support.clidata import EX1, EX1_PAIRS, EX1_READS, GQ, GT, read_fastx, write_fasta
from support.samtools_checks import check_with_samtools

pysam = pytest.importorskip("pysam")
MODES = ("global", "semi-global", "glocal", "local")
ENGINE = CpuPairwise(1)


# ----------------------------------------------------------------- helpers

def legacy_sam(chunk, res, cigar_m=False) -> bytes:
    """The records as the record-by-record writer wrote them (its ``write``, verbatim): the reference."""
    cigars = res.cigars(cigar_m)
    lines = []
    for k, (q, t) in enumerate(zip(chunk.queries, chunk.targets)):
        seq = q.seq.decode("ascii", "replace").upper().replace("U", "T") or "*"
        qual = q.qual.decode("ascii", "replace") if q.qual else "*"
        score = int(res.score[k])
        matches, mism, ins, dels = (int(x) for x in res.stats[k])
        if len(t.seq) == 0 or res.cigar.count[k] == 0 or matches + mism == 0:
            lines.append(f"{q.name}\t{S.UNMAPPED}\t*\t0\t0\t*\t*\t0\t0\t{seq}\t{qual}\tAS:i:{score}\n")
            continue
        qs, qe = int(res.qstart[k]), int(res.qend[k])
        clip_l = f"{qs}S" if qs > 0 else ""
        clip_r = f"{len(q.seq) - qe}S" if qe < len(q.seq) else ""
        ops, lens = res.cigar.runs(k)
        md = S.md_tag(ops.tolist(), lens.tolist(), t.seq, int(res.tstart[k]))
        lines.append(f"{q.name}\t0\t{t.name}\t{int(res.tstart[k]) + 1}\t255\t{clip_l}{cigars[k]}{clip_r}"
                     f"\t*\t0\t0\t{seq}\t{qual}\tAS:i:{score}\tNM:i:{mism + ins + dels}\tMD:Z:{md}\n")
    return "".join(lines).encode()


def bulk_sam(chunk, res, cigar_m=False) -> bytes:
    q = chunk.q
    qual = q.qual if q.qual is not None else S._NO_QUAL
    return format_sam(q.view(), qual, q.qual is not None, chunk.t.view(), res.view(), res.cigar.view(),
                      CIGAR_LETTERS, cigar_m, S.SEQ_LETTERS, S.QUAL_LETTERS, S.REF_LETTERS, S.NO_TAGS).tobytes()


def bulk_bam(chunk, res, ids, cigar_m=False) -> bytes:
    q = chunk.q
    qual = q.qual if q.qual is not None else S._NO_QUAL
    return encode_bam(q.view(), qual, q.qual is not None, chunk.t.view(), res.view(), res.cigar.view(), cigar_m,
                      ids, S.NT16, S.QUAL_VALUES, S.REF_LETTERS, S.NO_TAGS).tobytes()


def aligned(chunks, mode: str):
    cfg = AlignConfig(mode=mode)
    return [(c, ENGINE.align(c.batch(), cfg)) for c in chunks]


def chunk_of(queries, targets) -> PairChunk:
    """A chunk of (name, letters[, qualities]) queries and (name, letters) targets."""
    def block(recs):
        return RecordBlock.from_records([Record(r[0], r[1].encode(), r[2].encode() if len(r) > 2 and r[2] else None)
                                         for r in recs])

    return PairChunk(block(queries), block(targets))


def references_of(chunks) -> tuple[S.References, list[np.ndarray]]:
    """The references of the chunks' targets as the writer registers them, and each chunk's ids."""
    refs = S.References()
    ids = []
    for chunk, _ in chunks:
        t = chunk.t
        got, bad = refs.add(t.names, t.name_off, np.diff(t.seq_off), t.seq, t.seq_off)
        assert bad == -1
        ids.append(got)
    return refs, ids


def htslib_records(header_text: bytes, sam_text: bytes, folder) -> bytes:
    """The BAM records htslib makes of SAM lines (pysam: parse each line, write a BAM, read its bytes)."""
    header = pysam.AlignmentHeader.from_text(header_text.decode())
    path = str(folder / "htslib.bam")
    with pysam.AlignmentFile(path, "wb", header=header) as bam:
        for line in sam_text.decode().splitlines():
            bam.write(pysam.AlignedSegment.fromstring(line, header))
    return bam_body(gzip.decompress(open(path, "rb").read()))[1]


def bam_body(data: bytes) -> tuple[bytes, bytes, list[tuple[str, int]]]:
    """(header text, the records' bytes, the references) of uncompressed BAM."""
    assert data[:4] == b"BAM\1"
    (l_text,) = struct.unpack("<i", data[4:8])
    text = data[8:8 + l_text]
    at = 8 + l_text
    (n_ref,) = struct.unpack("<i", data[at:at + 4])
    at += 4
    refs = []
    for _ in range(n_ref):
        (l_name,) = struct.unpack("<i", data[at:at + 4])
        name = data[at + 4:at + 3 + l_name].decode()
        (length,) = struct.unpack("<i", data[at + 4 + l_name:at + 8 + l_name])
        refs.append((name, length))
        at += 8 + l_name
    return text, data[at:], refs


def bgzf_blocks(data: bytes) -> list[tuple[bytes, bytes]]:
    """Every block of a BGZF file as (its bytes, its data), checking its header, size field, CRC and length."""
    blocks = []
    at = 0
    while at < len(data):
        head = data[at:at + 18]
        assert head[:4] == b"\x1f\x8b\x08\x04" and head[10:16] == b"\x06\x00BC\x02\x00", head
        size = struct.unpack("<H", head[16:18])[0] + 1
        assert size <= 65536
        block = data[at:at + size]
        payload = zlib.decompress(block[18:-8], wbits=-15)
        crc, isize = struct.unpack("<II", block[-8:])
        assert crc == zlib.crc32(payload) and isize == len(payload) <= bgzf.BLOCK
        blocks.append((block, payload))
        at += size
    return blocks


def replicate(chunk, res, times: int):
    """The pairs of a chunk ``times`` over, with their results."""
    n = len(chunk)
    idx = np.tile(np.arange(n, dtype=np.int64), times)
    big = PairChunk(chunk.q.take(idx), chunk.t.take(idx))
    out = Alignments.allocate(np.diff(big.q.seq_off), np.diff(big.t.seq_off), True)
    for r in range(times):
        out.take(np.arange(r * n, (r + 1) * n), res)
    return big, out


EDGE_Q = [("q1", "ACGTNACGTAACGTTTGA"), ("q2", "acgtacgtacgtacgatc"), ("q3", "ACGUUGCAUGCAAGT"),
          ("q4", "RYKMACGTSWBDHVACGT"), ("q5", "ACNNGTACGT"), ("q6", "TTTTTTTT"), ("q7", ""),
          ("q8", "ACGTACGTACXNGT"), ("q9", "ACGT")]
EDGE_T = [("t1", "ACGTAACGTAACGTTAGA"), ("t2", "ACGTACGTACGTACGATC"), ("t3", "acguugcaugcaagt"),
          ("t4", "RYKMACGTSWBDHVACGT"), ("t5", "ACGTACGT"), ("t6", "GGGGGGGG"), ("t7", "ACGT"),
          ("t8", "ACGTACGTACGT"), ("t9", "")]


def real_chunks(mode: str):
    """GASAL2 pairs in chunks of 64, FASTQ reads against regions (pairs file), letters at the edges.

    The reference is a copy in a temporary folder: its index is built beside it, not in tests/data."""
    with tempfile.TemporaryDirectory() as folder:
        ref = shutil.copy(EX1, folder)
        ex1 = list(file_chunks(str(EX1_PAIRS), str(EX1_READS), ref, 40))
    return (aligned(zip_chunks(str(GQ), str(GT), 64), mode) + aligned(ex1, mode)
            + aligned([chunk_of(EDGE_Q, EDGE_T)], mode))


# ----------------------------------------------------------------- SAM text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cigar_m", [False, True])
def test_bulk_sam_is_the_record_by_record_output(mode, cigar_m):
    chunks = real_chunks(mode)
    assert any(c.q.qual is not None for c, _ in chunks)
    for chunk, res in chunks:
        assert bulk_sam(chunk, res, cigar_m) == legacy_sam(chunk, res, cigar_m)


_LETTERS = "ACGTNacgtnRYKMSWBDHVUuX"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(st.text(_LETTERS, max_size=40), st.text(_LETTERS, max_size=40)),
                      min_size=1, max_size=12),
       mode=st.sampled_from(MODES), cigar_m=st.booleans(), fastq=st.booleans())
def test_bulk_sam_on_random_pairs(pairs, mode, cigar_m, fastq):
    queries = [(f"r{k}", q, "".join(chr(33 + (i * 7 + k) % 60) for i in range(len(q))) if fastq else None)
               for k, (q, _) in enumerate(pairs)]
    targets = [(f"t{k}", t) for k, (_, t) in enumerate(pairs)]
    ((chunk, res),) = aligned([chunk_of(queries, targets)], mode)
    assert bulk_sam(chunk, res, cigar_m) == legacy_sam(chunk, res, cigar_m)


# ----------------------------------------------------------------- BAM


@pytest.mark.parametrize("mode", ["global", "local"])
@pytest.mark.parametrize("cigar_m", [False, True])
def test_bam_records_are_htslibs(tmp_path, mode, cigar_m):
    chunks = real_chunks(mode)
    refs, ids = references_of(chunks)
    header = b"@HD\tVN:1.6\tSO:unsorted\n" + refs.sq_lines()
    for (chunk, res), chunk_ids in zip(chunks, ids):
        assert bulk_bam(chunk, res, chunk_ids, cigar_m) == htslib_records(header, bulk_sam(chunk, res, cigar_m),
                                                                          tmp_path)


def test_cigar_of_more_than_65535_ops_goes_to_the_cg_tag(tmp_path):
    n = 70_000  # = X = X ...: one run a base
    chunk = chunk_of([("long", "AC" * (n // 2) + "TTT", "I" * (n + 3))], [("ref", "GG" + "AG" * (n // 2))])
    res = Alignments.allocate(np.array([n + 3]), np.array([n + 2]), True)
    res.cigar.op[:n] = np.tile([0, 1], n // 2)
    res.cigar.length[:n] = 1
    res.cigar.count[0] = n
    res.score[0], res.qstart[0], res.qend[0], res.tstart[0], res.tend[0] = 1, 0, n, 2, n + 2
    res.stats[0] = (n // 2, n // 2, 0, 0)
    sam_text = bulk_sam(chunk, res)
    assert sam_text == legacy_sam(chunk, res)
    header = b"@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:ref\tLN:70002\n"
    record = bulk_bam(chunk, res, np.zeros(1, np.int64))
    assert record == htslib_records(header, sam_text, tmp_path)
    assert struct.unpack("<H", record[16:18])[0] == 2  # two placeholder ops, the CIGAR in CG:B,I
    with pysam.AlignmentFile(str(tmp_path / "htslib.bam"), check_sq=False) as fh:
        (rec,) = list(fh)
        assert len(rec.cigartuples) == n + 1 and rec.reference_end == n + 2


# ----------------------------------------------------------------- references


def test_references_table():
    refs = S.References()
    names = [f"chr{k}".encode() for k in range(5000)]
    seqs = [b"ACGT"[k % 4:] * (k % 7) for k in range(5000)]  # every seventh empty: not a reference
    block = RecordBlock.from_records([Record(n.decode(), x) for n, x in zip(names, seqs)])
    lengths = np.diff(block.seq_off)
    ids, bad = refs.add(block.names, block.name_off, lengths, block.seq, block.seq_off)
    assert bad == -1 and refs.n == sum(1 for x in lengths if x)
    assert (ids[lengths == 0] == -1).all() and (ids[lengths > 0] == np.arange(refs.n)).all()
    # again: the same ids, nothing new
    again, bad = refs.add(block.names, block.name_off, lengths, block.seq, block.seq_off)
    assert bad == -1 and (again == ids).all() and refs.n == len(set(ids[ids >= 0]))
    # one name with other letters: a conflict at its record when repeats are compared; another length always
    other = block.seq.copy()
    other[block.seq_off[4]] = ord("T")
    assert refs.add(block.names, block.name_off, lengths, other, block.seq_off)[1] == 4
    assert refs.add(block.names, block.name_off, lengths, other, block.seq_off, check_repeats=False)[1] == -1
    longer = lengths.copy()
    longer[5] += 1
    assert refs.add(block.names, block.name_off, longer, block.seq, block.seq_off, check_repeats=False)[1] == 5
    lines = refs.sq_lines().decode().splitlines()
    assert lines[:2] == [f"@SQ\tSN:chr{k}\tLN:{lengths[k]}" for k in (1, 2)] and len(lines) == refs.n
    # a table holding the first references in the same order is a start of this one
    part = S.References()
    part.add(block.names, block.name_off[:101], lengths[:100], block.seq, block.seq_off[:101])
    assert refs.starts(part) and refs.starts(part, 50)
    swapped = S.References()
    swapped.add(np.frombuffer(b"chr2chr1", np.uint8), np.array([0, 4, 8]), np.array([2, 1]), block.seq,
                np.array([0, 0, 0]))
    assert not refs.starts(swapped)


def test_pairs_references_from_the_index_and_without(tmp_path):
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    specs = ["chr1", "chr2:101-200", "chr1:1,001-1,100", "chr2:1500", "chr1:-50", "{chr2}:11-20", "chr1:5-4"]
    lengths = S._sequence_lengths(str(ref))  # no .fai: read through
    assert lengths == {n: len(s) for n, s, _ in read_fastx(EX1)}
    got = [S._spec_length(s, lengths) for s in specs]
    assert got == [1575, 100, 100, 1584 - 1500 + 1, 50, 10, None]
    pysam.faidx(str(ref))
    assert S._fai_lengths(str(ref)) == lengths
    # an index still being written (its last sequence ends before the file does) is not used
    fai = ref.with_suffix(".fa.fai")
    fai.write_text(fai.read_text().splitlines()[0] + "\n")
    assert S._fai_lengths(str(ref)) is None
    assert S._sequence_lengths(str(ref)) == lengths


# ----------------------------------------------------------------- streaming


def writer_for(path, fmt, inputs, threads=1):
    ctx = types.SimpleNamespace(out=OutputFile(str(path)), command_line="seqalign test", traceback=True,
                                cigar_m=False, inputs=inputs, threads=threads)
    return (S.BamWriter if fmt == "bam" else S.SamWriter)(ctx)


@pytest.mark.parametrize("fmt", ["sam", "bam", "sam.gz"])
def test_records_are_written_chunk_by_chunk(tmp_path, fmt):
    chunks = aligned(zip_chunks(str(GQ), str(GT), 50), "local")
    out = tmp_path / f"s.{fmt}"
    writer = writer_for(out, fmt, PairInputs(str(GQ), str(GT)), threads=2)
    writer.scan.join()  # the references read: nothing is held back from here on
    seen = []
    for chunk, res in chunks:
        writer.write(chunk, res)
        writer.sink.flush()
        data = open(writer.out.tmp_path, "rb").read()
        if fmt != "sam":
            data = b"".join(p for _, p in bgzf_blocks(data))
        if fmt == "bam":
            text, body, refs = bam_body(data)
            assert len(refs) == 200
            seen.append(body)
        else:
            assert data.startswith(b"@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:1\tLN:")
            seen.append(data)
        assert len(seen) < 2 or len(seen[-1]) > len(seen[-2])  # this chunk is out, before close
    writer.close()
    assert not os.path.exists(str(out) + ".tmp") and out.exists()
    _, recs = read_alignments(out)
    assert len(recs) == 200


@pytest.mark.parametrize("fmt", ["sam", "bam"])
def test_chunks_before_the_references_are_held_then_streamed(tmp_path, monkeypatch, fmt):
    """Chunks that come while the references are still being read wait in a temporary file; once they are
    read, the header, those chunks and every later one go out in order. Without a second read (stdin),
    every chunk waits for the end."""
    import threading

    chunks = aligned(zip_chunks(str(GQ), str(GT), 50), "local")
    gate = threading.Event()
    real = S.reference_batches

    def slow(inputs):
        source = real(inputs)
        gate.wait(60)
        yield from source

    monkeypatch.setattr(S, "reference_batches", lambda inputs: None if inputs is None else slow(inputs))
    out = tmp_path / f"held.{fmt}"
    writer = writer_for(out, fmt, PairInputs(str(GQ), str(GT)))
    writer.write(*chunks[0])
    assert writer.sink is None and writer.spool is not None and writer.out.tmp_path is None  # nothing out yet
    gate.set()
    writer.scan.join()
    writer.write(*chunks[1])
    assert writer.sink is not None and writer.spool is None
    for chunk, res in chunks[2:]:
        writer.write(chunk, res)
    writer.close()
    held = tmp_path / f"stdin.{fmt}"
    writer = writer_for(held, fmt, None)  # nothing to read twice
    for chunk, res in chunks:
        writer.write(chunk, res)
        assert writer.sink is None
    writer.close()
    (ha, ra), (hb, rb) = read_alignments(out), read_alignments(held)
    assert ra == rb and ha["SQ"] == hb["SQ"] and len(ra) == 200 and len(ha["SQ"]) == 200


def read_alignments(path):
    with pysam.AlignmentFile(str(path), check_sq=False) as fh:
        return fh.header.to_dict(), [r.to_string() for r in fh.fetch(until_eof=True)]


def run(args, **kw):
    proc = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", *map(str, args)],
                          capture_output=True, timeout=300, **kw)
    return proc


@pytest.mark.parametrize("fmt", ["sam", "bam"])
def test_every_pairing_streams_and_matches_stdin(tmp_path, fmt):
    """zip, cross, interleaved and pairs read the references first; a stdin target holds the records back;
    the outputs are the same (but for @PG's command line)."""
    t5 = write_fasta(tmp_path / "t5.fa", read_fastx(GT)[:5])
    inter = write_fasta(tmp_path / "inter.fa", [r for pair in zip(read_fastx(GQ), read_fastx(GT)) for r in pair])
    ref = tmp_path / "ex1.fa"
    shutil.copy(EX1, ref)
    cases = {
        "zip": ([GQ, GT], [GQ, "-"], GT),
        "cross": (["--cross", GQ, t5], ["--cross", GQ, "-"], t5),
        "interleaved": (["--interleaved", inter], ["--interleaved", "-"], inter),
        "pairs": (["--pairs", EX1_PAIRS, EX1_READS, ref], ["--pairs", "-", EX1_READS, ref], EX1_PAIRS),
    }
    for name, (args, stdin_args, stdin_file) in cases.items():
        a, b = tmp_path / f"{name}.{fmt}", tmp_path / f"{name}.stdin.{fmt}"
        assert run([*args, "--mode", "local", "-o", a]).returncode == 0
        with open(stdin_file, "rb") as fh:
            proc = run([*stdin_args, "--mode", "local", "-o", b], stdin=fh)
        assert proc.returncode == 0, proc.stderr.decode()
        ha, ra = read_alignments(a)
        hb, rb = read_alignments(b)
        assert ra == rb and ha["SQ"] == hb["SQ"] and len(ra) > 0, name
        check_with_samtools(a, tmp_path)


def test_duplicate_target_found_before_any_record(tmp_path):
    """Read first, a target name used for two sequences stops the run before anything reaches stdout."""
    q = write_fasta(tmp_path / "q.fa", [(f"r{k}", "ACGTACGT") for k in range(300)])
    t = write_fasta(tmp_path / "dup.fa", [(f"t{k}", "ACGTACGT") for k in range(299)] + [("t0", "ACGTACGA")])
    proc = run(["--format", "sam", "--batch-size", "16", q, t, "-o", "-"])
    assert proc.returncode == 1 and proc.stdout == b""
    assert "'t0'" in proc.stderr.decode() and "record 300" in proc.stderr.decode()


# ----------------------------------------------------------------- BGZF and samtools





@pytest.mark.parametrize("name", ["x.bam", "x.sam.gz", "x.tsv.gz", "x.paf.gz"])
def test_compressed_outputs_are_bgzf(tmp_path, name):
    out = tmp_path / name
    proc = run(["--mode", "local", "-t", "2", GQ, GT, "-o", out])
    assert proc.returncode == 0, proc.stderr.decode()
    data = out.read_bytes()
    blocks = bgzf_blocks(data)
    assert blocks[-1][0] == bgzf.EOF and all(p for _, p in blocks[:-1])
    plain = gzip.decompress(data)
    assert plain == b"".join(p for _, p in blocks)
    if name.endswith((".bam", ".sam.gz")):
        check_with_samtools(out, tmp_path)
    if name == "x.bam":  # the header ends on a block boundary, as htslib writes it
        text, _, refs = bam_body(plain)
        assert len(blocks[0][1]) == len(text) + 12 + sum(len(n) + 9 for n, _ in refs)
    else:
        direct = run(["--mode", "local", GQ, GT, "--format", name.split(".")[1], "-o", "-"]).stdout

        def no_pg(text):
            return [line for line in text.splitlines() if not line.startswith(b"@PG")]

        assert no_pg(plain) == no_pg(direct) and len(no_pg(plain)) >= 200


def test_bgzf_writer_blocks():
    import io

    raw = io.BytesIO()
    data = os.urandom(200_000) + b"A" * 300_000
    w = bgzf.BgzfWriter(raw, threads=3)
    for k in range(0, len(data), 7919):  # writes of odd sizes
        w.write(data[k:k + 7919])
    w.flush()
    w.write(b"tail")
    w.close()
    blocks = bgzf_blocks(raw.getvalue())
    assert b"".join(p for _, p in blocks) == data + b"tail"
    assert [len(p) for _, p in blocks[:-3]] == [bgzf.BLOCK] * (len(blocks) - 3)  # full blocks until the flush
    assert blocks[-2][1] == b"tail" and blocks[-1][0] == bgzf.EOF


# ----------------------------------------------------------------- speed


def test_formatting_takes_microseconds_a_record():
    """The record-by-record writer took 27-40 us a record; the compiled formatters take a few."""
    ((chunk, res),) = aligned(zip_chunks(str(GQ), str(GT), 200), "local")
    big, out = replicate(chunk, res, 100)  # 20,000 records
    _, (ids,) = references_of([(big, out)])
    bulk_sam(chunk, res)  # compiled
    bulk_bam(chunk, res, ids[:200])

    def best(fn):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times) / len(big) * 1e6

    sam_us = best(lambda: bulk_sam(big, out))
    bam_us = best(lambda: bulk_bam(big, out, ids))
    tsv_us = best(lambda: format_tsv(big.q.view(), big.t.view(), out.view(), out.cigar.view(), CIGAR_LETTERS, False))
    print(f"us a record: sam {sam_us:.2f}, bam {bam_us:.2f}, tsv {tsv_us:.2f}")
    assert sam_us < 6 and bam_us < 6, (sam_us, bam_us, tsv_us)


@pytest.mark.parametrize("fmt", ["tsv", "paf", "sam", "bam"])
@pytest.mark.parametrize("traceback", [True, False])
def test_parts_formatted_side_by_side_equal_one_call(tmp_path, monkeypatch, fmt, traceback):
    """A chunk's records cut into parts and formatted by several threads give the bytes of one call."""
    from seqalign_cli.writers import WRITERS, WriterContext, load, parts

    if fmt == "paf" and not traceback:
        pytest.skip("PAF needs alignments")
    monkeypatch.setattr(parts, "PART", 16)  # 200 pairs: several parts of a chunk
    cuts = []
    real_cut = parts.cut
    monkeypatch.setattr(parts, "cut", lambda views, a, b: cuts.append((a, b)) or real_cut(views, a, b))
    cfg = AlignConfig(mode="local", traceback=traceback)
    chunks = [(c, ENGINE.align(c.batch(), cfg)) for c in zip_chunks(str(GQ), str(GT), 120)]
    outs = []
    for threads in (1, 3):
        out = tmp_path / f"{threads}.{fmt}"
        ctx = WriterContext(out=OutputFile(str(out)), command_line="seqalign test", traceback=traceback,
                            inputs=PairInputs(str(GQ), str(GT)), threads=threads)
        writer = load(WRITERS[("pairwise", fmt)])(ctx)
        for chunk, res in chunks:
            writer.write(chunk, res)
        writer.close()
        data = out.read_bytes()
        outs.append(gzip.decompress(data) if fmt == "bam" else data)
    assert outs[0] == outs[1] and len(outs[0]) > 1000
    assert cuts[:3] == [(0, 40), (40, 80), (80, 120)]  # threads 3: 120 records in three parts
