"""The triplet GPU engine's plan, on the host and without a device: what each launch of ``triplet.cu`` runs.

Shapes: each triplet's group of T = S*S lanes of R x R squares from ``PLAN``
by the larger of n2 and n3 (score only, slices of 33-100 a side: the shape
of ``CHOICE`` with the least estimated time, ``plan_shapes``); slices
larger than the group's (S*R)^2 run in several passes over tiles, their
borders in a scratch buffer on the device (``border_ints``). Work items: one
triplet in int32 lanes, or two in 16-bit halves where every value fits
(``pair_up``, ``fits16``). The items whose passes would outlast the
launch's work spread over the GPU (few or long triplets: ``wave_items``)
run as a tile wave instead, each tile its own group (``wave_table``, one
compiled pass that releases the interpreter lock).

Traceback: each triplet's direction bytes in the trace kernel's layout
(``dir_bytes``, ``code_index``), launches cut to a share of the device's
memory; a triplet whose codes pass ``trace_budget`` (``--max-matrix-mb``)
traces back in windows of m slices (``window_slices``), one sweep and one
walk a window, in launches of one count of windows (``LaunchPlan.windows``,
the kernels' W bit 1). The sweep of the last window keeps the slice below
each other window (``checkpoint_ints``), from which that window's sweep
starts, where those checkpoints fit the budget with a window's codes
(``window_checkpoints``; else every window's sweep starts at slice 0).

``plan_launches`` gives the launches of a subset of a batch
(``LaunchPlan``); ``gpu.py`` uploads and queues them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.cuda.device import fitting_parts, shape_groups
from ...backends.cuda.launch import THREADS
from ...config import AlignConfig, Mode, Scoring
from ...jit import nb

#: the tile wave (each tile of a work item its own group, the tiles of an item at once; kernels/triplet.cu)
#: takes the items whose sweep by one group would outlast the launch's work spread evenly over the
#: GPU's groups (``wave_items``); a number N instead: every item of at least N tiles (0: none), as
#: ``Tuning.wave_tiles`` may say too. Measured on an H100 (benchmarks/decisions/triplet_wave.md): the wave
#: runs the 16-bit lanes at 0.65-0.77 TCUPS against 0.60-0.65 for 1,788 triplets of 256 bp, int32 lanes at
#: 0.41-0.46 against 0.06-0.11 for 264 triplets of 512 and 1,024 bp; the sweep leads for 14,305 triplets of
#: 128 bp (0.98 against 0.63), whose items already fill the GPU.
WAVE_TILES = None
#: resident threads a multiprocessor that the wave's rule counts (two blocks of THREADS, as measured; the
#: score kernels of 16 lanes hold three since their __launch_bounds__)
RESIDENT_THREADS = 2 * THREADS
#: resident threads a multiprocessor of ``triplet_trace16`` (two blocks: TRIPLET_OPT_MINBT16)
TRACE16_RESIDENT = 2 * THREADS
#: modes the kernels compute
MODES = (Mode.GLOBAL, Mode.SEMI_GLOBAL, Mode.LOCAL)
#: int32 lanes hold every value whose bound stays below this (minus infinity is -2**30)
INT32_LIMIT = 2**29
#: 16-bit lanes hold every value whose bound stays below this (minus infinity is -24576)
INT16_LIMIT = 16000
#: pair scores come from signed-byte profiles: every scoring value at most this
PROFILE_LIMIT = 127
#: scratch for the borders of multi-pass triplets held on the device at once
BORDER_BYTES = 1 << 30
#: direction bytes (traceback) held on the device at once: launches are split to fit (a triplet's own codes
#: at once at most this, ``trace_budget``: past it, windows of slices)
DIRS_BYTES = 2 * 1024**3
#: a triplet whose codes pass ``trace_budget`` traces back in windows of slices, each a forward sweep of its
#: own; at most this many windows (``window_slices``), else the CPU engine
MAX_WINDOWS = 64
#: (largest side, T, R): a triplet whose slice side max(n2, n3) + 1 is at most
#: the first column takes T lanes of R x R cells. Measured on an H100
#: (``benchmarks/bench_triplet.py --sweep``, global, TCUPS;
#: benchmarks/decisions/triplet_plan_shapes.md): 4 lanes
#: of 6 x 6 lead up to 32 bp (0.69 at 16 bp, 0.93 at 32: eight triplets a warp,
#: several passes), 16 lanes of 6 x 6 from 64 bp (1.18 at 64, 0.91 at 128);
#: squares of 4 and of 8 and single lanes trail at every length. From a side of
#: 33 to 100 the two shapes are chosen between by padding (``CHOICE``).
PLAN = (
    (4, 1, 4),
    (48, 4, 6),
)
#: score only: a triplet whose slice side is at most Q (the first of these that holds it) runs
#: ``triplet_small16<MODE, Q>``, one thread holding the whole slice of two triplets (``small_kernel``; H100,
#: global: 8 bp 0.53 -> 1.77 TCUPS, 6 bp 0.26 -> 1.56 against 4 lanes of 6 x 6;
#: benchmarks/decisions/triplet_small_kernel.md)
SMALL = (5, 7, 9)
#: score only: (first side, last side, T, R) rows taken instead of ``PLAN``'s (one tile of 4 lanes of 7 x 7 for
#: sides of 13 and 14, where PLAN's squares of 6 take 2 x 2 tiles: 12 bp 0.36 -> 1.23 TCUPS global on an H100)
SHORT = ((13, 14, 4, 7),)
#: sides past the table: 16-lane groups of 6 x 6, in tiles of 24 x 24 (several passes); R = 6 keeps
#: 16-bit lanes open to them (PACK16_MAX_R)
LONG = (16, 6)
#: score only, slice sides in CHOICE_SIDES: each triplet takes the shape (T, R) of CHOICE whose estimated time
#: is least, padded cells (steps n1 + 2S - 1 times the slice's tiles) over the shape's rate in the mode. Padding
#: decides there: a side of 49 fills 3 x 3 tiles of 24 (46 %), 5 x 5 of 12 (67 %). The rates are those of
#: whole runs in the command's batches (16,384 triplets; H200, ``piece_timeline.py``, the union of the launches'
#: spans; 2026-11-29, benchmarks/decisions/triplet_shape_choice.md): there a batch's 4-lane launch holds a
#: fraction of the GPU's groups, and 16 lanes' launches took 4-18 % less time at 52 and 72 bp in every mode
#: (sides that pad 1.37-1.55 times the cells in 16 lanes), where kernel benchmarks of 35,000-55,000 triplets
#: a launch (``bench_triplet.py --sweep 4:6,16:6``) had 4 lanes ahead by up to 18 %. So 16 lanes from 36 bp
#: on; sides of 33-36 (1.96-1.98 times the cells) keep 4.
#: Traceback (``CHOICE_RATE_TRACE``; 16-bit lanes, ``--traceback --sweep 4:6,16:6``): on an H100 1.25-1.35
#: times in global and local mode, 1.6 at 84 bp, before 16 lanes kept the values' bytes (``VALUES_LANES``);
#: on an H200 (2026-11-28, benchmarks/decisions/triplet_shape_choice.md) 1.9-2.9 at 48-80 bp in every mode
#: (semi-global 1.88 at 48 bp): 48-59 and 72-83 bp trace back in 16 lanes (global 80 bp 0.64 -> 0.96 TCUPS,
#: local 72 bp 0.41 -> 0.73). At 32-35 bp (sides of 33-36, where 16 lanes need 1.96-1.98; 2026-11-29,
#: benchmarks/decisions/triplet_shape_choice.md), in kernel benchmarks and in whole runs alike: 2.0 in global
#: mode, 1.9 in semi-global, 2.4 in local, so global and local mode trace back in 16 lanes there (local 34 bp:
#: the launches 0.047 -> 0.034-0.039 s for 300,000 triplets), semi-global in 4.
CHOICE = ((4, 6), (16, 6))
CHOICE_SIDES = (33, 100)
CHOICE_RATE = {Mode.GLOBAL: (1.0, 1.66), Mode.SEMI_GLOBAL: (1.0, 1.66), Mode.LOCAL: (1.0, 1.66)}
CHOICE_RATE_TRACE = {Mode.GLOBAL: (1.0, 2.0), Mode.SEMI_GLOBAL: (1.0, 1.9), Mode.LOCAL: (1.0, 2.4)}
#: score only, slice sides past CHOICE_SIDES: 16 lanes of 6 x 6 or of 7 x 7, the fewer padded cells; squares
#: of 7 where both pad alike (sides of 145-168, 313-336, ...: 7 x 24 = 6 x 28), or within 1 %. H100
#: (``bench_triplet.py --sweep 16:6,16:7``, 2026-11-28, benchmarks/decisions/triplet_long_choice.md): squares
#: of 7 run 0.99-1.08 times the padded cells a second of squares of 6 at 64-256 bp; at 128 bp, 5 x 5 tiles of
#: 28 against 6 x 6 of 24: global 1.345 -> 1.481 TCUPS, semi-global 1.129 -> 1.286. H200 (2026-11-28,
#: benchmarks/decisions/triplet_long_choice.md): where both pad to 168 (150 and 160 bp), squares of 7 run 1.02
#: times as fast in global mode and 1.05-1.07 times in semi-global and local mode; at 180 bp, where they pad
#: 4 % more cells, 0.97 times (global), 0.99 (semi-global) and 0.95 (local)
LONG_CHOICE = ((16, 6), (16, 7))
LONG_CHOICE_RATE = (1.0, 1.01)
#: traceback shapes (their T) that keep the values' low bytes (``Scoring.triplet_values_fit``) rather than codes: H100,
#: ``bench_triplet.py --gpu --traceback`` (2026-11-28, benchmarks/decisions/triplet_trace_values.md), 16 lanes
#: 1.35-1.7 times as fast (128 bp global 0.52 -> 0.77 TCUPS); 4 lanes (16-48 bp) 0.8-0.9 times in global mode
#: (the walk's share grows)
VALUES_LANES = (16,)
#: modes whose traceback runs the tile wave in 16-bit lanes with codes; the others' wave items go to int32
#: lanes (local mode's 16-bit wave kernel with codes spills: 0.26-0.30 TCUPS at 200-1,024 bp against 0.33-0.37
#: on an H100). With the values' bytes (``Scoring.triplet_values_fit``, ``VALUES_LANES``) every mode's does not
#: spill, and takes 16-bit lanes (local mode at 256 / 512 / 1,024 bp: 0.65 / 0.63 / 0.32 -> 0.83 / 0.81 / 0.37
#: TCUPS on an H200, 2026-11-28, benchmarks/decisions/triplet_trace_wave16.md).
WAVE16_TRACE = (Mode.GLOBAL, Mode.SEMI_GLOBAL)
#: int32 lanes against 16-bit lanes of the same shape, time (H100: 1.75 at 128 bp, 1.9 at 32)
INT32_SLOWER = 2.0
#: group sizes the kernels take (T = S * S lanes dividing a warp)
GROUPS = (1, 4, 16)
#: 16-bit lanes for squares up to this side (their B-C pair scores in shared memory): groups of 4 lanes
#: of 8 x 8 pass the 48 KB of static shared memory, 16 lanes of 8 spill (ptxas, sm_90)
PACK16_MAX_R = 7


def side(lengths: np.ndarray) -> np.ndarray:
    """The side of each triplet's (j, k) slice: max(n2, n3) + 1 (rows and columns 0 included)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    return np.maximum(lengths[:, 1], lengths[:, 2]) + 1


