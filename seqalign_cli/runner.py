"""The pipeline of a run: read -> pair -> encode -> align -> write, streamed.

Chunks of pairs are read and encoded in a background thread while the
backend aligns the previous chunk; results are written in input order. The
output is committed (renamed into place) only after the last chunk; on any
error it is discarded.
"""

from __future__ import annotations

import queue
import resource
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from .backends import select_backend
from .config import RunConfig
from .io.encode import make_batch
from .io.pairs import pair_chunks
from .writers import make_writer
from .writers.output import OutputFile


@dataclass
class Summary:
    pairs: int
    cells: int
    seconds: float
    backend: str
    device: str
    threads: int
    peak_mb: float
    stages: dict


    @property
    def gcups(self) -> float:
        return self.cells / self.seconds / 1e9 if self.seconds > 0 else 0.0

    def line(self) -> str:
        return (f"{self.pairs} pairs, {self.cells:.3g} cells, {self.gcups:.2f} GCUPS, backend "
                f"{self.backend} ({self.device}, {self.threads} thread{'s' if self.threads != 1 else ''}),"
                f" {self.seconds:.2f} s wall ({', '.join(f'{k} {v:.2f} s' for k, v in self.stages.items())}),"
                f" peak memory {self.peak_mb:.0f} MB")


_DONE = object()


def _prefetch(chunks, depth: int = 2):
    """Run the reading/encoding generator in a thread, depth chunks ahead."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce():
        try:
            for chunk in chunks:
                item = (chunk, make_batch([r.seq for r in chunk.queries], [r.seq for r in chunk.targets]))
                while not stop.is_set():
                    try:
                        q.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(_DONE)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            q.put(exc)

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()


def _progress(enabled: bool):
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed} pairs"),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    progress.start()
    return progress


def run(cfg: RunConfig, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> Summary:
    """Align every pair of the run described by ``cfg``; returns the summary."""
    start = time.perf_counter()
    backend = select_backend(cfg.backend, cfg.threads, log, cfg.device)
    out = OutputFile(cfg.output)
    target_file = cfg.target if cfg.target is not None else cfg.query
    writer = make_writer(cfg.out_format, out, cfg.command_line, cfg.cigar_m, cfg.align.traceback,
                         "<stdin>" if target_file == "-" else target_file)
    chunks = pair_chunks(cfg.pairing, cfg.query, cfg.target, cfg.pairs_file, cfg.batch_size)
    progress = _progress(cfg.progress)
    task = progress.add_task("aligning", total=None) if progress else None
    pairs = cells = 0
    stages = {"read": 0.0, "align": 0.0, "write": 0.0}
    try:
        clock = time.perf_counter()
        for chunk, batch in _prefetch(chunks):
            now = time.perf_counter()
            stages["read"] += now - clock  # waiting for the reader thread
            res = backend.align(batch, cfg.align)
            clock = time.perf_counter()
            stages["align"] += clock - now
            writer.write(chunk, res)
            now, clock = clock, time.perf_counter()
            stages["write"] += clock - now
            pairs += batch.size
            cells += batch.cells()
            if progress:
                progress.update(task, completed=pairs)
        now = time.perf_counter()
        writer.close()
        stages["write"] += time.perf_counter() - now
    except BaseException:
        if hasattr(writer, "discard"):
            writer.discard()
        out.discard()
        raise
    finally:
        if progress:
            progress.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return Summary(pairs, cells, time.perf_counter() - start, backend.name, backend.device,
                   backend.threads, peak, stages)
