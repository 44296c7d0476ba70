"""One read against the whole graph: the exact DP of the graph family and its checkpointed walk (numba).

The recurrence, modes and tie rules are the README's (section "Graphs"):
rows are the graph's bases in topological order, columns the read prefix
lengths 0..m, three values a cell (H, E: the graph base against no read
base, F: a read base against no graph base). A row takes its predecessors'
rows merged column by column (``PH``, ``PE``: the best, ties to the virtual
start row S, then to the smallest base); a base inside a node has one
predecessor, the row just before it; the rows a later node start needs are
kept in slots (``Graph.slot``), reused once their last reader is done.

Score only keeps the previous row and the slots. With traceback each cell
gets a direction byte (``code``: bits 0-1 the move that won, 0 diagonal,
1 I (F), 2 D (E), 3 start (local zero); bit 2 E extended; bit 3 F extended;
bit 4 the merged row's best at this column is S), and the rows with several
predecessors also keep which predecessor gave ``PH`` and ``PE`` per column
(uint16, ``FROM_S`` for S). Rows are cut into blocks whose direction bytes
fit the budget; the forward pass saves the slots and the previous row at
each block start (checkpoints) and the walk recomputes one block at a time,
latest first, so the alignment is the one the whole matrix would give.

``align_each`` aligns reads one at a time (``align_read``): the reference,
and the engine for int64 cells. ``align_groups`` takes int32 reads up to
``LANES`` at a time, side by side in the lanes of vectors (``_vrow``: the
columns of a row one after the other, the reads' cells of a column one
vector operation): the same cell values, hence the same scores and end
cells; the forward pass keeps checkpoints of every lane every
``BLOCK_ROWS`` rows or so. The group's walks then go in step
(``_group_walks``): the lowest block a walk is in is recomputed once for
every lane, with each lane's direction bytes, and each walk in it follows
its lane (``_walk_rows``, the walk of ``align_read``); where a block's bytes
for every lane would pass the budget, each read's walk is ``align_read``'s
(``_finish``) from its lane of the checkpoints instead.
"""

from __future__ import annotations

import numpy as np

from ...config import Mode
from ...jit import nb
from ..pairwise.cpu_dp import pair_table

_JIT = dict(nogil=True, cache=True, boundscheck=False)
GLOBAL, GLOCAL, LOCAL = int(Mode.GLOBAL), int(Mode.GLOCAL), int(Mode.LOCAL)
#: the predecessor index that stands for the virtual start row S
FROM_S = 0xFFFF
#: the moves of the direction byte
DIAG, INS, DEL, START = 0, 1, 2, 3
#: ops written by the walk (``results.Op``)
OP_MATCH, OP_MISMATCH, OP_INS, OP_DEL = 0, 1, 2, 3


@nb.njit(**_JIT)
def start_row(m, mode, oe, ge, neg):
    """The virtual start row S: 0, then the cost of inserting j read bases (0 throughout in local mode)."""
    SH = np.zeros(m + 1, neg.dtype)
    if mode != LOCAL:
        for j in range(1, m + 1):
            SH[j] = -(oe + (j - 1) * ge)
    return SH


@nb.njit(**_JIT)
def _merge(v, pred_off, pred, slot, use_s, SH, prevH, prevE, slotH, slotE, PH, PE, argS, argH, argE, want, neg):
    """PH/PE of row v: S (where allowed) and then the real predecessors, a later one only when strictly better.

    With ``want``: rows of at most one real predecessor mark in ``argS`` the
    columns where S gave PH; rows of several fill ``argH``/``argE`` with the
    index of the predecessor (``FROM_S`` for S).
    """
    m1 = PH.shape[0]
    p0 = pred_off[v]
    npred = pred_off[v + 1] - p0
    if use_s:
        PH[:] = SH
    else:
        PH[:] = neg
    PE[:] = neg
    if npred == 1:
        u = pred[p0]
        if u == v - 1:
            hu = prevH
            eu = prevE
        else:
            hu = slotH[slot[u]]
            eu = slotE[slot[u]]
        if want:
            for j in range(m1):
                s = PH[j] >= hu[j]
                argS[j] = s
                PH[j] = PH[j] if s else hu[j]
        else:
            for j in range(m1):
                PH[j] = max(PH[j], hu[j])
        PE[:] = eu
        return
    if want:
        if npred == 0:
            argS[:] = use_s
        else:
            argH[:] = FROM_S
            argE[:] = FROM_S
    for k in range(npred):
        u = pred[p0 + k]
        if u == v - 1:
            hu = prevH
            eu = prevE
        else:
            hu = slotH[slot[u]]
            eu = slotE[slot[u]]
        if want:
            for j in range(m1):
                if hu[j] > PH[j]:
                    PH[j] = hu[j]
                    argH[j] = k
                if eu[j] > PE[j]:
                    PE[j] = eu[j]
                    argE[j] = k
        else:
            for j in range(m1):
                PH[j] = max(PH[j], hu[j])
                PE[j] = max(PE[j], eu[j])


@nb.njit(**_JIT)
def _row(gv, read, mode, S, oe, ge, neg, PH, PE, curH, curE, D, code, argS, want):
    """Row of base ``gv`` (its code) from the merged PH/PE: H and E into curH/curE, direction bytes into code."""
    m = read.shape[0]
    for j in range(m + 1):
        curE[j] = max(PH[j] - oe, PE[j] - ge)
    for j in range(1, m + 1):
        D[j] = PH[j - 1] + S[gv, read[j - 1]]
    local = mode == LOCAL
    h = curE[0]
    if local and h <= 0:
        h = 0
    curH[0] = h
    if want:
        eo = PH[0] - oe
        c = DEL if not (local and curE[0] <= 0) else START
        code[0] = c | ((PE[0] - ge > eo) << 2) | (argS[0] << 4)
    f = neg
    for j in range(1, m + 1):
        fo = h - oe
        fe = f - ge
        f = fo if fo >= fe else fe
        d = D[j]
        e = curE[j]
        h = d
        src = DIAG
        if f > h:
            h = f
            src = INS
        if e > h:
            h = e
            src = DEL
        if local and h <= 0:
            h = 0
            src = START
        curH[j] = h
        if want:
            code[j] = src | ((PE[j] - ge > PH[j] - oe) << 2) | ((fe > fo) << 3) | (argS[j] << 4)


