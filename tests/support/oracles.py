"""Independent oracles for the pairwise alignment tests.

Nothing here imports the engine. It holds:

* ``ref_score`` / ``ref_end`` / ``ref_align``: a plain pure-Python Gotoh
  (three matrices) for every mode, for small inputs: the optimal score, the
  end cell, and the whole alignment picked by the README's tie rules;
* ``rescore``: walks a CIGAR over its spans, checks that it covers them exactly
  and that every ``=``/``X`` agrees with the letters, and returns its score;
* ``parasail_score``: the same scores from parasail 1.3.4;
* ``biopython_score``: the same scores from Biopython's ``PairwiseAligner``.

Conventions (the engine's): letters are case-insensitive, U = T, any other
letter is N; a pair involving N scores ``-n_penalty`` (N vs N too, an ``X``);
proteins (``letters``): any letter the matrix lacks is X, every pair is
scored from the matrix, equal letters are '=' (X against X too);
a match scores ``+match``, a mismatch ``-mismatch``; a gap of length k costs
``gap_open + k * gap_extend``. ``I`` = a base only in the query, ``D`` = a base
only in the target. Modes:

* ``global``: both sequences end to end;
* ``semi-global``: leading and trailing gaps free on both sequences, the empty
  alignment (score 0) allowed;
* ``glocal``: the query end to end, the target's leading/trailing bases free;
* ``local``: Smith-Waterman, score 0 means the empty alignment.
"""

from __future__ import annotations

import itertools
import re

MODES = ("global", "semi-global", "glocal", "local")

NEG = float("-inf")

# ---------------------------------------------------------------- letters

_CANON = bytearray(b"N" * 256)
for _c in b"ACGT":
    _CANON[_c] = _c
    _CANON[_c + 32] = _c  # lowercase
_CANON[ord("U")] = ord("T")
_CANON[ord("u")] = ord("T")
CANON = bytes(_CANON)


def canon(seq) -> bytes:
    """The sequence over ACGTN (uppercase, U -> T, anything else -> N)."""
    if isinstance(seq, str):
        seq = seq.encode("ascii", "replace")
    return bytes(seq).translate(CANON)


def letters(seq, scoring) -> bytes:
    """The sequence as ``scoring`` reads it: ``canon`` for DNA; for proteins upper case, and every letter the
    matrix has no row for as X (the documented rule)."""
    if getattr(scoring, "alphabet", "dna") != "protein":
        return canon(seq)
    if isinstance(seq, str):
        seq = seq.encode("ascii", "replace")
    known = scoring.matrix.letters.encode()
    return bytes(c if c in known else ord("X") for c in bytes(seq).upper())


def identical(a: int, b: int, scoring) -> bool:
    """Whether two letters of ``letters`` align as '=': equal, and not N against N in DNA."""
    return a == b and (a != 78 or getattr(scoring, "alphabet", "dna") == "protein")


def pair_score(a: int, b: int, scoring) -> int:
    """Score of two letters (ints of ``letters`` bytes): the matrix's entry, else match/mismatch/N."""
    if getattr(scoring, "matrix", None) is not None:
        return scoring.matrix.score(chr(a), chr(b))
    if a == 78 or b == 78:  # 'N'
        return -scoring.n_penalty
    return scoring.match if a == b else -scoring.mismatch


# ------------------------------------------------------ reference (Gotoh)


def _matrices(q: bytes, t: bytes, scoring, mode: str):
    """Full H matrix of a plain Gotoh recurrence (lists of lists)."""
    if mode not in MODES:
        raise ValueError(mode)
    q = letters(q, scoring)
    t = letters(t, scoring)
    m, n = len(q), len(t)
    go, ge = scoring.gap_open, scoring.gap_extend
    local = mode == "local"
    H = [[NEG] * (n + 1) for _ in range(m + 1)]
    E = [[NEG] * (n + 1) for _ in range(m + 1)]  # D: gap in the query (target-only bases)
    F = [[NEG] * (n + 1) for _ in range(m + 1)]  # I: gap in the target (query-only bases)
    H[0][0] = 0
    for j in range(1, n + 1):
        # leading target-only bases: charged in global mode only
        H[0][j] = -(go + j * ge) if mode == "global" else 0
        E[0][j] = H[0][j] if mode == "global" else NEG
    for i in range(1, m + 1):
        # leading query-only bases: free in semi-global and local modes
        H[i][0] = -(go + i * ge) if mode in ("global", "glocal") else 0
        F[i][0] = H[i][0] if mode in ("global", "glocal") else NEG
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            E[i][j] = max(H[i][j - 1] - go - ge, E[i][j - 1] - ge)
            F[i][j] = max(H[i - 1][j] - go - ge, F[i - 1][j] - ge)
            best = max(H[i - 1][j - 1] + pair_score(q[i - 1], t[j - 1], scoring), E[i][j], F[i][j])
            if local:
                best = max(best, 0)
            H[i][j] = best
    return H, m, n, E, F, q, t


