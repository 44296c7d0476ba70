"""Alignment results of a batch, in input order, as arrays.

Coordinates are 0-based half-open. Runs hold the CIGAR as (op, length) with op
0 '=', 1 'X', 2 'I' (base only in the query), 3 'D' (base only in the target).
An empty alignment has no runs, score 0 and all spans 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OPS = "=XID"


@dataclass
class Alignments:
    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    run_off: np.ndarray  # (n,) start of each pair's runs
    nruns: np.ndarray  # (n,) 0 for empty alignments and score-only runs
    run_op: np.ndarray
    run_len: np.ndarray
    stats: np.ndarray  # (n, 4): matches, mismatches, inserted bases, deleted bases
    traceback: bool

    @classmethod
    def allocate(cls, qlen: np.ndarray, tlen: np.ndarray, traceback: bool) -> "Alignments":
        n = len(qlen)
        if traceback:
            cap = 2 * np.minimum(qlen, tlen) + 2
            run_off = np.zeros(n, np.int64)
            np.cumsum(cap[:-1], out=run_off[1:])
            total = int(cap.sum())
        else:
            run_off = np.zeros(n, np.int64)
            total = 1
        z = lambda: np.zeros(n, np.int64)  # noqa: E731
        # run slots are only read up to nruns: no need to clear them
        return cls(z(), z(), z(), z(), z(), run_off, z(), np.empty(total, np.uint8),
                   np.empty(total, np.int32), np.zeros((n, 4), np.int64), traceback)

    @property
    def size(self) -> int:
        return len(self.score)

    def runs(self, k: int):
        s = self.run_off[k]
        e = s + self.nruns[k]
        return self.run_op[s:e], self.run_len[s:e]

    def take(self, idx: np.ndarray, other: "Alignments"):
        """Copy the results of ``other`` (pairs 0..) into pairs ``idx`` of self."""
        for name in ("score", "qstart", "qend", "tstart", "tend", "nruns"):
            getattr(self, name)[idx] = getattr(other, name)
        self.stats[idx] = other.stats
        if self.traceback:
            for k, p in enumerate(idx):
                ops, lens = other.runs(k)
                s = self.run_off[p]
                self.run_op[s:s + len(ops)] = ops
                self.run_len[s:s + len(lens)] = lens

    def cigars(self, merge_m: bool = False) -> list[str]:
        """CIGAR strings of all pairs ('*' for an empty alignment or score only)."""
        from .formatting import format_cigars

        if not self.traceback:
            return ["*"] * self.size
        buf, offs = format_cigars(self.run_op, self.run_len, self.run_off, self.nruns, merge_m)
        text = buf.tobytes().decode("ascii")
        return [text[offs[k]:offs[k + 1]] or "*" for k in range(self.size)]

    def normalize_empty(self, mode_code: int):
        """Give empty alignments score 0 and zero spans.

        With traceback an alignment is empty when it has no runs. Score only,
        it is empty when its end cell lies on the matrix border and the mode
        makes that border free (semi-global and local; glocal with an empty
        query).
        """
        if self.traceback:
            empty = self.nruns == 0
        else:
            border = (self.qend == 0) | (self.tend == 0)
            if mode_code in (1, 3):
                empty = border
            elif mode_code == 2:
                empty = self.qend == 0
            else:
                empty = (self.qend == 0) & (self.tend == 0)
        for arr in (self.qstart, self.qend, self.tstart, self.tend):
            arr[empty] = 0
