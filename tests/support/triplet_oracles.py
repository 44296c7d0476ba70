"""Independent oracles for the ``triplet`` family (exact 3-way alignment).

Nothing here imports ``seqalign_cli``: these are the references the triplet
engines are tested against, written from the definition alone (the DP, the
modes, the tie rules and the column kinds of the triplet specification).

* ``pair_score`` / ``column_score``: the score of two letters and the
  sum-of-pairs score of one column of three letters-or-gaps;
* ``brute_force``: the best score over every alignment of every substring
  triple a mode allows, found by a memoised forward search over all paths
  (the score oracle; it applies no tie rule). ``explicit_best`` is the same
  without memoisation, enumerating every alignment one by one (tiny inputs
  only), so that the memoised search can itself be checked;
* ``ref_align``: a plain-Python 3-D DP that follows the tie rules exactly and
  returns ``(score, begins, ends, columns)``;
* ``rescore`` / ``projection_score``: check that a columns string covers its
  spans exactly and score it, as a sum of pairs and as the sum of the three
  pairwise projections;
* ``gapped_rows``: the three gapped texts of an alignment (MAF checks).

Conventions: letters are case-insensitive, U = T, anything other than ACGT is
N (code 4). A pair with an N scores ``-n_penalty``, a match ``+match``, a
mismatch ``-mismatch``; residue/gap costs ``gap_extend``; gap/gap is free.
Affine gaps (``gap_open`` > 0), the quasi-natural costs: a pair opens a gap
in a column where one of its two sequences has a residue and the other a
gap, unless the previous column has the same (a residue in the first, a
gap in the second); the first column opens every gap it has; each opening
costs ``gap_open`` (``openings``). Column kinds, in tie order:
``M`` (1,1,1), ``a`` (0,1,1), ``b`` (1,0,1), ``c`` (1,1,0), ``A`` (1,0,0),
``B`` (0,1,0), ``C`` (0,0,1): the step each takes in A, B and C.

Modes (names, or the codes 0 global, 1 semi-global, 3 local):

* ``global``: the three sequences end to end;
* ``semi-global``: cells with i == 0, j == 0 or k == 0 are 0 and are not
  computed by the recursion, so an alignment starts on a start face and its
  first column leaves that face (every later cell has i, j, k >= 1); it ends
  on an end face (i == n1, j == n2 or k == n3). The empty alignment counts,
  so the score is >= 0. Columns that would run along a start face before the
  alignment leaves it are not part of any alignment (they are simply not
  scored): with ``match > 2 * gap_extend`` such columns could score
  positively and the semi-global score can then be below the global one;
* ``local``: any start cell, any end cell, the empty alignment included.
"""

from __future__ import annotations

import itertools
import re
from collections import namedtuple
from functools import lru_cache

# ---------------------------------------------------------------- constants

KINDS = "MabcABC"
STEPS = ((1, 1, 1), (0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))
STEP_OF = dict(zip(KINDS, STEPS))
MODES = ("global", "semi-global", "local")
_MODE_CODES = {0: "global", 1: "semi-global", 3: "local"}
GAP = "-"
N_CODE = 4
NEG = float("-inf")

TripletScoring = namedtuple("TripletScoring", "match mismatch gap_open gap_extend n_penalty")
TripletScoring.__doc__ = "A scoring scheme with the attributes of seqalign's Scoring (positive penalties)."
DEFAULT_SCORING = TripletScoring(match=2, mismatch=4, gap_open=0, gap_extend=2, n_penalty=1)

_CODES = [N_CODE] * 256
for _i, _c in enumerate("ACGT"):
    _CODES[ord(_c)] = _i
    _CODES[ord(_c.lower())] = _i
_CODES[ord("U")] = _CODES[ord("u")] = 3

_RUN = re.compile(r"(\d+)([MabcABC])")


# ---------------------------------------------------------------- letters and scores


