"""The writers' registry: one writer class for each (family, format), and the one place that picks it.

A writer is made from a ``WriterContext`` and has ``write(chunk, results)``
(chunks in input order) and ``close()`` (commits the output); it may have
``discard()`` for what it holds besides the output file. Its class says
whether it can write score-only results (``score_only``).

Entries are "module:Class" strings, imported only when a run asks for them;
a family's formats are the formats registered for it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..errors import UsageError
from .output import OutputFile

EXTENSIONS = {".tsv": "tsv", ".txt": "tsv", ".sam": "sam", ".bam": "bam", ".paf": "paf", ".maf": "maf", ".gaf": "gaf"}

#: (family, format) -> "module:Class"
WRITERS: dict[tuple[str, str], str] = {
    ("pairwise", "tsv"): "seqalign_cli.writers.tsv:TsvWriter",
    ("pairwise", "sam"): "seqalign_cli.writers.sam:SamWriter",
    ("pairwise", "bam"): "seqalign_cli.writers.sam:BamWriter",
    ("pairwise", "paf"): "seqalign_cli.writers.paf:PafWriter",
    ("triplet", "tsv"): "seqalign_cli.writers.triplet:TripletTsvWriter",
    ("triplet", "maf"): "seqalign_cli.writers.triplet:MafWriter",
    ("graph", "tsv"): "seqalign_cli.writers.graph:GraphTsvWriter",
    ("graph", "gaf"): "seqalign_cli.writers.graph:GafWriter",
}


@dataclass(frozen=True)
class WriterContext:
    """What a writer is made from."""

    out: OutputFile
    command_line: str = "seqalign"
    traceback: bool = True
    cigar_m: bool = False  # '=' and 'X' runs written as 'M'
    inputs: object = None  # the family's input description (a SAM writer names its reference file)


def register(family: str, fmt: str, ref: str | type):
    """Add (or replace) the writer of ``fmt`` for ``family``: a class or a "module:Class" string."""
    WRITERS[(family, fmt)] = ref


def formats(family: str) -> tuple[str, ...]:
    """The output formats registered for ``family``."""
    return tuple(fmt for fam, fmt in WRITERS if fam == family)


def format_from_path(path: str) -> str:
    """Output format implied by a file name (``.gz`` ignored), tsv otherwise."""
    name = path[:-3] if path.endswith(".gz") else path
    for ext, fmt in EXTENSIONS.items():
        if name.endswith(ext):
            return fmt
    return "tsv"


def load(ref: str | type):
    """The object a "module:attr" string names (or ``ref`` itself when it is one)."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_writer(family: str, fmt: str, ctx: WriterContext):
    ref = WRITERS.get((family, fmt))
    if ref is None:
        raise UsageError(f"{family} alignments cannot be written as {fmt} "
                         f"(formats: {', '.join(formats(family))})")
    cls = load(ref)
    if not ctx.traceback and not getattr(cls, "score_only", False):
        raise UsageError(f"--score-only writes TSV only ({fmt} needs a CIGAR)")
    return cls(ctx)
