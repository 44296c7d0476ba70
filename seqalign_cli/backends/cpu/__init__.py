"""The CPU backend: a family's CPU engine, aligning each batch as it comes.

Each family has a CPU engine in ``backends/cpu/<family>.py`` (numba, the
exact reference every other backend is held to): ``Engine(threads)`` with
``threads`` and ``align(batch, cfg)``. ``CpuBackend`` gives it the backends'
common ``start``.
"""

from __future__ import annotations

from .. import Done


class CpuBackend:
    """Runs a family's CPU engine for the runner."""

    name = "cpu"
    device = "CPU"

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
