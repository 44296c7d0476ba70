"""The triplet family's benchmark behind ``seqalign bench --family triplet``: TCUPS of the triplet kernels by
length and mode, on related triplets.
"""

from __future__ import annotations

import statistics

import numpy as np

from ...config import AlignConfig, Mode, Scoring
from . import plan
from .batch import TripletBatch
from .gpu import CudaTriplet
from .plan import MODES, Tuning
from .results import TripletAlignments


def related_triplets(L: int, count: int, seed: int = 1) -> TripletBatch:
    """``count`` triplets of length L: a random A, B and C its copies with 5% of substitutions each."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, (count, L), dtype=np.uint8)
    seqs = [a]
    for _ in range(2):
        s = a.copy()
        hit = rng.random(s.shape) < 0.05
        s[hit] = rng.integers(0, 4, int(hit.sum()), dtype=np.uint8)
        seqs.append(s)
    off = np.arange(count + 1, dtype=np.int64) * L
    return TripletBatch(tuple(s.reshape(-1) for s in seqs), (off, off.copy(), off.copy()))


def time_triplets(engine: CudaTriplet, batch: TripletBatch, cfg: AlignConfig, reps: int = 5) -> float:
    """Median seconds of a batch's kernels (device events, after one warm-up run that compiles them)."""
    import cupy as cp

    out = TripletAlignments.allocate(batch.lengths, cfg.traceback)
    d = engine.upload(batch, out, cfg, None)
    launches = engine.prepare(batch, cfg, np.arange(batch.size), d)
    for launch in launches:
        launch.run(cp, engine.scratch)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for launch in launches:
            launch.run(cp, engine.scratch)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def _wave_text(wave_tiles) -> str:
    return "the rule" if wave_tiles is None else "none" if wave_tiles == 0 else f"{wave_tiles} tiles"


def bench_run(lengths, modes, scorings=None, reps: int = 5, target_cells: float = 2e10, out=print,
              tuning: Tuning = Tuning(), traceback: bool = False, matrix_mb: int = 256):
    """TCUPS (3-D cells n1*n2*n3 a second) of the triplet kernels by length and mode.

    The signature of ``seqalign bench``'s call (lengths, modes, scorings,
    reps, target cells); ``scorings`` maps a name to a ``Scoring`` (None:
    the defaults with linear gaps); affine ones time the affine kernels, and
    modes the family does not have (glocal) are skipped. Enough related
    triplets of each length to reach ``target_cells`` cells (264 at least, 2,000,000 at most). Traceback
    under ``--max-matrix-mb`` ``matrix_mb`` (the command's default): past it, windows of slices.
    """
    from ...backends.cuda import device_name

    scorings = scorings or {"linear": Scoring(gap_open=0)}
    engine = CudaTriplet(0, tuning)
    out(f"# {device_name(0)}; kernel time by device events, median of {reps} after warm-up; "
        f"plan {tuning.shape or 'PLAN'}, 16-bit lanes {'on' if tuning.pack16 else 'off'}, tile wave from "
        f"{_wave_text(plan.WAVE_TILES if tuning.wave_tiles is None else tuning.wave_tiles)}"
        + (f", traceback within {matrix_mb} MB a triplet" if traceback else ""))
    out("length\ttriplets\tmode\tscoring\tms\tTCUPS")
    for L in lengths:
        count = int(min(2_000_000, max(264, target_cells // max(L, 1) ** 3)))
        batch = related_triplets(int(L), count)
        cells = batch.cells()
        for mode in modes:
            if Mode.parse(mode) not in MODES:
                continue
            for name, sc in scorings.items():
                cfg = AlignConfig(scoring=sc, mode=mode, traceback=traceback, matrix_budget=matrix_mb << 20)
                secs = time_triplets(engine, batch, cfg, reps)
                out(f"{L}\t{count}\t{mode}\t{name}\t{secs * 1e3:.2f}\t{cells / secs / 1e12:.3f}")
