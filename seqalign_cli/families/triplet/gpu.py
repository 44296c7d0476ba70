"""Triplet (exact 3-way) alignment on the GPU: the hooks, the device copy of a batch, the launches (benchmark: ``bench.py``).

Kernels: ``kernels/triplet.cu`` (TrioSeq's mapping): a group of T = S*S
lanes per triplet, each lane an R x R square of the (j, k) slice held in
registers, the group sweeping A one slice at a time as an anti-diagonal
wavefront over its S x S squares. ``triplet_score<MODE, R, T, W>`` holds one
triplet a group in int32 lanes; ``triplet_score16<MODE, R, T, W>`` two
triplets a group in 16-bit halves; score only, triplets of short sequences
(slice sides up to ``SMALL``'s largest) run ``triplet_small16<MODE, Q>``, one
thread holding the whole Q x Q slice of two triplets. Which triplets run in which launch,
shape, lane width and layout is the plan's (``plan.py``: shapes,
tiles and border scratch, the tile wave, direction bytes and traceback
windows, ``plan_launches``); here the launches are uploaded and queued.

What ``HOOKS.on_gpu`` sends here is the triplets whose score bound fits
int32 lanes, whose pair scores fit the kernels' byte profiles and, with
traceback, whose direction bytes (``dir_bytes``) fit ``trace_budget``
(``--max-matrix-mb``), whole or in windows of slices; the rest go to the
CPU engine (``cpu.py``), which gives the
same scores, end cells and alignments. Score only, ``results`` fills score
and end (``TripletAlignments.finish`` sets the starts).

Traceback: ``triplet_trace<MODE, R, T, W>`` (int32 lanes, the plan's
shapes; ``triplet_trace16`` for two triplets a group where values fit, as
for scores) runs the same sweep and writes each cell's direction byte (the
column kind that wins, the first of equal ones in kind order, or 7 where
the alignment starts; or, for the plan's ``VALUES_LANES`` where the scoring
allows, ``Scoring.triplet_values_fit``, the low byte of the cell's value, from which the walk
finds the kinds) into the triplet's region of ``dir_bytes`` bytes
(by its own lengths, in either lane width), laid out so that a group's
stores coalesce (kernels/triplet.cu, the header);
``triplet_walk<MODE, R, T>`` (the same shape) then follows the bytes back
from the end cell, one thread a triplet, and writes the runs of kinds in
the triplet's slots of ``out.columns`` (as the CPU engine lays them out),
the start and the run count in ``info``. A launch's codes take a work area
of a share of the device's memory (``DIRS_SHARE``); every run slot is
copied back after the kernels (``device.copy_runs_back``), and ``results``
takes the runs from there (``device.fetch_runs``). A launch in windows of
slices (``LaunchPlan.windows``) runs its sweep and its walk once a window,
from the end cell's window down: the first sweep covers every slice and
keeps the slice below each other window (``checkpoint_ints``), from which
that window's sweep starts; each walk goes on where the one above left
the triplet (its cell and runs so far in ``info``).

Benchmarks: ``time_triplets`` (kernel time of one batch) and ``bench_run``
(TCUPS by length and mode, what ``seqalign bench --family triplet`` runs).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from ...backends.cuda.device import DeviceEngine, Job, copy_back, copy_runs_back, fetch_runs, upload, upload_runs
from ...backends.cuda.launch import NULL, scores
from ...backends.cuda.loader import module
from ...config import AlignConfig
from ...protocols import Hooks
from . import gpu_affine as affine
from . import plan
from .batch import TripletBatch
from .gpu_args import SweepArgs, SweepTraceArgs, Triplets, WalkArgs
from .plan import (INT32_LIMIT, MODES, THREADS, LaunchPlan, Tuning, border_ints, kernel_name, plan_launches,
                   plan_shapes, scoring_fits, trace_budget, walk_name, window_slices)
from .results import TripletAlignments

KERNEL = "triplet.cu"
#: a device takes launches of direction bytes up to this share of its memory (at least DIRS_BYTES): the
#: launch's triplets must fill the GPU, or its items go to the tile wave. Two batches in flight hold two
#: such areas (``DeviceEngine.scratch``). 1,000 triplets of 150 bp take 4.4 GB of codes; an H100 runs
#: 4,224 at once in 16-bit lanes (two blocks a multiprocessor).
DIRS_SHARE = 0.25
#: int32 values of ``info`` a triplet (traceback): start i, j, k and the run count
INFO = 4


class TripletHooks(Hooks):
    """What the GPU scheduler asks of the triplet family."""

    @staticmethod
    def allocate(batch: TripletBatch, cfg: AlignConfig) -> TripletAlignments:
        return TripletAlignments.allocate(batch.lengths, cfg.traceback)

    @staticmethod
    def on_gpu(batch: TripletBatch, cfg: AlignConfig) -> np.ndarray:
        """The triplets a GPU aligns: scores within int32 lanes; with traceback, windows of codes within budget.

        None where the configuration is one the kernels do not take
        (glocal, scoring values past the byte profile with linear gaps: the CPU
        engine aligns them, or reports what it refuses); a triplet whose border scratch
        alone would pass BORDER_BYTES stays on the CPU too, and with
        traceback one whose direction bytes (``dir_bytes``) pass
        ``trace_budget`` even in windows of slices (``window_slices``): the
        CPU engine traces it back by checkpoints. Affine gaps: the routes of
        ``gpu_affine.routes``. ``routes`` says why.
        """
        return TripletHooks.routes(batch, cfg) == 0

    @staticmethod
    def routes(batch: TripletBatch, cfg: AlignConfig) -> np.ndarray:
        """Each triplet's route: 0 the GPU, else the CPU engine because of the reason ``CPU_REASONS[r - 1]``."""
        lengths = batch.lengths
        if cfg.scoring.gap_open and cfg.mode_code in MODES:
            return affine.routes(lengths, cfg)
        if not scoring_fits(cfg):
            return np.full(len(lengths), 1, np.int8)
        T, R = plan_shapes(lengths, cfg.mode_code, cfg.traceback, cfg.scoring)
        route = np.zeros(len(lengths), np.int8)
        if cfg.traceback:
            route[window_slices(lengths, cfg.mode_code, trace_budget(cfg), T, R) < 0] = 4
        route[border_ints(lengths, T, R) * 4 > plan.BORDER_BYTES] = 3
        route[cfg.scoring.triplet_bound(lengths) >= INT32_LIMIT] = 2
        return route

    @staticmethod
    def cpu_note(batch: TripletBatch, cfg: AlignConfig, idx: np.ndarray) -> str | None:
        """The line a GPU run says (once) when the triplets ``idx`` of ``batch`` go to the CPU engine (none for a
        configuration the CPU engine refuses: its error says it)."""
        if cfg.mode_code not in MODES:
            return None
        route = TripletHooks.routes(batch, cfg)[idx]
        route = route[route > 0]
        if not len(route):
            return None
        why = CPU_REASONS[int(np.bincount(route).argmax()) - 1]
        return f"{len(idx)} of {batch.size} triplets of a batch go to the CPU engine: {why}" + (
            f" ({cfg.matrix_budget >> 20} MB)"
            if "--max-matrix-mb" in why else "")


