"""Sequence encoding shared by every backend: A C G T -> 0 1 2 3, anything else -> 4.

Letters are case-insensitive and U counts as T; N, IUPAC codes and any other
letter become 4 (N), which scores ``-n_penalty`` against everything.
"""

from __future__ import annotations

import numpy as np

from ..batching import PairBatch

N_CODE = 4
_LUT = np.full(256, N_CODE, np.uint8)
for _code, _letters in enumerate((b"Aa", b"Cc", b"Gg", b"TtUu")):
    for _c in _letters:
        _LUT[_c] = _code


def encode(seq: bytes | str) -> np.ndarray:
    """Codes of one sequence (uint8)."""
    if isinstance(seq, str):
        seq = seq.encode("ascii", "replace")
    return _LUT[np.frombuffer(seq, np.uint8)]


def encode_many(seqs: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Flat codes and (n+1,) offsets of many sequences."""
    off = np.zeros(len(seqs) + 1, np.int64)
    if seqs:
        np.cumsum([len(s) for s in seqs], out=off[1:])
    flat = _LUT[np.frombuffer(b"".join(seqs), np.uint8)]
    return flat, off


def make_batch(queries: list[bytes], targets: list[bytes]) -> PairBatch:
    """A PairBatch from parallel lists of query and target sequences."""
    qc, qo = encode_many(queries)
    tc, to = encode_many(targets)
    return PairBatch(qc, qo, tc, to)
