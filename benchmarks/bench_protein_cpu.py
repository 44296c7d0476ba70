"""The CPU engine on proteins beside parasail's fastest protein Smith-Waterman, same pairs, same thread count.

Usage: python benchmarks/bench_protein_cpu.py [--threads 1] [--repeat 3] [--modes local,global]

The 500 public protein pairs (tests/data/protein, 55-991 aa, 47.9 M cells), BLOSUM62 with gap costs 11 + k
(parasail open 12, extend 1): the CPU engine score only and with traceback, and parasail 1.3.4's
``sw_striped_profile_16`` and ``sw_scan_profile_16`` (the query's profile made for each pair, as a pair
run must), each the best of ``--repeat`` rounds. Scores are compared; the run fails if any differs.
Prints one line a measurement: ``engine=... mode=... seconds=... gcups=...``.
"""

from __future__ import annotations

import argparse
import os
import platform

from seqalign_cli import matrices
from seqalign_cli.backends.cpu.pairwise import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.io import alphabet
from seqalign_cli.io.encode import make_batch

from bench_cpu import bench  # the best of some rounds (benchmarks/ is the script's folder)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "protein")
PARASAIL = {"global": "nw", "semi-global": "sg", "glocal": "sg_dx", "local": "sw"}


def sequences(path: str) -> list[str]:
    with open(path) as f:
        return [line.strip().upper() for line in f if not line.startswith(">")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", default="local")
    args = ap.parse_args()
    import parasail

    alphabet.use("protein")
    qs, ts = sequences(os.path.join(DATA, "pairs.query.fa")), sequences(os.path.join(DATA, "pairs.target.fa"))
    # parasail scores a letter outside its alphabet as '*': give it X, the engine's rule
    known = set("ARNDCQEGHILKMFPSTWYVBZX*")
    pq = ["".join(c if c in known else "X" for c in q) for q in qs]
    pt = ["".join(c if c in known else "X" for c in t) for t in ts]
    batch = make_batch([q.encode() for q in qs], [t.encode() for t in ts])
    cells = batch.cells()
    scoring = Scoring(gap_open=11, gap_extend=1, matrix=matrices.load("BLOSUM62"), alphabet="protein")
    engine = CpuPairwise(args.threads)
    print(f"machine={platform.processor() or platform.machine()} cpus={os.cpu_count()} threads={args.threads} "
          f"pairs={len(qs)} cells={cells}")
    for mode in args.modes.split(","):
        results = {}
        for trace in (False, True):
            cfg = AlignConfig(scoring=scoring, mode=mode, traceback=trace)
            engine.align(batch.subset(list(range(8))), cfg)  # compiled before the clock
            sec, res = bench(lambda: engine.align(batch, cfg), args.repeat)
            results[trace] = [int(s) for s in res.score]
            name = "seqalign-traceback" if trace else "seqalign-score"
            print(f"engine={name} mode={mode} seconds={sec:.3f} gcups={cells / sec / 1e9:.3f}")
        assert results[False] == results[True]
        if args.threads != 1:
            continue
        for kind in ("striped", "scan"):
            fn = getattr(parasail, f"{PARASAIL[mode]}_{kind}_profile_16")

            def run():
                return [fn(parasail.profile_create_16(q, parasail.blosum62), t, 12, 1).score for q, t in zip(pq, pt)]

            sec, scores = bench(run, args.repeat)
            if mode == "semi-global":
                scores = [max(0, s) for s in scores]
            assert scores == results[False], f"parasail {kind} differs"
            print(f"engine=parasail-{PARASAIL[mode]}_{kind}_profile_16 mode={mode} seconds={sec:.3f} "
                  f"gcups={cells / sec / 1e9:.3f}")


if __name__ == "__main__":
    main()
