"""Frozen configuration objects: scoring scheme, alignment mode, run options."""

from __future__ import annotations

from dataclasses import dataclass, field

MODES = ("global", "semi-global", "glocal", "local")
#: integer codes used by every backend (kernels and CPU engine alike)
MODE_CODES = {"global": 0, "semi-global": 1, "glocal": 2, "local": 3}
FORMATS = ("tsv", "sam", "bam", "paf")


@dataclass(frozen=True)
class Scoring:
    """Integer scoring scheme. Penalties are positive numbers that are subtracted.

    A gap of length k costs ``gap_open + k * gap_extend``; any pair involving N
    (or another non-ACGT letter) scores ``-n_penalty``.
    """

    match: int = 2
    mismatch: int = 4
    gap_open: int = 4
    gap_extend: int = 2
    n_penalty: int = 1

    def __post_init__(self):
        for name in ("match", "mismatch", "gap_open", "gap_extend", "n_penalty"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")

    def as_list(self):
        return [self.match, self.mismatch, self.gap_open, self.gap_extend, self.n_penalty]

    def score_bound(self, qlen: int, tlen: int) -> int:
        """An upper bound on |score| of any DP cell for a qlen x tlen pair."""
        per_base = max(self.match, self.mismatch, self.n_penalty) + self.gap_extend
        return self.gap_open + (qlen + tlen + 1) * per_base


@dataclass(frozen=True)
class AlignConfig:
    """What to compute: scoring, mode and whether to trace back a CIGAR."""

    scoring: Scoring = field(default_factory=Scoring)
    mode: str = "global"
    traceback: bool = True
    #: bytes of traceback matrix allowed per pair before the checkpointed
    #: linear-memory traceback takes over
    matrix_budget: int = 64 * 1024 * 1024

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")

    @property
    def mode_code(self) -> int:
        return MODE_CODES[self.mode]


@dataclass(frozen=True)
class RunConfig:
    """Everything the runner needs: inputs, pairing, output and execution."""

    query: str
    target: str | None = None
    pairing: str = "zip"  # zip | cross | interleaved | pairs
    pairs_file: str | None = None
    output: str = "-"
    out_format: str = "tsv"
    cigar_m: bool = False
    align: AlignConfig = field(default_factory=AlignConfig)
    backend: str = "auto"
    device: int | tuple[int, ...] | str = 0  # a GPU, several, or "all"
    threads: int = 1
    batch_size: int = 16384
    quiet: bool = False
    progress: bool = False
    command_line: str = "seqalign"
