"""The writers' registry: one writer class for each (family, format), and the one place that picks it.

A writer is made from a ``WriterContext`` and has ``write(chunk, results)``
(chunks in input order) and ``close()`` (commits the output); it may have
``discard()`` for what it holds besides the output file. Its class says
whether it can write score-only results (``score_only``).

Entries are "module:Class" strings, imported only when a run asks for them;
a family's formats are the formats registered for it.

The format of a run (``output_format``) is ``--format``, else the one the
output name's extension implies (case-insensitive, ``.gz`` aside), else
TSV; a ``--format`` that contradicts the extension (``--format bam -o
r.sam``), a format the family has no writer for, and ``.bam.gz`` are usage
errors before anything is read. ``.txt`` only suggests TSV: any
``--format`` may write to a ``.txt`` name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..errors import UsageError
from .output import OutputFile

EXTENSIONS = {".tsv": "tsv", ".txt": "tsv", ".sam": "sam", ".bam": "bam", ".paf": "paf", ".maf": "maf", ".gaf": "gaf",
              ".m8": "blast6"}
#: extensions that suggest a format without binding it (no contradiction with --format)
LOOSE_EXTENSIONS = (".txt",)

#: (family, format) -> "module:Class"
WRITERS: dict[tuple[str, str], str] = {
    ("pairwise", "tsv"): "seqalign_cli.families.pairwise.formats:TsvWriter",
    ("pairwise", "sam"): "seqalign_cli.families.pairwise.formats_sam:SamWriter",
    ("pairwise", "bam"): "seqalign_cli.families.pairwise.formats_sam:BamWriter",
    ("pairwise", "paf"): "seqalign_cli.families.pairwise.formats_paf:PafWriter",
    ("pairwise", "blast6"): "seqalign_cli.families.pairwise.formats_blast:BlastTabularWriter",
    ("triplet", "tsv"): "seqalign_cli.families.triplet.formats:TripletTsvWriter",
    ("triplet", "maf"): "seqalign_cli.families.triplet.formats:MafWriter",
    ("graph", "tsv"): "seqalign_cli.families.graph.formats:GraphTsvWriter",
    ("graph", "gaf"): "seqalign_cli.families.graph.formats:GafWriter",
    ("search", "blast6"): "seqalign_cli.families.search.formats:SearchBlastWriter",
    ("search", "tsv"): "seqalign_cli.families.search.formats:SearchTsvWriter",
    ("search", "paf"): "seqalign_cli.families.search.formats:SearchPafWriter",
}
#: the format of a family's run whose output name implies none (others: tsv)
DEFAULT_FORMAT = {"search": "blast6"}
#: the formats whose output is the header (the writer's output for a run without records) then each chunk's
#: output, one after another: what worker processes can write (``workers``); known without importing a writer
CUTTABLE = {("pairwise", "tsv"), ("pairwise", "paf"), ("pairwise", "blast6"), ("triplet", "tsv"),
            ("triplet", "maf"), ("graph", "tsv"), ("graph", "gaf")}


@dataclass(frozen=True)
class WriterContext:
    """What a writer is made from."""

    out: OutputFile
    command_line: str = "seqalign"
    traceback: bool = True
    cigar_m: bool = False  # '=' and 'X' runs written as 'M'
    inputs: object = None  # the family's input description (a SAM writer names its reference file)
    threads: int = 1  # compression (BGZF) and formatting threads
    #: whether the output begins the whole output: False for the parts after the first of a sharded run
    #: (``--shard K/N``, K > 1), which leave out the leading text header (TSV '#', MAF '##maf') so that the
    #: parts concatenate into the whole; SAM/BAM keep theirs (see ``formats_sam.SamWriter``)
    header: bool = True
    #: the SAM ``@RG`` header line of ``-R`` (checked: ``formats_readgroup.parse_read_group``), or None
    read_group: str | None = None
    #: the run's ``AlignConfig`` (scoring and mode: BLAST tabular's bit scores and E-values), or None
    align: object = None

    @classmethod
    def of_run(cls, cfg, out, threads: int, header: bool) -> "WriterContext":
        """The context of a run's writer (a ``RunConfig``) writing to ``out``."""
        return cls(out, cfg.command_line, cfg.align.traceback, cfg.cigar_m, cfg.inputs, threads, header=header,
                   read_group=cfg.read_group, align=cfg.align)


