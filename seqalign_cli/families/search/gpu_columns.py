"""The search's column kernel (``search_columns`` in kernels/search.cu): the database records in registers,
the query streaming through the lanes, each cell pair's scores read from a packed table in shared memory.

The row kernel (``search_local``) keeps the query's rows in registers and builds each row's 16-bit score
pair from two bytes of the profile (a byte permute on the pipe that also runs the recurrence). Here a lane
holds C columns of two records as the index of their pair of classes, and a table of the matrix's scores
packed two by two, ``table[q, a, b] = S[q, a] | S[q, b] << 16``, gives both cells of a row in one load
from shared memory. Letters the matrix scores alike (rows and columns equal: J, U and O as X in the classic
files) share a class, so the table of D classes (D^3 words) stays small; the padding class, last, scores
``PAD_SCORE`` against every class. Records up to the widest shape's G * C residues whose values fit 16
bits go here (``shape_of``), the others to the row kernel (``UP_TO``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.cuda.launch import THREADS as LAUNCH_THREADS, KernelArgs

KERNEL = "search.cu"
#: codes of the database (the row kernel's PROFILE_CODES): the lookup of classes has one entry a code
CODES = 32
#: (lanes G, columns a lane C) by the longest record each holds (G * C), narrowest first: a record goes to the
#: first shape as long as it, so that at most a fifth of a lane's columns is padding from 80 residues on (of the
#: cells computed for the benchmark's database, 87 % are the records', against 80 % with the nine shapes of
#: 2026-12-07; decision note benchmarks/decisions/search_columns.md)
SHAPES = ((4, 16), (4, 20), (4, 24), (4, 28), (4, 32), (8, 20), (8, 24), (8, 28), (8, 32), (16, 20), (16, 24),
          (16, 28), (16, 32), (32, 20), (32, 24), (32, 28), (32, 32))
#: the most bytes of dynamic shared memory the table may take (D^3 words; protein matrices: D <= 28)
TABLE_BYTES = 96 * 1024
#: threads a block of the column kernel: twice the fixed block size (the kernel's SA_COLUMN_THREADS), two blocks
#: a multiprocessor (its launch bounds)
THREADS = 2 * LAUNCH_THREADS
#: the longest record the column kernel takes (None: the widest shape's; 0: none, every record to the row
#: kernel; ``bench_search.py --columns 0`` against ``--columns 1024`` measures the two; decision note
#: benchmarks/decisions/search_columns.md)
UP_TO: int | None = None


@dataclass
class ColumnArgs(KernelArgs):
    """The arguments of ``search_columns`` (its header in kernels/search.cu says what each holds)."""

    KERNEL = KERNEL
    NAME = "search_columns"

    db: object
    db_off: object
    db_len: object
    items: object
    nitems: np.int32
    query: object
    qlen: np.int32
    table: object
    lut: object
    D: np.int32
    gap_oe: np.int32
    gap_e: np.int32
    score: object


@dataclass(frozen=True)
class PairTable:
    """The classes of a scoring and its packed table: ``lut[code]`` a code's class, ``table`` uint32 (D^3)."""

    lut: np.ndarray
    table: np.ndarray
    D: int

    @property
    def nbytes(self) -> int:
        return 4 * self.D ** 3


def pair_table(S: np.ndarray, pad_score: int) -> PairTable:
    """The classes of the codes of ``S`` (equal rows and equal columns) and the table of their score pairs."""
    A = S.shape[0]
    signature = np.concatenate([S, S.T], axis=1)
    _, first, cls = np.unique(signature, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # classes numbered by their first code, the padding class last
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    cls = rank[cls.reshape(-1)]
    D = len(order) + 1
    rep = np.sort(first)  # a code of each class
    scores = np.full((D, D), pad_score, np.int64)
    scores[:D - 1, :D - 1] = S[np.ix_(rep, rep)]
    low = (scores & 0xFFFF).astype(np.uint32)
    high = low << np.uint32(16)
    table = low[:, :, None] | high[:, None, :]  # [q, a, b]: S[q, a] low, S[q, b] high
    lut = np.full(CODES, D - 1, np.uint8)
    lut[:A] = cls
    return PairTable(lut, np.ascontiguousarray(table.reshape(-1)), D)


def shape_of(lengths: np.ndarray, up_to: int | None) -> np.ndarray:
    """Each record's shape (an index of ``SHAPES``), -1 for records longer than the widest or than ``up_to``
    (``UP_TO``'s values)."""
    widths = np.array([g * c for g, c in SHAPES], np.int64)
    which = np.searchsorted(widths, lengths, side="left")
    limit = widths[-1] if up_to is None else min(up_to, int(widths[-1]))
    return np.where((which < len(SHAPES)) & (lengths <= limit) & (limit > 0), which, -1)


def kernel_name(G: int, C: int) -> str:
    return f"search_columns<{int(G)}, {int(C)}>"
