"""One long pair on the CPU, vectorised inside the pair along anti-diagonals (numba).

The lane groups of ``cpu.py`` vectorise across pairs: a lone long pair
runs in one lane there (0.1-0.2 GCUPS). Here the cells of one anti-diagonal,
which do not depend on each other, are the SIMD lanes: the diagonal's H, E
and F are contiguous arrays indexed by query row, the target letters come
from a reversed copy of the target. Every pass computes a diagonal with
``cpu_diagonal.cells`` (explicit 64-byte vectors: 32 int16 or 16 int32 lanes),
with the cells' direction bytes where a traceback needs them. The
recurrence, the direction bytes and the tie rule are those of ``dp.py``
(``dp.trace`` reads them), in integers: int16 where the pair's
score bound leaves room for a sentinel below every value (``lane_dtype``),
int32 otherwise; past int32 the pair stays on the float routes. Integers
are exact, as the float lanes are, so every output is the same bit for bit.

**int16 first.** The bound counts every base as a match and as a gap at
once: a 10 kb pair needs int32 by it, while its values fit int16. Where the
best possible H and the borders fit int16 (``trial_params``), the pair is
swept in int16 first, the sentinel at the bottom of int16; the forward pass
returns the smallest H it computed, and where that stayed above the
sentinel plus an opening, no difference wrapped and every value is the
exact one (``_Pass.exact``); else the pair goes again in int32 (global
mode's unrelated pairs, whose cells fall past -32 k).

**Tiles.** ``_tile`` computes a rectangle from its top row (H, F) and left
column (H, E) and leaves its bottom row and right column in the same arrays.
``_forward`` sweeps stripes of ``STRIPE`` rows (twice as many in int16)
across the target; a diagonal's arrays, one aligned block (``_buffers``),
stay in the first-level cache. With threads the stripes are cut into tiles
of ``TILE`` columns; thread k takes stripes k, k + threads, ..., each tile
once the stripe above has finished the tile above it (an atomic count of
each stripe's finished tiles, waited on in the compiled loop).

**End cell.** The sweep keeps column N and row M, and ``_end_cell`` replays
``dp.track_row`` on them row by row. Local mode: each diagonal's largest
value is a by-product of the loop; where it reaches the best so far its
first cell is offered (``_offer``), so the best cell ends as the first best
one in row-major order, the cell ``dp``'s row sweep keeps.

**Traceback.** Where the direction bytes of the whole pair fit the matrix
budget and the forward pass runs on one thread (fewer cells than
``THREAD_MIN_CELLS``), the forward pass writes them, stripe by stripe
(``_Pass.keep``, ``_kept_bytes``), and the walk follows them (``_walk_kept``):
no checkpoints, no recompute. Otherwise the forward pass keeps H and F of
rows ``k * block`` (checkpoints, as ``align_long``; stripes are a multiple
of block), and the walk
recomputes one block at a time from its checkpoint, up to the walk's column,
writing direction bytes along the diagonals; a strided view indexes them
(row, column) as ``dp.trace`` reads a full matrix, and ``dp.trace`` and
``dp.finish_ops`` do the rest, so the CIGAR is the existing one. Block
>= ``MIN_BLOCK`` rows where its direction bytes fit the matrix budget.
With threads, each recomputes every threads-th block, up to the walk's
column of the moment (the walk only moves left), while the walk follows the
blocks below; the thread that recomputed a block follows it
(``_walk_part``).

**Measurements** (a shared 2-core AMD EPYC, Zen 4 with AVX-512; pairs with
5 % substitutions and 1 % deletions; global; one thread unless said).
Approach: on a 10 kb pair, a first anti-diagonal loop ran at 3.1 GCUPS in
int32, where parasail's own 32-bit kernels ran at 1.2 (diagonal), 1.9
(striped) and 2.8 (scan): striped lost to its lazy-F corrections, scan
needs lane shifts numba does not express; anti-diagonal it is. That loop,
left to LLVM's vectoriser, paid on entry to every diagonal run-time alias
checks and a scalar remainder (a fifth to a third of a 2 kb pair) and ran
at 5.3 GCUPS int16 (2 kb), 3.5-3.9 int32 (4-10 kb): 0.63-0.8x of parasail's
``nw_scan_16`` at 2 and 10 kb. Now, score only, by the benchmark
``long_pairs_cpu.py`` (parasail in the same run): 2 kb 6.4-8.6 GCUPS,
1.1-1.26x of ``nw_scan_16`` (the forward pass alone 9.5 GCUPS, 1.4x; the
rest is the call's own cost); 10 kb in int16 9.3-10.4 GCUPS, 1.6-1.85x
(synthetic and E. coli); 100 kb in int32 4.8-5.0, 1.9x of ``nw_scan_32``.
Two threads on one pair (timed in turn with one): 1.6-1.7x at 10 kb in
most runs, 1.4-1.45x in some (the wavefront's fill and drain take a tile
each; what else the second core runs), 1.75-1.9x at 100 kb; with traceback
1.6-1.65x at 10 kb and 1.85-1.95x at 100 kb once the walk's blocks were shared
out as ``_walk_part`` does (two blocks at a time through a pool, then followed
by one thread: 1.1-1.5x). Traceback,
against ``nw_trace_scan_16``: with the walk's blocks in a loop LLVM
vectorised and checkpoints at every size, 0.8-0.89x at 2 kb (the recompute
as long as the forward pass) and 4.4-4.9x at 10 kb; with the blocks in
``cpu_diagonal.cells`` and the direction bytes kept by the forward pass where
they fit, 1.3-1.55x at 2 kb, 1.7-2.1x at 3-4 kb (global, local and
semi-global alike) and 5.5-6x at 10 kb (checkpoints, int16).
Tried and dropped (slower, measured the same way): 32-byte vectors; whole
vectors aligned to the rows with the row above made by lane shifts instead
of unaligned loads (two shuffles a vector on this machine); the last,
partial vector of a diagonal recomputed as a whole one overlapping the one
before (E then double-buffered; a second loop entry); stripes of 512-2048
int16 rows (1024 best; 2048 fills the first-level cache and the times then
hang on where the arrays land); tiles of 1024-8192 columns (4096 best);
tiles scheduled by Python threads on condition variables (1.3-1.6x on two
threads); a process-wide pool for the threads instead of threads started
with each pass (no clearer gain). Pure spinning while waiting on another
stripe fell to 1.2x when a third process took a core: a waiting thread now
yields its core after ``SPINS`` hints.
The substitution score (compare and select) is a tenth of a vector step.
Routing (``routed``), score only, measured before this kernel: 64 pairs
filling a lane group run at 2.5 GCUPS (100 bp), 4.1 (400 bp), 5.0 (1 kb),
4.4 (2 kb), 4.5 (4 kb); the same pairs through this route at 0.2, 2.3, 4.2,
5.3 and 3.5; one pair alone in its group at 0.1-0.2 at every length,
through this route 0.5 (200 bp), 1.4 (400 bp), 4.1 (1 kb). So pairs of
``LONG_MIN_LEN`` (500) bases or more on both sides take this route when the
batch holds fewer than a lane group's worth of them (the groups run
underfilled), and stay in the groups otherwise. With this kernel the route
runs 64 such pairs at 3.5 (400 bp), 7.1 (1 kb), 8.8 (2 kb) and 9.9 GCUPS
(4 kb) against the groups' 4.7-4.9: the rule is left as it was for now.
With traceback, pairs past the matrix budget (``align_long``, 0.04-0.07
GCUPS) always take it (1.5-1.8 GCUPS at 1 kb).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...config import AlignConfig
from ...jit import nb
from .cpu_diagonal import PAD, VEC_BYTES, cells, load_acquire, spin_pause, store_release, yield_cpu
from .cpu_dp import GLOBAL, LOCAL, N_CODE, SEMI, ST_H, finish_ops, left_value, top_value, trace

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: pairs this long (both sides) take this route when too few to fill a lane group
LONG_MIN_LEN = 500
#: rows of a stripe in int32 lanes (twice as many in int16): the arrays of a diagonal (about 14 kB) stay in
#: the first-level cache
STRIPE = 512
#: tile width for threads (columns)
TILE = 4096
#: rows between checkpoints at least (budget allowing): shorter blocks make the walk's diagonals short
MIN_BLOCK = 512
#: threads inside a pair only from this many cells on
THREAD_MIN_CELLS = 1 << 24
#: spin-wait hints before a thread waiting on the stripe above yields its core (tens of microseconds)
SPINS = 1000
#: a stripe's count of finished tiles that lets every wait on it end (a part that failed)
_RELEASED = 1 << 62

# the scoring parameters in the lane dtype, by position in ``par``
P_MATCH, P_MISMATCH, P_N, P_OPEN_EXT, P_EXT, P_NEG, P_OPEN = range(7)


def lane_dtype(scoring, qlen: int, tlen: int):
    """int16 or int32 where every value of the pair's DP and the sentinel below them fit, else None.

    Values lie in [-bound - open - extend, bound] (``Scoring.score_bound``: H;
    E and F lie at most ``open + extend`` below an H); the sentinel that
    stands for minus infinity is one below, and one extension below that.
    """
    bound = scoring.score_bound(qlen, tlen)
    need = bound + 2 * (scoring.gap_open + scoring.gap_extend) + 2
    for dtype in (np.int16, np.int32):
        if need < np.iinfo(dtype).max:
            return dtype
    return None


def lane_params(scoring, qlen: int, tlen: int, dtype) -> np.ndarray:
    """``par``: match, -mismatch, -n_penalty, open+extend, extend, sentinel, open in ``dtype``."""
    s = scoring
    neg = -(s.score_bound(qlen, tlen) + s.gap_open + s.gap_extend + 1)
    return np.array([s.match, -s.mismatch, -s.n_penalty, s.gap_open + s.gap_extend, s.gap_extend, neg,
                     s.gap_open], dtype)


def trial_params(scoring, qlen: int, tlen: int):
    """int16 ``par`` to try first on a pair whose score bound needs int32, or None where it cannot fit.

    The bound counts every base as a match and as a gap at once; the true
    values lie far inside it. The sentinel goes to the bottom of int16, as low
    as no difference below it wraps (an extension below an E or F, a mismatch
    or N below an H). Tried where the best possible H (``match`` times the
    shorter length) fits and the borders stay above the sentinel plus an
    opening; the sweep then tells whether every H did too (``_Pass.exact``),
    in which case every value is the exact one, else the pair goes again in
    int32. Local mode never fails (H >= 0).
    """
    s = scoring
    top = np.iinfo(np.int16).max
    neg = -top - 1 + max(s.gap_open + 2 * s.gap_extend, s.mismatch, s.n_penalty)
    if s.match * min(qlen, tlen) > top or s.gap_open + s.gap_extend * max(qlen, tlen) >= -(neg + s.gap_open):
        return None
    return np.array([s.match, -s.mismatch, -s.n_penalty, s.gap_open + s.gap_extend, s.gap_extend, neg,
                     s.gap_open], np.int16)


@nb.njit(**_JIT)
def _offer(H0, lo, top, r0, cdiag, best):
    """Local mode: the diagonal's first cell (from row lo of H0) holding its largest value ``top`` (> 0)
    replaces best (score, i, j) if it scores more, or as much at a smaller (i, j); so best ends as the
    first best cell in row-major order, the one ``dp``'s row sweep picks. cdiag: row plus column on the diagonal."""
    a = lo
    while H0[a] != top:
        a += 1
    i = r0 + a
    j = cdiag - a
    if top > best[0] or i < best[1] or (i == best[1] and j < best[2]):
        best[0] = top
        best[1] = i
        best[2] = j


