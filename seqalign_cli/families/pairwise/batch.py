"""The pairwise family's batch: ``PairBatch``, the encoded queries and targets (flat codes plus offsets);
``make_batch`` builds one from sequences in memory (tests, benchmarks, the Python API).

And the pairs' lane groups: a batch of pairs is sorted by target then query length (``length_order``), cut
into groups of ``lanes`` pairs of similar shape and packed so that each group is a (length, lanes) block of
codes (``pack_groups``): the layout the CPU engine vectorises across. Results are written by pair index, so
output order is always input order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ...batching import PAD, gather_runs
from ...io.encode import encode_many
from ...jit import nb
from ...protocols import Batch


def _lengths(off: np.ndarray) -> np.ndarray:
    out = np.diff(off)
    out.flags.writeable = False
    return out


@dataclass
class PairBatch(Batch):
    """Encoded sequences of a batch of pairs: flat codes plus offsets.

    What every family's batch offers the runner and the GPU scheduler:
    ``size``, ``cells()``, ``cells_each()`` and ``subset(idx)``.
    """

    q_codes: np.ndarray
    q_off: np.ndarray  # (n+1,)
    t_codes: np.ndarray
    t_off: np.ndarray  # (n+1,)
    #: the GPU engine's plan of its launches, made ahead by the reading thread (``gpu.LaunchPlan``), or None
    planned: object = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> int:
        return len(self.q_off) - 1

    @cached_property
    def qlen(self) -> np.ndarray:
        """Query lengths (computed once; read-only)."""
        return _lengths(self.q_off)

    @cached_property
    def tlen(self) -> np.ndarray:
        """Target lengths (computed once; read-only)."""
        return _lengths(self.t_off)

    def query(self, k: int) -> np.ndarray:
        return self.q_codes[self.q_off[k]:self.q_off[k + 1]]

    def target(self, k: int) -> np.ndarray:
        return self.t_codes[self.t_off[k]:self.t_off[k + 1]]

    def subset(self, idx: np.ndarray) -> "PairBatch":
        """A new batch holding the pairs ``idx`` in that order."""
        idx = np.asarray(idx, np.int64)
        qc, qo = gather_runs(self.q_codes, self.q_off, idx)
        tc, to = gather_runs(self.t_codes, self.t_off, idx)
        return PairBatch(qc, qo, tc, to)

    def cells_each(self) -> np.ndarray:
        """DP cells of each pair (query x target length)."""
        return self.qlen.astype(np.int64) * self.tlen

    def cells(self) -> int:
        return int(np.dot(self.qlen.astype(np.int64), self.tlen.astype(np.int64)))


@dataclass
class Groups:
    """Packed lane groups, ready for a backend.

    Group g holds the pairs ``index[bounds[g]:bounds[g+1]]`` side by side; its
    query block is ``q_buf[q_off[g]:q_off[g] + q_dim[g]*lanes]`` viewed as
    (q_dim[g], lanes), q_dim being its longest query (likewise for targets).
    """

    q_buf: np.ndarray
    q_off: np.ndarray
    q_dim: np.ndarray
    t_buf: np.ndarray
    t_off: np.ndarray
    t_dim: np.ndarray
    qlen: np.ndarray  # per slot, in group order
    tlen: np.ndarray
    index: np.ndarray  # pair index of each slot
    bounds: np.ndarray  # (G+1,) first slot of each group


def length_order(qlen: np.ndarray, tlen: np.ndarray, subset: np.ndarray) -> np.ndarray:
    """The pairs of ``subset`` sorted by target length, then query length."""
    keys = np.lexsort((qlen[subset], tlen[subset]))
    return subset[keys]


@nb.njit(cache=True, nogil=True)
def plan_groups(qlen, tlen, max_lanes, slack):
    """Cut length-sorted pairs into groups of at most max_lanes pairs.

    A group is closed early when a pair's target or query length exceeds the
    group's shortest by more than ``slack`` (a ratio), so that little of a
    group's block is padding. Returns the (G+1,) slot bounds.
    """
    n = qlen.shape[0]
    bounds = np.empty(n + 1, np.int64)
    G = 0
    k = 0
    while k < n:
        bounds[G] = k
        G += 1
        tmin = tlen[k]
        qmin = qlen[k]
        qmax = qlen[k]
        e = k + 1
        while e < n and e - k < max_lanes:
            qmin2 = min(qmin, qlen[e])
            qmax2 = max(qmax, qlen[e])
            if tlen[e] > tmin * slack + 8 or qmax2 > qmin2 * slack + 8:
                break
            qmin = qmin2
            qmax = qmax2
            e += 1
        k = e
    bounds[G] = n
    return bounds[:G + 1]


@nb.njit(cache=True, nogil=True)
def _pack(codes, off, order, bounds, pad):
    G = bounds.shape[0] - 1
    dims = np.zeros(G, np.int64)
    lens = np.zeros(order.shape[0], np.int64)
    starts = np.zeros(G, np.int64)
    total = 0
    for g in range(G):
        for k in range(bounds[g], bounds[g + 1]):
            p = order[k]
            lens[k] = off[p + 1] - off[p]
            dims[g] = max(dims[g], lens[k])
        starts[g] = total
        total += dims[g] * (bounds[g + 1] - bounds[g])
    buf = np.full(total, pad, np.uint8)
    for g in range(G):
        lanes = bounds[g + 1] - bounds[g]
        for k in range(bounds[g], bounds[g + 1]):
            p = order[k]
            l = k - bounds[g]
            base = starts[g]
            s = off[p]
            for i in range(off[p + 1] - s):
                buf[base + i * lanes + l] = codes[s + i]
    return buf, starts, dims, lens


def pack_groups(batch: PairBatch, order: np.ndarray, max_lanes: int, slack: float = 1.25) -> Groups:
    """Pack the pairs ``order`` (already length-sorted) into lane groups."""
    order = np.ascontiguousarray(order, dtype=np.int64)
    bounds = plan_groups(batch.qlen[order], batch.tlen[order], max_lanes, slack)
    qb, qo, qd, ql = _pack(batch.q_codes, batch.q_off, order, bounds, PAD)
    tb, to, td, tl = _pack(batch.t_codes, batch.t_off, order, bounds, PAD)
    return Groups(qb, qo, qd, tb, to, td, ql, tl, order, bounds)


def make_batch(queries: list[bytes], targets: list[bytes]) -> PairBatch:
    """A PairBatch from parallel lists of query and target sequences."""
    qc, qo = encode_many(queries)
    tc, to = encode_many(targets)
    return PairBatch(qc, qo, tc, to)
