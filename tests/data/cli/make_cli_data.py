"""Regenerates the files in tests/data/cli/ from /work/shared/data (run from the repo root).

Provenance is in tests/data/README.md, section "tests/data/cli/".
"""

import gzip
import itertools
import shutil

SHARED = "/work/shared/data"
OUT = "tests/data/cli"


def head_fasta(src, dst, n):
    with gzip.open(src, "rt") as fh:
        lines = list(itertools.islice(fh, 2 * n))  # gasal2 files: one sequence line per record
    assert sum(line.startswith(">") for line in lines) == n
    with open(dst, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write("".join(lines).encode())


head_fasta(f"{SHARED}/pairwise/gasal2/query_batch.fasta.gz", f"{OUT}/gasal2_q200.fa.gz", 200)
head_fasta(f"{SHARED}/pairwise/gasal2/target_batch.fasta.gz", f"{OUT}/gasal2_t200.fa.gz", 200)
shutil.copyfile(f"{SHARED}/genomes/pysam/tests/pysam_data/ex1.fa", f"{OUT}/ex1.fa")

lengths = {"chr1": 1575, "chr2": 1584}
seen, reads = set(), []
with gzip.open(f"{SHARED}/genomes/pysam/tests/pysam_data/ex1.sam.gz", "rt") as fh:
    for line in fh:
        f = line.rstrip("\n").split("\t")
        name, flag, chrom, pos, cigar, seq, qual = f[0], int(f[1]), f[2], int(f[3]), f[5], f[9], f[10]
        if flag & 4 or cigar != "35M" or name in seen:
            continue
        seen.add(name)
        reads.append((name, chrom, pos, seq, qual))
# 50 reads from each chromosome, in file order
picked = [r for r in reads if r[1] == "chr1"][:50] + [r for r in reads if r[1] == "chr2"][:50]
with open(f"{OUT}/ex1_reads.fq", "w") as fq, open(f"{OUT}/ex1_reads.pairs.tsv", "w") as pairs:
    pairs.write("# query_name<TAB>target region of ex1.fa (1-based inclusive, +-10 bp around the read)\n")
    for name, chrom, pos, seq, qual in picked:
        fq.write(f"@{name}\n{seq}\n+\n{qual}\n")
        start, end = max(1, pos - 10), min(lengths[chrom], pos + 34 + 10)
        pairs.write(f"{name}\t{chrom}:{start}-{end}\n")

# expected scores (parasail) of the first 200 pairs, BWA-like scheme 1,4,6,1, glocal and local
for mode in ("glocal", "local"):
    src = f"{SHARED}/pairwise/gasal2/expected/gasal2_m1_x4_o6_e1.{mode}.first2000.tsv.gz"
    with gzip.open(src, "rt") as fh:
        lines = list(itertools.islice(fh, 202))  # comment + header + 200 rows
    assert lines[0].startswith("#") and lines[1].startswith("idx\t")
    with open(f"{OUT}/gasal2_m1_x4_o6_e1.{mode}.first200.tsv", "w") as out:
        out.write("".join(lines))
