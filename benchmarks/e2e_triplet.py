"""End to end: 1,000,000 triplets of 150 bp windows of SARS-CoV-2 genomes, file to TSV (score only) and to MAF.

Usage: python benchmarks/e2e_triplet.py GENOMES.fa [--triplets 1000000] [--length 150 | 8-1024] [--backend cuda]
                                       [-t 16] [--runs 2] [--formats tsv,maf] [--mode global]
                                       [--devices 0 all] [--max-matrix-mb 256] [--batch-size N] [--workers N]
                                       [--bytecode]

Windows of ``--length`` bp at the same offset of three different genomes
(the genomes are near-identical, so the windows are related: a few
substitutions and, where the genomes have indels, shifted ends), written
uncompressed as three lockstep FASTA files in a temporary folder; then
``seqalign triplet`` runs on them and its summary line is printed (wall
time and the time of each stage). Seeded: the same files every run.

Several ``--devices`` settings (``0 all``: one GPU, then every GPU) are timed
in turn on the same files; a summary line a setting and format gives the last
run's wall, its triplets per second against the first setting's and whether
its output is the same file, byte for byte, as the first setting's.
``--bytecode`` first writes the bytecode of seqalign and the packages it
imports, as an installer does (see ``e2e_gasal2.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def genomes(path: str) -> list[bytes]:
    seqs, parts = [], []
    with open(path, "rb") as fh:
        for line in fh:
            if line.startswith(b">"):
                if parts:
                    seqs.append(b"".join(parts))
                parts = []
            else:
                parts.append(line.strip())
    if parts:
        seqs.append(b"".join(parts))
    return seqs


def window_lengths(spec: str, count: int, rng) -> np.ndarray:
    """One length for every triplet: "150", or "8-1024" (log-uniform between the two)."""
    lo, _, hi = spec.partition("-")
    if not hi:
        return np.full(count, int(lo), np.int64)
    return np.exp(rng.uniform(np.log(int(lo)), np.log(int(hi) + 1), count)).astype(np.int64)


def write_triplets(seqs: list[bytes], count: int, lengths: str, folder: str) -> tuple[list[str], int]:
    """Three lockstep FASTA files of windows; returns their paths and the 3-D cells of all triplets."""
    rng = np.random.default_rng(5)
    shortest = min(len(s) for s in seqs)
    length = window_lengths(lengths, count, rng)
    which = np.array([rng.choice(len(seqs), 3, replace=False) for _ in range(count)])
    at = rng.integers(0, shortest - length.max(), count)
    paths = [os.path.join(folder, f"{s}.fa") for s in "abc"]
    for s, path in enumerate(paths):
        with open(path, "wb") as out:
            out.write(b"".join(b">t%d_%d:%d\n%s\n" % (t, which[t, s], at[t],
                                                       seqs[which[t, s]][at[t]:at[t] + length[t]])
                               for t in range(count)))
    return paths, int((length.astype(np.float64) ** 3).sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("genomes")
    ap.add_argument("--triplets", type=int, default=1_000_000)
    ap.add_argument("--length", default="150", help="bp of every window, or a range LO-HI (log-uniform)")
    ap.add_argument("--devices", nargs="*", default=[None],
                    help="device settings timed in turn, each passed to seqalign (a GPU number, 0,1 or all)")
    ap.add_argument("--out", default=None, help="keep the outputs as OUT.tsv, OUT.maf")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("-t", "--threads", type=int, default=os.cpu_count())
    ap.add_argument("--mode", default="global")
    ap.add_argument("--batch-size", type=int, default=None, help="passed to seqalign (default: seqalign's own)")
    ap.add_argument("--workers", type=int, default=None, help="passed to seqalign (default: seqalign's own)")
    ap.add_argument("--runs", type=int, default=2, help="the first run compiles; later runs reuse the caches")
    ap.add_argument("--formats", default="tsv,maf", help="tsv: score only; maf: with traceback")
    ap.add_argument("--max-matrix-mb", type=int, default=None, help="passed to seqalign (traceback memory)")
    ap.add_argument("--bytecode", action="store_true", help="first write the bytecode (.pyc) of seqalign and the "
                                                            "packages it imports, as an installer does")
    args = ap.parse_args()
    if args.runs < 2 and len(args.devices) > 1:
        print("note: one run a setting, so the first setting's run also compiles the kernels where their cache is "
              "cold (a fresh machine), and the ratios against it are not speed-ups", file=sys.stderr, flush=True)
    if args.bytecode:
        from e2e_gasal2 import write_bytecode  # this folder's

        write_bytecode()
    tmp = tempfile.mkdtemp()
    t0 = time.perf_counter()
    paths, cells = write_triplets(genomes(args.genomes), args.triplets, args.length, tmp)
    print(f"wrote {args.triplets} triplets of {args.length} bp in {time.perf_counter() - t0:.1f} s", flush=True)
    for fmt in args.formats.split(","):
        out = f"{args.out}.{fmt}" if args.out else os.path.join(tmp, f"out.{fmt}")
        first = None  # the first setting's (wall, digest)
        for setting in args.devices:
            extra = ["--score-only"] if fmt == "tsv" else []
            extra += ["--devices", setting] if setting else []
            if args.max_matrix_mb:
                extra += ["--max-matrix-mb", str(args.max_matrix_mb)]
            if args.batch_size:
                extra += ["--batch-size", str(args.batch_size)]
            if args.workers is not None:
                extra += ["--workers", str(args.workers)]
            cmd = [sys.executable, "-m", "seqalign_cli", "triplet", "--backend", args.backend, "-t",
                   str(args.threads), "--mode", args.mode, *extra, *paths, "-o", out]
            name = f"{fmt} devices={setting or 'default'}"
            for run in range(args.runs):
                if os.path.exists(out):  # a run writes a new file, as it would in use (not over the last run's)
                    os.remove(out)
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True)
                wall = time.perf_counter() - t0
                print(f"{name} run {run + 1}: {wall:.2f} s wall, {args.triplets / wall:.0f} triplets/s, "
                      f"{cells / wall / 1e12:.3f} TCUPS end to end", flush=True)
            digest = hashlib.md5()
            with open(out, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 24), b""):
                    digest.update(block)
            digest = digest.hexdigest()
            first = first or (wall, digest)
            print(f"summary: {name} {wall:.2f} s, {args.triplets / wall:.0f} triplets/s, {first[0] / wall:.2f}x the "
                  f"first setting's, output {'identical to' if digest == first[1] else 'DIFFERENT from'} the first "
                  f"setting's (md5 {digest})", flush=True)


if __name__ == "__main__":
    main()
