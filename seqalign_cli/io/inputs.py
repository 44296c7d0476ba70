"""The input descriptions of the families: light objects the command line builds before anything heavy loads.

The command line makes them (and the run configuration) before the runner
starts the GPU driver; this module imports neither numpy nor numba.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PairInputs:
    """The input files of a pairwise run and how their records pair up."""

    query: str
    target: str | None = None
    pairing: str = "zip"  # zip | cross | interleaved | pairs
    pairs_file: str | None = None
    #: the scoring (``config.Scoring``) when the output is SAM/BAM, else None: the reader then holds the
    #: queries' names to SAM's rules and every pair's score bound to the 32-bit integers SAM/BAM store
    sam_scoring: object = None
    #: "forward", or "both": each query's reverse complement is aligned too and the better kept
    strand: str = "forward"

    @property
    def files(self) -> tuple[str, ...]:
        """The files read (``-o`` may name none of them); ``pairing`` is not one."""
        return tuple(p for p in (self.query, self.target, self.pairs_file) if p is not None)

    @property
    def main_file(self) -> str | None:
        """The file whose reading paces the run (the progress bar's fraction): the queries; none for
        ``--pairs``, whose queries are read whole first."""
        return None if self.pairing == "pairs" else self.query

    @property
    def reference(self) -> str:
        """The file the targets (SAM references) come from, as messages name it."""
        path = self.target if self.target is not None else self.query
        return "<stdin>" if path == "-" else path


@dataclass(frozen=True)
class TripletInputs:
    """The input files of a triplet run: three read in lockstep, or one interleaved file."""

    paths: tuple[str, ...]
    interleaved: bool = False

    @property
    def main_file(self) -> str:
        """The file whose reading paces the run (the progress bar's fraction): the first."""
        return self.paths[0]


@dataclass(frozen=True)
class GraphInputs:
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