@nb.njit(**_JIT)
def _sweep(lo, hi, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH, slotE, ws, want, codes, argH, argE,
           track, best, cp_at, cpr, cps):
    """Rows lo..hi-1 of one read; G is (codes, pred_off, pred, slot, source, sink, multi).

    With ``want``: ``codes[v - lo]`` and, for rows of several predecessors,
    ``argH/argE[multi[v] - multi[lo]]``. With ``track``: ``best`` (score,
    base, column) follows the mode's end cell. ``cp_at`` (ascending rows)
    says where checkpoints are saved: the previous row into ``cpr``, the
    slots into ``cps`` (``_load_checkpoint``'s layout, one lane).
    """
    g, pred_off, pred, slot, source, sink, multi = G
    PH, PE, curH, curE, D, argS = ws
    m = read.shape[0]
    k_cp = 0
    m0 = multi[lo]
    for v in range(lo, hi):
        if k_cp < cp_at.shape[0] and cp_at[k_cp] == v:
            for j in range(m + 1):
                cpr[k_cp, 2 * j] = prevH[j]
                cpr[k_cp, 2 * j + 1] = prevE[j]
                for s in range(slotH.shape[0]):
                    cps[k_cp, s, 2 * j] = slotH[s, j]
                    cps[k_cp, s, 2 * j + 1] = slotE[s, j]
            k_cp += 1
        use_s = mode != GLOBAL or source[v]
        mi = multi[v] - m0 if (want and multi[v + 1] > multi[v]) else 0
        _merge(v, pred_off, pred, slot, use_s, SH, prevH, prevE, slotH, slotE, PH, PE, argS, argH[mi], argE[mi],
               want, neg)
        _row(g[v], read, mode, S, oe, ge, neg, PH, PE, curH, curE, D, codes[v - lo] if want else codes[0],
             argS, want)
        if slot[v] >= 0:
            slotH[slot[v]] = curH
            slotE[slot[v]] = curE
        prevH[:] = curH
        prevE[:] = curE
        if track:
            if mode == LOCAL:
                for j in range(1, m + 1):
                    if curH[j] > best[0]:
                        best[0] = curH[j]
                        best[1] = v
                        best[2] = j
            elif (mode == GLOCAL or sink[v]) and (best[1] < 0 or curH[m] > best[0]):
                best[0] = curH[m]
                best[1] = v
                best[2] = m