#: why the CPU engine aligns a triplet of a GPU run (``TripletHooks.routes``)
CPU_REASONS = (
    "scoring values above 127 (the GPU kernels' byte profiles)",
    "scores that could pass 32-bit lanes",
    "a cube too large for the GPU's border scratch",
    "traceback codes past --max-matrix-mb even in windows of slices",
    "affine traceback words (4 bytes a cell) past --max-matrix-mb even in windows of slices",
)


HOOKS = TripletHooks()


@dataclass
class _DeviceBatch:
    """A batch's codes, offsets and results on the device."""

    codes: tuple
    offs: tuple
    out: object
    run_off: object = None  # traceback: out.columns.off, the runs (op, length) and info (start, run count)
    run_op: object = None
    run_len: object = None
    info: object = None


class _Launch:
    """A planned launch with its inputs on the device; ``run`` queues it (the scratch is allocated then)."""

    def __init__(self, cp, device: int, d: _DeviceBatch, plan: LaunchPlan, cfg: AlignConfig):
        walk = walk_name(cfg.mode_code, plan.R, plan.T)
        mod = module(KERNEL, (plan.name, walk) if plan.trace else (plan.name,), device)
        self.fn = mod.get_function(plan.name)
        self.plan = plan
        self.order = cp.asarray(plan.order)
        self.border_off = cp.asarray(plan.border_off) if plan.border_off is not None else cp.zeros(1, np.int64)
        sc = cfg.scoring
        self.tiles = cp.asarray(plan.tiles.reshape(-1)) if plan.ntiles else cp.zeros(1, np.int32)
        # the sweep's fields but the scratch (``border``, ``sync``), allocated when the launch runs
        self.sweep = dict(Triplets.of(d, self.order), nwork=np.int32(plan.nwork), **scores(sc),
                          border_off=self.border_off, out=d.out, tiles=self.tiles, ntiles=np.int32(plan.ntiles))
        if plan.trace:
            self.walk = mod.get_function(walk)
            self.dir_off = cp.asarray(plan.dir_off)
            self.wslices = cp.asarray(plan.wslices) if plan.wslices is not None else NULL
            self.ck_off = cp.asarray(plan.ck_off) if plan.ck_off is not None else NULL
            # one thread a triplet: every slot of order (two a work item in 16-bit lanes)
            self.walk_fields = dict(
                order=self.order, nwork=np.int32(len(plan.order)), aoff=d.offs[0], boff=d.offs[1], coff=d.offs[2],
                out=d.out, dir_off=self.dir_off, run_off=d.run_off, run_op=d.run_op, run_len=d.run_len, info=d.info,
                a=d.codes[0], b=d.codes[1], c=d.codes[2],
                **scores(sc, ("match", "mismatch", "gap_extend", "n_penalty")), vals=np.int32(plan.values))

    def run(self, cp, scratch):
        """Queue the launch on the current stream (``scratch``: ``DeviceEngine.scratch``, the codes' area)."""
        border = cp.empty(max(self.plan.border_size, 1), np.int32)
        sync = cp.zeros(self.plan.sync_size, np.int32) if self.plan.ntiles else self.tiles  # unused without tiles
        if not self.plan.trace:
            self.fn((self.plan.grid,), (THREADS,), SweepArgs(**self.sweep, border=border, sync=sync).values())
            return
        dirs = scratch("dirs", self.plan.dir_size)
        ck = scratch("checkpoints", 4 * self.plan.ck_size).view(np.int32) if self.plan.ck_size else NULL
        grid = (len(self.plan.order) + THREADS - 1) // THREADS
        for q in range(self.plan.windows):  # from the last window (the end cell's) to the first
            if q and self.plan.ntiles:
                sync.fill(0)
            window = dict(wslices=self.wslices, wq=np.int32(q), ck=ck, ck_off=self.ck_off)
            self.fn((self.plan.grid,), (THREADS,),
                    SweepTraceArgs(**self.sweep, border=border, sync=sync, dirs=dirs, dir_off=self.dir_off,
                                   **window).values())
            self.walk((grid,), (THREADS,), WalkArgs(**self.walk_fields, dirs=dirs, **window).values())


