"""The graph family's results: ``GraphAlignments``, the read-to-graph record (scores, read and path spans) around
a ``RunStore`` of CIGAR runs and a path of oriented nodes per read; ``GraphView``, its arrays as the compiled
formatters take them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...config import Mode
from ...protocols import DeviceResults
from ...results import CIGAR_LETTERS, RunStore


class GraphView(NamedTuple):
    """A ``GraphAlignments``' per-read arrays as compiled formatters take them."""

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    pstart: np.ndarray
    pend: np.ndarray
    path_off: np.ndarray
    path_nodes: np.ndarray


_NO_NODES = np.zeros(0, np.int32)


@dataclass
class GraphAlignments(DeviceResults):
    """Alignments of reads to a graph: scores, read and path spans, CIGAR runs and the path of each read.

    Record k aligns ``qstart[k]:qend[k]`` of read k to the walk through the
    oriented nodes ``path_nodes[path_off[k]:path_off[k + 1]]`` (node id =
    2 * segment + reverse), starting at offset ``pstart[k]`` of its first node
    and ending before ``pend[k]``, counted from the start of that first node
    along the path. The CIGAR runs hold the ops of ``Op`` ('=', 'X', 'I' a read
    base only, 'D' a graph base only). ``end_base`` is the last graph base of
    the alignment (its index in topological base order; -1 for an empty one).

    Paths are not known before the walk, so they are not allocated with the
    rest; an engine fills them in one of two ways, after the walk:

    * ``set_paths(paths, idx=None)``: a list of per-read node sequences, CSR
      arrays ``(off, nodes)``, or per-read scratch ``(start, count, buf)``
      (read k's nodes at ``buf[start[k]:start[k] + count[k]]``), packed here;
      for all reads, or for the reads ``idx`` only (an engine given a subset
      of the batch), the others keeping theirs;
    * ``allocate_paths(counts)`` and then writing read k's nodes into
      ``path_nodes[path_off[k]:path_off[k + 1]]`` (an engine that counts
      first and fills second; all reads).

    Until then every path is empty (also what score-only runs keep). Paths
    go in any order of calls; ``take`` moves them with the rest.
    """

    score: np.ndarray  # (n,) int64
    qstart: np.ndarray  # (n,) int64: read span, half-open (score only: 0 or -1 as the mode says)
    qend: np.ndarray  # (n,) int64
    pstart: np.ndarray  # (n,) int64: offset of the first path base in the first path node
    pend: np.ndarray  # (n,) int64: lengths of the path nodes but the last + offset of the last base + 1
    path_off: np.ndarray  # (n + 1,) int64
    path_nodes: np.ndarray  # int32 oriented node ids
    cigar: RunStore
    traceback: bool
    end_base: np.ndarray  # (n,) int64

    @classmethod
    def allocate(cls, lengths: np.ndarray, traceback: bool) -> "GraphAlignments":
        """Results for reads of ``lengths`` bases: room for 2 * length + 1 CIGAR runs each, empty paths.

        2m + 1 runs always suffice: every run but a 'D' run takes at least one
        read base, and two 'D' runs are never adjacent.
        """
        lengths = np.asarray(lengths, np.int64)
        n = len(lengths)
        cigar = RunStore.allocate(2 * lengths + 1 if traceback else None, n)
        z = lambda: np.zeros(n, np.int64)  # noqa: E731
        return cls(z(), z(), z(), z(), z(), np.zeros(n + 1, np.int64), _NO_NODES, cigar, traceback,
                   np.full(n, -1, np.int64))

    @property
    def size(self) -> int:
        return len(self.score)

    # ------------------------------------------------------------------ paths

    def allocate_paths(self, counts: np.ndarray) -> np.ndarray:
        """Room for ``counts[k]`` path nodes of read k (offsets set, nodes uninitialised); returns ``path_nodes``.

        Replaces every path; the engine then writes read k's nodes into
        ``path_nodes[path_off[k]:path_off[k + 1]]``.
        """
        counts = np.asarray(counts, np.int64)
        if len(counts) != self.size:
            raise ValueError(f"{len(counts)} path counts for {self.size} reads")
        self.path_off = np.zeros(self.size + 1, np.int64)
        np.cumsum(counts, out=self.path_off[1:])
        self.path_nodes = np.empty(int(self.path_off[-1]), np.int32)
        return self.path_nodes

    def set_paths(self, paths, idx: np.ndarray | None = None) -> None:
        """Set the paths of reads ``idx`` (all reads when None); the other reads keep theirs.

        ``paths``: a list of node sequences, one per read of ``idx``; CSR
        arrays ``(off, nodes)`` with ``len(idx) + 1`` offsets from 0; or
        per-read scratch ``(start, count, buf)``: read ``idx[k]``'s nodes are
        ``buf[start[k]:start[k] + count[k]]``.
        """
        m = self.size if idx is None else len(idx)
        if isinstance(paths, tuple) and len(paths) == 3:
            start, count, buf = paths
            off, nodes = _gather_csr(np.asarray(buf, np.int32), np.asarray(start, np.int64),
                                     np.asarray(count, np.int64))
        elif isinstance(paths, tuple) and len(paths) == 2:
            off = np.asarray(paths[0], np.int64)
            nodes = np.asarray(paths[1], np.int32)
        else:
            paths = [np.asarray(p, np.int32) for p in paths]
            off = np.zeros(len(paths) + 1, np.int64)
            np.cumsum([len(p) for p in paths], out=off[1:])
            nodes = np.concatenate(paths) if paths else _NO_NODES
        if len(off) != m + 1 or off[0] != 0 or off[-1] != len(nodes) or (np.diff(off) < 0).any():
            raise ValueError(f"paths for {m} reads need {m + 1} non-decreasing offsets from 0 to the node count")
        if idx is None:
            self.path_off, self.path_nodes = off.copy(), np.ascontiguousarray(nodes, np.int32).copy()
        else:
            self._merge_paths(np.asarray(idx, np.int64), off, nodes)

    def _merge_paths(self, idx: np.ndarray, off: np.ndarray, nodes: np.ndarray):
        """Paths ``(off, nodes)`` (CSR, one per read of ``idx``) replace those of reads ``idx``."""
        if not len(idx) or (not len(self.path_nodes) and not len(nodes)):
            return
        lens = np.diff(self.path_off)
        start = self.path_off[:-1].copy()
        lens[idx] = np.diff(off)
        start[idx] = off[:-1] + len(self.path_nodes)
        buf = np.concatenate([self.path_nodes, np.asarray(nodes, np.int32)])
        self.path_off, self.path_nodes = _gather_csr(buf, start, lens)

    def path(self, k: int) -> np.ndarray:
        """The oriented node ids of read k's path (empty for an empty alignment or score only)."""
        return self.path_nodes[self.path_off[k]:self.path_off[k + 1]]

    def path_strings(self, names) -> list[str]:
        """Every path as ``>s1>s2<s3`` text over the segment ``names`` ('*' for an empty path)."""
        out = []
        for k in range(self.size):
            nodes = self.path(k).tolist()
            out.append("".join(("<" if u & 1 else ">") + names[u >> 1] for u in nodes) or "*")
        return out

    # ----------------------------------------------------------------- shared

    def take(self, idx: np.ndarray, other: "GraphAlignments"):
        """Copy the results of ``other`` (reads 0..) into reads ``idx`` of self, paths included.

        The same reads may be taken again later (a later part overwrites an
        earlier one): the path store is rebuilt each time.
        """
        idx = np.asarray(idx, np.int64)
        for name in ("score", "qstart", "qend", "pstart", "pend", "end_base"):
            getattr(self, name)[idx] = getattr(other, name)
        self.cigar.take(idx, other.cigar)
        self._merge_paths(idx, other.path_off, other.path_nodes)

    def view(self) -> GraphView:
        return GraphView(self.score, self.qstart, self.qend, self.pstart, self.pend, self.path_off, self.path_nodes)

    def cigars(self) -> list[str]:
        """CIGAR strings (=XID) of all reads ('*' for an empty alignment or score only)."""
        return self.cigar.strings(CIGAR_LETTERS)

    def finish(self, cfg) -> "GraphAlignments":
        """Apply the empty-alignment rule and the score-only starts; the last step of every backend.

        With traceback an alignment is empty when its path is empty (a local
        alignment scoring 0, or the read all inserted before any graph base in
        glocal mode): no runs, no path, all spans 0, ``end_base`` -1. Score
        only, when ``end_base`` is -1 or (local) the score is 0; the read start
        is not known and becomes 0 for global and glocal, -1 for local (0 for
        an empty alignment), and the path spans stay 0.
        """
        mode: Mode = cfg.mode_code
        if self.traceback:
            empty = np.diff(self.path_off) == 0
            self.cigar.count[empty] = 0
        else:
            empty = self.end_base < 0
            if mode is Mode.LOCAL:
                empty |= self.score <= 0
            self.qstart[:] = -1 if mode is Mode.LOCAL else 0
            self.pstart[:] = 0
            self.pend[:] = 0
        for arr in (self.qstart, self.qend, self.pstart, self.pend):
            arr[empty] = 0
        self.end_base[empty] = -1
        return self

    #: what ``aligned_spans`` measures (the run statistics name it)
    SPAN = "read span (qend - qstart)"

    def aligned_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """(aligned, span) after ``finish``, for the run statistics: which reads hold a non-empty alignment
        (``end_base`` set), and the read span, -1 where the start was not computed (score only, local)."""
        return self.end_base >= 0, np.where(self.qstart >= 0, self.qend - self.qstart, -1)


def _gather_csr(buf: np.ndarray, start: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays (off, nodes) of the segments ``buf[start[k]:start[k] + count[k]]``, back to back."""
    off = np.zeros(len(count) + 1, np.int64)
    np.cumsum(count, out=off[1:])
    total = int(off[-1])
    if total == 0:
        return off, _NO_NODES
    pos = np.repeat(start - off[:-1], count) + np.arange(total, dtype=np.int64)
    return off, np.ascontiguousarray(buf[pos], np.int32)
