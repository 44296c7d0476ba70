"""Launches of the subwarp kernels (kernels/pairwise_subwarp.cu) and their plan.

Each pair gets a shape (G, R): a group of G lanes holding R query rows each,
so a stage covers G*R rows. The plan is a table (``plan.PLAN``)
measured with ``python benchmarks/bench_gpu.py --sweep`` (every shape at
every length, benchmarks/decisions/pair_plan.md): the fastest shape is the smallest
group whose 8 to 20 rows per lane cover the query in one stage (little fill
and drain, and no border row through memory): one thread a pair up to 16 bp,
groups of 4 lanes up to 80; queries past 320 rows take whole warps of 16
rows per lane (one stage up to 512 rows, several beyond), and score-only
pairs of several stages are shared by 2 to 8 warps (int32), or two pairs by
up to 16 warps in 16-bit lanes with offsets (``shared16_fits``). Pairs whose
every value fits in 16 bits (and scoring values fit the byte profile) run
two to a group in 16-bit lanes, with or without traceback; their direction
codes use the plane layout of kernels/traceback.cuh, the int32 kernels' the
nibble layout.
"""

from __future__ import annotations

import numpy as np

from ...backends.cuda.device import upload
from ...backends.cuda.launch import DIRS, NULL, PROFILE_LIMIT, THREADS, Launch, flag, scores
from ...backends.cuda.loader import module
from .gpu_args import Pairs, Subwarp16Args, SubwarpArgs, SubwarpTraceArgs, WalkArgs, Walked
from .plan import INT16_LIMIT, LONG, PLAN_G, PLAN_LIMITS, PLAN_R, border_offsets, pair_items

KERNEL = "pairwise_subwarp.cu"
#: warps sharing a pair in the forward pass of the checkpointed traceback
CHECKPOINT_WARPS = 8
#: ints of a saved walker (Walker in kernels/traceback.cuh)
WALKER_INTS = 11
#: the int32 kernels' stage fields for a pass over every stage (no selection, one border row reused)
EVERY_STAGE = {"stage_sel": NULL, "keep": np.int32(0)}


