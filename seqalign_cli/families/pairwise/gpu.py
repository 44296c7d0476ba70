"""Pairwise alignment on the GPU: the device copy of a batch, the kernel dispatch, the scheduler's hooks.

Per batch: codes and offsets go to the device once. Each pair gets a kernel
shape from the plan of the subwarp kernels (gpu_subwarp.py: G lanes
of R rows, 16-bit lanes two pairs a group where scores allow); the pairs
of a shape run together, largest first, in slices whose direction codes
fit in ``DIRS_BYTES``; the traceback kernel writes CIGAR runs in the same
slots the CPU engine uses, so no per-pair host loop is needed. A batch's
launches (shapes, slices, the checkpointed route's parts) write only
their own pairs' results, so they run side by side
(``DeviceEngine.side_by_side``): a launch of a few long pairs fills a few
multiprocessors, which left the rest of the GPU idle when launches ran one
after another. The job cycle (submit, collect, align) is
``device.DeviceEngine``'s; this module gives it the pairwise upload,
launches and results. ``Tuning(kernel="warp")`` runs the warp kernel instead
(gpu_warp.py), and a fixed ``shape`` replaces the plan: benchmarks and
tests compare them.

Which pairs a GPU takes is decided here, once (``HOOKS.on_gpu``): scores
within int32 lanes, and a traceback that fits the per-pair budget or the
checkpointed route; the scheduler gives the others to the CPU engine.

What the host decides of a batch's launches before any device call (the
routes, shapes, launches and their work items: ``plan_launches``, a
``LaunchPlan``) is made by the run's reading thread as it hands the batch
over (``HOOKS.plan_ahead``), so that the aligning thread mostly uploads and
launches; a piece of a batch, or another tuning, is planned when it is
queued.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...backends.cuda.device import (DeviceEngine, Job, copy_back, fetch_runs, fitting_parts, shape_parts,
                                     upload, upload_runs)
from ...backends.cuda.launch import profile_fits
from ...backends.cuda.variants import whole_warp
from ...config import AlignConfig, Mode
from ...protocols import Hooks
from . import gpu_subwarp as subwarp
from . import gpu_warp as warp
from .batch import PairBatch
from .plan import LONG, PLAN_G, PLAN_R, plan_pairs, route_pairs
from .results import Alignments

#: int32 lanes hold every score whose bound stays below this
INT32_LIMIT = 2**29
#: direction codes held on the device at once
DIRS_BYTES = 2 * 1024**3
#: a pair whose codes take more than this is traced back by checkpoints where it can be, whatever the
#: matrix budget: a launch of such pairs held whole would hold too few to fill the device (128 pairs at
#: least a launch). On a mix of 16 bp to 20 kb pairs (one H200) the codes of every pair within 256 MB
#: held whole ran at 18 GCUPS, within 16 MB at 101
FULL_PAIR_BYTES = DIRS_BYTES // 128


def planned_dir_words(qlen: np.ndarray, tlen: np.ndarray, kernel: str = "subwarp") -> np.ndarray:
    """uint32 words of direction codes each pair needs under the kernel plan (the larger layout)."""
    if kernel == "warp":
        return warp.dir_words(qlen, tlen, warp.rows_per_lane(qlen))
    G, R = subwarp.plan_shapes(qlen, tlen)
    return subwarp.dir_words(qlen, tlen, G, R, planes=True)


@dataclass
class Routes:
    """Where each pair of a batch goes: the one routing decision of the pairwise family.

    ``kernel``: "subwarp" (the plan of gpu_subwarp.py: lane groups,
    16-bit lanes, pairs shared by several warps) or "warp" when the scores
    do not fit the byte profile; ``gpu``: the pairs a GPU aligns (scores
    within int32 lanes and, with traceback, a route that fits), the others
    going to the CPU engine; ``checkpointed``: the GPU pairs traced back by
    checkpoints (gpu_subwarp.Checkpointed), the codes of the others
    being held whole.
    """

    kernel: str
    gpu: np.ndarray
    checkpointed: np.ndarray


def pick_kernel(cfg: AlignConfig, asked: str = "subwarp") -> str:
    """The kernel family of a batch: the one asked for, or "warp" when scores do not fit the byte profile or
    come from a substitution matrix."""
    return asked if profile_fits(cfg.scoring) and cfg.scoring.matrix is None else "warp"


def routes(qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, kernel: str = "subwarp") -> Routes:
    """The routes of pairs of lengths ``qlen`` x ``tlen`` (``kernel``: the one asked for, when the scores allow it).

    With traceback, by checkpoints when the query spans several stages,
    the subwarp kernels can score the pair, its checkpoint memory fits in
    DIRS_BYTES and its whole codes would not fit the per-pair budget
    (``matrix_budget``) or take more than FULL_PAIR_BYTES; else all codes
    at once when they fit the budget.
    """
    kernel = pick_kernel(cfg, kernel)
    if kernel == "subwarp":
        gpu, ckpt = route_pairs(qlen, tlen, cfg, DIRS_BYTES, FULL_PAIR_BYTES, INT32_LIMIT)
        return Routes(kernel, gpu, ckpt)
    gpu = cfg.scoring.score_bound(qlen, tlen) < INT32_LIMIT
    if cfg.traceback:
        gpu &= planned_dir_words(qlen, tlen, kernel) * 4 <= cfg.matrix_budget
    return Routes(kernel, gpu, np.zeros(len(qlen), bool))


class PairwiseHooks(Hooks):
    """What the GPU scheduler asks of the pairwise family."""

    #: a batch of fewer cells goes whole to one GPU of several (``GpuScheduler``): the engine runs a
    #: batch's launches side by side, so a whole batch, long and short pairs together, keeps a GPU
    #: busier than a piece of one range of sizes. Measured on two H200
    #: (benchmarks/decisions/several_gpus_whole_batches.md): 480,000 pairs of 16 bp-20 kb (batches of
    #: about 0.45 Tcells) at 1.78-1.83x one GPU whole, 1.69-1.72x in pieces.
    whole_cells = 2 * 10**12

    @staticmethod
    def allocate(batch: PairBatch, cfg: AlignConfig) -> Alignments:
        return Alignments.allocate(batch.qlen.astype(np.int64), batch.tlen.astype(np.int64), cfg.traceback)

    @staticmethod
    def on_gpu(batch: PairBatch, cfg: AlignConfig) -> np.ndarray:
        """The pairs a GPU aligns: scores within int32 lanes, and a traceback route that fits."""
        if batch.planned is not None and batch.planned.cfg is cfg:
            return batch.planned.gpu
        return routes(batch.qlen.astype(np.int64), batch.tlen.astype(np.int64), cfg).gpu

    @staticmethod
    def plan_ahead(batch: PairBatch, cfg: AlignConfig):
        """The batch's launches planned by the reading thread (``LaunchPlan``), for the plan's default tuning."""
        qlen, tlen = batch.qlen.astype(np.int64), batch.tlen.astype(np.int64)
        routed = routes(qlen, tlen, cfg)
        batch.planned = plan_launches(qlen, tlen, cfg, np.flatnonzero(routed.gpu), Tuning(), routed)


HOOKS = PairwiseHooks()


@dataclass(frozen=True)
class Tuning:
    """Kernel choices other than the plan, for benchmarks and tests."""

    kernel: str = "subwarp"  # "subwarp" (the plan) or "warp"
    shape: tuple[int, int] | None = None  # a fixed (G, R) for every pair instead of the plan
    pack16: bool = True  # 16-bit lanes where scores allow


@dataclass
class PartPlan:
    """One launch of a shape as the host plans it: its pairs, shape (G, R), 16-bit lanes or not, direction
    words, and (subwarp launches of their own) ``gpu_subwarp.host_items``."""

    part: np.ndarray
    G: int
    R: int
    pack: bool
    words: int
    host: tuple | None = None


@dataclass
class LaunchPlan:
    """What the host decides of a batch's launches before any device call (``plan_launches``): made by the
    aligning thread, or ahead by the reading thread (``HOOKS.plan_ahead``) for the records the scheduler
    then gives the GPU (``gpu``, the routes of ``cfg``)."""

    cfg: AlignConfig
    tuning: Tuning
    gpu: np.ndarray | None
    subset: np.ndarray  # the pairs planned
    long: np.ndarray  # those traced back by checkpoints
    parts: list[PartPlan]
    dir_off: np.ndarray | None  # each pair's direction codes from the start of its launch's buffer

    def fits(self, cfg: AlignConfig, tuning: Tuning, subset: np.ndarray) -> bool:
        return (self.cfg is cfg and self.tuning == tuning and len(subset) == len(self.subset)
                and np.array_equal(subset, self.subset))


def plan_launches(qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, subset: np.ndarray, tuning: Tuning,
                  routed: Routes | None = None) -> LaunchPlan:
    """The launches of every shape over the pairs ``subset`` (lengths int64), host work only; ``routed``: the
    batch's routes under ``tuning``'s kernel where they are made already."""
    whole = subset
    kernel = pick_kernel(cfg, tuning.kernel)
    long = subset[:0]
    # only queries of several whole-warp stages can take the checkpointed route: skip the routes otherwise
    if cfg.traceback and (qlen[subset] > subwarp.LONG[0] * subwarp.LONG[1]).any():
        ckpt = (routed if routed is not None else routes(qlen, tlen, cfg, tuning.kernel)).checkpointed
        long = subset[ckpt[subset]]
        if len(long):
            subset = subset[~ckpt[subset]]
    if kernel == "warp":
        G = np.full(len(qlen), warp.WARP, np.int64)
        R = warp.rows_per_lane(qlen)
        words = warp.dir_words(qlen, tlen, R)
        pack = np.zeros(len(qlen), bool)
        key = ((G * 64 + R) * 2)[subset]
    else:  # words: None in score only (no codes)
        G, R, pack, words, key = plan_pairs(qlen, tlen, subset, cfg.scoring, cfg.traceback, tuning.shape,
                                            tuning.pack16)
    # each shape's pairs, largest first, in parts whose direction codes fit DIRS_BYTES
    trace = cfg.traceback
    groups, dir_off = shape_parts(subset, key, qlen * tlen, words if trace else None, DIRS_BYTES // 4)
    parts = []
    for _, part, total in groups:
        g, r, p = int(G[part[0]]), int(R[part[0]]), bool(pack[part[0]])
        host = (subwarp.host_items(qlen, tlen, part, g, r, p, cfg.scoring)
                if kernel == "subwarp" and not subwarp.shared(g, p, trace) else None)
        parts.append(PartPlan(part, g, r, p, total, host))
    return LaunchPlan(cfg, tuning, None if routed is None else routed.gpu, whole, long, parts,
                      dir_off if trace and parts else None)


@dataclass
class _DeviceBatch:
    """A batch's inputs and outputs on the device."""

    q: object
    qoff: object
    t: object
    toff: object
    ends: object
    run_off: object = None
    run_op: object = None
    run_len: object = None
    info: object = None
    #: pinned staging buffers of the batch's uploads, kept until its stream has copied them (None: copies
    #: that wait, ``device.upload``)
    staged: list | None = None


