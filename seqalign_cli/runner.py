"""The pipeline of a run, for every family: read -> align -> write, streamed.

The family (``families``) supplies the pieces: how its inputs are read
into chunks, its engines (through ``backends.select_backend``) and its
writers (through ``writers.make_writer``); the runner only moves chunks.

Three stages overlap: a reader thread reads and encodes the next chunks
(record blocks, no object per record) while the aligning thread aligns
the current one and a writer thread formats and writes the previous one.
The aligning thread only begins each batch (``backend.start``) and hands the
writer thread a pending result: the CPU engine's is finished at once, the
GPU engine's work is queued on a stream, and the writer waits for it and
copies it back while the aligning thread plans and uploads the next batch.
Chunks are written in input order. The output is committed (renamed into
place) only after the last chunk; on any error it is discarded.

The calling thread (the main thread of the command line) starts the three,
then only waits, a tenth of a second at a time, updating the progress bar
(``progress``: count, rate, fraction); it commits the output at the end.
With ``--stats`` the writer thread hands each chunk's written results to a
``stats.Collector``, and the statistics file is committed after the output
(a temporary name made at the start, renamed; removed as the output is). A SIGINT, SIGTERM or SIGHUP
(``interrupts``) is raised there at once, even while a compiled call runs
for minutes in another thread: the temporary output is removed and the
exception goes on to the caller (the command line then ends the process,
threads and all). The output file is checked before anything else (``-o``
naming an input is a usage error).

The summary's stage times are those of the aligning thread: ``read`` is the
time it waited for the reader, ``align`` the time it spent aligning (or
beginning to), and ``write`` the time it waited for the writer (a full
queue, then the last chunks), with closing the output.

Every chunk allocates and frees arrays of the same few sizes (tens of MB).
With glibc's defaults these come from fresh ``mmap`` pages each time and are
handed back on free, so every chunk pays page faults again; ``_keep_freed_memory``
asks malloc to keep freed memory in the process for reuse instead.

This module imports nothing heavy: ``run`` first starts the GPU driver (when
the backend may use one), then loads the readers (numpy, numba), so that the
driver's start overlaps those imports. The first run that compiles says so
on stderr (``jit.CompileNotice``).
"""

from __future__ import annotations

import ctypes
import errno
import queue
import resource
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from . import families, interrupts, progress
from .backends import select_backend, warm_up
from .config import RunConfig
from .io.ahead import Ahead
from .stats import Collector, StatsFile, document, sample_name
from .writers import WriterContext, make_writer, writer_class
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


class _Reader(Ahead):
    """Runs the reading/pairing/encoding generator in a thread, ``depth`` chunks ahead: (chunk, batch) items.

    The thread starts at once (reading overlaps the backend's start); an
    error of the reader is raised in the consuming thread. A second thread
    plans each batch's launches (``plan``) while the first reads the next
    chunk: the plan is compiled code that releases the interpreter lock.
    ``records``: the records of the chunks made so far (the progress bar's
    read-ahead).
    """

    def __init__(self, chunks, depth: int = 2):
        self.records = 0
        #: the backend's ``plan_ahead(batch)`` once it is chosen (the reader starts before): host work on each
        #: batch that the aligning thread then finds done
        self.plan = None
        self.made = Ahead(self._batches(chunks), depth, name="seqalign-read")
        super().__init__(self._planned(self.made), depth, name="seqalign-plan")

    def _batches(self, chunks):
        for chunk in chunks:
            batch = chunk.batch()
            self.records += len(chunk)
            yield chunk, batch

    def _planned(self, made):
        for chunk, batch in made:
            if self.plan is not None:
                self.plan(batch)
            yield chunk, batch

    def close(self):
        self.made.close()
        super().close()


