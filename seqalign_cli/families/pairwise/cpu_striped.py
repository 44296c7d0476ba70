"""Local alignment scores of one query against many targets, in Farrar's striped layout (explicit vectors).

The score pass of ``seqalign search`` in local mode: the query's profile
(``profile``: for each residue kind c, the scores S[c][q_i] of the query
laid out in stripes, lane w holding positions w*seg .. w*seg + seg - 1)
is made once, then each target is swept one letter (column) at a time:

* ``column``: the column's E (a gap in the query, opened from the column
  before's H as the lazy-F pass left it), H and F (a gap in the target,
  carried down the segments) in one pass over the segments, the H of the
  column before read shifted one lane; H floors at 0 (local);
* ``lazy_f``: Farrar's correction, F carried on across the lanes (shifted
  one lane a pass, at most a vector's lanes of passes) while it can still
  raise an H (a vector compare ends it, usually after one segment).

Both are LLVM vector code (32 bytes a step: 32 int8, 16 int16 or 8 int32
lanes), written out rather than left to the loop vectoriser, as
``cpu_diagonal.py``. The arithmetic is exact: int16 lanes (saturating, so
that E and F stop at the type's floor) only where no H can pass the type
(``lane_dtype``: the query's length times the largest substitution score),
else int32; the search's pass first sweeps every record in int8 lanes and
again, wider, only those that reach the int8 top (``local_scores``). A gap
of length k costs ``goe + (k - 1) * ge`` with ``goe = gap_open +
gap_extend``. The search's pass computes only the score (a local alignment
is empty exactly when its score is 0); pairs (``pair_ends``) take their end
cells by the tie rule, in every mode; a traceback keeps every column's H
(``columns``' store) and walks it back (``cpu_striped_trace``).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ...jit import nb

#: bytes per vector step: 16 int16 or 8 int32 lanes (64 bytes was slower: benchmarks/decisions/striped_width.md)
VEC_BYTES = 32
#: the floor of E and F before a column sets them, int16 and int32 lanes (below every real value, far from
#: overflow)
FLOOR16 = -(1 << 15)
FLOOR32 = -(1 << 29)
#: int8 lanes (the search's first local pass): E and F start at the type's floor, H saturates at INT8_TOP;
#: a record whose score reaches it is scored again in wider lanes (``local_scores``)
FLOOR8, INT8_TOP = -128, 127
#: the largest H int16 lanes take (far enough below the type's top that no addition saturates upwards)
INT16_TOP = 30000
#: the profile's score of a padding position (past the query's end): never part of a best alignment
PAD_SCORE = -16000
_JIT = dict(nogil=True, cache=True, boundscheck=False)
#: the modes (``config.Mode``'s codes)
GLOBAL, SEMI_GLOBAL, GLOCAL, LOCAL = 0, 1, 2, 3


def _vector_helpers(builder, bits: int):
    """The vector type of ``bits``-wide lanes and the operations on it: (VT, W, splat, at, vmax, add, sub)."""
    i32, i64 = ir.IntType(32), ir.IntType(64)
    W = VEC_BYTES * 8 // bits
    ity = ir.IntType(bits)
    VT = ir.VectorType(ity, W)

    def splat(x):
        x = builder.trunc(x, ity) if bits < 32 else x
        one = builder.insert_element(ir.Constant(VT, ir.Undefined), x, i32(0))
        return builder.shuffle_vector(one, ir.Constant(VT, ir.Undefined), ir.Constant(ir.VectorType(i32, W), [0] * W))

    def at(p, s):
        return builder.bitcast(builder.gep(p, [builder.mul(s, i64(W))]), VT.as_pointer())

    def vmax(a, b):
        return builder.select(builder.icmp_signed(">=", a, b), a, b)

    def saturating(name):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(VT, [VT, VT]),
                                            f"llvm.{name}.sat.v{W}i{bits}")
        return lambda a, b: builder.call(fn, [a, b])

    add = saturating("sadd") if bits < 32 else builder.add
    sub = saturating("ssub") if bits < 32 else builder.sub
    return VT, W, splat, at, vmax, add, sub


#: the floor of E and F by lane width (bits)
_FLOORS = {8: FLOOR8, 16: FLOOR16, 32: FLOOR32}


def _shifted(builder, v, fill, W):
    """``v`` moved one lane up, lane 0 taking lane 0 of ``fill``."""
    i32 = ir.IntType(32)
    return builder.shuffle_vector(v, fill, ir.Constant(ir.VectorType(i32, W), [W] + list(range(W - 1))))


def _column_codegen(track: bool = False, border: bool = False, sets: int = 1):
    """The code of ``column`` (and, ``track``, of ``column_ends``: each row's largest H and its first column;
    ``border``, of ``column_bordered``: no floor at 0, row -1 from the arguments; ``sets`` = 2, of
    ``column2``: two targets' columns in one loop over the segments, arguments (c, E, Hs, Hl, state) a
    target after the profile)."""

    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        seg_, goe_, ge_ = args[-3:]
        bits = signature.args[2].dtype.bitwidth
        VT, W, splat, at, vmax, add, sub = _vector_helpers(builder, bits)
        base = context.make_array(signature.args[0])(context, builder, args[0]).data
        zero = ir.Constant(VT, [0] * W)
        vgoe, vge = splat(goe_), splat(ge_)
        floor = ir.Constant(VT, [_FLOORS[bits]] * W)
        targets = []  # each set's (profile row, E, Hs, Hl, state pointers; first H, F and running max)
        for k in range(sets):
            a = 1 + 5 * k  # c, E, Hs, Hl, state of the set
            ep, hsp, hlp, sp = (context.make_array(signature.args[a + x])(context, builder, args[a + x]).data
                                for x in (1, 2, 3, 4))
            pp = builder.gep(base, [builder.mul(builder.mul(args[a], seg_), i64(W))])
            vf0, fill = floor, zero
            if border:  # lane 0's first row: H[-1][j-1] on its diagonal, and its F from H[-1][j]
                fill = splat(args[6])
                vf0 = builder.insert_element(floor, builder.trunc(args[7], VT.element) if bits < 32 else args[7],
                                             i32(0))
            vh0 = _shifted(builder, builder.load(at(hlp, builder.sub(seg_, i64(1)))), fill, W)
            vm0 = builder.load(builder.bitcast(sp, VT.as_pointer()))
            targets.append(((pp, ep, hsp, hlp, sp), (vh0, vf0, vm0)))
        if track:
            rmp, rcp = (context.make_array(signature.args[k])(context, builder, args[k]).data for k in (6, 7))
            vj = splat(args[8])
        entry = builder.block
        head, body, done = (builder.append_basic_block(n) for n in ("head", "body", "done"))
        builder.branch(head)
        builder.position_at_end(head)
        s = builder.phi(i64)
        s.add_incoming(i64(0), entry)
        phis = []
        for _, starts in targets:
            phis.append([builder.phi(VT) for _ in starts])
            for phi, start in zip(phis[-1], starts):
                phi.add_incoming(start, entry)
        builder.cbranch(builder.icmp_signed("<", s, seg_), body, done)
        builder.position_at_end(body)
        for ((pp, ep, hsp, hlp, _), _), (vh, vf, vm) in zip(targets, phis):
            hl = builder.load(at(hlp, s))  # H[i][j-1], as the lazy-F pass left it; the next segment's diagonal
            e = vmax(sub(builder.load(at(ep, s)), vge), sub(hl, vgoe))  # E[i][j] from column j-1
            builder.store(e, at(ep, s))
            h = vmax(vmax(add(vh, builder.load(at(pp, s))), e), vf)
            if not border:
                h = vmax(h, zero)  # local: floored at 0
            builder.store(h, at(hsp, s))
            if track:  # the row's first column of its largest H
                rm = builder.load(at(rmp, s))
                up = builder.icmp_signed(">", h, rm)
                builder.store(builder.select(up, h, rm), at(rmp, s))
                builder.store(builder.select(up, vj, builder.load(at(rcp, s))), at(rcp, s))
            opened = sub(h, vgoe)
            for phi, value in ((vh, hl), (vf, vmax(sub(vf, vge), opened)), (vm, vmax(vm, h))):
                phi.add_incoming(value, body)
        s.add_incoming(builder.add(s, i64(1)), body)
        builder.branch(head)
        builder.position_at_end(done)
        for ((*_, sp), _), (_, vf, vm) in zip(targets, phis):
            builder.store(vm, builder.bitcast(sp, VT.as_pointer()))
            builder.store(vf, builder.bitcast(builder.gep(sp, [i64(W)]), VT.as_pointer()))
        return i64(0)

    return codegen


@intrinsic
def column(typingctx, P, c, E, Hs, Hl, state, seg, goe, ge):
    """One target letter's column. P: (kinds, seg, W) the profile, c: the letter (its row P[c], read in place:
    a view a column costs a tenth of the column at protein lengths); E: (seg, W), the column before's E in,
    this column's out; Hs: (seg, W) receives the column's H; Hl: (seg, W) the column before; state: (2W,)
    the running max in state[:W], the F leaving the column written to state[W:] (for ``lazy_f``); seg, goe,
    ge: int64, int32, int32. Returns 0."""
    sig = types.int64(P, types.int64, E, Hs, Hl, state, types.int64, types.int32, types.int32)
    return sig, _column_codegen()


@intrinsic
def column2(typingctx, P, c, E, Hs, Hl, state, c2, E2, Hs2, Hl2, state2, seg, goe, ge):
    """``column`` of two targets at once (letters c and c2, each with its own arrays): one loop over the
    segments, two chains of dependent vector steps side by side. Returns 0."""
    sig = types.int64(P, types.int64, E, Hs, Hl, state, types.int64, E2, Hs2, Hl2, state2, types.int64,
                      types.int32, types.int32)
    return sig, _column_codegen(sets=2)


@intrinsic
def column_bordered(typingctx, P, c, E, Hs, Hl, state, diag, f0, seg, goe, ge):
    """``column`` without the floor at 0 (global, semi-global and glocal mode): ``diag`` is H[-1][j-1] (the
    top border left of this column) and ``f0`` row 0's F (from H[-1][j]), both int32. Returns 0."""
    sig = types.int64(P, types.int64, E, Hs, Hl, state, types.int32, types.int32, types.int64, types.int32,
                      types.int32)
    return sig, _column_codegen(border=True)