def mode_name(mode) -> str:
    """The mode's name from a name or a code (0, 1, 3 or an IntEnum of those)."""
    if isinstance(mode, str):
        if mode not in MODES:
            raise ValueError(f"triplet mode must be one of {MODES}, got {mode!r}")
        return mode
    if int(mode) not in _MODE_CODES:
        raise ValueError(f"triplet mode code must be 0, 1 or 3, got {mode!r}")
    return _MODE_CODES[int(mode)]


def _gap(scoring) -> int:
    return scoring.gap_extend


def openings(prev, kind) -> int:
    """Gaps a column of ``kind`` opens after a column of ``prev`` (kind letters or indices; None: no column
    before). Over the three pairs of sequences: one with a residue and one with a gap opens a gap unless the
    previous column has the same residue and gap."""
    step = STEPS[kind] if isinstance(kind, int) else STEP_OF[kind]
    before = None if prev is None else (STEPS[prev] if isinstance(prev, int) else STEP_OF[prev])
    count = 0
    for x, y in ((0, 1), (0, 2), (1, 2)):
        if step[x] != step[y]:
            count += before is None or (before[x], before[y]) != (step[x], step[y])
    return count


def letter_code(x) -> int:
    """0..3 for A C G T (case-insensitive, U = T), 4 (N) for anything else."""
    if isinstance(x, int):
        return _CODES[x] if 0 <= x < 256 else N_CODE
    if len(x) != 1:
        raise ValueError(f"one letter expected, got {x!r}")
    if isinstance(x, (bytes, bytearray)):
        return _CODES[x[0]]
    return _CODES[ord(x)] if ord(x) < 256 else N_CODE


def encode(seq) -> list[int]:
    """The codes (0..4) of a sequence given as str or bytes."""
    if isinstance(seq, str):
        return [_CODES[ord(ch)] if ord(ch) < 256 else N_CODE for ch in seq]
    return [_CODES[byte] for byte in bytes(seq)]


def _pair(x: int, y: int, scoring) -> int:
    """Score of two residue codes."""
    if x == N_CODE or y == N_CODE:
        return -scoring.n_penalty
    return scoring.match if x == y else -scoring.mismatch


def pair_score(x, y, scoring) -> int:
    """Score of two letters (str, bytes or byte values): +match, -mismatch, or -n_penalty with an N."""
    return _pair(letter_code(x), letter_code(y), scoring)


def _column(x, y, z, scoring, g: int) -> int:
    """Sum-of-pairs score of a column of codes, None for a gap."""
    total = 0
    for u, v in ((x, y), (x, z), (y, z)):
        if u is None:
            if v is not None:
                total -= g
        elif v is None:
            total -= g
        else:
            total += _pair(u, v, scoring)
    return total


def column_score(col, scoring) -> int:
    """Sum-of-pairs score of a column of three letters-or-gaps ('-'): pairs s(x, y), residue/gap -g, gap/gap 0."""
    if len(col) != 3:
        raise ValueError(f"a column has three entries, got {col!r}")
    codes = []
    for x in col:
        gap = x in (GAP, b"-", ord("-"))
        codes.append(None if gap else letter_code(x))
    return _column(*codes, scoring, _gap(scoring))


def runs(kinds) -> str:
    """Run-length encoding of a sequence of kind letters ('*' when empty)."""
    return "".join(f"{len(list(grp))}{kind}" for kind, grp in itertools.groupby(kinds)) or "*"


def parse_columns(columns: str) -> list[str]:
    """The kind letters of a columns string ('*' = none); AssertionError when malformed."""
    if columns == "*":
        return []
    pos, kinds = 0, []
    for m in _RUN.finditer(columns):
        assert m.start() == pos and int(m.group(1)) > 0, f"malformed columns string {columns!r}"
        kinds += [m.group(2)] * int(m.group(1))
        pos = m.end()
    assert pos == len(columns) and kinds, f"malformed columns string {columns!r}"
    return kinds


# ---------------------------------------------------------------- mode borders (alignment view)


