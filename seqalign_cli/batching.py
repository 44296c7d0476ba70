"""Length sorting and packing of pairs into lane groups, and back to input order.

A batch of pairs is sorted by target then query length, cut into groups of
``lanes`` pairs of similar shape and packed so that each group is a
(length, lanes) block of codes: the layout the CPU engine vectorises across
and the GPU kernels read coalesced. Results are written by pair index, so
output order is always input order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

PAD = 4  # padding code (scores as N; never reaches a lane's result)


@dataclass
class PairBatch:
    """Encoded sequences of a batch of pairs: flat codes plus offsets."""

    q_codes: np.ndarray
    q_off: np.ndarray  # (n+1,)
    t_codes: np.ndarray
    t_off: np.ndarray  # (n+1,)

    @property
    def size(self) -> int:
        return len(self.q_off) - 1

    @property
    def qlen(self) -> np.ndarray:
        return np.diff(self.q_off)

    @property
    def tlen(self) -> np.ndarray:
        return np.diff(self.t_off)

    def query(self, k: int) -> np.ndarray:
        return self.q_codes[self.q_off[k]:self.q_off[k + 1]]

    def target(self, k: int) -> np.ndarray:
        return self.t_codes[self.t_off[k]:self.t_off[k + 1]]

    def cells(self) -> int:
        return int(np.dot(self.qlen.astype(np.int64), self.tlen.astype(np.int64)))


@dataclass
class Groups:
    """Packed lane groups, ready for a backend."""

    q_buf: np.ndarray
    q_off: np.ndarray  # (G,) start of each group's block
    q_dim: np.ndarray  # (G,) rows of each block (longest query)
    t_buf: np.ndarray
    t_off: np.ndarray
    t_dim: np.ndarray
    qlen: np.ndarray  # (G*lanes,)
    tlen: np.ndarray
    index: np.ndarray  # (G*lanes,) pair index, -1 for padding lanes
    lanes: int


def length_order(qlen: np.ndarray, tlen: np.ndarray, subset: np.ndarray) -> np.ndarray:
    """The pairs of ``subset`` sorted by target length, then query length."""
    keys = np.lexsort((qlen[subset], tlen[subset]))
    return subset[keys]


@nb.njit(cache=True, nogil=True)
def _pack(codes, off, order, lanes, pad):
    n = order.shape[0]
    G = (n + lanes - 1) // lanes
    dims = np.zeros(G, np.int64)
    lens = np.zeros(G * lanes, np.int64)
    for k in range(n):
        p = order[k]
        ln = off[p + 1] - off[p]
        lens[k] = ln
        g = k // lanes
        if ln > dims[g]:
            dims[g] = ln
    starts = np.zeros(G, np.int64)
    total = 0
    for g in range(G):
        starts[g] = total
        total += dims[g] * lanes
    buf = np.full(total, pad, np.uint8)
    for k in range(n):
        p = order[k]
        g = k // lanes
        l = k - g * lanes
        base = starts[g]
        s = off[p]
        for i in range(off[p + 1] - s):
            buf[base + i * lanes + l] = codes[s + i]
    return buf, starts, dims, lens


def pack_groups(batch: PairBatch, order: np.ndarray, lanes: int) -> Groups:
    """Pack the pairs ``order`` (already length-sorted) into groups of ``lanes``."""
    order = np.ascontiguousarray(order, dtype=np.int64)
    qb, qo, qd, ql = _pack(batch.q_codes, batch.q_off, order, lanes, PAD)
    tb, to, td, tl = _pack(batch.t_codes, batch.t_off, order, lanes, PAD)
    index = np.full(len(ql), -1, np.int64)
    index[: len(order)] = order
    return Groups(qb, qo, qd, tb, to, td, ql, tl, index, lanes)
