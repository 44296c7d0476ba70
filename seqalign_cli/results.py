"""Alignment results of a batch, in input order, as arrays.

Two layers:

* ``RunStore``: the run-length alignment strings of every record of a batch
  (CIGAR runs for pairs; column runs for triplets; a graph path's CIGAR),
  each record with room for its runs at ``off`` and ``count`` runs in use.
  Every family's results hold one, and the GPU scheduler, the CPU fallback
  and the writers use its ``allocate``, ``take`` (one compiled copy,
  ``scatter_runs``), ``packed`` and ``view``.
* ``Alignments``: the pairwise record (score, spans, edit statistics) around
  a ``RunStore`` of CIGAR runs; ``TripletAlignments``: the triplet record
  around a ``RunStore`` of column runs; ``GraphAlignments``: the read-to-graph
  record around a ``RunStore`` of CIGAR runs and a path of oriented nodes per
  read.

Coordinates are 0-based half-open. Pairwise runs hold the CIGAR as
(op, length) with the ops of ``Op``. An empty alignment has no runs, score 0
and all spans 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from .config import Mode
from .jit import nb
from .protocols import DeviceResults


class Op(IntEnum):
    """Pairwise run ops; ``CIGAR_LETTERS[op]`` is the CIGAR letter."""

    MATCH = 0  # '='
    MISMATCH = 1  # 'X'
    INSERTION = 2  # 'I': a base only in the query
    DELETION = 3  # 'D': a base only in the target


#: the CIGAR letter of each ``Op``
CIGAR_LETTERS = np.frombuffer(b"=XID", np.uint8).copy()


class RunView(NamedTuple):
    """A ``RunStore``'s arrays as compiled formatters take them."""

    off: np.ndarray
    count: np.ndarray
    op: np.ndarray
    length: np.ndarray