def _end_cells(mode: str, m: int, n: int):
    """Allowed end cells of a mode, in tie order (query end, then target end)."""
    if mode == "global":
        return [(m, n)]
    if mode == "glocal":
        return [(m, j) for j in range(n + 1)]
    if mode == "semi-global":
        cells = {(i, n) for i in range(m + 1)} | {(m, j) for j in range(n + 1)}
        return sorted(cells)
    return [(i, j) for i in range(1, m + 1) for j in range(1, n + 1)]


def ref_end(q, t, scoring, mode: str):
    """(score, qend, tend) of the optimal alignment by the tie rule.

    The end cell is the best allowed end cell, ties going to the smallest query
    end, then the smallest target end. An empty alignment (semi-global ending
    on the border, local score 0, glocal with an empty query) is (0, 0, 0).
    """
    H, m, n = _matrices(q, t, scoring, mode)[:3]
    best, bi, bj = NEG, 0, 0
    for i, j in _end_cells(mode, m, n):
        if H[i][j] > best:
            best, bi, bj = H[i][j], i, j
    if mode == "local" and best <= 0:
        return 0, 0, 0
    if mode == "semi-global" and (bi == 0 or bj == 0):
        return 0, 0, 0
    if mode == "glocal" and m == 0:
        return 0, 0, 0
    if mode == "global" and m == 0 and n == 0:
        return 0, 0, 0
    return int(best), bi, bj


def ref_score(q, t, scoring, mode: str) -> int:
    """Optimal score of a pair (pure Python; keep inputs small)."""
    return ref_end(q, t, scoring, mode)[0]


def ref_align(q, t, scoring, mode: str):
    """(score, qstart, qend, tstart, tend, cigar) by the documented tie rules.

    1. the end cell as in ``ref_end``;
    2. walking back, a cell prefers the diagonal, then ``I``, then ``D``; a gap
       state prefers opening over extending;
    3. in local mode the walk stops at the first cell (walking back) whose
       score is 0. Semi-global and local walks stop on the matrix border;
       global walks to (0, 0); glocal to row 0.
    The empty alignment is (0, 0, 0, 0, 0, '*').
    """
    score, i, j = ref_end(q, t, scoring, mode)
    H, m, n, E, F, cq, ct = _matrices(q, t, scoring, mode)
    if (i, j) == (0, 0) and not (mode == "global" and (m or n)):
        return 0, 0, 0, 0, 0, "*"
    if mode == "global":
        i, j = m, n
    qend, tend = i, j
    go, ge = scoring.gap_open, scoring.gap_extend
    ops = []
    state = "H"
    while True:
        if i == 0 or j == 0:
            if j == 0 and i > 0 and mode in ("global", "glocal"):
                ops += ["I"] * i
                i = 0
            elif i == 0 and j > 0 and mode == "global":
                ops += ["D"] * j
                j = 0
            break
        if state == "H":
            h = H[i][j]
            if mode == "local" and h == 0:
                break
            if h == H[i - 1][j - 1] + pair_score(cq[i - 1], ct[j - 1], scoring):
                ops.append("=" if identical(cq[i - 1], ct[j - 1], scoring) else "X")
                i -= 1
                j -= 1
            elif h == F[i][j]:
                state = "I"
            else:
                assert h == E[i][j]
                state = "D"
        elif state == "I":
            ops.append("I")
            extend = F[i - 1][j] - ge > H[i - 1][j] - go - ge
            state = "I" if extend else "H"
            i -= 1
        else:
            ops.append("D")
            extend = E[i][j - 1] - ge > H[i][j - 1] - go - ge
            state = "D" if extend else "H"
            j -= 1
    ops.reverse()
    cigar = "".join(f"{len(list(g))}{op}" for op, g in itertools.groupby(ops)) or "*"
    return score, i, qend, j, tend, cigar


