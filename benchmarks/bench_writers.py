"""The pair writers (TSV, PAF, SAM, BAM, SAM.gz) on real alignments: the writers alone, then the whole command.

Usage: python benchmarks/bench_writers.py [--pairs 100000] [--threads 2] [--repeat 3] [--no-cli]
       [--baseline REV]

Builds ``--pairs`` pairs from the GASAL2 batch (20,000 pairs of 150 bp reads
and 152-277 bp reference windows, ``.carry/`` or ``--query``/``--target``),
repeated with the copy number added to every name (``NAME_copy``: every
target has its own @SQ line), aligned once by the CPU engine (global mode)
in chunks of ``--batch-size``. Then:

* writers alone: each writer takes the chunks and their results and writes a
  file in a temporary folder (``write`` per chunk, ``close``); best of
  ``--repeat``, with seconds, microseconds per record and the ratio to TSV;
* the whole command: ``seqalign pair -q -t THREADS Q T -o x.FORMAT`` on the
  same files, best of ``--repeat`` (alignment included: what a user waits
  for), with the ratio to TSV.

``--baseline REV`` also times the SAM/BAM writer of git revision REV and the
command of a copy of the package at REV (tsv, sam, bam), for before/after
figures. Compression threads: ``--threads`` (the writers' ``threads``; the
command passes ``-t`` where the writers take it).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from seqalign_cli.families.pairwise.cpu import CpuPairwise  # noqa: E402
from seqalign_cli.config import AlignConfig  # noqa: E402
from seqalign_cli.families.pairwise.inputs import PairInputs  # noqa: E402
from seqalign_cli.families.pairwise.chunks import zip_chunks  # noqa: E402
from seqalign_cli.writers import WRITERS, WriterContext, load  # noqa: E402
from seqalign_cli.writers.output import OutputFile  # noqa: E402

CARRY = os.path.join(ROOT, ".carry")
FORMATS = {"tsv": "x.tsv", "paf": "x.paf", "sam": "x.sam", "bam": "x.bam", "sam.gz": "x.sam.gz"}


def fasta_records(path: str) -> list[tuple[str, str]]:
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    recs: list[list[str]] = []
    with opener(path, "rt") as fh:
        for line in fh:
            if line.startswith(">"):
                recs.append([line[1:].split()[0], ""])
            elif recs:
                recs[-1][1] += line.strip()
    return [(n, s) for n, s in recs]


def replicate(src: str, dst: str, pairs: int):
    recs = fasta_records(src)
    with open(dst, "w") as out:
        for k in range(pairs):
            name, seq = recs[k % len(recs)]
            out.write(f">{name}_{k // len(recs)}\n{seq}\n")


def align_all(query: str, target: str, batch_size: int, threads: int):
    engine = CpuPairwise(threads)
    cfg = AlignConfig(mode="global")
    done = []
    for chunk in zip_chunks(query, target, batch_size):
        done.append((chunk, engine.align(chunk.batch(), cfg)))
    return done


def baseline_class(rev: str, fmt: str):
    """The SAM/BAM writer class of git revision ``rev``."""
    source = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:seqalign_cli/writers/sam.py"],
                            capture_output=True, check=True, text=True).stdout
    spec = importlib.util.spec_from_loader("seqalign_cli.writers._baseline_sam", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "seqalign_cli.writers"
    exec(compile(source, f"{rev}:sam.py", "exec"), module.__dict__)
    return module.BamWriter if fmt == "bam" else module.SamWriter


def time_writer(cls, done, folder, name, inputs, threads, repeat):
    best = float("inf")
    size = 0
    for _ in range(repeat):
        path = os.path.join(folder, name)
        ctx = WriterContext(out=OutputFile(path), command_line="seqalign bench", traceback=True,
                            cigar_m=False, inputs=inputs, threads=threads)
        t0 = time.perf_counter()
        writer = cls(ctx)
        for chunk, res in done:
            writer.write(chunk, res)
        writer.close()
        best = min(best, time.perf_counter() - t0)
        size = os.path.getsize(path)
        os.unlink(path)
    return best, size


def baseline_package(rev: str, folder: str) -> str:
    """A copy of the package at git revision ``rev`` (for its command line); returns the folder to import from."""
    base = os.path.join(folder, "baseline")
    os.makedirs(base)
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "seqalign_cli"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", base], input=archive.stdout, check=True)
    return base


def time_cli(query, target, folder, name, threads, repeat, package=ROOT):
    best = float("inf")
    path = os.path.join(folder, name)
    env = dict(os.environ, PYTHONPATH=package)
    for k in range(repeat + (package != ROOT)):  # a copy compiles on its first run: not timed
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "seqalign_cli", "pair", "-q", "-t", str(threads), query, target,
                        "-o", path], check=True, cwd=package, env=env)
        if k or package == ROOT:
            best = min(best, time.perf_counter() - t0)
    check = validate(path) if name.endswith((".sam", ".bam", ".sam.gz")) else ""
    os.unlink(path)
    return best, check


def validate(path: str) -> str:
    """samtools quickcheck and flagstat (pysam's samtools where there is no binary): 'ok' or the error."""
    import pysam

    try:
        pysam.quickcheck(path)
        stats = pysam.flagstat(path)
    except pysam.utils.SamtoolsError as exc:
        return f"samtools: {exc}"
    return "ok (" + stats.splitlines()[0].split(" + ")[0] + " records)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--query", default=os.path.join(CARRY, "query_batch.fasta.gz"))
    ap.add_argument("--target", default=os.path.join(CARRY, "target_batch.fasta.gz"))
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--batch-size", type=int, default=16384)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--no-cli", action="store_true", help="time the writers alone")
    ap.add_argument("--baseline", metavar="REV", help="also time the SAM/BAM writer of this git revision")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="seqalign-bench-writers-")
    try:
        q = os.path.join(folder, "q.fa")
        t = os.path.join(folder, "t.fa")
        replicate(args.query, q, args.pairs)
        replicate(args.target, t, args.pairs)
        t0 = time.perf_counter()
        done = align_all(q, t, args.batch_size, args.threads)
        aligned = time.perf_counter() - t0
        n = sum(len(c) for c, _ in done)
        print(f"# {n} pairs in {len(done)} chunks aligned in {aligned:.2f} s (CPU engine, {args.threads} "
              f"threads); {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
              f"best of {args.repeat}")
        inputs = PairInputs(q, t)
        fmts = args.formats.split(",")
        rows = []
        for fmt in fmts:
            cls = load(WRITERS[("pairwise", fmt.split(".")[0])])
            rows.append((fmt, "", *time_writer(cls, done, folder, FORMATS[fmt], inputs, args.threads, args.repeat)))
            if args.baseline and fmt in ("sam", "bam"):
                old = baseline_class(args.baseline, fmt)
                rows.append((fmt, f" ({args.baseline})",
                             *time_writer(old, done, folder, FORMATS[fmt], inputs, args.threads, args.repeat)))
        tsv = next((r[2] for r in rows if r[0] == "tsv"), None)
        print("\nwriters alone\nformat\tseconds\tus/record\tMB written\tx TSV")
        for fmt, label, secs, size in rows:
            ratio = f"{secs / tsv:.2f}" if tsv else "-"
            print(f"{fmt}{label}\t{secs:.3f}\t{secs / n * 1e6:.2f}\t{size / 1e6:.1f}\t{ratio}")
        if args.no_cli:
            return
        print(f"\nwhole command (seqalign pair -q -t {args.threads} Q T -o x.FORMAT)\n"
              "format\tseconds\tx TSV\tsamtools")
        cli = []
        base = baseline_package(args.baseline, folder) if args.baseline else None
        for fmt in fmts:
            cli.append((fmt, "", *time_cli(q, t, folder, FORMATS[fmt], args.threads, args.repeat)))
            if base and fmt in ("tsv", "sam", "bam"):
                cli.append((fmt, f" ({args.baseline})",
                            *time_cli(q, t, folder, FORMATS[fmt], args.threads, args.repeat, base)))
        tsv = next((r[2] for r in cli if r[0] == "tsv"), None)
        for fmt, label, secs, check in cli:
            ratio = f"{secs / tsv:.2f}" if tsv else "-"
            print(f"{fmt}{label}\t{secs:.2f}\t{ratio}\t{check}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
