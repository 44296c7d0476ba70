"""The pipeline of a run, for every family: read -> align -> write, streamed.

The family (``families``) supplies the pieces: how its inputs are read
into chunks, its engines (through ``backends.select_backend``) and its
writers (through ``writers.make_writer``); the runner only moves chunks.

Three stages overlap: a reader thread reads and encodes the next chunks
(record blocks, no object per record) while the calling thread aligns
the current one and a writer thread formats and writes the previous one.
The calling thread only begins each batch (``backend.start``) and hands the
writer thread a pending result: the CPU engine's is finished at once, the
GPU engine's work is queued on a stream, and the writer waits for it and
copies it back while the calling thread plans and uploads the next batch.
Chunks are written in input order. The output is committed (renamed into
place) only after the last chunk; on any error it is discarded.

The summary's stage times are those of the aligning thread: ``read`` is the
time it waited for the reader, ``align`` the time it spent aligning (or
beginning to), and ``write`` the time it waited for the writer (a full
queue, then the last chunks and closing the output).

Every chunk allocates and frees arrays of the same few sizes (tens of MB).
With glibc's defaults these come from fresh ``mmap`` pages each time and are
handed back on free, so every chunk pays page faults again; ``_keep_freed_memory``
asks malloc to keep freed memory in the process for reuse instead.

This module imports nothing heavy: ``run`` first starts the GPU driver (when
the backend may use one), then loads the readers (numpy, numba), so that the
driver's start overlaps those imports.
"""

from __future__ import annotations

import ctypes
import queue
import resource
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from . import families
from .backends import select_backend, warm_up
from .config import RunConfig
from .writers import WriterContext, make_writer
from .writers.output import OutputFile


@dataclass
class Summary:
    records: int
    cells: int
    seconds: float
    backend: str
    device: str
    threads: int
    peak_mb: float
    stages: dict
    steps: dict | None = None  # the aligning stage split by backend step (GPU engines)
    unit: str = "pairs"  # what the family counts

    @property
    def gcups(self) -> float:
        return self.cells / self.seconds / 1e9 if self.seconds > 0 else 0.0

    def line(self) -> str:
        return (f"{self.records} {self.unit}, {self.cells:.3g} cells, {self.gcups:.2f} GCUPS, backend "
                f"{self.backend} ({self.device}, {self.threads} thread{'s' if self.threads != 1 else ''}),"
                f" {self.seconds:.2f} s wall ({', '.join(f'{k} {v:.2f} s' for k, v in self.stages.items())}),"
                f"{self._steps()} peak memory {self.peak_mb:.0f} MB")

    def _steps(self) -> str:
        if not self.steps:
            return ""
        return f" align steps ({', '.join(f'{k} {v:.2f} s' for k, v in self.steps.items())}),"


_DONE = object()


#: glibc mallopt parameters
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _keep_freed_memory():
    """Let glibc serve blocks below 256 MB from the heap and keep freed memory (no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt(_M_MMAP_THRESHOLD, 256 << 20)
    mallopt(_M_TRIM_THRESHOLD, 1 << 30)


class _Reader:
    """Runs the reading/pairing/encoding generator in a thread, ``depth`` chunks ahead.

    The thread starts at once (reading overlaps the backend's start); an
    error of the reader is raised in the consuming thread.
    """

    def __init__(self, chunks, depth: int = 2):
        self.chunks = chunks
        self.items: queue.Queue = queue.Queue(maxsize=depth)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _put(self, item) -> bool:
        while not self.stopped.is_set():
            try:
                self.items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self):
        try:
            for chunk in self.chunks:
                if not self._put((chunk, chunk.batch())):
                    return
            self._put(_DONE)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            self._put(exc)

    def __iter__(self):
        while True:
            item = self.items.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def close(self):
        self.stopped.set()


class _WriterThread:
    """Writes (chunk, results) items in order in a thread, ``depth`` items behind at most.

    Results are pending (``Done`` or the GPU engine's ``Pending``): the thread waits for them.

    An error of the writer (a broken pipe, a duplicate SAM reference) is
    raised in the calling thread by the next ``put`` or by ``finish``.
    """

    def __init__(self, writer, depth: int = 2):
        self.writer = writer
        self.items: queue.Queue = queue.Queue(maxsize=depth)
        self.error: BaseException | None = None
        self.stopped = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            item = self.items.get()
            if item is None:
                return
            if self.error is not None or self.stopped:
                continue  # after an error: drain until the end marker
            try:
                chunk, pending = item
                self.writer.write(chunk, pending.result())
            except BaseException as exc:  # handed to the calling thread
                self.error = exc

    def _raise(self):
        if self.error is not None:
            error, self.error = self.error, None
            self.stopped = True
            raise error

    def put(self, chunk, pending):
        self._raise()
        self.items.put((chunk, pending))

    def finish(self):
        """Wait until every item is written."""
        self.items.put(None)
        self.thread.join()
        self._raise()

    def stop(self):
        """Drop what is still queued and let the thread end (after an error elsewhere).

        The write in progress is waited for a few seconds at most: a pipe whose
        reader stopped reading must not hold up the error or an interrupt.
        """
        self.stopped = True
        while True:
            try:
                self.items.get_nowait()
            except queue.Empty:
                break
        self.items.put(None)
        self.thread.join(timeout=5)


def _progress(enabled: bool, unit: str):
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TextColumn(f"{{task.completed}} {unit}"),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    progress.start()
    return progress


def run(cfg: RunConfig, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> Summary:
    """Align every record of the run described by ``cfg``; returns the summary."""
    start = time.perf_counter()
    family = families.get(cfg.family)
    if family.cuda is not None:
        warm_up(cfg.backend, cfg.device)  # beside the imports below: numpy, numba, then CuPy
    chunks = family.read(cfg.inputs, cfg.batch_size)
    _keep_freed_memory()
    reader = _Reader(chunks)
    try:
        backend = select_backend(family, cfg.backend, cfg.threads, log, cfg.device)
        out = OutputFile(cfg.output)
        writer = make_writer(family.name, cfg.out_format, WriterContext(
            out, cfg.command_line, cfg.align.traceback, cfg.cigar_m, cfg.inputs))
    except BaseException:
        reader.close()
        raise
    progress = _progress(cfg.progress, family.unit)
    task = progress.add_task("aligning", total=None) if progress else None
    records = cells = 0
    stages = {"read": 0.0, "align": 0.0, "write": 0.0}
    writing = _WriterThread(writer)
    try:
        clock = time.perf_counter()
        for chunk, batch in reader:
            now = time.perf_counter()
            stages["read"] += now - clock  # waiting for the reader thread
            pending = backend.start(batch, cfg.align)
            clock = time.perf_counter()
            stages["align"] += clock - now
            writing.put(chunk, pending)
            now, clock = clock, time.perf_counter()
            stages["write"] += clock - now  # waiting for room in the writer's queue
            records += batch.size
            cells += batch.cells()
            if progress:
                progress.update(task, completed=records)
        now = time.perf_counter()
        writing.finish()
        writer.close()
        stages["write"] += time.perf_counter() - now
    except BaseException:
        reader.close()
        writing.stop()
        if hasattr(writer, "discard"):
            writer.discard()
        out.discard()
        raise
    finally:
        if progress:
            progress.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return Summary(records, cells, time.perf_counter() - start, backend.name, backend.device,
                   backend.threads, peak, stages, backend.steps(), family.unit)
