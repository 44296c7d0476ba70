"""The triplet family's input description, ``TripletInputs``: three files read in lockstep, or one interleaved.

Light: the command line builds it before anything heavy loads; this module imports neither numpy nor numba.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...protocols import Inputs


@dataclass(frozen=True)
class TripletInputs(Inputs):
    """The input files of a triplet run: three read in lockstep, or one interleaved file."""

    paths: tuple[str, ...]
    interleaved: bool = False

    @property
    def files(self) -> tuple[str, ...]:
        """The files read (``-o`` may name none of them)."""
        return self.paths

    @property
    def main_file(self) -> str:
        """The file whose reading paces the run (the progress bar's fraction): the first."""
        return self.paths[0]

    def pieces(self) -> tuple[tuple[str, ...], int]:
        """The files a run with workers cuts into pieces of whole records (``PairInputs.pieces``)."""
        return (self.paths[:1], 3) if self.interleaved else (self.paths, 1)

    def on_pieces(self, paths: tuple[str, ...]) -> "TripletInputs":
        return replace(self, paths=paths)