def plan_shapes(lengths: np.ndarray, mode=Mode.GLOBAL, trace: bool = False,
                scoring: Scoring | None = None) -> tuple[np.ndarray, np.ndarray]:
    """T and R of each triplet ((n, 3) lengths): from ``PLAN``, the least time of ``CHOICE`` where it chooses.

    With ``scoring``, a shape whose padding takes a triplet past the 16-bit
    bound (``fits16``) counts INT32_SLOWER times its time there.
    """
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    limits = np.array([row[0] for row in PLAN])
    T = np.array([row[1] for row in PLAN] + [LONG[0]], np.int64)
    R = np.array([row[2] for row in PLAN] + [LONG[1]], np.int64)
    sides = side(lengths)
    k = np.searchsorted(limits, sides, side="left")
    T, R = T[k], R[k]
    table = CHOICE_RATE_TRACE if trace else CHOICE_RATE
    rates = table.get(int(mode), table[Mode.GLOBAL])
    pick = (sides >= CHOICE_SIDES[0]) & (sides <= CHOICE_SIDES[1])
    T, R = _least_time(lengths, pick, CHOICE, rates, scoring, T, R)
    if not trace:
        T, R = _least_time(lengths, sides > CHOICE_SIDES[1], LONG_CHOICE, LONG_CHOICE_RATE, scoring, T, R)
        for first, last, t, r in SHORT:
            row = (sides >= first) & (sides <= last)
            T, R = np.where(row, t, T), np.where(row, r, R)
        small = np.searchsorted(np.array(SMALL), sides, side="left")
        fit = small < len(SMALL)
        T, R = np.where(fit, 1, T), np.where(fit, np.array(SMALL + (0,))[small], R)
    return T, R