def _starts(mode: str, n):
    """Cells where an alignment of the mode may start."""
    cells = itertools.product(range(n[0] + 1), range(n[1] + 1), range(n[2] + 1))
    if mode == "global":
        return [(0, 0, 0)]
    if mode == "semi-global":
        return [c for c in cells if min(c) == 0]
    return list(cells)


def _may_end(mode: str, cell, n) -> bool:
    """Whether an alignment of the mode may end at ``cell``."""
    if mode == "global":
        return tuple(cell) == tuple(n)
    if mode == "semi-global":
        return any(x == m for x, m in zip(cell, n))
    return True


def _first_step_ok(mode: str, start, step) -> bool:
    """Semi-global: the first column must leave the start faces (all coordinates >= 1 after it)."""
    return mode != "semi-global" or all(s + d >= 1 for s, d in zip(start, step))


# ---------------------------------------------------------------- brute force (score oracle)


def brute_force(a, b, c, scoring, mode):
    """(score, begins, ends, columns) of a best alignment over every alignment the mode allows.

    Memoised forward search: ``best(cell)`` is the best score of any way to
    go on from ``cell`` (any sequence of columns) to an allowed end cell; the
    result is the best over every allowed start cell (semi-global: the first
    column must leave the start faces). Only the score is a reference: the
    alignment returned is one optimal alignment, not the one the tie rules
    pick. The empty alignment is ``(0, (0,0,0), (0,0,0), '*')``.
    """
    mode = mode_name(mode)
    g = _gap(scoring)
    A, B, C = encode(a), encode(b), encode(c)
    n = (len(A), len(B), len(C))

    def column(cell, step):
        """Generic sum-of-pairs score of the column taking ``step`` from ``cell``."""
        (i, j, k), (di, dj, dk) = cell, step
        return _column(A[i] if di else None, B[j] if dj else None, C[k] if dk else None, scoring, g)

    def moves(cell):
        """(kind index, next cell, column score) of every column that fits after ``cell``."""
        out = []
        for t, step in enumerate(STEPS):
            nxt = (cell[0] + step[0], cell[1] + step[1], cell[2] + step[2])
            if nxt[0] <= n[0] and nxt[1] <= n[1] and nxt[2] <= n[2]:
                out.append((t, nxt, column(cell, step)))
        return out

    @lru_cache(maxsize=None)
    def best(cell, prev):
        """(score, kinds, end) of the best continuation from ``cell`` after a column of kind ``prev`` (None: the
        alignment's start); score -inf when none."""
        top = (0, (), cell) if _may_end(mode, cell, n) else (NEG, (), cell)
        for t, nxt, score in moves(cell):
            if prev is None and not _first_step_ok(mode, cell, STEPS[t]):
                continue  # semi-global: the first column must leave the start faces
            sub, kinds, end = best(nxt, t)
            score += sub - scoring.gap_open * openings(prev, t)
            if score > top[0]:
                top = (score, (KINDS[t],) + kinds, end)
        return top

    def from_start(start):
        """(score, kinds, end) of the best alignment starting at ``start``."""
        return best(start, None)

    top = (NEG, (), None, None)
    for start in _starts(mode, n):
        score, kinds, end = from_start(start)
        if score > top[0]:
            top = (score, kinds, start, end)
    score, kinds, start, end = top
    if not kinds:
        return int(score), (0, 0, 0), (0, 0, 0), "*"
    return int(score), tuple(start), tuple(end), runs(kinds)


def all_alignments(n1: int, n2: int, n3: int):
    """Every 3-way alignment (a tuple of kind letters) of sequences of lengths n1, n2, n3."""
    if n1 == n2 == n3 == 0:
        yield ()
        return
    for kind, (di, dj, dk) in zip(KINDS, STEPS):
        if di <= n1 and dj <= n2 and dk <= n3:
            for rest in all_alignments(n1 - di, n2 - dj, n3 - dk):
                yield (kind,) + rest


