"""Reads against a graph on the CPU, the reference engine of the graph family: ``CpuGraph``.

Each read is aligned against every base of the graph by ``cpu_dp``
(rows in topological order, slots for the rows node starts need, the
checkpointed walk beyond the traceback budget), longest first. Cells are
int32 where the score bound allows, int64 otherwise. The int32 reads go
``LANES`` at a time through the graph (``align_groups``: reads of similar
lengths side by side in vector lanes, threads across groups, the walks'
blocks recomputed once for every lane); the int64 reads one at a
time (``align_each``, threads across reads), the reference the lanes equal
bit for bit.
"""

from __future__ import annotations

import numpy as np

from ...config import AlignConfig, Mode
from ...errors import UsageError
from ...jit import nb, thread_count
from ...protocols import CpuEngine
from .cpu_dp import CHECKPOINT_MIN, LANES, align_each, align_groups

#: int32 cells hold every score whose bound stays below this (minus infinity is -2**29)
INT32_LIMIT = 2**28
NEG32 = -(2**29)
NEG64 = -(2**60)
INT64_LIMIT = 2**58
#: path room per read beyond its length (paths longer than that are aligned again with exact room)
PATH_SLACK = 8
#: more room in global mode, where paths run from a source to a sink
GLOBAL_ROOM = 4096


def graph_arrays(graph) -> tuple:
    """The graph as the compiled code takes it: (codes, pred_off, pred, slot, source, sink, multi).

    ``multi[v]`` counts the rows before v that have several real
    predecessors (their per-column predecessor indices are kept for the walk).
    """
    arrays = getattr(graph, "_cpu_arrays", None)
    if arrays is None:
        many = (np.diff(graph.pred_off) >= 2).astype(np.int64)
        multi = np.zeros(graph.n_bases + 1, np.int64)
        np.cumsum(many, out=multi[1:])
        arrays = (graph.codes, graph.pred_off.astype(np.int64), graph.pred.astype(np.int32),
                  graph.slot.astype(np.int32), graph.source.astype(np.bool_), graph.sink.astype(np.bool_), multi)
        graph._cpu_arrays = arrays
    return arrays


def score_dtype(cfg: AlignConfig, read_lengths: np.ndarray, n_bases: int):
    """(int32 selector, int64 selector) of the reads by their score bound; refuses bounds beyond int64."""
    bound = np.array([cfg.scoring.score_bound(int(m), n_bases) for m in read_lengths], np.int64) \
        if len(read_lengths) else np.zeros(0, np.int64)
    if len(bound) and bound.max() >= INT64_LIMIT:
        raise UsageError("scoring values too large: graph scores could exceed 2**58")
    return bound < INT32_LIMIT


class CpuGraph(CpuEngine):
    """The graph engine on the CPU: ``align(batch, cfg)`` gives the batch's ``GraphAlignments``.

    ``lanes`` False aligns every read by the one-read code (``align_each``),
    the reference of the lanes (tests compare the two).
    """

    def __init__(self, threads: int = 1, lanes: bool = True):
        self.threads = thread_count(threads)
        self.lanes = lanes

    def align(self, batch, cfg: AlignConfig):
        from .results import GraphAlignments

        graph = batch.graph
        G = graph_arrays(graph)
        lengths = batch.lengths
        n = batch.size
        res = np.zeros((n, 8), np.int64)
        out = GraphAlignments.allocate(lengths, cfg.traceback)
        runs = out.cigar
        room = path_room(batch, cfg)
        nodes = np.empty(int(room[-1]) if cfg.traceback else 0, np.int32)
        narrow = score_dtype(cfg, lengths, graph.n_bases)
        nb.set_num_threads(self.threads)
        node = graph.node.astype(np.int32)
        long_paths = {}
        for wide in (False, True):
            sel = np.flatnonzero(narrow != wide)
            if not len(sel):
                continue
            sel = sel[np.argsort(-lengths[sel], kind="stable")]  # longest first
            args = kernel_args(cfg, graph, wide)
            fit = fits_lanes(lengths[sel], cfg, graph) if self.lanes and not wide else np.zeros(len(sel), bool)
            if not fit.all():
                with nb.parallel_chunksize(1):  # longest first, threads take them one at a time
                    align_each(G, node, batch.codes, batch.offs, sel[~fit], *args, runs.off, runs.op,
                               runs.length, room, nodes, res)
            if fit.any():
                groups = lane_groups(lengths[sel[fit]], cfg, graph)
                with nb.parallel_chunksize(1):  # groups differ in length: threads take them one at a time
                    align_groups(G, node, batch.codes, batch.offs, sel[fit], groups, *args, runs.off, runs.op,
                                 runs.length, room, nodes, res)
            if res[sel, 7].any():
                rows = res[sel]
                long_paths.update(realign(batch, sel, rows, cfg, runs))
                res[sel] = rows
        fill_results(out, res, room, nodes, long_paths, graph)
        return out.finish(cfg)


def fits_lanes(lengths: np.ndarray, cfg: AlignConfig, graph) -> np.ndarray:
    """Which reads of ``lengths`` the lanes take: those whose group's slot rows (``LANES`` lanes each) stay
    within the matrix budget (and ``CHECKPOINT_MIN``); the others go one at a time (graphs of very many slots
    and long reads)."""
    room = max(cfg.matrix_budget, CHECKPOINT_MIN)
    return max(graph.n_slots, 1) * 2 * (np.asarray(lengths, np.int64) + 1) * LANES * 4 <= room