def register(family: str, fmt: str, ref: str | type):
    """Add (or replace) the writer of ``fmt`` for ``family``: a class or a "module:Class" string."""
    WRITERS[(family, fmt)] = ref


def formats(family: str) -> tuple[str, ...]:
    """The output formats registered for ``family``."""
    return tuple(fmt for fam, fmt in WRITERS if fam == family)


def _extension(path: str) -> tuple[str | None, bool]:
    """(the format extension of ``path`` or None, whether it ends in .gz), case-insensitive."""
    name = path.lower()
    gz = name.endswith(".gz")
    if gz:
        name = name[:-3]
    return next((ext for ext in EXTENSIONS if name.endswith(ext)), None), gz


#: extensions of formats seqalign does not write: an output so named is a usage error, not silently TSV
FOREIGN = {".cram": "CRAM", ".crai": "a CRAM index", ".bai": "a BAM index", ".fa": "FASTA", ".fasta": "FASTA",
           ".fna": "FASTA", ".fq": "FASTQ", ".fastq": "FASTQ", ".vcf": "VCF", ".bcf": "BCF", ".bed": "BED",
           ".gff": "GFF", ".gff3": "GFF", ".gtf": "GTF", ".gfa": "GFA", ".json": "JSON", ".csv": "CSV",
           ".xlsx": "Excel", ".html": "HTML"}


def _foreign(path: str) -> str | None:
    """The format a name's extension (``.gz`` ignored) says and seqalign does not write, or None."""
    name = path.lower()
    name = name[:-3] if name.endswith(".gz") else name
    return next((what for ext, what in FOREIGN.items() if name.endswith(ext)), None)


def _names_an_input(output: str, inputs) -> bool:
    from .output import same_file

    return any(name and name != "-" and same_file(output, name) for name in inputs)


def format_from_path(path: str) -> str:
    """Output format implied by a file name (case-insensitive, ``.gz`` ignored), tsv otherwise."""
    ext, _ = _extension(path)
    return EXTENSIONS[ext] if ext else "tsv"


def output_format(family: str, output: str, fmt: str | None, inputs=()) -> str:
    """The output format of a run from ``--format`` and ``-o`` (see the module); usage errors for contradictions."""
    ext, gz = _extension(output) if output != "-" else (None, False)
    implied = EXTENSIONS[ext] if ext else None
    if fmt and implied and implied != fmt and ext not in LOOSE_EXTENSIONS:
        raise UsageError(f"--format {fmt} contradicts the output name {output!r} (a {ext} name is {implied}): "
                         f"give one of them, or make them agree")
    foreign = _foreign(output) if output != "-" and not fmt and not implied else None
    if foreign and not _names_an_input(output, inputs):  # that one the output file's own check says
        raise UsageError(f"the output name {output!r}: seqalign does not write {foreign} (formats: "
                         f"{', '.join(formats(family))}; --format chooses one whatever the name)")
    chosen = fmt or implied or DEFAULT_FORMAT.get(family, "tsv")
    if (family, chosen) not in WRITERS:
        how = f"--format {fmt}" if fmt else f"the output name {output!r}"
        raise UsageError(f"{how}: {family} alignments cannot be written as {chosen} "
                         f"(formats: {', '.join(formats(family))})")
    if chosen == "bam" and gz:
        raise UsageError(f"the output name {output!r}: BAM is compressed by itself; name it .bam, not .bam.gz")
    return chosen


def load(ref: str | type):
    """The object a "module:attr" string names (or ``ref`` itself when it is one)."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def writer_class(family: str, fmt: str, traceback: bool = True):
    """The writer class of ``fmt`` for ``family``; usage errors where there is none, or it needs a traceback."""
    ref = WRITERS.get((family, fmt))
    if ref is None:
        raise UsageError(f"{family} alignments cannot be written as {fmt} "
                         f"(formats: {', '.join(formats(family))})")
    cls = load(ref)
    if not traceback and not cls.score_only:
        raise UsageError(f"--score-only writes TSV only ({fmt} needs a CIGAR)")
    return cls


def make_writer(family: str, fmt: str, ctx: WriterContext):
    return writer_class(family, fmt, ctx.traceback)(ctx)