def explicit_best(a, b, c, scoring, mode) -> int:
    """The best score by listing every allowed substring triple and every alignment of it (tiny inputs only)."""
    mode = mode_name(mode)
    n = (len(a), len(b), len(c))
    best = NEG
    for start in _starts(mode, n):
        for end in itertools.product(*(range(s, m + 1) for s, m in zip(start, n))):
            if not _may_end(mode, end, n):
                continue
            for kinds in all_alignments(*(e - s for s, e in zip(start, end))):
                if kinds and not _first_step_ok(mode, start, STEP_OF[kinds[0]]):
                    continue
                columns = runs(kinds)
                best = max(best, rescore(a, b, c, start, end, columns, scoring))
    return best


# ---------------------------------------------------------------- reference DP with the tie rules


def _kind_table(A, B, C, scoring):
    """``score(t, i, j, k)``: the spec's score of a column of kind ``t`` ending at cell (i, j, k).

    Its residues are A[i-1], B[j-1], C[k-1] (those it takes): M s(a,b)+s(a,c)+s(b,c),
    a s(b,c)-2g, b s(a,c)-2g, c s(a,b)-2g, A/B/C -2g.
    """
    g2 = 2 * _gap(scoring)
    sab = [[_pair(x, y, scoring) for y in B] for x in A]
    sac = [[_pair(x, z, scoring) for z in C] for x in A]
    sbc = [[_pair(y, z, scoring) for z in C] for y in B]

    def score(t, i, j, k):
        if t == 0:
            return sab[i - 1][j - 1] + sac[i - 1][k - 1] + sbc[j - 1][k - 1]
        if t == 1:
            return sbc[j - 1][k - 1] - g2
        if t == 2:
            return sac[i - 1][k - 1] - g2
        if t == 3:
            return sab[i - 1][j - 1] - g2
        return -g2

    return score


def _dp(A, B, C, scoring, mode: str):
    """The full D array (nested lists) of the triplet DP of a mode, and the column score function."""
    score = _kind_table(A, B, C, scoring)
    n1, n2, n3 = len(A), len(B), len(C)
    semi, local = mode == "semi-global", mode == "local"
    D = [[[0] * (n3 + 1) for _ in range(n2 + 1)] for _ in range(n1 + 1)]
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            for k in range(n3 + 1):
                if semi and (i == 0 or j == 0 or k == 0):
                    continue  # start faces: 0, not computed
                best = None
                for t, (di, dj, dk) in enumerate(STEPS):
                    if di > i or dj > j or dk > k:
                        continue
                    value = D[i - di][j - dj][k - dk] + score(t, i, j, k)
                    if best is None or value > best:
                        best = value
                if best is None:  # (0, 0, 0): no predecessor
                    best = 0
                if local and best < 0:
                    best = 0
                D[i][j][k] = best
    return D, score


def _end_cell(D, n, mode: str):
    """Tie rule 1: the best allowed end cell, the first in (i, j, k) order."""
    if mode == "global":
        return tuple(n)
    best, where = None, None
    for cell in itertools.product(range(n[0] + 1), range(n[1] + 1), range(n[2] + 1)):
        if not _may_end(mode, cell, n):
            continue
        value = D[cell[0]][cell[1]][cell[2]]
        if best is None or value > best:
            best, where = value, cell
    return where


