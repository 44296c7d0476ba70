"""The CPU backend: a family's CPU engine, aligning each batch as it comes.

Each family has a CPU engine in ``families/<family>/cpu.py`` (numba, the
exact reference every other backend is held to): ``Engine(threads)`` with
``threads`` and ``align(batch, cfg)``. ``CpuBackend`` gives it the backends'
common ``start`` (the results at once, in a ``Done``). ``LazyEngine`` stands
for it beside a GPU, made on first use.
"""

from __future__ import annotations

import threading


class Done:
    """Results already finished: what ``start`` returns for a backend that aligns at once.

    The runner hands it to the writer thread, which asks for the result when
    it writes the batch.
    """

    def __init__(self, res):
        self.res = res

    def result(self):
        return self.res


class CpuBackend:
    """Runs a family's CPU engine for the runner.

    Where a progress bar is shown (``allocator`` given), a batch of more than
    ``PIECE_CELLS`` cells a thread is aligned in pieces of whole records, one
    after another (``allocator()`` gives the family's hooks' ``allocate``,
    whose ``DeviceResults`` take each piece's; loaded on first need):
    ``partial`` counts the records of the pieces done, which the bar adds to
    the batches written, so that it moves within a batch of long records.
    Results are those of the whole batch: an engine's result for a record
    does not depend on the other records of its batch. Pieces cost time (each
    ends on its slowest thread): a run without a bar goes whole.
    """

    name = "cpu"
    device = "CPU"
    #: batches the runner keeps in flight: one aligned, one waiting for the writer
    depth = 2
    #: whether the output file is written by a thread of its own (``writers/background.py``): not here, where the
    #: alignment sets the pace and the thread takes a core's time (1-3 % slower on two cores)
    write_behind = False
    #: cells a thread above which a batch goes in pieces, and records a thread a piece holds at least
    #: (benchmarks/decisions/progress_pieces.md)
    PIECE_CELLS = 5 * 10**8
    PIECE_RECORDS = 256
    #: the most pieces a batch is cut into
    MAX_PIECES = 32

    def __init__(self, engine, allocator=None):
        self.engine = engine
        self.threads = engine.threads
        self.allocator = allocator
        #: records of the batch under way already aligned (its pieces done)
        self.partial = 0

    def plan_ahead(self, batch, cfg):
        """The backends' common ``plan_ahead`` (``GpuScheduler``'s): nothing to plan on the CPU."""

    def start(self, batch, cfg) -> Done:
        """The batch aligned now (the backends' common ``start``)."""
        return Done(self.align(batch, cfg))

    def align(self, batch, cfg):
        pieces = self.pieces(batch) if self.allocator is not None else None
        if pieces is None:
            return self.engine.align(batch, cfg)
        out = self.allocator()(batch, cfg)
        try:
            for idx in pieces:
                out.take(idx, self.engine.align(batch.subset(idx), cfg))
                self.partial += len(idx)
        finally:
            self.partial = 0
        return out.finish(cfg)

    def pieces(self, batch) -> list | None:
        """The pieces of a batch (record indices, in order), or None to align it whole."""
        import numpy as np

        cells = np.asarray(batch.cells_each(), np.float64)
        total = float(cells.sum())
        count = min(int(total // (self.PIECE_CELLS * self.threads)), self.MAX_PIECES,
                    batch.size // (self.PIECE_RECORDS * self.threads))
        if count < 2:
            return None
        cuts = np.searchsorted(np.cumsum(cells), total * np.arange(1, count) / count) + 1  # each after its share
        return [p for p in np.split(np.arange(batch.size), np.unique(cuts)) if len(p)]

    def steps(self) -> None:
        return None


class LazyEngine:
    """A family's CPU engine made by its first ``align``: the one a GPU scheduler keeps for what a GPU
    cannot hold, so that a GPU run that never needs it neither imports it nor loads its compiled code."""

    def __init__(self, family, threads: int):
        from ...jit import thread_count

        self.family = family
        self.threads = thread_count(threads)
        self.engine = None
        self.lock = threading.Lock()  # several GPUs' threads may ask at once

    def align(self, batch, cfg):
        with self.lock:
            if self.engine is None:
                self.engine = self.family.cpu_engine(self.threads)
        return self.engine.align(batch, cfg)
