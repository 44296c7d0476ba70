"""End to end on a mix of short and long pairs (16 bp to 20 kb), for one GPU against several.

Usage: python benchmarks/e2e_mix.py [--pairs 40000] [--seed 1] [--min-len 16] [--max-len 20000]
                                    [--devices 0 all] [--runs 2] [--score-only] [--formats tsv] ...

Writes ``--pairs`` synthetic pairs to a temporary folder: query lengths
log-uniform between the two bounds (as many pairs of 16-160 bp as of 2-20
kb), random bases, the target a copy with 5 % substitutions and 1 %
deletions, both in random order of length. Then times ``seqalign pair`` on
them with each device setting, as ``e2e_gasal2.py`` does (the same options:
records per second, the ratio to the first setting and whether the output
is the same as the first setting's). Prints the cells of the whole set too.
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np

from e2e_gasal2 import add_run_options, time_settings, write_bytecode


def mutate(rng: np.random.Generator, seq: np.ndarray) -> np.ndarray:
    """``seq`` with 5 % substitutions (to another base) and 1 % deletions."""
    out = seq.copy()
    sub = rng.random(len(seq)) < 0.05
    out[sub] = (out[sub] + rng.integers(1, 4, int(sub.sum()))) % 4
    return out[rng.random(len(seq)) >= 0.01]


def write_pairs(folder: str, pairs: int, seed: int, lo: int, hi: int) -> tuple[list[str], int]:
    """The two FASTA files of the mix; returns their paths and the cells of all pairs."""
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGT", np.uint8)
    lengths = np.exp(rng.uniform(np.log(lo), np.log(hi), pairs)).astype(np.int64)
    paths = [os.path.join(folder, "q.fa"), os.path.join(folder, "t.fa")]
    cells = 0
    with open(paths[0], "wb") as fq, open(paths[1], "wb") as ft:
        for k, n in enumerate(lengths):
            q = rng.integers(0, 4, int(n))
            t = mutate(rng, q)
            cells += len(q) * len(t)
            fq.write(b">p%d\n%s\n" % (k, letters[q].tobytes()))
            ft.write(b">p%d\n%s\n" % (k, letters[t].tobytes()))
    return paths, cells


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-len", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=20_000)
    add_run_options(ap)
    args = ap.parse_args()
    if args.bytecode:
        write_bytecode()
    tmp = tempfile.mkdtemp()
    paths, cells = write_pairs(tmp, args.pairs, args.seed, args.min_len, args.max_len)
    print(f"mix: {args.pairs} pairs of {args.min_len}-{args.max_len} bp, {cells / 1e9:.1f} G cells")
    time_settings(args, paths, args.pairs, tmp)


if __name__ == "__main__":
    main()
