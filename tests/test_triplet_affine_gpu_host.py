"""The affine triplet kernels' plan and routes on the host (no GPU): ``families/triplet/gpu_affine.py``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from seqalign_cli.families.triplet import gpu_affine as ga
from seqalign_cli.families.triplet import plan as tp
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.triplet.results import COLUMN_STEPS, opening_costs

KERNEL_SOURCE = Path(__file__).resolve().parents[1] / "kernels" / "triplet_affine.cu"
AFFINE = Scoring(2, 4, 3, 2, 1)


def test_ring_words_and_block_sizes():
    lengths = np.array([[0, 0, 0], [10, 20, 30], [300, 400, 5], [31, 40, 1]])
    assert ga.ring_bytes(lengths).tolist() == [4 * 1 * 7 * 1 * 4, 4 * 31 * 7 * 21 * 4, 4 * 6 * 7 * 401 * 4,
                                               4 * 2 * 7 * 41 * 4]
    assert ga.word_bytes(lengths).tolist() == [4, 11 * 21 * 31 * 4, 301 * 401 * 6 * 4, 32 * 41 * 2 * 4]
    # the row chunks a step holds on average, whole warps rounded down, 32 to MAX_THREADS
    assert ga.CHUNK == 16
    assert ga.threads_for(lengths).tolist() == [32, 32, 160, 32]  # 301 * 401 * 1 // 701 = 172 chunks
    cube = np.array([[32, 32, 32], [64, 64, 64], [128, 128, 128], [63, 63, 15]])
    assert ga.threads_for(cube).tolist() == [32, 128, ga.MAX_THREADS, 32]  # 33 * 33 * 3 // 67 = 48


@pytest.mark.parametrize("trace", [False, True])
def test_launches_cover_each_triplet_once_in_disjoint_areas(trace):
    rng = np.random.default_rng(5)
    lengths = rng.integers(0, 400, (200, 3))
    subset = np.flatnonzero(rng.random(200) < 0.7)
    area = 40 << 20
    plans = ga.plan_affine(lengths, subset, trace, area)
    seen = np.concatenate([p.order for p in plans])
    assert sorted(seen.tolist()) == subset.tolist()
    ring, words = ga.ring_bytes(lengths), ga.word_bytes(lengths)
    for p in plans:
        part = p.order.astype(np.int64)
        assert (ga.threads_for(lengths[part]) == p.threads).all()  # one block size a launch
        need = ring[part] + (words[part] if trace else 0)
        assert need.sum() <= area or len(part) == 1
        assert p.ring_size == ring[part].sum()
        # each triplet's ring (and words) in its own stretch of the launch's area
        for off, size, total in ((p.ring_off, ring, p.ring_size),) + (((p.word_off, words, p.word_size),)
                                                                      if trace else ()):
            spans = sorted((int(off[t]) * 4, int(off[t]) * 4 + int(size[t])) for t in part)
            assert spans[0][0] == 0 and spans[-1][1] == total
            assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        assert (p.word_off is None) == (not trace)
    # largest first within a block size
    for p in plans:
        cells = (lengths[p.order] + 1).prod(axis=1)
        assert (np.diff(cells) <= cells[:-1] // 1000 + 1).all()


def test_launches_in_windows_of_slices(monkeypatch):
    """With a budget, a triplet past it gets launches of its window count (its words a window's), apart from
    those traced back whole; score only, no windows."""
    monkeypatch.setattr(ga, "AFFINE_WINDOWS", 3)
    lengths = np.array([[99, 99, 99], [10, 10, 10], [199, 99, 99], [100, 99, 99], [12, 10, 10]])
    budget = 4 * 100**3 - 1
    plans = ga.plan_affine(lengths, np.arange(5), True, 1 << 30, budget)
    wslices = ga.window_slices(lengths, budget)
    assert wslices.tolist() == [50, 0, 67, 51, 0]
    by = {tuple(sorted(p.order.tolist())): p for p in plans}
    assert set(by) == {(1, 4), (0, 3), (2,)}
    assert by[(1, 4)].windows == 1 and by[(1, 4)].wslices is None
    assert by[(0, 3)].windows == 2 and by[(2,)].windows == 3
    for key in ((0, 3), (2,)):
        p = by[key]
        assert p.wslices.tolist() == wslices.tolist() and p.wslices.dtype == np.int32
        assert p.word_size == sum(int(wslices[t]) * 100 * 100 * 4 for t in key) <= 2 * budget
    assert by[(1, 4)].word_size == int(ga.word_bytes(lengths[[1, 4]]).sum())
    score_only = ga.plan_affine(lengths, np.arange(5), False, 1 << 30, budget)
    assert all(p.windows == 1 and p.wslices is None for p in score_only)


def test_a_triplet_past_the_area_has_a_launch_of_its_own():
    lengths = np.array([[100, 100, 100], [5, 5, 5], [6, 5, 4], [100, 100, 99]])
    plans = ga.plan_affine(lengths, np.arange(4), True, 1)
    assert [p.order.tolist() for p in plans] == [[1], [2], [0], [3]]  # by block size, largest first in one
    assert all(p.ring_size == ga.ring_bytes(lengths[p.order])[0] for p in plans)
    assert [len(p.order) for p in ga.plan_affine(lengths, np.arange(4), False, 1 << 30)] == [2, 2]


def test_windows_of_slices(monkeypatch):
    """Words past the budget: windows of the most slices whose words fit, evened out; none where one slice's do
    not fit, past AFFINE_WINDOWS windows, or past the walk state's columns."""
    cube = np.array([[99, 99, 99]])
    assert ga.slice_bytes(cube).tolist() == [100 * 100 * 4]
    assert ga.window_slices(cube, 4 * 100**3).tolist() == [0]  # whole
    assert ga.window_slices(cube, 4 * 100**3 - 1).tolist() == [50]  # 99 slices fit: two windows of 50
    assert ga.AFFINE_WINDOWS == 2
    assert ga.window_slices(cube, 2 * 100**3).tolist() == [50]
    assert ga.window_slices(cube, 2 * 100**3 - 1).tolist() == [-1]  # three windows
    assert ga.window_slices(cube, 40_000).tolist() == [-1]
    monkeypatch.setattr(ga, "AFFINE_WINDOWS", 64)
    assert ga.window_slices(cube, 40_000).tolist() == [-1]  # one slice a window: 100 windows
    assert ga.window_slices(np.array([[63, 99, 99]]), 40_000).tolist() == [1]  # 64 windows
    assert ga.window_slices(np.array([[63, 99, 99]]), 40_000 - 1).tolist() == [-1]  # not one slice
    line = np.array([[100, 0, 0], [0, 0, 0]])
    assert ga.window_slices(line, 403).tolist() == [51, 0]  # 101 slices of 4 bytes, 100 fit
    assert ga.window_slices(line, 3).tolist() == [-1, -1]


def test_routes(monkeypatch):
    lengths = np.array([[10, 10, 10], [99, 99, 99], [0, 0, 0], [3000, 3000, 10]])
    cfg = AlignConfig(scoring=AFFINE, matrix_budget=4 * 100**3 - 1)
    assert ga.routes(lengths, cfg).tolist() == [0, 0, 0, 5]  # 101 windows of 30 slices: past MAX_WINDOWS
    monkeypatch.setattr(ga, "WINDOW_COLUMNS", 297)
    assert ga.routes(lengths, cfg).tolist() == [0, 5, 0, 5]  # the walk's state: 297 columns and more
    assert ga.routes(lengths, AlignConfig(scoring=AFFINE, traceback=False)).tolist() == [0, 0, 0, 0]
    # a ring past BORDER_BYTES, scores past the CPU engine's int32 cells
    assert ga.ring_bytes(np.array([[1, 8000, 8000]]))[0] > tp.BORDER_BYTES
    long = np.array([[1, 8000, 8000], [2 * 10**7, 1, 1], [5, 5, 5]])
    assert AFFINE.triplet_bound(long[1:2])[0] >= ga.INT32_LIMIT
    assert ga.routes(long, AlignConfig(scoring=AFFINE, traceback=False)).tolist() == [3, 2, 0]


def test_opening_costs_follow_the_rule():
    """Row s, column t: gap_open for each pair whose column t has a residue and a gap, unless column s has the same
    residue and gap in that pair; the first column (row 7) opens every gap."""
    costs = opening_costs(3)
    assert costs.shape == (8, 7) and costs.dtype == np.int32
    assert costs[:, 0].tolist() == [0] * 8  # three residues: no gap
    assert costs[7].tolist() == [0, 6, 6, 6, 6, 6, 6]
    assert costs[1, 1] == 0 and costs[0, 1] == 6  # a gap in A goes on, or opens against B and C
    assert costs[4, 1] == 6  # A alone then a gap in A: both pairs change sides
    assert costs[1, 5] == 3  # a gap in A, then B alone: (A, B) goes on, (B, C) opens
    for s in range(7):
        for t in range(7):
            pairs = sum(COLUMN_STEPS[t, x] != COLUMN_STEPS[t, y] for x, y in ((0, 1), (0, 2), (1, 2)))
            assert 0 <= costs[s, t] <= 3 * pairs


def test_the_kernels_table_of_openings_is_the_hosts():
    """kernels/triplet_affine.cu's opens(s, t) (a constant table) equals ``opening_costs(1)``, which the CPU engine
    takes."""
    source = KERNEL_SOURCE.read_text()
    body = re.search(r"constexpr int OPENS\[8\]\[7\] = \{(.*?)\};", source, re.S).group(1)
    rows = [[int(x) for x in row.split(",")] for row in re.findall(r"\{([^{}]*)\}", body)]
    assert rows == opening_costs(1).tolist()


def test_compile_checks_name_the_kernels_of_the_source():
    names = ga.compile_checks()["triplet_affine.cu"]
    source = KERNEL_SOURCE.read_text()
    assert source.startswith("// triplet_affine.cu:")
    assert len(names) == len(set(names)) == 9
    for name in names:
        m = re.match(r"^(triplet_affine(?:_walk)?)<([013])(?:, ([01]))?>$", name)
        assert m, name
        assert re.search(rf"__global__ void [^\n]*\b{m.group(1)}\(", source) or \
            re.search(rf"\n{m.group(1)}\(|\n\s+{m.group(1)}\(", source), name
    assert f"constexpr int MAX_THREADS = {ga.MAX_THREADS};" in source
    assert "__launch_bounds__(aff::MAX_THREADS)" in source
