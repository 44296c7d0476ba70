"""The GPU scheduler (the cuda backend) of every family: batches on one or more GPUs, the CPU engine beside them.

It knows records, cells and results only through the family's pieces:

* ``engines``: the family's engine on each device (``device.DeviceEngine``:
  ``submit``/``collect`` for the stream pipeline of one GPU, ``align`` for
  pieces, ``release``);
* ``cpu``: the family's CPU engine (``align(batch, cfg)``);
* ``hooks``: ``on_gpu(batch, cfg)``, the records a GPU can hold exactly (the
  family's routing), and ``allocate(batch, cfg)``, an empty result;
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

import sys
import threading
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

    With several GPUs, each batch is cut into pieces of similar cell counts
    that the GPUs take from a shared queue as they finish the previous one
    (dynamic partitioning); results land in input order.

    A piece that runs out of device memory is aligned in halves by the
    engine that took it (see the module's docstring); ``log`` says so once.
    """

    name = "cuda"
    _said_oom = False

    def __init__(self, engines: list, cpu, hooks, log: Callable[[str], None] | None = None,
                 device: str | None = None):
        self.engines = list(engines)
        self.cpu = cpu
        self.hooks = hooks
        self.threads = cpu.threads
        self.log = log or _stderr
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

    def start(self, batch, cfg) -> "Pending":
        """Begin aligning ``batch``; ``result()`` of the returned object finishes it.

        With one GPU the batch's GPU work is queued on a stream and this
        returns at once (after aligning on the CPU what the GPU cannot
        hold), so the caller can prepare the next batch meanwhile. With
        several GPUs, or after the device ran out of memory, the batch is
        aligned before this returns.
        """
        out = self.hooks.allocate(batch, cfg)
        on_gpu = self.hooks.on_gpu(batch, cfg)
        gpu_idx = np.flatnonzero(on_gpu)
        cpu_idx = np.flatnonzero(~on_gpu)
        job = None
        if len(gpu_idx) and len(self.engines) == 1:
            job, spilled = self._submit(self.engines[0], batch, cfg, gpu_idx, out)
        elif len(gpu_idx):
            spilled = self._gpu(batch, cfg, gpu_idx, batch.cells_each(), out)
        else:
            spilled = gpu_idx
        cpu_idx = np.sort(np.concatenate([cpu_idx, spilled]))
        cpu_res = self.cpu.align(batch.subset(cpu_idx), cfg) if len(cpu_idx) else None  # while the GPU works
        return Pending(self, out, job, cpu_idx, cpu_res, cfg)

    def _submit(self, engine, batch, cfg, idx, out):
        """Queue the records ``idx`` on the one engine: (job, no records spilled), or (None, spilled) when
        the device ran out of memory and the records were aligned in halves instead."""
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

    def _gpu(self, batch, cfg, idx, cells, out) -> np.ndarray:
        """Align the records ``idx`` on several GPUs; returns the records left for the CPU engine."""
        spilled: list[np.ndarray] = []
        import queue

        work: queue.Queue = queue.Queue()
        for piece in split_by_cells(idx, cells, 4 * len(self.engines)):
            work.put(piece)
        errors = []

        def drain(engine):
            try:
                while True:
                    try:
                        piece = work.get_nowait()
                    except queue.Empty:
                        return
                    self._fit(engine, batch, cfg, piece, out, spilled)
            except BaseException as exc:  # re-raised in the calling thread
                errors.append(exc)
            finally:
                engine.release()

        threads = [threading.Thread(target=drain, args=(e,)) for e in self.engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return np.concatenate(spilled) if spilled else idx[:0]

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


class Pending:
    """A batch begun by ``GpuScheduler.start``; ``result()`` waits for the GPU and returns the results."""

    def __init__(self, scheduler, out, job, cpu_idx, cpu_res, cfg):
        self.scheduler, self.out, self.job = scheduler, out, job
        self.cpu_idx, self.cpu_res, self.cfg = cpu_idx, cpu_res, cfg

    def result(self):
        if self.job is not None:
            self.scheduler.engines[0].collect(self.job)
            self.job = None
        if self.cpu_res is not None:
            self.out.take(self.cpu_idx, self.cpu_res)
            self.cpu_res = None
        return self.out.finish(self.cfg)
