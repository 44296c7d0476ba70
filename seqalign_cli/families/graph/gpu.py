"""Reads against a graph on the GPU: the device copy of the graph, the launch plan, the hooks.

Kernels: ``kernels/graph.cu``. One warp a read (persistent warps taking
reads from a counter), lane l holding K consecutive read columns in
registers, the warp sweeping the graph's bases as a skewed wavefront (at
step t lane l computes row t - l; the left lane's last column comes by a
shuffle), with no block-wide barrier. K is the smallest of ``WIDTHS`` whose
32*K columns hold the read; longer reads run in stripes of 32*16 columns,
their borders in per-warp scratch. Where a launch's work items would leave
warps idle (few reads, long ones), the stripe pipeline takes them instead
(``pipeline_stripes``, ``graph_score<..., LINKED>``): each stripe of an item
on a warp of its own, a ring of rows (``LINK_ROWS``) behind the stripe
before, so that a few long reads fill the GPU.

Sections (``sections``): where no edge crosses a point of the row order
(the two strands of a graph whose links keep to one strand, separate
components), the rows on either side are aligned by different warps: a
work item is one read and one section, ``graph_best`` keeps each read's
best end cell over its sections (the same order of end cells as one
sweep), so a read's sweep is as long as its longest section.

The graph is uploaded once per device and engine (``_DeviceGraph``) and
stays there; batches carry reads only. Its arrays are made on the host once
a run (``host_graph``), whatever the number of devices. Rows that node
starts read later live in per-warp slots (``Graph.slot``).

Traceback: ``graph_score<K, MODE, true, ...>`` also saves a checkpoint every
``BLOCK_ROWS`` steps of each stripe (each lane's row before, its columns of
the slots, what it took from its left), and ``graph_walk<K, MODE>`` restores
the one before the end row, recomputes that block with direction bytes,
walks it, and goes on block by block towards the start, writing the runs
into the read's slots of ``out.cigar`` and the path's nodes into the read's
room (``PATH_SLACK`` past its length; a path longer than that is aligned
again by the CPU engine). A read of several stripes has checkpoints for
each, and the walk goes from stripe to stripe, right to left: to recompute
a block of stripe s it sweeps the same rows of stripes 0 .. s - 1 first,
values only, each passing its last column to the next in a window of rows.
The rows between checkpoints grow so that a launch's checkpoints fit
``trace_budgets``; launches of such reads hold fewer reads where B
would pass ``walk_rows`` (the walk sweeps a block once for each stripe
left of it).

16-bit cells (``graph_score16``): two reads of one width share a warp, one
in each 16-bit half of every register (one DPX instruction updates both),
where every value of both fits (``fits16``: in glocal and local mode a
bound of the read's columns, in global mode of the columns and the graph's
bases, so only small graphs); they are the rows' same graph, so the sweep
is one. With traceback the pair's checkpoints hold both reads and the walk
(int32 cells, one read a warp) restores its read's half.

What ``HOOKS.on_gpu`` sends here: reads of at least one base whose score
bound fits int32 lanes, of any length, with or without traceback; the CPU
engine aligns the rest in the same batch, with the same results.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ...backends.cuda.device import DeviceEngine, Job, copy_back, fetch_runs, upload, upload_runs
from ...backends.cuda.launch import THREADS, profile_fits
from ...backends.cuda.loader import module
from ...config import AlignConfig, Mode
from ...protocols import Hooks
from .batch import GraphBatch
from .gpu_args import BestArgs, GraphReads, ScoreArgs, WalkArgs
from .cpu import fill_results, graph_arrays, path_room, realign
from .results import GraphAlignments

KERNEL = "graph.cu"
#: columns a lane holds; a read takes the smallest K with 32*K >= its length (16 beyond: stripes)
WIDTHS = (1, 2, 3, 4, 5, 6, 8, 12, 16)
#: the columns of a stripe: longer reads run in stripes of the widest K
STRIPE_COLUMNS = 32 * WIDTHS[-1]
#: the stripe pipeline (each stripe of a read its own warp, a ring of rows behind the one before): ints of
#: a link (three rings of LINK_ROWS rows, then its counters; kernel: LINK_ROWS) and the most a launch holds
LINK_ROWS = 4096
LINK_INTS = 3 * LINK_ROWS + 32
LINK_BYTES = 2 * 1024**3
#: the pipeline takes launches of at most this share of the warps in items. Measured on an H100
#: (benchmarks/decisions/graph_pipeline_share.md, cactus-BRCA2, reads of 1-5 kb): 1.6-6x a warp an item at
#: 6-24 %, 0.86-0.9x at 97 %, between them at 73-85 %
PIPELINE_SHARE = 0.75
#: rows between checkpoints (traceback)
BLOCK_ROWS = 1024
#: checkpoint bytes of one launch (the rows between checkpoints grow on large graphs to fit): this, and for
#: reads of several stripes (whose walk sweeps a block once for each stripe left of it) this share of the
#: device's memory where that is more (10 GiB on an 80 GB GPU)
CHECKPOINT_BYTES = 4 * 1024**3
CHECKPOINT_SHARE = 1 / 8
#: direction bytes and windows of the walk kernel's warps (fewer warps walk where blocks are large), likewise
WALK_BYTES = 2 * 1024**3
WALK_SHARE = 1 / 16
#: int32 lanes hold every value whose bound stays below this (minus infinity is -2**30)
INT32_LIMIT = 2**29
#: 16-bit cells hold every value whose bound (``fits16``) stays below this (minus infinity is -3 * 2**13)
INT16_LIMIT = 16000
#: a row record's predecessor count saturates here (the kernel counts more in pred_off)
MANY_PREDS = 4095
#: warps resident per SM that the persistent launch asks for
WARPS_PER_SM = 16
#: a section holds at least this many rows, and at least 1/MAX_SECTIONS of the graph
SECTION_ROWS = 4096
MAX_SECTIONS = 8
#: threads a block of graph_best (one read each)
BEST_THREADS = 256
MODES = (Mode.GLOBAL, Mode.GLOCAL, Mode.LOCAL)


def checkpoint_size(n_slots: int, K: int) -> int:
    """Ints of one checkpoint: the row before, the slots, the inbound values (kernel: ``checkpoint_ints``)."""
    return (n_slots + 1) * 2 * (K + 1) * 32 + 96


def checkpoint_ints(n: int, n_slots: int, K: int, B: int) -> int:
    """Checkpoint ints of one stripe of a read: one every B steps of the n + 31 of the sweep."""
    return -(-(n + 31) // B) * checkpoint_size(n_slots, K)


def trace_budgets(device_bytes: int) -> tuple[int, int]:
    """The bytes of a launch's checkpoints and of its walk's warps for reads of several stripes on a device of
    ``device_bytes`` (0: the floors, what reads of one stripe take)."""
    return (max(CHECKPOINT_BYTES, int(device_bytes * CHECKPOINT_SHARE)),
            max(WALK_BYTES, int(device_bytes * WALK_SHARE)))


def walk_rows(n: int, stripes: int) -> int:
    """The most steps between checkpoints that a launch of reads of ``stripes`` stripes lets grow: the walk
    sweeps a block once for each stripe up to its own, so blocks of n / (4 stripes) rows keep its
    recomputation about an eighth of the forward sweep."""
    return max(BLOCK_ROWS, n // (4 * stripes))


def width(length: int) -> int:
    for k in WIDTHS:
        if 32 * k >= length:
            return k
    return WIDTHS[-1]


def _flag(x: bool) -> str:
    return "true" if x else "false"


def score_name(K: int, mode: int, checkpoints: bool, linked: bool = False) -> str:
    return f"graph_score<{K}, {int(mode)}, {_flag(checkpoints)}, {_flag(linked)}>"


def score16_name(K: int, mode: int, checkpoints: bool, linked: bool = False) -> str:
    return f"graph_score16<{K}, {int(mode)}, {_flag(checkpoints)}, {_flag(linked)}>"


def pipeline_stripes(items: int, stripes: int, max_warps: int) -> int:
    """The stripe pipeline's stripes for a launch of ``items`` work items of up to ``stripes`` stripes (0: none,
    one warp an item): where the items alone would leave a quarter of the warps idle or more
    (``PIPELINE_SHARE``) and their links fit ``LINK_BYTES``."""
    if stripes < 2 or items > PIPELINE_SHARE * max_warps or items * stripes * LINK_INTS * 4 > LINK_BYTES:
        return 0
    return stripes


def fits16(scoring, lengths: np.ndarray, K: int, bases: int = 0) -> np.ndarray:
    """Reads (lengths) of width K whose every value fits 16-bit cells; ``bases``: the graph's (global mode), or
    0 (glocal and local).

    A lane computes C = 32K columns a stripe, past the read's end too. In
    glocal and local mode every row may start at S, so no value falls below
    what the columns' starts cost (S's H at column C, a gap opened from it,
    one in the row): 3 (gap_open + gap_extend) + (C + 1) gap_extend + the
    largest penalty. In global mode a cell scores at least the alignment
    that deletes its path from the source (at most ``bases``) and inserts its
    columns: ``bases`` gap_extend more. None passes match x C.
    """
    lengths = np.asarray(lengths, np.int64)
    C = 32 * K * np.maximum(-(-lengths // (32 * K)), 1)
    s = scoring
    low = 3 * (s.gap_open + s.gap_extend) + (C + 1 + bases) * s.gap_extend + max(s.mismatch, s.n_penalty)
    return np.maximum(low, s.match * C) < INT16_LIMIT


def walk_name(K: int, mode: int) -> str:
    return f"graph_walk<{K}, {int(mode)}>"


def best_name(mode: int) -> str:
    return f"graph_best<{int(mode)}>"


def sections(pred_off: np.ndarray, pred: np.ndarray, least: int) -> np.ndarray:
    """Row bounds (s+1,) int32 of independent sections of at least ``least`` rows (the last may be shorter).

    A point b of the row order can be cut when no row from b on has a
    predecessor before b. Sections are cut greedily at the first such point
    ``least`` rows or more past the section's start.
    """
    n = len(pred_off) - 1
    if n <= 0:
        return np.array([0, max(n, 0)], np.int32)
    npred = np.diff(pred_off)
    lowest = np.arange(n, dtype=np.int64)
    has = npred > 0
    lowest[has] = np.minimum.reduceat(pred.astype(np.int64), pred_off[:-1][has])
    reach = np.minimum.accumulate(lowest[::-1])[::-1]  # the smallest predecessor of any row from b on
    cuts = np.flatnonzero(reach[1:] >= np.arange(1, n)) + 1
    bounds = [0]
    k = int(np.searchsorted(cuts, least))  # a step a section, however many the cut points
    while k < len(cuts):
        bounds.append(int(cuts[k]))
        k = int(np.searchsorted(cuts, cuts[k] + least))
    if n - bounds[-1] < least and len(bounds) > 1:
        bounds.pop()  # a short tail joins the section before
    bounds.append(n)
    return np.array(bounds, np.int32)


class GraphHooks(Hooks):
    """What the GPU scheduler asks of the graph family."""

    @staticmethod
    def allocate(batch: GraphBatch, cfg: AlignConfig) -> GraphAlignments:
        return GraphAlignments.allocate(batch.lengths, cfg.traceback)

    @staticmethod
    def on_gpu(batch: GraphBatch, cfg: AlignConfig) -> np.ndarray:
        lengths = batch.lengths
        n = batch.graph.n_bases
        return (lengths > 0) & (cfg.scoring.score_bound(lengths, n) < INT32_LIMIT)


HOOKS = GraphHooks()


class _HostGraph:
    """A graph's arrays as the kernels take them, on the host: made once a run (``host_graph``), uploaded
    by every device."""

    def __init__(self, graph, section_rows: int):
        codes, pred_off, pred, slot, source, sink, multi = graph_arrays(graph)
        flags = source.astype(np.uint8) | (sink.astype(np.uint8) << 1)
        self.arrays = (codes, pred_off, pred, slot, flags, graph.node.astype(np.int32), multi,
                       *row_records(codes, pred_off, pred, slot, flags))
        self.multi = multi
        self.sec = sections(pred_off, pred, max(section_rows, -(-graph.n_bases // MAX_SECTIONS)))


_host_lock = threading.Lock()


def host_graph(graph, section_rows: int) -> _HostGraph:
    """The host arrays of ``graph`` for ``section_rows``, made by the first device that asks (the others
    wait for them rather than making them again beside it)."""
    with _host_lock:
        made = graph.__dict__.setdefault("_host_graphs", {})
        if section_rows not in made:
            made[section_rows] = _HostGraph(graph, section_rows)
        return made[section_rows]


class _DeviceGraph:
    """A graph's arrays on one device (uploaded once, kept while the engine lives)."""

    def __init__(self, cp, graph, section_rows: int):
        host = host_graph(graph, section_rows)
        self.graph = graph
        self.arrays = tuple(cp.asarray(a) for a in host.arrays)
        self.n = graph.n_bases
        self.n_slots = max(graph.n_slots, 1)
        self.multi = host.multi
        self.sec = cp.asarray(host.sec)
        self.nsec = len(host.sec) - 1
        # the copies went on the stream of the batch that came first, and batches on the other streams read
        # the graph too: it is whole on the device before any of them starts
        cp.cuda.get_current_stream().synchronize()

    def multi_rows_in(self, B: int) -> int:
        """Rows of several predecessors in the walk's worst window (rows b - 31 .. b + B - 1, b a multiple of B)."""
        if not self.n:
            return 1
        b = np.arange(0, self.n + 31, B)
        ends = self.multi[np.minimum(b + B, self.n)]
        return int(max((ends - self.multi[np.clip(b - 31, 0, self.n)]).max(), 1))


