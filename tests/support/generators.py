"""Random pair generators and scorings shared by the test files."""

from __future__ import annotations

import random

from seqalign_cli.config import Scoring

from . import graph_oracles

AFFINE = Scoring(match=2, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1)
LINEAR = Scoring(match=2, mismatch=4, gap_open=0, gap_extend=2, n_penalty=1)
BWA = Scoring(match=1, mismatch=4, gap_open=6, gap_extend=1, n_penalty=1)


IUPAC = "RYKMSWBDHV"


def random_dna(rng, n, alphabet="ACGT"):
    return "".join(rng.choice(alphabet) for _ in range(n))


def related_triplet(rng, n, rate=0.15, alphabet="ACGT"):
    """Three mutated copies (substitutions, insertions, deletions) of one random sequence."""
    base = random_dna(rng, n, alphabet)
    return [graph_oracles.mutate(rng, base, rate, alphabet) for _ in range(3)]


def mutate(rng, seq, rate):
    """A copy of seq with substitutions and short indels at about ``rate``."""
    out = []
    i = 0
    while i < len(seq):
        r = rng.random()
        if r < rate * 0.6:
            out.append(rng.choice("ACGT"))
            i += 1
        elif r < rate * 0.8:
            out.append(random_dna(rng, min(int(rng.expovariate(0.5)) + 1, 20)))
        elif r < rate:
            i += min(int(rng.expovariate(0.5)) + 1, 20)
        else:
            out.append(seq[i])
            i += 1
    return "".join(out)


def decorate(rng, seq):
    """Sprinkle the letters the engine must normalise: N, lowercase, U, IUPAC."""
    kind = rng.random()
    if not seq or kind < 0.6:
        return seq
    s = list(seq)
    if kind < 0.72:  # N runs and single Ns
        for _ in range(rng.randint(1, 4)):
            a = rng.randrange(len(s))
            for k in range(a, min(len(s), a + rng.choice((1, 1, 2, 8)))):
                s[k] = "N"
    elif kind < 0.82:  # lowercase stretch
        a = rng.randrange(len(s))
        b = rng.randint(a, len(s))
        s[a:b] = [c.lower() for c in s[a:b]]
    elif kind < 0.9:  # RNA
        s = ["U" if c == "T" else c for c in s]
    elif kind < 0.97:  # IUPAC codes
        for _ in range(rng.randint(1, 3)):
            s[rng.randrange(len(s))] = rng.choice(IUPAC + IUPAC.lower() + "n")
    else:  # mixed everything
        s = [rng.choice("ACGTNacgtnUuRy") for _ in s]
    return "".join(s)


def random_length(rng, long_share):
    r = rng.random()
    if r < 0.02:
        return 0
    if r < 0.07:
        return rng.randint(1, 5)
    if r < 1 - long_share:
        return rng.randint(1, 300)
    return rng.randint(300, 2000)


def random_pair(rng, long_share=0.01):
    m = random_length(rng, long_share)
    kind = rng.random()
    if kind < 0.35 or m == 0:  # unrelated
        q = random_dna(rng, m)
        t = random_dna(rng, random_length(rng, long_share) if rng.random() < 0.5 else
                       max(0, m + rng.randint(-20, 60)))
    elif kind < 0.75:  # mutated copy
        q = random_dna(rng, m)
        t = mutate(rng, q, rng.choice((0.0, 0.01, 0.05, 0.15, 0.3)))
    elif kind < 0.9:  # query inside a longer target (read vs window)
        q = random_dna(rng, m)
        t = (random_dna(rng, rng.randint(0, 60)) + mutate(rng, q, rng.choice((0.02, 0.1)))
             + random_dna(rng, rng.randint(0, 60)))
    else:  # overlap: query suffix = target prefix
        q = random_dna(rng, m)
        k = rng.randint(0, m)
        t = mutate(rng, q[m - k:], 0.05) + random_dna(rng, rng.randint(0, 200))
    if rng.random() < 0.5:
        q, t = t, q
    return decorate(rng, q), decorate(rng, t)


def random_pairs(seed, count, long_share=0.01):
    rng = random.Random(seed)
    pairs = [random_pair(rng, long_share) for _ in range(count)]
    return [p[0] for p in pairs], [p[1] for p in pairs]


