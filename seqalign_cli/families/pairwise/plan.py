"""The plan of the pairwise GPU engine: the measured table of kernel shapes, and each batch's plan, compiled.

What the aligning thread decides for every batch, one compiled pass over
the pairs a step, under the rules that ``gpu_subwarp.py`` states in
numpy (``plan_shapes``, ``fits16``, ``dir_words``, ``checkpoint_bytes``) and
``gpu.py`` in words (``routes``):

* ``route_pairs``: which pairs a GPU aligns, and which of those are traced
  back by checkpoints;
* ``plan_pairs``: each pair's kernel shape (G, R), 16-bit lanes or not, its
  direction-code words, and the shape key that groups launches;
* ``pair_items``: a launch's work items (pairs two by two in 16-bit lanes);
* ``border_offsets``: where each work item's border scratch starts.

In numpy these were some forty array passes a batch, each taking the
interpreter lock back (9.7 ms for 65,536 pairs with traceback on the
development machine); compiled, they are four calls that release it (4.5 ms
with the numpy steps left around them). The numpy functions stay the readable statement of the
shape, lane and code rules (and serve the cold paths: the checkpointed
route, benchmarks); ``tests/test_gpu_host.py`` checks that both give the
same plan.
"""

from __future__ import annotations

import numpy as np

