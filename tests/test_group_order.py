"""The GPU plans' order of work items (``device.shape_groups``): by shape key, largest first within a shape,
ties in input order, as numpy's lexsort orders them, for keys of any range."""

from __future__ import annotations

import numpy as np
import pytest

from seqalign_cli.backends.cuda.device import group_order, shape_groups


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
