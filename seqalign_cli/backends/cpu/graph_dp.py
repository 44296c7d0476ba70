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
"""

from __future__ import annotations

import numpy as np

from ...config import Mode
from ...jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)
GLOBAL, GLOCAL, LOCAL = int(Mode.GLOBAL), int(Mode.GLOCAL), int(Mode.LOCAL)
#: the predecessor index that stands for the virtual start row S
FROM_S = 0xFFFF
#: the moves of the direction byte
DIAG, INS, DEL, START = 0, 1, 2, 3
#: ops written by the walk (``results.Op``)
OP_MATCH, OP_MISMATCH, OP_INS, OP_DEL = 0, 1, 2, 3


@nb.njit(**_JIT)
def pair_table(sc, neg):
    """Scores of two codes (0..4): +match, -mismatch, -n_penalty where either is N."""
    S = np.empty((5, 5), neg.dtype)
    for x in range(5):
        for y in range(5):
            S[x, y] = -sc[4] if (x > 3 or y > 3) else (sc[0] if x == y else -sc[1])
    return S


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
           track, best, cp_at, cpH, cpE):
    """Rows lo..hi-1 of one read; G is (codes, pred_off, pred, slot, source, sink, multi).

    With ``want``: ``codes[v - lo]`` and, for rows of several predecessors,
    ``argH/argE[multi[v] - multi[lo]]``. With ``track``: ``best`` (score,
    base, column) follows the mode's end cell. ``cp_at`` (ascending rows)
    says where checkpoints are saved into cpH/cpE (row 0 the previous row,
    then the slots).
    """
    g, pred_off, pred, slot, source, sink, multi = G
    PH, PE, curH, curE, D, argS = ws
    m = read.shape[0]
    k_cp = 0
    m0 = multi[lo]
    for v in range(lo, hi):
        if k_cp < cp_at.shape[0] and cp_at[k_cp] == v:
            cpH[k_cp, 0] = prevH
            cpE[k_cp, 0] = prevE
            cpH[k_cp, 1:] = slotH
            cpE[k_cp, 1:] = slotE
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
def _recompute(lo, hi, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH, slotE, ws, best, cpH, cpE):
    """Rows lo..hi-1 again from their block's checkpoint, with direction bytes and predecessor indices."""
    multi = G[6]
    m1 = read.shape[0] + 1
    nm = multi[hi] - multi[lo]
    codes = np.empty((hi - lo, m1), np.uint8)
    argH = np.empty((max(nm, 1), m1), np.uint16)
    argE = np.empty((max(nm, 1), m1), np.uint16)
    prevH[:] = cpH[0]
    prevE[:] = cpE[0]
    slotH[:] = cpH[1:]
    slotE[:] = cpE[1:]
    _sweep(lo, hi, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH, slotE, ws, True, codes, argH, argE,
           False, best, np.empty(0, np.int64), cpH[:0][None], cpE[:0][None])
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
    ws = (np.empty(m + 1, dt), np.empty(m + 1, dt), np.empty(m + 1, dt), np.empty(m + 1, dt),
          np.zeros(m + 1, dt), np.zeros(m + 1, np.uint8))
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
        cpH = np.empty((nb_, n_slots + 1, m + 1), dt)
        cpE = np.empty((nb_, n_slots + 1, m + 1), dt)
    else:
        cp_at = np.empty(0, np.int64)
        cpH = np.empty((0, n_slots + 1, m + 1), dt)
        cpE = np.empty((0, n_slots + 1, m + 1), dt)
    _sweep(0, n, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH, slotE, ws, one, codes, argH, argE,
           True, best, cp_at, cpH, cpE)
    score = best[0]
    v = best[1]
    j = best[2]
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
    if not trace:
        return nodes_buf
    if v < 0:  # empty: nothing worth aligning (local) or the read all inserted, no path (glocal)
        out[1] = 0
        out[2] = 0
        return nodes_buf
    # the walk, end to start; ops and nodes collected reversed
    n_ops = 0
    ops = np.empty(m + 16, np.uint8)
    state = 0  # 0 H, 1 F, 2 E
    blk = nb_ - 1
    lo = 0 if one else n + 1  # n + 1: no block recomputed yet
    n_nodes = 0
    last_node = -1
    first = -1
    while True:
        if not one and v < lo:
            while starts[blk] > v:
                blk -= 1
            lo = starts[blk]
            codes, argH, argE = _recompute(lo, v + 1, G, read, mode, S, oe, ge, neg, SH, prevH, prevE, slotH,
                                           slotE, ws, best, cpH[blk], cpE[blk])
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
    out[1] = j
    out[3] = first
    # runs, start to end
    r = 0
    k = n_ops - 1
    while k >= 0:
        op = ops[k]
        ln = 0
        while k >= 0 and ops[k] == op:
            ln += 1
            k -= 1
        ops_out[r] = op
        lens_out[r] = ln
        r += 1
    out[5] = r
    out[6] = n_nodes
    nodes_buf[:n_nodes] = nodes_buf[:n_nodes][::-1].copy()
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
        nn = res[k, 6]
        if nn <= path_off[k + 1] - path_off[k]:
            path_nodes[path_off[k]:path_off[k] + nn] = buf[:nn]
        else:
            res[k, 7] = 1