@intrinsic
def column_ends(typingctx, P, c, E, Hs, Hl, state, rowmax, rowcol, j, seg, goe, ge):
    """``column``, and each row's largest H so far (rowmax, (seg, W)) with the first column that reached it
    (rowcol: ``j``, an int32 in the lanes' type, where H passes rowmax). Returns 0."""
    sig = types.int64(P, types.int64, E, Hs, Hl, state, rowmax, rowcol, types.int32, types.int64, types.int32,
                      types.int32)
    return sig, _column_codegen(track=True)


@intrinsic
def lazy_f(typingctx, Hs, state, seg, goe, ge):
    """Farrar's lazy-F pass over the column ``column`` just made (the same arrays): F shifted one lane, then
    carried down the segments, raising H where it is larger, until it reaches a segment where no lane's
    F - ge passes H - goe (there it can change nothing, nor any F below it); at most W passes. E needs no
    update: the next column opens its E from these H (``column``). The running max needs none either: an F
    is an H above it less goe at least. Returns 0."""
    sig = types.int64(Hs, state, types.int64, types.int32, types.int32)

    def codegen(context, builder, signature, args):
        hsp, sp = (context.make_array(t)(context, builder, v).data for t, v in zip(signature.args[:2], args[:2]))
        seg_, goe_, ge_ = args[2:5]
        i64 = ir.IntType(64)
        bits = signature.args[0].dtype.bitwidth
        VT, W, splat, at, vmax, add, sub = _vector_helpers(builder, bits)
        mask = ir.IntType(W)
        vgoe, vge = splat(goe_), splat(ge_)
        floor = ir.Constant(VT, [_FLOORS[bits]] * W)
        vfp = builder.bitcast(builder.gep(sp, [i64(W)]), VT.as_pointer())
        entry = builder.block
        khead, kbody, shead, sbody, snext, out = (builder.append_basic_block(n) for n in
                                                  ("khead", "kbody", "shead", "sbody", "snext", "out"))
        builder.branch(khead)
        builder.position_at_end(khead)  # pass k of at most W
        k = builder.phi(i64)
        k.add_incoming(i64(0), entry)
        builder.cbranch(builder.icmp_signed("<", k, i64(W)), kbody, out)
        builder.position_at_end(kbody)
        vf_start = _shifted(builder, builder.load(vfp), floor, W)
        builder.branch(shead)
        builder.position_at_end(shead)  # segment s of the pass
        s, vf = builder.phi(i64), builder.phi(VT)
        s.add_incoming(i64(0), kbody)
        vf.add_incoming(vf_start, kbody)
        builder.cbranch(builder.icmp_signed("<", s, seg_), sbody, snext)
        builder.position_at_end(sbody)
        hptr = at(hsp, s)
        old = builder.load(hptr)
        # F arriving here can change nothing where F - ge is at most H - goe: not this H (F <= H, as goe >= ge),
        # nor any F below it (the column's pass carried at least H - goe down)
        more = builder.bitcast(builder.icmp_signed(">", sub(vf, vge), sub(old, vgoe)), mask)
        apply = builder.append_basic_block("apply")
        builder.cbranch(builder.icmp_unsigned("!=", more, mask(0)), apply, out)
        builder.position_at_end(apply)
        builder.store(vmax(old, vf), hptr)
        s.add_incoming(builder.add(s, i64(1)), apply)
        vf.add_incoming(sub(vf, vge), apply)
        builder.branch(shead)
        builder.position_at_end(snext)  # past the last segment: F goes on in the next lane
        builder.store(vf, vfp)
        k.add_incoming(builder.add(k, i64(1)), snext)
        builder.branch(khead)
        builder.position_at_end(out)
        return i64(0)

    return sig, codegen


