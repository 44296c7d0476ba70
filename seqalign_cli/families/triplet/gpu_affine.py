"""Triplets with affine gaps on the GPU: the plan and launches of ``kernels/triplet_affine.cu``.

One block a triplet (``triplet_affine<MODE, TRACE>``): seven values a cell,
as the CPU engine (``cpu_affine.py``) computes them, the
block's threads a wavefront over the rows (i, j) of the cube cut in chunks
of ``CHUNK`` cells along k, each chunk's cells in order; the values of the
last four steps in a ring on the device (``ring_bytes``). With traceback
every cell's word (seven 3-bit previous kinds, the CPU engine's) goes to a
work area of the launch (``word_bytes``) and ``triplet_affine_walk<MODE>`` follows them back, one
thread a triplet, into the runs of the batch's results, as the linear
kernels' walk does. A triplet whose words pass ``trace_budget`` keeps
those of a window of slices at a time (``window_slices``): one forward
launch a window, from the last slices down, each followed by the walk
through that window, which goes on where the one above left off (the
linear kernels' windows). Which triplets come here is ``routes``' (scores
within the CPU engine's int32 cells, a ring within ``BORDER_BYTES``, a
window's words within ``trace_budget``); the rest go to the CPU engine.

``plan_affine`` groups a subset into launches of one block size (the row
chunks a step holds, ``threads_for``) and one window count, largest first,
each within the launch's share of the device memory; ``AffineLaunch.run`` queues one, the same call
as the linear kernels' launches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.cuda.device import fitting_parts, shape_groups
from ...backends.cuda.launch import NULL, scores
from ...backends.cuda.loader import module
from ...config import AlignConfig
from .gpu_args import AffineArgs, AffineWalkArgs, Triplets
from .plan import BORDER_BYTES, MODES, even_windows, trace_budget, window_count

KERNEL = "triplet_affine.cu"
#: the most threads a block (``__launch_bounds__`` of the kernel: about 120 registers a thread)
MAX_THREADS = 256
#: values a cell
KINDS = 7
#: the CPU engine's int32 cells hold every value whose bound stays below this (minus infinity is -2**29, values
#: at or below -2**28 stand for it): the kernel's cells are the same
INT32_LIMIT = 2**28
#: threads of a walk block
WALK_THREADS = 128
#: cells of a row chunk along k (the kernel's kw): a wavefront step computes chunks, not whole rows
CHUNK = 16
#: a walk in windows keeps its state between windows in one int32 (-1 - (8 runs + kind)): triplets of fewer
#: columns than this (n1 + n2 + n3 + 1 runs at most)
WINDOW_COLUMNS = 2**27
#: the most windows a triplet is traced back in; past them, the CPU engine. Each window runs the whole forward
#: pass again, and one block a triplet leaves the GPU mostly idle for few long triplets: 16 triplets of
#: 600-800 bp in 6-8 windows took 58 s on an H200 against 18-45 s on the CPU engine's 16 threads
#: (benchmarks/decisions/triplet_affine_windows.md)
AFFINE_WINDOWS = 2


def ring_bytes(lengths: np.ndarray) -> np.ndarray:
    """Bytes of each triplet's ring of values ((n, 3) lengths): four steps of (n3 + 1) x 7 x (n2 + 1) ints."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    return 4 * (lengths[:, 2] + 1) * KINDS * (lengths[:, 1] + 1) * 4


def word_bytes(lengths: np.ndarray) -> np.ndarray:
    """Bytes of each triplet's traceback words: four a cell of the cube."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    return (lengths + 1).prod(axis=1) * 4


def slice_bytes(lengths: np.ndarray) -> np.ndarray:
    """Bytes of the traceback words of one slice (i fixed) of each triplet: four a cell of (n2 + 1) x (n3 + 1)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    return (lengths[:, 1] + 1) * (lengths[:, 2] + 1) * 4


