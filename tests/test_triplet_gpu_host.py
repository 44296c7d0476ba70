"""Host side of the triplet GPU engine, without a GPU: the plan, the routing hooks, the launches, the names.

The GPU's results themselves (byte-identical to the CPU engine) are checked
by the triplet correctness tests through the ``backend`` fixture.
"""

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from seqalign_cli.backends.cuda.device import Job, fitting_parts
from seqalign_cli.config import AlignConfig, Mode, Scoring
from seqalign_cli.families.triplet import bench as tb
from seqalign_cli.families.triplet import gpu as gt
from seqalign_cli.families.triplet import plan as tp
from seqalign_cli.families.triplet.batch import TripletBatch
from seqalign_cli.families.triplet.results import TripletAlignments
from support.fake_cupy import without_device

KERNEL_SOURCE = Path(__file__).resolve().parents[1] / "kernels" / "triplet.cu"
LINEAR = Scoring(2, 4, 0, 2, 1)


def batch_of(lengths) -> TripletBatch:
    """A batch of triplets of the given (n1, n2, n3) lengths (all A's letters, lengths are what matters)."""
    lengths = np.asarray(lengths, np.int64).reshape(-1, 3)
    offs = []
    for s in range(3):
        off = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths[:, s], out=off[1:])
        offs.append(off)
    codes = tuple(np.zeros(int(off[-1]), np.uint8) for off in offs)
    return TripletBatch(codes, tuple(offs))


def cfg_of(mode="global", traceback=False, scoring=LINEAR):
    return AlignConfig(scoring=scoring, mode=mode, traceback=traceback)


# ---------------------------------------------------------------- the plan

def test_plan_is_ordered_and_takes_groups_the_kernels_have():
    sides = [row[0] for row in tp.PLAN]
    assert sides == sorted(sides) and len(set(sides)) == len(sides)
    for _, T, R in tp.PLAN + ((None,) + tp.LONG,):
        assert T in tp.GROUPS and 1 <= R <= 16