class _WriterThread:
    """Writes (chunk, results) items in order, ``depth`` items behind at most, in two threads.

    Results are pending (``Done`` or the GPU engine's ``Pending``): the collecting thread waits for
    them in order and lets each chunk choose among its results; the writing thread formats and writes
    them, so that the next chunk's results come back while one is written. ``observe(results)``, when
    given, sees the results of every chunk written (``stats.Collector``).

    An error of either (a broken pipe, a duplicate SAM reference, a failed batch) is raised in the
    aligning thread by the next ``put`` or by ``finish``.
    """

    def __init__(self, writer, depth: int = 2, observe=None):
        self.writer = writer
        self.observe = observe
        self.items: queue.Queue = queue.Queue(maxsize=depth)
        self.ready: queue.Queue = queue.Queue(maxsize=1)  # collected, waiting for the writing thread
        self.error: BaseException | None = None
        self.stopped = False
        self.written = 0  # chunks written
        self.records = 0  # records of the chunks whose results came (aligned)
        self.collector = threading.Thread(target=self._collect, name="seqalign-collect", daemon=True)
        self.thread = threading.Thread(target=self._run, name="seqalign-write", daemon=True)
        self.collector.start()
        self.thread.start()

    def _collect(self):
        while True:
            item = self.items.get()
            if item is None:
                self._hand(None)
                return
            if self.error is not None or self.stopped:
                continue  # after an error: drain until the end marker
            try:
                chunk, pending = item
                results = pending.result()
                self.records += len(chunk)
                self._hand((chunk, chunk.finish(results)))  # the family's choice among its results (protocols.Chunk)
            except BaseException as exc:  # handed to the aligning thread
                self.error = exc

    def _hand(self, item):
        """``item`` to the writing thread, unless the run stopped while it waited for room."""
        while True:
            try:
                self.ready.put(item, timeout=0.1)
                return
            except queue.Full:
                if self.stopped:
                    return

    def _run(self):
        while True:
            item = self.ready.get()
            if item is None:
                return
            if self.error is not None or self.stopped:
                continue
            try:
                chunk, results = item
                self.writer.write(chunk, results)
                if self.observe is not None:
                    self.observe(results)
                self.written += 1
            except BaseException as exc:  # handed to the aligning thread
                self.error = exc

    def _raise(self):
        if self.error is not None:
            error, self.error = self.error, None
            self.stopped = True
            raise error

    def put(self, chunk, pending):
        self._raise()
        while not self.stopped:  # stopped (after an error elsewhere, a signal): the item is dropped
            try:
                self.items.put((chunk, pending), timeout=0.1)
                return
            except queue.Full:
                continue

    def finish(self):
        """Wait until every item is written."""
        self.items.put(None)
        self.collector.join()
        self.thread.join()
        self._raise()

    def stop(self, wait: float = 5.0):
        """Drop what is still queued and let the threads end (after an error elsewhere).

        The write in progress is waited for ``wait`` seconds at most: a pipe whose
        reader stopped reading must not hold up the error or an interrupt.
        """
        self.stopped = True
        deadline = time.monotonic() + wait
        for q in (self.items, self.ready):
            while True:
                try:
                    q.get_nowait()
                except queue.Empty:
                    break
        while True:
            try:
                self.items.put_nowait(None)
                break
            except queue.Full:  # the aligning thread put one more meanwhile
                if time.monotonic() >= deadline:
                    return
                try:
                    self.items.get_nowait()
                except queue.Empty:
                    pass
        for thread in (self.collector, self.thread):
            thread.join(timeout=max(deadline - time.monotonic(), 0))
        try:
            self.ready.put_nowait(None)  # the writing thread, if the collecting thread gave up handing over
        except queue.Full:
            pass


class _Aligning:
    """The aligning thread: begins each batch (``backend.start``) and hands it to the writer thread,
    then waits for the last writes. Its error, if any, is ``error``; ``done`` is set when it ends."""

    def __init__(self, reader: _Reader, backend, writing: _WriterThread, align):
        self.reader, self.backend, self.writing, self.align = reader, backend, writing, align
        self.records = self.cells = 0
        self.stages = {"read": 0.0, "align": 0.0, "write": 0.0}
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="seqalign-align", daemon=True)
        self.thread.start()

    def _run(self):
        stages = self.stages
        try:
            clock = time.perf_counter()
            for chunk, batch in self.reader:
                if self.reader.stopped.is_set():
                    return
                now = time.perf_counter()
                stages["read"] += now - clock  # waiting for the reader thread
                pending = self.backend.start(batch, self.align)
                clock = time.perf_counter()
                stages["align"] += clock - now
                self.writing.put(chunk, pending)
                now, clock = clock, time.perf_counter()
                stages["write"] += clock - now  # waiting for room in the writer's queue
                self.records += len(chunk)  # records, as read
                self.cells += batch.cells()
            if self.reader.stopped.is_set():  # stopped from outside: nothing more to finish
                return
            now = time.perf_counter()
            self.writing.finish()
            stages["write"] += time.perf_counter() - now
        except BaseException as exc:  # re-raised by the calling thread
            self.error = exc
        finally:
            self.done.set()