@nb.njit(**_JIT)
def _tile(q, trev, r0, c0, R, C, mode, par, has_n, rowH, rowF, colH, colE, work, dirs, best, marks):
    """Rows r0+1 .. r0+R and columns c0+1 .. c0+C of one pair, one anti-diagonal at a time.

    q: query codes; trev: target codes reversed; has_n: whether either holds
    an N. rowH/rowF (C+1): H and F of row r0 at columns c0 .. c0+C on entry,
    of row r0+R on exit (index 0 is neither read nor written). colH/colE
    (R+1): H and E of column c0 at rows r0 .. r0+R on entry (colE[0]
    unused), of column c0+C on exit. work: (5, R+1) scratch of the lane
    dtype. dirs: None, or the direction bytes of the tile, cell (a, b)
    (1-based in the tile) at ``(a+b-1)*R + a-1`` (the walk's blocks, or the
    forward pass that keeps them). Every pass reads past the ends of q,
    trev, colE, work's rows and dirs (``cpu_diagonal.PAD``: ``_buffers``,
    ``_Pass``, ``_dirs_bytes``, ``_kept_bytes``). best: None, or (local mode)
    the best cell so far (score, i, j), updated with the tile's cells
    (``_offer``). marks: None, or (Hc, Fc, step, first): H and F of tile
    rows step, 2*step ... below R go to rows first, first+1 ... of Hc/Fc at
    columns c0 .. (checkpoints). Returns the smallest H of the tile's cells
    in the modes but local (``_Pass.exact``), else the dtype's largest value.
    """
    N = trev.shape[0]
    T = work.dtype.type
    local = mode == LOCAL
    floor = T(0) if local else par[P_NEG]
    low = T(np.iinfo(work.dtype).max)
    mtc = par[P_MATCH]
    mis = par[P_MISMATCH]
    npn = par[P_N]
    goe = par[P_OPEN_EXT]
    ge = par[P_EXT]
    Hm2 = work[0]
    Hm1 = work[1]
    H0 = work[2]
    Fm1 = work[3]
    F0 = work[4]
    # E by row, updated in place: E[a] holds E(a, 0) (the left column) until
    # the cell (a, 1) replaces it, and E(a, C) (the right column) at the end
    E = colE
    Hm1[0] = colH[0]  # diagonal 0: the corner
    if C > 0:
        colH[0] = rowH[C]
    for e in range(1, R + C + 1):
        if e <= C:  # top border cell (0, e)
            H0[0] = rowH[e]
            F0[0] = rowF[e]
        if e <= R:  # left border cell (e, 0)
            H0[e] = colH[e]
        lo = max(1, e - C)
        hi = min(R, e - 1)
        if hi >= lo:
            # the cell in tile row a: query letter q[r0 + a - 1], target letter trev[N - c0 - e + a]
            if local:
                top = cells(q, trev, Hm2, Hm1, Fm1, E, H0, F0, lo, hi - lo + 1, r0 + lo - 1, N - c0 - e + lo,
                            mtc, mis, npn, goe, ge, True, has_n, floor, dirs, (e - 1) * R + lo - 1)
                if best is not None and top > 0 and top >= best[0]:
                    _offer(H0, lo, top, r0, c0 + e, best)
            else:
                low = cells(q, trev, Hm2, Hm1, Fm1, E, H0, F0, lo, hi - lo + 1, r0 + lo - 1, N - c0 - e + lo,
                            mtc, mis, npn, goe, ge, False, has_n, low, dirs, (e - 1) * R + lo - 1)
            if e - R >= 1:  # bottom row cell (R, e - R)
                rowH[e - R] = H0[R]
                rowF[e - R] = F0[R]
            if e - C >= 1:  # right column cell (e - C, C)
                colH[e - C] = H0[e - C]
            if marks is not None:
                Hc, Fc, step, first = marks
                a = (lo + step - 1) // step * step
                while a <= hi and a < R:
                    Hc[first + a // step - 1, c0 + e - a] = H0[a]
                    Fc[first + a // step - 1, c0 + e - a] = F0[a]
                    a += step
        tmp = Hm2
        Hm2 = Hm1
        Hm1 = H0
        H0 = tmp
        tmp = Fm1
        Fm1 = F0
        F0 = tmp
    return low


@nb.njit(**_JIT)
def _buffers(R, par):
    """colH, colE, work of a forward tile of R rows in the lane dtype. colE and work's rows are the rows of one
    block, each with ``PAD`` elements of slack and aligned so that its row 1 starts a vector (the diagonals'
    stores start there); their places in the cache are then the same from run to run."""
    size = par.itemsize
    lanes = VEC_BYTES // size
    S = (R + 1 + PAD + lanes - 1) // lanes * lanes
    raw = np.empty(6 * S + lanes, par.dtype)
    off = ((VEC_BYTES - size - raw.ctypes.data) % VEC_BYTES) // size
    rows = raw[off:off + 6 * S].reshape(6, S)
    return np.empty(R + 1, par.dtype), rows[5], rows[:5]


@nb.njit(**_JIT)
def _left_column(mode, par, r0, R, colH, colE):
    """colH/colE: H and E of column 0 at rows r0 .. r0+R (the left border)."""
    T = colH.dtype.type
    for a in range(R + 1):
        colH[a] = T(left_value(mode, r0 + a, par[P_OPEN], par[P_EXT]))
        colE[a] = par[P_NEG]


@nb.njit(**_JIT)
def _top_row(mode, par, rowH, rowF):
    """rowH/rowF: H and F of row 0 (the top border)."""
    T = rowH.dtype.type
    for j in range(rowH.shape[0]):
        rowH[j] = T(top_value(mode, j, par[P_OPEN], par[P_EXT]))
        rowF[j] = par[P_NEG]


@nb.njit(**_JIT)
def _stripe_tile(q, trev, mode, par, has_n, r0, R, c0, C, step, Hc, Fc, rowH, rowF, colH, colE, work, best, kept):
    """Columns c0+1 .. c0+C of the stripe of rows r0+1 .. r0+R in the forward pass; returns ``_tile``'s smallest H.

    rowH/rowF: the stripe's top row at columns c0 .. c0+C (see ``_tile``).
    Hc/Fc (rows 0, step, 2*step ...; r0 a multiple of step) receive the
    stripe's top row and its inner checkpoint rows; none when they have no
    rows (score only). best: the stripe's best cell (local mode, else unused).
    kept: empty, or (the stripe as one tile, ``_Pass.keep``) the stripe's
    direction bytes from kept[0] (``_tile``'s layout).
    """
    if kept.shape[0] > 0:
        return _tile(q, trev, r0, c0, R, C, mode, par, has_n, rowH, rowF, colH, colE, work, kept, best, None)
    k = r0 // step
    if Hc.shape[0] > 0:
        Hc[k, c0 + 1:c0 + C + 1] = rowH[1:C + 1]
        Fc[k, c0 + 1:c0 + C + 1] = rowF[1:C + 1]
        return _tile(q, trev, r0, c0, R, C, mode, par, has_n, rowH, rowF, colH, colE, work, None, best,
                     (Hc, Fc, step, k + 1))
    return _tile(q, trev, r0, c0, R, C, mode, par, has_n, rowH, rowF, colH, colE, work, None, best, None)


@nb.njit(**_JIT)
def _wait(spins):
    """One turn of a wait on another thread: a spin-wait hint for the first ``SPINS`` turns, then the core yielded
    (the thread waited on may need it); returns the turns so far."""
    if spins < SPINS:
        spin_pause()
        return spins + 1
    yield_cpu()
    return spins


@nb.njit(**_JIT)
def _forward(q, trev, mode, par, has_n, height, step, Hc, Fc, kept, lastcol, rowH, rowF, best, part, parts, width,
             done, colH, colE, work):
    """The forward pass: stripes of ``height`` rows (a multiple of step), each swept across the target in tiles
    of ``width`` columns. This call takes stripes part, part + parts, ... (``parts`` calls at once, a thread
    each), each tile once the stripe above has finished the tile above it: done[s] counts the finished tiles
    of stripe s (atomics; the waiting thread spins, a tile being long next to the wait, then yields its core
    until the count moves).

    rowH/rowF start as row 0 (``_top_row``) and end as row M; lastcol
    receives column N at rows 1 .. M; best: a row for each stripe (local
    mode). kept: empty, or the direction bytes of every stripe (one tile
    wide: ``_kept_bytes``). colH, colE, work: this call's own ``_buffers``.
    Returns the smallest H (``_tile``).
    """
    M = q.shape[0]
    N = trev.shape[0]
    low = np.iinfo(par.dtype).max
    for s in range(part, (M + height - 1) // height, parts):
        r0 = s * height
        R = min(height, M - r0)
        _left_column(mode, par, r0, R, colH, colE)
        for c in range((N + width - 1) // width):
            c0 = c * width
            C = min(width, N - c0)
            if s > 0:
                spins = 0
                while load_acquire(done, s - 1) <= c:
                    spins = _wait(spins)
            low = min(low, _stripe_tile(q, trev, mode, par, has_n, r0, R, c0, C, step, Hc, Fc, rowH[c0:c0 + C + 1],
                                        rowF[c0:c0 + C + 1], colH, colE, work, best[s],
                                        kept[r0 * (height + N):] if kept.shape[0] > 0 else kept))
            store_release(done, s, c + 1)
        lastcol[r0 + 1:r0 + R + 1] = colH[1:R + 1]
    return low


def _first_best(best):
    """Local mode's end cell from the best cell of each stripe (score, i, j): the highest score, then the
    smallest (i, j); (0, 0, 0) where no cell scores above 0."""
    top = best[:, 0].max()
    if top <= 0:
        return 0, 0, 0
    i, j = min((int(b[1]), int(b[2])) for b in best if b[0] == top)
    return int(top), i, j


@nb.njit(**_JIT)
def _end_cell(mode, lastcol, lastrow):
    """(score, qend, tend) in every mode but local: ``dp.track_row`` replayed on column N and row M, row by row."""
    M = lastcol.shape[0] - 1
    N = lastrow.shape[0] - 1
    if mode == GLOBAL:
        return np.int64(lastrow[N]), M, N
    best = np.int64(-(1 << 62))
    bi = 0
    bj = 0
    if mode == SEMI:
        for i in range(M):
            if lastcol[i] > best:
                best = np.int64(lastcol[i])
                bi = i
                bj = N
    for j in range(N + 1):  # row M: glocal and semi-global
        if lastrow[j] > best:
            best = np.int64(lastrow[j])
            bi = M
            bj = j
    return best, bi, bj


@nb.njit(**_JIT)
def _block_dirs(q, trev, mode, par, has_n, block, Hc, Fc, lo, R, C, colH, colE, work, buf):
    """Direction bytes of rows lo+1 .. lo+R, columns 1 .. C into buf, from checkpoint lo // block (used up).
    colH, colE, work: ``_buffers`` of block rows; buf: ``_dirs_bytes``."""
    if R > 0 and C > 0:
        _left_column(mode, par, lo, R, colH, colE)
        _tile(q, trev, lo, 0, R, C, mode, par, has_n, Hc[lo // block], Fc[lo // block], colH, colE, work, buf,
              None, None)


@nb.njit(**_JIT)
def _trace_block(buf, R, C, lo, mode, i, j, state, ops, nops):
    """``dp.trace`` from (i, j, state) through a block's direction bytes (``_block_dirs``: R rows from lo)."""
    dirs = np.lib.stride_tricks.as_strided(buf, shape=(R, C + 1, 1), strides=(R + 1, R, 1))
    return trace(dirs, 0, lo, mode, i, j, state, lo, ops, nops)


@nb.njit(**_JIT)
def _dirs_bytes(block, M, N):
    """Bytes of direction bytes of the largest block (with ``PAD`` of slack: the diagonals' last vectors)."""
    R = min(block, M)
    return R * (R + N) + PAD


@nb.njit(**_JIT)
def _kept_bytes(height, M, N):
    """Bytes of the direction bytes of every stripe of ``height`` rows (``_Pass.keep``), ``PAD`` included."""
    full = M // height
    R = M - full * height
    return full * height * (height + N) + R * (R + N) + PAD


#: the walk's shared state (``_walk_part``): the next block to follow (-1 once the walk is done); the walk's
#: row, column, state and count of operations after the blocks followed so far; 1 where a part failed
W_NEXT, W_I, W_J, W_STATE, W_NOPS, W_FAILED = range(6)


@nb.njit(**_JIT)
def _walk_part(q, trev, mode, par, has_n, block, Hc, Fc, first, top, part, parts, bufs, colH, colE, work, walk, ops):
    """One part of the checkpointed traceback: recomputes blocks ``first - part``, then ``parts`` blocks further
    up each time, and follows each through its direction bytes once the block below it is followed.

    The walk starts in block ``first`` (``top`` rows of it lie above the end cell) and moves up the blocks. A
    block is recomputed up to the walk's column of the moment, at least the column the walk will enter it at
    (the walk only moves left), into buffer row ``b % parts``. The part that recomputed a block follows it,
    once the block below is followed (``walk[W_NEXT]``: the release that hands over the walk's state and
    ``ops``), before it recomputes its next one into the same row. With one part this is the plain block-by-block
    walk. Each checkpoint is used in place (the walk never comes back to a block). colH, colE, work: this
    part's ``_buffers`` of block rows.
    """
    b = first - part
    while b >= 0:
        if load_acquire(walk, W_NEXT) < 0 or load_acquire(walk, W_FAILED):
            return
        R = top if b == first else block
        C = load_acquire(walk, W_J)
        buf = bufs[b % parts]
        _block_dirs(q, trev, mode, par, has_n, block, Hc, Fc, b * block, R, C, colH, colE, work, buf)
        spins = 0
        while load_acquire(walk, W_NEXT) > b and not load_acquire(walk, W_FAILED):
            spins = _wait(spins)  # the walk is still in the blocks below
        if load_acquire(walk, W_NEXT) != b or load_acquire(walk, W_FAILED):
            return
        i, j, state, nops, done = _trace_block(buf, R, C, b * block, mode, walk[W_I], walk[W_J], walk[W_STATE],
                                               ops, walk[W_NOPS])
        walk[W_I] = i
        walk[W_STATE] = state
        walk[W_NOPS] = nops
        store_release(walk, W_J, j)
        store_release(walk, W_NEXT, -1 if done else b - 1)
        b -= parts


@nb.njit(**_JIT)
def _walk_kept(q, t, mode, height, dirs, i, j, run_op, run_len, stats):
    """The traceback through the direction bytes the forward pass kept (stripes of height rows,
    ``_kept_bytes``) from end cell (i, j): returns (qstart, tstart, runs)."""
    M = q.shape[0]
    N = t.shape[0]
    ops = np.empty(M + N + 1, np.uint8)
    nops = 0
    state = ST_H
    done = False
    while not done:
        lo = ((i - 1) // height) * height if i > 0 else 0
        R = min(height, M - lo)
        buf = dirs[lo * (height + N):]
        i, j, state, nops, done = _trace_block(buf, R, N, lo, mode, i, j, state, ops, nops)
    return i, j, finish_ops(ops, nops, q, t, i, j, run_op, run_len, stats, N_CODE)


class _Pass:
    """One pair's arrays for the passes: codes, lane parameters, checkpoints, borders, the end cell's data."""

    def __init__(self, q, t, mode: int, par: np.ndarray, block: int, stripe: int, want_trace: bool, budget: int):
        self.M, self.N = len(q), len(t)
        self.t = t
        #: the codes with ``PAD`` bytes of slack after them (the forward pass reads past the ends)
        self.q = _padded(q)
        self.trev = _padded(t[::-1])
        self.has_n = bool(self.M and q.max() > 3 or self.N and t.max() > 3)
        self.mode, self.par, self.block = mode, par, block
        #: whether the forward pass keeps the direction bytes of the whole pair (no checkpoints, no recompute):
        #: with traceback, where they fit ``budget`` and the pass runs on one thread
        self.keep = want_trace and self.M * self.N < THREAD_MIN_CELLS and _kept_bytes(stripe, self.M, self.N) <= budget
        #: stripe height: with checkpoints a multiple of the rows between them
        self.stripe = max(1, stripe // block) * block if want_trace and not self.keep else stripe
        self.kept = np.empty(_kept_bytes(stripe, self.M, self.N) if self.keep else 0, np.uint8)
        dt = par.dtype
        nck = -(-self.M // block) if want_trace and not self.keep else 0
        self.Hc = np.empty((nck, self.N + 1), dt)
        self.Fc = np.empty((nck, self.N + 1), dt)
        self.lastcol = np.empty(self.M + 1, dt)
        self.rowH = np.empty(self.N + 1, dt)
        self.rowF = np.empty(self.N + 1, dt)
        #: local mode's best cell (score, i, j) of each stripe
        self.best = np.zeros((max(1, -(-self.M // self.stripe)), 3), np.int64)
        #: whether every value of the forward pass is exact (``trial_params``' check; always so otherwise)
        self.exact = True

    def forward(self, threads: int):
        """The forward pass; returns the end cell (score, qend, tend)."""
        _top_row(self.mode, self.par, self.rowH, self.rowF)
        self.lastcol[0] = self.rowH[self.N]
        if threads > 1 and self.M > self.stripe and self.N > TILE and self.M * self.N >= THREAD_MIN_CELLS \
                and not self.keep:
            low = self._forward_tiles(threads)
        else:
            low = self._stripes(0, 1, max(self.N, 1), np.zeros(self.best.shape[0], np.int64),
                                _buffers(min(self.stripe, self.M), self.par))
        self.exact = self.mode == LOCAL or int(low) > int(self.par[P_NEG]) + int(self.par[P_OPEN])
        self.rowH[0] = left_value(self.mode, self.M, self.par[P_OPEN], self.par[P_EXT])
        if self.mode == LOCAL:
            return _first_best(self.best)
        return _end_cell(self.mode, self.lastcol, self.rowH)

    def _stripes(self, part: int, parts: int, width: int, done, bufs):
        """``_forward``: stripes part, part + parts, ... in tiles of width columns."""
        return _forward(self.q, self.trev, self.mode, self.par, self.has_n, self.stripe, self.block, self.Hc,
                        self.Fc, self.kept, self.lastcol, self.rowH, self.rowF, self.best, part, parts, width, done,
                        *bufs)

    def _forward_tiles(self, threads: int):
        """The forward pass cut into tiles of ``TILE`` columns: thread k takes stripes k, k + threads, ..., tile by
        tile, each tile once the stripe above has finished the tile above it (``_forward``)."""
        done = np.zeros(self.best.shape[0], np.int64)
        bufs = [_buffers(min(self.stripe, self.M), self.par) for _ in range(threads)]
        lows = [np.iinfo(self.par.dtype).max] * threads
        width = -(-self.N // -(-self.N // TILE))  # tiles of equal widths: the threads keep in step

        def part(k):
            lows[k] = self._stripes(k, threads, width, done, bufs[k])

        def release():  # the stripes below a failed part must not wait for it
            done[:] = _RELEASED

        _in_parts(part, threads, release)
        return min(lows)

    def walk(self, i: int, j: int, threads: int, run_op, run_len, stats):
        """The traceback from end cell (i, j): (qstart, tstart, runs)."""
        if self.keep:
            return _walk_kept(self.q, self.t, self.mode, self.stripe, self.kept, i, j, run_op, run_len, stats)
        parts = threads if threads > 1 and self.M * self.N >= THREAD_MIN_CELLS else 1
        return self._walk_blocks(i, j, parts, run_op, run_len, stats)

    def _walk_blocks(self, i: int, j: int, parts: int, run_op, run_len, stats):
        """The checkpointed walk in ``parts`` threads, each recomputing every parts-th block (``_walk_part``)."""
        block = self.block
        first = (i - 1) // block if i > 0 else 0
        walk = np.array([first, i, j, ST_H, 0, 0], np.int64)
        ops = np.empty(self.M + self.N + 1, np.uint8)
        bufs = np.empty((parts, _dirs_bytes(block, self.M, self.N)), np.uint8)
        scratch = [_buffers(min(block, self.M), self.par) for _ in range(parts)]

        def part(k):
            _walk_part(self.q, self.trev, self.mode, self.par, self.has_n, block, self.Hc, self.Fc, first,
                       i - first * block, k, parts, bufs, *scratch[k], walk, ops)

        def release():  # no part waits on a failed one
            walk[W_FAILED] = 1

        _in_parts(part, parts, release)
        i, j = int(walk[W_I]), int(walk[W_J])
        return i, j, finish_ops(ops, int(walk[W_NOPS]), self.q, self.t, i, j, run_op, run_len, stats, N_CODE)


def _in_parts(part, parts: int, release):
    """part(k) for k in 0 .. parts-1 at once, part 0 in the calling thread (a thread started and joined costs a
    tenth of a millisecond, a pool of them three); the first error is raised again once every part has ended.
    release(): ends every wait of the parts on each other, where a part failed or could not start."""
    failed = []

    def run(k):
        try:
            part(k)
        except BaseException as exc:  # raised again by the calling thread
            failed.append(exc)
            release()

    started = []
    try:
        for k in range(1, parts):
            helper = threading.Thread(target=run, args=(k,), daemon=True)
            helper.start()
            started.append(helper)
    except BaseException:
        release()  # the parts started run through, discarded
        for helper in started:
            helper.join()
        raise
    run(0)
    for helper in started:
        helper.join()
    if failed:
        raise failed[0]


def _padded(codes):
    """A copy of codes followed by ``PAD`` zero bytes, as a view of the codes alone."""
    buf = np.zeros(len(codes) + PAD, np.uint8)
    buf[:len(codes)] = codes
    return buf[:len(codes)]


def align_one(q, t, mode: int, pars, block: int, want_trace: bool, threads: int, run_op, run_len, stats, out,
              budget: int = 0):
    """One pair. out receives (score, qstart, qend, tstart, tend, runs); qstart/tstart are -1 score only.

    pars: the lane parameters to try in turn (``trial_params``, then
    ``lane_params``): the first whose forward pass is exact is kept. block:
    rows between checkpoints (traceback). threads: tiles of the forward pass
    and blocks of the walk at once. budget: bytes the forward pass may keep
    as direction bytes of the whole pair (``_Pass.keep``; else checkpoints).
    """
    for par in pars:
        p = _Pass(q, t, mode, par, block, STRIPE * 4 // par.itemsize, want_trace, budget)
        score, i, j = p.forward(threads)
        if p.exact:
            break
    out[:] = (score, -1, i, -1, j, 0)
    if want_trace:
        out[1], out[3], out[5] = p.walk(i, j, threads, run_op, run_len, stats)


def routed(qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, over_budget: np.ndarray, lanes: int) -> np.ndarray:
    """Which pairs of a batch this route takes (the rule and its measurements: the module docstring).

    over_budget: the pairs whose traceback matrix passes the budget (the
    checkpointed route's); lanes: the pairs a lane group holds.
    """
    s = cfg.scoring
    if s.matrix is not None:  # this route scores match/mismatch only: matrices go through the lane groups
        return np.zeros(len(qlen), bool)
    fits = s.score_bound(qlen, tlen) + 2 * (s.gap_open + s.gap_extend) + 2 < np.iinfo(np.int32).max
    long = np.minimum(qlen, tlen) >= LONG_MIN_LEN
    few = np.count_nonzero(long) < lanes
    return fits & ((cfg.traceback & over_budget) | (long & few))


def align_pairs(batch, idx: np.ndarray, cfg: AlignConfig, threads: int, block, out) -> None:
    """Align pairs ``idx`` of ``batch`` into ``out`` (``Alignments``), threads across pairs.

    block(qlen): rows between checkpoints with traceback (the checkpointed
    route's rule), raised towards ``MIN_BLOCK`` where the direction bytes of
    a block stay within the matrix budget. Threads go to pairs; with fewer
    pairs than threads, each pair has its share (``align_one``).
    """
    per_pair = max(1, threads // len(idx))
    mode = cfg.mode_code
    starts = mode.score_only_starts()

    def one(k):
        k = int(k)
        q = batch.query(k)
        t = batch.target(k)
        dtype = lane_dtype(cfg.scoring, len(q), len(t))
        pars = [lane_params(cfg.scoring, len(q), len(t), dtype)]
        trial = trial_params(cfg.scoring, len(q), len(t)) if dtype is not np.int16 else None
        if trial is not None:
            pars.insert(0, trial)
        res = np.zeros(6, np.int64)
        stats = np.zeros(4, np.int64)
        if cfg.traceback:
            r0 = out.cigar.off[k]
            run_op, run_len = out.cigar.op[r0:], out.cigar.length[r0:]
        else:
            run_op, run_len = np.empty(0, np.uint8), np.empty(0, out.cigar.length.dtype)
        rows = max(block(len(q)), min(MIN_BLOCK, cfg.matrix_budget // (len(t) + MIN_BLOCK + 1)))
        align_one(q, t, int(mode), pars, rows, cfg.traceback, per_pair, run_op, run_len, stats, res, cfg.matrix_budget)
        out.score[k], out.qend[k], out.tend[k] = res[0], res[2], res[4]
        if cfg.traceback:
            out.qstart[k], out.tstart[k] = res[1], res[3]
            out.cigar.count[k] = res[5]
            out.stats[k] = stats
        else:
            out.qstart[k], out.tstart[k] = starts

    if threads <= 1 or len(idx) == 1:
        for k in idx:
            one(k)
    else:
        with ThreadPoolExecutor(min(threads, len(idx))) as pool:
            list(pool.map(one, idx))
