"""The search family's input description, ``SearchInputs``: the queries, the database, which hits are kept.

Light: the command line builds it before anything heavy loads; this module imports neither numpy nor numba.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...protocols import Inputs


@dataclass(frozen=True)
class SearchInputs(Inputs):
    """The input files of a database search and which hits are kept.

    ``top``: the best hits kept for each query; ``min_score`` and ``max_evalue`` (None: no cut) drop
    hits below a score or above an E-value. Not cut for worker processes (each would hold the whole
    database): ``pieces()`` is None.
    """

    queries: str
    database: str
    top: int = 10
    min_score: int | None = None
    max_evalue: float | None = None

    @property
    def files(self) -> tuple[str, ...]:
        """The files read (``-o`` may name none of them)."""
        return (self.queries, self.database)

    @property
    def main_file(self) -> str:
        """The file whose reading paces the run (the progress bar's fraction): the queries."""
        return self.queries
