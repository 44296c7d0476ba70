"""The chunk rule of pairs (``io/sizing.ChunkSize``): chunks of short records grow up to a record count,
bounded by the letters of each file, never below the least count (but at the end), nothing lost or moved."""

from __future__ import annotations

import random

import pytest

from seqalign_cli import families
from seqalign_cli.errors import InputError
from seqalign_cli.families.pairwise.chunks import PairInputs, pair_chunks
from seqalign_cli.io.sizing import ChunkSize


def _fasta(path, lengths, rng, tag):
    with open(path, "w") as fh:
        for k, n in enumerate(lengths):
            fh.write(f">{tag}{k}\n{''.join(rng.choice('ACGT') for _ in range(n))}\n")


def _expected_counts(qlen, tlen, rule: ChunkSize) -> list[int]:
    """The rule in plain Python: the largest count within ``records`` whose letters fit in each file."""
    counts, at = [], 0
    while at < len(qlen):
        left = len(qlen) - at
        fits = []
        for lengths in (qlen, tlen):
            total = k = 0
            while k < min(rule.records, left) and total + lengths[at + k] <= rule.letters:
                total += lengths[at + k]
                k += 1
            fits.append(k)
        n = min(max(rule.least, min(fits)), left)
        counts.append(n)
        at += n
    return counts


@pytest.mark.parametrize("seed", range(4))
def test_chunks_follow_the_rule_and_keep_every_pair(tmp_path, seed):
    rng = random.Random(seed)
    # stretches of short and of long records, so that the bound cuts some chunks and not others
    qlen = [rng.choice((rng.randint(1, 30), rng.randint(100, 400))) for _ in range(700)]
    tlen = [rng.randint(1, 60) if k % 97 else 900 for k in range(700)]
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    _fasta(q, qlen, rng, "q")
    _fasta(t, tlen, rng, "t")
    rule = ChunkSize(120, least=9, letters=2500)
    chunks = list(pair_chunks(PairInputs(str(q), str(t), "zip", None), rule))
    assert [len(c.q) for c in chunks] == _expected_counts(qlen, tlen, rule)
    assert len({len(c.q) for c in chunks}) > 2  # the rule did cut: counts of the bound, of the least, the most
    names = [(a, b) for c in chunks for a, b in zip(c.q.names_list(), c.t.names_list())]
    assert names == [(f"q{k}", f"t{k}") for k in range(700)]
    assert [n for c in chunks for n in c.q.lengths.tolist()] == qlen
    assert [n for c in chunks for n in c.t.lengths.tolist()] == tlen


def test_unequal_counts_still_said_under_the_rule(tmp_path):
    rng = random.Random(1)
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    _fasta(q, [20] * 300, rng, "q")
    _fasta(t, [20] * 290, rng, "t")
    with pytest.raises(InputError, match="unequal record counts"):
        list(pair_chunks(PairInputs(str(q), str(t), "zip", None), ChunkSize(100, least=10, letters=1000)))


def test_shard_parts_join_to_the_whole_under_the_rule(tmp_path):
    rng = random.Random(2)
    lengths = [rng.randint(5, 200) for _ in range(400)]
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    _fasta(q, lengths, rng, "q")
    _fasta(t, lengths[::-1], rng, "t")
    rule = ChunkSize(64, least=8, letters=3000)
    inputs = PairInputs(str(q), str(t), "zip", None)
    whole = [n for c in pair_chunks(inputs, rule) for n in c.q.names_list()]
    parts = [n for k in (1, 2, 3) for c in pair_chunks(inputs, rule, (k, 3)) for n in c.q.names_list()]
    assert parts == whole == [f"q{k}" for k in range(400)]


def test_a_count_is_a_fixed_rule_and_other_pairings_take_the_least():
    assert ChunkSize.of(77) == ChunkSize(77, 77)
    assert ChunkSize.of(77).next_count(lambda n, letters: 1) == 77
    rule = families.get("pairwise").chunk_size
    assert not rule.fixed and rule.count == rule.least == 16384 and rule.records == 65536
    assert families.get("triplet").chunk_size == 16384
