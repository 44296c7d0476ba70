"""The host's input and output steps alone, one at a time: decompressing, cutting, compressing.

Usage: python benchmarks/host_io.py [--copies 50] [--threads 2]

Writes the 20,000 GASAL2 pairs ``copies`` times (1,000,000 pairs by
default) into a temporary folder, plain, ``gzip -1`` and BGZF (pysam), and
a TSV of their alignments as the writers format them (the first 20,000
pairs aligned on the CPU, written ``copies`` times). Then times, in this
process, each on the target file:

* gzip input: the standard library's reader, and igzip's (python-isal), the
  one seqalign reads gzip with;
* BGZF input: ``io.bgzf.BgzfInput`` with one thread and with ``--threads``;
* cutting (``io.cut.FileCutter``, what the main process of a run with
  workers does): a plain file (mapped, byte ranges), and a gzip file (read
  through the reader's decompression into memory files);
* BGZF output (``writers.bgzf.BgzfWriter``) of the TSV at levels 1 and 6,
  with ``--threads`` threads: MB/s of text and the size against the text.

Prints MB/s of uncompressed data for each.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "pairwise", "gasal2")


def timed(label: str, nbytes: int, work):
    t0 = time.perf_counter()
    work()
    dt = time.perf_counter() - t0
    print(f"{label}: {dt:.2f} s, {nbytes / dt / 1e6:.0f} MB/s")


def drain(stream):
    buf = bytearray(1 << 22)
    while stream.readinto(buf):
        pass
    stream.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    import pysam

    from seqalign_cli.io.bgzf import BgzfInput
    from seqalign_cli.io.cut import FileCutter
    from seqalign_cli.io.fastx import GZIP
    from seqalign_cli.writers.bgzf import BgzfWriter

    tmp = tempfile.mkdtemp()
    try:
        with gzip.open(os.path.join(DATA, "target_batch.fasta.gz"), "rb") as fh:
            one = fh.read()
        plain = os.path.join(tmp, "t.fa")
        with open(plain, "wb") as out:
            for _ in range(args.copies):
                out.write(one)
        size = os.path.getsize(plain)
        subprocess.run(f"gzip -1 -c {plain} > {plain}.gz", shell=True, check=True)
        pysam.tabix_compress(plain, f"{plain}.bgz", force=True)
        print(f"{size / 1e6:.0f} MB of FASTA ({args.copies} x 20,000 targets); {args.threads} threads")

        timed("gzip -1 input, standard library", size, lambda: drain(gzip.open(f"{plain}.gz", "rb")))
        timed(f"gzip -1 input, {GZIP.__name__}", size, lambda: drain(GZIP.open(f"{plain}.gz", "rb")))
        for threads in sorted({1, args.threads}):
            timed(f"BGZF input, {threads} thread(s)", size,
                  lambda: drain(BgzfInput(open(f"{plain}.bgz", "rb"), threads)))

        def cut(path):
            for piece in FileCutter(path, 65536):
                piece.close()

        timed("cutting the plain file (mapped)", size, lambda: cut(plain))
        timed("cutting the gzip file (into memory files)", size, lambda: cut(f"{plain}.gz"))

        tsv = os.path.join(tmp, "a.tsv")
        with open(tsv, "wb") as out:
            text = subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "--backend", "cpu", "-q",
                                   "-t", str(args.threads), "--workers", "1",
                                   os.path.join(DATA, "query_batch.fasta.gz"),
                                   os.path.join(DATA, "target_batch.fasta.gz")], capture_output=True,
                                  check=True).stdout
            for _ in range(args.copies):
                out.write(text)
        text_size = os.path.getsize(tsv)
        for level in (1, 6):
            def write(level=level):
                with open(tsv, "rb") as src, open(os.devnull, "wb") as sink:
                    counted = _Counting(sink)
                    writer = BgzfWriter(counted, args.threads, level)
                    shutil.copyfileobj(src, writer, 1 << 22)
                    writer.close()
                print(f"  level {level}: {counted.n / text_size:.3f} of the text")

            timed(f"BGZF output of {text_size / 1e6:.0f} MB of TSV, level {level}", text_size, write)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _Counting:
    def __init__(self, raw):
        self.raw, self.n = raw, 0

    def write(self, data):
        self.n += len(data)
        return self.raw.write(data)

    def flush(self):
        self.raw.flush()


if __name__ == "__main__":
    main()