def value_bound(S: np.ndarray, qlen: np.ndarray, tlen: np.ndarray, mode: int = LOCAL, gap_open: int = 0,
                gap_extend: int = 0) -> np.ndarray:
    """A bound on the magnitude of every value of pairs of ``qlen`` x ``tlen`` letters: an alignment scores
    at most the best match a pair of letters, and pairs at most min(qlen, tlen) letters; without a floor
    (other modes), every H also lies above the all-gaps path to its cell, E and F one opening below an H."""
    top = max(int(S.max()), 0) * (np.minimum(qlen, tlen) + 1)
    if mode != LOCAL:
        top = np.maximum(top, 3 * (gap_open + gap_extend) + (qlen + tlen + 2) * gap_extend
                         + max(-int(S.min()), 0) * np.minimum(qlen, tlen))
    return top


def lane_dtype(qlen: int, S: np.ndarray):
    """The lanes that hold every local H of a query of ``qlen`` letters against any target exactly: int16,
    int32, or None (too large)."""
    top = int(value_bound(S, np.int64(qlen), np.int64(qlen)))
    if top < INT16_TOP:
        return np.int16
    return np.int32 if top < -FLOOR32 else None


@nb.njit(**_JIT)
def profile(q, S, W):
    """The striped profile of query codes ``q``: (kinds, seg, W) in S's dtype, padding ``PAD_SCORE`` (int8:
    ``FLOOR8``)."""
    m = q.shape[0]
    seg = (m + W - 1) // W
    P = np.empty((S.shape[0], seg, W), S.dtype)
    pad = PAD_SCORE if S.itemsize > 1 else FLOOR8
    for c in range(S.shape[0]):
        for w in range(W):
            for s in range(seg):
                i = w * seg + s
                P[c, s, w] = S[c, q[i]] if i < m else pad
    return P