class CudaPairwise(DeviceEngine):
    """Runs the pairwise kernels for batches on one device."""

    def __init__(self, device: int = 0, tuning: Tuning = Tuning()):
        super().__init__(device)
        self.tuning = tuning

    def upload(self, batch: PairBatch, out: Alignments, cfg: AlignConfig, staged: list | None) -> _DeviceBatch:
        """The batch's device copy, queued on the current stream (see ``device.upload``)."""
        cp = self.cp
        one = np.zeros(1, np.uint8)
        d = _DeviceBatch(
            # the sequences padded to 16 bytes: the walk reads 16-byte pieces
            q=upload(cp, batch.q_codes if len(batch.q_codes) else one, staged, pad16=True),
            qoff=upload(cp, batch.q_off.astype(np.int64), staged),
            t=upload(cp, batch.t_codes if len(batch.t_codes) else one, staged, pad16=True),
            toff=upload(cp, batch.t_off.astype(np.int64), staged),
            ends=cp.zeros(3 * batch.size, np.int32),
            staged=staged,
        )
        if cfg.traceback:
            d.run_off, d.run_op, d.run_len = upload_runs(cp, out.cigar, staged)
            d.info = cp.zeros(7 * batch.size, np.int32)
        return d

    def queue(self, batch, cfg, subset, out, d, stream, clock) -> Job:
        """Plan and queue the kernels of ``subset``, then the copy back of ends and summaries."""
        launches = self.prepare(batch.qlen.astype(np.int64), batch.tlen.astype(np.int64), cfg, subset, d,
                                batch.planned)
        clock("prepare")
        # side by side: the long pairs' few blocks alone leave most of the GPU idle (a mix of 16 bp-20 kb on one
        # H200: 12.3-12.6 s one launch after another, 9.0-9.1 s side by side;
        # benchmarks/decisions/pair_side_by_side.md)
        self.side_by_side(stream, [partial(launch.run, self.cp) for launch in launches])
        # ends: score, query end, target end; info: starts, run count, statistics
        host = {"ends": copy_back(d.ends, (batch.size, 3), stream)}
        if cfg.traceback:
            host["info"] = copy_back(d.info, (batch.size, 7), stream)
        clock("kernels")
        return Job(batch, cfg, subset, out, d, stream, host)

    def results(self, job: Job, clock, whole: bool):
        """Fill ``out`` from a finished job: ends, summaries and CIGAR runs.

        ``whole``: no other engine writes ``out``, so its runs may be laid out anew.
        """
        out, subset, d = job.out, job.subset, job.d
        ends = job.host["ends"]
        sel = slice(None) if len(subset) == job.batch.size else subset  # every pair (in any order): plain copies
        out.score[sel] = ends[sel, 0]
        out.qend[sel] = ends[sel, 1]
        out.tend[sel] = ends[sel, 2]
        if job.cfg.traceback:
            info = job.host["info"]
            out.qstart[sel] = info[sel, 0]
            out.tstart[sel] = info[sel, 1]
            out.cigar.count[sel] = info[sel, 2]
            out.stats[sel] = info[sel, 3:7]
            fetch_runs(self.cp, out.cigar, d.run_off, d.run_op, d.run_len, subset, whole)
        else:
            out.qstart[sel], out.tstart[sel] = job.cfg.mode_code.score_only_starts()

    def prepare(self, qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, subset: np.ndarray,
                d: _DeviceBatch, ahead: LaunchPlan | None = None) -> list:
        """The kernel launches of every shape over the pairs ``subset``, inputs uploaded; ``ahead``: the
        batch's plan made by the reading thread, taken where it planned the same pairs."""
        tuning = self.tuning
        plan = ahead if ahead is not None and ahead.fits(cfg, tuning, subset) else \
            plan_launches(qlen, tlen, cfg, subset, tuning)
        launches = self._checkpointed(qlen, tlen, cfg, plan.long, d) if len(plan.long) else []
        d_dir_off = upload(self.cp, plan.dir_off, d.staged) if plan.dir_off is not None else None
        warp_kernel = pick_kernel(cfg, tuning.kernel) == "warp"
        for pp in plan.parts:
            if warp_kernel:
                launches.append(warp.prepare(self.cp, self.device, d, qlen, tlen, pp.part, pp.R, cfg, pp.words,
                                             d_dir_off))
            else:
                launches += subwarp.prepare(self.cp, self.device, d, qlen, tlen, pp.part, pp.G, pp.R, pp.pack, cfg,
                                            pp.words, d_dir_off, tuning.pack16, pp.host)
        return launches

    def _checkpointed(self, qlen, tlen, cfg, long: np.ndarray, d) -> list:
        """Checkpointed tracebacks of the pairs ``long``, in parts whose memory fits DIRS_BYTES."""
        long = long[np.argsort(-(qlen[long] * tlen[long]), kind="stable")]
        cost = subwarp.checkpoint_bytes(qlen, tlen)
        return [subwarp.Checkpointed(self.cp, self.device, d, qlen, tlen, part, cfg)
                for part in fitting_parts(long, cost, DIRS_BYTES)]