from ...backends.cuda.launch import PROFILE_LIMIT
from ...jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: (longest query, G, R): the first row whose length covers the query gives its shape (measured with
#: ``python benchmarks/bench_gpu.py --sweep``, benchmarks/decisions/pair_plan.md; see ``pairwise_subwarp``)
PLAN = (
    (8, 1, 8),
    (16, 1, 16),
    (32, 4, 8),
    (64, 4, 16),
    (80, 4, 20),
    (128, 8, 16),
    (160, 8, 20),
    (256, 16, 16),
    (320, 16, 20),
)
#: queries longer than the table: whole warps, stages of 32 * 16 rows
LONG = (32, 16)
#: 16-bit lanes hold every value whose bound stays below this (NEG16 in the kernel is -24576)
INT16_LIMIT = 23000

#: the plan as arrays: the longest query of each row, its G and R (then LONG's)
PLAN_LIMITS = np.array([row[0] for row in PLAN], np.int64)
PLAN_G = np.array([row[1] for row in PLAN] + [LONG[0]], np.int64)
PLAN_R = np.array([row[2] for row in PLAN] + [LONG[1]], np.int64)


@nb.njit(**_JIT)
def _shape(q, limits, Gs, Rs):
    k = 0
    while k < limits.shape[0] and limits[k] < q:
        k += 1
    return Gs[k], Rs[k]


@nb.njit(**_JIT)
def _words(q, t, G, R, planes):
    """``subwarp.dir_words`` of one pair."""
    stages = (q + G * R - 1) // (G * R)
    steps = t + G - 1
    if planes:
        steps = (steps + 7) // 8 * 8
    return stages * steps * ((R + 7) // 8) * G


@nb.njit(**_JIT)
def _fits16(q, t, fit):
    """``subwarp.fits16`` of one pair; ``fit``: (match, gap_open, gap_extend, scores within the profile)."""
    if fit[3] == 0:
        return False
    high = fit[0] * min(q, t)
    low = 3 * fit[1] + (q + t + 2) * fit[2]
    return max(high, low) < INT16_LIMIT and t < 65536


def fit_values(scoring) -> np.ndarray:
    """What ``_fits16`` reads of a scoring."""
    ok = max(scoring.as_list()) <= PROFILE_LIMIT
    return np.array([scoring.match, scoring.gap_open, scoring.gap_extend, int(ok)], np.int64)


@nb.njit(**_JIT)
def _route(qlen, tlen, bound, trace, budget, dirs_bytes, full_bytes, limits, Gs, Rs, long_G, long_R, gpu, ckpt):
    rows = long_G * long_R
    for p in range(qlen.shape[0]):
        q, t = qlen[p], tlen[p]
        ok = bound[0] + (q + t + 1) * bound[1] < bound[2]
        c = False
        if trace:
            G, R = _shape(q, limits, Gs, Rs)
            codes = _words(q, t, G, R, True) * 4
            full = codes <= budget
            if q > rows:
                stages = (q + rows - 1) // rows
                kept = 4 * ((stages - 1) * 2 * (t + 1) + _words(min(q, rows), t, long_G, long_R, False))
                c = kept <= dirs_bytes
            full = full and not (c and codes > full_bytes)
            c = c and not full
            ok = ok and (full or c)
        gpu[p] = ok
        ckpt[p] = c


def route_pairs(qlen: np.ndarray, tlen: np.ndarray, cfg, dirs_bytes: int, full_bytes: int,
                int32_limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(gpu, checkpointed) of every pair under the subwarp kernels (``gpu.routes``' rule)."""
    sc = cfg.scoring
    per_base = max(sc.match, sc.mismatch, sc.n_penalty) + sc.gap_extend
    bound = np.array([sc.gap_open, per_base, int32_limit], np.int64)
    gpu = np.empty(len(qlen), np.bool_)
    ckpt = np.empty(len(qlen), np.bool_)
    _route(_i64(qlen), _i64(tlen), bound, cfg.traceback, cfg.matrix_budget, dirs_bytes, full_bytes,
           PLAN_LIMITS, PLAN_G, PLAN_R, LONG[0], LONG[1], gpu, ckpt)
    return gpu, ckpt


@nb.njit(**_JIT)
def _plan(qlen, tlen, subset, fixed, fit, trace, limits, Gs, Rs, G, R, pack, words, key):
    n = qlen.shape[0]
    for p in range(n):
        G[p] = 1
        R[p] = 1
    for i in range(subset.shape[0]):
        p = subset[i]
        if fixed[0] > 0:
            G[p], R[p] = fixed[0], fixed[1]
        else:
            G[p], R[p] = _shape(qlen[p], limits, Gs, Rs)
    for p in range(n):
        pack[p] = _fits16(qlen[p], tlen[p], fit)
        if trace:
            words[p] = _words(qlen[p], tlen[p], G[p], R[p], pack[p])
    for i in range(subset.shape[0]):
        p = subset[i]
        key[i] = (G[p] * 64 + R[p]) * 2 + pack[p]


def plan_pairs(qlen: np.ndarray, tlen: np.ndarray, subset: np.ndarray, scoring, trace: bool,
               shape: tuple[int, int] | None = None, pack16: bool = True):
    """G, R, pack (per pair: 1, 1 outside ``subset``), direction words (per pair, None in score only) and the
    shape key of each pair of ``subset``; ``shape``: one (G, R) for every pair instead of the plan."""
    n = len(qlen)
    G, R = np.empty(n, np.int64), np.empty(n, np.int64)
    pack = np.empty(n, np.bool_)
    words = np.empty(n if trace else 0, np.int64)
    key = np.empty(len(subset), np.int64)
    fit = fit_values(scoring)
    if not pack16:
        fit[3] = 0
    fixed = np.array(shape if shape is not None else (0, 0), np.int64)
    _plan(_i64(qlen), _i64(tlen), _i64(subset), fixed, fit, trace, PLAN_LIMITS, PLAN_G, PLAN_R, G, R, pack, words, key)
    return G, R, pack, (words if trace else None), key


@nb.njit(**_JIT)
def _pair(sel, qlen, tlen, fit, check, items):
    n = sel.shape[0]
    k = 0
    # pairs that share a group first, then the first and the second of pairs that could not, alone
    for i in range(0, n, 2):
        if i + 1 < n:
            a, b = sel[i], sel[i + 1]
            if not check or _fits16(max(qlen[a], qlen[b]), max(tlen[a], tlen[b]), fit):
                items[k, 0], items[k, 1] = a, b
                k += 1
        else:
            items[k, 0], items[k, 1] = sel[i], -1
            k += 1
    for j in range(2):
        for i in range(0, n - 1, 2):
            a, b = sel[i], sel[i + 1]
            if check and not _fits16(max(qlen[a], qlen[b]), max(tlen[a], tlen[b]), fit):
                items[k, 0], items[k, 1] = sel[i + j], -1
                k += 1
    return k


def pair_items(sel: np.ndarray, qlen: np.ndarray, tlen: np.ndarray, scoring=None) -> np.ndarray:
    """Work items of the 16-bit kernels: the pairs of ``sel`` two by two.

    ``sel`` is sorted by size, so neighbours have similar shapes; with
    ``scoring``, two pairs whose shared matrix would pass the 16-bit bound
    go alone (partner -1), after the others; without it (shared pairs, whose
    bound is the scoring's alone) every pair keeps its neighbour. Returns an
    (items, 2) int32 array.
    """
    n = len(sel)
    items = np.empty((n, 2), np.int32)
    fit = fit_values(scoring) if scoring is not None else np.zeros(4, np.int64)
    k = _pair(_i64(sel), _i64(qlen), _i64(tlen), fit, scoring is not None, items)
    return items[:k]


@nb.njit(**_JIT)
def _borders(items, qlen, tlen, rows, slots, off):
    total = 0
    two = items.shape[1] > 1
    for i in range(items.shape[0]):
        a = items[i, 0]
        m, n = qlen[a], tlen[a]
        if two and items[i, 1] >= 0:
            b = items[i, 1]
            m, n = max(m, qlen[b]), max(n, tlen[b])
        if m > rows:
            off[a] = total
            total += slots[min(i, slots.shape[0] - 1)] * 2 * (n + 1)
    return total


def border_offsets(items: np.ndarray, qlen: np.ndarray, tlen: np.ndarray, rows: int, npairs: int,
                   slots=1) -> tuple[np.ndarray, int]:
    """Scratch of the work items ``items`` ((k, 1) or (k, 2) pair indices, -1 for no partner) that need
    more than one stage of ``rows`` rows: ``slots`` border rows (H and F, int32, a target column each; one
    number, or one per item) at the offset of the item's first pair. Returns the per-pair offsets (int64,
    ``npairs``) and the total; 0 when no item needs more than one stage."""
    off = np.zeros(npairs, np.int64)
    items = np.require(items, np.int32, "CW").reshape(len(items), -1)
    total = _borders(items, _i64(qlen), _i64(tlen), rows, _i64(np.atleast_1d(slots)), off)
    return off, int(total)


def compile_ahead():
    """Run every compiled step once on a few pairs, with the argument types of a run, so that numba's
    cache holds them before the first GPU run (``precompile``: no GPU needed)."""
    from ...config import AlignConfig

    qlen = np.array([3, 150, 600, 20], np.int64)
    tlen = np.array([9, 160, 700, 0], np.int64)
    subset = np.arange(3, dtype=np.int64)
    for trace in (False, True):
        cfg = AlignConfig(traceback=trace)
        route_pairs(qlen, tlen, cfg, 1 << 31, 1 << 24, 1 << 29)
        plan_pairs(qlen, tlen, subset, cfg.scoring, trace)
    for scoring in (None, cfg.scoring):
        border_offsets(pair_items(subset, qlen, tlen, scoring), qlen, tlen, 512, len(qlen))
    from ...backends.cuda.device import shape_groups

    for key in (np.array([3, 1, 3], np.int64), np.array([1 << 20, 1, 3], np.int64)):  # narrow and wide keys
        shape_groups(subset, key, qlen * tlen)


def _i64(a) -> np.ndarray:
    """``a`` as the one array type the compiled steps are compiled for (a read-only array, such as a batch's
    lengths, would be another type to numba, compiled at its first use)."""
    return np.require(a, np.int64, "CW")
