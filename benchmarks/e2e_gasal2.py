"""End to end: the 20,000 GASAL2 pairs replicated to 1,000,000, file to TSV with CIGAR.

Usage: python benchmarks/e2e_gasal2.py QUERY.fa.gz TARGET.fa.gz [--copies 50] [--backend cuda] [-t 16]
                                      [--runs 2] [--bytecode] [--out FILE]

Writes the replicated FASTA files to a temporary folder (uncompressed), then
runs ``seqalign pair`` on them and prints its summary line (wall time and
the time of each stage: read, align, write).
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time


def write_bytecode():
    """Byte-compile seqalign_cli and the packages a GPU run imports (where writable)."""
    import compileall
    import importlib

    for name in ("seqalign_cli", "numpy", "numba", "llvmlite", "cupy", "cupy_backends", "click", "rich"):
        try:
            folder = os.path.dirname(importlib.import_module(name).__file__)
        except ImportError:
            continue
        ok = compileall.compile_dir(folder, quiet=2, workers=0)
        print(f"bytecode: {name} ({folder}): {'written' if ok else 'some files failed'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("query")
    ap.add_argument("target")
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("-t", "--threads", type=int, default=os.cpu_count())
    ap.add_argument("--mode", default="global")
    ap.add_argument("--batch-size", type=int, default=65536)
    ap.add_argument("--out", help="keep the output here (default: a temporary file)")
    ap.add_argument("--runs", type=int, default=2, help="first run compiles kernels; later runs reuse the caches")
    ap.add_argument("--bytecode", action="store_true",
                    help="first write the bytecode (.pyc) of seqalign and the packages it imports, as an "
                         "installer does; for interpreters that run with PYTHONDONTWRITEBYTECODE set over "
                         "packages installed without it")
    args = ap.parse_args()
    if args.bytecode:
        write_bytecode()
    tmp = tempfile.mkdtemp()
    paths = []
    for src, name in ((args.query, "q.fa"), (args.target, "t.fa")):
        with gzip.open(src, "rb") as fh:
            data = fh.read()
        path = os.path.join(tmp, name)
        with open(path, "wb") as out:
            for _ in range(args.copies):
                out.write(data)
        paths.append(path)
    # SEQALIGN_PROFILE=FILE: profile the runs (cProfile stats of the last run in FILE, the
    # top functions printed); main() is given its argv, so it returns instead of exiting at once
    profile = os.environ.get("SEQALIGN_PROFILE")
    script = f"import cProfile, sys; from seqalign_cli.cli import main; cProfile.run('main(sys.argv[1:])', {profile!r})"
    prefix = [sys.executable, "-c", script] if profile else [sys.executable, "-m", "seqalign_cli"]
    out = args.out or os.path.join(tmp, "out.tsv")
    cmd = [*prefix, "pair", "--backend", args.backend, "-t", str(args.threads),
           "--mode", args.mode, "--batch-size", str(args.batch_size), *paths, "-o", out]
    for run in range(args.runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        wall = time.perf_counter() - t0
        print(f"run {run + 1} ({'cold caches' if run == 0 else 'warm caches'}): {wall:.2f} s wall")
    if profile:
        import pstats

        for key in ("cumulative", "tottime"):
            pstats.Stats(profile).sort_stats(key).print_stats(40)
    with open(out, "rb") as fh:
        rows = sum(1 for _ in fh) - 1
    print(f"e2e: {rows} rows, {wall:.2f} s wall including interpreter start, {rows / wall:.0f} pairs/s")


if __name__ == "__main__":
    main()