@nb.njit(**_JIT)
def _score_two(P, t, t2, goe, ge, work, state):
    """The local scores of the profile's query against target codes ``t`` and ``t2`` (``t`` the longer),
    their columns side by side (``column2``) while both last, then ``t``'s alone. ``work``: (6, seg, W),
    ``state``: (2, 2W), the targets' Hs, Hl, E and state in turn."""
    Hs, Hl, E, Hs2, Hl2, E2 = work[0], work[1], work[2], work[3], work[4], work[5]
    s1, s2 = state[0], state[1]
    Hl[:] = 0
    Hl2[:] = 0
    E[:] = FLOOR8 if P.itemsize == 1 else FLOOR16 if P.itemsize == 2 else FLOOR32
    E2[:] = E[0, 0]
    state[:] = 0
    seg = P.shape[1]
    for j in range(t2.shape[0]):
        column2(P, np.int64(t[j]), E, Hs, Hl, s1, np.int64(t2[j]), E2, Hs2, Hl2, s2, seg, goe, ge)
        lazy_f(Hs, s1, seg, goe, ge)
        lazy_f(Hs2, s2, seg, goe, ge)
        Hs, Hl = Hl, Hs
        Hs2, Hl2 = Hl2, Hs2
    for j in range(t2.shape[0], t.shape[0]):
        column(P, np.int64(t[j]), E, Hs, Hl, s1, seg, goe, ge)
        lazy_f(Hs, s1, seg, goe, ge)
        Hs, Hl = Hl, Hs
    W = P.shape[2]
    return np.int64(s1[:W].max()), np.int64(s2[:W].max())