class _Waiting:
    """The calling thread's wait for a run (signals are raised in it at once), with the progress bar."""

    def __init__(self, meter, unit: str):
        self.meter, self.unit, self.bar = meter, unit, None

    def until(self, over, counts, shown=lambda: True):
        """Wait a tenth of a second at a time until ``over(0.1)`` is true; ``counts()``: (records aligned,
        records read) for the bar (never shown going back), shown once ``shown()``."""
        aligned = 0
        while not over(0.1):
            if self.meter is not None and shown():
                if self.bar is None:
                    self.bar = progress.Bar(self.meter, self.unit)
                now, read = counts()
                aligned = max(aligned, now)
                self.bar.update(aligned, read)

    def stop(self):
        progress.watch(None)
        if self.bar is not None:
            self.bar.stop()


def _begin(cfg: RunConfig, family, stats_file: StatsFile | None, meter):
    """What every run checks and prepares before reading: its writer (a usage error), the statistics file,
    the progress meter the readers tell what they read (None: no bar, nothing to tell)."""
    writer_class(family.name, cfg.out_format, cfg.align.traceback)
    if stats_file is not None:
        stats_file.prepare()
    progress.watch(meter)


def _discard(out: OutputFile, stats_file: StatsFile | None, close: bool = True):
    """Remove the output and the statistics file (``close`` False: the temporary files alone, at once)."""
    out.discard(close=close)
    if stats_file is not None:
        stats_file.discard(close=close)


def _commit_stats(summary: Summary, stats_file: StatsFile | None, collector, cfg: RunConfig):
    if stats_file is not None:
        stats_file.commit(document(summary, collector, cfg.family, cfg.command_line, sample_name(stats_file.path)))


def input_files(inputs) -> tuple[str, ...]:
    """The files a family's input description names (``protocols.Inputs.files``)."""
    return tuple(inputs.files)


