"""Substitution matrices: the built-in ones and NCBI-format files, read into ``SubstitutionMatrix``.

The built-in matrices (``data/``, provenance in ``data/README.md``) are the
classic NCBI files: BLOSUM45/50/62/80/90, PAM30/70/250 for proteins, NUC.4.4
for DNA. BLAST+ ships altered files under the same names (a J column, an X
row of -1, other B and Z values, BLOSUM80 in half bits); a user who wants
those passes the file itself (``--matrix FILE``).

The NCBI format: ``#`` comment lines, a header line of one-character column
letters, then one row a letter: the row's letter and one integer per column.
Rows and columns must name the same letters, each once; letters are taken
case-insensitively. Every fault of a file is one line naming the file and its line (exit 1, bad data).

Imports no numpy (the command line reads the matrix before the engines load);
``table`` builds the engines' array.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import InputError, UsageError

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

#: the built-in matrices by the names ``--matrix`` takes (either case)
BUILTIN = ("BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90", "PAM30", "PAM70", "PAM250", "NUC.4.4")


@dataclass(frozen=True)
class SubstitutionMatrix:
    """A named integer matrix over ``letters`` (upper case): ``scores[i][j]`` scores letters[i] against letters[j]."""

    name: str
    letters: str
    scores: tuple[tuple[int, ...], ...]

    def score(self, a: str, b: str) -> int:
        """The score of two letters (each must be one of ``letters``)."""
        return self.scores[self.letters.index(a.upper())][self.letters.index(b.upper())]

    @property
    def largest(self) -> int:
        """The largest magnitude of any entry (the engines' score bound)."""
        return max(abs(v) for row in self.scores for v in row)

    def row_of(self, letter: str, fallback: str) -> int:
        """The row (and column) index scoring ``letter``: its own, else ``fallback``'s, else -1."""
        for c in (letter.upper(), fallback):
            k = self.letters.find(c)
            if k >= 0:
                return k
        return -1

    def table(self, codes: str, fallback: str, dtype):
        """The engines' substitution array for the alphabet whose code k is the letter ``codes[k]``.

        A letter the matrix has no row for scores as ``fallback`` (X for proteins, N for DNA); where the
        matrix lacks that too, as the matrix's lowest entry against everything.
        """
        import numpy as np

        lowest = min(v for row in self.scores for v in row)
        rows = [self.row_of(c, fallback) for c in codes]
        out = np.full((len(codes), len(codes)), lowest, dtype)
        for x, rx in enumerate(rows):
            for y, ry in enumerate(rows):
                if rx >= 0 and ry >= 0:
                    out[x, y] = self.scores[rx][ry]
        return out


def _fault(where: str, line: int | None, message: str) -> InputError:
    return InputError(message, path=where, line=line)


def parse(text: str, where: str, name: str | None = None) -> SubstitutionMatrix:
    """The matrix in NCBI format ``text`` (``where`` names it in errors: a path, or a built-in's name)."""
    letters = None
    rows: dict[str, tuple[int, ...]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if letters is None:
            if any(len(w) != 1 for w in words):
                raise _fault(where, number, f"the header must be one-letter column names, got {line.strip()!r}")
            letters = "".join(words).upper()
            if len(set(letters)) != len(letters):
                raise _fault(where, number, f"a column letter appears twice in {line.strip()!r}")
            continue
        letter = words[0].upper()
        if len(letter) != 1 or letter not in letters:
            raise _fault(where, number, f"row {words[0]!r} is not one of the header's letters ({letters})")
        if letter in rows:
            raise _fault(where, number, f"row {letter!r} appears twice")
        if len(words) - 1 != len(letters):
            raise _fault(where, number, f"row {letter!r} has {len(words) - 1} values for {len(letters)} columns")
        try:
            rows[letter] = tuple(int(w) for w in words[1:])
        except ValueError:
            word = next(w for w in words[1:] if not w.lstrip("+-").isdigit())
            raise _fault(where, number, f"{word!r} is not an integer score") from None
    if letters is None:
        raise _fault(where, None, "no matrix in it (a header line of column letters, then one row a letter)")
    missing = [c for c in letters if c not in rows]
    if missing:
        raise _fault(where, None, f"no row for {', '.join(repr(c) for c in missing)}")
    return SubstitutionMatrix(name or os.path.basename(where), letters, tuple(rows[c] for c in letters))


def load(name_or_path: str) -> SubstitutionMatrix:
    """A built-in matrix by name (either case), else the NCBI-format file at that path."""
    builtin = {n.upper(): n for n in BUILTIN}.get(name_or_path.upper())
    if builtin is not None:
        with open(os.path.join(_DATA, builtin), encoding="ascii") as f:
            return parse(f.read(), builtin, builtin)
    if not os.path.exists(name_or_path):
        raise UsageError(f"--matrix {name_or_path!r}: neither a built-in matrix ({', '.join(BUILTIN)}) "
                         f"nor a file")
    try:
        with open(name_or_path, encoding="ascii") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{name_or_path}: cannot read the matrix: {getattr(e, 'strerror', None) or e}") from None
    return parse(text, name_or_path)


#: the protein matrix when none is named (BLAST's)
PROTEIN_MATRIX = "BLOSUM62"
#: the largest score the engines and the outputs hold
INT32_MAX = 2**31 - 1


def with_matrix(scoring, alphabet: str, name: str | None, given=frozenset()):
    """``scoring`` (a ``config.Scoring``) with the substitution matrix ``name`` (proteins: ``PROTEIN_MATRIX``
    when none is named; DNA without one: ``scoring`` as it is) and, for proteins, BLAST's gap costs for that
    matrix (11/1 for a matrix file) unless ``given`` names them. ``given``: the scoring fields the user set
    (``gap_open``, ``match``, ...); match, mismatch or n_penalty among them beside a matrix is a usage error,
    as is a matrix whose scores pass 32-bit integers. The one rule of the command line and the Python API."""
    from dataclasses import replace

    from .statistics import DEFAULT_GAPS

    if alphabet == "dna" and name is None:
        return scoring
    clash = [f"--{n.replace('_', '-')}" for n in ("match", "mismatch", "n_penalty") if n in given]
    if clash:
        raise UsageError(f"{' and '.join(clash)} cannot be combined with a substitution matrix (--matrix, "
                         f"--alphabet protein): the matrix scores every pair of letters")
    loaded = load(name or PROTEIN_MATRIX)
    blast = dict(zip(("gap_open", "gap_extend"), DEFAULT_GAPS.get(loaded.name, DEFAULT_GAPS[PROTEIN_MATRIX])))
    gaps = {n: v for n, v in blast.items() if alphabet == "protein" and n not in given}
    scoring = replace(scoring, matrix=loaded, alphabet=alphabet, **gaps)
    if scoring.score_bound(1, 1) > INT32_MAX:
        raise UsageError(f"--matrix {name}: scores of {loaded.largest:,} (with the gap costs) pass 32-bit integers "
                         f"even for one residue against one; scale the matrix down")
    return scoring
