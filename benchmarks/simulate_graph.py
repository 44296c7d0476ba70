"""A pangenome-like GFA (a backbone with SNP and indel bubbles) and reads sampled from walks through it.

Usage: python benchmarks/simulate_graph.py [--bases 5000000] [--reads 10000,100] [--read-length 150,10000]
                                           [--error-rate 0.03] [--seed 1] [--format fastq] [--out-dir DIR]

The graph: a random backbone of ``--bases`` bases cut into segments at
bubbles, one bubble every ``--spacing`` bases (50-100 by default, uniform):

* SNP (``--snp`` of the bubbles): two one-base segments, the backbone's
  base and another one;
* deletion: a segment of 1 to ``--max-indel`` backbone bases and a link
  around it;
* insertion: a segment of 1 to ``--max-indel`` new bases beside a direct
  link (the backbone has nothing there).

Segments are numbered 1, 2, ... along the backbone; links are ``+ +`` with
overlap ``0M``; the P line ``ref`` is the backbone (reference alleles,
deletions' segments included, insertions' left out).

Reads: ``--reads`` and ``--read-length`` are lists of the same size, one
read file a pair (``10000,100`` and ``150,10000``: 10,000 reads of 150 bp
and 100 of 10 kb). A read starts at a random backbone position, follows a
random walk (each bubble's alternative taken with probability
``--alt-rate``), gets ``--error-rate`` errors per base (two thirds
substitutions, one sixth deleted bases, one sixth inserted bases) and is
cut to its length; half the reads, at random, are reverse-complemented.
Names tell where a read comes from: ``r<index>_<backbone start>_<+|->``.

Seeded (``--seed``): the same arguments give the same files; a read file
depends only on the seed, the graph arguments and its own count and length.
Files: ``DIR/NAME.gfa`` and ``DIR/NAME_<count>x<length>.fastq`` (or
``.fa`` with ``--format fasta``); ``paths()`` gives these names.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

LETTERS = np.frombuffer(b"ACGT", np.uint8)
SNP, DEL, INS = 0, 1, 2


def paths(out_dir: str, name: str, reads: list[int], lengths: list[int], fmt: str) -> tuple[str, list[str]]:
    """The GFA path and one read file path per (count, length)."""
    ext = "fastq" if fmt == "fastq" else "fa"
    return (os.path.join(out_dir, f"{name}.gfa"),
            [os.path.join(out_dir, f"{name}_{n}x{m}.{ext}") for n, m in zip(reads, lengths)])


class Pangenome:
    """The backbone, its bubbles and the segments cut from them.

    Bubble i sits at backbone position ``at[i]`` and covers ``ref_len[i]``
    backbone bases (1 for a SNP, k for a deletion, 0 for an insertion);
    ``alt[i]`` is its alternative allele (empty for a deletion). Backbone
    piece i (segment ``piece_id[i]``) runs from the end of bubble i-1 to
    ``at[i]``; the last piece ends the backbone.
    """

    def __init__(self, bases: int, seed: int, spacing: tuple[int, int], snp: float, max_indel: int,
                 alt_rate: float = 0.5):
        self.alt_rate = alt_rate
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0, bases]))
        self.backbone = rng.integers(0, 4, bases, dtype=np.uint8)
        lo, hi = spacing
        most = bases // lo + 2
        kind = np.where(rng.random(most) < snp, SNP, np.where(rng.random(most) < 0.5, DEL, INS)).astype(np.int8)
        k = rng.integers(1, max_indel + 1, most)
        ref_len = np.where(kind == SNP, 1, np.where(kind == DEL, k, 0))
        gap = rng.integers(lo, hi + 1, most)
        at = np.cumsum(gap + np.concatenate(([0], ref_len[:-1])))
        keep = int(np.searchsorted(at + ref_len, bases - 1, side="right"))  # the last piece keeps a base
        self.kind, self.at, self.ref_len = kind[:keep], at[:keep], ref_len[:keep]
        alt_len = np.where(self.kind == SNP, 1, np.where(self.kind == INS, k[:keep], 0))
        self.alt_off = np.concatenate(([0], np.cumsum(alt_len)))
        alt = rng.integers(0, 4, int(self.alt_off[-1]), dtype=np.uint8)
        snp_at = self.alt_off[:-1][self.kind == SNP]
        # a SNP's alternative differs from the backbone base
        alt[snp_at] = (self.backbone[self.at[self.kind == SNP]] + rng.integers(1, 4, len(snp_at))) % 4
        self.alt = alt
        # segment ids, 1-based, along the backbone: piece, then reference allele, then alternative
        n_bub = len(self.at)
        per = 1 + (self.ref_len > 0) + (alt_len > 0)
        first = np.concatenate(([1], 1 + np.cumsum(per)))
        self.piece_id = first  # n_bub + 1 pieces: piece i precedes bubble i
        self.ref_id = np.where(self.ref_len > 0, first[:-1] + 1, -1)
        self.alt_id = np.where(alt_len > 0, first[:-1] + 1 + (self.ref_len > 0), -1)
        self.piece_start = np.concatenate(([0], self.at + self.ref_len))
        self.piece_end = np.concatenate((self.at, [bases]))
        self.n_segments = int(first[-1])
        self.n_bubbles = n_bub

    def gfa(self) -> bytes:
        bb, alt = LETTERS[self.backbone].tobytes(), LETTERS[self.alt].tobytes()
        out = [b"H\tVN:Z:1.0\n"]
        s_lines, l_lines, ref = [], [], []
        link = b"L\t%d\t+\t%d\t+\t0M\n"
        for i in range(self.n_bubbles + 1):
            p = int(self.piece_id[i])
            s_lines.append(b"S\t%d\t%s\n" % (p, bb[self.piece_start[i]:self.piece_end[i]]))
            ref.append(b"%d+" % p)
            if i == self.n_bubbles:
                break
            nxt = int(self.piece_id[i + 1])
            r, a = int(self.ref_id[i]), int(self.alt_id[i])
            if r > 0:
                s_lines.append(b"S\t%d\t%s\n" % (r, bb[self.at[i]:self.at[i] + self.ref_len[i]]))
                l_lines.append(link % (p, r))
                l_lines.append(link % (r, nxt))
                ref.append(b"%d+" % r)
            if a > 0:
                s_lines.append(b"S\t%d\t%s\n" % (a, alt[self.alt_off[i]:self.alt_off[i + 1]]))
                l_lines.append(link % (p, a))
                l_lines.append(link % (a, nxt))
            if r < 0 or a < 0:  # an indel: the direct link is one side of the bubble
                l_lines.append(link % (p, nxt))
        out += s_lines
        out += l_lines
        out.append(b"P\tref\t%s\t*\n" % b",".join(ref))
        return b"".join(out)

    def walk(self, start: int, need: int, rng) -> np.ndarray:
        """At least ``need`` bases (fewer at the backbone's end) of a random walk from backbone ``start``."""
        i = int(np.searchsorted(self.piece_end, start, side="right"))  # the piece holding start
        if i <= self.n_bubbles and start < self.piece_start[i]:  # start falls inside bubble i-1: skip it
            start = int(self.piece_start[i])
        parts, have = [], 0
        while have < need and i <= self.n_bubbles:
            piece = self.backbone[max(start, self.piece_start[i]):self.piece_end[i]]
            parts.append(piece)
            have += len(piece)
            if i == self.n_bubbles:
                break
            if rng.random() < self.alt_rate:
                allele = self.alt[self.alt_off[i]:self.alt_off[i + 1]]
            else:
                allele = self.backbone[self.at[i]:self.at[i] + self.ref_len[i]]
            parts.append(allele)
            have += len(allele)
            i += 1
        return np.concatenate(parts) if parts else np.zeros(0, np.uint8)


def add_errors(seq: np.ndarray, rate: float, rng) -> np.ndarray:
    """Substitutions (2/3 of ``rate``), deleted bases (1/6) and inserted bases (1/6), per base."""
    r = rng.random(len(seq))
    sub = r < rate * 2 / 3
    dele = (r >= rate * 2 / 3) & (r < rate * 5 / 6)
    ins = (r >= rate * 5 / 6) & (r < rate)
    out = seq.copy()
    out[sub] = (out[sub] + rng.integers(1, 4, int(sub.sum()), dtype=np.uint8)) % 4
    copies = np.ones(len(seq), np.int64)
    copies[dele] = 0
    copies[ins] = 2
    out = np.repeat(out, copies)
    # the second copy of an inserted base becomes a random base
    ends = np.cumsum(copies) - 1
    extra = ends[ins]
    out[extra] = rng.integers(0, 4, len(extra), dtype=np.uint8)
    return out


def write_reads(pg: Pangenome, path: str, count: int, length: int, error_rate: float, fmt: str, seed: int,
                bases: int) -> int:
    """``count`` reads of ``length`` bases; returns the bases written."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1, bases, count, length]))
    span = int(length * (1 + 2 * error_rate) * 1.1) + 20
    starts = rng.integers(0, max(len(pg.backbone) - span, 1), count)
    flips = rng.random(count) < 0.5
    records, total = [], 0
    for r in range(count):
        seq = add_errors(pg.walk(int(starts[r]), span, rng), error_rate, rng)[:length]
        if flips[r]:
            seq = 3 - seq[::-1]
        text = LETTERS[seq].tobytes()
        total += len(text)
        name = b"r%d_%d_%s" % (r, starts[r], b"-" if flips[r] else b"+")
        if fmt == "fastq":
            records.append(b"@%s\n%s\n+\n%s\n" % (name, text, b"I" * len(text)))
        else:
            records.append(b">%s\n%s\n" % (name, text))
    with open(path, "wb") as fh:
        fh.write(b"".join(records))
    return total


def int_list(text: str) -> list[int]:
    return [int(float(x)) for x in text.split(",") if x.strip()]


def simulate(out_dir: str, bases: int = 5_000_000, reads: list[int] = (10000, 100),
             read_length: list[int] = (150, 10000), error_rate: float = 0.03, seed: int = 1,
             spacing: tuple[int, int] = (50, 100), snp: float = 0.7, max_indel: int = 5, alt_rate: float = 0.5,
             fmt: str = "fastq", name: str = "sim", quiet: bool = False) -> tuple[str, list[str]]:
    """Write the graph and the read files; returns their paths (as ``paths()``)."""
    reads, read_length = list(reads), list(read_length)
    if len(reads) != len(read_length):
        raise SystemExit("--reads and --read-length need the same number of values")
    os.makedirs(out_dir, exist_ok=True)
    gfa_path, read_paths = paths(out_dir, name, reads, read_length, fmt)
    t0 = time.perf_counter()
    pg = Pangenome(bases, seed, spacing, snp, max_indel, alt_rate)
    text = pg.gfa()
    with open(gfa_path, "wb") as fh:
        fh.write(text)
    kinds = np.bincount(pg.kind, minlength=3)
    seg_bases = len(pg.backbone) + int(pg.alt_off[-1])
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    say(f"{gfa_path}: {bases:,} backbone bases, {pg.n_bubbles:,} bubbles ({kinds[SNP]:,} SNP, {kinds[DEL]:,} "
        f"deletion, {kinds[INS]:,} insertion), {pg.n_segments:,} segments, {seg_bases:,} segment bases "
        f"({2 * seg_bases:,} oriented), {len(text) / 1e6:.1f} MB, {time.perf_counter() - t0:.1f} s")
    for path, count, length in zip(read_paths, reads, read_length):
        t0 = time.perf_counter()
        total = write_reads(pg, path, count, length, error_rate, fmt, seed, bases)
        say(f"{path}: {count:,} reads of {length:,} bp ({total:,} bases), {time.perf_counter() - t0:.1f} s")
    return gfa_path, read_paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bases", type=lambda x: int(float(x)), default=5_000_000, help="backbone length")
    ap.add_argument("--reads", default="10000,100", help="reads of each file (comma-separated)")
    ap.add_argument("--read-length", default="150,10000", help="read length of each file (comma-separated)")
    ap.add_argument("--error-rate", type=float, default=0.03, help="errors per read base")
    ap.add_argument("--spacing", default="50,100", help="bases between bubbles: LO,HI (uniform)")
    ap.add_argument("--snp", type=float, default=0.7, help="share of SNP bubbles (the rest: half deletions, "
                                                           "half insertions)")
    ap.add_argument("--max-indel", type=int, default=5, help="longest deletion or insertion bubble")
    ap.add_argument("--alt-rate", type=float, default=0.5, help="chance that a read's walk takes a bubble's "
                                                                "alternative")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--format", choices=("fastq", "fasta"), default="fastq")
    ap.add_argument("--name", default="sim", help="file name prefix")
    ap.add_argument("--out-dir", default=".", help="folder of the files")
    args = ap.parse_args(argv)
    lo, hi = int_list(args.spacing)
    if not 1 <= args.max_indel < lo:
        raise SystemExit("--max-indel must be at least 1 and below the smallest spacing")
    simulate(args.out_dir, args.bases, int_list(args.reads), int_list(args.read_length), args.error_rate,
             args.seed, (lo, hi), args.snp, args.max_indel, args.alt_rate, args.format, args.name)


if __name__ == "__main__":
    sys.exit(main())