# ---------------------------------------------------------------- rescoring


class CigarError(AssertionError):
    """A CIGAR that does not describe a valid alignment of its spans."""


_CIGAR_RE = re.compile(r"(\d+)([=XIDM])")


def parse_cigar(cigar: str):
    """[(length, op)] of a CIGAR; '*' or '' is the empty list."""
    if cigar in ("*", ""):
        return []
    runs = []
    pos = 0
    for mt in _CIGAR_RE.finditer(cigar):
        if mt.start() != pos:
            raise CigarError(f"malformed CIGAR {cigar!r}")
        runs.append((int(mt.group(1)), mt.group(2)))
        pos = mt.end()
    if pos != len(cigar):
        raise CigarError(f"malformed CIGAR {cigar!r}")
    return runs


def cigar_counts(cigar: str):
    """(matches, mismatches, inserted bases, deleted bases) of a =/X/I/D CIGAR."""
    c = {"=": 0, "X": 0, "I": 0, "D": 0, "M": 0}
    for ln, op in parse_cigar(cigar):
        c[op] += ln
    return c["="], c["X"], c["I"], c["D"]


def rescore(query, target, qstart, qend, tstart, tend, cigar, scoring, strict=True) -> int:
    """Score of ``cigar`` placed on query[qstart:qend] and target[tstart:tend].

    Raises CigarError if the CIGAR does not cover the spans exactly, if an
    ``=`` is not an identical non-N pair, or an ``X`` is one. With ``strict``,
    zero-length runs and two adjacent runs of the same op are errors too
    (a well-formed CIGAR merges them). ``M`` runs are scored from the letters.
    The empty CIGAR ``*`` needs empty spans and scores 0.
    """
    q = letters(query, scoring)
    t = letters(target, scoring)
    if not (0 <= qstart <= qend <= len(q)) or not (0 <= tstart <= tend <= len(t)):
        raise CigarError(f"spans out of range: q[{qstart}:{qend}] of {len(q)}, "
                         f"t[{tstart}:{tend}] of {len(t)}")
    runs = parse_cigar(cigar)
    go, ge = scoring.gap_open, scoring.gap_extend
    i, j = qstart, tstart
    score = 0
    prev = None
    for ln, op in runs:
        if strict and ln == 0:
            raise CigarError(f"zero-length run in {cigar!r}")
        if strict and op == prev:
            raise CigarError(f"adjacent {op} runs in {cigar!r}")
        prev = op
        if op in "=XM":
            if i + ln > qend or j + ln > tend:
                raise CigarError(f"{cigar!r} runs past its spans")
            for k in range(ln):
                a, b = q[i + k], t[j + k]
                same = identical(a, b, scoring)
                if op == "=" and not same:
                    raise CigarError(f"'=' at q{i + k} t{j + k} pairs {chr(a)}/{chr(b)} in {cigar!r}")
                if op == "X" and same:
                    raise CigarError(f"'X' at q{i + k} t{j + k} pairs {chr(a)}/{chr(b)} in {cigar!r}")
                score += pair_score(a, b, scoring)
            i += ln
            j += ln
        elif op == "I":
            if i + ln > qend:
                raise CigarError(f"{cigar!r} runs past the query span")
            score -= go + ln * ge
            i += ln
        else:  # D
            if j + ln > tend:
                raise CigarError(f"{cigar!r} runs past the target span")
            score -= go + ln * ge
            j += ln
    if i != qend or j != tend:
        raise CigarError(f"{cigar!r} covers q[{qstart}:{i}] t[{tstart}:{j}], "
                         f"spans are q[{qstart}:{qend}] t[{tstart}:{tend}]")
    return score


# ---------------------------------------------------------------- parasail


def _matrix_file(matrix) -> str:
    """An NCBI-format file of ``matrix`` (a ``SubstitutionMatrix``) for the peers to read themselves."""
    import tempfile

    path = _MATRIX_FILES.get(matrix)
    if path is None:
        rows = ["   " + "   ".join(matrix.letters)]
        rows += [c + "".join(f"{v:4d}" for v in row) for c, row in zip(matrix.letters, matrix.scores)]
        with tempfile.NamedTemporaryFile("w", suffix=f".{matrix.name}", delete=False) as f:
            f.write("\n".join(rows) + "\n")
        path = _MATRIX_FILES[matrix] = f.name
    return path


_MATRIX_FILES = {}

