"""The GPU scheduler (the cuda backend) of every family: batches on one or more GPUs, the CPU engine beside them.

It knows records, cells and results only through the family's pieces:

* ``engines``: the family's engine on each device (``device.DeviceEngine``:
  ``submit``/``collect`` for the stream pipeline of each GPU, ``align`` for
  the halves of a batch after an out-of-memory error, ``release``);
* ``cpu``: the family's CPU engine (``align(batch, cfg)``);
* ``hooks``: ``on_gpu(batch, cfg)``, the records a GPU can hold exactly (the
  family's routing), ``allocate(batch, cfg)``, an empty result, and
  optionally ``cpu_note(batch, cfg, idx)``, the line said once on stderr
  when records ``idx`` go to the CPU engine;
* the batch: ``size``, ``subset(idx)``, ``cells_each()``; the result:
  ``take(idx, other)`` and ``finish(cfg)``.

Records a GPU cannot hold are aligned by the CPU engine inside the same
batch, so results are the same whatever the route.

Out of memory on a device halves the batch and continues: the engine drops
its copy of the batch, CuPy's pools are emptied and each half of the records
(of similar cell counts) is aligned in turn as a batch of its own, halved
again while it does not fit; a single record that does not fit goes to the
CPU engine. Results are written by record index, so they are the same
whatever the split.
"""

from __future__ import annotations

import queue
import sys
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import device_name, is_out_of_memory


def split_by_cells(idx: np.ndarray, cells: np.ndarray, pieces: int) -> list[np.ndarray]:
    """Records ``idx`` cut into about ``pieces`` parts of similar cell counts, largest records first."""
    idx = idx[np.argsort(-cells[idx], kind="stable")]
    cum = np.cumsum(cells[idx])
    cuts = np.searchsorted(cum, np.linspace(0, cum[-1], pieces + 1)[1:-1], side="right")
    return [p for p in np.split(idx, np.unique(cuts)) if len(p)]


def halves(idx: np.ndarray, cells: np.ndarray) -> list[np.ndarray]:
    """``idx`` (two records or more) in two parts of similar cell counts.

    The largest record goes alone when it outweighs all the others; records of
    no cells are halved by count.
    """
    parts = split_by_cells(idx, cells, 2)
    if len(parts) == 2:
        return parts
    cut = 1 if cells[parts[0][0]] else len(idx) // 2
    return [parts[0][:cut], parts[0][cut:]]


def _stderr(message: str):
    print(f"seqalign: {message}", file=sys.stderr)


_said_lock = threading.Lock()