def _least_time(lengths: np.ndarray, pick: np.ndarray, shapes: tuple, rates: tuple, scoring: Scoring | None,
                T: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """T and R with the triplets ``pick`` given the shape of ``shapes`` whose estimated time is least (the first
    of equal ones): steps times the padded slice over the shape's rate; INT32_SLOWER times that where the
    padding takes the triplet past the 16-bit bound (``fits16``, with ``scoring``)."""
    sides = side(lengths)
    est = []
    for (t, r), rate in zip(shapes, rates):
        S = int(lanes_side(t))
        time = (lengths[:, 0] + 2 * S - 1) * ((sides + S * r - 1) // (S * r) * (S * r)) ** 2 / rate
        if scoring is not None:
            time = np.where(fits16(scoring, lengths, t, r), time, time * INT32_SLOWER)
        est.append(time)
    c = np.argmin(np.stack(est), axis=0)
    table = np.array(shapes, np.int64)
    return np.where(pick, table[c, 0], T), np.where(pick, table[c, 1], R)


def small_kernel(T: int, R: int, trace: bool = False) -> bool:
    """Whether a shape is one of ``triplet_small16``'s (a thread a slice of Q = R, score only, 16-bit lanes)
    for items whose slices fit it whole."""
    return not trace and T == 1 and R in SMALL


def lanes_side(T) -> np.ndarray:
    """S, the lanes along each side of a group of T = S * S lanes."""
    return np.rint(np.sqrt(np.asarray(T, np.float64))).astype(np.int64)


def tiles(lengths: np.ndarray, T, R) -> tuple[np.ndarray, np.ndarray]:
    """(JT, KT): tiles of S*R x S*R covering rows 0..n2 and columns 0..n3 (one pass each)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    SR = lanes_side(T) * np.asarray(R, np.int64)
    return (lengths[:, 1] + SR) // SR, (lengths[:, 2] + SR) // SR


def border_ints(lengths: np.ndarray, T, R, wave: bool = False) -> np.ndarray:
    """int32 scratch of each work item ((n, 3) lengths, the largest of its triplets): 0 for one pass.

    Several passes keep, for every slice i, the row above the tile (KT*S
    chunks of R + 1 values, a lane's corner in front) and the column on its
    left (S chunks of R values), each chunk rounded up to 4 ints (16-byte
    words: every item's scratch a whole number of them); the tile wave a
    column for each of the JT tile rows.
    """
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    JT, KT = tiles(lengths, T, R)
    S, R = lanes_side(T), np.asarray(R, np.int64)
    row, col = (R + 4) // 4 * 4, (R + 3) // 4 * 4
    columns = JT if wave else 1
    return np.where(JT * KT > 1, (lengths[:, 0] + 1) * S * (KT * row + columns * col), 0)


def wave_table(lengths: np.ndarray, T: int, R: int) -> np.ndarray:
    """The tile wave's table of work items ((n, 3) lengths, the largest of each item's triplets).

    (ntiles, 4) int32: item, J, K and the item's first slot (its tiles'
    counters at first + J*KT + K), in the order groups take them: by
    anti-diagonal J + K, then item, then J, so every tile comes after those
    it waits for (the one above and the one on its left) and the tiles taken
    together can start together. One compiled pass that releases the
    interpreter lock (the prepare threads of several GPUs plan at once).
    """
    JT, KT = tiles(lengths, T, R)
    return _wave_table(np.require(JT, np.int64, "CW"), np.require(KT, np.int64, "CW"))


@nb.njit(cache=True, nogil=True)
def _wave_table(JT, KT):
    # a counting sort by anti-diagonal of the tiles in row-major order (item, J, K): stable, so equal
    # diagonals keep item, then J
    total, last = 0, 0
    for w in range(JT.shape[0]):
        total += JT[w] * KT[w]
        last = max(last, JT[w] + KT[w] - 1)
    at = np.zeros(last + 1, np.int64)
    for w in range(JT.shape[0]):
        for J in range(JT[w]):
            for K in range(KT[w]):
                at[J + K] += 1
    start = 0
    for d in range(last + 1):
        start, at[d] = start + at[d], start
    table = np.empty((total, 4), np.int32)
    first = 0
    for w in range(JT.shape[0]):
        for J in range(JT[w]):
            for K in range(KT[w]):
                r = at[J + K]
                at[J + K] = r + 1
                table[r, 0], table[r, 1], table[r, 2], table[r, 3] = w, J, K, first
        first += JT[w] * KT[w]
    return table


def compile_ahead():
    """Compile the host plan's compiled step (``wave_table``) with the argument types of a run, so that numba's
    cache holds it before the first GPU run (``precompile``: no GPU needed)."""
    wave_table(np.array([[30, 50, 20], [5, 5, 5]]), 16, 6)


def code_words(R) -> np.ndarray:
    """32-bit words of a lane's R x R direction codes at one step (four codes a word)."""
    return (np.asarray(R, np.int64) ** 2 + 3) // 4


def dir_bytes(lengths: np.ndarray, mode, T=None, R=None, slices=None) -> np.ndarray:
    """Direction bytes of each triplet's traceback in ``triplet_trace``'s layout (T, R: the plan's by default).

    Every step of every pass, each of the T lanes' R x R codes in whole
    words: passes * (n1 + 2S - 1) * T * 4 * ceil(R*R / 4). None for a
    semi-global triplet with an empty sequence (no DP: its alignment is
    empty). ``slices``: a window's slices a triplet (``window_slices``; 0
    or None: every slice): passes * (slices + 2S - 2) * T * 4 * ceil(R*R / 4).
    """
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    if T is None or R is None:
        T, R = plan_shapes(lengths, mode, trace=True)
    steps = lengths[:, 0] + 1
    if slices is not None:
        steps = np.where(np.asarray(slices) > 0, slices, steps)
    size = step_bytes(lengths, T, R) * (steps + 2 * lanes_side(T) - 2)
    if int(mode) == Mode.SEMI_GLOBAL:
        size = np.where((lengths == 0).any(axis=1), 0, size)
    return size


def step_bytes(lengths: np.ndarray, T, R) -> np.ndarray:
    """Direction bytes of one wavefront step of every pass: JT * KT * T lanes * 4 * ceil(R*R / 4)."""
    T, R = np.asarray(T, np.int64), np.asarray(R, np.int64)
    JT, KT = tiles(lengths, T, R)
    return JT * KT * T * 4 * code_words(R)


def window_slices(lengths: np.ndarray, mode, budget: int, T, R) -> np.ndarray:
    """Each triplet's traceback windows: 0 where its codes fit ``budget`` bytes at once, else m > 0 slices a window.

    A triplet past the budget keeps the codes of m slices at a time: one
    forward sweep a window, from the end (``triplet_trace``'s ``wslices``),
    each followed by the walk through that window. m is the slices of the
    fewest windows whose codes and checkpoints (``checkpoint_ints``) fit the
    budget together; where none do, the most slices whose codes alone fit,
    evened out over the windows they make (their sweeps then start from
    slice 0: ``window_checkpoints``); -1 where not even one slice's fits, or
    more than MAX_WINDOWS windows would be needed (the CPU engine traces it
    back).
    """
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    out = np.zeros(len(lengths), np.int64)
    over = np.flatnonzero(dir_bytes(lengths, mode, T, R) > budget)
    if not len(over):
        return out
    lengths = lengths[over]
    T, R = (np.broadcast_to(np.asarray(v, np.int64), len(out))[over] for v in (T, R))
    slices = lengths[:, 0] + 1
    kept = np.full(len(over), -1, np.int64)
    for count in range(2, MAX_WINDOWS + 1):
        m = -(-slices // count)
        fit = (kept < 0) & window_checkpoints(lengths, mode, m, budget, T, R)
        kept[fit] = m[fit]
    plain = even_windows(slices, budget // step_bytes(lengths, T, R) - (2 * lanes_side(T) - 2), MAX_WINDOWS)
    out[over] = np.where(kept > 0, kept, plain)
    return out


def window_checkpoints(lengths: np.ndarray, mode, slices: np.ndarray, budget: int, T, R,
                       last: np.ndarray | None = None) -> np.ndarray:
    """Whether each triplet traced back in windows of ``slices`` (counted from ``last``, n1 by default) keeps
    checkpoints: its codes of a window and its ``checkpoint_ints`` fit ``budget`` together (``window_slices``
    chooses such windows where it can)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    slices = np.asarray(slices, np.int64)
    need = dir_bytes(lengths, mode, T, R, slices) + 4 * checkpoint_ints(lengths, slices, last)
    return (slices > 0) & (need <= budget)


def even_windows(slices: np.ndarray, most: np.ndarray, cap: int) -> np.ndarray:
    """Slices a window for ``slices`` slices of which ``most`` fit at once: that many, evened out over the windows
    they make; -1 where not even one fits or more than ``cap`` windows would be needed (shared by the linear and
    the affine kernels' windows)."""
    windows = -(-slices // np.maximum(most, 1))
    return np.where((most >= 1) & (windows <= cap), -(-slices // windows), -1)


def checkpoint_ints(lengths: np.ndarray, slices: np.ndarray, last: np.ndarray | None = None) -> np.ndarray:
    """int32 values each triplet traced back in windows of ``slices`` keeps between its sweeps (0: none): the
    slice below each window but the first, lo - 1, whole ((n2 + 1) x (n3 + 1)), which the sweep of the last
    window writes and from which that window's sweep starts (and its walk takes the values at its edge). Within
    ``trace_budget`` with the window's codes (``window_checkpoints``): a 1,024 bp triplet in 5 windows keeps 16 MB
    and 225 MB of codes at 256 MB. ``last``: the slice the windows count from (``shared_windows``; n1 by
    default)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    return np.maximum(window_count(lengths, slices, last) - 1, 0) * (lengths[:, 1] + 1) * (lengths[:, 2] + 1)


def window_count(lengths: np.ndarray, slices: np.ndarray, last: np.ndarray | None = None) -> np.ndarray:
    """Windows of each triplet traced back in windows of ``slices`` (``window_slices``; 0: none, all at once),
    counted from slice ``last`` (``shared_windows``; n1 by default)."""
    slices = np.asarray(slices, np.int64)
    last = np.asarray(lengths, np.int64).reshape(-1, 3)[:, 0] if last is None else np.asarray(last, np.int64)
    return np.where(slices > 0, -(-(last + 1) // np.maximum(slices, 1)), 0)


def shared_windows(items: np.ndarray, lengths: np.ndarray, slices: np.ndarray, last: np.ndarray, mode: int,
                   budget: int, T: int, R: int) -> None:
    """Puts both triplets of each 16-bit work item (``items``, (n, 2)) traced back in windows with checkpoints in
    the same windows, so that every window's sweep starts from its checkpoint (the kernel starts a window whose
    halves begin at different slices from slice 0): the smaller m of the two, counted from the larger n1, where
    each one's codes of a window and checkpoints still fit ``budget`` and the windows MAX_WINDOWS. Updates
    ``slices`` (m) and ``last`` (by triplet; n1 where not shared) in place."""
    two = items[(items >= 0).all(axis=1)]
    a, b = two[:, 0].astype(np.int64), two[:, 1].astype(np.int64)
    m = np.minimum(slices[a], slices[b])
    top = np.maximum(last[a], last[b])
    ok = (m > 0) & ((slices[a] != slices[b]) | (last[a] != last[b]))
    ok &= -(-(top + 1) // np.maximum(m, 1)) <= MAX_WINDOWS
    for x in (a, b):
        ok &= window_checkpoints(lengths[x], mode, m, budget, T, R, top)
    for x in (a, b):
        slices[x[ok]] = m[ok]
        last[x[ok]] = top[ok]


def code_index(n1: int, n3: int, T: int, R: int, i, j, k, window: tuple[int, int] | None = None):
    """The byte of cell (i, j, k) in a triplet's direction bytes: what ``triplet_trace`` writes, ``triplet_walk`` reads.

    Pass P = J * KT + K of tile (J, K) = (j // SR, k // SR) (SR = S * R,
    KT = (n3 + SR) // SR); lane (u, v) = ((j % SR) // R, (k % SR) // R)
    computes slice i at wavefront step t = i + u + v of n1 + 2S - 1; its
    R x R codes of the step, row-major (e = (j % R) * R + k % R), fill
    ceil(R*R / 4) words; word q of lane l = u*S + v lies at q * T + l of
    the step's block of the group. ``window`` (lo, m): the codes of a
    window of m slices from slice lo, steps t - lo of m + 2S - 2 a pass.
    Reference for tests (numpy arrays or ints).
    """
    S = int(lanes_side(T))
    SR, CW = S * R, int(code_words(R))
    lo, steps = (0, n1 + 2 * S - 1) if window is None else (window[0], window[1] + 2 * S - 2)
    KT = (n3 + SR) // SR
    J, K, jj, kk = j // SR, k // SR, j % SR, k % SR
    u, v, e = jj // R, kk // R, (jj % R) * R + kk % R
    x = (J * KT + K) * steps + i - lo + u + v
    return ((x * CW + e // 4) * T + u * S + v) * 4 + e % 4


def trace_budget(cfg: AlignConfig) -> int:
    """Direction bytes a triplet may hold at once on the device: ``--max-matrix-mb``, at most DIRS_BYTES."""
    return min(cfg.matrix_budget, DIRS_BYTES)


def scoring_fits(cfg: AlignConfig) -> bool:
    """Whether the kernels compute this configuration: linear gaps, a triplet mode, byte-sized scores."""
    sc = cfg.scoring
    return sc.gap_open == 0 and cfg.mode_code in MODES and max(sc.as_list()) <= PROFILE_LIMIT


def fits16(scoring: Scoring, lengths: np.ndarray, T, R) -> np.ndarray:
    """Work items ((n, 3) lengths: the largest of the item's triplets) whose every value fits 16-bit lanes.

    Every cell's value D lies within max(match, 2 gap_extend) per residue
    of its prefixes: at least the alignment that puts each residue alone
    in its column (a residue against two gaps: -2 gap_extend), at most
    match for each residue (a column's pairs score at most match each, and
    a column of c residues holds at most c pairs). Cells past a triplet's
    ends (up to the item's lengths and the last tile) are those of the cube
    they fill, padded with a code whose pairs score -gap_extend: at most
    N1 + N2 + N3 + 2 S*R residues.
    """
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    SR = lanes_side(T) * np.asarray(R, np.int64)
    per = max(scoring.match, 2 * scoring.gap_extend)
    return per * (lengths.sum(axis=1) + 2 * SR + 1) < INT16_LIMIT


def kernel_name(mode: int, R: int, T: int, pack16: bool = False, trace: bool = False, wave: bool = False,
                windows: bool = False, small: bool = False, values: bool = False) -> str:
    """The template instantiation of a shape, as ``loader.module`` takes it (wave: the tile wave's variant,
    which the host launches with a tile table; windows: traceback in windows of slices, ``window_slices``;
    small: ``triplet_small16`` for items whose slices fit Q = R whole, ``small_kernel``; values: traceback
    keeping the low byte of each cell's value, not its code, ``Scoring.triplet_values_fit``)."""
    if small:
        return f"triplet_small16<{int(mode)}, {int(R)}>"
    kind = "trace" if trace else "score"
    W = int(bool(wave)) | 2 * int(bool(windows) and trace) | 4 * int(bool(values) and trace)
    return f"triplet_{kind}{'16' if pack16 else ''}<{int(mode)}, {int(R)}, {int(T)}, {W}>"


def walk_name(mode: int, R: int, T: int) -> str:
    """The walk kernel of a mode and shape (traceback, after ``triplet_trace``/``triplet_trace16`` of the same
    shape: both lay each triplet's codes out by its own lengths)."""
    return f"triplet_walk<{int(mode)}, {int(R)}, {int(T)}>"


@dataclass(frozen=True)
class Tuning:
    """Kernel choices other than the plan, for benchmarks and sweeps."""

    shape: tuple[int, int] | None = None  # a fixed (T, R) for every triplet instead of PLAN
    pack16: bool = True  # two triplets a group in 16-bit lanes where values fit
    wave_tiles: int | None = None  # items of at least this many tiles as a tile wave (0: none; None: WAVE_TILES)
    sms: int = 132  # the device's multiprocessors (``CudaTriplet`` sets its own): the wave's rule
    dirs_bytes: int | None = None  # a launch's direction bytes (None: DIRS_BYTES; ``CudaTriplet``: DIRS_SHARE)


@dataclass
class LaunchPlan:
    """One launch: a kernel shape and its work items, host side (``plan_launches``)."""

    name: str
    T: int
    R: int
    pack16: bool
    order: np.ndarray  # int32 (nwork * H): the triplets of each work item, -1 for none
    nwork: int
    border_off: np.ndarray | None  # int64 (ntriplets): an item's scratch at its first triplet; None: one pass each
    border_size: int  # int32 values of scratch
    trace: bool = False  # triplet_trace (triplet_trace16 with pack16) then triplet_walk
    dir_off: np.ndarray | None = None  # int64 (ntriplets): each triplet's direction bytes (trace)
    dir_size: int = 0  # direction bytes of the launch (trace)
    tiles: np.ndarray | None = None  # the tile wave's table (``wave_table``); None: whole items
    # int32 (ntriplets, 2): traceback in windows of these slices (``window_slices``), counted from this slice
    # (n1, or ``shared_windows``)
    wslices: np.ndarray | None = None
    windows: int = 1  # sweeps and walks of the launch: its triplets' windows (one count a launch)
    ck_off: np.ndarray | None = None  # int64 (ntriplets): windows: each triplet's checkpoints (``checkpoint_ints``)
    ck_size: int = 0  # int32 values of the launch's checkpoints
    values: bool = False  # trace: the bytes are the values' low bytes (``Scoring.triplet_values_fit``), not codes

    @property
    def ntiles(self) -> int:
        return 0 if self.tiles is None else len(self.tiles)

    @property
    def grid(self) -> int:
        return ((self.ntiles or self.nwork) * self.T + THREADS - 1) // THREADS

    @property
    def sync_size(self) -> int:
        """int32 scratch of the tile wave (zeroed): tiles handed out, finished tiles, progress, best cells."""
        H = 2 if self.pack16 else 1
        return 1 + self.nwork + self.ntiles * (1 + 4 * H) if self.ntiles else 1


def pair_up(sel: np.ndarray, lengths: np.ndarray, scoring: Scoring, T: int, R: int) -> np.ndarray:
    """Work items of the 16-bit kernel: neighbours of ``sel`` (sorted by size) two by two.

    Two triplets whose shared cube would pass the 16-bit bound go alone (partner -1),
    and alone a triplet may still not fit: (items, 2) int32 with a mask of the items that fit.
    """
    first = sel[0::2]
    second = np.full(len(first), -1, np.int64)
    second[:len(sel) // 2] = sel[1::2]
    has = second >= 0
    both = np.where(has[:, None], np.maximum(lengths[first], lengths[np.maximum(second, 0)]), lengths[first])
    ok = ~has | fits16(scoring, both, T, R)
    alone = second[~ok]
    items = np.concatenate([np.stack([first[ok], second[ok]], 1), np.stack([first[~ok], np.full(len(alone), -1)], 1),
                            np.stack([alone, np.full(len(alone), -1)], 1)])
    return items.astype(np.int32)


def item_lengths(items: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(n, 3): the largest lengths of each work item's triplets (items: (n, H), -1 for none)."""
    out = np.zeros((len(items), 3), np.int64)
    for h in range(items.shape[1]):
        live = items[:, h] >= 0
        out[live] = np.maximum(out[live], lengths[items[live, h]])
    return out


def wave_items(sizes: np.ndarray, T: int, R: int, sms: int) -> np.ndarray:
    """The work items ((n, 3) lengths) that the tile wave takes by ``WAVE_TILES``'s rule.

    An item swept by one group takes passes * (n1 + 2S - 1) steps; spread
    evenly, the items' steps take their sum over the GPU's resident groups.
    An item whose own steps pass that would be the launch's straggler: the
    wave gives each of its tiles a group instead.
    """
    JT, KT = tiles(sizes, T, R)
    steps = JT * KT * (sizes[:, 0] + 2 * lanes_side(T) - 1)
    groups = sms * RESIDENT_THREADS // T
    return steps > steps.sum() / groups


def plan_launches(lengths: np.ndarray, subset: np.ndarray, cfg: AlignConfig, tuning: Tuning = Tuning()) -> list:
    """The launches that score the triplets ``subset`` ((n, 3) lengths of the whole batch): no device needed.

    Triplets of one shape run together, largest first (the groups of a warp
    get similar work); in 16-bit lanes two by two where values fit, the
    others (and every triplet of a shape with R > PACK16_MAX_R) in int32
    lanes; in parts whose border scratch fits BORDER_BYTES; the items
    ``wave_items`` picks (or ``Tuning.wave_tiles`` tiles or more) in
    launches of their own as a tile wave (``wave_table``), the items of
    each part that runs at once (``_parts``) by their own count. With
    traceback (``triplet_trace``, ``triplet_trace16``) likewise, in parts
    whose direction bytes fit the launch's share (``Tuning.dirs_bytes``) too;
    outside ``WAVE16_TRACE`` (with codes) the wave items trace back in int32 lanes, one
    triplet each (a triplet of a single tile or of fewer tiles than
    ``wave_tiles`` to the int32 sweep).
    """
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    mode = int(cfg.mode_code)
    trace = bool(cfg.traceback)
    subset = np.asarray(subset, np.int64)
    if tuning.shape is None:
        T, R = plan_shapes(lengths[subset], mode, trace, cfg.scoring)
    else:
        T, R = (np.full(len(subset), v, np.int64) for v in tuning.shape)
    wave_tiles = WAVE_TILES if tuning.wave_tiles is None else tuning.wave_tiles
    # traceback in windows of slices (window_slices; with a fixed shape, past the budget: all at once), in
    # launches of their own, one for each count of windows (every triplet of a launch sweeps each window), with
    # checkpoints or without
    slices = np.zeros(len(lengths), np.int64)
    last = lengths[:, 0].copy()  # the slice each triplet's windows count from (shared_windows)
    kept = np.zeros(len(subset), np.int64)  # windows with checkpoints (window_checkpoints)
    if trace:
        slices[subset] = np.maximum(window_slices(lengths[subset], mode, trace_budget(cfg), T, R), 0)
        kept = window_checkpoints(lengths[subset], mode, slices[subset], trace_budget(cfg), T, R).astype(np.int64)
    windows = window_count(lengths[subset], slices[subset])
    values = trace and cfg.scoring.triplet_values_fit()
    key = T * 64 + R
    cells = (lengths[:, 0] + 1) * (lengths[:, 1] + 1) * (lengths[:, 2] + 1)
    whole = windows == 0
    plans = []
    for k, sel in shape_groups(subset[whole], key[whole], cells) + \
            shape_groups(subset[~whole], (key[~whole] * 128 + windows[~whole]) * 2 + kept[~whole], cells):
        win = slices if k >= 8192 else None  # shapes' keys stay below 8192 (T <= 16, R <= 16)
        ckpt = win is not None and k % 2 == 1
        t, r = divmod(k // 256 if win is not None else k, 64)
        groups = []  # (items (n, H), pack16)
        if tuning.pack16 and (r <= PACK16_MAX_R or small_kernel(t, r, trace)):
            items = pair_up(sel, lengths, cfg.scoring, t, r)
            fit = fits16(cfg.scoring, item_lengths(items, lengths), t, r)
            if ckpt:
                shared_windows(items[fit], lengths, slices, last, mode, trace_budget(cfg), t, r)
            if fit.any():
                groups.append((items[fit], True))
            rest = items[~fit].reshape(-1)
            rest = rest[rest >= 0]
            rest = rest[np.argsort(-cells[rest], kind="stable")]
            if len(rest):
                groups.append((rest.reshape(-1, 1).astype(np.int32), False))
        else:
            groups.append((sel.reshape(-1, 1).astype(np.int32), False))
        for all_items, pack in groups:
            every = item_lengths(all_items, lengths)
            dbytes = item_dir_bytes(all_items, lengths, mode, t, r, win, ckpt, last) if trace else None
            waves_of = tuning.sms * TRACE16_RESIDENT // t if trace and pack else 0
            for part in _parts(every, dbytes, tuning.dirs_bytes or DIRS_BYTES, t, r, waves_of):
                items, sizes = all_items[part], every[part]
                # several tiles, the scratch for a column buffer a tile row, and the rule or the number of tiles
                JT, KT = tiles(sizes, t, r)
                waves = (JT * KT > 1) & (border_ints(sizes, t, r, True) * 4 <= BORDER_BYTES)
                if wave_tiles is None:
                    waves &= wave_items(sizes, t, r, tuning.sms)
                else:
                    waves &= (JT * KT >= wave_tiles) & (wave_tiles > 0)
                wave16 = mode in WAVE16_TRACE or (values and t in VALUES_LANES and (win is None or ckpt))
                if pack and trace and not wave16 and waves.any():
                    # the wave's traceback in int32 lanes, one triplet a group
                    alone = items[waves].reshape(-1)
                    alone = alone[alone >= 0]
                    JT1, KT1 = tiles(lengths[alone], t, r)
                    own = (JT1 * KT1 > 1) & ((wave_tiles is None) | (JT1 * KT1 >= (wave_tiles or 0)))
                    for wave in (False, True):
                        pick = alone[own == wave]
                        if len(pick):
                            plans += _launches(pick.reshape(-1, 1).astype(np.int32), lengths[pick], lengths, mode,
                                               t, r, False, trace, wave, win, values, ckpt, last)
                    items, sizes, waves = items[~waves], sizes[~waves], waves[~waves]
                for wave in (False, True):
                    if (waves == wave).any():
                        plans += _launches(items[waves == wave], sizes[waves == wave], lengths, mode, t, r,
                                           pack, trace, wave, win, values, ckpt, last)
    return plans


def item_dir_bytes(items: np.ndarray, lengths: np.ndarray, mode: int, T, R, slices=None,
                   checkpoints: bool = False, last: np.ndarray | None = None) -> np.ndarray:
    """Direction bytes of each work item ((n, H) triplets, -1 for none): the sum of its triplets' own (``slices``:
    a window's, by triplet, ``window_slices``; ``checkpoints``: and their checkpoints, windows counted from
    ``last``)."""
    need = np.zeros(len(items), np.int64)
    for h in range(items.shape[1]):
        live = items[:, h] >= 0
        trip = items[live, h]
        need[live] += dir_bytes(lengths[trip], mode, T, R, None if slices is None else slices[trip])
        if slices is not None and checkpoints:
            need[live] += 4 * checkpoint_ints(lengths[trip], slices[trip], None if last is None else last[trip])
    return need


def _parts(sizes: np.ndarray, dbytes: np.ndarray | None, limit: int, t: int, r: int, groups: int = 0) -> list:
    """The work items (``sizes``: their ``item_lengths``) that run at once as sweeps, and so decide the wave
    together: in parts whose sweeps' border scratch fits BORDER_BYTES and, with traceback, whose codes
    (``dbytes``: ``item_dir_bytes``) fit ``limit`` bytes (a part of a few hundred long items leaves most of
    the GPU idle as sweeps of one group; a part's wave items are cut again to their own scratch).

    ``groups``: the groups the GPU holds at once; a part of more items whose last round of groups would be
    less than half full is cut to whole rounds and its rest, a part of its own that goes to the tile wave
    (H100, traceback: 2,225 items of 150 bp on 2,112 groups took two rounds, 0.41 TCUPS, cut 0.53; 3,536 of
    128 bp, 1.67 rounds, ran 0.50 whole and 0.48 cut).
    """
    parts = fitting_parts(np.arange(len(sizes)), border_ints(sizes, t, r), BORDER_BYTES // 4)
    if dbytes is not None:
        parts = [p[q] for p in parts for q in fitting_parts(np.arange(len(p)), dbytes[p], limit)]
    if groups:
        cut = [len(p) // groups * groups if len(p) > groups and len(p) % groups < groups / 2 else len(p)
               for p in parts]
        parts = [x for p, c in zip(parts, cut) for x in np.split(p, [c]) if len(x)]
    return parts


def _launches(items: np.ndarray, sizes: np.ndarray, lengths: np.ndarray, mode: int, t: int, r: int, pack: bool,
              trace: bool, wave: bool, slices: np.ndarray | None = None, values: bool = False,
              checkpoints: bool = False, last: np.ndarray | None = None) -> list:
    """The launches of work items of one shape and lane width (``sizes``: their ``item_lengths``; one of
    ``_parts``, whose codes fit DIRS_BYTES), in parts whose border scratch fits (the wave's is larger).
    Traceback: each triplet's direction bytes by its own lengths (``dir_bytes``, the walk's layout), of a
    window of ``slices[p]`` slices where given (``window_slices``: one sweep and walk a window), counted from
    slice ``last[p]`` (``shared_windows``; n1 without), with ``checkpoints`` or not (``window_checkpoints``);
    ``values``: the values' low bytes (``Scoring.triplet_values_fit``) for ``VALUES_LANES``, in windows only with
    checkpoints (the walk takes the values at a window's edge there)."""
    ntriplets = len(lengths)
    ints = border_ints(sizes, t, r, wave)
    plans = []
    for part in fitting_parts(np.arange(len(ints)), ints, BORDER_BYTES // 4):
        sub, need = items[part], ints[part]
        off = None
        if need.any():
            off = np.zeros(ntriplets, np.int64)
            off[sub[:, 0]] = np.cumsum(need) - need
        JT, KT = tiles(sizes[part], t, r)
        small = pack and not wave and small_kernel(t, r, trace) and bool((JT * KT == 1).all())
        vals = values and t in VALUES_LANES and (slices is None or checkpoints)
        plan = LaunchPlan(kernel_name(mode, r, t, pack, trace, wave, slices is not None, small, vals), t, r, pack,
                          np.ascontiguousarray(sub.reshape(-1)), len(sub), off, int(need.sum()), trace,
                          values=vals)
        if wave:
            plan.tiles = wave_table(sizes[part], t, r)
        if trace:
            trip = sub.reshape(-1)
            trip = trip[trip >= 0]
            dneed = dir_bytes(lengths[trip], mode, t, r, None if slices is None else slices[trip])
            plan.dir_off = np.zeros(ntriplets, np.int64)
            plan.dir_off[trip] = np.cumsum(dneed) - dneed
            plan.dir_size = int(dneed.sum())
            if slices is not None:
                top = lengths[trip, 0] if last is None else last[trip]
                plan.wslices = np.zeros((ntriplets, 2), np.int32)
                plan.wslices[trip, 0] = slices[trip]
                plan.wslices[trip, 1] = top
                plan.windows = int(window_count(lengths[trip], slices[trip], top).max())
            if slices is not None and checkpoints:
                ck = checkpoint_ints(lengths[trip], slices[trip], top)
                plan.ck_off = np.zeros(ntriplets, np.int64)
                plan.ck_off[trip] = np.cumsum(ck) - ck
                plan.ck_size = int(ck.sum())
        plans.append(plan)
    return plans
