"""The one sequence encoder of every backend: A C G T -> 0 1 2 3, anything else -> 4 (proteins: ``io.alphabet``).

Letters are case-insensitive and U counts as T; N, IUPAC codes and any other
letter become 4 (N), which scores ``-n_penalty`` against everything. The
readers encode whole record blocks through ``encode_block`` (into the buffers
``set_code_buffers`` chose: page-locked ones for a GPU run); ``encode``
and ``encode_many`` serve tests, benchmarks and the API (``make_batch``, ``families/pairwise/batch.py``).
"""

from __future__ import annotations

import numpy as np

from ..jit import nb
from . import alphabet

N_CODE = 4
_JIT = dict(nogil=True, cache=True, boundscheck=False)

_PAIRS = b"ATCGUARYKMSSWWBVDHNNXX"


def _complement_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint8)  # anything else (refused by the readers) is kept
    for k in range(0, len(_PAIRS), 2):
        a, b = _PAIRS[k], _PAIRS[k + 1]
        for x, y in ((a, b), (b, a)) if a != ord("U") else ((a, b),):
            table[x] = y
            table[x | 0x20] = y | 0x20
    return table


#: the complement of each letter, case kept: A<->T, C<->G, U->A (U counts as T), R<->Y, K<->M, B<->V,
#: D<->H; N, S, W and X are their own complements (the one table of reverse strands: pairs and graphs)
COMPLEMENT = _complement_table()


@nb.njit(**_JIT)
def code_of(c):
    """The code of one letter (branch-free, so that loops over letters vectorise)."""
    u = c & 0xDF
    r = np.uint8(N_CODE)
    r = np.uint8(0) if u == 65 else r
    r = np.uint8(1) if u == 67 else r
    r = np.uint8(2) if u == 71 else r
    r = np.uint8(3) if u == 84 else r
    r = np.uint8(3) if u == 85 else r
    return r


@nb.njit(**_JIT)
def encode_into(seq, codes):
    """The codes of the letters ``seq`` written into ``codes`` (uint8 arrays of one length; one vectorised pass)."""
    for q in range(np.uint64(seq.shape[0])):
        codes[q] = code_of(seq[q])


def encode_all(seq: np.ndarray) -> np.ndarray:
    """The codes of the letters ``seq`` (uint8 array) in this run's alphabet."""
    codes = np.empty(len(seq), np.uint8)
    _encode(seq, codes)
    return codes


def _encode(seq: np.ndarray, codes: np.ndarray) -> None:
    if alphabet.current() == alphabet.PROTEIN:
        alphabet.encode_into(seq, alphabet.PROTEIN_TABLE, codes)
    else:
        encode_into(seq, codes)


#: where the readers' codes go (``encode_block``): None for plain arrays, or a function of a length giving a
#: uint8 array; a GPU backend asks for page-locked buffers, which its uploads copy from without staging
_code_buffers = None


def set_code_buffers(alloc) -> None:
    """The buffers of the records' codes from now on (None: plain arrays); set by ``select_backend``."""
    global _code_buffers
    _code_buffers = alloc


def encode_block(seq: np.ndarray) -> np.ndarray:
    """The codes of a record block's letters, in a buffer of the kind ``set_code_buffers`` chose."""
    alloc = _code_buffers
    if alloc is None:
        return encode_all(seq)
    codes = alloc(len(seq))
    _encode(seq, codes)
    return codes


def encode(seq: bytes | str) -> np.ndarray:
    """Codes of one sequence (uint8)."""
    if isinstance(seq, str):
        seq = seq.encode("ascii", "replace")
    return encode_all(np.frombuffer(seq, np.uint8))


def encode_many(seqs: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Flat codes and (n+1,) offsets of many sequences."""
    off = np.zeros(len(seqs) + 1, np.int64)
    if seqs:
        np.cumsum([len(s) for s in seqs], out=off[1:])
    return encode(b"".join(seqs)), off