def window_slices(lengths: np.ndarray, budget: int) -> np.ndarray:
    """Each triplet's traceback windows: 0 where its words fit ``budget`` bytes at once, else m > 0 slices a window
    (the most whose words fit, evened out over the windows they make); -1 where not even one slice's fit, more
    than AFFINE_WINDOWS windows would be needed, or the walk's state would not fit (WINDOW_COLUMNS)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    even = even_windows(lengths[:, 0] + 1, budget // slice_bytes(lengths), AFFINE_WINDOWS)
    return np.where(word_bytes(lengths) <= budget, 0, np.where(lengths.sum(axis=1) < WINDOW_COLUMNS, even, -1))


def threads_for(lengths: np.ndarray) -> np.ndarray:
    """Each triplet's block size: the row chunks a wavefront step holds on average ((n1 + 1) (n2 + 1) KC chunks
    over n1 + n2 + KC steps, KC = ceil((n3 + 1) / CHUNK)) in whole warps, rounded down (a warp for a few chunks
    would idle most steps), one warp at least, MAX_THREADS at most."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    chunks = (lengths[:, 2] + CHUNK) // CHUNK
    busy = (lengths[:, 0] + 1) * (lengths[:, 1] + 1) * chunks // (lengths[:, 0] + lengths[:, 1] + chunks)
    return np.clip(busy // 32 * 32, 32, MAX_THREADS)


def routes(lengths: np.ndarray, cfg: AlignConfig) -> np.ndarray:
    """Each triplet's route (``gpu.routes``' codes): 0 here; 2 scores past the CPU engine's int32 cells; 3 a
    ring past BORDER_BYTES; 5 with traceback, words past ``trace_budget`` even in windows of slices
    (``window_slices``: the CPU engine's checkpoints)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    route = np.zeros(len(lengths), np.int8)
    if cfg.traceback:
        route[window_slices(lengths, trace_budget(cfg)) < 0] = 5
    route[ring_bytes(lengths) > BORDER_BYTES] = 3
    route[cfg.scoring.triplet_bound(lengths) >= INT32_LIMIT] = 2
    return route


@dataclass
class AffinePlan:
    """One launch: the triplets (``order``, one a block), the block size, each triplet's ring and words."""

    order: np.ndarray
    threads: int
    ring_off: np.ndarray  # int64 by triplet of the batch (bytes / 4 from the ring area's start)
    ring_size: int  # bytes
    word_off: np.ndarray | None = None  # int64 by triplet of the batch (words), traceback only
    word_size: int = 0  # bytes
    wslices: np.ndarray | None = None  # int32 by triplet of the batch: slices a window (traced back in windows)
    windows: int = 1  # forward launches and walks, one a window


def _offsets(count: int, part: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, int]:
    """Each triplet of ``part`` its area of ``sizes`` (bytes, a multiple of 4) in one buffer: (offsets in 4-byte
    units by triplet of the batch, total bytes)."""
    off = np.zeros(count, np.int64)
    ends = np.cumsum(sizes[part])
    off[part] = (ends - sizes[part]) // 4
    return off, int(ends[-1]) if len(ends) else 0


def plan_affine(lengths: np.ndarray, subset: np.ndarray, trace: bool, area: int,
                budget: int | None = None) -> list[AffinePlan]:
    """The launches that align ``subset`` ((n, 3) lengths of the whole batch): triplets of one block size and
    one window count together, largest first, each launch's ring and words within ``area`` bytes (a triplet
    alone may pass it). With traceback and a ``budget``, a triplet whose words pass it keeps a window's
    (``window_slices``; the subset holds none past it even so: ``routes``)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    subset = np.asarray(subset, np.int64)
    cells = (lengths + 1).prod(axis=1)
    ring = ring_bytes(lengths)
    wslices = np.zeros(len(lengths), np.int64)
    if trace and budget is not None:
        wslices[subset] = np.maximum(window_slices(lengths[subset], budget), 0)
    windows = window_count(lengths, wslices)
    words = np.where(wslices > 0, wslices * slice_bytes(lengths), word_bytes(lengths)) if trace else np.zeros_like(ring)
    wslices32 = wslices.astype(np.int32)  # the kernels' (one array for every launch in windows)
    plans = []
    key = threads_for(lengths[subset]) * (AFFINE_WINDOWS + 1) + windows[subset]
    for k, sel in shape_groups(subset, key, cells):
        threads, count = divmod(k, AFFINE_WINDOWS + 1)
        for part in fitting_parts(sel, ring + words, area):
            ring_off, ring_size = _offsets(len(lengths), part, ring)
            plan = AffinePlan(part.astype(np.int32), int(threads), ring_off, ring_size)
            if trace:
                plan.word_off, plan.word_size = _offsets(len(lengths), part, words)
                if count:
                    plan.wslices, plan.windows = wslices32, int(count)
            plans.append(plan)
    return plans


def kernel_names(mode: int) -> tuple[str, str, str]:
    """The forward kernels (score only, traceback) and the walk of a mode."""
    return (f"triplet_affine<{int(mode)}, 0>", f"triplet_affine<{int(mode)}, 1>",
            f"triplet_affine_walk<{int(mode)}>")


class AffineLaunch:
    """A planned launch with its inputs on the device (``d``: the batch's ``_DeviceBatch``); ``run`` queues it."""

    def __init__(self, cp, device: int, d, plan: AffinePlan, cfg: AlignConfig):
        names = kernel_names(cfg.mode_code)
        mod = module(KERNEL, names, device)
        trace = plan.word_off is not None
        self.fn = mod.get_function(names[1] if trace else names[0])
        self.plan = plan
        self.order = cp.asarray(plan.order)
        self.ring_off = cp.asarray(plan.ring_off)
        # the forward kernel's fields but the ring (scratch) and, with traceback, the words and the window
        self.head = dict(Triplets.of(d, self.order), **scores(cfg.scoring), kw=np.int32(CHUNK),
                         ring_off=self.ring_off, out=d.out)
        if trace:
            self.walk = mod.get_function(names[2])
            self.word_off = cp.asarray(plan.word_off)
            self.wslices = cp.asarray(plan.wslices) if plan.wslices is not None else NULL
            self.walk_fields = dict(order=self.order, nwork=np.int32(len(plan.order)), aoff=d.offs[0],
                                    boff=d.offs[1], coff=d.offs[2], out=d.out, word_off=self.word_off,
                                    run_off=d.run_off, run_op=d.run_op, run_len=d.run_len, info=d.info,
                                    wslices=self.wslices)

    def run(self, cp, scratch):
        """Queue the launch on the current stream (``scratch``: ``DeviceEngine.scratch``, its work areas)."""
        ring = scratch("ring", self.plan.ring_size).view(np.int32)
        count = len(self.plan.order)
        if self.plan.word_off is None:
            self.fn((count,), (self.plan.threads,),
                    AffineArgs(**self.head, ring=ring, info=NULL, words=NULL, word_off=NULL, wslices=NULL,
                               wq=np.int32(0)).values())
            return
        words = scratch("dirs", self.plan.word_size).view(np.uint32)
        grid = (count + WALK_THREADS - 1) // WALK_THREADS
        for q in range(self.plan.windows):  # from the last window (the end cell's) to the first
            self.fn((count,), (self.plan.threads,),
                    AffineArgs(**self.head, ring=ring, info=self.walk_fields["info"], words=words,
                               word_off=self.word_off, wslices=self.wslices, wq=np.int32(q)).values())
            self.walk((grid,), (WALK_THREADS,),
                      AffineWalkArgs(**self.walk_fields, words=words, wq=np.int32(q)).values())


def compile_checks() -> dict[str, tuple[str, ...]]:
    """The variants ``seqalign info`` and the build check compile (backends/cuda/variants.py): every mode, score
    only and traceback, the walk."""
    return {KERNEL: tuple(name for m in MODES for name in kernel_names(m))}
