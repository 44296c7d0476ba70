"""Reads against a graph on the CPU, the reference engine of the graph family: ``CpuGraph``.

Each read is aligned against every base of the graph by ``graph_dp``
(rows in topological order, slots for the rows node starts need, the
checkpointed walk beyond the traceback budget), threads across reads,
longest first. Cells are int32 where the score bound allows, int64 otherwise.
"""

from __future__ import annotations

import numpy as np

from ...config import AlignConfig
from ...errors import UsageError
from ...jit import nb
from .graph_dp import align_each, align_read

#: int32 cells hold every score whose bound stays below this (minus infinity is -2**29)
INT32_LIMIT = 2**28
NEG32 = -(2**29)
NEG64 = -(2**60)
INT64_LIMIT = 2**58
#: path room per read beyond its length (paths longer than that are aligned again with exact room)
PATH_SLACK = 8


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


class CpuGraph:
    """The graph engine on the CPU: ``align(batch, cfg)`` gives the batch's ``GraphAlignments``."""

    def __init__(self, threads: int = 1):
        self.threads = max(1, min(threads, nb.config.NUMBA_NUM_THREADS))

    def align(self, batch, cfg: AlignConfig):
        from ...results import GraphAlignments

        graph = batch.graph
        G = graph_arrays(graph)
        lengths = batch.lengths
        n = batch.size
        res = np.zeros((n, 8), np.int64)
        out = GraphAlignments.allocate(lengths, cfg.traceback)
        runs = out.cigar
        room = np.zeros(n + 1, np.int64)
        np.cumsum(lengths + PATH_SLACK, out=room[1:])
        nodes = np.empty(int(room[-1]) if cfg.traceback else 0, np.int32)
        narrow = score_dtype(cfg, lengths, graph.n_bases)
        nb.set_num_threads(self.threads)
        node = graph.node.astype(np.int32)
        long_paths = {}
        for wide in (False, True):
            sel = np.flatnonzero(narrow != wide)
            if not len(sel):
                continue
            dtype, neg = (np.int64, NEG64) if wide else (np.int32, NEG32)
            sel = sel[np.argsort(-lengths[sel], kind="stable")]  # longest first
            args = (int(cfg.mode_code), np.array(cfg.scoring.as_list(), dtype), np.array([neg], dtype),
                    cfg.traceback, cfg.matrix_budget, max(graph.n_slots, 1))
            align_each(G, node, batch.codes, batch.offs, sel, *args, runs.off, runs.op, runs.length, room, nodes,
                       res)
            for k in sel[res[sel, 7] == 1]:  # paths longer than their room: once more, kept aside
                r0 = int(runs.off[k])
                long_paths[int(k)] = align_read(G, node, batch.seq(k), *args, res[k], runs.op[r0:],
                                                runs.length[r0:], np.empty(64, np.int32))[:res[k, 6]]
        fill_results(out, res, room, nodes, long_paths, graph)
        return out.finish(cfg)


def fill_results(out, res: np.ndarray, room: np.ndarray, nodes: np.ndarray, long_paths: dict, graph):
    """``GraphAlignments`` from the engines' per-read rows (score, qstart, qend, first base, last base, runs,
    path nodes, overflow) and the paths they wrote (``nodes[room[k]:]``; ``long_paths[k]`` where they did not fit).
    """
    out.score[:] = res[:, 0]
    out.qstart[:] = res[:, 1]
    out.qend[:] = res[:, 2]
    out.end_base[:] = res[:, 4]
    out.cigar.count[:] = res[:, 5]
    if not out.traceback:
        return
    count = np.where(res[:, 7] == 1, 0, res[:, 6])
    out.set_paths((room[:-1], count, nodes))
    if long_paths:
        idx = np.array(sorted(long_paths), np.int64)
        out.set_paths([long_paths[int(k)] for k in idx], idx=idx)
    has = res[:, 3] >= 0
    first = np.where(has, res[:, 3], 0)
    last = np.where(has, res[:, 4], 0)
    node_len = graph.seg_len[np.arange(2 * len(graph.seg_len)) >> 1]
    cum = np.zeros(len(out.path_nodes) + 1, np.int64)
    np.cumsum(node_len[out.path_nodes], out=cum[1:])
    total = cum[out.path_off[1:]] - cum[out.path_off[:-1]]  # the path's length
    out.pstart[:] = np.where(has, graph.offset[first], 0)
    out.pend[:] = np.where(has, total - node_len[graph.node[last]] + graph.offset[last] + 1, 0)