_PARASAIL_MATRICES = {}


def _parasail_matrix(scoring):
    import parasail

    if getattr(scoring, "matrix", None) is not None:  # parasail's built-in (the classic values), else the file
        own = getattr(parasail, scoring.matrix.name.lower(), None)
        return own if own is not None else parasail.Matrix(_matrix_file(scoring.matrix))
    key = (scoring.match, scoring.mismatch, scoring.n_penalty)
    mat = _PARASAIL_MATRICES.get(key)
    if mat is None:
        mat = parasail.matrix_create("ACGTN", scoring.match, -scoring.mismatch)
        for k in range(5):
            mat.set_value(4, k, -scoring.n_penalty)
            mat.set_value(k, 4, -scoring.n_penalty)
        _PARASAIL_MATRICES[key] = mat
    return mat


def parasail_score(q, t, scoring, mode: str) -> int:
    """Optimal score from parasail 1.3.4 (both sequences must be non-empty).

    parasail charges ``open' + (k-1)*extend`` for a gap of length k, so
    ``open' = gap_open + gap_extend``. Modes: global = nw, glocal = sg_dx
    (s2, the target, has free end gaps), semi-global = sg (clamped at 0: parasail
    never returns the empty alignment), local = sw.
    """
    import parasail

    q = letters(q, scoring).decode()
    t = letters(t, scoring).decode()
    if not q or not t:
        raise ValueError("parasail cannot align empty sequences")
    mat = _parasail_matrix(scoring)
    go = scoring.gap_open + scoring.gap_extend
    ge = scoring.gap_extend
    fn = {
        "global": parasail.nw_scan_32,
        "semi-global": parasail.sg_scan_32,
        "glocal": parasail.sg_dx_scan_32,
        "local": parasail.sw_scan_32,
    }[mode]
    score = fn(q, t, go, ge, mat).score
    if mode == "semi-global":
        score = max(0, score)
    return int(score)


# ---------------------------------------------------------------- Biopython

_BIO_ALIGNERS = {}


def _bio_aligner(scoring, mode: str):
    from Bio.Align import PairwiseAligner, substitution_matrices

    key = (scoring.match, scoring.mismatch, scoring.gap_open, scoring.gap_extend,
           scoring.n_penalty, mode, getattr(scoring, "matrix", None))
    al = _BIO_ALIGNERS.get(key)
    if al is not None:
        return al
    if key[-1] is not None:  # Biopython's own copy of a built-in matrix, else the file
        name = scoring.matrix.name
        own = name in substitution_matrices.load()
        sub = substitution_matrices.load(name) if own else substitution_matrices.read(_matrix_file(scoring.matrix))
    else:
        sub = substitution_matrices.Array("ACGTN", dims=2)
        for a in "ACGTN":
            for b in "ACGTN":
                if a == "N" or b == "N":
                    sub[a, b] = -scoring.n_penalty
                else:
                    sub[a, b] = scoring.match if a == b else -scoring.mismatch
    al = PairwiseAligner()
    al.substitution_matrix = sub
    al.mode = "local" if mode == "local" else "global"
    al.open_gap_score = -(scoring.gap_open + scoring.gap_extend)
    al.extend_gap_score = -scoring.gap_extend
    # Biopython aligns (target, query): its first argument is our target, its
    # second our query. A Biopython "insertion" is a query base facing a gap in
    # the target (our I); a "deletion" is a target base facing a gap (our D).
    if mode == "semi-global":
        al.end_gap_score = 0
    elif mode == "glocal":
        # the target's leading/trailing bases are free: end deletions cost 0
        # (Biopython >= 1.85 names; older releases call them query end gaps)
        if "end_deletion_score" in dir(type(al)):
            al.end_deletion_score = 0
        else:
            al.query_end_gap_score = 0
    _BIO_ALIGNERS[key] = al
    return al


def biopython_score(q, t, scoring, mode: str) -> int:
    """Optimal score from Biopython's PairwiseAligner (non-empty sequences)."""
    q = letters(q, scoring).decode()
    t = letters(t, scoring).decode()
    if not q or not t:
        raise ValueError("Biopython adapter: empty sequences are left to ref_score")
    score = _bio_aligner(scoring, mode).score(t, q)
    if mode == "semi-global":
        score = max(0.0, score)
    if score != int(score):
        raise AssertionError(f"non-integer Biopython score {score}")
    return int(score)
