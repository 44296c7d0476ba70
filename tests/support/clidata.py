"""Paths of the small real data sets under tests/data/cli (see tests/data/README.md)."""

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "cli"
GQ = DATA / "gasal2_q200.fa.gz"
GT = DATA / "gasal2_t200.fa.gz"
EX1 = DATA / "ex1.fa"
EX1_READS = DATA / "ex1_reads.fq"
EX1_PAIRS = DATA / "ex1_reads.pairs.tsv"


def read_fastx(path) -> list[tuple[str, str, str | None]]:
    """(name, seq, qual) of a small FASTA/FASTQ file, plain or gzip (a test-side parser)."""
    import gzip

    raw = Path(path).read_bytes()
    lines = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode().splitlines()
    if lines and lines[0].startswith("@"):
        return [(lines[i][1:].split()[0], lines[i + 1], lines[i + 3]) for i in range(0, len(lines), 4)]
    recs = []
    for line in lines:
        if line.startswith(">"):
            recs.append([line[1:].split()[0] if line[1:].split() else "", "", None])
        elif recs:
            recs[-1][1] += line.strip()
    return [tuple(r) for r in recs]


def write_fasta(path, recs) -> Path:
    """A FASTA file of (name, seq, ...) records."""
    Path(path).write_text("".join(f">{r[0]}\n{r[1]}\n" for r in recs))
    return Path(path)
