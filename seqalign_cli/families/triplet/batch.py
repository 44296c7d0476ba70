"""The triplet family's batch: ``TripletBatch``, the codes of the three sequences of every triplet, flat, with
offsets; ``make_triplets`` builds one from sequences in memory (tests, benchmarks, the Python API).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...batching import gather_runs
from ...protocols import Batch


@dataclass
class TripletBatch(Batch):
    """Encoded sequences of a batch of triplets: for each of A, B, C the flat codes and (n+1,) offsets.

    What every family's batch offers the runner and the GPU scheduler:
    ``size``, ``cells()``, ``cells_each()`` (3-D cells, n1*n2*n3) and ``subset(idx)``.
    """

    codes: tuple[np.ndarray, np.ndarray, np.ndarray]
    offs: tuple[np.ndarray, np.ndarray, np.ndarray]

    @property
    def size(self) -> int:
        return len(self.offs[0]) - 1

    @property
    def lengths(self) -> np.ndarray:
        """(n, 3) int64: the lengths of A, B and C of each triplet."""
        return np.stack([np.diff(o) for o in self.offs], axis=1).astype(np.int64) if self.size else \
            np.zeros((0, 3), np.int64)

    def seq(self, s: int, k: int) -> np.ndarray:
        """The codes of sequence ``s`` (0 A, 1 B, 2 C) of triplet ``k``."""
        return self.codes[s][self.offs[s][k]:self.offs[s][k + 1]]

    def cells_each(self) -> np.ndarray:
        lens = self.lengths
        return lens[:, 0] * lens[:, 1] * lens[:, 2]

    def subset(self, idx: np.ndarray) -> "TripletBatch":
        """A new batch holding the triplets ``idx`` in that order."""
        codes, offs = zip(*(gather_runs(c, o, idx) for c, o in zip(self.codes, self.offs)))
        return TripletBatch(tuple(codes), tuple(offs))


def make_triplets(a: list[bytes], b: list[bytes], c: list[bytes]) -> TripletBatch:
    """A TripletBatch from three parallel lists of sequences (tests, benchmarks, the API)."""
    from ...io.encode import encode_many

    codes, offs = zip(*(encode_many(list(s)) for s in (a, b, c)))
    return TripletBatch(tuple(codes), tuple(offs))