@nb.njit(parallel=True, **_JIT)
def scores(P, codes, offs, idx, goe, ge, out, T):
    """out[k] = the local score of the profile's query against record idx[k] of (codes, offs); neighbours of
    ``idx`` two by two (``_score_two``: records of similar lengths where ``idx`` is in length order), one
    iteration for each of ``T`` threads, each with its work arrays, taking every T-th pair (interleaved, so
    that threads get like lengths): twice one thread's speed on two threads, where pairs handed out one at a
    time, each with arrays made for it, gave 1.2x (benchmarks/journal/2026-12-07.md)."""
    seg, W = P.shape[1], P.shape[2]
    n = idx.shape[0]
    pairs = (n + 1) // 2
    for tid in nb.prange(T):
        work = np.empty((6, seg, W), P.dtype)
        state = np.empty((2, 2 * W), P.dtype)
        for k in range(tid, pairs, T):
            a, b = 2 * k, min(2 * k + 1, n - 1)  # an odd count: the last record with itself
            ra, rb = idx[a], idx[b]
            if offs[rb + 1] - offs[rb] > offs[ra + 1] - offs[ra]:
                a, b, ra, rb = b, a, rb, ra
            out[a], out[b] = _score_two(P, codes[offs[ra]:offs[ra + 1]], codes[offs[rb]:offs[rb + 1]], goe, ge,
                                        work, state)


