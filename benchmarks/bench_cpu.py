"""CPU engine beside parasail on the same pairs, one thread.

Usage: python benchmarks/bench_cpu.py [--pairs N] [--modes global,local] [--lanes 32]

Reads the GASAL2 pairs (150 bp reads vs 152-277 bp reference windows) from
../shared/data/pairwise/gasal2 (or --query/--target), aligns them with the
CPU engine (score only and with traceback) and with parasail's striped/scan
16-bit functions, and prints GCUPS for each. Scores are compared: the run
fails if any differs. Needs the test extra (parasail).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.io.fastx import FastxReader

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "pairwise", "gasal2")
PARASAIL = {"global": "nw", "semi-global": "sg", "glocal": "sg_dx", "local": "sw"}


def load(query: str, target: str, n: int):
    qs = [r.seq.upper() for _, r in zip(range(n), FastxReader(query))]
    ts = [r.seq.upper() for _, r in zip(range(n), FastxReader(target))]
    return qs, ts


def bench(fn, repeat: int):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--query", default=os.path.join(DATA, "query_batch.fasta.gz"))
    ap.add_argument("--target", default=os.path.join(DATA, "target_batch.fasta.gz"))
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--modes", default="global,local")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import parasail

    qs, ts = load(args.query, args.target, args.pairs)
    batch = make_batch(qs, ts)
    cells = batch.cells()
    sc = Scoring()
    matrix = parasail.matrix_create("ACGTN", sc.match, -sc.mismatch)
    for k in range(5):
        matrix.set_value(4, k, -sc.n_penalty)
        matrix.set_value(k, 4, -sc.n_penalty)
    qstr = [q.decode() for q in qs]
    tstr = [t.decode() for t in ts]
    print(f"# {len(qs)} pairs, {cells / 1e6:.1f} M cells, {platform.processor() or platform.machine()}, "
          f"{args.threads} thread(s), best of {args.repeat}")
    print("mode\tengine\tseconds\tGCUPS\tpairs/s")
    backend = CpuPairwise(args.threads)
    for mode in args.modes.split(","):
        for trace in (False, True):
            cfg = AlignConfig(scoring=sc, mode=mode, traceback=trace)
            backend.align(make_batch(qs[:64], ts[:64]), cfg)  # compile / load cache
            secs, res = bench(lambda: backend.align(batch, cfg), args.repeat)
            label = "seqalign-cpu" + ("-trace" if trace else "")
            print(f"{mode}\t{label}\t{secs:.3f}\t{cells / secs / 1e9:.2f}\t{len(qs) / secs:.0f}")
            name = f"{PARASAIL[mode]}{'_trace' if trace else ''}_scan_16"
            fn = getattr(parasail, name)
            o, e = sc.gap_open + sc.gap_extend, sc.gap_extend
            psecs, pres = bench(lambda: [fn(q, t, o, e, matrix).score for q, t in zip(qstr, tstr)], args.repeat)
            print(f"{mode}\tparasail-{name}\t{psecs:.3f}\t{cells / psecs / 1e9:.2f}\t{len(qs) / psecs:.0f}")
            expect = np.maximum(pres, 0) if mode == "semi-global" else np.array(pres)
            if not np.array_equal(res.score, expect):
                bad = np.flatnonzero(res.score != expect)
                raise SystemExit(f"score mismatch in {mode} for {len(bad)} pairs, first {bad[:5]}")


if __name__ == "__main__":
    main()
