"""Host-side helpers of the cuda backend that need no GPU: run slots and work splitting."""

import numpy as np

from seqalign_cli.backends.cuda import split_by_cells
from seqalign_cli.backends.cuda.pairwise import dir_words, rows_per_lane, run_slots


def test_run_slots_lists_each_pairs_slots_in_order():
    starts = np.array([0, 10, 4, 20])
    counts = np.array([2, 0, 3, 1])
    assert run_slots(starts, counts).tolist() == [0, 1, 4, 5, 6, 20]
    assert run_slots(starts[:0], counts[:0]).tolist() == []


def test_split_by_cells_covers_every_pair_once_and_balances():
    rng = np.random.default_rng(5)
    cells = rng.integers(1, 10_000, 1000)
    idx = np.arange(1000)
    pieces = split_by_cells(idx, cells, 8)
    joined = np.concatenate(pieces)
    assert sorted(joined.tolist()) == idx.tolist()
    loads = [cells[p].sum() for p in pieces]
    assert max(loads) < 2 * cells.sum() / len(pieces)
    # the largest pairs come first, so that they start early
    assert cells[pieces[0]].max() == cells.max()


def test_rows_per_lane_and_direction_words():
    q = np.array([1, 32, 33, 150, 256, 257, 10_000])
    R = rows_per_lane(q)
    assert R.tolist() == [1, 1, 2, 5, 8, 8, 8]
    t = np.full(len(q), 100)
    words = dir_words(q, t, R)
    stages = [1, 1, 1, 1, 1, 2, 40]
    assert words.tolist() == [s * (100 + 31) * 32 for s in stages]