def local_scores(query: np.ndarray, S: np.ndarray, codes, offs, idx, gap_open: int, gap_extend: int):
    """The local scores of ``query`` (codes) against the records ``idx`` of (codes, offs) under the integer
    substitution array ``S`` (codes x codes), or None where no lanes hold them exactly (``lane_dtype``).
    Every record goes first through int8 lanes (twice the lanes of int16; where S and the gap costs fit
    them), which hold its score exactly unless it reaches ``INT8_TOP`` (the lanes saturate there: a true
    value at or above it shows as it, and nothing below it was changed); the records that reach it, then,
    take the narrowest lanes that hold their values (``value_bound``: the shorter side bounds a score):
    int16 for all but targets and queries both long, twice the lanes of int32."""
    out = np.zeros(len(idx), np.int64)
    if len(query) == 0:
        return out
    idx = np.ascontiguousarray(idx, np.int64)
    top = value_bound(S, np.int64(len(query)), offs[idx + 1] - offs[idx])
    if len(idx) and top.max() >= -FLOOR32:
        return None
    goe, ge = np.int32(gap_open + gap_extend), np.int32(gap_extend)
    again = np.ones(len(idx), bool)  # records whose score is not known yet
    passes = [(np.int8, again), (np.int16, top < INT16_TOP), (np.int32, top >= INT16_TOP)]
    if S.min() < FLOOR8 or S.max() >= INT8_TOP or goe >= INT8_TOP:
        passes = passes[1:]
    with nb.parallel_chunksize(1):  # one iteration a thread (``scores``)
        for dtype, fits in passes:
            sel = again & fits
            if sel.any():
                P = profile(query, S.astype(dtype), VEC_BYTES // np.dtype(dtype).itemsize)
                got = np.zeros(int(sel.sum()), np.int64)
                scores(P, codes, offs, idx[sel], goe, ge, got, nb.get_num_threads())
                out[sel] = got
                again[sel] = got >= INT8_TOP if dtype is np.int8 else False
    return out


#: the column code of int16 lanes: column j as j + COLUMN16 (targets of up to 65,536 letters)
COLUMN16 = -(1 << 15)


@nb.njit(**_JIT)
def columns(H, j):
    """(this column's H, the column before's) for target letter ``j`` in the store ``H``: (2, seg, W) for a
    score (two columns taking turns) or (n + 1, seg, W) for a traceback (every column kept: column j's H in
    H[j + 1], the left border in H[0])."""
    if H.shape[0] > 2:
        return H[j + 1], H[j]
    return H[(j + 1) & 1], H[j & 1]


@nb.njit(**_JIT)
def _score_ends(P, m, t, goe, ge, H, work, state):
    """(score, query end, target end) of the profile's query (``m`` letters) against ``t``: the best H, the
    smallest row reaching it, the first column of that row reaching it (the engines' tie rule); (0, 0, 0)
    for an empty alignment. ``H``: the columns' store (``columns``); ``work``: (3, seg, W), both in the
    lanes' type."""
    E, rowmax, rowcol = work[0], work[1], work[2]
    H[0][:] = 0
    E[:] = FLOOR16 if P.itemsize == 2 else FLOOR32
    state[:] = 0
    rowmax[:] = 0
    seg, W = P.shape[1], P.shape[2]
    shift = COLUMN16 if P.itemsize == 2 else 0
    for j in range(t.shape[0]):
        Hs, Hl = columns(H, j)
        column_ends(P, np.int64(t[j]), E, Hs, Hl, state, rowmax, rowcol, np.int32(j + shift), seg, goe, ge)
        lazy_f(Hs, state, seg, goe, ge)
    best = np.int64(state[:W].max())
    if best <= 0:
        return 0, 0, 0
    # an H that the lazy-F pass raised is an H above it less goe at least: never the best's smallest row
    bi, bj = m, 0
    for s in range(seg):
        for w in range(W):
            i = w * seg + s
            if i < bi and rowmax[s, w] == best:
                bi, bj = i, np.int64(rowcol[s, w]) - shift
    return best, bi + 1, bj + 1


@nb.njit(**_JIT)
def _score_bordered(P, m, t, go, ge, mode, H, E, state):
    """(score, query end, target end) of the profile's query (``m`` > 0 letters) against ``t`` (n > 0) in a
    mode without a floor: the borders those of the engines (a leading gap of k letters costs go + k * ge
    where the mode charges it, nothing where it is free; E and F opened from the border's H), the end cell
    by the tie rule among the mode's: (m, n) in global mode; row m in glocal mode (its first best column,
    H[m][0] included); row m and column n in semi-global mode (the smallest query end, then target end;
    the free borders' 0 included, so that a best of 0 is the empty alignment, (0, 0, 0)). ``H``: the
    columns' store (``columns``); ``E``: (seg, W)."""
    seg, W = P.shape[1], P.shape[2]
    goe = go + ge
    floor = FLOOR16 if P.itemsize == 2 else FLOOR32
    for s in range(seg):
        for w in range(W):
            left = 0 if mode == SEMI_GLOBAL else -(go + (w * seg + s + 1) * ge)  # H[i][-1]
            H[0][s, w] = left
            E[s, w] = floor  # no E before column 0: it opens its E from the border, H[i][-1]
    state[:] = 0
    last_s, last_w = (m - 1) % seg, (m - 1) // seg
    row_best, row_j = -(go + m * ge), -1  # glocal's H[m][0]
    for j in range(t.shape[0]):
        Hs, Hl = columns(H, j)
        diag, top = 0, 0  # H[-1][j-1] and H[-1][j], free in semi-global and glocal mode
        if mode == GLOBAL:
            diag = 0 if j == 0 else -(go + j * ge)
            top = -(go + (j + 1) * ge)
        column_bordered(P, np.int64(t[j]), E, Hs, Hl, state, np.int32(diag), np.int32(top - goe), seg,
                      np.int32(goe), np.int32(ge))
        lazy_f(Hs, state, seg, np.int32(goe), np.int32(ge))
        v = np.int64(Hs[last_s, last_w])
        if v > row_best or row_j < 0 and mode == SEMI_GLOBAL:
            row_best, row_j = v, j
    n = t.shape[0]
    Hl = columns(H, n - 1)[0]  # the last column
    if mode == GLOBAL:
        return np.int64(Hl[last_s, last_w]), m, n
    if mode == GLOCAL:
        return row_best, m, row_j + 1
    best, bi, bj = np.int64(0), 0, 0  # semi-global: H[0][n], the free top border, first
    for i in range(m - 1):  # column n above row m (row m is the row's candidate, which has the smaller tend)
        v = np.int64(Hl[i % seg, i // seg])
        if v > best:
            best, bi, bj = v, i + 1, n
    if row_best > best:
        best, bi, bj = row_best, m, row_j + 1
    if best <= 0:
        return 0, 0, 0
    return best, bi, bj


@nb.njit(parallel=True, **_JIT)
def pair_ends(S, qcodes, qoff, tcodes, toff, idx, go, ge, mode, score, qend, tend):
    """score, qend, tend[p] of every pair p of ``idx`` in ``mode`` (``config.Mode``'s code): local
    (``_score_ends``) or another (``_score_bordered``), its query's profile made for it, in the lanes of S's
    type; threads across the pairs."""
    W = VEC_BYTES // S.itemsize
    for k in nb.prange(idx.shape[0]):
        p = idx[k]
        q = qcodes[qoff[p]:qoff[p + 1]]
        t = tcodes[toff[p]:toff[p + 1]]
        P = profile(q, S, W)
        H = np.empty((2, P.shape[1], W), S.dtype)
        work = np.empty((3, P.shape[1], W), S.dtype)
        state = np.empty(2 * W, S.dtype)
        if mode != LOCAL:
            score[p], qend[p], tend[p] = _score_bordered(P, q.shape[0], t, go, ge, mode, H, work[0], state)
        else:
            score[p], qend[p], tend[p] = _score_ends(P, q.shape[0], t, np.int32(go + ge), np.int32(ge), H, work,
                                                     state)


def pair_lanes(S: np.ndarray, qlen: np.ndarray, tlen: np.ndarray, mode: int, gap_open: int, gap_extend: int):
    """(narrow, wide): the pairs of ``qlen`` x ``tlen`` letters that int16 lanes hold exactly (``value_bound``;
    the target's columns), and those that int32 lanes hold where int16 do not; neither where a side is empty
    (no segment to sweep: the lane groups take it)."""
    top = value_bound(S, qlen, tlen, mode, gap_open, gap_extend)
    sides = (qlen > 0) & (tlen > 0)
    narrow = (top < INT16_TOP) & (tlen <= -COLUMN16 * 2) & sides
    return narrow, ~narrow & (top < -FLOOR32) & sides


def pair_scores(batch, S: np.ndarray, gap_open: int, gap_extend: int, subset: np.ndarray, out,
                mode: int = LOCAL) -> np.ndarray:
    """Score-only scores and end cells in ``mode`` (``config.Mode``'s code) of the pairs ``subset`` of a
    ``PairBatch`` into ``out`` (score, qend, tend), in int16 lanes or int32 lanes where they hold the pair
    exactly (``lane_dtype``'s bound, below; the target's columns; without a floor, the borders' values
    too: ``pair_lanes``); returns the pairs of ``subset`` neither holds, and those with an empty side."""
    qlen, tlen = batch.qlen.astype(np.int64)[subset], batch.tlen.astype(np.int64)[subset]
    narrow, wide = pair_lanes(S, qlen, tlen, mode, gap_open, gap_extend)
    args = (np.require(batch.q_codes, np.uint8), np.require(batch.q_off, np.int64, "CW"),
            np.require(batch.t_codes, np.uint8), np.require(batch.t_off, np.int64, "CW"))
    with nb.parallel_chunksize(1):
        for sel, dtype in ((narrow, np.int16), (wide, np.int32)):
            if sel.any():
                pair_ends(S.astype(dtype), *args, np.ascontiguousarray(subset[sel], np.int64), np.int64(gap_open),
                          np.int64(gap_extend), np.int64(mode), out.score, out.qend, out.tend)
    return subset[~narrow & ~wide]
