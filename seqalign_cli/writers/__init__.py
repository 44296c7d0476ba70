"""Output writers (TSV, SAM/BAM, PAF) and the one place that picks a writer."""

from __future__ import annotations

from ..errors import UsageError
from .output import OutputFile

EXTENSIONS = {".tsv": "tsv", ".txt": "tsv", ".sam": "sam", ".bam": "bam", ".paf": "paf"}


def format_from_path(path: str) -> str:
    """Output format implied by a file name (``.gz`` ignored), tsv otherwise."""
    name = path[:-3] if path.endswith(".gz") else path
    for ext, fmt in EXTENSIONS.items():
        if name.endswith(ext):
            return fmt
    return "tsv"


def make_writer(fmt: str, out: OutputFile, command_line: str, cigar_m: bool, traceback: bool,
                target_file: str = "target"):
    if not traceback and fmt != "tsv":
        raise UsageError(f"--score-only writes TSV only ({fmt} needs a CIGAR)")
    if fmt == "tsv":
        from .tsv import TsvWriter

        return TsvWriter(out, cigar_m)
    if fmt == "paf":
        from .paf import PafWriter

        return PafWriter(out, cigar_m)
    from .sam import SamWriter

    return SamWriter(out, command_line, cigar_m, bam=(fmt == "bam"), target_file=target_file)
