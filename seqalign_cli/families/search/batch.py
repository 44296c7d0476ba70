"""The search family's batch: ``SearchBatch``, encoded queries and the ``Database`` they are searched against
(read once a run, encoded once, shared by every batch and never copied).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...batching import FlatCodes, gather_runs
from ...io.block import RecordBlock
from ...protocols import Batch
from .inputs import SearchInputs


@dataclass(eq=False)
class Database:
    """Every record of the database, in file order (``block``), encoded once."""

    block: RecordBlock

    def __len__(self) -> int:
        return len(self.block)

    @cached_property
    def codes(self) -> np.ndarray:
        return self.block.codes()

    @cached_property
    def offs(self) -> np.ndarray:
        return np.require(self.block.seq_off, np.int64, "CW")

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offs)

    @cached_property
    def residues(self) -> int:
        """The letters of the whole database (the search space's second factor)."""
        return int(self.lengths.sum())

    @cached_property
    def by_length(self) -> np.ndarray:
        """The records' indices, shortest first (ties in file order)."""
        return np.argsort(self.lengths, kind="stable")

    @cached_property
    def names(self) -> list[str]:
        return self.block.names_list()

    def gather(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The codes of records ``idx``, back to back, and their offsets."""
        return gather_runs(self.codes, self.offs, np.asarray(idx, np.int64))


@dataclass
class SearchBatch(FlatCodes, Batch):
    """Encoded queries (flat ``codes``, (n+1,) ``offs``), the database, and which hits are kept."""

    codes: np.ndarray
    offs: np.ndarray
    db: Database
    inputs: SearchInputs

    def cells_each(self) -> np.ndarray:
        """Query length x database residues: the score pass's cells."""
        return self.lengths * np.int64(self.db.residues)

    def subset(self, idx: np.ndarray) -> "SearchBatch":
        codes, offs = gather_runs(self.codes, np.require(self.offs, np.int64, "CW"), np.asarray(idx, np.int64))
        return SearchBatch(codes, offs, self.db, self.inputs)