def ref_align(a, b, c, scoring, mode):
    """(score, begins, ends, columns) of the alignment the tie rules pick, by a plain 3-D DP.

    1. end cell: the best allowed one, ties to the smallest (i, j, k)
       lexicographically (global: (n1, n2, n3));
    2. walking back, each cell takes the kind of smallest value (M a b c A B C)
       among those that give D(cell) exactly; the walk stops at (0, 0, 0)
       (global), on the first start-face cell (semi-global) or on the first
       cell with D == 0 (local);
    3. begins = where the walk stops, ends = the end cell;
    4. no columns: ``(score, (0,0,0), (0,0,0), '*')``.
    """
    mode = mode_name(mode)
    if scoring.gap_open:
        raise ValueError("ref_align takes linear gaps; ref_align_affine takes affine ones")
    A, B, C = encode(a), encode(b), encode(c)
    n = (len(A), len(B), len(C))
    D, score = _dp(A, B, C, scoring, mode)
    end = _end_cell(D, n, mode)
    best = D[end[0]][end[1]][end[2]]
    i, j, k = end
    kinds = []
    while True:
        if mode == "global" and (i, j, k) == (0, 0, 0):
            break
        if mode == "semi-global" and min(i, j, k) == 0:
            break
        if mode == "local" and D[i][j][k] == 0:
            break
        for t, (di, dj, dk) in enumerate(STEPS):
            if di > i or dj > j or dk > k:
                continue
            if D[i - di][j - dj][k - dk] + score(t, i, j, k) == D[i][j][k]:
                kinds.append(KINDS[t])
                i, j, k = i - di, j - dj, k - dk
                break
        else:
            raise AssertionError(f"no kind gives D{(i, j, k)} = {D[i][j][k]}")
    if not kinds:
        assert best == 0, "an empty alignment must score 0"
        return 0, (0, 0, 0), (0, 0, 0), "*"
    kinds.reverse()
    return best, (i, j, k), end, runs(kinds)


def _start_ok(mode: str, cell) -> bool:
    """Whether an alignment of the mode may start at ``cell`` (all of its coordinates >= 0)."""
    if mode == "global":
        return cell == (0, 0, 0)
    return mode == "local" or min(cell) == 0


def ref_align_affine(a, b, c, scoring, mode):
    """(score, begins, ends, columns) the tie rules pick with affine gaps, by a plain DP of seven values a cell.

    ``D[t][i][j][k]``: the best score of an alignment whose last column has
    kind t and ends at (i, j, k) (None: no such alignment). A column of kind
    t after a column of kind s costs ``gap_open * openings(s, t)`` more, the
    first column ``gap_open * openings(None, t)``. Semi-global: cells with a
    zero coordinate hold no value, and a first column starts from one of
    them; local: a first column starts from any cell.

    1. end: global (n1, n2, n3) and its first best kind; semi-global and
       local: the first (cell in (i, j, k) order, then kind) of the best value
       on an allowed end cell if it is above 0, else the empty alignment;
    2. walking back from a column of kind t, the previous kind is the first
       s in kind order that gives D exactly; a start wins ties with every s;
    3. no columns: ``(0, (0,0,0), (0,0,0), '*')``.
    """
    mode = mode_name(mode)
    A, B, C = encode(a), encode(b), encode(c)
    n = (len(A), len(B), len(C))
    if n == (0, 0, 0):
        return 0, (0, 0, 0), (0, 0, 0), "*"
    score = _kind_table(A, B, C, scoring)
    go = scoring.gap_open
    cells = list(itertools.product(range(n[0] + 1), range(n[1] + 1), range(n[2] + 1)))
    D = {}  # (t, cell): (value, previous kind or None for a start)
    for cell in cells:
        if mode == "semi-global" and min(cell) == 0:
            continue
        for t, step in enumerate(STEPS):
            prev = tuple(x - d for x, d in zip(cell, step))
            if min(prev) < 0:
                continue
            best, how = None, None
            for s in range(7):
                if (s, prev) in D:
                    value = D[s, prev][0] - go * openings(s, t)
                    if best is None or value > best:
                        best, how = value, s
            if _start_ok(mode, prev):
                value = -go * openings(None, t)
                if best is None or value >= best:
                    best, how = value, None
            if best is not None:
                D[t, cell] = (best + score(t, *cell), how)
    if mode == "global":
        top = [(D[t, n][0], t) for t in range(7) if (t, n) in D]
        value = max(v for v, _ in top)
        end, kind = n, min(t for v, t in top if v == value)
    else:
        value, end, kind = 0, None, None
        for cell in cells:
            if _may_end(mode, cell, n):
                for t in range(7):
                    if (t, cell) in D and D[t, cell][0] > value:
                        value, end, kind = D[t, cell][0], cell, t
        if end is None:
            return 0, (0, 0, 0), (0, 0, 0), "*"
    kinds, cell, t = [], end, kind
    while t is not None:
        kinds.append(KINDS[t])
        how = D[t, cell][1]
        cell = tuple(x - d for x, d in zip(cell, STEPS[t]))
        t = how
    kinds.reverse()
    return value, cell, end, runs(kinds)