class CudaTriplet(DeviceEngine):
    """Scores triplets on one device (``device.DeviceEngine``'s job cycle; see the module's docstring)."""

    def __init__(self, device: int = 0, tuning: Tuning = Tuning()):
        super().__init__(device)
        dev = self.cp.cuda.Device(device)
        share = max(plan.DIRS_BYTES, int(dev.mem_info[1] * DIRS_SHARE))
        self.tuning = replace(tuning, sms=dev.attributes["MultiProcessorCount"], dirs_bytes=tuning.dirs_bytes or share)

    def upload(self, batch: TripletBatch, out: TripletAlignments, cfg: AlignConfig, staged: list | None):
        """The batch's device copy, queued on the current stream (see ``device.upload``)."""
        cp = self.cp
        one = np.zeros(1, np.uint8)
        codes = tuple(upload(cp, c if len(c) else one, staged) for c in batch.codes)
        offs = tuple(upload(cp, np.asarray(o, np.int64), staged) for o in batch.offs)
        d = _DeviceBatch(codes, offs, cp.zeros(4 * max(batch.size, 1), np.int32))
        if cfg.traceback:
            d.run_off, d.run_op, d.run_len = upload_runs(cp, out.columns, staged)
            d.info = cp.zeros(INFO * max(batch.size, 1), np.int32)
        return d

    def prepare(self, batch: TripletBatch, cfg: AlignConfig, subset: np.ndarray, d: _DeviceBatch) -> list:
        """The launches of ``subset``, their inputs uploaded (not timed by benchmarks)."""
        if cfg.scoring.gap_open:
            return [affine.AffineLaunch(self.cp, self.device, d, plan, cfg)
                    for plan in affine.plan_affine(batch.lengths, subset, cfg.traceback, self.tuning.dirs_bytes,
                                                   trace_budget(cfg))]
        return [_Launch(self.cp, self.device, d, plan, cfg)
                for plan in plan_launches(batch.lengths, subset, cfg, self.tuning)]

    def queue(self, batch, cfg, subset, out, d, stream, clock) -> Job:
        """Plan and queue the kernels of ``subset``, then the copy back of scores, end cells (and starts)."""
        launches = self.prepare(batch, cfg, subset, d)
        clock("prepare")
        for launch in launches:
            launch.run(self.cp, self.scratch)
        host = {"out": copy_back(d.out, (max(batch.size, 1), 4), stream)}
        if cfg.traceback:
            host["info"] = copy_back(d.info, (max(batch.size, 1), INFO), stream)
            host.update(copy_runs_back(d.run_op, d.run_len, stream))  # the kernels run long: see fetch_runs
        clock("kernels")
        return Job(batch, cfg, subset, out, d, stream, host)

    def results(self, job: Job, clock, whole: bool):
        """Fill score and end of ``job.subset``; with traceback starts and runs too (else: ``finish``).

        ``whole``: no other engine writes ``out``, so it takes the runs' host copy as it is (``fetch_runs``).
        """
        res = job.host["out"]
        subset = job.subset
        job.out.score[subset] = res[subset, 0]
        job.out.end[subset] = res[subset, 1:4]
        if job.cfg.traceback:
            info = job.host["info"]
            job.out.start[subset] = info[subset, 0:3]
            job.out.columns.count[subset] = info[subset, 3]
            d = job.d
            fetch_runs(self.cp, job.out.columns, d.run_off, d.run_op, d.run_len, subset, whole, job.host)


