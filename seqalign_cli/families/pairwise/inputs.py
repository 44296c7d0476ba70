"""The pairwise family's input description, ``PairInputs``: the files of a pairwise run and how their records
pair up.

Light: the command line makes it (and the run configuration) before the runner
starts the GPU driver; this module imports neither numpy nor numba.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...protocols import Inputs


@dataclass(frozen=True)
class PairInputs(Inputs):
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

    def pieces(self) -> tuple[tuple[str, ...], int] | None:
        """The files a run with workers cuts into pieces of whole records, and the records a unit holds
        (``io.cut``); None where the pairing cannot be cut (every query against every target, a pairs file)."""
        if self.pairing == "zip":
            return (self.query, self.target), 1
        if self.pairing == "interleaved":
            return (self.query,), 2
        return None

    def on_pieces(self, paths: tuple[str, ...]) -> "PairInputs":
        """These inputs with the files of ``pieces`` replaced by ``paths`` (a worker's chunk)."""
        if self.pairing == "zip":
            return replace(self, query=paths[0], target=paths[1])
        return replace(self, query=paths[0])

    @property
    def reference(self) -> str:
        """The file the targets (SAM references) come from, as messages name it."""
        path = self.target if self.target is not None else self.query
        return "<stdin>" if path == "-" else path