def plan_shapes(qlen: np.ndarray, tlen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """G and R for each pair, from the measured table."""
    k = np.searchsorted(PLAN_LIMITS, qlen, side="left")
    return PLAN_G[k], PLAN_R[k]


def dir_words(qlen: np.ndarray, tlen: np.ndarray, G: np.ndarray, R: np.ndarray, planes=False) -> np.ndarray:
    """uint32 words of direction codes each pair needs (traceback.cuh's layouts).

    Nibbles: a word per lane, step and 8 rows; planes (16-bit lanes): the
    same, with the steps rounded up to whole chunks of 8.
    """
    stages = (qlen + G * R - 1) // (G * R)
    steps = tlen + G - 1
    steps = np.where(planes, (steps + 7) // 8 * 8, steps)
    return stages * steps * ((R + 7) // 8) * G


def fits16(scoring, qlen: np.ndarray, tlen: np.ndarray) -> np.ndarray:
    """Pairs whose every DP value fits the 16-bit lanes.

    No H exceeds match * min(m, n), and none falls below the all-gaps path
    to its cell, -(2 gap_open + (m + n) gap_extend); E and F lie at most one
    gap opening below an H. Padding cells of a shared matrix obey the same
    bounds for its dimensions. Columns must fit 16 bits too (local mode
    keeps the column of each row's maximum in a half; without gap
    extension costs the value bound alone would not limit them).
    """
    if max(scoring.as_list()) > PROFILE_LIMIT:
        return np.zeros(len(qlen), bool)
    high = scoring.match * np.minimum(qlen, tlen)
    low = 3 * scoring.gap_open + (qlen + tlen + 2) * scoring.gap_extend
    return (np.maximum(high, low) < INT16_LIMIT) & (tlen < 65536)


def shared_warps(stages: np.ndarray) -> np.ndarray:
    """Warps sharing a pair of whole-warp groups (score only): 1, 2, 4 or 8, at most one per stage."""
    return np.where(stages >= 8, 8, np.where(stages >= 4, 4, np.where(stages >= 2, 2, 1)))


def subwarp_name(mode: int, trace: bool, G: int, R: int, pack16: bool, warps: int = 1) -> str:
    """The forward kernel of a shape: groups of G lanes, R rows a lane, int32 or 16-bit lanes, ``warps`` warps
    sharing a pair."""
    kind = "pairwise_subwarp16" if pack16 else "pairwise_subwarp"
    return f"{kind}<{int(mode)}, {flag(trace)}, {int(G)}, {int(R)}, {int(warps)}>"


def trace_name(G: int, R: int, pack16: bool) -> str:
    """The traceback kernel of a shape."""
    return f"subwarp_trace<{int(G)}, {int(R)}, {flag(pack16)}>"


def walk_name(G: int, R: int) -> str:
    """The checkpointed traceback's walk through one stage (``Checkpointed``)."""
    return f"subwarp_walk<{int(G)}, {int(R)}>"


def kernels(device: int, mode: int, trace: bool, G: int, R: int, pack16: bool, warps: int = 1):
    """The forward kernel of a shape (and the traceback kernel when tracing)."""
    fwd = subwarp_name(mode, trace, G, R, pack16, warps)
    back = trace_name(G, R, pack16)
    mod = module(KERNEL, (fwd, back) if trace else (fwd,), device)
    return mod.get_function(fwd), (mod.get_function(back) if trace else None)


def border_layout(cp, qlen, tlen, items: np.ndarray, rows: int, npairs: int, slots=1, staged: list | None = None):
    """Device scratch for the work items that need more than one stage (``plan.border_offsets``):
    the buffer and the per-pair offsets (uploaded through ``staged``, ``device.upload``); a token pair when
    none does (the kernels read no offset)."""
    return border_buffers(cp, border_offsets(items, qlen, tlen, rows, npairs, slots), staged)


def border_buffers(cp, offsets: tuple[np.ndarray, int], staged: list | None = None):
    """``border_layout``'s device arrays from its host offsets and total (``plan.border_offsets``)."""
    off, total = offsets
    if not total:
        return cp.empty(1, np.int32), cp.zeros(1, np.int64)
    return cp.empty(total, np.int32), (cp.asarray(off) if staged is None else upload(cp, off, staged))


def shared(G: int, pack16: bool, trace: bool) -> bool:
    """Whether a shape's launches go through ``prepare_shared`` (score-only whole-warp pairs, shared by
    warps where they span several stages) rather than one launch of ``prepare``'s own."""
    return G == 32 and not pack16 and not trace


def host_items(qlen, tlen, part: np.ndarray, G: int, R: int, pack16: bool, scoring):
    """What the host plans of one launch of ``_prepare`` (no device needed, so a batch's plan can be made
    ahead): its work items (``pair_items``: two pairs a group in 16-bit lanes) and the border offsets of
    the items that span several stages (``plan.border_offsets``: per-pair offsets and the total)."""
    items = pair_items(part, qlen, tlen, scoring) if pack16 else part.astype(np.int32).reshape(-1, 1)
    return items, border_offsets(items, qlen, tlen, G * R, len(qlen), 1)


def prepare(cp, device, d, qlen, tlen, part: np.ndarray, G: int, R: int, pack16: bool, cfg, words: int = 0,
            d_dir_off=None, shared16: bool = True, host=None) -> list[Launch]:
    """The kernels of one shape over the pairs ``part``, with their inputs uploaded.

    ``d`` holds the batch on the device (codes, offsets, ends and, when
    tracing, the run buffers); ``words`` direction words at ``d_dir_off``.
    Score-only pairs of several whole-warp stages are shared by several
    warps (``shared_warps``), in 16-bit lanes where ``shared16`` and the
    scoring allow. ``host``: ``host_items`` of the launch, planned ahead.
    """
    if shared(G, pack16, cfg.traceback):
        stages = (qlen[part] + G * R - 1) // (G * R)
        warps = shared_warps(stages)
        pack = shared16 and shared16_fits(cfg.scoring, cfg.mode_code, G * R)
        if pack:
            warps = np.where(stages >= 16, 16, warps)  # two pairs a block: twice the warps
        if (warps > 1).any():
            return [x for wb in np.unique(warps)
                    for x in prepare_shared(cp, device, d, qlen, tlen, part[warps == wb], R, cfg, int(wb), pack)]
    return [_prepare(cp, device, d, qlen, tlen, part, G, R, pack16, cfg, words, d_dir_off, host)]


def shared16_fits(scoring, mode_code: int, rows: int) -> bool:
    """Whether pairs shared by several warps can run in 16-bit lanes with offsets.

    The kernel keeps each value relative to an offset that follows the
    warp's largest H every 32 columns. Neighbouring cells differ by at most
    C = match + max(mismatch, n_penalty) + gap_open + gap_extend, so every
    value a warp holds (its stage of ``rows`` rows, 32 columns apart, 32
    columns of drift) lies within (rows + 96) * C of that largest H, and
    rises at most 32 * C above it. Both must fit the 16-bit range, with
    room for the minus infinity of the kernel (NEG16 = -24576). The bound
    holds in every mode; local mode also needs its floor (each offset's
    relative 0), which the kernel clamps to NEG16 where no H of the warp can
    be 0, and folds its row maxima into int32 at every move of the offset.
    """
    sc = scoring
    C = sc.match + max(sc.mismatch, sc.n_penalty) + sc.gap_open + sc.gap_extend
    return max(sc.as_list()) <= PROFILE_LIMIT and (rows + 128) * C <= 20000 and 32 * C <= 8000


def prepare_shared(cp, device, d, qlen, tlen, part, R: int, cfg, warps: int, pack: bool) -> list[Launch]:
    """Score-only launches of whole-warp pairs, ``warps`` warps a pair (one block each).

    ``pack``: in 16-bit lanes, two pairs a block (``shared16_fits``); int32 otherwise.
    """
    if warps == 1:
        return [_prepare(cp, device, d, qlen, tlen, part, 32, R, False, cfg)]
    fwd, _ = kernels(device, cfg.mode_code, False, 32, R, pack, warps)
    # neighbours in size order share a block in 16-bit lanes
    items = pair_items(part, qlen, tlen) if pack else part.astype(np.int32).reshape(-1, 1)
    # a ring of one border row a warp: H and F (int32), of both halves in 16-bit lanes
    border, border_off = border_layout(cp, qlen, tlen, items, 32 * R, len(qlen), warps * (2 if pack else 1),
                                       d.staged)
    order = upload(cp, np.ascontiguousarray(items.reshape(-1)), d.staged)
    head = dict(Pairs.of(d, order, len(items)), **scores(cfg.scoring), border=border, border_off=border_off,
                dirs=cp.empty(1, np.uint32), dir_off=cp.zeros(1, np.int64), out=d.ends)
    args = Subwarp16Args(**head) if pack else SubwarpArgs(**head, **EVERY_STAGE)
    return [Launch(fwd, len(items), 32 * warps, args.values())]


def _prepare(cp, device, d, qlen, tlen, part: np.ndarray, G: int, R: int, pack16: bool, cfg, words: int = 0,
             d_dir_off=None, host=None) -> Launch:
    sc = cfg.scoring
    trace = cfg.traceback
    fwd, back = kernels(device, cfg.mode_code, trace, G, R, pack16)
    items, borders = host if host is not None else host_items(qlen, tlen, part, G, R, pack16, sc)
    border, border_off = border_buffers(cp, borders, d.staged)
    order = upload(cp, np.ascontiguousarray(items.reshape(-1)), d.staged)
    blocks = (len(items) * G + THREADS - 1) // THREADS
    head = dict(Pairs.of(d, order, len(items)), **scores(sc), border=border, border_off=border_off,
                out=d.ends)

    def forward(**codes):
        return (Subwarp16Args(**head, **codes) if pack16 else SubwarpArgs(**head, **codes, **EVERY_STAGE)).values()

    if not trace:
        return Launch(fwd, blocks, THREADS, forward(dirs=cp.empty(1, np.uint32), dir_off=cp.zeros(1, np.int64)))
    # the walk: one thread a pair of ``order`` (16-bit work items: two, an empty half -1)
    back_args = SubwarpTraceArgs(**Pairs.of(d, order, order.size), mode=np.int32(cfg.mode_code), dirs=DIRS,
                                 dir_off=d_dir_off, ends=d.ends, **Walked.runs(d), **scores(sc))
    return Launch(fwd, blocks, THREADS, forward(dirs=DIRS, dir_off=d_dir_off), back,
                  (order.size + THREADS - 1) // THREADS, back_args.values(), words)


def checkpoint_bytes(qlen: np.ndarray, tlen: np.ndarray) -> np.ndarray:
    """Device bytes of the checkpointed traceback of each pair: kept border rows and one stage of codes."""
    G, R = LONG
    stages = (qlen + G * R - 1) // (G * R)
    return 4 * (np.maximum(stages - 1, 0) * 2 * (tlen + 1) + dir_words(np.minimum(qlen, G * R), tlen, G, R))


class Checkpointed:
    """The exact traceback of pairs whose direction codes do not fit at once.

    Whole-warp groups (LONG, CHECKPOINT_WARPS warps a pair) run the
    score-only forward pass keeping the last row of every stage of 512 rows; then, round after round, each
    pair's current stage is recomputed with its direction codes (from the
    kept row above it) and the pair is walked back through it
    (kernels/pairwise_subwarp.cu, subwarp_walk). The walk reads the same
    codes a full matrix would hold, so the CIGAR is the same. Memory per
    pair: O(n * m / 512) for the kept rows and O(512 * n) for one stage.
    """

    def __init__(self, cp, device, d, qlen, tlen, part: np.ndarray, cfg):
        G, R = LONG
        self.cp, self.d, self.cfg, self.rows = cp, d, cfg, G * R
        self.fwd, _ = kernels(device, cfg.mode_code, False, G, R, False, CHECKPOINT_WARPS)
        self.rec, _ = kernels(device, cfg.mode_code, True, G, R, False)
        walk = walk_name(G, R)
        self.walk = module(KERNEL, (walk,), device).get_function(walk)
        self.part = part
        npairs = len(qlen)
        stages = (qlen[part] + self.rows - 1) // self.rows
        # the last row of every stage but the last is kept
        self.border, self.border_off = border_layout(cp, qlen, tlen, part.reshape(-1, 1), self.rows, npairs,
                                                     stages - 1)
        words = dir_words(np.minimum(qlen[part], self.rows), tlen[part], G, R)
        dir_off = np.zeros(npairs, np.int64)
        dir_off[part] = np.cumsum(words) - words
        self.dir_words = int(words.sum())
        self.dir_off = cp.asarray(dir_off)
        self.order = cp.asarray(part.astype(np.int32))
        self.walkers = cp.zeros(WALKER_INTS * npairs, np.int32)
        self.blocks = (len(part) * G + THREADS - 1) // THREADS
        # rounds of the walk: the stages of the longest query, a bound the host knows without waiting for the
        # forward pass's end cells (a walker done before, in local or semi-global mode, skips the last rounds)
        self.rounds = int(max(int(qlen[part].max(initial=0)) - 1, 0) // self.rows) + 1

    def run(self, cp, between=None):
        """Queue the rounds (``between`` is Launch.run's; the forward pass and walks interleave here)."""
        d, pairs = self.d, Pairs.of(self.d, self.order, len(self.part))
        head = dict(pairs, **scores(self.cfg.scoring), border=self.border, border_off=self.border_off,
                    out=d.ends, keep=np.int32(1))
        self.fwd((len(self.part),), (32 * CHECKPOINT_WARPS,),
                 SubwarpArgs(**head, dirs=cp.empty(1, np.uint32), dir_off=cp.zeros(1, np.int64), stage_sel=NULL)
                 .values())
        qend = d.ends.reshape(-1, 3)[self.order, 1]
        stage = cp.maximum((qend - 1) // self.rows, 0).astype(np.int32)
        dirs = cp.empty(self.dir_words + 1, np.uint32)
        tblocks = (len(self.part) + THREADS - 1) // THREADS
        for _ in range(self.rounds):  # each round moves every walker up one stage at least
            self.rec((self.blocks,), (THREADS,),
                     SubwarpArgs(**head, dirs=dirs, dir_off=self.dir_off, stage_sel=stage).values())
            self.walk((tblocks,), (THREADS,),
                      WalkArgs(**pairs, mode=np.int32(self.cfg.mode_code), dirs=dirs, dir_off=self.dir_off,
                               ends=d.ends, stage_sel=stage, walk=self.walkers, **Walked.runs(d)).values())
