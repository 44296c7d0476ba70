"""One batch's host work on the GPU, alone in one thread: wall and CPU time a batch, then where the CPU goes.

Usage: python benchmarks/profile_batch.py [--pairs 65536] [--score-only] [--reps 20] [--top 40] [--ahead]
                                          [--query Q --target T]

Reads the first ``--pairs`` GASAL2 pairs (the 20,000 pairs written as often as
needed), chooses the cuda backend as a run does, and aligns that one batch
``--reps`` times through the scheduler (``start`` and ``result``: routing,
allocation, upload, plan, kernels, copy back, results), with no reader,
writer or formatting thread beside it. Prints the wall and CPU time of a
batch (median), so that the host cost of a batch can be told apart from
waiting for the interpreter lock in a real run, then the same reps under
cProfile (one thread: its times are this thread's), by own time and by
cumulative time. The wait for the kernels (``stream.synchronize``) spins, so
it counts as CPU time here.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time

from host_path import DATA, replicate

from seqalign_cli import families
from seqalign_cli.backends import select_backend
from seqalign_cli.config import AlignConfig
from seqalign_cli.families.pairwise.chunks import PairInputs, pair_chunks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--query", default=os.path.join(DATA, "query_batch.fasta.gz"))
    ap.add_argument("--target", default=os.path.join(DATA, "target_batch.fasta.gz"))
    ap.add_argument("--pairs", type=int, default=65536)
    ap.add_argument("--score-only", action="store_true")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--ahead", action="store_true",
                    help="plan the batch first, as the reading thread of a run does (untimed): the aligning thread's part")
    args = ap.parse_args()
    # the backend first: as in a run, the readers then encode into page-locked buffers
    backend = select_backend(families.get("pairwise"), "cuda", 16, lambda m: print(m, file=sys.stderr), 0)
    with tempfile.TemporaryDirectory() as tmp:
        q, t = os.path.join(tmp, "q.fa"), os.path.join(tmp, "t.fa")
        copies = -(-args.pairs // 20000)
        replicate(args.query, q, copies)
        replicate(args.target, t, copies)
        chunks = pair_chunks(PairInputs(q, t), args.pairs)
        batch = next(iter(chunks)).batch()
        chunks.close()
    cfg = AlignConfig(traceback=not args.score_only)
    if args.ahead:
        t0 = time.perf_counter()
        backend.plan_ahead(batch, cfg)
        print(f"planned ahead in {1e3 * (time.perf_counter() - t0):.1f} ms (the reading thread's part)")
    for _ in range(3):  # kernels loaded, pools filled
        backend.start(batch, cfg).result()
    walls, cpus, starts = [], [], []
    for _ in range(args.reps):
        w, c = time.perf_counter(), time.thread_time()
        pending = backend.start(batch, cfg)
        starts.append(time.perf_counter() - w)
        pending.result()
        walls.append(time.perf_counter() - w)
        cpus.append(time.thread_time() - c)
    ms = lambda xs: f"{1e3 * statistics.median(xs):.1f} ms"  # noqa: E731
    print(f"{batch.size} pairs a batch, {'score only' if args.score_only else 'traceback'}: wall {ms(walls)}, "
          f"CPU {ms(cpus)} (start, what the aligning thread does: {ms(starts)}); medians of {args.reps}")
    print("steps (host seconds over all reps and warm-ups):",
          ", ".join(f"{k} {v:.3f}" for k, v in backend.steps().items()))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.reps):
        backend.start(batch, cfg).result()
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
