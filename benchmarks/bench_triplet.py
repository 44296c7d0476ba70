"""Triplet throughput: 3-D cells per second of the CPU engine and, with a GPU, of the kernels.

Usage: python benchmarks/bench_triplet.py [--lengths 64,128,256] [--modes global,semi-global,local]
                                          [--cpu-triplets 16] [--threads 1] [--gap-open 0] [--gpu] [--reps 3]
                                          [--sweep 1:4,4:4,16:6] [--wave 0,rule,2]

CPU: triplets of three 5 %-mutated copies of a random sequence of each
length, aligned by ``CpuTriplet`` (score only and with traceback), after a
warm-up (compile) on two of them; GCUPS = n1*n2*n3 cells a second;
``--gap-open`` > 0 times the affine engine (linear gaps otherwise). GPU
(``--gpu``): ``families.triplet.bench.bench_run`` (kernel time by device
events; ``--gap-open`` > 0: the affine kernels); ``--wave`` times the tile
wave's thresholds side by side.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.triplet.batch import make_triplets


def related(L: int, count: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGT", np.uint8)
    base = rng.integers(0, 4, (count, L))

    def copy():
        out = base.copy()
        hit = rng.random(out.shape) < 0.05
        out[hit] = rng.integers(0, 4, int(hit.sum()))
        return [letters[r].tobytes() for r in out]

    return make_triplets(copy(), copy(), copy())


def cpu(lengths, modes, count, threads, reps=3, out=print, gap_open=0):
    from seqalign_cli.families.triplet.cpu import CpuTriplet

    engine = CpuTriplet(threads)
    scoring = Scoring(gap_open=gap_open)
    out(f"# CPU engine, {engine.threads} thread(s), {count} triplets a length, best of {reps}, gap open {gap_open}")
    out("length\tmode\ttraceback\tseconds\tGCUPS")
    for L in lengths:
        batch = related(L, count)
        for mode in modes:
            for trace in (False, True):
                cfg = AlignConfig(scoring=scoring, mode=mode, traceback=trace)
                engine.align(batch.subset(np.arange(2)), cfg)
                secs = float("inf")
                for _ in range(reps):
                    t0 = time.perf_counter()
                    engine.align(batch, cfg)
                    secs = min(secs, time.perf_counter() - t0)
                out(f"{L}\t{mode}\t{'yes' if trace else 'no'}\t{secs:.3f}\t{batch.cells() / secs / 1e9:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="64,128,256")
    ap.add_argument("--modes", default="global,semi-global,local")
    ap.add_argument("--cpu-triplets", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--gap-open", type=int, default=0, help="above 0, the affine engine (CPU) or kernels (GPU)")
    ap.add_argument("--gpu", action="store_true", help="time the GPU kernels instead of the CPU engine")
    ap.add_argument("--traceback", action="store_true", help="GPU: the traceback kernels (forward with codes, walk)")
    ap.add_argument("--affine-threads", default=None, metavar="N,...",
                    help="GPU, --gap-open > 0: blocks of at most N threads (the plan's MAX_THREADS), for each N")
    ap.add_argument("--affine-chunk", default=None, metavar="N,...",
                    help="GPU, --gap-open > 0: row chunks of N cells (the plan's CHUNK), for each N")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-matrix-mb", type=int, default=256,
                    help="GPU, --traceback: codes a triplet keeps at once (the command's option and default)")
    ap.add_argument("--cells", type=float, default=2e10, help="GPU: 3-D cells a batch")
    ap.add_argument("--sweep", default=None, metavar="T:R,...",
                    help="GPU: time these fixed shapes (lanes T, square side R) in 16-bit and int32 lanes "
                         "(with --traceback: the traceback kernels, the sweep only)")
    ap.add_argument("--wave", default=None, metavar="N,...",
                    help="GPU: time with work items of at least N tiles as a tile wave (0: none; 'rule': the "
                         "engine's rule, the default), for each N")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    modes = args.modes.split(",")
    if args.sweep:
        from seqalign_cli.families.triplet.bench import bench_run
        from seqalign_cli.families.triplet.plan import Tuning

        for shape in args.sweep.split(","):
            T, R = (int(x) for x in shape.split(":"))
            for pack16 in (True, False):
                bench_run(lengths, modes, reps=args.reps, target_cells=args.cells, traceback=args.traceback,
                          tuning=Tuning((T, R), pack16, wave_tiles=0 if args.traceback else None),
                          matrix_mb=args.max_matrix_mb)
    elif args.gpu:
        from seqalign_cli.families.triplet.bench import bench_run
        from seqalign_cli.families.triplet.plan import Tuning

        from seqalign_cli.families.triplet import gpu_affine as triplet_affine

        scorings = {"affine" if args.gap_open else "linear": Scoring(gap_open=args.gap_open)}
        for wave in (args.wave.split(",") if args.wave else [None]):
            for threads, chunk in itertools.product(*(v.split(",") if v else [None] for v in (
                    args.affine_threads, args.affine_chunk))):
                for name, value in (("MAX_THREADS", threads), ("CHUNK", chunk)):
                    if value is not None:
                        setattr(triplet_affine, name, int(value))
                        print(f"# affine kernels: {name} {value}")
                bench_run(lengths, modes, scorings, reps=args.reps, target_cells=args.cells,
                          traceback=args.traceback, matrix_mb=args.max_matrix_mb,
                          tuning=Tuning(wave_tiles=None if wave in (None, "rule") else int(wave)))
    else:
        cpu(lengths, modes, args.cpu_triplets, args.threads, args.reps, gap_open=args.gap_open)


if __name__ == "__main__":
    main()
