"""GPU kernel benchmark: GCUPS by length, mode and gap model (``seqalign bench``).

Usage: python benchmarks/bench_gpu.py, or seqalign bench (fewer lengths).

For each length L: random related pairs (query L, target a 5%-mutated copy),
enough of them to fill the GPU; inputs are uploaded once; the kernels of a
whole batch are timed with device events after one warm-up run; the median
of --reps runs is reported. Also used by ``seqalign bench``.
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.families.pairwise.results import Alignments


def related_pairs(L: int, count: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 4, (count, L), dtype=np.uint8)
    t = q.copy()
    hit = rng.random(t.shape) < 0.05
    t[hit] = rng.integers(0, 4, int(hit.sum()), dtype=np.uint8)
    letters = np.frombuffer(b"ACGT", np.uint8)
    return [letters[r].tobytes() for r in q], [letters[r].tobytes() for r in t]


def length_batches(lengths, target_cells):
    """(L, pairs, batch, cells) for each length: enough related pairs to fill the GPU."""
    for L in lengths:
        count = int(min(500_000, max(264, target_cells // (L * L))))
        batch = make_batch(*related_pairs(L, count))
        yield L, count, batch, batch.cells()


def time_kernels(engine, batch, cfg, reps):
    """Median seconds of a batch's kernels, and of the traceback walks among them."""
    import cupy as cp

    qlen = batch.qlen.astype(np.int64)
    tlen = batch.tlen.astype(np.int64)
    out = Alignments.allocate(qlen, tlen, cfg.traceback)
    subset = np.arange(batch.size)
    d = engine.upload(batch, out, cfg, None)
    launches = engine.prepare(qlen, tlen, cfg, subset, d)  # planning and uploads, not timed
    for launch in launches:  # warm-up and compile
        launch.run(cp)
    cp.cuda.Device().synchronize()
    times, walks = [], []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        marks = []  # (after the forward kernel, after the walk) of each launch
        start.record()
        for launch in launches:
            mid, end = cp.cuda.Event(), cp.cuda.Event()
            launch.run(cp, between=mid.record)
            end.record()
            marks.append((mid, end))
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        walks.append(sum(cp.cuda.get_elapsed_time(a, b) for a, b in marks) / 1e3)
    return statistics.median(times), statistics.median(walks)


def run(lengths, modes, scorings=None, reps=5, target_cells=2e10, out=print):
    from seqalign_cli.backends.cuda import device_name
    from seqalign_cli.families.pairwise.gpu import CudaPairwise

    scorings = scorings or {"affine": Scoring()}
    engine = CudaPairwise(0)
    out(f"# {device_name(0)}; kernel time by device events, median of {reps} after warm-up")
    out("length\tpairs\tmode\tgaps\ttraceback\tms\tGCUPS\twalk_ms")
    for L, count, batch, cells in length_batches(lengths, int(target_cells)):
        for mode in modes:
            for gname, sc in scorings.items():
                for trace in (False, True) if L <= 4096 else (False,):
                    cfg = AlignConfig(scoring=sc, mode=mode, traceback=trace)
                    secs, walk = time_kernels(engine, batch, cfg, reps)
                    out(f"{L}\t{count}\t{mode}\t{gname}\t{'yes' if trace else 'no'}\t{secs * 1e3:.2f}\t"
                        f"{cells / secs / 1e9:.0f}\t{walk * 1e3:.2f}")


def _compile_one(args):
    from seqalign_cli.families.pairwise import gpu_subwarp as subwarp

    subwarp.kernels(0, *args)
    return args


def precompile(variants, workers=None):
    """Compile kernel variants in parallel processes (fills CuPy's disk cache)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(workers or min(16, mp.cpu_count())) as pool:
        for _ in pool.imap_unordered(_compile_one, variants):
            pass


def sweep(lengths, groups, rows, reps, target_cells, out=print):
    """GCUPS of every fixed (G, R) shape, the plan and the warp kernel, global affine.

    The figures the plan's costs are fitted to: for each length, which shape
    is fastest, with int32 and 16-bit lanes, with and without traceback.
    """
    from seqalign_cli.backends.cuda import device_name
    from seqalign_cli.families.pairwise.gpu import CudaPairwise, Tuning

    shapes = [(g, r) for g in groups for r in rows]
    precompile([(0, t, g, r, p) for g, r in shapes for t in (False, True) for p in (False, True)])
    engine = CudaPairwise(0)
    sc = Scoring()
    out(f"# {device_name(0)}; global affine; kernel time by device events, median of {reps} after warm-up")
    out("length\tpairs\tkernel\tG\tR\tlanes\ttraceback\tms\tGCUPS")
    for L, count, batch, cells in length_batches(lengths, int(target_cells)):
        runs = [("warp", None), ("plan", None)] + [("subwarp", sh) for sh in shapes]
        for kernel, shape in runs:
            for trace, pack in ((False, True), (False, False), (True, True), (True, False)):
                if trace and L > 4096:
                    continue
                engine.tuning = Tuning("warp" if kernel == "warp" else "subwarp", shape, pack)
                if shape and (L + shape[0] * shape[1] - 1) // (shape[0] * shape[1]) > 64:
                    continue  # hundreds of stages: not a candidate
                cfg = AlignConfig(scoring=sc, mode="global", traceback=trace)
                secs, _ = time_kernels(engine, batch, cfg, reps)
                g, r = shape or ("-", "-")
                out(f"{L}\t{count}\t{kernel}\t{g}\t{r}\t{16 if pack else 32}\t{'yes' if trace else 'no'}\t"
                    f"{secs * 1e3:.2f}\t{cells / secs / 1e9:.0f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="64,150,256,512,1024,4096,16384")
    ap.add_argument("--modes", default="global,semi-global,glocal,local")
    ap.add_argument("--gaps", default="affine,linear")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cells", type=float, default=2e10, help="cells per batch (default 2e10)")
    ap.add_argument("--sweep", action="store_true", help="time every (G, R) shape of the subwarp kernel")
    ap.add_argument("--groups", default="1,4,8,16,32")
    ap.add_argument("--rows", default="4,8,12,16,20")
    args = ap.parse_args()
    if args.sweep:
        sweep([int(x) for x in args.lengths.split(",")], [int(x) for x in args.groups.split(",")],
              [int(x) for x in args.rows.split(",")], args.reps, int(args.cells))
        return
    scorings = {"affine": Scoring(), "linear": Scoring(gap_open=0)}
    run([int(x) for x in args.lengths.split(",")], args.modes.split(","),
        {k: scorings[k] for k in args.gaps.split(",")}, args.reps, int(args.cells))


if __name__ == "__main__":
    main()
