"""Host side of a run, without alignment: reading + pairing + encoding, and TSV formatting.

Usage: python benchmarks/host_path.py [--copies 50] [--batch-size 65536] [--query Q --target T]
                                      [--keep DIR]

Writes the 20,000 GASAL2 pairs (150 bp reads vs 152-277 bp windows) ``copies``
times into plain FASTA files in a temporary folder (1,000,000 pairs by
default), then times, each on its own:

(a) read: reading both files, pairing (zip) and encoding every chunk into the
    ``PairBatch`` a backend gets (as in a run: each file parsed in a thread
    and cut into chunks and encoded in another);
(b) format, on one thread: the TSV writer writing every chunk from a fake ``Alignments``
    (plausible spans and scores, a five-run CIGAR such as ``60=1X40=2D49=``)
    into a sink that only counts bytes (no disk, no alignment). The chunks are
    read beforehand; only the writer's ``write`` calls are timed.

Prints seconds and records/s (a pair is two records) for each.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import tempfile
import time

import numpy as np

from seqalign_cli.families.pairwise.chunks import PairInputs, pair_chunks
from seqalign_cli.families.pairwise.results import Alignments
from seqalign_cli.writers import WriterContext
from seqalign_cli.families.pairwise.formats import TsvWriter

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "pairwise", "gasal2")


def replicate(src: str, dst: str, copies: int):
    with gzip.open(src, "rb") as fh:
        data = fh.read()
    if not data.endswith(b"\n"):
        data += b"\n"
    with open(dst, "wb") as out:
        for _ in range(copies):
            out.write(data)


def encoded(chunk):
    """The PairBatch of a chunk, through whatever the pipeline uses."""
    if hasattr(chunk, "batch"):
        return chunk.batch()
    from seqalign_cli.families.pairwise.batch import make_batch

    return make_batch([r.seq for r in chunk.queries], [r.seq for r in chunk.targets])


def fake_alignments(qlen: np.ndarray, tlen: np.ndarray) -> Alignments:
    """Plausible results: the query end to end, five CIGAR runs per pair."""
    res = Alignments.allocate(qlen, tlen, True)
    n = len(qlen)
    d = 2
    tail = np.maximum(qlen - 101, 0)
    res.qstart[:] = 0
    res.qend[:] = qlen
    res.tstart[:] = np.maximum(tlen - qlen - d, 0) // 2
    res.tend[:] = np.minimum(res.tstart + qlen + d, tlen)
    res.score[:] = 2 * (qlen - 1) - 4 - (4 + 2 * d) - (np.arange(n) % 7)
    for k, (op, length) in enumerate(((0, 60), (1, 1), (0, 40), (3, d))):
        res.cigar.op[res.cigar.off + k] = op
        res.cigar.length[res.cigar.off + k] = length
    res.cigar.op[res.cigar.off + 4] = 0
    res.cigar.length[res.cigar.off + 4] = tail
    res.cigar.count[:] = 5
    res.stats[:, 0] = qlen - 1
    res.stats[:, 1] = 1
    res.stats[:, 2] = 0
    res.stats[:, 3] = d
    return res


class CountingSink:
    """An OutputFile stand-in whose stream only counts the bytes written."""

    def __init__(self):
        self.bytes = 0

    def open(self, threads: int = 1):
        return self

    def write(self, data):
        self.bytes += memoryview(data).nbytes
        return memoryview(data).nbytes

    def commit(self):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--query", default=os.path.join(DATA, "query_batch.fasta.gz"))
    ap.add_argument("--target", default=os.path.join(DATA, "target_batch.fasta.gz"))
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--batch-size", type=int, default=65536)
    ap.add_argument("--keep", help="write the replicated FASTA files here and keep them")
    args = ap.parse_args()
    tmp = args.keep or tempfile.mkdtemp()
    os.makedirs(tmp, exist_ok=True)
    q, t = os.path.join(tmp, "q.fa"), os.path.join(tmp, "t.fa")
    try:
        replicate(args.query, q, args.copies)
        replicate(args.target, t, args.copies)
        # warm up: numba compilation / cache loading, file pages in the OS cache
        for chunk in pair_chunks(PairInputs(q, t, "zip", None), 1000):
            warm = encoded(chunk)
            TsvWriter(WriterContext(CountingSink())).write(chunk, fake_alignments(warm.qlen, warm.tlen))
            break
        for path in (q, t):
            with open(path, "rb") as fh:
                while fh.read(1 << 24):
                    pass

        t0 = time.perf_counter()
        pairs = 0
        for chunk in pair_chunks(PairInputs(q, t, "zip", None), args.batch_size):
            pairs += encoded(chunk).size
        read_s = time.perf_counter() - t0
        print(f"(a) read+pair+encode: {pairs} pairs in {read_s:.3f} s, "
              f"{2 * pairs / read_s / 1e6:.2f} M records/s ({pairs / read_s / 1e6:.2f} M pairs/s)")

        sink = CountingSink()
        writer = TsvWriter(WriterContext(sink))
        fmt_s = 0.0
        rows = 0
        for chunk in pair_chunks(PairInputs(q, t, "zip", None), args.batch_size):
            batch = encoded(chunk)
            res = fake_alignments(batch.qlen, batch.tlen)
            t0 = time.perf_counter()
            writer.write(chunk, res)
            fmt_s += time.perf_counter() - t0
            rows += batch.size
        print(f"(b) TSV formatting: {rows} rows ({sink.bytes / 1e6:.1f} MB) in {fmt_s:.3f} s, "
              f"{rows / fmt_s / 1e6:.2f} M rows/s")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
