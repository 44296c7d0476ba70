"""Bit scores and E-values of local alignments (Karlin-Altschul), from NCBI BLAST's published parameters.

For a local alignment of score S between a query of m letters and a
database (or one target) of n letters:

    bit score = (lambda * S - ln K) / ln 2
    E-value   = K * m * n * exp(-lambda * S)

with lambda and K of the matrix and gap costs (``data/karlin_altschul.tsv``).
No length correction is applied: the search space is the query's length
times the database's residues, as given (BLAST subtracts an expected HSP
length from both; its E-values are therefore smaller by a few per cent on
short sequences, its bit scores equal). Only the built-in matrices have
parameters, and only at the gap costs NCBI tabulates, and only in local
mode: anything else has none (``params`` gives None; writers print ``*``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "karlin_altschul.tsv")


#: BLAST's gap costs for each built-in protein matrix (the ones it takes when only -matrix is given)
DEFAULT_GAPS = {"BLOSUM45": (14, 2), "BLOSUM50": (13, 2), "BLOSUM62": (11, 1), "BLOSUM80": (10, 1),
                "BLOSUM90": (10, 1), "PAM30": (9, 1), "PAM70": (10, 1), "PAM250": (14, 2)}


@dataclass(frozen=True)
class KarlinAltschul:
    lam: float
    K: float

    def bits(self, score):
        """The bit score of a raw score (a number or a numpy array)."""
        return (self.lam * score - math.log(self.K)) / math.log(2)

    def evalue(self, score, m, n):
        """The E-value of a raw score for a search space of m x n letters."""
        import numpy as np

        return self.K * np.asarray(m, float) * np.asarray(n, float) * np.exp(-self.lam * np.asarray(score, float))


@lru_cache(maxsize=None)
def _table() -> dict:
    rows = {}
    with open(_TABLE, encoding="ascii") as f:
        for line in f:
            if line.startswith("#") or line.startswith("matrix"):
                continue
            name, go, ge, lam, k, _h = line.split("\t")
            rows[(name, int(go), int(ge))] = KarlinAltschul(float(lam), float(k))
    return rows


def params(scoring, mode: str) -> KarlinAltschul | None:
    """The parameters of ``scoring`` (a ``config.Scoring``) in ``mode``, or None where none are published."""
    if mode != "local" or scoring.matrix is None:
        return None
    return _table().get((scoring.matrix.name, scoring.gap_open, scoring.gap_extend))


def why_none(scoring, mode: str) -> str:
    """The one line saying why a run has no E-values."""
    if mode != "local":
        return f"E-values and bit scores are for local alignments; --mode {mode} writes '*' for them"
    name = scoring.matrix.name if scoring.matrix is not None else "match/mismatch scoring"
    return (f"no published Karlin-Altschul parameters for {name} with --gap-open {scoring.gap_open} "
            f"--gap-extend {scoring.gap_extend}: E-values and bit scores are written as '*'")


def evalue_text(e: float) -> str:
    """An E-value as BLAST's tabular output writes it."""
    if e < 1.0e-180:
        return "0.0"
    if e < 1.0e-99:
        return f"{e:2.0e}".strip()
    if e < 0.0009:
        return f"{e:3.0e}".strip()
    if e < 0.1:
        return f"{e:4.3f}"
    if e < 1.0:
        return f"{e:3.2f}"
    if e < 10.0:
        return f"{e:2.1f}"
    return f"{e:2.0f}"


def bits_text(b: float) -> str:
    """A bit score as BLAST's tabular output writes it (whole bits, truncated, past 99.9)."""
    if b > 99999:
        return f"{b:5.3e}"
    if b > 99.9:
        return str(int(b))
    return f"{b:4.1f}".strip()
