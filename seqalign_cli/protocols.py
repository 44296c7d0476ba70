"""What the shared layers ask of a family's objects: one ``typing.Protocol`` each, with the defaults of the
optional parts.

A family's classes subclass these (``class PairChunk(Chunk)``): what they
leave out takes the default written here, and the runner, the GPU
scheduler, the writers' registry, the worker processes and the run
statistics call every part without probing for it. ``tests/test_families.py``
runs every registered family, and a toy one, through them.

No numpy here: the command line's input descriptions subclass ``Inputs``
before anything heavy loads.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Inputs(Protocol):
    """A family's description of its input files (a frozen dataclass the command line builds)."""

    @property
    def files(self) -> tuple[str, ...]:
        """The files read (``-o`` may name none of them)."""
        ...

    @property
    def main_file(self) -> str | None:
        """The file whose reading paces the run (the progress bar's fraction), or None."""
        return None

    def pieces(self) -> tuple[tuple[str, ...], int] | None:
        """The files a run with worker processes cuts into pieces of whole records, and the records a unit
        holds (``io.cut``); None where the inputs cannot be cut."""
        return None

    def on_pieces(self, paths: tuple[str, ...]) -> "Inputs":
        """These inputs with the files of ``pieces`` replaced by ``paths`` (a worker's chunk)."""
        raise TypeError(f"{type(self).__name__} is not cut into pieces")


@runtime_checkable
class Batch(Protocol):
    """The encoded records a backend aligns."""

    @property
    def size(self) -> int:
        ...

    def cells_each(self):
        """DP cells of each record (the GPU scheduler's pieces are cut by cells)."""
        ...

    def cells(self) -> int:
        """DP cells of the batch (by default the sum of ``cells_each``)."""
        return int(self.cells_each().sum())

    def subset(self, idx) -> "Batch":
        """A new batch of the records ``idx``, in that order."""
        ...


@runtime_checkable
class Chunk(Protocol):
    """Records read in input order: what is aligned (``batch()``) and whatever the family's writers read."""

    def batch(self) -> Batch:
        ...

    def __len__(self) -> int:
        """The records it holds, as the summary counts them."""
        ...

    def finish(self, results):
        """The family's choice among the batch's results before the writer sees them (once, in the writer
        thread); by default the results as they are."""
        return results


@runtime_checkable
class Results(Protocol):
    """A batch's results, as the writers and the run statistics read them."""

    #: each record's score (an integer array)
    score: object
    #: what ``aligned_spans`` measures, in the statistics' words
    SPAN = ""

    def aligned_spans(self):
        """(aligned, span) arrays for the statistics (``stats``), or None where the family has no spans."""
        return None


@runtime_checkable
class DeviceResults(Results, Protocol):
    """Results a GPU scheduler fills: a batch's share from the CPU merged in, the mode's rule applied last."""

    def take(self, idx, other) -> None:
        ...

    def finish(self, cfg) -> "DeviceResults":
        ...


@runtime_checkable
class CpuEngine(Protocol):
    """A family's CPU engine, ``Engine(threads)``: the reference every backend is held to."""

    threads: int

    def align(self, batch, cfg):
        ...


@runtime_checkable
class Hooks(Protocol):
    """What the GPU scheduler asks of a family."""

    #: cells under which a batch goes whole to one of several GPUs (0: the scheduler's own rule)
    whole_cells = 0

    def on_gpu(self, batch, cfg):
        """Which records a GPU can hold (a boolean array)."""
        ...

    def allocate(self, batch, cfg) -> DeviceResults:
        ...

    def cpu_note(self, batch, cfg, idx) -> str | None:
        """The line said once a run when the records ``idx`` of a GPU run go to the CPU engine, or None."""
        return None

    def plan_ahead(self, batch, cfg) -> None:
        """Host work on ``batch`` that needs no device (routes, a plan of launches), done by the reading thread
        before the aligning thread takes the batch, and kept on the batch; none by default."""
        return None


@runtime_checkable
class Writer(Protocol):
    """A format's writer, ``Writer(ctx)`` (a ``writers.WriterContext``)."""

    #: whether it can write score-only results (no alignment)
    score_only = False

    def write(self, chunk, results) -> None:
        ...

    def close(self) -> None:
        """Write what is left and commit the output."""
        ...

    def discard(self) -> None:
        """The run failed: release what the writer holds (the output file itself is removed by its owner)."""
        return None
