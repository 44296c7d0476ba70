"""The alphabet of a run: which letters the readers accept and the codes the engines score.

* ``dna`` (the default): the IUPAC nucleotide codes, encoded by ``io.encode``
  (A C G T -> 0..3, every other accepted letter -> 4, N) and checked by
  ``io.validate``'s vectorised loops.
* ``protein``: the 20 amino acids, B Z X J U O and ``*``, either case. Code k
  is the letter ``PROTEIN_CODES[k]`` (the classic NCBI matrices' order, then
  J U O), so that a matrix row is found once per run, not per letter; a letter
  the matrix has no row for (J, U and O in the classic files) scores as X
  (``matrices.SubstitutionMatrix.table``). Two letters align as ``=`` when
  their codes are equal.

The alphabet is chosen once per process, before any record is read
(``use``: the command line, a worker from its run's scoring), as the code
buffers are (``encode.set_code_buffers``); the readers ask ``current()``.
"""

from __future__ import annotations

import numpy as np

from ..config import ALPHABETS, CODE_LETTERS
from ..jit import nb

DNA, PROTEIN = ALPHABETS

#: the protein codes: code k is this string's k-th letter
PROTEIN_CODES = CODE_LETTERS[PROTEIN]
#: how the accepted protein letters are named in messages
PROTEIN_ACCEPTED = "protein letters (the 20 amino acids, B Z X J U O and '*', either case)"
#: the letters only proteins use (not IUPAC nucleotide codes): ``auto`` picks protein on seeing one
PROTEIN_ONLY = "EFIJLOPQZ*"
_REFUSED = 255
_JIT = dict(nogil=True, cache=True, boundscheck=False)


def _protein_table() -> np.ndarray:
    table = np.full(256, _REFUSED, np.uint8)
    for k, c in enumerate(PROTEIN_CODES):
        table[ord(c)] = k
        table[ord(c.lower())] = k
    return table


#: byte -> protein code (255: not a protein letter)
PROTEIN_TABLE = _protein_table()

_current = DNA


def use(name: str) -> None:
    """The alphabet of every record read from now on in this process."""
    global _current
    if name not in ALPHABETS:
        raise ValueError(f"alphabet must be one of {', '.join(ALPHABETS)}, got {name!r}")
    _current = name


def current() -> str:
    return _current


@nb.njit(**_JIT)
def first_refused(seq, table):
    """Index of the first byte of ``seq`` whose ``table`` code is 255 (refused), else -1."""
    bad = False
    for i in range(seq.shape[0]):  # one pass without a branch first (vectorised), then find it
        bad |= table[seq[i]] == 255
    if not bad:
        return -1
    for i in range(seq.shape[0]):
        if table[seq[i]] == 255:
            return i
    return -1


@nb.njit(**_JIT)
def encode_into(seq, table, codes):
    """``codes[i] = table[seq[i]]`` (uint8 arrays of one length)."""
    for i in range(seq.shape[0]):
        codes[i] = table[seq[i]]
