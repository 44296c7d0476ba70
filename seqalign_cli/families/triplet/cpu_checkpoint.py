"""The traceback of one triplet past the budget, in bounded memory: where the checkpoints go (numba).

Shared by ``cpu_cube`` (linear gaps) and ``cpu_affine`` (affine
gaps); each engine has its own slices, sweeps and walk, and this module
decides what the traceback keeps and where.

**Memory.** A triplet whose direction codes pass ``--max-matrix-mb`` (the
budget) is traced back within one pool of ``pool_bytes`` bytes, made once:
max(budget, ``FLOOR_VALUES`` slices of values + ``FLOOR_CODES`` slices of
codes, of the whole (j, k) plane). The pool holds checkpoints (the values
of one slice of A: one a cell with linear gaps, seven with affine gaps, in
the cell type) and one block of direction codes (a byte a cell, linear;
a word of 4, affine). Beside the pool the traceback takes what the
alignment takes score only (two slices and the pair-score tables, which
the budget never bounds) and a few arrays of a word a slice (the
checkpoint stack, the walk's columns). Below the floor every block would
be swept again from the start of the cube: the floor is the documented
constant of the bound (for 2,000 bp int32 cells: 48 MB linear, 288 MB
affine).

**Schedule.** The walk goes back slice by slice (i, the first sequence).
A checkpoint is the state after slice p, from which slices p + 1.. are
swept again; checkpoints form a stack, packed from the pool's start in
the order of p, and the block of codes goes after the last. Each step
drops the checkpoints at or above the walk's slice; from the highest one
left (or the start of the cube) to the walk's slice lie L slices. If
their codes fit what is left of the pool, they are swept with codes and
the walk goes through them. Otherwise a sweep keeps f new checkpoints,
placed as Griewank's binomial schedule (``revolve``) places them: with f
checkpoints free and at most r sweeps of each slice before the one with
codes, C(f + r + 1, r) blocks of b slices can be walked through (the first
C(f, r - 1)-th part of them before the first checkpoint, and so on), and
(f, b) are taken for the fewest sweeps, then the largest block; a plan
with no checkpoint sweeps up to the last b slices and keeps their codes.

**The walk's rectangle.** The walk only ever moves to smaller j and k, and
a cell's value depends only on cells of smaller or equal i, j and k. So
every sweep after the first computes only the cells j <= the walk's j,
k <= its k: the same values, fewer cells; its checkpoints and codes are
that rectangle's (by anti-diagonal, linear; by row, affine), so they take
less of the pool as the walk goes on. The codes, and therefore the
alignment, are those of the whole cube bit for bit: the tie rules are the
engines' own.
"""

from __future__ import annotations

from ...jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: the pool holds at least this many checkpoints of the whole (j, k) plane...
FLOOR_VALUES = 2
#: ... and this many slices of its direction codes
FLOOR_CODES = 4


@nb.njit(inline="always", **_JIT)
def round8(x):
    """``x`` rounded up to a multiple of 8 (every part of the pool starts 8-byte aligned)."""
    return (x + 7) // 8 * 8


@nb.njit(**_JIT)
def pool_bytes(budget, value_bytes, code_bytes):
    """The traceback's pool: the budget, at least the floor (``value_bytes``: one checkpoint of the whole
    plane, ``code_bytes``: one slice of its codes)."""
    return max(round8(budget), FLOOR_VALUES * round8(value_bytes) + round8(FLOOR_CODES * code_bytes))


@nb.njit(inline="always", **_JIT)
def _blocks(f, r):
    """C(f + r + 1, r): the blocks f free checkpoints and r sweeps walk through (a float: no overflow)."""
    v = 1.0
    for x in range(1, r + 1):
        v = v * (f + 1 + x) / x
    return v


@nb.njit(**_JIT)
def plan(L, free, c, d):
    """(f, r, b) for L slices whose codes pass ``free`` bytes (c: a checkpoint, d: a slice's codes, d <= free):
    f checkpoints, r sweeps before the codes' at most, blocks of b slices; the fewest sweeps, then the largest
    block. Past 64 checkpoints every eighth count is tried (the plan stays within a step of the best)."""
    fmax = (free - d) // c
    best_f, best_r, best_b = 0, L + 1, 1
    f = 0
    while f <= fmax:
        b = (free - f * c) // d
        if f == 0:
            r = (L + b - 1) // b - 1  # C(r + 1, r) = r + 1 blocks, each swept from the start
        else:
            r = 1
            while _blocks(f, r) * b < L:
                r += 1
        if r < best_r or (r == best_r and b > best_b):
            best_f, best_r, best_b = f, r, b
        f = f + 1 if f < 64 else f + f // 8
    return best_f, best_r, best_b


@nb.njit(**_JIT)
def marks(p0, L, f, r, b, out):
    """The slices after which a sweep from slice p0 + 1 keeps its f checkpoints, for L slices (p0 + 1 ..
    p0 + L), into ``out``; returns their count. The binomial schedule's places, scaled to L."""
    total = _blocks(f, r) * b
    cum = 0.0
    last = p0
    count = 0
    for x in range(f):
        cum += _blocks(f - x, r - 1) * b
        m = p0 + int(cum / total * L)
        if m >= p0 + L:
            break
        if m > last:
            out[count] = m
            count += 1
            last = m
    return count

