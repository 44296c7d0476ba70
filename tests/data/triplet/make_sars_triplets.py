"""Re-create the SARS-CoV-2 triplet set in this folder from sars_20.fa (20 public genomes).

Run from the repository root::

    python tests/data/triplet/make_sars_triplets.py [--src PATH/TO/sars_20.fa]

(default source: ../shared/data/genomes/twilight/dataset/sars_20.fa next to the
repository; see tests/data/README.md for provenance). Deterministic (fixed
seed): the same source gives byte-identical files.

It writes 60 triplets, each three windows of the same region of three
different genomes (genome g<k> is the k-th record of the source, coordinates
1-based inclusive in that genome's own sequence; the same region is found in
every genome by exact 16-mer anchors at both ends, so natural indels stay in):

* ``plain``: 20 random windows of 8-200 bases (log-uniform lengths, 8 and
  200 included); the genomes are close, so most are three equal texts;
* ``variable``: 16 windows of 8-200 bases around a site where one genome
  differs from genome 1 (a SNP), the three texts not all equal;
* ``indel``: 5 windows across a natural indel (genome 1, the genome with the
  indel and one more), so that lengths differ and gaps occur inside;
* ``long``: 5 windows of 256-1,024 bases around SNP sites;
* ``natural-N``: 4 windows around N letters the genomes carry;
* ``injected-N``: 5 windows where runs of N (1-40 bases) replace bases of
  one, two or all three members (the record description gives the 1-based
  positions within the window, or ``none``);
* ``offset``: 5 windows where the B and C members start and end a few bases
  away from A's region (the description gives the shifts of start/end), so
  that the alignments need gaps at the ends.

The category is the record description's second word (after the accession).

Outputs: ``sars.{a,b,c}.fa`` (lockstep: the t-th records form triplet t),
``sars.interleaved.fa`` (records 3t, 3t+1, 3t+2) and ``sars.expected.tsv``
(index, name1, name2, name3, mode, score) for the default triplet scoring
(match 2, mismatch 4, gap_open 0, gap_extend 2, n_penalty 1), in every mode.

The expected scores come from ``triplet_scores`` below: an exact numpy 3-D DP
of the triplet definition, written here and independent of seqalign_cli. Before
writing, it is cross-checked against ``tests/support/triplet_oracles.py`` (``ref_align``
and ``brute_force``) on random tiny triplets under several scorings, on 12
random triplets of 10-30 bases, and on every triplet of the set of at most
40 bases (``ref_align``).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections import namedtuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SRC = os.path.join(REPO, "..", "shared", "data", "genomes", "twilight", "dataset", "sars_20.fa")
SEED = 20250611
ANCHOR = 16
MODES = ("global", "semi-global", "local")

Scoring = namedtuple("Scoring", "match mismatch gap_open gap_extend n_penalty")
DEFAULT = Scoring(2, 4, 0, 2, 1)
Window = namedtuple("Window", "genome start end seq note")  # 0-based half-open [start, end)

# ---------------------------------------------------------------- the DP (expected scores)

_CODE = np.full(256, 4, np.int8)
for _i, _c in enumerate(b"ACGT"):
    _CODE[_c] = _i
    _CODE[_c + 32] = _i
_CODE[ord("U")] = _CODE[ord("u")] = 3


def encode(seq: str) -> np.ndarray:
    """Codes 0..3 for ACGT (case-insensitive, U = T), 4 (N) for anything else."""
    return _CODE[np.frombuffer(seq.encode("ascii"), np.uint8)]


def triplet_scores(a: str, b: str, c: str, scoring: Scoring = DEFAULT) -> dict:
    """{mode: optimal score} of the triplet DP in the three modes at once (numpy, exact).

    Planes of constant i hold D for (mode, j, k), modes stacked (global,
    semi-global, local). The columns that advance A (M, b, c, A) come from the
    previous plane in whole-plane operations; within a plane, each row j takes
    a and B from row j - 1, and the chain of C columns along k is a running
    maximum (with linear gaps, D[k] = max over k' <= k of X[k'] - 2g(k - k')).
    """
    assert scoring.gap_open == 0, "triplets take linear gaps only"
    g2 = 2 * scoring.gap_extend
    neg = np.int64(-(1 << 40))
    pair = np.full((5, 5), -scoring.mismatch, np.int64)
    np.fill_diagonal(pair, scoring.match)
    pair[4, :] = pair[:, 4] = -scoring.n_penalty
    A, B, C = encode(a), encode(b), encode(c)
    n1, n2, n3 = len(A), len(B), len(C)
    sbc = pair[B[:, None], C[None, :]]  # (n2, n3)
    ramp = np.arange(n3 + 1, dtype=np.int64) * g2
    best_semi = best_local = 0
    prev = None
    for i in range(n1 + 1):
        if i == 0:
            X = np.full((3, n2 + 1, n3 + 1), neg)
            X[0, 0, 0] = 0  # the global origin
        else:
            sab = pair[A[i - 1], B]  # (n2,)
            sac = pair[A[i - 1], C]  # (n3,)
            X = prev - g2  # A: (i-1, j, k)
            np.maximum(X[:, 1:, :], prev[:, :-1, :] + (sab - g2)[None, :, None], out=X[:, 1:, :])  # c
            np.maximum(X[:, :, 1:], prev[:, :, :-1] + (sac - g2)[None, None, :], out=X[:, :, 1:])  # b
            M = sab[:, None] + sac[None, :] + sbc
            np.maximum(X[:, 1:, 1:], prev[:, :-1, :-1] + M[None], out=X[:, 1:, 1:])  # M
        np.maximum(X[2], 0, out=X[2])  # local: max(0, ...)
        cur = X
        for j in range(n2 + 1):
            row = cur[:, j, :]
            if j > 0:
                up = cur[:, j - 1, :]
                np.maximum(row, up - g2, out=row)  # B: (i, j-1, k)
                np.maximum(row[:, 1:], up[:, :-1] + (sbc[j - 1] - g2), out=row[:, 1:])  # a
            if i == 0 or j == 0:
                row[1] = 0  # semi-global start faces
            else:
                row[1, 0] = 0
            row[:] = np.maximum.accumulate(row + ramp, axis=1) - ramp  # C: (i, j, k-1)
        # semi-global end faces: i == n1 (whole plane), j == n2, k == n3
        if i == n1:
            best_semi = max(best_semi, int(cur[1].max()))
        else:
            best_semi = max(best_semi, int(cur[1, n2, :].max()), int(cur[1, :, n3].max()))
        best_local = max(best_local, int(cur[2].max()))
        prev = cur
    return {"global": int(prev[0, n2, n3]), "semi-global": best_semi, "local": best_local}


# ---------------------------------------------------------------- windows


def read_fasta(path: str):
    """[(name, sequence)] of a plain FASTA file."""
    recs = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                recs.append([line[1:].split()[0], []])
            elif line:
                recs[-1][1].append(line)
    return [(name, "".join(parts)) for name, parts in recs]


def find_anchor(genome: str, kmer: str, near: int, span: int = 150):
    """The position of ``kmer`` in ``genome`` closest to ``near`` (within ``span``), or None."""
    if "N" in kmer:
        return None
    lo = max(0, near - span)
    hits, pos = [], genome.find(kmer, lo)
    while 0 <= pos <= near + span:
        hits.append(pos)
        pos = genome.find(kmer, pos + 1)
    return min(hits, key=lambda p: abs(p - near)) if hits else None


def map_position(src: str, dst: str, pos: int):
    """Position ``pos`` of ``src`` in ``dst``, by the first exact 16-mer anchor found at ``pos`` or near it."""
    for delta in (0, -ANCHOR, ANCHOR, -2 * ANCHOR, 2 * ANCHOR, -3 * ANCHOR, 3 * ANCHOR):
        q = pos + delta
        if q < 0 or q + ANCHOR > len(src):
            continue
        hit = find_anchor(dst, src[q:q + ANCHOR], q)
        if hit is not None:
            return hit - delta
    return None


def homologous(genomes, ref: int, start: int, end: int, other: int):
    """(start, end) in genome ``other`` of the region [start, end) of genome ``ref``, or None."""
    src, dst = genomes[ref][1], genomes[other][1]
    s, e = map_position(src, dst, start), map_position(src, dst, end)
    if s is None or e is None or not (end - start) / 2 <= e - s <= 2 * (end - start) or e > len(dst):
        return None
    return s, e


def triplet_at(genomes, members, start: int, length: int, note: str = ""):
    """Three windows of the region [start, start+length) of genome members[0], or None."""
    ref = members[0]
    if start < 0 or start + length > len(genomes[ref][1]):
        return None
    out = []
    for g in members:
        span = (start, start + length) if g == ref else homologous(genomes, ref, start, start + length, g)
        if span is None:
            return None
        out.append(Window(g, span[0], span[1], genomes[g][1][span[0]:span[1]], note))
    return out


def draw_triplet(rng, genomes, length: int, note: str, must=None, around=None, varied=False):
    """A random triplet of three different genomes (``must`` among them, as A), around a position if given.

    ``varied``: only a triplet whose three windows are not all the same text.
    """
    for _ in range(1000):
        members = rng.sample([g for g in range(len(genomes)) if g != must], 3 if must is None else 2)
        if must is not None:
            members = [must] + members
        if around is None:
            start = rng.randrange(100, len(genomes[members[0]][1]) - length - 100)
        else:
            start = max(0, around - rng.randrange(0, length))
        trip = triplet_at(genomes, members, start, length, note)
        if trip is not None and not (varied and len({w.seq for w in trip}) == 1):
            return trip
    raise RuntimeError("no anchored triplet found")


def snp_sites(genomes):
    """[(position, genome)]: where a genome of the reference's length differs from genome 1 (0-based)."""
    ref = genomes[0][1]
    return [(i, g) for g, (_, seq) in enumerate(genomes) if g and len(seq) == len(ref)
            for i in range(len(ref)) if seq[i] != ref[i] and seq[i] in "ACGT"]


def indel_sites(genomes, step: int = 25):
    """[(lo, hi, genome)]: genome 1 intervals across which a genome's anchored offset changes (an indel)."""
    ref = genomes[0][1]
    out = []
    for g in range(1, len(genomes)):
        last = None
        for p in range(100, len(ref) - 100, step):
            hit = find_anchor(genomes[g][1], ref[p:p + ANCHOR], p, span=60)
            if hit is None:
                continue
            if last is not None and hit - p != last[1]:
                out.append((last[0], p + ANCHOR, g))
            last = (p, hit - p)
    return out


def inject_n(rng, window: Window, run: int) -> Window:
    """The window with a run of N replacing ``run`` bases at a random position."""
    pos = rng.randrange(0, len(window.seq) - run + 1)
    seq = window.seq[:pos] + "N" * run + window.seq[pos + run:]
    return window._replace(seq=seq, note=f"{window.note} {pos + 1}-{pos + run}")


def offset(window: Window, genomes, d_start: int, d_end: int) -> Window:
    """The window moved by ``d_start`` bases at its start and ``d_end`` at its end."""
    s, e = window.start + d_start, window.end + d_end
    return window._replace(start=s, end=e, seq=genomes[window.genome][1][s:e],
                           note=f"{window.note} {d_start:+d}/{d_end:+d}")


def log_uniform(rng, lo: int, hi: int) -> int:
    return round(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def make_triplets(genomes, rng):
    """The 60 triplets of the set, each a list of three Windows."""
    out = []
    for length in [8, 200] + [log_uniform(rng, 8, 200) for _ in range(18)]:
        out.append(draw_triplet(rng, genomes, length, "plain"))
    snps = snp_sites(genomes)
    for _ in range(16):
        pos, g = rng.choice(snps)
        out.append(draw_triplet(rng, genomes, log_uniform(rng, 8, 200), "variable", must=g, around=pos,
                                varied=True))
    indels = [site for site in indel_sites(genomes) if site[1] - site[0] <= 120]
    for lo, hi, g in rng.sample(indels, 5):
        for _ in range(1000):
            length = rng.randrange(hi - lo + 10, 200)
            others = rng.sample([x for x in range(1, len(genomes)) if x != g], 1)
            trip = triplet_at(genomes, [0, g] + others, lo - rng.randrange(0, length - (hi - lo)), length, "indel")
            if trip is not None and len({len(w.seq) for w in trip}) > 1:
                break
        else:
            raise RuntimeError("no indel triplet found")
        rng.shuffle(trip)
        out.append(trip)
    for length in (256, 333, 512, 700, 1024):
        pos, g = rng.choice(snps)
        out.append(draw_triplet(rng, genomes, length, "long", must=g, around=pos, varied=True))
    natural = [(g, i) for g, (_, seq) in enumerate(genomes) for i, ch in enumerate(seq) if ch not in "ACGT"]
    for g, pos in [natural[0], natural[len(natural) // 2], natural[-2], natural[-1]]:
        out.append(draw_triplet(rng, genomes, rng.randrange(24, 160), "natural-N", must=g, around=pos))
    # injected N: (window length, N run length per member, 0 = untouched)
    for length, runs in ((40, [3, 0, 0]), (96, [1, 1, 0]), (150, [12, 0, 7]), (120, [40, 0, 0]), (64, [5, 9, 2])):
        trip = draw_triplet(rng, genomes, length, "injected-N")
        out.append([inject_n(rng, w, r) if r else w._replace(note="injected-N none") for w, r in zip(trip, runs)])
    # offset: B and C moved by (start, end) bases
    for length, (db, dc) in ((30, ((2, -1), (-3, 2))), (60, ((5, 0), (0, -4))), (100, ((-6, 3), (4, 4))),
                             (150, ((1, 1), (-2, -2))), (180, ((3, -5), (-1, 6)))):
        a, b, c = draw_triplet(rng, genomes, length, "offset")
        out.append([a._replace(note="offset +0/+0"), offset(b, genomes, *db), offset(c, genomes, *dc)])
    return out


# ---------------------------------------------------------------- cross-checks and output


def cross_check(triplets, rng):
    """The DP against tests/support/triplet_oracles.py: random tiny triplets, and the set's short triplets."""
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from support import triplet_oracles as oracles

    scorings = [DEFAULT, Scoring(5, 3, 0, 1, 2), Scoring(1, 1, 0, 0, 0), Scoring(3, 2, 0, 1, 0)]
    for _ in range(400):
        a, b, c = ("".join(rng.choice("ACGTN") for _ in range(rng.randrange(0, 6))) for _ in range(3))
        sc = rng.choice(scorings)
        got = triplet_scores(a, b, c, sc)
        for mode in MODES:
            want = oracles.ref_align(a, b, c, sc, mode)[0]
            assert got[mode] == want == oracles.brute_force(a, b, c, sc, mode)[0], (a, b, c, sc, mode, got)
    for _ in range(12):  # unrelated letters, 10-30 bases
        a, b, c = ("".join(rng.choice("ACGTN") for _ in range(rng.randrange(10, 31))) for _ in range(3))
        sc = rng.choice(scorings[:2])
        got = triplet_scores(a, b, c, sc)
        for mode in MODES:
            assert got[mode] == oracles.ref_align(a, b, c, sc, mode)[0], (a, b, c, sc, mode, got)
    checked = 0
    for trip in triplets:
        if max(len(w.seq) for w in trip) <= 40:
            got = triplet_scores(*(w.seq for w in trip))
            for mode in MODES:
                assert got[mode] == oracles.ref_align(*(w.seq for w in trip), DEFAULT, mode)[0], (trip, mode)
            checked += 1
    print(f"cross-check: 400 tiny and 12 random 10-30 base triplets, and {checked} short triplets of the set,"
          " agree with ref_align")


def record_name(w: Window) -> str:
    return f"g{w.genome + 1}:{w.start + 1}-{w.end}"


def record(w: Window, genomes) -> str:
    desc = f"{genomes[w.genome][0]} {w.note}".rstrip()
    return f">{record_name(w)} {desc}\n{w.seq}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=SRC, help="sars_20.fa (default: %(default)s)")
    ap.add_argument("--out", default=HERE, help="output folder (default: this script's folder)")
    args = ap.parse_args()
    genomes = read_fasta(args.src)
    rng = random.Random(SEED)
    triplets = make_triplets(genomes, rng)
    cross_check(triplets, random.Random(SEED + 1))
    files = {x: [] for x in ("a", "b", "c", "interleaved")}
    rows = ["index\tname1\tname2\tname3\tmode\tscore"]
    for t, trip in enumerate(triplets):
        for x, w in zip("abc", trip):
            files[x].append(record(w, genomes))
            files["interleaved"].append(record(w, genomes))
        scores = triplet_scores(*(w.seq for w in trip))
        names = "\t".join(record_name(w) for w in trip)
        rows += [f"{t}\t{names}\t{mode}\t{scores[mode]}" for mode in MODES]
        print(t, names.replace("\t", " "), *(len(w.seq) for w in trip), scores, flush=True)
    for x, recs in files.items():
        with open(os.path.join(args.out, f"sars.{x}.fa"), "w") as fh:
            fh.write("".join(recs))
    with open(os.path.join(args.out, "sars.expected.tsv"), "w") as fh:
        fh.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
