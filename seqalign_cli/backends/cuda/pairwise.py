"""Pairwise alignment on the GPU: the device copy of a batch and the kernel dispatch.

Per batch: codes and offsets go to the device once. Each pair gets a kernel
shape from the plan of the subwarp kernels (pairwise_subwarp.py: G lanes
of R rows, 16-bit lanes two pairs a group where scores allow); the pairs of a shape run together, largest first,
in slices whose direction codes fit in ``DIRS_BYTES``; the traceback
kernel writes CIGAR runs in the same slots the CPU engine uses, so no
per-pair host loop is needed. ``submit`` queues a whole batch on a stream
of its own (pinned uploads, kernels, the copy back of results) and returns
at once; ``collect`` waits for it and brings back only the runs in use. ``kernel="warp"`` runs the warp kernel
instead (pairwise_warp.py), for comparison.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...batching import PairBatch
from ...config import AlignConfig
from ...results import Alignments
from . import pairwise_subwarp as subwarp
from . import pairwise_warp as warp
from .launch import profile_fits

#: int32 lanes hold every score whose bound stays below this
INT32_LIMIT = 2**29
#: direction codes held on the device at once
DIRS_BYTES = 2 * 1024**3
#: streams an engine takes turns on: batches submitted and not yet collected overlap
STREAMS = 3


def planned_dir_words(qlen: np.ndarray, tlen: np.ndarray, kernel: str = "subwarp") -> np.ndarray:
    """uint32 words of direction codes each pair needs under the kernel plan (the larger layout)."""
    if kernel == "warp":
        return warp.dir_words(qlen, tlen, warp.rows_per_lane(qlen))
    G, R = subwarp.plan_shapes(qlen, tlen)
    return subwarp.dir_words(qlen, tlen, G, R, planes=True)


def traceback_routes(qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs trace back with all their direction codes at once, and which by checkpoints.

    All at once when the codes fit the per-pair budget (``matrix_budget``);
    by checkpoints (pairwise_subwarp.Checkpointed) when the query spans
    several stages, the subwarp kernels can score the pair and its
    checkpoint memory fits in DIRS_BYTES. Pairs in neither go to the CPU.
    """
    kernel = "subwarp" if profile_fits(cfg.scoring) else "warp"
    full = planned_dir_words(qlen, tlen, kernel) * 4 <= cfg.matrix_budget
    rows = subwarp.LONG[0] * subwarp.LONG[1]
    ckpt = (~full & (qlen > rows) & (subwarp.checkpoint_bytes(qlen, tlen) <= DIRS_BYTES)
            if kernel == "subwarp" else np.zeros(len(qlen), bool))
    return full, ckpt


def _spread(values: np.ndarray, subset: np.ndarray, size: int) -> np.ndarray:
    """Per-pair array of ``size`` holding ``values`` at the pairs ``subset`` (1 elsewhere)."""
    full = np.ones(size, np.int64)
    full[subset] = values
    return full


def fitting_parts(sel: np.ndarray, nbytes: np.ndarray, limit: int = DIRS_BYTES) -> list[np.ndarray]:
    """Consecutive parts of ``sel`` whose ``nbytes`` add up to ``limit`` at most (a pair alone may exceed it)."""
    cum = np.cumsum(nbytes[sel])
    parts, start = [], 0
    while start < len(sel):
        base = cum[start - 1] if start else 0
        end = max(start + 1, int(np.searchsorted(cum, base + limit, side="right")))
        parts.append(sel[start:end])
        start = end
    return parts