def row_records(codes, pred_off, pred, slot, flags) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' per-row record (``meta``, (n, 4) int32) and per-predecessor slot (``eslot``).

    meta[v] = (first predecessor entry, min(predecessors, MANY_PREDS) | flags <<
    12 | (the lone predecessor is v - 1) << 14 | the code's byte-profile
    selector << 16, the row's slot, the lone predecessor's slot or -1);
    eslot[p] = the slot of predecessor entry p, -1 when it is the row just
    before (kernels/graph.cu reads the records a chunk of rows ahead).
    """
    n = len(codes)
    npred = np.diff(pred_off).astype(np.int32)
    owner = np.repeat(np.arange(-1, n - 1, dtype=np.int32), npred)  # each entry's row, less one
    before = pred == owner
    eslot = slot[pred]
    eslot[before] = -1
    lone = npred == 1
    first = pred_off[:-1]
    lone_first = first[lone]
    lone_before = np.zeros(n, np.uint32)
    lone_before[lone] = before[lone_first]
    meta = np.empty((max(n, 1), 4), np.int32)
    meta[:n, 0] = first
    # 32-bit words: the selector (at most 0x4444 | 0x8880) fills the upper half exactly
    y = np.minimum(npred, MANY_PREDS).astype(np.uint32)
    y |= flags.astype(np.uint32) << 12
    y |= lone_before << 14
    y |= (codes.astype(np.uint32) * 0x1111 | 0x8880) << 16
    meta[:n, 1] = y.view(np.int32)
    meta[:n, 2] = slot
    meta[:n, 3] = -1
    meta[:n, 3][lone] = eslot[lone_first]
    return meta.reshape(-1), eslot if len(eslot) else np.full(1, -1, np.int32)


@dataclass
class _DeviceBatch:
    codes: object
    offs: object
    out: object
    room: np.ndarray | None = None
    node_off: object = None
    nodes: object = None
    info: object = None
    run_off: object = None
    run_op: object = None
    run_len: object = None


class CudaGraph(DeviceEngine):
    """Aligns reads against a graph on one device (``device.DeviceEngine``'s job cycle)."""

    def __init__(self, device: int = 0, min_width: int = 1, section_rows: int = SECTION_ROWS, pack16: bool = True,
                 pipeline: bool = True):
        super().__init__(device)
        self.min_width = min_width  # benchmarks: lanes hold at least this many columns
        self.section_rows = section_rows  # tests: shorter sections
        self.pack16 = pack16  # benchmarks and tests: False keeps every read in int32 cells
        # benchmarks and tests: False keeps a read's stripes on one warp. Not on AMD GPUs: the two 32-lane warps
        # of a 64-lane wavefront run in lockstep, so one that waits for the other would wait for ever
        self.pipeline = pipeline and not getattr(self.cp.cuda.runtime, "is_hip", False)
        self._graphs: dict[int, _DeviceGraph] = {}
        with self.cp.cuda.Device(device):
            sms = self.cp.cuda.Device(device).attributes["MultiProcessorCount"]
            total = self.cp.cuda.runtime.getDeviceProperties(device)["totalGlobalMem"]
        self.max_warps = sms * WARPS_PER_SM
        self.checkpoint_bytes, self.walk_bytes = trace_budgets(total)

    def device_graph(self, graph) -> _DeviceGraph:
        dg = self._graphs.get(id(graph))
        if dg is None or dg.graph is not graph:
            self._graphs = {id(graph): _DeviceGraph(self.cp, graph, self.section_rows)}  # one graph a run
            dg = self._graphs[id(graph)]
        return dg

    def upload(self, batch: GraphBatch, out: GraphAlignments, cfg: AlignConfig, staged: list | None):
        cp = self.cp
        codes = upload(cp, batch.codes if len(batch.codes) else np.zeros(1, np.uint8), staged)
        offs = upload(cp, np.asarray(batch.offs, np.int64), staged)
        d = _DeviceBatch(codes, offs, cp.zeros(4 * max(batch.size, 1), np.int32))
        if cfg.traceback:
            d.room = room = path_room(batch, cfg)
            d.node_off = upload(cp, room, staged)
            d.nodes = cp.empty(max(int(room[-1]), 1), np.int32)
            d.info = cp.zeros(4 * max(batch.size, 1), np.int32)
            d.run_off, d.run_op, d.run_len = upload_runs(cp, out.cigar, staged)
        return d

    def launches(self, batch: GraphBatch, cfg: AlignConfig, subset: np.ndarray):
        """(K, reads, pack16) of each launch: reads by width, longest first; with traceback one round of warps
        a launch. pack16: the reads go two a warp in 16-bit cells (``fits16``), side by side in that order."""
        lengths = batch.lengths
        sel = subset[np.argsort(-lengths[subset], kind="stable")]
        ks = np.array([max(width(int(m)), self.min_width) for m in lengths[sel]], np.int64)
        sc = cfg.scoring
        packs = self.pack16 and profile_fits(sc)
        bases = batch.graph.n_bases if cfg.mode_code is Mode.GLOBAL else 0
        for K in WIDTHS:
            part = sel[ks == K]
            if not len(part):
                continue
            small = fits16(sc, lengths[part], K, bases) if packs else np.zeros(len(part), bool)
            for pack, reads in ((True, part[small]), (False, part[~small])):
                if not cfg.traceback:
                    if len(reads):
                        yield K, reads, pack
                    continue
                s = 0
                while s < len(reads):  # longest first: the first read's stripes bound the launch's
                    step = (2 if pack else 1) * self.max_warps
                    stripes = -(-int(lengths[reads[s]]) // (32 * K))
                    if stripes > 1:  # checkpoints every walk_rows steps or more often
                        n, n_slots = batch.graph.n_bases, max(batch.graph.n_slots, 1)
                        per = 4 * stripes * checkpoint_ints(n, n_slots, K, walk_rows(n, stripes))
                        step = min(step, (2 if pack else 1) * max(self.checkpoint_bytes // per, 1))
                    yield K, reads[s:s + step], pack
                    s += step

    @staticmethod
    def block_steps(dg: _DeviceGraph, K: int, sweeps: int, budget: int) -> int:
        """Steps between checkpoints: BLOCK_ROWS, or more where the checkpoints of the launch's ``sweeps`` (a
        read's stripes each) would pass ``budget`` bytes."""
        per = 4 * checkpoint_size(dg.n_slots, K)
        most = max(budget // (per * max(sweeps, 1)), 1)
        return max(BLOCK_ROWS, -(-(-(-(dg.n + 31) // most)) // 32) * 32)

    def queue(self, batch, cfg, subset, out, d, stream, clock) -> Job:
        cp = self.cp
        dg = self.device_graph(batch.graph)
        mode = int(cfg.mode_code)
        sc = cfg.scoring
        clock("prepare")
        for K, reads, pack in self.launches(batch, cfg, subset):
            entries = reads.astype(np.int32)
            if pack:  # two reads an item, -1: none
                entries = np.append(entries, np.int32(-1)) if len(entries) % 2 else entries
            order = cp.asarray(entries)
            units = len(entries) // (2 if pack else 1)  # warps' reads: pairs in 16-bit cells
            items = units * dg.nsec
            stripes = -(-int(batch.lengths[reads].max()) // (32 * K))
            assert stripes == 1 or K == WIDTHS[-1], "reads of several stripes take the widest K"
            pipe = pipeline_stripes(items, stripes, self.max_warps) if self.pipeline else 0
            count = items * max(pipe, 1)  # with the pipeline, a warp a stripe of an item
            warps = min(count, self.max_warps)
            grid = -(-warps // (THREADS // 32))
            warps = grid * (THREADS // 32)
            srow = (K + 1) * 32
            ws_stride = dg.n_slots * 2 * srow
            ws = cp.empty(warps * ws_stride, np.int32)
            if pipe:  # the links, counters zeroed
                border_stride = LINK_INTS
                border = cp.zeros(items * pipe * LINK_INTS, np.int32)
            else:  # a warp's two borders
                border_stride = 4 * dg.n if stripes > 1 else 0
                border = cp.empty(max(warps * border_stride, 1), np.int32)
            trace = cfg.traceback
            # budgets: the device's share for reads of several stripes, the floors for the others
            cp_bytes, walk_bytes = (self.checkpoint_bytes, self.walk_bytes) if stripes > 1 else trace_budgets(0)
            B = self.block_steps(dg, K, units * stripes, cp_bytes) if trace else BLOCK_ROWS
            cp_stride = stripes * checkpoint_ints(dg.n, dg.n_slots, K, B) if trace else 0
            cps = cp.empty(max(units * cp_stride, 1), np.int32)
            score = (score16_name if pack else score_name)(K, mode, trace, pipe > 0)
            names = (score, best_name(mode)) + ((walk_name(K, mode),) if trace else ())
            mod = module(KERNEL, names, self.device)
            ends = cp.empty(3 * len(entries) * dg.nsec * max(pipe, 1), np.int32)  # an end cell a stripe: pipe
            sweep = ScoreArgs(**GraphReads.of(dg, d, order, count, cp.zeros(1, np.int32), sc), ws_all=ws,
                              ws_stride=np.int64(ws_stride), border_all=border, border_stride=np.int64(border_stride),
                              cp_all=cps, cp_stride=np.int64(cp_stride), B=np.int32(B), ends=ends, pipe=np.int32(pipe))
            mod.get_function(score)((grid,), (THREADS,), sweep.values())
            mod.get_function(best_name(mode))(
                (-(-len(entries) // BEST_THREADS),), (BEST_THREADS,),
                BestArgs(ends=ends, nsec=np.int32(dg.nsec * max(pipe, 1)), roff=d.offs, order=order,
                         count=np.int32(len(entries)), oe=np.int32(sc.gap_open + sc.gap_extend),
                         ge=np.int32(sc.gap_extend), out=d.out).values())
            if trace:
                # the walk: as many warps as their direction bytes and windows allow
                codes_stride = (B + 32) * srow
                args_stride = 2 * dg.multi_rows_in(B) * srow
                win_stride = 6 * (B + 64) if stripes > 1 else 0
                per_warp = codes_stride + 2 * args_stride + 4 * win_stride
                wgrid = max(1, min(grid, walk_bytes // (per_warp * (THREADS // 32))))
                codes = cp.empty(wgrid * (THREADS // 32) * codes_stride, np.uint8)
                args = cp.empty(wgrid * (THREADS // 32) * args_stride, np.uint16)
                wins = cp.empty(max(wgrid * (THREADS // 32) * win_stride, 1), np.int32)
                walk = WalkArgs(**GraphReads.of(dg, d, order, len(entries), cp.zeros(1, np.int32), sc), ws_all=ws,
                                ws_stride=np.int64(ws_stride), cp_all=cps, cp_stride=np.int64(cp_stride),
                                B=np.int32(B), win_all=wins, codes_all=codes, codes_stride=np.int64(codes_stride),
                                args_all=args, args_stride=np.int64(args_stride), out=d.out, run_off=d.run_off,
                                run_op=d.run_op, run_len=d.run_len, node_off=d.node_off, nodes=d.nodes, info=d.info,
                                packed=np.int32(pack))
                mod.get_function(walk_name(K, mode))((wgrid,), (THREADS,), walk.values())
        host = {"out": copy_back(d.out, (max(batch.size, 1), 4), stream)}
        if cfg.traceback:
            host["info"] = copy_back(d.info, (max(batch.size, 1), 4), stream)
            host["nodes"] = copy_back(d.nodes, (len(d.nodes),), stream)
        clock("kernels")
        return Job(batch, cfg, subset, out, d, stream, host)

    def results(self, job: Job, clock, whole: bool):
        batch, cfg, subset, out = job.batch, job.cfg, job.subset, job.out
        o = job.host["out"][subset].astype(np.int64)
        res = np.zeros((len(subset), 8), np.int64)
        res[:, 0] = o[:, 0]
        res[:, 2] = o[:, 2]
        res[:, 4] = o[:, 1]
        res[:, 1] = 0 if cfg.mode_code is not Mode.LOCAL else -1
        res[:, 3] = -1
        long_paths = {}
        d = job.d
        room, nodes = d.room, job.host.get("nodes")
        if cfg.traceback:
            info = job.host["info"][subset].astype(np.int64)
            res[:, 1] = np.where(o[:, 1] >= 0, info[:, 0], 0)
            res[:, 3] = info[:, 1]
            res[:, 5] = info[:, 2]
            res[:, 6] = info[:, 3]
            res[:, 7] = info[:, 3] > room[subset + 1] - room[subset]
            empty = o[:, 1] < 0
            res[empty, 2] = 0
            out.cigar.count[subset] = res[:, 5]
            fetch_runs(self.cp, out.cigar, d.run_off, d.run_op, d.run_len, subset, whole)
            if res[:, 7].any():
                long_paths = realign(batch, subset, res, cfg, out.cigar)
        fill_results(out, res, room, nodes, long_paths, batch.graph, idx=subset)


def compile_checks() -> dict[str, tuple[str, ...]]:
    """The variants ``seqalign info`` and the build check compile (backends/cuda/variants.py): every width and
    mode, score only and traceback (the stripe pipeline: the widest)."""
    flags = (False, True)
    return {KERNEL: tuple(score_name(k, m, t) for k in WIDTHS for m in MODES for t in flags)
            + tuple(score16_name(k, m, t) for k in WIDTHS for m in MODES for t in flags)
            + tuple(f(WIDTHS[-1], m, t, True) for f in (score_name, score16_name) for m in MODES for t in flags)
            + tuple(walk_name(k, m) for k in WIDTHS for m in MODES) + tuple(best_name(m) for m in MODES)}
