"""What makes aligned pairs a read mapper's records: both strands of a query, one primary record per query.

* ``--strand both``: a chunk of n pairs gives a batch of 2n (``both_strands``:
  the pairs as read, then the same pairs with each query reverse-complemented),
  so every engine aligns it unchanged; ``best_strand`` then keeps, for each
  pair, the strand that scores higher, the forward one on a tie.
* ``--cross``: the records of a query are consecutive (a chunk holds whole
  queries); ``primary_roles`` makes the best-scoring record of each query its
  primary, every other one secondary.

The reverse complement (``reverse_complement``) goes through the one
complement table, ``io.encode.COMPLEMENT`` (IUPAC codes, case kept).
"""

from __future__ import annotations

import numpy as np

from ...io.block import RecordBlock
from ...io.encode import COMPLEMENT, encode_all
from ...jit import nb
from .batch import PairBatch
from .formats_sam_bulk import sam_mapped_all
from .results import Alignments, Role

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: every byte as itself (qualities are reversed, not complemented)
_SAME = np.arange(256, dtype=np.uint8)


@nb.njit(**_JIT)
def _orient(buf, off, flip, table):
    """A copy of the segments ``buf[off[k]:off[k + 1]]``, those with ``flip[k]`` reversed through ``table``."""
    n = off.shape[0] - 1
    out = np.empty(off[n], np.uint8)
    for k in range(n):
        a = off[k]
        b = off[k + 1]
        if flip[k]:
            for i in range(b - a):
                out[a + i] = table[buf[b - 1 - i]]
        else:
            for i in range(a, b):
                out[i] = buf[i]
    return out


def reverse_complement(block: RecordBlock, flip: np.ndarray | None = None) -> RecordBlock:
    """``block`` with the records ``flip`` (all where None) reverse-complemented, their qualities reversed."""
    flip = np.ones(len(block), np.uint8) if flip is None else np.ascontiguousarray(flip, np.uint8)
    seq = _orient(block.seq, block.seq_off, flip, COMPLEMENT)
    qual = None if block.qual is None else _orient(block.qual, block.seq_off, flip, _SAME)
    return RecordBlock(block.names, block.name_off, seq, block.seq_off, qual, block.num)


def _twice(off: np.ndarray) -> np.ndarray:
    """The offsets of a buffer followed by a second buffer of the same segments."""
    return np.concatenate([off, off[1:] + off[-1]])


def both_strands(q: RecordBlock, t: RecordBlock) -> PairBatch:
    """The 2n pairs of n: query k with target k, then query k reverse-complemented with target k."""
    forward = q.seq[:q.seq_off[-1]]
    q_codes = encode_all(np.concatenate([forward, reverse_complement(q).seq]))
    t_codes = t.codes()
    return PairBatch(q_codes, _twice(q.seq_off), np.concatenate([t_codes, t_codes]), _twice(t.seq_off))


def best_strand(res: Alignments, n: int) -> Alignments:
    """The results of n pairs from those of ``both_strands``' 2n: each pair's higher score, forward on a tie."""
    reverse = res.score[n:] > res.score[:n]
    out = res.select(np.arange(n, dtype=np.int64) + n * reverse)
    out.strand = reverse.astype(np.uint8)
    return out


def primary_roles(res: Alignments, t: RecordBlock, per_query: int) -> np.ndarray:
    """The ``Role`` of each pair where every ``per_query`` consecutive pairs are one query's records.

    The primary is the query's best-scoring record among those with an
    aligned base (a mapped SAM record), the first in input order on a tie;
    a query without any such record has its first record primary. Score
    only (no alignment known), the best score.
    """
    if res.traceback:
        mapped = sam_mapped_all(t.view(), res.view(), res.cigar.view())
        key = np.where(mapped, res.score, np.iinfo(np.int64).min)
    else:
        key = res.score
    best = key.reshape(-1, per_query).argmax(axis=1)
    role = np.full(res.size, Role.SECONDARY, np.uint8)
    role[np.arange(len(best), dtype=np.int64) * per_query + best] = Role.PRIMARY
    return role
