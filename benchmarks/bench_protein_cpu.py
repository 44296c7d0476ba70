"""The CPU engine on proteins beside parasail's fastest protein Smith-Waterman, same pairs, same thread count.

Usage: python benchmarks/bench_protein_cpu.py [--threads 1] [--repeat 3] [--modes local,global] [--queries 3]

Pairs: the 500 public protein pairs (tests/data/protein, 55-991 aa, 47.9 M cells), BLOSUM62 with gap costs
11 + k (parasail open 12, extend 1): the CPU engine score only and with traceback, and parasail 1.3.4's
``*_striped_profile_16`` and ``*_scan_profile_16`` (the query's profile made for each pair, as a pair
run must), and their traceback functions (``*_trace_striped_profile_16``, ``*_trace_scan_profile_16``, each
result's CIGAR made, as the engine makes its). Search (``--queries`` N > 0): the N shortest public queries against the 2,989-record database,
local, score only: the search's score pass (``striped.local_scores``, one profile a query) beside
parasail's two functions with one profile a query. Each the best of ``--repeat`` rounds; scores are
compared (the run fails if any differs). One line a measurement: ``engine=... mode=... seconds=...
gcups=...`` (search lines: ``mode=search``).
"""

from __future__ import annotations

import argparse
import os
import platform

from seqalign_cli import matrices
from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.io import alphabet
from seqalign_cli.families.pairwise.batch import make_batch

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
    ap.add_argument("--queries", type=int, default=3)
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
        for trace in (False, True):
            for kind in ("striped", "scan"):
                peer(parasail, mode, kind, trace, pq, pt, results[False], cells, args.repeat)
    if args.queries:
        search(args, scoring, parasail)


def peer(parasail, mode, kind, trace, pq, pt, want, cells, repeat):
    """One of parasail's profile functions on the pairs (``trace``: its traceback function, each CIGAR made),
    its scores checked against ``want``; prints its line."""
    name = f"{PARASAIL[mode]}_{'trace_' if trace else ''}{kind}_profile_16"
    fn = getattr(parasail, name)

    def run():
        out = []
        for q, t in zip(pq, pt):
            res = fn(parasail.profile_create_16(q, parasail.blosum62), t, 12, 1)
            if trace:
                res.get_cigar()
            out.append(res.score)
        return out

    sec, scores = bench(run, repeat)
    if mode == "semi-global":
        scores = [max(0, s) for s in scores]
    assert scores == want, f"parasail {name} differs"
    print(f"engine=parasail-{name} mode={mode} seconds={sec:.3f} gcups={cells / sec / 1e9:.3f}")


def search(args, scoring, parasail):
    """The search's score pass and parasail's, the same queries against the same database."""
    import gzip

    import numpy as np

    from seqalign_cli.families.pairwise import cpu_striped as striped
    from seqalign_cli.families.search.cpu import substitution_array
    from seqalign_cli.io.encode import encode
    from seqalign_cli.jit import nb

    with gzip.open(os.path.join(DATA, "db.fa.gz"), "rt") as f:
        db = [rec.split("\n", 1)[1].replace("\n", "").upper() for rec in f.read().split(">")[1:]]
    with open(os.path.join(DATA, "queries.fa")) as f:
        queries = [rec.split("\n", 1)[1].replace("\n", "").upper() for rec in f.read().split(">")[1:]]
    queries = sorted(queries, key=len)[:args.queries]
    known = set("ARNDCQEGHILKMFPSTWYVBZX*")
    norm = [("".join(c if c in known else "X" for c in t)) for t in db]
    codes = [encode(t) for t in db]
    offs = np.zeros(len(codes) + 1, np.int64)
    offs[1:] = np.cumsum([len(c) for c in codes])
    flat = np.concatenate(codes)
    order = np.argsort(-np.diff(offs), kind="stable")
    S = substitution_array(scoring)
    cells = sum(len(q) for q in queries) * int(offs[-1])
    nb.set_num_threads(args.threads)

    def ours():
        out = []
        for q in queries:
            got = striped.local_scores(encode(q), S, flat, offs, order, scoring.gap_open, scoring.gap_extend)
            row = np.empty(len(db), np.int64)
            row[order] = got
            out += row.tolist()
        return out

    ours()
    sec, want = bench(ours, args.repeat)
    print(f"engine=seqalign-search-striped mode=search seconds={sec:.3f} gcups={cells / sec / 1e9:.3f}")
    if args.threads != 1:
        return
    for kind in ("striped", "scan"):
        fn = getattr(parasail, f"sw_{kind}_profile_16")

        def run():
            out = []
            for q in queries:
                prof = parasail.profile_create_16("".join(c if c in known else "X" for c in q), parasail.blosum62)
                out += [fn(prof, t, 12, 1).score for t in norm]
            return out

        sec, got = bench(run, args.repeat)
        assert got == want, f"parasail {kind} differs"
        print(f"engine=parasail-sw_{kind}_profile_16 mode=search seconds={sec:.3f} gcups={cells / sec / 1e9:.3f}")


if __name__ == "__main__":
    main()
