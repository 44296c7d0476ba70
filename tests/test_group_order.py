"""The GPU plans' order of work items (``device.shape_groups``): by shape key, largest first within a shape,
ties in input order, as numpy's lexsort orders them, for keys of any range."""

from __future__ import annotations

import numpy as np
import pytest

from seqalign_cli.backends.cuda.device import fitting_parts, group_order, shape_groups, shape_parts


@pytest.mark.parametrize("wide", [False, True])
def test_group_order_is_lexsort_of_key_then_rank(wide):
    rng = np.random.default_rng(3 + wide)
    for n in (1, 2, 17, 1000, 70000):
        key = rng.integers(0, (1 << 40) if wide else 6, n).astype(np.int64)
        rank = rng.integers(0, 65536 if n % 2 else 3, n).astype(np.uint16)
        assert (group_order(key, rank) == np.lexsort((rank, key))).all()


def test_shape_groups_cut_by_key_largest_first():
    subset = np.array([4, 0, 2, 3, 1], np.int64)
    cells = np.array([10, 500, 10, 80, 500], np.int64)
    key = np.array([7, 2, 7, 2, 7], np.int64)  # a key per item of subset
    groups = shape_groups(subset, key, cells)
    assert [k for k, _ in groups] == [2, 7]
    assert groups[0][1].tolist() == [3, 0]  # cells 80, then 10
    assert groups[1][1].tolist() == [4, 1, 2]  # the two of 500 in subset order, then 10


@pytest.mark.parametrize("seed", range(3))
def test_shape_parts_are_groups_cut_by_size(seed):
    """One compiled pass gives what ``shape_groups`` then ``fitting_parts`` give, and each item's offset
    in its part (the exclusive sums of its part's sizes)."""
    rng = np.random.default_rng(seed)
    n = 3000
    subset = rng.permutation(n + 500)[:n].astype(np.int64)
    cells = rng.integers(0, 1 << 30, n + 500).astype(np.int64)
    key = rng.integers(0, 5, n).astype(np.int64)
    sizes = rng.integers(0, 900, n + 500).astype(np.int64)
    limit = 20000
    parts, off = shape_parts(subset, key, cells, sizes, limit)
    want = [(k, p) for k, sel in shape_groups(subset, key, cells) for p in fitting_parts(sel, sizes, limit)]
    assert [(k, p.tolist()) for k, p, _ in parts] == [(k, p.tolist()) for k, p in want]
    assert len(want) > 5  # cut by size as well as by key
    for _, p, total in parts:
        assert total == sizes[p].sum()
        assert off[p].tolist() == (np.cumsum(sizes[p]) - sizes[p]).tolist()
    outside = np.setdiff1d(np.arange(n + 500), subset)
    assert not off[outside].any()
    # without sizes: the groups whole, in numpy's order of key, then size on a scale of 1/1024 octave
    whole, none = shape_parts(subset, key, cells)
    size = (np.log2(np.maximum(cells[subset], 1).astype(np.float64)) * 1024).astype(np.int64)
    order = np.lexsort((-size, key))
    assert none is None and np.concatenate([p for _, p, _ in whole]).tolist() == subset[order].tolist()
    assert len(whole) == len(np.unique(key))