class GpuScheduler:
    """Aligns batches on one or more GPUs, with the CPU engine for what a GPU cannot hold.

    With one GPU, ``start`` queues the batch on the engine's streams in the
    calling thread. With several, each GPU has a pipeline of its own
    (``_Lanes``: a thread that takes work from the scheduler's queue whenever
    its GPU has room for more, prepares and queues it, and a thread that
    collects it), so the host work of the GPUs runs side by side. A batch
    is one piece of that queue; a batch of more than ``split_cells`` cells
    is cut into up to ``pieces_per_gpu`` pieces a GPU, of similar cell counts, the
    largest records first (dynamic partitioning: a GPU that finishes early
    takes the next piece, however long its pieces took; pieces handed out
    ahead by cell count assume every cell costs the same, which routes of
    different speeds a cell break). A smaller batch goes whole, unless a
    GPU has nothing to do when another takes it (the run's first batch, or
    few batches): then the taker cuts it with the idle GPUs
    (``share_when_idle``). A family whose engine overlaps a batch's
    launches of different sizes (pairs) raises the cut with
    ``hooks.whole_cells``: a piece holds one range of sizes. Results land
    in input order.

    A batch of fewer than ``spread_cells`` cells a record on average takes
    the one-GPU path on the first GPU: its host work (reading, planning,
    formatting) outweighs its kernels many times, and more pipelines only
    compete with it for the interpreter. Measured on two H200s, 1,000,000
    and 10,000,000 GASAL2 pairs (36,000 cells a pair) ran 0.87-0.94x as
    fast through both GPUs' pipelines as on one GPU.

    A piece that runs out of device memory is aligned in halves by the
    engine that took it (see the module's docstring); ``log`` says so once.

    With a progress bar (``progress``), a batch of many cells goes to the
    pipelines in pieces even on one GPU (``progress_cells``), each counted in
    ``partial`` as it ends, so that the bar moves within the batch.
    """

    name = "cuda"
    #: the output file written by a thread of its own (``writers/background.py``): the host path sets a GPU
    #: run's pace, and the writing thread formats the next chunk meanwhile
    write_behind = True
    _said_oom = False
    _said_cpu = False
    #: a batch of more cells than this (and than the family's ``hooks.whole_cells``, if it has one) is
    #: shared by several GPUs (pieces); smaller ones go whole to one
    split_cells = 8 * 10**9
    #: pieces a GPU of a batch over ``split_cells``, each of at least ``split_cells / 2`` cells and
    #: ``piece_records`` records (two pieces at least, however few its records): smaller launches
    #: leave a GPU's groups idle, and the queue balances the GPUs over the batches. Measured on two H200
    #: (benchmarks/decisions/several_gpus_pieces.md): 10,000 reads of 150 bp on a 5 Mbp graph ran at 1.34x
    #: one GPU in 8 pieces of 1,250 reads, 1.58x in 2 of 5,000; 480,000 pairs of 16 bp-20 kb at 1.67-1.69x in
    #: 2 pieces a batch, 1.55-1.58x in 4; 1,000,000 triplets of 8-1,024 bp alike in 2 and 4 (1.98-2.00x).
    pieces_per_gpu = 1
    #: a GPU that takes a piece of two records or more while another GPU has none in flight and none
    #: is queued cuts the piece with the idle GPUs
    share_when_idle = True
    #: batches in flight a GPU (the runner's ``depth``: that many wait for the writer beside the one it
    #: writes and the one being begun). With several GPUs, results are written in input order, so a GPU
    #: that is done with its batches waits for new ones while the oldest batch is still on another GPU.
    #: 3 and 4 measured within the runs' spread of 2 on two H200 (the pair mix, whole batches;
    #: benchmarks/decisions/several_gpus_whole_batches.md)
    batches_per_gpu = 2
    piece_records = 4096
    #: cells a record on average from which a batch goes to the GPUs' pipelines (see the class docstring)
    spread_cells = 1 << 20
    #: with a progress bar shown (``progress``), a batch of more cells than this (about a second of a GPU's
    #: work, and many times the host work of its records) goes to the GPUs' pipelines in pieces of about as
    #: many cells, at most ``progress_pieces`` a GPU, so that the bar moves as each piece ends (``partial``;
    #: benchmarks/decisions/progress_pieces.md)
    progress_cells = 10**12
    progress_pieces = 16

    def __init__(self, engines: list, cpu, hooks, log: Callable[[str], None] | None = None,
                 device: str | None = None, progress: bool = False):
        self.engines = list(engines)
        self.progress = progress
        self.cpu = cpu
        self.hooks = hooks
        self.threads = cpu.threads
        for engine in self.engines:
            engine.threads = self.threads
        self.log = log or _stderr
        #: batches in flight the runner may hand over before the first is written
        self.depth = self.batches_per_gpu * len(self.engines)
        #: records of the batches under way already aligned: the pieces that ended, until their batch's
        #: results are handed over (the progress bar adds them to the records written)
        self.partial = 0
        self._partial_lock = threading.Lock()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()  # pieces for the GPUs' pipelines
        self._lanes: list[_Lanes] = []  # made with the first piece
        self._submitting = {id(e): threading.Lock() for e in self.engines}  # one submit at a time an engine
        if device is None:
            devices = [e.device for e in self.engines]
            names = {device_name(dev) for dev in devices}
            device = (f"GPU {devices[0]}: {names.pop()}" if len(devices) == 1
                      else f"GPUs {','.join(map(str, devices))}: {', '.join(sorted(names))}")
        self.device = device

    def steps(self) -> dict:
        """Host time of the aligning stage by step, summed over the engines (for the summary)."""
        total: dict[str, float] = {}
        for engine in self.engines:
            for step, secs in engine.seconds.items():
                total[step] = total.get(step, 0.0) + secs
        return total

    def align(self, batch, cfg):
        return self.start(batch, cfg).result()

    def plan_ahead(self, batch, cfg):
        """The host work of ``batch`` that needs no device, done before ``start`` by the reading thread (the
        family's ``hooks.plan_ahead``), so that the aligning thread mostly uploads and launches."""
        self.hooks.plan_ahead(batch, cfg)

    def start(self, batch, cfg) -> "Pending":
        """Begin aligning ``batch``; ``result()`` of the returned object finishes it.

        The batch's GPU work is queued (on the one GPU's streams, or handed to
        the GPUs' pipelines) and this returns once the CPU engine has aligned
        what no GPU can hold, so the caller can prepare the next batch
        meanwhile. After the one GPU ran out of memory, the batch is aligned
        before this returns.
        """
        out = self.hooks.allocate(batch, cfg)
        on_gpu = self.hooks.on_gpu(batch, cfg)
        gpu_idx = np.flatnonzero(on_gpu)
        cpu_idx = np.flatnonzero(~on_gpu)
        job, pieces = None, []
        spilled = gpu_idx[:0]
        counted = self._counted_pieces(batch, gpu_idx)
        if counted > 1:
            pieces = self._queue_pieces(self._cut(batch, cfg, gpu_idx, counted))
        elif len(gpu_idx) and (len(self.engines) == 1 or not self._spread(batch, gpu_idx)):
            job, spilled = self._submit(self.engines[0], batch, cfg, gpu_idx, out)
        elif len(gpu_idx):
            pieces = self._deal(batch, cfg, gpu_idx, out)
        if len(cpu_idx) and not self._said_cpu:
            self._note_cpu(batch, cfg, cpu_idx)
        cpu_idx = np.sort(np.concatenate([cpu_idx, spilled]))
        cpu_res = self.cpu.align(batch.subset(cpu_idx), cfg) if len(cpu_idx) else None  # while the GPU works
        return Pending(self, batch, out, job, pieces, cpu_idx, cpu_res, cfg)

    def _note_cpu(self, batch, cfg, idx):
        """Say once a run why records of a GPU run go to the CPU engine, where the family says
        (``hooks.cpu_note``: ``protocols.Hooks``, None by default)."""
        text = self.hooks.cpu_note(batch, cfg, idx)
        if text:
            self._said_cpu = True
            self.log(text)

    def _spread(self, batch, idx) -> bool:
        """Whether the records ``idx`` hold enough cells a record to go to the GPUs' pipelines."""
        return int(batch.cells_each()[idx].sum()) >= self.spread_cells * len(idx)

    def _counted_pieces(self, batch, idx) -> int:
        """The pieces the records ``idx`` go in so that a progress bar moves within their batch (0: none)."""
        if not self.progress or len(idx) < 2:
            return 0
        cells = int(batch.cells_each()[idx].sum())
        return min(cells // self.progress_cells, self.progress_pieces * len(self.engines), len(idx))

    def count(self, records: int):
        """``records`` more aligned (a piece ended), or, negative, handed over with their batch's results."""
        with self._partial_lock:
            self.partial += records

    def _queue_pieces(self, pieces: list["_Piece"]) -> list["_Piece"]:
        if not self._lanes:
            self._lanes = [_Lanes(e, self) for e in self.engines]
        for piece in pieces:
            self._queue.put(piece)
        return pieces

    def _deal(self, batch, cfg, idx, out) -> list["_Piece"]:
        """Queue the records ``idx`` for the GPUs' pipelines: whole, or in pieces when they hold many cells."""
        cells = batch.cells_each()
        total = int(cells[idx].sum())
        if total <= max(self.split_cells, self.hooks.whole_cells) or len(idx) < 2:
            pieces = [_Piece(batch, cfg, idx, out, None)]
        else:
            count = max(2, min(self.pieces_per_gpu * len(self.engines), 2 * total // max(self.split_cells, 1),
                               len(idx) // max(self.piece_records, 1)))
            pieces = self._cut(batch, cfg, idx, count)
        return self._queue_pieces(pieces)

    def _cut(self, batch, cfg, idx, count: int) -> list["_Piece"]:
        """The records ``idx`` of ``batch`` in about ``count`` pieces of similar cells, each a batch of its
        own (a GPU uploads only its pieces)."""
        pieces = []
        for part_idx in split_by_cells(idx, batch.cells_each(), count):
            part = batch.subset(part_idx)
            pieces.append(_Piece(part, cfg, np.arange(len(part_idx)), self.hooks.allocate(part, cfg), part_idx))
        return pieces

    def _share(self, piece: "_Piece", taker: "_Lanes") -> "_Piece":
        """The part of ``piece`` that ``taker`` aligns: the piece itself, or, when GPUs are idle with
        nothing queued for them (``share_when_idle``), its first part after the others were queued for
        them (``piece.parts``; ``piece.done`` is then set at once, its parts' results are gathered by
        ``Pending.result``)."""
        idle = sum(lane.idle() for lane in self._lanes if lane is not taker) - self._queue.qsize()
        if not self.share_when_idle or idle <= 0 or len(piece.idx) < 2:
            return piece
        parts = self._cut(piece.batch, piece.cfg, piece.idx, idle + 1)
        if len(parts) < 2:
            return piece
        piece.parts = parts
        for part in parts[1:]:
            self._queue.put(part)
        piece.done.set_result(piece.idx[:0])
        return parts[0]

    def _submit(self, engine, batch, cfg, idx, out):
        """Queue the records ``idx`` on ``engine``: (job, no records spilled), or (None, spilled) when
        the device ran out of memory and the records were aligned in halves instead."""
        with self._submitting[id(engine)]:  # the first GPU takes batches from the calling thread and its pipeline
            try:
                return engine.submit(batch, cfg, idx, out), idx[:0]
            except Exception as exc:
                if not is_out_of_memory(exc):
                    engine.release()
                    raise
            spilled: list[np.ndarray] = []
            try:
                self._fit(engine, batch, cfg, idx, out, spilled, tried=True)
            finally:
                engine.release()
            return None, (np.concatenate(spilled) if spilled else idx[:0])

    def _fit(self, engine, batch, cfg, idx, out, spilled: list, where=None, tried=False):
        """Align the records ``idx`` of ``batch`` on ``engine``, in halves while they do not fit.

        Each half goes to the device as a batch of its own, so that the device
        copy of the batch shrinks too. A single record that does not fit is noted
        in ``spilled`` for the CPU engine, by its number in the scheduler's batch
        (``where`` maps the records of ``batch`` to those numbers). ``tried``:
        the whole of ``idx`` already ran out of memory; start with halves.
        """
        if not tried:
            try:
                engine.align(batch, cfg, idx, out)
                return
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
        # out of the except clause: the error no longer holds the frames (and device arrays) it came from
        self._free(engine)
        where = np.arange(batch.size) if where is None else where
        if len(idx) == 1:
            spilled.append(where[idx])
            return
        for half in halves(idx, batch.cells_each()):
            part = batch.subset(half)
            res = self.hooks.allocate(part, cfg)
            try:
                self._fit(engine, part, cfg, np.arange(len(half)), res, spilled, where[half])
            finally:
                engine.release()  # this half's copy goes before the next one is uploaded
            out.take(half, res)  # spilled records included: the CPU engine writes them over

    def _free(self, engine):
        """Drop the engine's device copy and empty CuPy's pools; say so the first time."""
        import cupy

        engine.release()
        with cupy.cuda.Device(engine.device):
            cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
        with _said_lock:
            said, self._said_oom = self._said_oom, True
        if not said:
            self.log(f"GPU {engine.device} out of memory; aligning the batch in halves")


class _Lanes:
    """One GPU's pipeline when there are several.

    Its ``take`` thread waits until the GPU has room (fewer than ``AHEAD``
    of its pieces queued and not collected), takes the next piece of the
    scheduler's queue (shared with idle GPUs, ``GpuScheduler._share``),
    prepares and queues it on the engine (``submit``); its ``fetch`` threads
    (one a piece in flight) collect each piece as soon as it is done and
    complete its ``done``. So a GPU takes work only when it can start on it
    soon, and the GPU that is ahead takes more.

    Pieces are collected as they end, not in the order they were taken: a
    GPU's two pieces run side by side (often the two pieces of one batch),
    and the one that ends first makes room for the next piece while the
    other still runs. Collected in order, the room opened only when both had
    ended, and the GPU sat idle while the host prepared the next piece (two
    H200, benchmarks/decisions/gpu_collect_as_they_end.md).
    """

    #: pieces of one GPU submitted and not yet collected (one running, one ready behind it)
    AHEAD = 2

    def __init__(self, engine, scheduler: GpuScheduler):
        from concurrent.futures import ThreadPoolExecutor

        self.engine = engine
        self.scheduler = scheduler
        self.room = threading.Semaphore(self.AHEAD)
        self.in_flight = 0  # pieces taken and not yet collected
        self._counting = threading.Lock()
        name = f"seqalign-gpu{engine.device}"
        self.fetch = ThreadPoolExecutor(self.AHEAD, thread_name_prefix=f"{name}-fetch")
        threading.Thread(target=self._take, args=(scheduler,), name=f"{name}-prepare", daemon=True).start()

    def idle(self) -> bool:
        """Whether the GPU has nothing to do (no piece taken and not yet collected)."""
        return not self.in_flight

    def _count(self, step: int):
        with self._counting:
            self.in_flight += step

    def _take(self, scheduler: GpuScheduler):
        while True:
            self.room.acquire()
            piece = scheduler._queue.get()
            self._count(1)
            try:
                piece = scheduler._share(piece, self)
                submitted = scheduler._submit(self.engine, piece.batch, piece.cfg, piece.idx, piece.out)
            except BaseException as exc:  # the piece's owner raises it
                self._count(-1)
                if not piece.done.done():
                    piece.done.set_exception(exc)
                self.room.release()
                continue
            self.fetch.submit(self._collect, piece, submitted)

    def _collect(self, piece: "_Piece", submitted):
        """Wait for a piece's job and bring back its results; ``done``: the records spilled to the CPU
        engine (out of memory)."""
        try:
            job, spilled = submitted
            if job is not None:
                self.engine.collect(job)
            self.scheduler.count(len(piece.idx))  # before its batch can hand the records over
            piece.done.set_result(spilled)
        except BaseException as exc:
            piece.done.set_exception(exc)
        finally:
            self._count(-1)
            self.room.release()


@dataclass
class _Piece:
    """Records of a batch for the GPUs' pipelines: the records ``idx`` of ``batch`` aligned into
    ``out``; ``where``: for a piece cut out of a batch, that batch's numbers of its records (None: the
    batch itself); ``done``: a future of the records spilled to the CPU engine; ``parts``: the pieces
    it was cut into when taken, if it was (``GpuScheduler._share``)."""

    batch: object
    cfg: object
    idx: np.ndarray
    out: object
    where: np.ndarray | None
    done: Future = field(default_factory=Future)
    parts: list | None = None

    def gather(self) -> np.ndarray:
        """Wait for the piece (and its parts, brought into ``out``); its records spilled to the CPU
        engine, numbered in ``batch``."""
        lost = [self.done.result()]
        for part in self.parts or ():
            part_lost = part.gather()
            self.out.take(part.where, part.out)
            lost.append(part.where[part_lost])
        return np.concatenate(lost) if len(lost) > 1 else lost[0]


class Pending:
    """A batch begun by ``GpuScheduler.start``; ``result()`` waits for the GPUs and returns the results."""

    def __init__(self, scheduler, batch, out, job, pieces, cpu_idx, cpu_res, cfg):
        self.scheduler, self.batch, self.out, self.job, self.pieces = scheduler, batch, out, job, pieces
        self.cpu_idx, self.cpu_res, self.cfg = cpu_idx, cpu_res, cfg

    def result(self):
        if self.job is not None:
            self.scheduler.engines[0].collect(self.job)
            self.job = None
        spilled = []
        for piece in self.pieces:
            lost = piece.gather()
            if piece.where is not None:
                self.out.take(piece.where, piece.out)
                lost = piece.where[lost]
            spilled.append(lost)
        self.scheduler.count(-sum(len(piece.idx) for piece in self.pieces))  # each counted as it ended
        self.pieces = []
        if self.cpu_res is not None:
            self.out.take(self.cpu_idx, self.cpu_res)
            self.cpu_res = None
        lost = np.concatenate(spilled) if spilled else []
        if len(lost):  # a record no GPU could hold alone
            lost = np.sort(lost)
            self.out.take(lost, self.scheduler.cpu.align(self.batch.subset(lost), self.cfg))
        return self.out.finish(self.cfg)