@nb.njit(**_JIT)
def _blocks(multi, n, m, budget):
    """Block starts (and n at the end) so that each block's direction bytes and predecessor indices fit ``budget``."""
    cap = max(budget // (m + 1), 1)
    starts = [0]
    used = 0
    for v in range(n):
        w = 1 + 4 * (multi[v + 1] - multi[v])
        if used + w > cap and v > starts[-1]:
            starts.append(v)
            used = 0
        used += w
    starts.append(n)
    return np.array(starts, np.int64)


@nb.njit(**_JIT)
def _load_checkpoint(cpr, cps, lane, nl, prevH, prevE, slotH, slotE):
    """One read's rows of a checkpoint: the previous row (``cpr``) and the slots (``cps[s]``), columns 0..m of
    lane ``lane``.

    A checkpoint row holds column after column H then E, ``nl`` lanes each:
    ``cpr[(2j + x) nl + lane]`` (x 0 for H, 1 for E). The checkpoints are
    kept apart from their slots so that the rows, always written, take one
    allocation of their own (the slots are written only where a later row
    reads them, mostly not at all).
    """
    m1 = prevH.shape[0]
    for j in range(m1):
        h = 2 * j * nl + lane
        prevH[j] = cpr[h]
        prevE[j] = cpr[h + nl]
        for s in range(slotH.shape[0]):
            slotH[s, j] = cps[s, h]
            slotE[s, j] = cps[s, h + nl]


@nb.njit(**_JIT)
def _recompute(lo, hi, G, read, mode, S, oe, ge, neg, SH, cpr, cps, blk, lane, nl, n_slots):
    """Rows lo..hi-1 again from their block's checkpoint (``cpr[blk]``, ``cps[blk]``; lane ``lane`` of ``nl``),
    with direction bytes and predecessor indices, in columns 0..len(read): the walk passes the read up to its
    column (a cell depends on none to its right), so a block it enters at column j costs j + 1 columns."""
    multi = G[6]
    m1 = read.shape[0] + 1
    dt = SH.dtype
    nm = multi[hi] - multi[lo]
    codes = np.empty((hi - lo, m1), np.uint8)
    argH = np.empty((max(nm, 1), m1), np.uint16)
    argE = np.empty((max(nm, 1), m1), np.uint16)
    prevH = np.empty(m1, dt)
    prevE = np.empty(m1, dt)
    slotH = np.empty((n_slots, m1), dt)
    slotE = np.empty((n_slots, m1), dt)
    _load_checkpoint(cpr[blk], cps[blk], lane, nl, prevH, prevE, slotH, slotE)
    _sweep(lo, hi, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH, slotE, _workspace(m1 - 1, dt), True,
           codes, argH, argE, False, np.zeros(3, np.int64), np.empty(0, np.int64), cpr, cps)
    return codes, argH, argE


@nb.njit(**_JIT)
def _push(buf, k, x):
    """buf[k] = x, growing buf (doubling) when full; returns the buffer."""
    if k >= buf.shape[0]:
        nbuf = np.empty(buf.shape[0] * 2, buf.dtype)
        nbuf[:buf.shape[0]] = buf
        buf = nbuf
    buf[k] = x
    return buf


@nb.njit(**_JIT)
def align_read(G, node, read, mode, sc, neg_arr, trace, budget, n_slots, out, ops_out, lens_out, nodes_buf):
    """Align one read; ``out`` = score, qstart, qend, first base, last base, runs, path nodes (or -1 fields).

    Runs go to ops_out/lens_out (room for 2m + 1); the path's nodes (in path
    order) to ``nodes_buf``, grown when needed and returned.
    """
    g, pred_off, pred, slot, source, sink, multi = G
    n = g.shape[0]
    m = read.shape[0]
    dt = neg_arr.dtype
    neg = neg_arr[0]
    oe = sc[2] + sc[3]
    ge = sc[3]
    S = pair_table(sc, neg_arr)
    SH = start_row(m, mode, oe, ge, neg_arr)
    ws = _workspace(m, dt)
    prevH = np.full(m + 1, neg, dt)
    prevE = np.full(m + 1, neg, dt)
    slotH = np.full((n_slots, m + 1), neg, dt)
    slotE = np.full((n_slots, m + 1), neg, dt)
    best = np.array([neg, -1, -1], np.int64)
    if mode == LOCAL:
        best[0] = 0
    starts = _blocks(multi, n, m, budget) if trace else np.array([0, n], np.int64)
    nb_ = starts.shape[0] - 1
    one = trace and nb_ == 1
    if one:
        codes = np.empty((n, m + 1), np.uint8)
        nm = multi[n] - multi[0]
        argH = np.empty((max(nm, 1), m + 1), np.uint16)
        argE = np.empty((max(nm, 1), m + 1), np.uint16)
    else:
        codes = np.empty((1, m + 1), np.uint8)
        argH = np.empty((1, m + 1), np.uint16)
        argE = np.empty((1, m + 1), np.uint16)
    if trace and not one:
        cp_at = starts[:-1].copy()
        cpr = np.empty((nb_, 2 * (m + 1)), dt)
        cps = np.empty((nb_, n_slots, 2 * (m + 1)), dt)
    else:
        cp_at = np.empty(0, np.int64)
        cpr = np.empty((0, 2 * (m + 1)), dt)
        cps = np.empty((0, n_slots, 2 * (m + 1)), dt)
    _sweep(0, n, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH, slotE, ws, one, codes, argH, argE,
           True, best, cp_at, cpr, cps)
    return _finish(G, node, read, mode, S, oe, ge, neg, SH, trace, best[0], best[1], best[2], one, codes, argH,
                   argE, starts, cpr, cps, 0, 1, n_slots, out, ops_out, lens_out, nodes_buf)


@nb.njit(**_JIT)
def _workspace(m, dt):
    """The scratch rows of ``_sweep`` (PH, PE, curH, curE, D, argS) for a read of length m."""
    return (np.empty(m + 1, dt), np.empty(m + 1, dt), np.empty(m + 1, dt), np.empty(m + 1, dt),
            np.zeros(m + 1, dt), np.zeros(m + 1, np.uint8))


#: the state of one read's walk (``_walk_rows``): base, column, state (0 H, 1 F, 2 E), operations and path
#: nodes so far (both reversed), the last node added, the first base of the path, and 1 once the walk is done
#: (2: no walk, the read left unaligned)
S_V, S_J, S_STATE, S_OPS, S_NODES, S_LAST, S_FIRST, S_DONE = range(8)


@nb.njit(**_JIT)
def _end(mode, SH, m, score, v, j, out):
    """``out``'s fields of a read's end cell (``score`` at base v, column j; v -1 when no base was taken), as
    ``align_read`` fills them before a walk; returns the base the walk starts at, -1 for none (the read all
    inserted, or nothing worth aligning in local mode)."""
    if mode == GLOCAL and SH[m] > score:
        score = SH[m]
        v = -1
    if mode == LOCAL and score <= 0:
        score = 0
        v = -1
    out[0] = score
    out[2] = j if v >= 0 else (m if mode != LOCAL else 0)
    out[4] = v
    out[1] = 0 if mode != LOCAL else -1
    out[3] = -1
    out[5] = 0
    out[6] = 0
    return v


@nb.njit(**_JIT)
def _walk_start(v, j):
    """A walk's state (``S_*``) at end cell (v, j)."""
    st = np.zeros(8, np.int64)
    st[S_V] = v
    st[S_J] = j
    st[S_LAST] = -1
    st[S_FIRST] = -1
    return st


@nb.njit(**_JIT)
def _walk_rows(G, node, read, mode, codes, argH, argE, lo, st, ops, nodes_buf):
    """The walk from its state ``st`` through the direction bytes of rows lo.. (``codes[v - lo, j]``; the
    predecessor indices of rows of several, ``argH/argE[multi[v] - multi[lo], j]``) until it leaves them
    upwards or ends (``st[S_DONE]``). ``ops``/``nodes_buf`` collect the operations and path nodes reversed (grown
    when full); returns them."""
    g, pred_off, pred, slot, source, sink, multi = G
    v = st[S_V]
    j = st[S_J]
    state = st[S_STATE]
    n_ops = st[S_OPS]
    n_nodes = st[S_NODES]
    last_node = st[S_LAST]
    first = st[S_FIRST]
    done = True
    while True:
        if v < lo:
            done = False
            break
        c = codes[v - lo, j]
        mv = c & 3
        if state == 1:
            mv = INS
        elif state == 2:
            mv = DEL
        if mv == START:
            break
        if mv == INS:
            ops = _push(ops, n_ops, OP_INS)
            n_ops += 1
            state = 1 if (c >> 3) & 1 else 0
            j -= 1
            continue
        # a move that consumes base v: diagonal or D
        nd = node[v]
        if nd != last_node:
            nodes_buf = _push(nodes_buf, n_nodes, nd)
            n_nodes += 1
            last_node = nd
        first = v
        if mv == DIAG:
            ops = _push(ops, n_ops, OP_MATCH if (g[v] == read[j - 1] and g[v] < 4) else OP_MISMATCH)
            n_ops += 1
            col = j - 1
            use_h = True
        else:
            ops = _push(ops, n_ops, OP_DEL)
            n_ops += 1
            col = j
            use_h = not ((c >> 2) & 1)
        # which predecessor row the move came from
        p0 = pred_off[v]
        npred = pred_off[v + 1] - p0
        if multi[v + 1] > multi[v]:
            k = argH[multi[v] - multi[lo], col] if use_h else argE[multi[v] - multi[lo], col]
            u = -1 if k == FROM_S else pred[p0 + k]
        elif npred == 0:
            u = -1
        else:
            cs = codes[v - lo, col]
            u = -1 if (use_h and (cs >> 4) & 1) else pred[p0]
        j = col
        if u < 0:  # the virtual start row: the read's first j bases are inserted (global, glocal)
            if mode != LOCAL and j > 0:
                for _ in range(j):
                    ops = _push(ops, n_ops, OP_INS)
                    n_ops += 1
                j = 0
            break
        v = u
        state = 0 if use_h else 2
    st[S_V] = v
    st[S_J] = j
    st[S_STATE] = state
    st[S_OPS] = n_ops
    st[S_NODES] = n_nodes
    st[S_LAST] = last_node
    st[S_FIRST] = first
    st[S_DONE] = done
    return ops, nodes_buf


@nb.njit(**_JIT)
def _walk_end(st, ops, out, ops_out, lens_out, nodes_buf):
    """A finished walk into ``out`` (read start, first base, runs, path nodes), ``ops_out``/``lens_out`` (runs,
    start to end) and ``nodes_buf`` (path order)."""
    out[1] = st[S_J]
    out[3] = st[S_FIRST]
    r = 0
    k = st[S_OPS] - 1
    while k >= 0:
        op = ops[k]
        ln = 0
        while k >= 0 and ops[k] == op:
            ln += 1
            k -= 1
        ops_out[r] = op
        lens_out[r] = ln
        r += 1
    n_nodes = st[S_NODES]
    out[5] = r
    out[6] = n_nodes
    nodes_buf[:n_nodes] = nodes_buf[:n_nodes][::-1].copy()


@nb.njit(**_JIT)
def _finish(G, node, read, mode, S, oe, ge, neg, SH, trace, score, v, j, one, codes, argH, argE, starts, cpr, cps,
            lane, nl, n_slots, out, ops_out, lens_out, nodes_buf):
    """One read's result from its end cell (``score`` at base v, column j; v -1 when no base was taken) and, with
    ``trace``, its walk: ``out``, ``ops_out``/``lens_out`` and ``nodes_buf`` as ``align_read`` fills them.

    ``one``: ``codes``/``argH``/``argE`` hold every row; otherwise the walk
    recomputes one block of rows (``starts``) at a time from the checkpoints
    ``cpr``/``cps`` (lane ``lane`` of ``nl``).
    """
    n = G[0].shape[0]
    m = read.shape[0]
    v = _end(mode, SH, m, score, v, j, out)
    if not trace:
        return nodes_buf
    if v < 0:  # empty: nothing worth aligning (local) or the read all inserted, no path (glocal)
        out[1] = 0
        out[2] = 0
        return nodes_buf
    st = _walk_start(v, j)
    ops = np.empty(m + 16, np.uint8)
    blk = starts.shape[0] - 2
    lo = 0 if one else n + 1  # n + 1: no block recomputed yet
    while True:
        ops, nodes_buf = _walk_rows(G, node, read, mode, codes, argH, argE, lo, st, ops, nodes_buf)
        if st[S_DONE]:
            break
        v = st[S_V]
        j = st[S_J]
        while starts[blk] > v:
            blk -= 1
        lo = starts[blk]
        codes, argH, argE = _recompute(lo, v + 1, G, read[:j], mode, S, oe, ge, neg, SH[:j + 1], cpr, cps, blk,
                                       lane, nl, n_slots)
    _walk_end(st, ops, out, ops_out, lens_out, nodes_buf)
    return nodes_buf


@nb.njit(parallel=True, **_JIT)
def align_each(G, node, codes, offs, order, mode, sc, neg, trace, budget, n_slots, run_off, run_op, run_len,
               path_off, path_nodes, res):
    """Align the reads ``order`` (threads across reads). ``res[k]``: ``align_read``'s ``out``, then 1 in column 7
    where the path did not fit its room ``path_off[k]..path_off[k + 1]`` (the caller aligns it again)."""
    for i in nb.prange(order.shape[0]):
        k = order[i]
        r0 = run_off[k] if trace else 0
        buf = np.empty(64, np.int32)
        buf = align_read(G, node, codes[offs[k]:offs[k + 1]], mode, sc, neg, trace, budget, n_slots, res[k],
                         run_op[r0:], run_len[r0:], buf)
        _keep_path(k, buf, path_off, path_nodes, res)


@nb.njit(**_JIT)
def _keep_path(k, buf, path_off, path_nodes, res):
    """Read k's path nodes into its room, or 1 in ``res[k, 7]`` where they do not fit."""
    nn = res[k, 6]
    if nn <= path_off[k + 1] - path_off[k]:
        path_nodes[path_off[k]:path_off[k] + nn] = buf[:nn]
    else:
        res[k, 7] = 1


# ------------------------------------------------------------------ several reads side by side (int32 lanes)
#
# The reads of a group (up to LANES, similar lengths) go through the graph's
# rows together: every row is one pass over the columns 0..M (M the group's
# longest read; a shorter read's columns past its end hold N codes, and what
# they get never reaches its results), each column one vector of lanes
# (int32, LLVM's loop vectoriser on the lane loops). A group's working row
# ``W`` holds, column after column, LANES values of each of H, E (the row,
# updated in place: the previous row before, the current one after), P (the
# merged H), T (max(D, E)), F and R (local: the best H so far in the row);
# the profile ``prof[c]`` holds the pair scores of base code c against each
# lane's read, column after column. Every cell gets the value ``_sweep``
# gives it (int32 arithmetic: the scores of an int32 read and minus infinity
# stay far from overflow), so scores and end cells are equal bit for bit;
# with traceback, the checkpoints hold each lane's rows, and the walks
# recompute their blocks for every lane at once (``_vrecompute``, the
# direction bytes and predecessor choices of ``_sweep`` lane by lane).

#: reads aligned side by side (int32 lanes: one AVX-512 vector, two AVX2 vectors)
LANES = 16
_H, _E, _P, _T, _F, _R = 0, LANES, 2 * LANES, 3 * LANES, 4 * LANES, 5 * LANES
#: values of one column of ``W``
_COL = 6 * LANES
#: rows per block of the group walk when the budget allows (a block is recomputed for every lane at once)
BLOCK_ROWS = 192
#: the least the checkpoints of a group may take (bytes), whatever the matrix budget
CHECKPOINT_MIN = 64 * 1024 * 1024
_I32 = np.int32
_U64 = np.uint64


@nb.njit(**_JIT)
def _vrow(W, M1, prof, pc, SH, oe, ge, neg, local, nl):
    """Row of one base for the ``nl`` lanes of ``W``: H, E from the merged PH/PE that ``W`` holds, in place.

    ``SH``: the start row where the base may start an alignment, else minus
    infinity throughout; ``prof[pc + j * LANES + l]``: the pair score of the
    row's base and lane l's read base j - 1. The values are ``_row``'s, with
    T = max(D, E) (and 0, local) apart: H = max(T, F), and F[j] =
    max(T[j-1] - go - ge, F[j-1] - ge), equal to ``_row``'s
    max(H[j-1] - go - ge, F[j-1] - ge) as go >= 0; so F alone runs along the
    row, four columns a step (then one). P, T, F (and R: local mode, the
    best H of the row so far, past the read's end too: see ``_vforward``) are
    kept at the column that ends a step. Indices are unsigned (no wraparound
    test: the lane loops vectorise).
    """
    sh = SH[0]
    for l in range(nl):
        ph = max(sh, W[_H + l])
        e = max(_I32(ph - oe), _I32(W[_E + l] - ge))
        t = max(e, _I32(0)) if local else e
        W[_E + l] = e
        W[_H + l] = t
        W[_P + l] = ph
        W[_T + l] = t
        W[_F + l] = neg
        W[_R + l] = 0
    j = 1
    while j + 3 < M1:  # columns j .. j + 3
        a = (j - 1) * _COL
        b = a + _COL
        q = pc + j * LANES
        sh0 = SH[j]
        sh1 = SH[j + 1]
        sh2 = SH[j + 2]
        sh3 = SH[j + 3]
        if local:
            for l in range(nl):
                ph0 = max(sh0, W[_U64(b + _H + l)])
                e0 = max(_I32(ph0 - oe), _I32(W[_U64(b + _E + l)] - ge))
                t0 = max(max(_I32(W[_U64(a + _P + l)] + prof[_U64(q + l)]), e0), _I32(0))
                f0 = max(_I32(W[_U64(a + _T + l)] - oe), _I32(W[_U64(a + _F + l)] - ge))
                h0 = max(t0, f0)
                ph1 = max(sh1, W[_U64(b + 1 * _COL + _H + l)])
                e1 = max(_I32(ph1 - oe), _I32(W[_U64(b + 1 * _COL + _E + l)] - ge))
                t1 = max(max(_I32(ph0 + prof[_U64(q + 1 * LANES + l)]), e1), _I32(0))
                f1 = max(_I32(t0 - oe), _I32(f0 - ge))
                h1 = max(t1, f1)
                ph2 = max(sh2, W[_U64(b + 2 * _COL + _H + l)])
                e2 = max(_I32(ph2 - oe), _I32(W[_U64(b + 2 * _COL + _E + l)] - ge))
                t2 = max(max(_I32(ph1 + prof[_U64(q + 2 * LANES + l)]), e2), _I32(0))
                f2 = max(_I32(t1 - oe), _I32(f1 - ge))
                h2 = max(t2, f2)
                ph3 = max(sh3, W[_U64(b + 3 * _COL + _H + l)])
                e3 = max(_I32(ph3 - oe), _I32(W[_U64(b + 3 * _COL + _E + l)] - ge))
                t3 = max(max(_I32(ph2 + prof[_U64(q + 3 * LANES + l)]), e3), _I32(0))
                f3 = max(_I32(t2 - oe), _I32(f2 - ge))
                h3 = max(t3, f3)
                W[_U64(b + 3 * _COL + _R + l)] = max(W[_U64(a + _R + l)], max(max(h0, h1), max(h2, h3)))
                W[_U64(b + _E + l)] = e0
                W[_U64(b + _H + l)] = h0
                W[_U64(b + 1 * _COL + _E + l)] = e1
                W[_U64(b + 1 * _COL + _H + l)] = h1
                W[_U64(b + 2 * _COL + _E + l)] = e2
                W[_U64(b + 2 * _COL + _H + l)] = h2
                W[_U64(b + 3 * _COL + _E + l)] = e3
                W[_U64(b + 3 * _COL + _H + l)] = h3
                W[_U64(b + 3 * _COL + _P + l)] = ph3
                W[_U64(b + 3 * _COL + _T + l)] = t3
                W[_U64(b + 3 * _COL + _F + l)] = f3
        else:
            for l in range(nl):
                ph0 = max(sh0, W[_U64(b + _H + l)])
                e0 = max(_I32(ph0 - oe), _I32(W[_U64(b + _E + l)] - ge))
                t0 = max(_I32(W[_U64(a + _P + l)] + prof[_U64(q + l)]), e0)
                f0 = max(_I32(W[_U64(a + _T + l)] - oe), _I32(W[_U64(a + _F + l)] - ge))
                h0 = max(t0, f0)
                ph1 = max(sh1, W[_U64(b + 1 * _COL + _H + l)])
                e1 = max(_I32(ph1 - oe), _I32(W[_U64(b + 1 * _COL + _E + l)] - ge))
                t1 = max(_I32(ph0 + prof[_U64(q + 1 * LANES + l)]), e1)
                f1 = max(_I32(t0 - oe), _I32(f0 - ge))
                h1 = max(t1, f1)
                ph2 = max(sh2, W[_U64(b + 2 * _COL + _H + l)])
                e2 = max(_I32(ph2 - oe), _I32(W[_U64(b + 2 * _COL + _E + l)] - ge))
                t2 = max(_I32(ph1 + prof[_U64(q + 2 * LANES + l)]), e2)
                f2 = max(_I32(t1 - oe), _I32(f1 - ge))
                h2 = max(t2, f2)
                ph3 = max(sh3, W[_U64(b + 3 * _COL + _H + l)])
                e3 = max(_I32(ph3 - oe), _I32(W[_U64(b + 3 * _COL + _E + l)] - ge))
                t3 = max(_I32(ph2 + prof[_U64(q + 3 * LANES + l)]), e3)
                f3 = max(_I32(t2 - oe), _I32(f2 - ge))
                h3 = max(t3, f3)
                W[_U64(b + _E + l)] = e0
                W[_U64(b + _H + l)] = h0
                W[_U64(b + 1 * _COL + _E + l)] = e1
                W[_U64(b + 1 * _COL + _H + l)] = h1
                W[_U64(b + 2 * _COL + _E + l)] = e2
                W[_U64(b + 2 * _COL + _H + l)] = h2
                W[_U64(b + 3 * _COL + _E + l)] = e3
                W[_U64(b + 3 * _COL + _H + l)] = h3
                W[_U64(b + 3 * _COL + _P + l)] = ph3
                W[_U64(b + 3 * _COL + _T + l)] = t3
                W[_U64(b + 3 * _COL + _F + l)] = f3
        j += 4
    while j < M1:  # the last columns one at a time
        a = (j - 1) * _COL
        b = a + _COL
        q = pc + j * LANES
        sh0 = SH[j]
        if local:
            for l in range(nl):
                ph0 = max(sh0, W[_U64(b + _H + l)])
                e0 = max(_I32(ph0 - oe), _I32(W[_U64(b + _E + l)] - ge))
                t0 = max(max(_I32(W[_U64(a + _P + l)] + prof[_U64(q + l)]), e0), _I32(0))
                f0 = max(_I32(W[_U64(a + _T + l)] - oe), _I32(W[_U64(a + _F + l)] - ge))
                h0 = max(t0, f0)
                W[_U64(b + _R + l)] = max(W[_U64(a + _R + l)], h0)
                W[_U64(b + _E + l)] = e0
                W[_U64(b + _H + l)] = h0
                W[_U64(b + _P + l)] = ph0
                W[_U64(b + _T + l)] = t0
                W[_U64(b + _F + l)] = f0
        else:
            for l in range(nl):
                ph0 = max(sh0, W[_U64(b + _H + l)])
                e0 = max(_I32(ph0 - oe), _I32(W[_U64(b + _E + l)] - ge))
                t0 = max(_I32(W[_U64(a + _P + l)] + prof[_U64(q + l)]), e0)
                f0 = max(_I32(W[_U64(a + _T + l)] - oe), _I32(W[_U64(a + _F + l)] - ge))
                h0 = max(t0, f0)
                W[_U64(b + _E + l)] = e0
                W[_U64(b + _H + l)] = h0
                W[_U64(b + _P + l)] = ph0
                W[_U64(b + _T + l)] = t0
                W[_U64(b + _F + l)] = f0
        j += 1


@nb.njit(**_JIT)
def _vmerge(v, pred_off, pred, slot, W, slots, M1, neg, nl):
    """The merged PH/PE of row v into ``W``'s H and E: the previous row (in ``W``) where v continues it, else the
    predecessors' slots (``_vsave``'s layout: the 2 nl values of a column are those of ``W``); minus infinity
    without predecessors (the start row S comes in ``_vrow``)."""
    p0 = pred_off[v]
    npred = pred_off[v + 1] - p0
    if npred == 1 and pred[p0] == v - 1:
        return
    if npred == 1:
        src = slots[slot[pred[p0]]]
        for j in range(M1):
            for x in range(2 * nl):
                W[j * _COL + x] = src[2 * j * nl + x]
        return
    keep = False
    for k in range(npred):
        keep = keep or pred[p0 + k] == v - 1
    for j in range(M1):
        for x in range(2 * nl):
            W[j * _COL + x] = max(W[j * _COL + x], neg) if keep else neg
    for k in range(npred):
        u = pred[p0 + k]
        if u != v - 1:
            src = slots[slot[u]]
            for j in range(M1):
                for x in range(2 * nl):
                    W[j * _COL + x] = max(W[j * _COL + x], src[2 * j * nl + x])


@nb.njit(**_JIT)
def _vsave(W, dst, M1, nr):
    """``W``'s H and E of lanes 0..nr-1 into a slot or checkpoint row (column after column, H then E, the
    ``nr`` lanes innermost)."""
    for j in range(M1):
        for x in range(nr):
            dst[2 * j * nr + x] = W[j * _COL + _H + x]
            dst[2 * j * nr + nr + x] = W[j * _COL + _E + x]


@nb.njit(**_JIT)
def _vsave_slot(src, dst, M1, nl, nr):
    """Lanes 0..nr-1 of a slot row (``nl`` lanes) into a checkpoint row of ``nr`` lanes."""
    for y in range(2 * M1):
        for x in range(nr):
            dst[y * nr + x] = src[y * nl + x]


@nb.njit(**_JIT)
def _vforward(G, last, mode, prof, SH, oe, ge, neg, W, slots, ends, best, bestv, bestj, cp_at, cpr, cps, nl, nr):
    """Every row for the lanes of a group: ``_sweep``'s values and end cells per lane (``best``, ``bestv``,
    ``bestj``; ``ends[l]``: where ``W`` holds lane l's H at its read's end; ``best`` starts below every score,
    at 0 in local mode, and a row replaces it where strictly better, as ``_sweep``'s tracking).

    Local mode follows every column of the group, past a read's end too: a
    cell there never beats the best so far, so the end cell is the one of
    the read's own columns. Its H is at most 0 or the H of a cell before it
    (rows, then columns, in order): D = PH[j-1] - n_penalty (the read's N
    padding) is at most the H of a predecessor at j - 1 (or S, 0), E at most
    a predecessor's H at j, F at most the H at j - 1 of the same row; so by
    induction it is at most the best when it comes (a cell of column 0,
    never followed, is 0 in local mode). For the same reason the first
    column of a row holding a better best is one of the read's.

    Before the rows ``cp_at``, checkpoints of the first ``nr`` lanes: the
    previous row, and the slots a later row still reads (``last[u]``: the
    last row that reads row u); the other slots of a checkpoint are left as
    they are (never read: a walk reads a slot only for a predecessor).
    """
    g, pred_off, pred, slot, source, sink, multi = G
    n = g.shape[0]
    M1 = SH.shape[0]
    M = M1 - 1
    local = mode == LOCAL
    stride = M1 * LANES
    NEG = np.full(M1, neg, SH.dtype)
    owner = np.full(slots.shape[0], -1, np.int64)  # the row each slot holds
    k_cp = 0
    for v in range(n):
        if k_cp < cp_at.shape[0] and cp_at[k_cp] == v:
            _vsave(W, cpr[k_cp], M1, nr)
            for s in range(slots.shape[0]):
                if owner[s] >= 0 and last[owner[s]] >= v:
                    _vsave_slot(slots[s], cps[k_cp, s], M1, nl, nr)
            k_cp += 1
        _vmerge(v, pred_off, pred, slot, W, slots, M1, neg, nl)
        _vrow(W, M1, prof, g[v] * stride, SH if mode != GLOBAL or source[v] else NEG, oe, ge, neg, local, nl)
        if slot[v] >= 0:
            _vsave(W, slots[slot[v]], M1, nl)
            owner[slot[v]] = v
        if local:
            hit = False
            for l in range(nl):
                hit |= W[M * _COL + _R + l] > best[l]
            if hit:
                for l in range(nl):
                    x = W[M * _COL + _R + l]
                    if x > best[l]:
                        j = 1
                        while W[j * _COL + _H + l] != x:
                            j += 1
                        best[l] = x
                        bestv[l] = v
                        bestj[l] = j
        elif mode == GLOCAL or sink[v]:
            hit = False
            for l in range(nl):
                hit |= W[ends[l]] > best[l]
            if hit:
                for l in range(nl):
                    x = W[ends[l]]
                    if x > best[l]:
                        best[l] = x
                        bestv[l] = v


@nb.njit(**_JIT)
def _vload(cpr, cps, nr, W, slots, M1c, neg):
    """A group's checkpoint (``_vforward``'s: nr lanes) into ``W``'s H and E and the slot rows (``LANES`` lanes),
    columns 0..M1c-1; the lanes past nr get minus infinity."""
    nl = LANES
    for j in range(M1c):
        for x in range(nl):
            W[j * _COL + _H + x] = cpr[2 * j * nr + x] if x < nr else neg
            W[j * _COL + _E + x] = cpr[2 * j * nr + nr + x] if x < nr else neg
    for s in range(slots.shape[0]):
        for j in range(M1c):
            for x in range(nl):
                slots[s, 2 * j * nl + x] = cps[s, 2 * j * nr + x] if x < nr else neg
                slots[s, 2 * j * nl + nl + x] = cps[s, 2 * j * nr + nr + x] if x < nr else neg


@nb.njit(**_JIT)
def _vmerge_trace(v, lo, G, mode, SH, W, slots, M1c, neg, PH, PE, AS, prev, argH, argE):
    """``_merge`` with ``want`` for every lane: the merged PH/PE of row v (S included) into ``W``'s H and E, and
    the same predecessor choices: ``AS[j * LANES + l]`` whether S gave PH (rows of at most one predecessor),
    ``argH/argE[((multi[v] - multi[lo]) * M1c + j) * LANES + l]`` (rows of several)."""
    g, pred_off, pred, slot, source, sink, multi = G
    nl = LANES
    use_s = mode != GLOBAL or source[v]
    p0 = pred_off[v]
    npred = pred_off[v + 1] - p0
    if multi[v + 1] > multi[v]:
        base = (multi[v] - multi[lo]) * M1c * nl
        _vsave(W, prev, M1c, nl)
        for j in range(M1c):
            s0 = SH[j] if use_s else neg
            for x in range(nl):
                PH[j * nl + x] = s0
                PE[j * nl + x] = neg
                argH[base + j * nl + x] = FROM_S
                argE[base + j * nl + x] = FROM_S
                AS[j * nl + x] = 0
        for k in range(npred):
            u = pred[p0 + k]
            src = prev if u == v - 1 else slots[slot[u]]
            for y in range(M1c * nl):
                j = y // nl
                x = y - j * nl
                hu = src[2 * j * nl + x]
                eu = src[2 * j * nl + nl + x]
                if hu > PH[y]:
                    PH[y] = hu
                    argH[base + y] = k
                if eu > PE[y]:
                    PE[y] = eu
                    argE[base + y] = k
        for j in range(M1c):
            for x in range(nl):
                W[j * _COL + _H + x] = PH[j * nl + x]
                W[j * _COL + _E + x] = PE[j * nl + x]
        return
    _vmerge(v, pred_off, pred, slot, W, slots, M1c, neg, nl)  # the one predecessor's row, or none
    for j in range(M1c):
        s0 = SH[j] if use_s else neg
        o = j * _COL
        if npred == 0:
            for x in range(nl):
                W[o + _H + x] = s0
                AS[j * nl + x] = use_s
        else:
            for x in range(nl):
                hu = W[_U64(o + _H + x)]
                a = s0 >= hu
                W[_U64(o + _H + x)] = max(s0, hu)
                AS[_U64(j * nl + x)] = np.uint8(a)


@nb.njit(**_JIT)
def _vrow_trace(gv, lo, v, mode, prof, M1, W, M1c, oe, ge, neg, AS, P, HP, FP, codes):
    """``_row`` with ``want`` for every lane, from the merged PH/PE in ``W`` (``_vmerge_trace``): H and E into
    ``W``, the direction bytes into ``codes[((v - lo) * M1c + j) * LANES + l]``, by ``_row``'s tie rule (the
    moves chosen by selects, so that the lane loops vectorise: F = max(fo, fe) is ``_row``'s value)."""
    nl = LANES
    local = mode == LOCAL
    q = gv * M1 * LANES
    c0 = (v - lo) * M1c * nl
    oe32 = _I32(oe)
    ge32 = _I32(ge)
    for x in range(nl):
        ph = W[_H + x]
        pe = W[_E + x]
        e = max(_I32(ph - oe32), _I32(pe - ge32))
        stop = local and e <= 0
        codes[c0 + x] = (START if stop else DEL) | (np.uint8(_I32(pe - ge32) > _I32(ph - oe32)) << 2) | (AS[x] << 4)
        h = _I32(0) if stop else e
        W[_E + x] = e
        W[_H + x] = h
        P[x] = ph
        HP[x] = h
        FP[x] = neg
    for j in range(1, M1c):
        o = j * _COL
        pq = q + j * LANES
        cj = c0 + j * nl
        for x in range(nl):  # ``local`` is the same throughout: LLVM takes the test out of the loop
            ph = W[_U64(o + _H + x)]
            pe = W[_U64(o + _E + x)]
            eo = _I32(ph - oe32)
            ee = _I32(pe - ge32)
            e = max(eo, ee)
            d = _I32(P[_U64(x)] + prof[_U64(pq + x)])
            fo = _I32(HP[_U64(x)] - oe32)
            fe = _I32(FP[_U64(x)] - ge32)
            f = max(fo, fe)
            t = max(d, f)
            h = max(t, e)
            src = np.uint8(DEL) if e > t else (np.uint8(INS) if f > d else np.uint8(DIAG))
            if local:
                src = np.uint8(START) if h <= 0 else src
                h = max(h, _I32(0))
            codes[_U64(cj + x)] = src | (np.uint8(ee > eo) << 2) | (np.uint8(fe > fo) << 3) | \
                (AS[_U64(j * nl + x)] << 4)
            W[_U64(o + _E + x)] = e
            W[_U64(o + _H + x)] = h
            P[_U64(x)] = ph
            HP[_U64(x)] = h
            FP[_U64(x)] = f


@nb.njit(**_JIT)
def _vrecompute(lo, hi, G, mode, prof, M1, SH, oe, ge, neg, cpr, cps, nr, W, slots, M1c, codes, argH, argE):
    """Rows lo..hi-1 of every lane of a group again from their block's checkpoint (``cpr``, ``cps``: nr lanes),
    columns 0..M1c-1, with ``_recompute``'s direction bytes and predecessor indices for each lane (layouts:
    ``_vmerge_trace``, ``_vrow_trace``)."""
    g, pred_off, pred, slot, source, sink, multi = G
    nl = LANES
    _vload(cpr, cps, nr, W, slots, M1c, neg)
    PH = np.empty(M1c * nl, np.int32)
    PE = np.empty(M1c * nl, np.int32)
    AS = np.zeros(M1c * nl, np.uint8)
    prev = np.empty(2 * M1c * nl, np.int32)
    P = np.empty(nl, np.int32)
    HP = np.empty(nl, np.int32)
    FP = np.empty(nl, np.int32)
    for v in range(lo, hi):
        _vmerge_trace(v, lo, G, mode, SH, W, slots, M1c, neg, PH, PE, AS, prev, argH, argE)
        _vrow_trace(g[v], lo, v, mode, prof, M1, W, M1c, oe, ge, neg, AS, P, HP, FP, codes)
        if slot[v] >= 0:
            _vsave(W, slots[slot[v]], M1c, nl)


@nb.njit(**_JIT)
def _group_walks(G, node, codes, offs, ids, lens, mode, prof, SH, oe, ge, neg, best, bestv, bestj, starts, cpr,
                 cps, n_slots, run_off, run_op, run_len, path_off, path_nodes, res):
    """The walks of a group's reads in step: the lowest block a walk is in is recomputed once for every lane
    (``_vrecompute``, up to the largest column of the walks in it), then each walk in it follows its lane
    (``_walk_rows``) until it leaves the block upwards or ends; so each block is recomputed at most once."""
    multi = G[6]
    nl = LANES
    nr = ids.shape[0]
    M1 = SH.shape[0]
    sts = np.zeros((nr, 8), np.int64)
    ops = [np.empty(0, np.uint8) for _ in range(nr)]
    nodes = [np.empty(64, np.int32) for _ in range(nr)]
    for l in range(nr):
        k = ids[l]
        v = _end(mode, SH, lens[l], np.int64(best[l]), bestv[l], bestj[l], res[k])
        if v < 0:
            res[k, 1] = 0
            res[k, 2] = 0
            sts[l, S_DONE] = 2  # no walk
        else:
            sts[l] = _walk_start(v, bestj[l])
            ops[l] = np.empty(lens[l] + 16, np.uint8)
    W = np.empty(M1 * _COL, np.int32)
    slots = np.empty((n_slots, 2 * M1 * nl), np.int32)
    blk = starts.shape[0] - 2
    while True:
        top = -1
        for l in range(nr):
            if sts[l, S_DONE] == 0:
                top = max(top, sts[l, S_V])
        if top < 0:
            break
        while starts[blk] > top:
            blk -= 1
        lo = starts[blk]
        hi = top + 1
        jmax = 0
        for l in range(nr):
            if sts[l, S_DONE] == 0 and sts[l, S_V] >= lo:
                jmax = max(jmax, sts[l, S_J])
        M1c = jmax + 1
        nm = max(multi[hi] - multi[lo], 1)
        cb = np.empty((hi - lo) * M1c * nl, np.uint8)
        ah = np.empty(nm * M1c * nl, np.uint16)
        ae = np.empty(nm * M1c * nl, np.uint16)
        _vrecompute(lo, hi, G, mode, prof, M1, SH, oe, ge, neg, cpr[blk], cps[blk], nr, W, slots, M1c, cb, ah, ae)
        c3 = cb.reshape(hi - lo, M1c, nl)
        h3 = ah.reshape(nm, M1c, nl)
        e3 = ae.reshape(nm, M1c, nl)
        for l in range(nr):
            if sts[l, S_DONE] == 0 and sts[l, S_V] >= lo:
                k = ids[l]
                ops[l], nodes[l] = _walk_rows(G, node, codes[offs[k]:offs[k + 1]], mode, c3[:, :, l], h3[:, :, l],
                                              e3[:, :, l], lo, sts[l], ops[l], nodes[l])
    for l in range(nr):
        k = ids[l]
        if sts[l, S_DONE] == 1:
            r0 = run_off[k]
            _walk_end(sts[l], ops[l], res[k], run_op[r0:], run_len[r0:], nodes[l])
        _keep_path(k, nodes[l], path_off, path_nodes, res)


@nb.njit(**_JIT)
def _group_walk_fits(multi, starts, M1, budget):
    """Whether the direction bytes and predecessor indices of every lane of a block (``_group_walks``) stay
    within ``checkpoint_budget(budget)`` for every block."""
    for b in range(starts.shape[0] - 1):
        rows = starts[b + 1] - starts[b]
        nm = multi[starts[b + 1]] - multi[starts[b]]
        if (rows + 4 * nm) * M1 * LANES > checkpoint_budget(budget):
            return False
    return True


@nb.njit(**_JIT)
def _group_blocks(multi, n, M, n_slots, nr, budget):
    """Block starts of the walks of a group of ``nr`` reads: blocks of about ``BLOCK_ROWS`` rows, fewer and
    longer where their checkpoints would pass ``checkpoint_budget(budget)`` bytes, never more direction bytes a
    block than ``budget`` (``_blocks`` for the group's longest read)."""
    weight = n + 4 * (multi[n] - multi[0])
    cp_bytes = (n_slots + 1) * (M + 1) * 2 * nr * 4
    rows = max(BLOCK_ROWS, (weight * cp_bytes) // checkpoint_budget(budget) + 1)
    return _blocks(multi, n, M, min(budget, rows * (M + 1)))


@nb.njit(**_JIT)
def checkpoint_budget(budget):
    """Bytes the checkpoints of a group may take: the matrix budget, and no less than ``CHECKPOINT_MIN``."""
    return max(budget, CHECKPOINT_MIN)


@nb.njit(**_JIT)
def align_group(G, last, node, codes, offs, ids, mode, sc, neg_arr, trace, budget, n_slots, run_off, run_op,
                run_len, path_off, path_nodes, res):
    """Align the reads ``ids`` (at most ``LANES``) side by side; per read as ``align_each``: ``res[k]``, runs and
    path nodes (or 1 in ``res[k, 7]``). int32 cells only; ``last`` as ``last_reader`` gives it."""
    g, pred_off, pred, slot, source, sink, multi = G
    n = g.shape[0]
    nl = LANES
    nr = ids.shape[0]
    neg = neg_arr[0]
    oe = sc[2] + sc[3]
    ge = sc[3]
    lens = np.zeros(nl, np.int64)
    for l in range(nr):
        lens[l] = offs[ids[l] + 1] - offs[ids[l]]
    M = lens.max()
    M1 = M + 1
    S = pair_table(sc, neg_arr)
    SH = start_row(M, mode, oe, ge, neg_arr)
    prof = np.zeros(5 * M1 * LANES, np.int32)
    for l in range(nl):
        o = offs[ids[l]] if l < nr else 0
        for j in range(1, M1):
            b = codes[o + j - 1] if j <= lens[l] else 4  # N past the read's end
            for c in range(5):
                prof[(c * M1 + j) * LANES + l] = S[c, b]
    W = np.full(M1 * _COL, neg, np.int32)
    slots = np.full((n_slots, 2 * M1 * nl), neg, np.int32)
    best = np.full(nl, np.iinfo(np.int32).min, np.int32)  # below every H (minus infinity is -2**29)
    if mode == LOCAL:
        best[:] = 0
    ends = lens * _COL + _H + np.arange(nl)
    bestv = np.full(nl, -1, np.int64)
    bestj = lens.copy() if mode != LOCAL else np.full(nl, -1, np.int64)
    if trace:
        starts = _group_blocks(multi, n, M, n_slots, nr, budget)
        cp_at = starts[:-1].copy()
    else:
        starts = np.array([0, n], np.int64)
        cp_at = np.empty(0, np.int64)
    cpr = np.empty((cp_at.shape[0], 2 * M1 * nr), np.int32)
    cps = np.empty((cp_at.shape[0], n_slots, 2 * M1 * nr), np.int32)
    _vforward(G, last, mode, prof, SH, oe, ge, neg, W, slots, ends, best, bestv, bestj, cp_at, cpr, cps, nl, nr)
    if trace and _group_walk_fits(multi, starts, M1, budget):
        _group_walks(G, node, codes, offs, ids, lens, mode, prof, SH, oe, ge, neg, best, bestv, bestj, starts, cpr,
                     cps, n_slots, run_off, run_op, run_len, path_off, path_nodes, res)
        return
    none = np.empty((1, 1), np.uint8)
    none16 = np.empty((1, 1), np.uint16)
    for l in range(nr):
        k = ids[l]
        m = lens[l]
        r0 = run_off[k] if trace else 0
        buf = np.empty(64, np.int32)
        read = codes[offs[k]:offs[k + 1]]
        buf = _finish(G, node, read, mode, S, oe, ge, neg, SH[:m + 1].copy(), trace, np.int64(best[l]), bestv[l],
                      bestj[l], False, none, none16, none16, starts, cpr, cps, l, nr, n_slots, res[k],
                      run_op[r0:], run_len[r0:], buf)
        _keep_path(k, buf, path_off, path_nodes, res)


@nb.njit(parallel=True, **_JIT)
def align_groups(G, node, codes, offs, order, group_off, mode, sc, neg, trace, budget, n_slots, run_off, run_op,
                 run_len, path_off, path_nodes, res):
    """Align the reads ``order`` in groups ``order[group_off[i]:group_off[i + 1]]`` (threads across groups)."""
    last = last_reader(G[1], G[2])
    for i in nb.prange(group_off.shape[0] - 1):
        align_group(G, last, node, codes, offs, order[group_off[i]:group_off[i + 1]], mode, sc, neg, trace, budget,
                    n_slots, run_off, run_op, run_len, path_off, path_nodes, res)


@nb.njit(**_JIT)
def last_reader(pred_off, pred):
    """For each row u, the last row that reads it (its largest successor; -1 for none)."""
    n = pred_off.shape[0] - 1
    last = np.full(n, -1, np.int64)
    for v in range(n):
        for k in range(pred_off[v], pred_off[v + 1]):
            last[pred[k]] = max(last[pred[k]], v)
    return last
