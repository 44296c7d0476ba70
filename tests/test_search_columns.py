"""The search's column kernel, host side (no GPU): the table of packed score pairs gives every pair of codes
the matrix's scores, letters scored alike share a class, padding scores PAD_SCORE against everything, each
record goes to the narrowest shape as long as it, and a query's launches hold every database record once
(16-bit records up to the widest shape in the column kernel, the others in the row kernel)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from seqalign_cli import matrices
from seqalign_cli.config import Scoring
from seqalign_cli.families.search import gpu as gpu_search
from seqalign_cli.families.search import gpu_columns as columns
from seqalign_cli.families.search.cpu import substitution_array
from support.numpy_cupy import numpy_cupy


def _halves(table: np.ndarray, D: int):
    t = table.reshape(D, D, D)
    low = (t & 0xFFFF).astype(np.int64)
    high = (t >> 16).astype(np.int64)
    return np.where(low >= 1 << 15, low - (1 << 16), low), np.where(high >= 1 << 15, high - (1 << 16), high)


@pytest.mark.parametrize("name", ["BLOSUM62", "PAM30", "dna"])
def test_the_table_packs_the_scores_of_every_pair_of_codes(name):
    if name == "dna":
        S = substitution_array(Scoring(match=2, mismatch=4))
    else:
        S = substitution_array(Scoring(matrix=matrices.load(name), alphabet="protein"))
    pt = columns.pair_table(S, gpu_search.PAD_SCORE)
    low, high = _halves(pt.table, pt.D)
    cls = pt.lut[:S.shape[0]]
    q, a, b = np.meshgrid(cls, cls, cls, indexing="ij")
    assert (low[q, a, b] == S[:, :, None]).all()
    assert (high[q, a, b] == S[:, None, :]).all()
    pad = pt.D - 1
    assert (pt.lut[S.shape[0]:] == pad).all() and not (cls == pad).any()
    assert (low[pad] == gpu_search.PAD_SCORE).all() and (low[:, pad] == gpu_search.PAD_SCORE).all()
    assert (high[:, :, pad] == gpu_search.PAD_SCORE).all()


def test_letters_the_matrix_scores_alike_share_a_class():
    from seqalign_cli.io.alphabet import PROTEIN_CODES

    S = substitution_array(Scoring(matrix=matrices.load("BLOSUM62"), alphabet="protein"))
    pt = columns.pair_table(S, gpu_search.PAD_SCORE)
    code = {c: k for k, c in enumerate(PROTEIN_CODES)}
    assert pt.lut[code["J"]] == pt.lut[code["U"]] == pt.lut[code["O"]] == pt.lut[code["X"]]
    assert len(set(pt.lut[[code[c] for c in "ARNDCQEGHILKMFPSTWYVBZX*"]].tolist())) == 24
    assert pt.D == 25 and pt.nbytes == 4 * 25 ** 3 <= columns.TABLE_BYTES


def test_each_record_takes_the_narrowest_shape_as_long_as_it():
    widths = [g * c for g, c in columns.SHAPES]
    assert widths == sorted(widths) and all(32 % g == 0 and c % 2 == 0 for g, c in columns.SHAPES)
    lengths = np.arange(0, widths[-1] + 3)
    shape = columns.shape_of(lengths, None)
    inside = shape >= 0
    assert (~inside == (lengths > widths[-1])).all()
    w = np.array(widths)[shape[inside]]
    assert (w >= lengths[inside]).all()
    narrower = np.concatenate([[0], widths])[shape[inside]]
    assert (narrower < np.maximum(lengths[inside], 1)).all()
    assert (columns.shape_of(lengths, 0) == -1).all()
    assert (columns.shape_of(lengths, 100) >= 0).sum() == 101


@pytest.mark.parametrize("up_to", [None, 300, 0])
@pytest.mark.parametrize("qlen", [50, 700])
def test_a_querys_launches_hold_every_record_once(up_to, qlen):
    rng = np.random.default_rng(5)
    lengths = rng.choice([1, 30, 64, 65, 200, 700, 1024, 1025, 3000, 5000], 300)
    offs = np.concatenate([[0], np.cumsum(lengths)])
    db = SimpleNamespace(offs=offs, lengths=lengths, codes=np.zeros(int(offs[-1]), np.uint8))
    part = gpu_search._Part(numpy_cupy([]), db, 0, len(lengths))
    largest = 11
    launches = part.launches(numpy_cupy([]), qlen, largest, 12, up_to)
    seen = np.concatenate([np.asarray(launch.items).reshape(-1) for launch in launches])
    assert sorted(seen[seen >= 0].tolist()) == list(range(len(lengths)))
    pack = gpu_search.pack16(lengths, qlen, largest, 12)
    for launch in launches:
        recs = np.asarray(launch.items).reshape(-1)
        recs = recs[recs >= 0]
        if launch.C:
            assert pack[recs].all() and (lengths[recs] <= min(launch.G * launch.C, up_to or 1 << 30)).all()
        else:
            assert (~pack[recs] | (columns.shape_of(lengths[recs], up_to) < 0)).all()
    assert any(launch.C for launch in launches) == (up_to != 0)
