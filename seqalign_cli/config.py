"""Frozen configuration objects: alignment modes (and each family's list of them), scoring scheme, what to compute,
run options.

Imports nothing heavy (no numpy): the command line loads it before the GPU driver starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class Mode(IntEnum):
    """Alignment modes; the value is the code every backend uses (kernels and CPU engine alike).

    The rules that follow from a mode's free borders live here: which start
    coordinates a score-only run cannot know, and which end cells make an
    alignment empty.
    """

    GLOBAL = 0
    SEMI_GLOBAL = 1
    GLOCAL = 2
    LOCAL = 3

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")

    @classmethod
    def parse(cls, label: str) -> "Mode":
        for mode in cls:
            if mode.label == label:
                return mode
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {label!r}")

    def score_only_starts(self) -> tuple[int, int]:
        """(query start, target start) written by a score-only run: 0 where the mode fixes it, else -1."""
        query = 0 if self in (Mode.GLOBAL, Mode.GLOCAL) else -1
        target = 0 if self is Mode.GLOBAL else -1
        return query, target

    def empty_ends(self, qend, tend):
        """Which score-only results are empty alignments: their end cell lies on a border the mode makes free."""
        if self in (Mode.SEMI_GLOBAL, Mode.LOCAL):
            return (qend == 0) | (tend == 0)
        if self is Mode.GLOCAL:
            return qend == 0
        return (qend == 0) & (tend == 0)


#: the alphabets a run reads (``io.alphabet``)
ALPHABETS = ("dna", "protein")
#: the letter of each code of an alphabet (``io.alphabet``: the rows a substitution matrix is read for)
CODE_LETTERS = {"dna": "ACGTN", "protein": "ARNDCQEGHILKMFPSTWYVBZX*JUO"}
#: the letter whose matrix row scores a letter the matrix lacks
FALLBACK_LETTER = {"dna": "N", "protein": "X"}

#: the modes of each subcommand (its ``--mode`` choices, and the Python API's): pairs take every ``Mode``
MODES = tuple(m.label for m in Mode)
TRIPLET_MODES = ("global", "semi-global", "local")
GRAPH_MODES = ("global", "glocal", "local")


@dataclass(frozen=True)
class Scoring:
    """Integer scoring scheme. Penalties are positive numbers that are subtracted.

    A gap of length k costs ``gap_open + k * gap_extend``; any pair involving N
    (or another non-ACGT letter) scores ``-n_penalty``.

    With a substitution ``matrix`` (``matrices.SubstitutionMatrix``), two
    letters score as the matrix says instead (match, mismatch and n_penalty
    unused), in the codes of ``alphabet`` (``io.alphabet``: dna or protein).
    """

    match: int = 2
    mismatch: int = 4
    gap_open: int = 4
    gap_extend: int = 2
    n_penalty: int = 1
    matrix: object = None
    alphabet: str = "dna"

    def __post_init__(self):
        for name in ("match", "mismatch", "gap_open", "gap_extend", "n_penalty"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if self.alphabet not in ALPHABETS:
            raise ValueError(f"alphabet must be dna or protein, got {self.alphabet!r}")
        if self.alphabet == "protein" and self.matrix is None:
            raise ValueError("a protein alphabet needs a substitution matrix")

    def as_list(self):
        return [self.match, self.mismatch, self.gap_open, self.gap_extend, self.n_penalty]

    def table(self, dtype):
        """The substitution array of the engines (codes x codes, in ``dtype``), or None without a matrix."""
        if self.matrix is None:
            return None
        return self.matrix.table(CODE_LETTERS[self.alphabet], FALLBACK_LETTER[self.alphabet], dtype)

    @property
    def substitution_bound(self) -> int:
        """The largest magnitude a pair of letters scores."""
        if self.matrix is not None:
            return self.matrix.largest
        return max(self.match, self.mismatch, self.n_penalty)

    def score_bound(self, qlen: int, tlen: int) -> int:
        """An upper bound on |score| of any DP cell for a qlen x tlen pair."""
        per_base = self.substitution_bound + self.gap_extend
        return self.gap_open + (qlen + tlen + 1) * per_base

    @property
    def pair_bound(self) -> int:
        """The largest magnitude one pair of a triplet column can score (residues, or a residue and a gap)."""
        return max(self.match, self.mismatch, self.n_penalty, self.gap_extend)

    def triplet_bound(self, lengths):
        """An upper bound on |D| of any cell of each triplet ((n, 3) lengths array).

        Three pairs a column (each opening a gap at most), at most n1 + n2 + n3 columns.
        """
        return 3 * (self.pair_bound + self.gap_open) * (lengths.sum(axis=1) + 1)

    def triplet_value_drop(self) -> int:
        """The most any triplet cell's candidate (a neighbour's value plus its kind's column score) falls below
        the cell's value, linear gaps, every mode.

        A neighbour that lacks r residues of the cell (r = 1..3) is at least D - 2r (gap_extend + match): the
        cell's alignment with those residues taken out of their columns (each residue's two pairs lose at most
        match + gap_extend each; an alignment that does not hold the residue, from a semi-global or local
        start, shifts unchanged). The column score of M is at least -3 max(mismatch, n_penalty), and a kind
        of fewer residues loses less. While it is at most 255, a walk that stands on a cell of known value X
        finds its kind from the low bytes of its neighbours' values alone (the first kind in tie order whose
        neighbour's byte is that of X minus the kind's column score).
        """
        return 6 * (self.gap_extend + self.match) + 3 * max(self.mismatch, self.n_penalty)

    def triplet_values_fit(self) -> bool:
        """Whether a triplet walk may take the kinds from the low bytes of the values (``triplet_value_drop``)."""
        return self.triplet_value_drop() <= 255


@dataclass(frozen=True)
class AlignConfig:
    """What to compute: scoring, mode and whether to trace back an alignment."""

    scoring: Scoring = field(default_factory=Scoring)
    mode: str = "global"
    traceback: bool = True
    #: bytes of traceback matrix allowed per pair before the checkpointed
    #: linear-memory traceback takes over
    matrix_budget: int = 64 * 1024 * 1024

    def __post_init__(self):
        Mode.parse(self.mode)

    @property
    def mode_code(self) -> Mode:
        return Mode.parse(self.mode)


@dataclass(frozen=True)
class RunConfig:
    """Everything the runner needs: the family, its inputs, what to compute, output and execution.

    ``inputs`` is the family's own description of its input files (for pairs,
    ``families.pairwise.inputs.PairInputs``); the family table knows how to read it.
    """

    inputs: object
    family: str = "pairwise"
    output: str = "-"
    out_format: str = "tsv"
    cigar_m: bool = False
    align: AlignConfig = field(default_factory=AlignConfig)
    backend: str = "auto"
    device: int | tuple[int, ...] | str = 0  # a GPU, several, or "all"
    threads: int = 1
    batch_size: int | None = None  # records a chunk; None: the family's rule (``Family.chunk_size``)
    #: (K, N): align only the K-th (from 1) of N parts of the input, whole records by position
    shard: tuple[int, int] | None = None
    #: where the run summary goes as JSON (``--stats``), or None
    stats: str | None = None
    #: the SAM read group header line (``-R``), or None
    read_group: str | None = None
    quiet: bool = False
    progress: bool = False
    command_line: str = "seqalign"
    #: worker processes (``workers``): None or 1 none (one process), N
    workers: int | None = None
    #: BGZF level of BAM and .gz outputs (``writers.bgzf``; None its default)
    compress_level: int | None = None