def run_slots(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Indices of the run slots starts[k] .. starts[k]+counts[k]-1 of every pair."""
    total = int(counts.sum())
    first = np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + (np.arange(total) - first)


def _offsets(sizes: np.ndarray) -> np.ndarray:
    off = np.zeros(len(sizes), np.int64)
    if len(sizes) > 1:
        np.cumsum(sizes[:-1], out=off[1:])
    return off


class _Clock:
    """Adds the time since the last call to ``seconds[step]``."""

    def __init__(self, seconds: dict):
        self.seconds = seconds
        self.last = time.perf_counter()

    def __call__(self, step: str):
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - self.last
        self.last = now


@dataclass
class _DeviceBatch:
    """A batch's inputs and outputs on the device."""

    q: object
    qoff: object
    t: object
    toff: object
    ends: object
    run_off: object = None
    run_op: object = None
    run_len: object = None
    info: object = None


@dataclass
class _Job:
    """Work of one batch queued on a stream: what ``collect`` needs to finish it."""

    batch: PairBatch
    cfg: AlignConfig
    subset: np.ndarray
    out: Alignments
    d: _DeviceBatch
    stream: object
    ends: np.ndarray  # (pairs, 3) pinned: score, query end, target end
    info: np.ndarray | None = None  # (pairs, 7) pinned: starts, run count, statistics
    staged: list | None = None  # pinned upload buffers, kept until the stream has read them


def pinned(shape, dtype) -> np.ndarray:
    """A host array in page-locked memory (CuPy's pinned pool), for copies that do not wait."""
    import cupy

    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    mem = cupy.cuda.alloc_pinned_memory(max(count, 1) * dtype.itemsize)
    return np.frombuffer(mem, dtype, count).reshape(shape)


def _compact_runs(cp, job: _Job):
    """Bring back only the run slots in use, and point ``out`` at them.

    Pairs of the job get room for exactly their runs; every other pair (left
    to the CPU engine) keeps its full room. One gather on the device packs
    the runs, one copy brings them back; ``out.run_off``, ``run_op`` and
    ``run_len`` are replaced by the packed layout.
    """
    out, d = job.out, job.d
    room = np.diff(np.append(out.run_off, len(out.run_op)))
    room[job.subset] = out.nruns[job.subset]
    off = np.zeros(len(room), np.int64)
    np.cumsum(room[:-1], out=off[1:])
    total = int(off[-1] + room[-1]) if len(room) else 0
    if total:
        d_off = cp.asarray(off)
        slot = cp.arange(total, dtype=np.int64)
        pair = cp.searchsorted(d_off, slot, side="right") - 1
        src = d.run_off[pair] + (slot - d_off[pair])
        op, length = cp.asnumpy(d.run_op[src]), cp.asnumpy(d.run_len[src])
    else:
        op, length = np.empty(1, np.uint8), np.empty(1, np.int32)
    out.run_off, out.run_op, out.run_len = off, op, length


class CudaPairwise:
    """Runs the pairwise kernels for batches on one device."""

    def __init__(self, device: int = 0, kernel: str = "subwarp", pack16: bool = True):
        import cupy

        self.cp = cupy
        self.device = device
        self.kernel = kernel  # "subwarp" (the plan) or "warp"
        self.pack16 = pack16  # 16-bit lanes where scores allow
        self.shape = None  # a fixed (G, R) for every pair instead of the plan (benchmarks)
        self._held = None  # (batch, out, device arrays) of the batch on the device
        self._streams = None  # created on first use, on the engine's device
        self._turn = 0
        self.seconds: dict[str, float] = {}  # host time by step (upload, prepare, kernels, results)

    def release(self):
        """Drop the device copy of the last batch."""
        self._held = None

    def _stream(self):
        """The next of the engine's streams (batches in flight take turns)."""
        if self._streams is None:
            self._streams = [self.cp.cuda.Stream(non_blocking=True) for _ in range(STREAMS)]
        self._turn = (self._turn + 1) % STREAMS
        return self._streams[self._turn]

    def _upload(self, batch: PairBatch, out: Alignments, trace: bool, staged: list | None = None) -> _DeviceBatch:
        """The batch's device copy, queued on the current stream.

        With ``staged`` (a list that keeps the staging buffers alive until
        the stream has copied them) the host arrays go through pinned
        buffers and the copies do not wait; without it they are plain
        synchronous copies.
        """
        cp = self.cp
        one = np.zeros(1, np.uint8)

        def put(host, pad16=False):
            # pad16: the sequences, padded to a multiple of 16 bytes (the walk reads 16-byte pieces)
            size = -(-len(host) // 16) * 16 if pad16 else len(host)
            if staged is None:
                dev = cp.empty(size, host.dtype)
                dev[:len(host)].set(host)
                return dev
            buf = pinned((size,), host.dtype)
            np.copyto(buf[:len(host)], host)
            staged.append(buf)
            dev = cp.empty(size, host.dtype)
            dev.set(buf, stream=cp.cuda.get_current_stream())
            return dev

        d = _DeviceBatch(
            q=put(batch.q_codes if len(batch.q_codes) else one, pad16=True),
            qoff=put(batch.q_off.astype(np.int64)),
            t=put(batch.t_codes if len(batch.t_codes) else one, pad16=True),
            toff=put(batch.t_off.astype(np.int64)),
            ends=cp.zeros(3 * batch.size, np.int32),
        )
        if trace:
            d.run_off = put(out.run_off)
            # slots past a pair's run count are never read: left uncleared
            d.run_op = cp.empty(len(out.run_op), np.uint8)
            d.run_len = cp.empty(len(out.run_len), np.int32)
            d.info = cp.zeros(7 * batch.size, np.int32)
        return d

    def align(self, batch: PairBatch, cfg: AlignConfig, subset: np.ndarray, out: Alignments):
        """Align the pairs ``subset`` of ``batch`` into ``out`` (indexed by pair).

        Only the pairs of ``subset`` (and their run slots) are written, so
        several devices can fill one ``out``; a subset that is the whole
        batch gets the packed run layout of ``collect``. The batch is
        uploaded once and kept while later calls bring more subsets of the
        same batch.
        """
        cp = self.cp
        clock = _Clock(self.seconds)
        with cp.cuda.Device(self.device):
            if self._held is None or self._held[0] is not batch or self._held[1] is not out:
                self._held = (batch, out, self._upload(batch, out, cfg.traceback))
            job = self._queue(batch, cfg, subset, out, self._held[2], cp.cuda.get_current_stream(), clock)
            self._results(job, clock, whole=len(subset) == batch.size)

    def submit(self, batch: PairBatch, cfg: AlignConfig, subset: np.ndarray, out: Alignments) -> _Job:
        """Queue the whole work of the pairs ``subset`` on a stream of its own and return at once.

        Upload through pinned buffers, kernels, and the copy back of scores
        and traceback summaries are queued; ``collect`` waits for them and
        fills ``out``. The host work of the next batch (reading, planning,
        uploading) overlaps this batch's kernels. ``out``'s run slots are
        laid out anew by ``collect`` (see ``_compact_runs``): pairs outside
        ``subset`` keep room for their runs but not their contents.
        """
        cp = self.cp
        clock = _Clock(self.seconds)
        with cp.cuda.Device(self.device):
            stream = self._stream()
            with stream:
                staged: list = []
                d = self._upload(batch, out, cfg.traceback, staged)
                clock("upload")
                job = self._queue(batch, cfg, subset, out, d, stream, clock)
                job.staged = staged
        return job

    def collect(self, job: _Job):
        """Wait for a submitted job and fill its ``out``."""
        clock = _Clock(self.seconds)
        with self.cp.cuda.Device(self.device), job.stream:
            self._results(job, clock, whole=True)

    def _queue(self, batch, cfg, subset, out, d, stream, clock) -> _Job:
        """Plan and queue the kernels of ``subset``, then the copy back of ends and summaries."""
        qlen = batch.qlen.astype(np.int64)
        tlen = batch.tlen.astype(np.int64)
        launches = self.prepare(qlen, tlen, cfg, subset, d)
        clock("prepare")
        for launch in launches:
            launch.run(self.cp)
        job = _Job(batch, cfg, subset, out, d, stream, pinned((batch.size, 3), np.int32))
        d.ends.get(stream=stream, out=job.ends.reshape(-1), blocking=False)
        if cfg.traceback:
            job.info = pinned((batch.size, 7), np.int32)
            d.info.get(stream=stream, out=job.info.reshape(-1), blocking=False)
        clock("kernels")
        return job

    def _results(self, job: _Job, clock, whole: bool):
        """Wait for a job and fill ``out``: ends, summaries and CIGAR runs.

        ``whole``: no other engine writes ``out``, so its runs may be laid out anew.
        """
        cp, out, subset, d = self.cp, job.out, job.subset, job.d
        job.stream.synchronize()
        clock("wait")
        ends = job.ends
        out.score[subset] = ends[subset, 0]
        out.qend[subset] = ends[subset, 1]
        out.tend[subset] = ends[subset, 2]
        if job.cfg.traceback:
            info = job.info
            out.qstart[subset] = info[subset, 0]
            out.tstart[subset] = info[subset, 1]
            out.nruns[subset] = info[subset, 2]
            out.stats[subset] = info[subset, 3:7]
            if whole:  # out is this job's alone: lay its runs out anew, only the slots in use come back
                _compact_runs(cp, job)
            else:  # a piece: only its own slots, so that other devices' stay untouched
                slots = run_slots(out.run_off[subset], out.nruns[subset])
                d_slots = cp.asarray(slots)
                out.run_op[slots] = cp.asnumpy(d.run_op[d_slots])
                out.run_len[slots] = cp.asnumpy(d.run_len[d_slots])
        else:
            out.qstart[subset] = 0 if job.cfg.mode_code in (0, 2) else -1
            out.tstart[subset] = 0 if job.cfg.mode_code == 0 else -1
        clock("results")

    def run_kernels(self, qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, subset: np.ndarray,
                    d: _DeviceBatch):
        """Prepare and queue the kernels of the pairs ``subset`` (asynchronous)."""
        for launch in self.prepare(qlen, tlen, cfg, subset, d):
            launch.run(self.cp)

    def prepare(self, qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, subset: np.ndarray,
                d: _DeviceBatch) -> list:
        """The kernel launches of every shape over the pairs ``subset``, inputs uploaded."""
        sc = cfg.scoring
        kernel = self.kernel if profile_fits(sc) else "warp"
        launches = []
        # the checkpointed route takes only queries of several whole-warp stages
        if cfg.traceback and (qlen[subset] > subwarp.LONG[0] * subwarp.LONG[1]).any():
            full, ckpt = traceback_routes(qlen, tlen, cfg)
            long = subset[ckpt[subset] & ~full[subset]]
            if len(long):
                subset = subset[~ckpt[subset] | full[subset]]
                launches += self._checkpointed(qlen, tlen, cfg, long, d)
        if kernel == "warp":
            G = np.full(len(qlen), warp.WARP, np.int64)
            R = warp.rows_per_lane(qlen)
            words = warp.dir_words(qlen, tlen, R)
            pack = np.zeros(len(qlen), bool)
        else:
            if self.shape is None:
                G, R = subwarp.plan_shapes(qlen[subset], tlen[subset])
                G, R = _spread(G, subset, len(qlen)), _spread(R, subset, len(qlen))
            else:
                G, R = (np.full(len(qlen), v, np.int64) for v in self.shape)
            pack = subwarp.fits16(sc, qlen, tlen) if self.pack16 else np.zeros(len(qlen), bool)
            words = subwarp.dir_words(qlen, tlen, G, R, pack)
        key = (G * 64 + R) * 2 + pack
        work = []  # (part, shape, pack) of each launch
        for k in np.unique(key[subset]):
            sel = subset[key[subset] == k]
            # largest first: long groups start early, short ones fill in behind
            sel = sel[np.argsort(-(qlen[sel] * tlen[sel]), kind="stable")]
            work += [(part, int(G[sel[0]]), int(R[sel[0]]), bool(pack[sel[0]]))
                     for part in self._slices(sel, words, cfg.traceback)]
        d_dir_off = None
        if cfg.traceback and work:
            # each pair's codes from the start of its own launch's buffer: one array for all launches
            dir_off = np.zeros(len(words), np.int64)
            for part, *_ in work:
                dir_off[part] = _offsets(words[part])
            d_dir_off = self.cp.asarray(dir_off)
        for part, g, r, p in work:
            total = int(words[part].sum()) if cfg.traceback else 0
            if kernel == "warp":
                launches.append(warp.prepare(self.cp, self.device, d, qlen, tlen, part, r, cfg, total, d_dir_off))
            else:
                launches += subwarp.prepare(self.cp, self.device, d, qlen, tlen, part, g, r, p, cfg, total, d_dir_off,
                                            self.pack16)
        return launches

    def _checkpointed(self, qlen, tlen, cfg, long: np.ndarray, d) -> list:
        """Checkpointed tracebacks of the pairs ``long``, in parts whose memory fits DIRS_BYTES."""
        long = long[np.argsort(-(qlen[long] * tlen[long]), kind="stable")]
        cost = subwarp.checkpoint_bytes(qlen, tlen)
        return [subwarp.Checkpointed(self.cp, self.device, d, qlen, tlen, part, cfg)
                for part in fitting_parts(long, cost)]

    @staticmethod
    def _slices(sel: np.ndarray, words: np.ndarray, trace: bool):
        """Consecutive parts of ``sel`` whose direction codes fit in DIRS_BYTES."""
        return fitting_parts(sel, words * 4) if trace else [sel]