@dataclass
class RunStore:
    """Run-length alignment strings of n records: record k's runs are ``op/length[off[k]:off[k] + count[k]]``."""

    off: np.ndarray  # (n,) first slot of each record
    count: np.ndarray  # (n,) runs in use; 0 for empty alignments and score-only runs
    op: np.ndarray  # uint8
    length: np.ndarray  # int32

    @classmethod
    def allocate(cls, capacity: np.ndarray | None, n: int) -> "RunStore":
        """Room for ``capacity[k]`` runs of record k (None: no runs at all, score only)."""
        off = np.zeros(n, np.int64)
        if capacity is not None:
            np.cumsum(capacity[:-1], out=off[1:])
            total = int(capacity.sum())
        else:
            total = 1
        # slots are only read up to count: no need to clear them
        return cls(off, np.zeros(n, np.int64), np.empty(total, np.uint8), np.empty(total, np.int32))

    def runs(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        s = self.off[k]
        e = s + self.count[k]
        return self.op[s:e], self.length[s:e]

    def take(self, idx: np.ndarray, other: "RunStore"):
        """Copy the runs of ``other``'s records 0.. into records ``idx`` of self (counts included)."""
        self.count[idx] = other.count
        if len(self.op) <= 1:  # score only
            return
        scatter_runs(self, idx, other)

    def packed(self, subset: np.ndarray) -> tuple[np.ndarray, int]:
        """A layout with room for exactly the runs in use of ``subset`` and the full room of every other record.

        Returns the new offsets and the slots in all; the GPU brings back
        only those slots (the other records keep room for the CPU engine).
        """
        room = np.diff(np.append(self.off, len(self.op)))
        room[subset] = self.count[subset]
        off = np.zeros(len(room), np.int64)
        np.cumsum(room[:-1], out=off[1:])
        return off, int(off[-1] + room[-1]) if len(room) else 0

    def view(self) -> RunView:
        return RunView(self.off, self.count, self.op, self.length)

    def strings(self, letters: np.ndarray, merge_m: bool = False) -> list[str]:
        """The run strings of every record spelled with ``letters`` ('*' for a record without runs)."""
        from .formatting import format_runs

        buf, offs = format_runs(self.view(), letters, merge_m)
        text = buf.tobytes().decode("ascii")
        return [text[offs[k]:offs[k + 1]] or "*" for k in range(len(self.count))]


class Role(IntEnum):
    """What a pair's record is among the records of its query (``Alignments.role``)."""

    ONLY = 0  # one record per query (no primary to choose): no flag, no tp:A tag
    PRIMARY = 1  # the query's best record (``--cross``)
    SECONDARY = 2  # another record of a query that has a primary (SAM flag 256, PAF tp:A:S)


class PairView(NamedTuple):
    """An ``Alignments``' per-pair arrays as compiled formatters take them."""

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    stats: np.ndarray
    strand: np.ndarray  # uint8: 1 where the query aligned reverse-complemented
    role: np.ndarray  # uint8 ``Role``


@dataclass
class Alignments(DeviceResults):
    """Pairwise alignments of a batch: scores, spans, edit statistics and CIGAR runs.

    ``strand`` and ``role`` are set once a chunk has chosen among its results
    (``io.mapping``; None until then, and where there is nothing to choose):
    with ``strand[k]`` 1 pair k aligned the reverse complement of its query
    (spans, CIGAR and statistics are then those of the reverse-complemented
    query); ``role[k]`` is a ``Role``.
    """

    score: np.ndarray
    qstart: np.ndarray
    qend: np.ndarray
    tstart: np.ndarray
    tend: np.ndarray
    stats: np.ndarray  # (n, 4): matches, mismatches, inserted bases, deleted bases
    cigar: RunStore
    traceback: bool
    strand: np.ndarray | None = None  # (n,) uint8
    role: np.ndarray | None = None  # (n,) uint8 ``Role``

    @classmethod
    def allocate(cls, qlen: np.ndarray, tlen: np.ndarray, traceback: bool) -> "Alignments":
        n = len(qlen)
        cigar = RunStore.allocate(2 * np.minimum(qlen, tlen) + 2 if traceback else None, n)
        z = lambda: np.zeros(n, np.int64)  # noqa: E731
        return cls(z(), z(), z(), z(), z(), np.zeros((n, 4), np.int64), cigar, traceback)

    @property
    def size(self) -> int:
        return len(self.score)

    def take(self, idx: np.ndarray, other: "Alignments"):
        """Copy the results of ``other`` (pairs 0..) into pairs ``idx`` of self."""
        for name in ("score", "qstart", "qend", "tstart", "tend", "stats"):
            getattr(self, name)[idx] = getattr(other, name)
        self.cigar.take(idx, other.cigar)

    @classmethod
    def concat(cls, parts: list["Alignments"], traceback: bool) -> "Alignments":
        """The pairs of ``parts`` back to back, as new results (each pair's runs copied; a slot more than its runs a
        pair, so that a store of one run is not taken for a score-only one)."""
        count = np.concatenate([p.cigar.count for p in parts]) if parts else np.zeros(0, np.int64)
        out = cls(*(np.zeros(len(count), np.int64) for _ in range(5)), np.zeros((len(count), 4), np.int64),
                  RunStore.allocate(count + 1 if traceback else None, len(count)), traceback)
        start = 0
        for part in parts:
            out.take(np.arange(start, start + part.size), part)
            start += part.size
        return out

    def select(self, idx: np.ndarray) -> "Alignments":
        """The pairs ``idx`` in that order, as new results; their runs stay where they are (shared)."""
        cigar = RunStore(self.cigar.off[idx], self.cigar.count[idx], self.cigar.op, self.cigar.length)
        pick = lambda a: None if a is None else a[idx]  # noqa: E731
        return Alignments(self.score[idx], self.qstart[idx], self.qend[idx], self.tstart[idx], self.tend[idx],
                          self.stats[idx], cigar, self.traceback, pick(self.strand), pick(self.role))

    def view(self) -> PairView:
        zeros = None if self.strand is not None and self.role is not None else np.zeros(self.size, np.uint8)
        return PairView(self.score, self.qstart, self.qend, self.tstart, self.tend, self.stats,
                        zeros if self.strand is None else self.strand, zeros if self.role is None else self.role)

    def cigars(self, merge_m: bool = False) -> list[str]:
        """CIGAR strings of all pairs ('*' for an empty alignment or score only)."""
        return self.cigar.strings(CIGAR_LETTERS, merge_m)

    def finish(self, cfg) -> "Alignments":
        """Give empty alignments score 0 and zero spans; the last step of every backend.

        With traceback an alignment is empty when it has no runs; score only,
        when its end cell lies on a border its mode makes free
        (``Mode.empty_ends``).
        """
        mode: Mode = cfg.mode_code
        empty = self.cigar.count == 0 if self.traceback else mode.empty_ends(self.qend, self.tend)
        for arr in (self.qstart, self.qend, self.tstart, self.tend):
            arr[empty] = 0
        return self

    #: what ``aligned_spans`` measures (the run statistics name it)
    SPAN = "query span (qend - qstart)"

    def aligned_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """(aligned, span) after ``finish``, for the run statistics: which pairs hold a non-empty alignment
        (an empty one has all spans 0, a non-empty one covers a base), and the query span, -1 where the
        start was not computed (score only, a free start)."""
        aligned = (self.qend != 0) | (self.tend != 0)
        return aligned, np.where(self.qstart >= 0, self.qend - self.qstart, -1)


class Column(IntEnum):
    """Triplet column kinds (run ops of a triplet alignment); ``COLUMN_LETTERS[kind]`` is its letter.

    The value is also the walk's order of preference on ties.
    """

    ALL = 0  # 'M': a residue of A, B and C
    GAP_A = 1  # 'a': a gap in A only
    GAP_B = 2  # 'b': a gap in B only
    GAP_C = 3  # 'c': a gap in C only
    ONLY_A = 4  # 'A': a residue of A only
    ONLY_B = 5  # 'B': a residue of B only
    ONLY_C = 6  # 'C': a residue of C only


#: the letter of each ``Column``
COLUMN_LETTERS = np.frombuffer(b"MabcABC", np.uint8).copy()
#: the residues each ``Column`` takes from A, B and C
COLUMN_STEPS = np.array([[1, 1, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.int64)
#: with affine gaps, the previous kind of a column that starts the alignment
COLUMN_START = 7


def opening_costs(gap_open: int, dtype=np.int32) -> np.ndarray:
    """(8, 7): ``gap_open`` times the gaps a column of kind t opens after a column of kind s (s = 7: the first
    column), the quasi-natural rule of the README: over the pairs of sequences whose column has a residue and a
    gap, the gap opens unless column s has the same residue and gap. Every engine's table of affine costs."""
    costs = np.zeros((8, 7), dtype)
    for s in range(8):
        for t in range(7):
            step = COLUMN_STEPS[t]
            for x, y in ((0, 1), (0, 2), (1, 2)):
                if step[x] != step[y]:
                    same = s != COLUMN_START and COLUMN_STEPS[s, x] == step[x] and COLUMN_STEPS[s, y] == step[y]
                    costs[s, t] += 0 if same else gap_open
    return costs


class TripletView(NamedTuple):
    """A ``TripletAlignments``' per-triplet arrays as compiled formatters take them."""

    score: np.ndarray
    start: np.ndarray
    end: np.ndarray


@dataclass
class TripletAlignments(DeviceResults):
    """3-way alignments of a batch: scores, spans over A, B and C, and runs of column kinds."""

    score: np.ndarray  # (n,) int64
    start: np.ndarray  # (n, 3) int64: where the alignment starts in A, B, C (-1: not computed)
    end: np.ndarray  # (n, 3) int64
    columns: RunStore
    traceback: bool

    @classmethod
    def allocate(cls, lengths: np.ndarray, traceback: bool) -> "TripletAlignments":
        n = len(lengths)
        runs = RunStore.allocate(lengths.sum(axis=1) + 1 if traceback else None, n)
        return cls(np.zeros(n, np.int64), np.zeros((n, 3), np.int64), np.zeros((n, 3), np.int64), runs, traceback)

    @property
    def size(self) -> int:
        return len(self.score)

    def take(self, idx: np.ndarray, other: "TripletAlignments"):
        """Copy the results of ``other`` (triplets 0..) into triplets ``idx`` of self."""
        self.score[idx] = other.score
        self.start[idx] = other.start
        self.end[idx] = other.end
        self.columns.take(idx, other.columns)

    def view(self) -> TripletView:
        return TripletView(self.score, self.start, self.end)

    def column_strings(self) -> list[str]:
        """The columns of every triplet as runs of kinds ('*' for an empty alignment or score only)."""
        return self.columns.strings(COLUMN_LETTERS)

    def finish(self, cfg) -> "TripletAlignments":
        """Spans of empty alignments become 0; score-only starts follow the mode (``Mode.score_only_starts``).

        With traceback an alignment is empty when it has no columns; score
        only, when it scores 0 in semi-global or local mode (its end cell is
        then on a free border) or when all three sequences are empty.
        """
        mode: Mode = cfg.mode_code
        if self.traceback:
            empty = self.columns.count == 0
        else:
            empty = self.score == 0 if mode is not Mode.GLOBAL else (self.end == 0).all(axis=1)
            self.start[:] = 0 if mode is Mode.GLOBAL else -1
        self.start[empty] = 0
        self.end[empty] = 0
        return self

    #: what ``aligned_spans`` measures (the run statistics name it)
    SPAN = "span over A (end - start of the first sequence)"

    def aligned_spans(self) -> tuple[np.ndarray, np.ndarray]:
        """(aligned, span) after ``finish``, for the run statistics: which triplets hold a non-empty
        alignment (an empty one ends at 0 in A, B and C), and the span over A, -1 where the start was not
        computed (score only, a free start)."""
        aligned = (self.end != 0).any(axis=1)
        return aligned, np.where(self.start[:, 0] >= 0, self.end[:, 0] - self.start[:, 0], -1)


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


def scatter_runs(store, idx: np.ndarray, other):
    """``RunStore.take``'s copy: the runs of ``other``'s records 0.. (``count`` of them each) into the slots of
    records ``idx`` of ``store``, in one compiled pass that releases the interpreter lock."""
    _scatter(store.op, store.length, np.require(store.off, np.int64, "CW"), np.require(idx, np.int64, "CW"),
             other.op, other.length, np.require(other.off, np.int64, "CW"), np.require(other.count, np.int64, "CW"))


@nb.njit(cache=True, nogil=True)
def _scatter(op, length, off, idx, other_op, other_length, other_off, count):
    for k in range(idx.shape[0]):
        s, o, n = off[idx[k]], other_off[k], count[k]
        op[s:s + n] = other_op[o:o + n]
        length[s:s + n] = other_length[o:o + n]


def _gather_csr(buf: np.ndarray, start: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays (off, nodes) of the segments ``buf[start[k]:start[k] + count[k]]``, back to back."""
    off = np.zeros(len(count) + 1, np.int64)
    np.cumsum(count, out=off[1:])
    total = int(off[-1])
    if total == 0:
        return off, _NO_NODES
    pos = np.repeat(start - off[:-1], count) + np.arange(total, dtype=np.int64)
    return off, np.ascontiguousarray(buf[pos], np.int32)
