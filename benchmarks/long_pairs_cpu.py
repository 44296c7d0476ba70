"""Single long pairs on the CPU engine beside parasail, in the same run.

Usage: python benchmarks/long_pairs_cpu.py [--lengths 2000,10000,100000] [--modes global]
       [--threads 1,2] [--repeat 2] [--no-real] [--only NAME,...] [--old-below 10000]

Pairs: synthetic ones of each length (random bases, then 5 % substitutions
and 1 % deletions, seeded) and the real long pairs of
../shared/data/pairwise/edlib_long (an E. coli 10 kb prefix and an
Enterobacteria phage genome of 95 kb, each against its copies mutated to
97 % and 90 % identity; read with the project's FASTA reader, the copies'
empty header lines named first). Each pair is
aligned alone (a batch of one pair, as ``seqalign pair`` gets it) by the
CPU engine, score only and with traceback, with each thread count, and by
parasail's scan kernels (``nw``/``sg``/``sg_dx``/``sw`` by mode, 16-bit
unless they saturate, else 32-bit; with traceback only while the full
trace table stays under 4 GB), taking turns run by run. Printed: seconds
(best of --repeat, and of more runs of a short pair, up to 0.3 s of runs),
GCUPS, and seqalign's speed over parasail's. Scores must agree (the run
stops otherwise). ``--old-below``: pairs up to that length also run the
previous route (lane groups; one lane per pair) for comparison.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import tempfile
import time

import numpy as np


from seqalign_cli.families.pairwise import cpu_long_pair as long_pair
from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.io.fastx import FastxReader

HERE = os.path.dirname(os.path.abspath(__file__))
#: the real pairs' folder (``--data`` or SEQALIGN_EDLIB_LONG to point elsewhere)
DATA = os.environ.get("SEQALIGN_EDLIB_LONG",
                      os.path.join(HERE, "..", "..", "shared", "data", "pairwise", "edlib_long", "test_data"))
REAL = {
    "ecoli-10k-97": ("E_coli_DH1/prefixes/10kbp/e_coli_DH1_prefix10000.fasta",
                     "E_coli_DH1/prefixes/10kbp/mutated_97_perc.fasta"),
    "ecoli-10k-90": ("E_coli_DH1/prefixes/10kbp/e_coli_DH1_prefix10000.fasta",
                     "E_coli_DH1/prefixes/10kbp/mutated_90_perc.fasta"),
    "phage-95k-97": ("Enterobacteria_Phage_1/Enterobacteria_phage_1.fasta",
                     "Enterobacteria_Phage_1/mutated_97_perc.fasta"),
    "phage-95k-90": ("Enterobacteria_Phage_1/Enterobacteria_phage_1.fasta",
                     "Enterobacteria_Phage_1/mutated_90_perc.fasta"),
}
PARASAIL = {"global": "nw", "semi-global": "sg", "glocal": "sg_dx", "local": "sw"}
TRACE_TABLE_LIMIT = 4 << 30


def synthetic(n: int, seed: int) -> tuple[bytes, bytes]:
    """A random sequence of n bases and a copy with 5 % substitutions and 1 % deletions."""
    rng = random.Random(seed)
    q = "".join(rng.choice("ACGT") for _ in range(n))
    t = []
    for c in q:
        r = rng.random()
        if r < 0.01:
            continue
        t.append(rng.choice("ACGT".replace(c, "")) if r < 0.06 else c)
    return q.encode(), "".join(t).encode()


def read_one(path: str) -> bytes:
    """The first record's sequence; the mutated copies have a header with no name, which the reader refuses:
    they are read from a copy whose header names the file."""
    path = os.path.join(DATA, path)
    with open(path, "rb") as fh:
        data = fh.read()
    if data.startswith(b">\n"):
        with tempfile.TemporaryDirectory() as tmp:
            named = os.path.join(tmp, "named.fa")
            with open(named, "wb") as fh:
                fh.write(b">" + os.path.basename(path).encode() + data[1:])
            return next(iter(FastxReader(named))).seq.upper()
    return next(iter(FastxReader(path))).seq.upper()


#: runs of a short pair go on (past --repeat) until they add up to this many seconds: a 2 kb pair takes a
#: millisecond, where one run in two can be slowed by what else the machine does
SHORT_RUNS_SECONDS = 0.3


def best_of(fns, repeat: int):
    """The best time of each function over ``repeat`` rounds (more while a round's runs add up to less than
    SHORT_RUNS_SECONDS each), the functions taking turns so that what else the machine does weighs on all alike;
    [(seconds, last output)]."""
    best, outs, spent, rounds = [float("inf")] * len(fns), [None] * len(fns), 0.0, 0
    while rounds < repeat or spent < SHORT_RUNS_SECONDS * len(fns):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            outs[k] = fn()
            took = time.perf_counter() - t0
            best[k], spent = min(best[k], took), spent + took
        rounds += 1
    return list(zip(best, outs))


def parasail_kernel(q: bytes, t: bytes, sc: Scoring, mode: str, trace: bool):
    """(function name, call giving the score) of parasail's scan kernel, 16-bit unless it saturates, else
    32-bit; None where its trace table would not fit."""
    import parasail

    cells = len(q) * len(t)
    if trace and cells * 4 > TRACE_TABLE_LIMIT:
        return None
    matrix = parasail.matrix_create("ACGTN", sc.match, -sc.mismatch)
    for k in range(5):
        matrix.set_value(4, k, -sc.n_penalty)
        matrix.set_value(k, 4, -sc.n_penalty)
    o, e = sc.gap_open + sc.gap_extend, sc.gap_extend
    qs, ts = q.decode(), t.decode()
    for bits in (16, 32):
        name = f"{PARASAIL[mode]}{'_trace' if trace else ''}_scan_{bits}"
        fn = getattr(parasail, name)
        if bits == 16 and fn(qs, ts, o, e, matrix).saturated:
            continue
        return name, lambda: fn(qs, ts, o, e, matrix).score


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="2000,10000,100000")
    ap.add_argument("--modes", default="global")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-real", action="store_true", help="synthetic pairs only")
    ap.add_argument("--only", default="", help="the pairs whose names contain one of these (comma-separated)")
    ap.add_argument("--old-below", type=int, default=10000, help="run the previous route up to this length")
    args = ap.parse_args()
    sc = Scoring()
    pairs = [(f"synthetic-{n // 1000}k", *synthetic(n, n)) for n in map(int, args.lengths.split(","))]
    if not args.no_real:
        pairs += [(name, read_one(a), read_one(b)) for name, (a, b) in REAL.items()]
    if args.only:
        pairs = [p for p in pairs if any(word in p[0] for word in args.only.split(","))]
    threads = [int(x) for x in args.threads.split(",")]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, best of {args.repeat}; "
          f"scoring {sc.as_list()}; speed = seqalign GCUPS / other GCUPS")
    print("pair\tqlen\ttlen\tmode\ttrace\tengine\tseconds\tGCUPS\tspeed_vs_parasail")
    warm = make_batch([b"ACGT" * 300], [b"ACGA" * 300])
    for mode in args.modes.split(","):
        for trace in (False, True):
            cfg = AlignConfig(scoring=sc, mode=mode, traceback=trace)
            CpuPairwise(1).align(warm, cfg)  # compile / load the cache
            for name, q, t in pairs:
                cells = len(q) * len(t)
                batch = make_batch([q], [t])
                row = f"{name}\t{len(q)}\t{len(t)}\t{mode}\t{'yes' if trace else 'no'}"
                ref = parasail_kernel(q, t, sc, mode, trace)
                engines = [CpuPairwise(n) for n in threads]
                runs = best_of(([ref[1]] if ref is not None else [])
                               + [lambda engine=engine: engine.align(batch, cfg) for engine in engines], args.repeat)
                if ref is not None:
                    (psecs, pscore), runs = runs[0], runs[1:]
                    print(f"{row}\tparasail-{ref[0]}\t{psecs:.4f}\t{cells / psecs / 1e9:.2f}\t1.00", flush=True)
                for n, (secs, res) in zip(threads, runs):
                    score = int(res.score[0])
                    speed = f"{psecs / secs:.2f}" if ref is not None else "-"
                    print(f"{row}\tseqalign-t{n}\t{secs:.4f}\t{cells / secs / 1e9:.2f}\t{speed}", flush=True)
                    if ref is not None and score != (max(pscore, 0) if mode == "semi-global" else pscore):
                        raise SystemExit(f"score mismatch on {name}: seqalign {score}, parasail {pscore}")
                if max(len(q), len(t)) <= args.old_below:
                    saved = long_pair.routed
                    long_pair.routed = lambda qlen, *rest: np.zeros(len(qlen), bool)
                    try:
                        [(secs, res)] = best_of([lambda: CpuPairwise(1).align(batch, cfg)], 1)
                    finally:
                        long_pair.routed = saved
                    speed = f"{psecs / secs:.2f}" if ref is not None else "-"
                    print(f"{row}\tprevious-route-t1\t{secs:.4f}\t{cells / secs / 1e9:.2f}\t{speed}", flush=True)


if __name__ == "__main__":
    main()
