"""How many records a chunk holds: the count a user gives (``--batch-size N``), or a family's default rule.

A chunk is the unit of reading, aligning and writing. Each chunk costs a
fixed amount of host work (uploads, result copies, writer calls), so short
records go in larger chunks; long ones keep a smaller count, so that the
chunks held ahead by the pipeline stay within memory. ``ChunkSize`` states
that rule once: ``records`` at most, fewer where they would hold more than
``letters`` letters in one input file, but ``least`` at least (fewer only at
the end of the input). Without ``letters`` every chunk holds ``records``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChunkSize:
    records: int
    least: int = 1
    letters: int = 0  # 0: no bound on letters

    @classmethod
    def of(cls, size: "int | ChunkSize") -> "ChunkSize":
        """``size`` as a rule: a plain count is a fixed one."""
        return size if isinstance(size, ChunkSize) else cls(int(size), int(size))

    @property
    def fixed(self) -> bool:
        return not self.letters

    @property
    def count(self) -> int:
        """The one record count of readers that cut by count alone: ``records`` when fixed, else ``least``."""
        return self.records if self.fixed else self.least

    def describe(self) -> str:
        """The rule in words (``--help``)."""
        if self.fixed:
            return str(self.records)
        return (f"{self.least} to {self.records}, as many as hold {self.letters >> 20} MB of letters a file "
                f"where two files are read side by side; else {self.least}")

    def next_count(self, *fitting) -> int:
        """The records of the next chunk, given ``fitting(n, letters)`` of each input file (how many of its
        next n records hold at most ``letters`` letters)."""
        if self.fixed:
            return self.records
        return max(self.least, min(fit(self.records, self.letters) for fit in fitting))