def test_plan_covers_every_length_in_tiles():
    n = np.array([0, 1, 2, 3, 5, 7, 8, 11, 12, 15, 16, 23, 24, 31, 32, 33, 64, 100, 128, 150, 257, 1000, 5000])
    lengths = np.stack([n + 3, n, n // 2], 1)  # the larger of n2, n3 decides
    T, R = tp.plan_shapes(lengths)
    S = tp.lanes_side(T)
    side = tp.side(lengths)
    assert (side == n + 1).all()
    JT, KT = tp.tiles(lengths, T, R)
    covered = side <= tp.PLAN[-1][0]
    # the first row covers its sides in one pass; past the table and the choice: the long shape;
    # everywhere as many tiles as the side needs, none wasted
    first = side <= tp.PLAN[0][0]
    assert (JT[first] == 1).all() and (KT[first] == 1).all()
    long = side > max(tp.PLAN[-1][0], tp.CHOICE_SIDES[1])
    # score only past the choice: 16 lanes of 6 x 6 or 7 x 7, the fewer padded cells over the shapes' rates
    assert {tuple(x) for x in np.stack([T, R], 1)[long].tolist()} == set(tp.LONG_CHOICE)
    padded = {r: ((side + 4 * r - 1) // (4 * r) * 4 * r) ** 2 for r in (6, 7)}
    rate6, rate7 = tp.LONG_CHOICE_RATE
    assert ((R == 7) == (padded[7] / rate7 < padded[6] / rate6))[long].all()
    # sides that pad alike (145-168: 7 x 24 = 6 x 28) take squares of 7 in every mode, a side of 181 (196 against
    # 192) squares of 6
    for mode in tp.MODES:
        assert tp.plan_shapes(np.array([[150, 150, 150], [160, 167, 160], [180, 180, 180]]), mode)[1].tolist() \
            == [7, 7, 6]
    SR = S * R
    assert ((JT - 1) * SR < lengths[:, 1] + 1).all() and (JT * SR >= lengths[:, 1] + 1).all()
    assert ((KT - 1) * SR < lengths[:, 2] + 1).all() and (KT * SR >= lengths[:, 2] + 1).all()
    # the group is never more than needed: the previous row of the table does not cover the side
    limits = np.array([row[0] for row in tp.PLAN])
    table = covered & (side < tp.CHOICE_SIDES[0])
    k = np.searchsorted(limits, side[table])
    assert (k == 0).all() or (side[table][k > 0] > limits[k[k > 0] - 1]).all()
    # traceback: the table and the choice by its own rates
    T, R = tp.plan_shapes(lengths, trace=True)
    k = np.searchsorted(limits, side)
    shapes = np.array([row[1:] for row in tp.PLAN] + [tp.LONG])
    outside = (side < tp.CHOICE_SIDES[0]) | (side > tp.CHOICE_SIDES[1])
    assert (T == shapes[k, 0])[outside].all() and (R == shapes[k, 1])[outside].all()
    assert {tuple(x) for x in np.stack([T, R], 1)[~outside].tolist()} <= set(tp.CHOICE)


@pytest.mark.parametrize("mode", tp.MODES)
def test_score_shapes_take_the_least_estimated_time_where_padding_decides(mode):
    n = np.arange(0, 140)
    lengths = np.stack([n, n, n], 1)
    T, R = tp.plan_shapes(lengths, mode)
    side = tp.side(lengths)
    inside = (side >= tp.CHOICE_SIDES[0]) & (side <= tp.CHOICE_SIDES[1])
    shapes = {tuple(s) for s in np.stack([T, R], 1)[inside].tolist()}
    assert shapes <= set(tp.CHOICE) and len(shapes) == 2  # both shapes win somewhere
    # the estimate: steps x the padded slice / the shape's rate, for the shape taken and the other one
    est = {}
    for (t, r), rate in zip(tp.CHOICE, tp.CHOICE_RATE[mode]):
        S = int(tp.lanes_side(t))
        est[t, r] = (n + 2 * S - 1) * (((side + S * r - 1) // (S * r)) * S * r) ** 2 / rate
    taken = np.array([est[t, r][q] for q, (t, r) in enumerate(zip(T.tolist(), R.tolist())) if inside[q]])
    assert np.allclose(taken, np.min(list(est.values()), axis=0)[inside])
    # a side of 35: 2 x 2 tiles of 24 hold 53 % cells, 3 x 3 tiles of 12 hold 95 %: the smaller tiles
    assert (T[n == 34] == 4).all()
    # a side of 65 fills 3 x 3 tiles of 24 as well as 6 x 6 of 12: the larger group
    assert (T[n == 64] == 16).all()
    # outside the choice: the table (short) and the long shape
    assert (T[side < tp.CHOICE_SIDES[0]] != 16).all() and (T[side > tp.CHOICE_SIDES[1]] == tp.LONG[0]).all()
    # near the 16-bit bound the padding decides the lanes too: 44 bp under match 100 fits 16-bit lanes in
    # tiles of 12 only, and the shape that keeps them wins though tiles of 24 are faster
    big = Scoring(match=100, mismatch=1, gap_open=0, gap_extend=1, n_penalty=1)
    x = np.array([[44, 44, 44]])
    assert int(tp.plan_shapes(x, Mode.GLOBAL)[0][0]) == 16
    assert not tp.fits16(big, x, 16, 6).all() and tp.fits16(big, x, 4, 6).all()
    assert int(tp.plan_shapes(x, Mode.GLOBAL, scoring=big)[0][0]) == 4


def test_lanes_of_the_choice_by_mode_and_traceback():
    """Score only: 16 lanes from 36 bp on in every mode (48-59 and 72-83 bp, where they pad 1.37-1.55 times the
    cells of 4 lanes, among them), 4 lanes at 32-35 bp (1.96-1.98 times). Traceback at 32-35 bp: 16 lanes in
    global and local mode, 4 in semi-global; 16 from 36 bp on."""
    short, rest = np.arange(32, 36), np.arange(36, 100)
    short, rest = (np.stack([n, n, n], 1) for n in (short, rest))
    for mode in tp.MODES:
        assert (tp.plan_shapes(short, mode)[0] == 4).all()
        assert (tp.plan_shapes(rest, mode)[0] == 16).all()
        assert (tp.plan_shapes(rest, mode, trace=True)[0] == 16).all()
    for mode, lanes in ((Mode.GLOBAL, 16), (Mode.SEMI_GLOBAL, 4), (Mode.LOCAL, 16)):
        assert (tp.plan_shapes(short, mode, trace=True)[0] == lanes).all()


def test_border_scratch_only_for_several_passes():
    lengths = np.array([[100, 10, 10], [100, 31, 31], [100, 32, 5], [7, 100, 40], [0, 64, 64]])
    T = np.full(len(lengths), 16)
    R = np.full(len(lengths), 8)
    ints = tp.border_ints(lengths, T, R)
    JT, KT = tp.tiles(lengths, T, R)
    assert ints[0] == 0 and ints[1] == 0  # 32 x 32 covers rows and columns 0..31
    # a slice: 4 lanes a tile column of chunks of 12 ints (9 values: the corner and 8), 4 lanes of 8 (8 values)
    assert JT[2] == 2 and KT[2] == 1 and ints[2] == 101 * (1 * 4 * 12 + 4 * 8)
    assert JT[3] == 4 and KT[3] == 2 and ints[3] == 8 * (2 * 4 * 12 + 4 * 8)
    assert ints[4] == 1 * (3 * 4 * 12 + 4 * 8)
    # 16-byte words: every item's scratch starts 16-byte aligned
    assert (tp.border_ints(np.arange(300).reshape(-1, 3), 16, 7) % 4 == 0).all()


# ---------------------------------------------------------------- routing

def test_hooks_send_traceback_runs_to_the_gpu_within_the_matrix_budget():
    batch = batch_of([[10, 10, 10], [50, 40, 30], [0, 0, 0], [99, 99, 99], [100, 99, 99]])
    for mode in ("global", "semi-global", "local"):
        assert gt.HOOKS.on_gpu(batch, cfg_of(mode, traceback=True)).all()  # 64 MiB by default
        assert gt.HOOKS.on_gpu(batch, cfg_of(mode, traceback=False)).all()
        # the budget is per triplet, on its direction bytes (dir_bytes: the trace kernel's layout); past it,
        # windows of slices (window_slices), each within the budget
        budget = int(tp.dir_bytes(np.array([[99, 99, 99]]), Mode.parse(mode))[0])
        cfg = AlignConfig(scoring=LINEAR, mode=mode, traceback=True, matrix_budget=budget)
        assert gt.HOOKS.on_gpu(batch, cfg).all()
        T, R = tp.plan_shapes(batch.lengths, cfg.mode_code, True, cfg.scoring)
        m = tp.window_slices(batch.lengths, cfg.mode_code, budget, T, R)
        assert m.tolist()[:4] == [0, 0, 0, 0] and 1 <= m[4] <= 100
        assert tp.dir_bytes(batch.lengths[4:], cfg.mode_code, T[4:], R[4:], m[4:])[0] <= budget
        # not even one slice (and the wavefront's fill) within the budget, or more than MAX_WINDOWS windows
        # (101 slices: 51 windows of 2 fit, 101 of 1 do not): the CPU engine
        step = int(tp.step_bytes(batch.lengths[4:], T[4:], R[4:])[0])
        S = int(tp.lanes_side(T[4]))
        for low, want in ((step * (2 * S), True), (step * (2 * S) - 1, False), (step * (2 * S - 1) - 1, False)):
            cfg = AlignConfig(scoring=LINEAR, mode=mode, traceback=True, matrix_budget=low)
            assert gt.HOOKS.on_gpu(batch_of([[100, 99, 99]]), cfg).tolist() == [want]
        cfg = AlignConfig(scoring=LINEAR, mode=mode, traceback=True, matrix_budget=0)
        # semi-global: three empty sequences need no DP (no direction bytes)
        assert gt.HOOKS.on_gpu(batch, cfg).tolist() == [False, False, mode == "semi-global", False, False]
        # score only: no budget
        cfg = AlignConfig(scoring=LINEAR, mode=mode, traceback=False, matrix_budget=0)
        assert gt.HOOKS.on_gpu(batch, cfg).all()


def test_a_gpu_run_says_once_why_triplets_go_to_the_cpu_engine(monkeypatch):
    """The scheduler says one line, the first time a batch has triplets for the CPU engine, naming the
    commonest reason (``TripletHooks.routes``); the results are the CPU engine's either way."""
    from support.helpers import FakeDeviceEngine

    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.backends.cuda.scheduler import GpuScheduler

    class Engine(FakeDeviceEngine):
        def align(self, batch, cfg, subset, out):
            out.take(subset, CpuTriplet(1).align(batch.subset(subset), cfg))

    batch = batch_of([[10, 10, 10], [50, 40, 30], [0, 0, 0], [99, 99, 99], [100, 99, 99]])
    budget = int(tp.dir_bytes(np.array([[99, 99, 99]]), Mode.GLOBAL)[0])
    cfg = AlignConfig(scoring=LINEAR, traceback=True, matrix_budget=budget)
    assert gt.HOOKS.routes(batch, cfg).tolist() == [0, 0, 0, 0, 0]  # the last in windows of slices
    monkeypatch.setattr(tp, "MAX_WINDOWS", 0)  # none: past the budget, the CPU engine
    assert gt.HOOKS.routes(batch, cfg).tolist() == [0, 0, 0, 0, 4]
    said = []
    gpu = GpuScheduler([Engine(0)], CpuTriplet(1), gt.HOOKS, said.append, device="fake GPU")
    want = CpuTriplet(1).align(batch, cfg)
    for _ in range(2):
        res = gpu.align(batch, cfg)
        assert res.score.tolist() == want.score.tolist() and res.column_strings() == want.column_strings()
    assert said == [f"1 of 5 triplets of a batch go to the CPU engine: traceback codes past --max-matrix-mb "
                    f"even in windows of slices ({budget >> 20} MB)"]
    # the other reasons, and none where every triplet fits
    big = AlignConfig(scoring=Scoring(200, 4, 0, 2, 1))
    assert gt.HOOKS.cpu_note(batch, big, np.arange(5)).endswith("scoring values above 127 (the GPU kernels' "
                                                                "byte profiles)")
    # affine gaps: words of 4 bytes a cell, whole or in windows of slices within the budget (here the two
    # largest in two windows); past it even so (at 1.3 MB the two largest would take four), the CPU engine
    affine = AlignConfig(scoring=Scoring(2, 4, 3, 2, 1), matrix_budget=4 * 100**3 - 1)
    assert gt.HOOKS.routes(batch, affine).tolist() == [0, 0, 0, 0, 0]
    affine = AlignConfig(scoring=Scoring(2, 4, 3, 2, 1), matrix_budget=1_300_000)
    assert gt.HOOKS.routes(batch, affine).tolist() == [0, 0, 0, 5, 5]
    assert gt.HOOKS.cpu_note(batch, affine, np.arange(3, 5)).endswith(
        "affine traceback words (4 bytes a cell) past --max-matrix-mb even in windows of slices (1 MB)")
    said.clear()
    res = GpuScheduler([Engine(0)], CpuTriplet(1), gt.HOOKS, said.append, device="fake GPU").align(batch, affine)
    want = CpuTriplet(1).align(batch, affine)
    assert res.score.tolist() == want.score.tolist() and res.column_strings() == want.column_strings()
    assert len(said) == 1 and said[0].startswith("2 of 5 triplets")
    assert gt.HOOKS.cpu_note(batch, AlignConfig(scoring=LINEAR, mode="glocal"), np.arange(5)) is None  # refused
    wide = AlignConfig(scoring=Scoring(120, 120, 0, 120, 120), traceback=False)
    long = batch_of([[10**6, 10**6, 10**6], [5, 5, 5]])
    assert gt.HOOKS.routes(long, wide).tolist() == [2, 0]
    assert gt.HOOKS.cpu_note(long, wide, np.array([1])) is None
    said.clear()
    GpuScheduler([Engine(0)], CpuTriplet(1), gt.HOOKS, said.append, device="fake GPU").align(
        batch, cfg_of(traceback=True))
    assert said == []


def test_direction_bytes_are_the_layout_or_none_for_empty_semi_global_triplets():
    lengths = np.array([[3, 4, 5], [0, 0, 0], [0, 7, 9], [1000, 0, 1000]])
    # passes * steps (n1 + 2S - 1) * T lanes * whole words of R*R codes:
    # 4 lanes of 6 x 6 (S = 2), one lane of 4 x 4, 16 lanes of 6 x 6 in 1 x 42 tiles of 24 (S = 4)
    want = [6 * 4 * 36, 1 * 1 * 16, 3 * 4 * 36, 42 * 1007 * 16 * 36]
    assert tp.dir_bytes(lengths, 0).tolist() == want
    assert tp.dir_bytes(lengths, 3).tolist() == want
    assert tp.dir_bytes(lengths, 1).tolist() == [want[0], 0, 0, 0]  # no DP: the empty alignment
    # fixed shapes: R*R codes padded to whole words (3 x 3: 12 bytes a lane)
    assert tp.dir_bytes(np.array([[5, 5, 5]]), 0, 4, 3).tolist() == [8 * 4 * 12]
    assert tp.dir_bytes(np.array([[5, 5, 5], [20, 30, 10]]), 0, 16, 2).tolist() == [12 * 16 * 4, 4 * 2 * 27 * 16 * 4]
    # semi-global traceback: an empty sequence fits any budget
    cfg = AlignConfig(scoring=LINEAR, mode="semi-global", traceback=True, matrix_budget=10)
    assert gt.HOOKS.on_gpu(batch_of(lengths), cfg).tolist() == [False, True, True, True]


def windows_of(n1: int, m: int) -> list[tuple[int, int]]:
    """The kernels' windows (window_of): [lo, hi) of m slices from the end, the one of slice 0 shorter."""
    out = []
    for q in range(n1 + 1):
        hi = n1 + 1 - q * m
        if hi <= 0:
            return out
        out.append((max(0, hi - m), hi))
    return out


@pytest.mark.parametrize("n, T, R, m", [((30, 50, 37), 16, 6, 4), ((7, 13, 2), 4, 3, 1), ((12, 9, 11), 1, 4, 13),
                                         ((25, 30, 24), 4, 6, 6)])
def test_windows_cover_every_slice_once_and_each_fits_its_direction_bytes(n, T, R, m):
    """Traceback in windows: m slices each from the end; a window's cells each a byte of their own within
    dir_bytes(slices=m), the layout of the whole cube shifted by lo steps (code_index's window)."""
    n1, n2, n3 = n
    wins = windows_of(n1, m)
    assert len(wins) == -(-(n1 + 1) // m)
    assert sorted(i for lo, hi in wins for i in range(lo, hi)) == list(range(n1 + 1))
    assert all(hi - lo == m for lo, hi in wins[:-1]) and wins[0][1] == n1 + 1
    size = int(tp.dir_bytes(np.array([n]), 0, T, R, np.array([m]))[0])
    assert size == int(tp.step_bytes(np.array([n]), T, R)[0]) * (m + 2 * int(tp.lanes_side(T)) - 2)
    for lo, hi in wins:
        i, j, k = np.meshgrid(np.arange(lo, hi), np.arange(n2 + 1), np.arange(n3 + 1), indexing="ij")
        at = tp.code_index(n1, n3, T, R, i, j, k, (lo, m)).reshape(-1)
        assert at.min() >= 0 and at.max() < size and len(np.unique(at)) == at.size
        whole = tp.code_index(n1, n3, T, R, i, j, k)
        block = T * 4 * int(tp.code_words(R))
        steps = n1 + 2 * int(tp.lanes_side(T)) - 1
        tile, step = whole // block // steps, whole // block % steps
        assert ((at // block).reshape(i.shape) == tile * (m + 2 * int(tp.lanes_side(T)) - 2) + step - lo).all()


@pytest.mark.parametrize("n, T, R", [((3, 4, 5), 4, 6), ((30, 50, 37), 16, 6), ((0, 0, 0), 1, 4), ((7, 13, 2), 4, 3),
                                      ((9, 5, 11), 16, 1), ((4, 9, 9), 1, 2)])
def test_direction_layout_gives_each_cell_a_byte_and_a_step_one_run(n, T, R):
    n1, n2, n3 = n
    i, j, k = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), np.arange(n3 + 1), indexing="ij")
    at = tp.code_index(n1, n3, T, R, i, j, k).reshape(-1)
    size = int(tp.dir_bytes(np.array([n]), 0, T, R)[0])
    assert at.min() >= 0 and at.max() < size and len(np.unique(at)) == at.size
    # the group's codes of one step fill one run of T * (whole words of R*R) bytes: the lanes' words interleaved
    S = int(tp.lanes_side(T))
    block = T * 4 * int(tp.code_words(R))
    u, v = (j % (S * R)) // R, (k % (S * R)) // R
    step = i + u + v
    tile = (j // (S * R)) * ((n3 + S * R) // (S * R)) + k // (S * R)
    assert ((at // block).reshape(step.shape) == tile * (n1 + 2 * S - 1) + step).all()
    assert (at % 4 == ((j % R) * R + k % R).reshape(-1) % 4).all()  # row-major codes, four a word
    # the plan's shapes: a lane's words at stride T (lane l at word q * T + l)
    word = (at % block) // 4
    assert ((word % T) == (u * S + v).reshape(-1)).all()


def test_windows_keep_checkpoints_within_the_budget():
    """Windows of slices keep a checkpoint below each window but the first (a whole slice of int32 values) where
    a window's codes and the checkpoints fit the budget together: the fewest such windows, more than the codes
    alone would need where that is what fits; else the codes' own windows, without checkpoints."""
    lengths = np.array([[100, 99, 99]])
    mode = Mode.GLOBAL
    T, R = tp.plan_shapes(lengths, mode, True)
    step = int(tp.step_bytes(lengths, T, R)[0])
    fill = 2 * int(tp.lanes_side(T[0])) - 2
    area = 4 * 100 * 100

    def plan(budget):
        m = tp.window_slices(lengths, mode, budget, T, R)
        return int(m[0]), bool(tp.window_checkpoints(lengths, mode, m, budget, T, R)[0])

    # three windows of 34 slices: the codes of one and two checkpoints
    budget = step * (34 + fill) + 2 * area
    assert plan(budget) == (34, True)
    assert tp.checkpoint_ints(lengths, np.array([34])).tolist() == [2 * 100 * 100]
    # a byte less: the codes alone would still fit three windows, but with checkpoints it takes four (26 slices)
    assert step * (34 + fill) <= budget - 1 < step * (34 + fill) + 2 * area
    assert plan(budget - 1) == (26, True) and step * (26 + fill) + 3 * area <= budget - 1
    # two slices a window: the codes fit, fifty checkpoints do not (nor at fewer slices a window)
    assert plan(step * (2 + fill)) == (2, False) and 50 * area > step * (2 + fill)


def test_16_bit_partners_share_their_windows_where_the_budget_allows():
    """Two triplets of a 16-bit work item traced back in windows with checkpoints take the same windows (the
    smaller m, counted from the larger n1), so that each window's sweep starts from its checkpoint; not where
    either one's codes of a window and checkpoints would pass the budget."""
    lengths = np.array([[100, 60, 60], [90, 60, 60], [100, 60, 60]])
    mode = Mode.GLOBAL
    T, R = 16, 6
    budget = int(tp.dir_bytes(lengths[:1], mode, T, R, np.array([34]))[0]) + 4 * 2 * 61 * 61
    slices = tp.window_slices(lengths, mode, budget, T, R)
    assert slices.tolist() == [34, 31, 34]
    assert tp.window_checkpoints(lengths, mode, slices, budget, T, R).all()
    last = lengths[:, 0].copy()
    items = np.array([[0, 1], [2, -1]], np.int32)
    tp.shared_windows(items, lengths, slices, last, mode, budget, T, R)
    assert slices.tolist() == [31, 31, 34] and last.tolist() == [100, 100, 100]
    assert tp.window_count(lengths, slices, last).tolist() == [4, 4, 3]
    assert tp.window_checkpoints(lengths, mode, slices, budget, T, R, last).all()
    # a partner of larger slices: its checkpoints, counted from the other's n1 at the other's m, would pass
    lengths = np.array([[100, 60, 60], [40, 80, 80]])
    budget = 235742
    slices = tp.window_slices(lengths, mode, budget, T, R)
    assert slices.tolist() == [26, 11] and tp.window_checkpoints(lengths, mode, slices, budget, T, R).all()
    last = lengths[:, 0].copy()
    tp.shared_windows(items[:1], lengths, slices, last, mode, budget, T, R)
    assert slices.tolist() == [26, 11] and last.tolist() == [100, 40]
    assert (tp.dir_bytes(lengths[1:], mode, T, R, np.array([11]))
            + 4 * tp.checkpoint_ints(lengths[1:], np.array([11]), np.array([100])))[0] > budget


def test_traceback_goes_to_windows_past_the_device_direction_bytes(monkeypatch):
    batch = batch_of([[9, 9, 9], [10, 10, 10]])
    assert tp.dir_bytes(batch.lengths, 0).tolist() == [1728, 1872]
    monkeypatch.setattr(tp, "DIRS_BYTES", 1800)
    cfg = AlignConfig(scoring=LINEAR, mode="local", traceback=True, matrix_budget=10**9)
    assert tp.trace_budget(cfg) == 1800
    assert gt.HOOKS.on_gpu(batch, cfg).tolist() == [True, True]
    T, R = tp.plan_shapes(batch.lengths, cfg.mode_code, True)
    # 4 lanes of 6 x 6 (S = 2), one tile: 144 bytes a step, 11 slices + 2 of the wavefront in 1872;
    # 1800 holds 12 steps: windows of 10 slices, evened out to 6 (two windows)
    assert tp.step_bytes(batch.lengths, T, R).tolist() == [144, 144]
    assert tp.window_slices(batch.lengths, cfg.mode_code, 1800, T, R).tolist() == [0, 6]
    assert tp.window_slices(batch.lengths, cfg.mode_code, 3 * 144 - 1, T, R).tolist() == [-1, -1]
    monkeypatch.setattr(tp, "DIRS_BYTES", 3 * 144)  # one slice a window: 11 windows
    assert tp.window_slices(batch.lengths, cfg.mode_code, tp.trace_budget(cfg), T, R).tolist() == [1, 1]
    monkeypatch.setattr(tp, "MAX_WINDOWS", 10)
    assert gt.HOOKS.on_gpu(batch, cfg).tolist() == [True, False]


def test_traceback_keeps_the_int32_and_scoring_rules():
    batch = batch_of([[10, 10, 10]])
    assert not gt.HOOKS.on_gpu(batch, cfg_of(traceback=True, scoring=Scoring(128, 4, 0, 2, 1))).any()
    big = Scoring(127, 1, 0, 1, 1)
    total = (tp.INT32_LIMIT - 1) // (3 * 127)  # bound 381 * (total + 1) >= 2**29
    lengths = np.array([[total, 0, 0]])
    assert big.triplet_bound(lengths)[0] >= tp.INT32_LIMIT
    cfg = AlignConfig(scoring=big, mode="global", traceback=True, matrix_budget=10**9)
    assert not gt.HOOKS.on_gpu(batch_of(lengths), cfg).any()


def test_hooks_send_configurations_the_kernels_lack_to_the_cpu():
    batch = batch_of([[10, 10, 10], [5, 6, 7]])
    assert gt.HOOKS.on_gpu(batch, cfg_of(scoring=Scoring(2, 4, 4, 2, 1))).all()  # affine: kernels of their own
    assert gt.HOOKS.on_gpu(batch, cfg_of(scoring=Scoring(200, 4, 4, 2, 1))).all()  # no byte profile there
    assert not gt.HOOKS.on_gpu(batch, cfg_of(mode="glocal", scoring=Scoring(2, 4, 4, 2, 1))).any()
    assert not gt.HOOKS.on_gpu(batch, cfg_of(mode="glocal")).any()
    assert not gt.HOOKS.on_gpu(batch, cfg_of(scoring=Scoring(128, 4, 0, 2, 1))).any()  # past the byte profile
    assert gt.HOOKS.on_gpu(batch, cfg_of(scoring=Scoring(127, 127, 0, 127, 127))).all()


def test_score_bound_rule_decides_int32_lanes():
    sc = Scoring(2, 4, 0, 3, 1)
    lengths = np.array([[10, 20, 30], [0, 0, 0]])
    assert sc.triplet_bound(lengths).tolist() == [3 * 4 * 61, 3 * 4]
    assert Scoring(1, 2, 0, 9, 3).pair_bound == 9
    # the largest total length that stays below 2**29 with per-pair 127
    big = Scoring(127, 1, 0, 1, 1)
    total = (tp.INT32_LIMIT - 1) // (3 * 127) - 1  # bound = 381 * (total + 1) < 2**29
    lengths = np.array([[total - 2, 1, 1], [total - 1, 1, 1]])
    assert big.triplet_bound(lengths)[0] < tp.INT32_LIMIT <= big.triplet_bound(lengths)[1]
    # the border scratch of such long A's would not fit: make the slices small (one pass) to test the bound alone
    ok = gt.HOOKS.on_gpu(batch_of([[5, 1, 1]]), cfg_of(scoring=big))
    assert ok.tolist() == [True]
    mask = big.triplet_bound(lengths) < tp.INT32_LIMIT
    assert mask.tolist() == [True, False]


def test_hooks_send_triplets_too_large_for_the_border_scratch_to_the_cpu():
    lengths = np.array([[20_000, 20_000, 20_000], [300, 300, 300], [40_000, 10, 10]])
    T, R = tp.plan_shapes(lengths)
    nbytes = tp.border_ints(lengths, T, R) * 4
    assert nbytes[0] > tp.BORDER_BYTES >= nbytes[1]
    assert nbytes[2] == 0  # one pass: no scratch however long A is
    # lengths only: the batch's codes are never read by the hooks
    batch = batch_of(lengths)
    assert gt.HOOKS.on_gpu(batch, cfg_of("local")).tolist() == [False, True, True]


def test_hooks_allocate_triplet_results():
    batch = batch_of([[3, 4, 5], [0, 1, 2]])
    out = gt.HOOKS.allocate(batch, cfg_of())
    assert isinstance(out, TripletAlignments) and out.size == 2 and not out.traceback
    assert gt.HOOKS.allocate(batch, cfg_of(traceback=True)).traceback


def test_empty_batch():
    batch = batch_of(np.zeros((0, 3), np.int64))
    assert gt.HOOKS.on_gpu(batch, cfg_of()).shape == (0,)
    assert tp.plan_launches(batch.lengths, np.arange(0), cfg_of()) == []


# ---------------------------------------------------------------- launches

def _check_launches(lengths, subset, cfg, tuning=tp.Tuning()):
    plans = tp.plan_launches(lengths, subset, cfg, tuning)
    seen = []
    for pl in plans:
        H = 2 if pl.pack16 else 1
        assert pl.order.dtype == np.int32 and len(pl.order) == H * pl.nwork
        items = pl.order.reshape(-1, H)
        assert (items[:, 0] >= 0).all()  # the first half always holds a triplet (its scratch is at its offset)
        seen += [int(p) for p in pl.order if p >= 0]
        assert pl.trace == cfg.traceback
        big = tp.item_lengths(items, lengths)
        JT, KT = tp.tiles(big, pl.T, pl.R)
        # a thread a whole slice: score only, 16-bit lanes, items of one tile
        small = pl.pack16 and not pl.trace and pl.T == 1 and pl.R in tp.SMALL and (JT * KT == 1).all()
        assert pl.name == tp.kernel_name(cfg.mode_code, pl.R, pl.T, pl.pack16, pl.trace, pl.tiles is not None,
                                         pl.wslices is not None, small, pl.values)
        # traceback keeps the values' low bytes where the scoring allows (in windows with checkpoints too)
        assert pl.values == (pl.trace and cfg.scoring.triplet_values_fit() and pl.T in tp.VALUES_LANES
                             and (pl.wslices is None or pl.ck_off is not None))
        assert pl.name.startswith("triplet_small16<") == small
        assert pl.grid * tp.THREADS >= pl.nwork * pl.T
        if pl.pack16:
            assert tp.fits16(cfg.scoring, big, pl.T, pl.R).all() and (pl.R <= tp.PACK16_MAX_R or small)
        wave = pl.tiles is not None
        ints = tp.border_ints(big, pl.T, pl.R, wave)
        assert pl.border_size == ints.sum()
        rule = tp.WAVE_TILES if tuning.wave_tiles is None else tuning.wave_tiles
        if wave:  # the tile wave: items of several tiles, each tile a group, the scratch for its counters
            assert (JT * KT > 1).all() and rule != 0 and (rule is None or (JT * KT >= rule).all())
            assert pl.grid * tp.THREADS >= pl.ntiles * pl.T and pl.ntiles == (JT * KT).sum()
            assert pl.sync_size == 1 + pl.nwork + pl.ntiles * (1 + 4 * H)
        elif rule:
            fits = tp.border_ints(big, pl.T, pl.R, True) * 4 <= tp.BORDER_BYTES
            assert not ((JT * KT > 1) & (JT * KT >= rule) & fits).any()
        if ints.any():
            off = pl.border_off[items[:, 0]]
            # the items' scratch areas tile the buffer without overlap
            order = np.argsort(off)
            ends = off[order] + ints[order]
            assert off[order][0] == 0 and (off[order][1:] == ends[:-1]).all() and ends[-1] == pl.border_size
        else:
            assert pl.border_off is None
        assert pl.border_size * 4 <= tp.BORDER_BYTES or pl.nwork == 1
        if pl.trace:
            # each triplet's codes by its own lengths (the walk's layout)
            trip = pl.order[pl.order >= 0]
            slices = None if pl.wslices is None else pl.wslices[trip, 0]
            need = tp.dir_bytes(lengths[trip], cfg.mode_code, pl.T, pl.R, slices)
            assert pl.dir_size == need.sum() and (pl.dir_size <= tp.DIRS_BYTES or pl.nwork == 1)
            if slices is None:
                assert pl.windows == 1 and pl.ck_size == 0 and pl.ck_off is None
            else:  # windows of slices, each within the budget, the launch's count the most of its triplets'
                assert (slices > 0).all() and (need <= tp.trace_budget(cfg)).all()
                # counted from n1, or (16-bit partners in the same windows, shared_windows) from the larger n1
                last = pl.wslices[trip, 1]
                counts = -(-(last + 1) // slices)
                assert (last >= lengths[trip, 0]).all() and counts.max() == pl.windows
                if pl.pack16:
                    two = items[(items >= 0).all(axis=1)]
                    x, y = pl.wslices[two[:, 0]], pl.wslices[two[:, 1]]
                    own = (x[:, 1] == lengths[two[:, 0], 0]) & (y[:, 1] == lengths[two[:, 1], 0])
                    assert (own | ((x == y).all(axis=1) & (x[:, 1] == np.maximum(lengths[two[:, 0], 0],
                                                                                 lengths[two[:, 1], 0])))).all()
                assert (tp.dir_bytes(lengths[trip], cfg.mode_code, pl.T, pl.R) > tp.trace_budget(cfg)).all()
                # a checkpoint (a whole slice) below every window but the first, the triplets' side by side,
                # where the codes of a window and the checkpoints fit the budget together (else none, and codes)
                ck = tp.checkpoint_ints(lengths[trip], slices, last)
                area = (lengths[trip, 1] + 1) * (lengths[trip, 2] + 1)
                assert (ck == (counts - 1) * area).all()
                kept = tp.window_checkpoints(lengths[trip], cfg.mode_code, slices, tp.trace_budget(cfg), pl.T, pl.R,
                                             last)
                assert kept.all() == (pl.ck_off is not None) and kept.any() == kept.all()
                if pl.ck_off is not None:
                    order = np.argsort(pl.ck_off[trip], kind="stable")
                    assert (np.cumsum(ck[order]) - ck[order] == pl.ck_off[trip][order]).all()
                    assert pl.ck_size == ck.sum() and (need + 4 * ck <= tp.trace_budget(cfg)).all()
                else:
                    assert pl.ck_size == 0 and not pl.values
            # the triplets' cubes tile the launch's direction bytes without overlap
            off = pl.dir_off[trip]
            order = np.argsort(off, kind="stable")
            ends = off[order] + need[order]
            assert (off[order][1:] == ends[:-1]).all() and (len(off) == 0 or off[order][0] == 0)
            assert len(off) == 0 or ends[-1] == pl.dir_size
        else:
            assert pl.dir_off is None and pl.dir_size == 0
    assert sorted(seen) == sorted(int(p) for p in subset)
    return plans


def test_launches_cover_each_triplet_once_with_its_shape():
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 60, (500, 3))
    lengths[:20] = rng.integers(0, 3, (20, 3))  # empty sequences too
    subset = np.flatnonzero(rng.random(500) < 0.7)
    for mode in ("global", "semi-global", "local"):
        plans = _check_launches(lengths, subset, cfg_of(mode))
        T, R = tp.plan_shapes(lengths, cfg_of(mode).mode_code, scoring=LINEAR)
        for pl in plans:
            p = pl.order[pl.order >= 0]
            assert (T[p] == pl.T).all() and (R[p] == pl.R).all()
        # default scoring and short triplets: 16-bit lanes, two a group
        assert any(pl.pack16 for pl in plans)


def test_short_triplets_score_in_the_small_kernel_a_thread_a_slice():
    """Score only, slice sides up to the largest of SMALL: triplet_small16 with the first Q that holds the side;
    traceback and longer triplets keep the lane groups."""
    n = np.arange(0, 16)
    lengths = np.stack([n, n, np.maximum(n - 1, 0)], 1)
    sides = tp.side(lengths)
    T, R = tp.plan_shapes(lengths, Mode.GLOBAL)
    small = sides <= max(tp.SMALL)
    assert (T[small] == 1).all() and (R[small] == [min(q for q in tp.SMALL if q >= x) for x in sides[small]]).all()
    assert not (T[~small] == 1).any()
    for first, last, t, r in tp.SHORT:  # score-only rows past SMALL
        row = (sides >= first) & (sides <= last)
        assert row.any() and (T[row] == t).all() and (R[row] == r).all()
    Tt, Rt = tp.plan_shapes(lengths, Mode.GLOBAL, trace=True)
    assert not any(tp.small_kernel(t, r, True) for t, r in zip(Tt, Rt))
    for mode in ("global", "semi-global", "local"):
        plans = tp.plan_launches(lengths, np.arange(len(n)), cfg_of(mode=mode, traceback=False))
        names = {pl.name for pl in plans}
        code = int(Mode.parse(mode))
        assert {f"triplet_small16<{code}, {q}>" for q in tp.SMALL} <= names
        for pl in plans:
            if pl.name.startswith("triplet_small16"):
                assert pl.pack16 and pl.T == 1 and (tp.side(lengths[pl.order[pl.order >= 0]]) <= pl.R).all()
    # a fixed shape of one lane a slice of 9 on longer triplets: the lane-group kernel for several tiles
    plans = tp.plan_launches(lengths, np.arange(len(n)), cfg_of(traceback=False), tp.Tuning(shape=(1, 9)))
    for pl in plans:
        JT, KT = tp.tiles(tp.item_lengths(pl.order.reshape(-1, 2), lengths), 1, 9)
        assert pl.name.startswith("triplet_small16<0, 9>" if (JT * KT == 1).all() else "triplet_score16<0, 9, 1,")
    assert {pl.name.split("<")[0] for pl in plans} == {"triplet_small16", "triplet_score16"}


def test_launches_int32_only_and_fixed_shapes():
    rng = np.random.default_rng(4)
    lengths = rng.integers(0, 100, (200, 3))
    subset = np.arange(200)
    plans = _check_launches(lengths, subset, cfg_of("local"), tp.Tuning(pack16=False))
    assert not any(pl.pack16 for pl in plans)
    plans = _check_launches(lengths, subset, cfg_of("local"), tp.Tuning(shape=(4, 3)))
    assert {(pl.T, pl.R) for pl in plans} == {(4, 3)}


def test_16bit_lanes_only_where_values_fit():
    sc = Scoring(40, 40, 0, 40, 40)  # 80 a residue (alone in its column: two gaps): 16-bit lanes up to 199
    lengths = np.array([[10, 10, 10], [11, 9, 10], [60, 60, 60], [61, 60, 60], [5, 5, 5]])
    plans = _check_launches(lengths, np.arange(5), cfg_of("global", scoring=sc))
    packed = [int(p) for pl in plans if pl.pack16 for p in pl.order if p >= 0]
    unpacked = [int(p) for pl in plans if not pl.pack16 for p in pl.order]
    assert sorted(packed) == [0, 1, 4] and sorted(unpacked) == [2, 3]  # 60 bp: tiles of 24, 180 + 49 residues
    # the bound of a pair is that of the larger cube the two fill
    T, R = 16, 4  # tiles of 16: up to 2 * 16 cells past the ends
    assert tp.fits16(sc, np.array([[50, 50, 66]]), T, R).all()  # 166 + 32 + 1 = 199 residues: 15920
    assert not tp.fits16(sc, np.array([[50, 50, 67]]), T, R).all()
    # match beyond twice the gap: match a residue (identical sequences reach it)
    strong = Scoring(100, 1, 0, 1, 1)
    assert tp.fits16(strong, np.array([[40, 40, 46]]), T, R).all()  # 159 residues: 15900
    assert not tp.fits16(strong, np.array([[40, 40, 47]]), T, R).all()


def test_pair_up_keeps_neighbours_that_fit_together():
    sc = Scoring(2, 4, 0, 2, 1)
    lengths = np.array([[10, 10, 10]] * 5 + [[4000, 10, 10]])  # 4 x (4020 + 65): past 16,000
    items = tp.pair_up(np.arange(6), lengths, sc, 16, 8)
    assert items.shape[1] == 2
    flat = sorted(int(p) for p in items.reshape(-1) if p >= 0)
    assert flat == list(range(6))
    # 4 and 5 would pass the 16-bit bound together: each goes alone
    assert [4, -1] in items.tolist() and [5, -1] in items.tolist()


def test_launches_split_where_border_scratch_passes_the_limit(monkeypatch):
    lengths = np.array([[40, 60, 60]] * 10 + [[5, 5, 5]] * 3)
    T, R = tp.plan_shapes(lengths)
    ints = tp.border_ints(lengths, T, R)
    assert (ints[:10] > 0).all() and (ints[10:] == 0).all()
    monkeypatch.setattr(tp, "BORDER_BYTES", int(ints[0]) * 4 * 3)  # three long triplets' scratch a launch
    plans = _check_launches(lengths, np.arange(13), cfg_of("semi-global"), tp.Tuning(pack16=False, wave_tiles=0))
    long = [pl for pl in plans if pl.border_size]
    assert [pl.nwork for pl in long] == [3, 3, 3, 1]


def test_traceback_launches_take_the_plan_shapes_and_16bit_lanes_where_values_fit():
    rng = np.random.default_rng(5)
    lengths = rng.integers(0, 70, (300, 3))
    lengths[:20] = rng.integers(0, 3, (20, 3))
    subset = np.flatnonzero(rng.random(300) < 0.8)
    for mode in ("global", "semi-global", "local"):
        plans = _check_launches(lengths, subset, cfg_of(mode, traceback=True))
        T, R = tp.plan_shapes(lengths, Mode.parse(mode), trace=True)
        for pl in plans:
            p = pl.order[pl.order >= 0]
            assert (T[p] == pl.T).all() and (R[p] == pl.R).all()
            assert pl.name.startswith("triplet_trace16<" if pl.pack16 else "triplet_trace<")
        # the default scoring: every value fits 16-bit lanes (but for local mode's wave items)
        assert all(pl.pack16 for pl in plans) if mode != "local" else any(pl.pack16 for pl in plans)
        plans = _check_launches(lengths, subset, cfg_of(mode, traceback=True), tp.Tuning(shape=(16, 2), pack16=False))
        assert {pl.name for pl in plans} <= {tp.kernel_name(Mode.parse(mode), 2, 16, trace=True, wave=w,
                                                            values=16 in tp.VALUES_LANES) for w in (False, True)}


def test_local_traceback_in_the_tile_wave_takes_int32_lanes():
    """Local traceback items the tile wave takes run one triplet a group in int32 lanes; a triplet of one
    tile among them (paired with a longer one) goes to the int32 sweep; other modes keep 16-bit pairs."""
    lengths = np.array([[40, 30, 30], [40, 10, 10], [3, 3, 3], [4, 3, 2]])  # groups of 4 lanes, tiles of 12
    tuning = tp.Tuning(shape=(4, 6), wave_tiles=2)
    plans = _check_launches(lengths, np.arange(4), cfg_of("local", traceback=True), tuning)
    kinds = {(pl.pack16, pl.tiles is not None): sorted(int(p) for p in pl.order if p >= 0) for pl in plans}
    assert kinds == {(False, True): [0], (False, False): [1], (True, False): [2, 3]}
    plans = _check_launches(lengths, np.arange(4), cfg_of("global", traceback=True), tuning)
    kinds = {(pl.pack16, pl.tiles is not None): sorted(int(p) for p in pl.order if p >= 0) for pl in plans}
    assert kinds == {(True, True): [0, 1], (True, False): [2, 3]}


def test_traceback_parts_run_whole_rounds_of_the_gpu_groups():
    """A 16-bit traceback part whose last round of the GPU's groups would be less than half full is cut to
    whole rounds, its rest a part of its own (the tile wave takes it); a fuller last round stays."""
    lengths = np.array([[30, 30, 30]] * 200)
    per = int(tp.item_dir_bytes(np.array([[0, 1]]), lengths, 0, 16, 6)[0])  # a pair's codes
    groups = tp.TRACE16_RESIDENT // 16  # one multiprocessor
    cfg = cfg_of("global", traceback=True)
    for items, want in ((groups + 2, [(groups, False), (2, True)]), (groups + 10, [(groups + 10, False)])):
        tuning = tp.Tuning(shape=(16, 6), sms=1, dirs_bytes=per * items)
        plans = _check_launches(lengths, np.arange(200), cfg, tuning)
        assert [(pl.nwork, pl.tiles is not None) for pl in plans][:len(want)] == want
    # int32 lanes: parts by their bytes alone
    plans = _check_launches(lengths, np.arange(200), cfg, tp.Tuning(shape=(16, 6), sms=1, pack16=False,
                                                                    dirs_bytes=per // 2 * (2 * groups + 2)))
    assert plans[0].nwork == 2 * groups + 2


def test_traceback_launches_split_where_direction_bytes_pass_the_limit(monkeypatch):
    lengths = np.array([[20, 20, 20]] * 7 + [[5, 5, 5]] * 4 + [[30, 30, 30]])
    cube, small, large = tp.dir_bytes(lengths[[0, 7, 11]], 0, 4, 6).tolist()
    monkeypatch.setattr(tp, "DIRS_BYTES", 3 * cube)  # three of the 20s a launch
    plans = _check_launches(lengths, np.arange(12), cfg_of("global", traceback=True),
                            tp.Tuning(shape=(4, 6), wave_tiles=0, pack16=False))
    sizes = [pl.nwork for pl in plans]
    # largest first: 3 + 3 of the 20s, the last 20 with the 5s; then the 30 alone (past the limit by itself:
    # in windows of slices, a launch of their own)
    assert sizes == [3, 3, 5, 1] and plans[2].dir_size == cube + 4 * small
    assert large > 3 * cube and plans[3].windows == 2 and plans[3].wslices[11, 0] == 16
    assert all(pl.dir_size <= 3 * cube for pl in plans)
    # both limits at once: border scratch and direction bytes
    lengths = np.array([[40, 60, 60]] * 10)
    T, R = tp.plan_shapes(lengths)
    ints = tp.border_ints(lengths, T, R)
    monkeypatch.setattr(tp, "BORDER_BYTES", int(ints[0]) * 4 * 3)
    monkeypatch.setattr(tp, "DIRS_BYTES", int(tp.dir_bytes(lengths[:1], 1)[0]) * 2)
    plans = _check_launches(lengths, np.arange(10), cfg_of("semi-global", traceback=True),
                            tp.Tuning(wave_tiles=0, pack16=False))
    # parts of three by the border scratch, each cut to the direction bytes of two
    assert [pl.nwork for pl in plans] == [2, 1, 2, 1, 2, 1, 1]


def test_wave_table_lists_each_items_tiles_after_those_they_wait_for():
    lengths = np.array([[30, 50, 20], [5, 5, 5], [100, 24, 23], [7, 23, 24]])
    table = tp.wave_table(lengths, 16, 6)  # tiles of 24 x 24
    JT, KT = tp.tiles(lengths, 16, 6)
    assert (JT.tolist(), KT.tolist()) == ([3, 1, 2, 1], [1, 1, 1, 2])
    assert table.dtype == np.int32 and table.shape == ((JT * KT).sum(), 4)
    row = {}
    for g, (w, J, K, first) in enumerate(table.tolist()):
        assert 0 <= J < JT[w] and 0 <= K < KT[w] and first == (JT * KT)[:w].sum()
        row[w, J, K] = g
        # the tiles above and on the left (what this one waits for) come earlier in the table
        for dj, dk in ((1, 0), (0, 1)):
            if J >= dj and K >= dk:
                assert row[w, J - dj, K - dk] < g
    assert len(row) == len(table)  # each tile once; the slots first + J*KT + K are then distinct
    diagonal = table[:, 1] + table[:, 2]
    assert (np.diff(diagonal) >= 0).all()
    # the documented order, on random items too: anti-diagonal, then item, then J
    rng = np.random.default_rng(4)
    for lengths in (lengths, rng.integers(0, 300, (40, 3)), np.zeros((0, 3), np.int64)):
        table = tp.wave_table(lengths, 16, 6)
        keys = [(J + K, w, J) for w, J, K, _ in table.tolist()]
        assert keys == sorted(set(keys)) and len(table) == (np.prod(tp.tiles(lengths, 16, 6), 0)).sum()


def test_wave_scratch_holds_a_column_buffer_a_tile_row():
    lengths = np.array([[9, 70, 30], [9, 10, 10]])
    one, wave = tp.border_ints(lengths, 16, 6), tp.border_ints(lengths, 16, 6, True)
    JT, KT = tp.tiles(lengths, 16, 6)
    assert (JT.tolist(), KT.tolist()) == ([3, 1], [2, 1])
    # chunks of 8 ints (7 values, the corner first) for 2 x 4 lane columns, of 8 (6 values) for 4 lane rows
    assert one.tolist() == [10 * (2 * 4 * 8 + 4 * 8), 0] and wave.tolist() == [10 * (2 * 4 * 8 + 3 * 4 * 8), 0]


@pytest.mark.parametrize("pack16", [True, False])
@pytest.mark.parametrize("traceback", [False, True])
def test_wave_launches_take_the_items_of_enough_tiles(traceback, pack16):
    rng = np.random.default_rng(9)
    lengths = rng.integers(0, 130, (200, 3))
    for wave_tiles in (2, 9, 30):
        tuning = tp.Tuning(pack16=pack16, wave_tiles=wave_tiles)
        plans = _check_launches(lengths, np.arange(200), cfg_of("local", traceback), tuning)
        assert any(pl.tiles is not None for pl in plans) and any(pl.tiles is None for pl in plans)
        for pl in plans:
            if pl.tiles is not None:
                H = 2 if pl.pack16 else 1
                big = tp.item_lengths(pl.order.reshape(-1, H), lengths)
                assert (pl.tiles == tp.wave_table(big, pl.T, pl.R)).all()
    assert all(pl.tiles is None for pl in tp.plan_launches(lengths, np.arange(200), cfg_of(), tp.Tuning(wave_tiles=0)))


def test_the_wave_takes_the_items_that_would_outlast_the_launch():
    """Few long triplets, or long ones among many short: the wave; many of one length that fill the GPU: the sweep."""
    def waved(lengths, sms=132):
        plans = _check_launches(np.array(lengths), np.arange(len(lengths)), cfg_of(), tp.Tuning(sms=sms))
        return sorted(int(p) for pl in plans if pl.tiles is not None for p in pl.order if p >= 0)

    assert waved([[1024] * 3] * 264) == list(range(264))
    assert waved([[256] * 3] * 1788) == list(range(1788))
    assert waved([[128] * 3] * 10000) == []
    assert waved([[128] * 3] * 10000, sms=2000) == list(range(10000))  # a GPU these would not fill
    # more than a launch's border scratch holds (16-bit pairs): the parts run one after another, the last,
    # of 500 items, as a wave
    T, R = (int(x[0]) for x in tp.plan_shapes(np.array([[128] * 3])))
    part = len(fitting_parts(np.arange(20000), tp.border_ints(np.array([[128] * 3] * 20000), T, R),
                             tp.BORDER_BYTES // 4)[0])
    n = 2 * (part + 500)
    assert part < 20000 and waved([[128] * 3] * n) == list(range(2 * part, n))
    mixed = [[30] * 3] * 60000 + [[100] * 3] * 20000 + [[700, 650, 720]] * 3
    # the three long ones (16-bit pairs: the third with a triplet of 100 bp, which comes along)
    assert set(waved(mixed)) - {60000} == {80000, 80001, 80002}
    assert waved([[30] * 3] * 5000) == list(range(5000))  # 2,500 items of 16-bit pairs: 4 lanes each, room for 8,448
    sizes = np.array([[9, 70, 30]] * 4 + [[9, 10, 10]])
    assert tp.wave_items(sizes, 16, 6, 1).tolist() == [True] * 4 + [False]
    assert not tp.wave_items(np.repeat(sizes, 100, axis=0), 16, 6, 1).any()  # 500 items fill one multiprocessor


def test_parts_split_the_border_scratch():
    from seqalign_cli.backends.cuda.device import fitting_parts

    sizes = np.array([5, 5, 5, 20, 1, 1])
    parts = fitting_parts(np.arange(len(sizes)), sizes, 10)
    assert [p.tolist() for p in parts] == [[0, 1], [2], [3], [4, 5]]


# ---------------------------------------------------------------- results and names

def test_results_fill_score_and_end_of_the_subset_only():
    batch = batch_of([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    out = TripletAlignments.allocate(batch.lengths, False)
    out.score[:] = -99
    host = np.array([[10, 1, 2, 3], [20, 4, 5, 6], [30, 7, 8, 9]], np.int32)
    job = Job(batch, cfg_of(), np.array([0, 2]), out, None, None, {"out": host})
    engine = without_device(gt.CudaTriplet)  # no device: results reads only the job
    engine.results(job, lambda step: None, True)
    assert out.score.tolist() == [10, -99, 30]
    assert out.end.tolist() == [[1, 2, 3], [0, 0, 0], [7, 8, 9]]


def test_results_fill_starts_counts_and_runs_with_traceback():
    """The runs come from the host copy of every slot queued after the kernels (``copy_runs_back``): a piece
    of a batch copies its triplets' slots; a whole batch takes the copy as it is."""
    batch = batch_of([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    cfg = cfg_of("local", traceback=True)
    fake_cp = type("np_as_cp", (), {"asarray": staticmethod(np.asarray), "asnumpy": staticmethod(np.asarray)})
    out = TripletAlignments.allocate(batch.lengths, True)
    off = out.columns.off.copy()
    assert off.tolist() == [0, 7, 23]
    host = np.array([[10, 1, 2, 3], [20, 4, 5, 6], [30, 7, 8, 9]], np.int32)
    info = np.array([[0, 0, 1, 2], [-9, -9, -9, -9], [1, 2, 3, 1]], np.int32)
    run_op = np.full(len(out.columns.op), 9, np.uint8)
    run_len = np.zeros(len(out.columns.length), np.int32)
    run_op[[0, 1, 23]] = [6, 0, 0]
    run_len[[0, 1, 23]] = [1, 1, 6]
    d = gt._DeviceBatch(None, None, None, off, None, None, info.reshape(-1))  # the device runs: not read
    engine = without_device(gt.CudaTriplet)
    engine.cp = fake_cp
    for whole in (False, True):
        out = TripletAlignments.allocate(batch.lengths, True)
        job = Job(batch, cfg, np.array([0, 2]), out, d, None,
                  {"out": host, "info": info, "run_op": run_op, "run_len": run_len})
        engine.results(job, lambda step: None, whole)
        assert out.score.tolist() == [10, 0, 30]
        assert out.start.tolist() == [[0, 0, 1], [0, 0, 0], [1, 2, 3]]
        assert out.end.tolist() == [[1, 2, 3], [0, 0, 0], [7, 8, 9]]
        assert out.columns.count.tolist() == [2, 0, 1]
        assert out.column_strings()[0] == "1C1M" and out.column_strings()[2] == "6M"
        assert (out.columns.op is run_op) == whole


def test_compile_checks_names_are_well_formed_templates_of_the_kernel():
    checks = gt.compile_checks()
    assert list(checks) == ["triplet.cu", "triplet_affine.cu"]  # the affine kernels: test_triplet_affine_gpu_host
    names = checks["triplet.cu"]
    assert len(names) == len(set(names)) >= 6
    pattern = re.compile(r"^(triplet_score(?:16)?|triplet_trace(?:16)?)<([013]), (\d+), (\d+), ([0-7])>$")
    walk = re.compile(r"^triplet_walk<([013]), (\d+), (\d+)>$")
    small = re.compile(r"^triplet_small16<([013]), (\d+)>$")
    source = KERNEL_SOURCE.read_text()
    modes, walks, shapes_walked, shapes_traced, waves, smalls = set(), set(), set(), set(), set(), set()
    for name in names:
        m = pattern.match(name)
        if small.match(name):
            smalls.add((int(small.match(name).group(1)), int(small.match(name).group(2))))
            continue
        if m is None:
            w = walk.match(name)
            assert w, name
            walks.add(int(w.group(1)))
            shapes_walked.add((int(w.group(2)), int(w.group(3))))
            continue
        if m.group(1).startswith("triplet_trace"):
            shapes_traced.add((int(m.group(3)), int(m.group(4))))
        modes.add(int(m.group(2)))
        waves.add((m.group(1), int(m.group(5))))
        assert int(m.group(4)) in tp.GROUPS and 1 <= int(m.group(3)) <= 16
        assert re.search(rf"__global__ void [^\n]*\b{m.group(1)}\(", source) or \
            re.search(rf"\n\s+{m.group(1)}\(", source), m.group(1)
    assert modes == {0, 1, 3} and walks == {0, 1, 3}
    assert smalls == {(m, q) for m in (0, 1, 3) for q in tp.SMALL}  # every mode and slice side of the small kernel
    assert re.search(r"__global__ void [^\n]*\btriplet_small16\(", source)
    assert tp.kernel_name(1, 9, 1, True, small=True) == "triplet_small16<1, 9>"
    # the sweep and the tile wave of each kernel
    assert waves == {(k, w) for k in ("triplet_score", "triplet_score16") for w in (0, 1)} | \
        {(k, w) for k in ("triplet_trace", "triplet_trace16") for w in range(8)}
    # bit 1: windows; bit 2: values' bytes
    assert shapes_walked == shapes_traced  # a walk for each trace shape (the layout is the shape's)
    assert re.search(r"\n\s+triplet_walk\(", source)
    assert {n.startswith("triplet_score16") for n in names} == {True, False}
    assert any(n.startswith("triplet_trace<") for n in names)
    assert tp.kernel_name(3, 8, 16) == "triplet_score<3, 8, 16, 0>"
    assert tp.kernel_name(1, 4, 4, True) == "triplet_score16<1, 4, 4, 0>"
    assert tp.kernel_name(1, 6, 4, trace=True) == "triplet_trace<1, 6, 4, 0>"
    assert tp.kernel_name(3, 6, 16, True, trace=True) == "triplet_trace16<3, 6, 16, 0>"
    assert tp.kernel_name(0, 6, 16, True, wave=True) == "triplet_score16<0, 6, 16, 1>"
    assert tp.kernel_name(0, 6, 16, True, trace=True, windows=True) == "triplet_trace16<0, 6, 16, 2>"
    assert tp.kernel_name(3, 6, 16, trace=True, wave=True, windows=True) == "triplet_trace<3, 6, 16, 3>"
    assert tp.walk_name(3, 6, 16) == "triplet_walk<3, 6, 16>"
    assert tp.kernel_name(1, 6, 16, True, trace=True, wave=True, values=True) == "triplet_trace16<1, 6, 16, 5>"
    # values' bytes: traceback only, in windows too
    assert tp.kernel_name(1, 6, 16, True, trace=True, windows=True, values=True) == "triplet_trace16<1, 6, 16, 6>"
    assert tp.kernel_name(1, 6, 16, True, values=True) == "triplet_score16<1, 6, 16, 0>"


def test_kernel_source_takes_the_hosts_threads():
    source = KERNEL_SOURCE.read_text()
    assert source.startswith("// triplet.cu:")
    # the kernels' device code: kernels/triplet/*.cuh (the threads a block, the host's through the loader's
    # defines: triplet/args.cuh)
    assert "constexpr int THREADS = SA_THREADS;" in (KERNEL_SOURCE.parent / "triplet" / "args.cuh").read_text()


# The tuning switches that kernels/triplet/switches.cuh keeps, each at a value other than its default, and kernels
# it changes: each must still compile, so that its measurement can be run again
# (benchmarks/decisions/triplet_kernel_switches.md). nvcc for sm_90, else hipcc for gfx90a (CI's machine without
# nvcc), on the source as the loader passes it.
SWITCHES = {
    "TRIPLET_OPT_CHAIN=0": ("triplet_score<1, 6, 16, 0>", "triplet_score16<3, 6, 4, 0>"),
    "TRIPLET_OPT_BC=0": ("triplet_score<1, 6, 4, 0>", "triplet_score<3, 8, 16, 0>", "triplet_trace16<0, 6, 16, 1>"),
    "TRIPLET_OPT_MINB=0": ("triplet_score<1, 6, 16, 0>",),
    "TRIPLET_OPT_MINB16=2": ("triplet_score16<1, 6, 16, 0>",),
    "TRIPLET_OPT_MINBT=2": ("triplet_trace<1, 6, 16, 0>",),
    "TRIPLET_OPT_MINBT16=3": ("triplet_trace16<1, 6, 16, 0>",),
    "TRIPLET_OPT_OFF=0": ("triplet_score16<0, 6, 16, 1>", "triplet_trace16<0, 6, 16, 5>", "triplet_walk<0, 6, 16>"),
    "TRIPLET_OPT_ASYNC16=0": ("triplet_score16<1, 6, 16, 1>", "triplet_trace<3, 6, 16, 1>"),
    "TRIPLET_SMALL_BLOCKS=1": ("triplet_small16<1, 7>",),
    "TRIPLET_SMALL_BLOCKS_Q=5": ("triplet_small16<1, 7>",),
}


def test_every_kept_switch_has_a_compile_check():
    switches = (KERNEL_SOURCE.parent / "triplet" / "switches.cuh").read_text()
    assert set(re.findall(r"^#ifndef (TRIPLET_\w+)$", switches, re.M)) == {d.split("=")[0] for d in SWITCHES}


@pytest.mark.skipif(not (shutil.which("nvcc") or shutil.which("hipcc")), reason="neither nvcc nor hipcc is installed")
@pytest.mark.parametrize("define", sorted(SWITCHES))
def test_each_kept_switch_compiles_at_its_other_value(define, tmp_path):
    import os

    from seqalign_cli.backends.cuda import loader, variants

    source = tmp_path / "triplet_switch.cu"
    source.write_text(variants.build_source("triplet.cu", SWITCHES[define]))
    if shutil.which("nvcc"):
        compiler, env = ["nvcc", "-arch=sm_90", "-cubin"], None
    else:
        compiler, env = ["hipcc", "-x", "hip", "--offload-arch=gfx90a", "-c"], dict(os.environ, HIP_PLATFORM="amd")
    proc = subprocess.run([*compiler, "-std=c++17", f"-I{loader.kernel_dir()}", *loader.defines(), f"-D{define}",
                           str(source), "-o", str(tmp_path / "triplet_switch.o")],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, f"{define}:\n{proc.stderr[-3000:]}"


@pytest.mark.parametrize("L, count", [(8, 5), (1, 3)])
def test_related_triplets_for_benchmarks(L, count):
    batch = tb.related_triplets(L, count)
    assert batch.size == count and (batch.lengths == L).all()
    assert batch.cells() == count * L ** 3
    assert all(int(c.max()) <= 3 for c in batch.codes)


def test_traceback_parts_take_the_wave_by_their_own_count(monkeypatch):
    """With traceback the triplets whose codes fit DIRS_BYTES run together: a part of a few long triplets takes
    the wave (one group a tile), though the whole batch, had it run at once, would fill the GPU."""
    lengths = np.array([[128] * 3] * 600)
    cfg = cfg_of("global", traceback=True)
    whole = tp.plan_launches(lengths, np.arange(600), cfg, tp.Tuning(shape=(4, 6), pack16=False, sms=1))
    assert len(whole) == 1 and whole[0].tiles is None  # 600 items, room for 64 groups: the sweep
    monkeypatch.setattr(tp, "DIRS_BYTES", int(tp.dir_bytes(lengths[:1], 0, 4, 6)[0]) * 40)
    plans = _check_launches(lengths, np.arange(600), cfg, tp.Tuning(shape=(4, 6), pack16=False, sms=1))
    assert [pl.nwork for pl in plans] == [40] * 15 and all(pl.tiles is not None for pl in plans)
    plans = _check_launches(lengths, np.arange(600), cfg, tp.Tuning(shape=(4, 6), pack16=False, sms=1, wave_tiles=0))
    assert [pl.nwork for pl in plans] == [40] * 15 and all(pl.tiles is None for pl in plans)


@pytest.mark.parametrize("mode", ["global", "semi-global", "local"])
def test_values_low_bytes_give_the_reference_walk(mode):
    """The bound ``Scoring.triplet_value_drop`` holds on every cell of random triplets under random scorings (no candidate
    falls further below its cell), and where ``Scoring.triplet_values_fit`` a walk that knows only each cell's low byte and
    the end value takes the reference's kinds (triplet_walk's rule over triplet_trace's values' bytes, in global
    mode those of the offset form too)."""
    import random

    from support.triplet_oracles import STEPS, _dp, _end_cell, encode, mode_name, ref_align, runs

    rng = random.Random(17)
    fitting = 0
    for trial in range(60):
        sc = Scoring(match=rng.randint(0, 15), mismatch=rng.randint(0, 30), gap_open=0,
                     gap_extend=rng.randint(1, 15), n_penalty=rng.randint(0, 30))
        if trial % 3 == 0:  # the whole byte range of the kernels' scores
            sc = Scoring(match=rng.randint(0, 127), mismatch=rng.randint(0, 127), gap_open=0,
                         gap_extend=rng.randint(1, 127), n_penalty=rng.randint(0, 127))
        a, b, c = ("".join(rng.choice("ACGTN" if rng.random() < 0.2 else "ACGT") for _ in range(rng.randint(0, 7)))
                   for _ in range(3))
        A, B, C = encode(a), encode(b), encode(c)
        D, score = _dp(A, B, C, sc, mode_name(mode))
        n = (len(A), len(B), len(C))
        drop = 0
        for i in range(n[0] + 1):
            for j in range(n[1] + 1):
                for k in range(n[2] + 1):
                    if mode == "semi-global" and min(i, j, k) == 0:
                        continue
                    for t, (di, dj, dk) in enumerate(STEPS):
                        if di <= i and dj <= j and dk <= k:
                            drop = max(drop, D[i][j][k] - D[i - di][j - dj][k - dk] - score(t, i, j, k))
        assert drop <= sc.triplet_value_drop(), (sc, a, b, c)
        if not sc.triplet_values_fit():
            continue
        fitting += 1
        want = ref_align(a, b, c, sc, mode)
        # global mode: the bytes may be those of the offset form D + 2g (i + j + k), which the walk adds to the
        # value it expects of each neighbour
        for g2 in (0, 2 * sc.gap_extend) if mode == "global" else (0,):
            i, j, k = _end_cell(D, n, mode_name(mode))
            x, kinds = D[i][j][k], []
            while not ((i, j, k) == (0, 0, 0) if mode == "global" else
                       min(i, j, k) == 0 if mode == "semi-global" else x <= 0):
                t = next(t for t, (di, dj, dk) in enumerate(STEPS) if di <= i and dj <= j and dk <= k
                         and (D[i - di][j - dj][k - dk] + g2 * (i - di + j - dj + k - dk)) & 0xFF
                         == (x - score(t, i, j, k) + g2 * (i - di + j - dj + k - dk)) & 0xFF)
                x -= score(t, i, j, k)
                i, j, k = i - STEPS[t][0], j - STEPS[t][1], k - STEPS[t][2]
                kinds.append("MabcABC"[t])
            assert x == D[i][j][k]
            assert (runs(kinds[::-1]) if kinds else "*") == want[3]
            assert not kinds or (i, j, k) == tuple(want[1])
    assert fitting >= 20