def ref_score(a, b, c, scoring, mode) -> int:
    """The optimal score by the plain DP."""
    return ref_align(a, b, c, scoring, mode)[0]


# ---------------------------------------------------------------- rescoring and rows


def _check_spans(seqs, begins, ends, kinds):
    """AssertionError unless the columns start at begins and cover exactly up to ends."""
    assert len(begins) == 3 and len(ends) == 3, "begins and ends are 3-tuples"
    for s, b, e in zip(seqs, begins, ends):
        assert 0 <= b <= e <= len(s), f"span {b}..{e} outside a sequence of length {len(s)}"
    covered = [sum(STEP_OF[kind][x] for kind in kinds) for x in range(3)]
    spans = [e - b for b, e in zip(begins, ends)]
    assert covered == spans, f"columns cover {covered}, spans are {spans}"


def rescore(a, b, c, begins, ends, columns, scoring) -> int:
    """Sum-of-pairs score of ``columns`` walked from ``begins`` (affine gaps: less ``gap_open`` an opening);
    AssertionError unless they cover the spans exactly."""
    g = _gap(scoring)
    seqs = (encode(a), encode(b), encode(c))
    kinds = parse_columns(columns)
    _check_spans(seqs, begins, ends, kinds)
    pos = list(begins)
    total = 0
    prev = None
    for kind in kinds:
        col = []
        for x, d in enumerate(STEP_OF[kind]):
            col.append(seqs[x][pos[x]] if d else None)
            pos[x] += d
        total += _column(*col, scoring, g) - scoring.gap_open * openings(prev, kind)
        prev = kind
    return total


def gapped_rows(a, b, c, begins, columns) -> tuple[str, str, str]:
    """The three gapped texts of the alignment: the spanned letters as given, '-' for gaps."""
    texts = [s if isinstance(s, str) else bytes(s).decode("ascii", "replace") for s in (a, b, c)]
    pos = list(begins)
    rows = ([], [], [])
    for kind in parse_columns(columns):
        for x, d in enumerate(STEP_OF[kind]):
            if d:
                assert pos[x] < len(texts[x]), "columns run past the end of a sequence"
                rows[x].append(texts[x][pos[x]])
                pos[x] += 1
            else:
                rows[x].append(GAP)
    return tuple("".join(r) for r in rows)


def pairwise_linear(row1: str, row2: str, scoring) -> int:
    """Linear score of two gapped rows of equal length, gap/gap columns dropped."""
    if scoring.gap_open:
        raise ValueError("pairwise_linear takes linear gaps")
    g = _gap(scoring)
    assert len(row1) == len(row2)
    total = 0
    for x, y in zip(row1, row2):
        if x == GAP and y == GAP:
            continue
        if x == GAP or y == GAP:
            total -= g
        else:
            total += pair_score(x, y, scoring)
    return total


def projection_score(a, b, c, begins, ends, columns, scoring) -> int:
    """Sum of the three pairwise projections' linear scores (equals ``rescore`` with linear gaps)."""
    _check_spans((a, b, c), begins, ends, parse_columns(columns))
    ra, rb, rc = gapped_rows(a, b, c, begins, columns)
    return (pairwise_linear(ra, rb, scoring) + pairwise_linear(ra, rc, scoring)
            + pairwise_linear(rb, rc, scoring))
