"""The graph family's input description, ``GraphInputs``: the GFA graph and the reads.

Light: the command line builds it before anything heavy loads; this module imports neither numpy nor numba.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...protocols import Inputs


@dataclass(frozen=True)
class GraphInputs(Inputs):
    """The input files of a graph run: a GFA1 graph and the reads aligned to it (one of them may be '-')."""

    graph: str
    reads: str
    forward_only: bool = False

    @property
    def files(self) -> tuple[str, ...]:
        """The files read (``-o`` may name none of them)."""
        return (self.graph, self.reads)

    @property
    def main_file(self) -> str:
        """The file whose reading paces the run (the progress bar's fraction): the reads."""
        return self.reads