def compile_checks() -> dict[str, tuple[str, ...]]:
    """The variants ``seqalign info`` and the build check compile (backends/cuda/variants.py): every mode, each
    group size, int32 and 16-bit lanes, traceback (in windows too; codes and values' bytes); the affine kernels."""
    linear = (tuple(kernel_name(m, r, t, p, wave=w) for m in MODES for t, r, p, w in
                    ((1, 4, False, False), (4, 6, False, False), (16, 8, False, False), (16, 6, False, True),
                     (1, 4, True, False), (4, 6, True, False), (16, 6, True, False), (16, 6, True, True),
                     (4, 7, False, False), (4, 7, True, False), (16, 7, False, False), (16, 7, True, False),
                     (16, 7, False, True), (16, 7, True, True)))
              + tuple(kernel_name(m, r, t, p, trace=True, wave=w, values=v) for m in MODES for t, r, p, w in
                      ((1, 4, False, False), (4, 6, False, False), (16, 6, False, False), (16, 6, False, True),
                       (1, 4, True, False), (4, 6, True, False), (16, 6, True, False), (16, 6, True, True))
                      for v in (False, True))
              + tuple(kernel_name(m, 6, 16, p, trace=True, wave=w, windows=True, values=v) for m in MODES
                      for p, w, v in itertools.product((False, True), repeat=3))
              + tuple(walk_name(m, r, t) for m in MODES for t, r in ((1, 4), (4, 6), (16, 6)))
              + tuple(kernel_name(m, q, 1, True, small=True) for m in MODES for q in plan.SMALL))
    return {KERNEL: linear, **affine.compile_checks()}