def lane_groups(lengths: np.ndarray, cfg: AlignConfig, graph) -> np.ndarray:
    """Offsets of the groups ``align_groups`` takes of reads of ``lengths`` (descending): ``LANES`` reads each,
    fewer with traceback where their checkpoints would pass the matrix budget (and ``CHECKPOINT_MIN``) even in
    blocks of the largest direction matrix the budget allows (long reads), down to one read."""
    n = len(lengths)
    if not cfg.traceback:
        return np.append(np.arange(0, n, LANES, dtype=np.int64), np.int64(n))
    budget = cfg.matrix_budget
    weight = graph.n_bases + 4 * int(np.count_nonzero(np.diff(graph.pred_off) >= 2))
    room = max(budget, CHECKPOINT_MIN)
    off = [0]
    while off[-1] < n:
        m1 = int(lengths[off[-1]]) + 1
        lane_bytes = (max(graph.n_slots, 1) + 1) * m1 * 8 * (weight * m1 // max(budget, 1) + 1)
        off.append(min(n, off[-1] + min(LANES, max(1, room // lane_bytes))))
    return np.array(off, np.int64)


def kernel_args(cfg: AlignConfig, graph, wide: bool) -> tuple:
    """The compiled engine's arguments after the read: mode, scoring, minus infinity, traceback, budget, slots."""
    dtype, neg = (np.int64, NEG64) if wide else (np.int32, NEG32)
    return (int(cfg.mode_code), np.array(cfg.scoring.as_list(), dtype), np.array([neg], dtype), cfg.traceback,
            cfg.matrix_budget, max(graph.n_slots, 1))


def path_room(batch, cfg: AlignConfig) -> np.ndarray:
    """Offsets of each read's room for its path's nodes: its length and ``PATH_SLACK``, and in global mode
    (paths run source to sink) up to ``GLOBAL_ROOM`` more."""
    extra = PATH_SLACK
    if cfg.mode_code is Mode.GLOBAL:
        extra += min(2 * len(batch.graph.seg_len), GLOBAL_ROOM)
    room = np.zeros(batch.size + 1, np.int64)
    np.cumsum(batch.lengths + extra, out=room[1:])
    return room


def realign(batch, idx: np.ndarray, res: np.ndarray, cfg: AlignConfig, runs) -> dict:
    """Align again the reads of ``idx`` whose path did not fit their room (``res[i, 7]``), with the exact room.

    ``res[i]`` belongs to read ``idx[i]`` (``res[i, 6]``: the path's node
    count the first pass found); their rows and run slots are rewritten.
    Returns {read: path nodes}.
    """
    rows = np.flatnonzero(res[:, 7])
    if not len(rows):
        return {}
    graph = batch.graph
    reads = np.asarray(idx, np.int64)[rows]
    room = np.zeros(batch.size + 1, np.int64)
    need = np.zeros(batch.size, np.int64)
    need[reads] = res[rows, 6]
    np.cumsum(need, out=room[1:])
    nodes = np.empty(int(room[-1]), np.int32)
    full = np.zeros((batch.size, 8), np.int64)
    narrow = score_dtype(cfg, batch.lengths[reads], graph.n_bases)
    for wide in (False, True):
        sel = reads[narrow != wide]
        if len(sel):
            align_each(graph_arrays(graph), graph.node.astype(np.int32), batch.codes, batch.offs, sel,
                       *kernel_args(cfg, graph, wide), runs.off, runs.op, runs.length, room, nodes, full)
    res[rows] = full[reads]
    return {int(k): nodes[room[k]:room[k + 1]] for k in reads}


def fill_results(out, res: np.ndarray, room: np.ndarray, nodes: np.ndarray, long_paths: dict, graph,
                 idx: np.ndarray | None = None):
    """Fill ``GraphAlignments`` from the engines' per-read rows and paths.

    ``res[i]`` (read ``idx[i]``, or read i without ``idx``): score, read
    start, read end, first base, last base, runs, path nodes, overflow; the
    path of read k is ``nodes[room[k]:room[k] + res[i, 6]]``, or
    ``long_paths[k]`` where it did not fit.
    """
    idx = np.arange(len(res)) if idx is None else np.asarray(idx, np.int64)
    out.score[idx] = res[:, 0]
    out.qstart[idx] = res[:, 1]
    out.qend[idx] = res[:, 2]
    out.end_base[idx] = res[:, 4]
    out.cigar.count[idx] = res[:, 5]
    if not out.traceback:
        return
    aside = (res[:, 7] == 1) | np.isin(idx, np.fromiter(long_paths, np.int64, len(long_paths)))
    out.set_paths((room[idx], np.where(aside, 0, res[:, 6]), nodes), idx=idx)
    if long_paths:
        ks = np.array(sorted(long_paths), np.int64)
        out.set_paths([long_paths[int(k)] for k in ks], idx=ks)
    has = res[:, 3] >= 0
    first = np.where(has, res[:, 3], 0)
    last = np.where(has, res[:, 4], 0)
    node_len = graph.seg_len[np.arange(2 * len(graph.seg_len)) >> 1]
    cum = np.zeros(len(out.path_nodes) + 1, np.int64)
    np.cumsum(node_len[out.path_nodes], out=cum[1:])
    total = cum[out.path_off[idx + 1]] - cum[out.path_off[idx]]  # the path's length
    out.pstart[idx] = np.where(has, graph.offset[first], 0)
    out.pend[idx] = np.where(has, total - node_len[graph.node[last]] + graph.offset[last] + 1, 0)