def run(cfg: RunConfig, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> Summary:
    """Align every record of the run described by ``cfg``; returns the summary.

    SIGINT, SIGTERM and SIGHUP raise ``interrupts.Interrupted`` (a KeyboardInterrupt) once the
    temporary output is removed.
    """
    start = time.perf_counter()
    family = families.get(cfg.family)
    # usage errors before any work
    out = OutputFile(cfg.output, compress=cfg.output.lower().endswith(".gz"), inputs=input_files(cfg.inputs),
                     level=cfg.compress_level)
    stats_file = StatsFile(cfg.stats, cfg.output, input_files(cfg.inputs)) if cfg.stats is not None else None
    from .workers import count

    workers = count(cfg, cfg.workers)
    with interrupts.handled():
        try:
            if workers > 1:
                return _run_workers(cfg, family, out, log, start, stats_file, workers)
            return _run(cfg, family, out, log, start, stats_file)
        except OSError as exc:  # a write that failed names no file: the output's name, as given
            if exc.filename is None and exc.errno in _OUTPUT_ERRNOS:
                raise OSError(exc.errno, exc.strerror, "standard output" if cfg.output == "-" else cfg.output) \
                    from None
            raise


#: errors of writing the output (a full disk or quota, a file too large, the device failing)
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def _header(cfg) -> bytes:
    """The bytes the format's writer puts before any record (none in a later part of a sharded run)."""
    from .workers.child import MemorySink

    sink = MemorySink()
    writer = make_writer(cfg.family, cfg.out_format,
                         WriterContext.of_run(cfg, sink, 1, header=cfg.shard is None or cfg.shard[0] == 1))
    writer.close()
    return b"".join(sink.take())


def _run_workers(cfg: RunConfig, family, out: OutputFile, log, start: float, stats_file: StatsFile | None,
                 workers: int) -> Summary:
    """The run in ``workers`` worker processes (``workers.pool``): the main process cuts the input into
    pieces and writes the workers' output in order; output, signals and the summary as in ``_run``."""
    from .workers.pool import Pool

    pool = None
    waiting = _Waiting(progress.Meter(cfg.inputs.main_file) if cfg.progress else None,
                       family.unit)
    collector = Collector() if stats_file is not None else None
    try:
        pool = Pool(cfg, workers, max(1, cfg.threads // workers))  # first: they load their engines meanwhile
        _begin(cfg, family, stats_file, waiting.meter)
        pool.start(out.open(threads=cfg.threads, background=False), _header(cfg), log,  # mapped pages, sendfile
                   observe=collector.add if collector is not None else None)
        waiting.until(pool.wait, lambda: (pool.records, pool.read), lambda: pool.records)
        if pool.error is not None:
            raise pool.error
        pool.finish()
        now = time.perf_counter()
        out.commit()
        pool.stages["write"] += time.perf_counter() - now
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        name, device, threads = pool.backend or (cfg.backend, "-", 0)
        summary = Summary(pool.records, pool.cells, time.perf_counter() - start, name,
                          f"{device}; {workers} worker processes", threads * workers, peak, pool.stages, None,
                          family.unit)
        _commit_stats(summary, stats_file, collector, cfg)
    except BaseException as exc:
        interrupted = isinstance(exc, KeyboardInterrupt)
        with interrupts.critical():
            if pool is not None:
                pool.close()
            _discard(out, stats_file, close=False)  # first: whatever comes next, no temporary file is left
        if not interrupted:
            _discard(out, stats_file)
        raise
    finally:
        waiting.stop()
    return summary


def _run(cfg: RunConfig, family, out: OutputFile, log, start: float, stats_file: StatsFile | None) -> Summary:
    if family.cuda is not None:
        warm_up(cfg.backend, cfg.device)  # beside the imports below: numpy, numba, then CuPy
    from . import jit  # numba, its cache folder settled first
    from .io import alphabet

    alphabet.use(cfg.align.scoring.alphabet)  # before any record is read (workers' children set their own)

    notice = jit.CompileNotice(family.name, enabled=not cfg.quiet)

    def say(message: str):
        notice.interject()
        log(message)

    reader = writing = writer = None
    waiting = _Waiting(progress.Meter(cfg.inputs.main_file) if cfg.progress else None,
                       family.unit)
    collector = Collector() if stats_file is not None else None
    ok = interrupted = False
    try:
        _begin(cfg, family, stats_file, waiting.meter)
        chunks = family.read(cfg.inputs, cfg.batch_size, cfg.shard)
        _keep_freed_memory()
        reader = _Reader(chunks)
        backend = select_backend(family, cfg.backend, cfg.threads, say, cfg.device, cfg.align, cfg.progress)
        reader.plan = lambda batch: backend.plan_ahead(batch, cfg.align)
        out.background = backend.write_behind
        writer = make_writer(family.name, cfg.out_format,
                             WriterContext.of_run(cfg, out, cfg.threads, header=cfg.shard is None or cfg.shard[0] == 1))
        writing = _WriterThread(writer, depth=backend.depth,  # batches the backend keeps in flight
                                observe=collector.add if collector is not None else None)
        aligning = _Aligning(reader, backend, writing, cfg.align)

        def shown():
            if writing.written:
                notice.close()  # what a run compiles, it has compiled by its first chunk written
            return writing.written or not notice.active

        waiting.until(aligning.done.wait, lambda: (writing.records + backend.partial, reader.records), shown)
        if aligning.error is not None:
            raise aligning.error
        notice.close()
        now = time.perf_counter()
        writer.close()
        aligning.stages["write"] += time.perf_counter() - now
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        summary = Summary(aligning.records, aligning.cells, time.perf_counter() - start, backend.name,
                          backend.device, backend.threads, peak, aligning.stages, backend.steps(), family.unit)
        _commit_stats(summary, stats_file, collector, cfg)
        ok = True
    except BaseException as exc:
        interrupted = isinstance(exc, KeyboardInterrupt)
        with interrupts.critical():
            if reader is not None:
                reader.close()
            _discard(out, stats_file, close=False)  # first: whatever comes next, no temporary file is left
        if writing is not None:
            writing.stop(wait=0 if interrupted else 5)
        if not interrupted:  # on a signal the process ends now: nothing more to close
            if writer is not None:
                writer.discard()
            _discard(out, stats_file)
        raise
    finally:
        waiting.stop()
        notice.finish(ok, interrupted)
    return summary