def compile_checks() -> dict[str, tuple[str, ...]]:
    """The variants ``seqalign info`` and the build check compile (backends/cuda/variants.py): every mode with
    and without traceback, int32 and 16-bit lanes, each substitution source; every rows-a-lane of the warp
    kernel, every shape of the plan and every count of warps sharing a pair (``shared_warps``) at least once."""
    modes, bools = range(len(Mode)), (False, True)
    subs = (warp.SUB_COMPUTED, warp.SUB_PROFILE, warp.SUB_MATRIX)
    rows = range(1, warp.MAX_R + 1)
    warp_table = (tuple(warp.warp_name(m, t, r, sub) for m in modes for t in bools for r in (1, warp.MAX_R)
                        for sub in subs)
                  + tuple(warp.warp_name(Mode.GLOBAL, True, r, warp.SUB_PROFILE) for r in rows[1:-1])
                  + tuple(warp.trace_name(r) for r in rows))
    G, R = LONG
    shapes = [(int(g), int(r)) for g, r in zip(PLAN_G, PLAN_R)]
    spread = ((1, 8), (8, 20), (G, R))
    subwarp_table = (tuple(subwarp.subwarp_name(m, t, g, r, p) for m in modes for t in bools for p in bools
                           for g, r in spread)
                     + tuple(subwarp.subwarp_name(Mode.GLOBAL, True, g, r, p) for g, r in shapes
                             if (g, r) not in spread for p in bools)
                     + tuple(whole_warp(subwarp.subwarp_name(m, False, G, R, False, wb), G) for m in modes
                             for wb in (2, 4, subwarp.CHECKPOINT_WARPS))
                     + tuple(whole_warp(subwarp.subwarp_name(m, False, G, R, True, wb), G) for m in modes
                             for wb in (2, 4, 8, 16))
                     + tuple(subwarp.trace_name(g, r, p) for g, r in shapes for p in bools)
                     + (subwarp.walk_name(G, R),))
    return {warp.KERNEL: warp_table, subwarp.KERNEL: subwarp_table}
