"""The CPU backend: a family's CPU engine, aligning each batch as it comes.

Each family has a CPU engine in ``backends/cpu/<family>.py`` (numba, the
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
    """Runs a family's CPU engine for the runner."""

    name = "cpu"
    device = "CPU"
    #: batches the runner keeps in flight: one aligned, one waiting for the writer
    depth = 2

    def __init__(self, engine):
        self.engine = engine
        self.threads = engine.threads

    def start(self, batch, cfg) -> Done:
        """The batch aligned now (the backends' common ``start``)."""
        return Done(self.engine.align(batch, cfg))

    def align(self, batch, cfg):
        return self.engine.align(batch, cfg)

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
