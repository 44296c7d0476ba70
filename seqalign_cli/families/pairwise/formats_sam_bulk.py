"""SAM and BAM records of pairs formatted in bulk: numba helpers that put a chunk's records straight into a
byte buffer (``formatting``'s primitives), for the SAM/BAM writer (``formats_sam``).

Pairs as SAM/BAM records: the query is the read, the target the reference.
``q``, ``t``: the queries' and targets' ``BlockView``; ``qual`` the queries'
quality letters (offsets ``q.seq_off``; ignored unless ``has_qual``);
``rec``: a ``PairView``; ``runs``: the CIGAR ``RunView``. Letter tables are
given by the caller (``formats_sam``): ``seq_letters[b]``, the SEQ letter of
a sequence byte; ``qual_letters[b]``, the QUAL letter of a quality byte;
``ref_letters[b]``, the MD:Z letter of a target byte. ``tags``: bytes every
record ends with (the read group's ``RG:Z`` tag, SAM text or BAM binary;
empty for none). The queries of pairs aligned reverse-complemented
(``rec.strand``) come reverse-complemented already (``chunks_mapping``).
"""

from __future__ import annotations

import numpy as np

from ...formatting import (_JIT, _PAF_NM, _STAR, INT_WIDTH, NEWLINE, RUN_WIDTH, TAB, _put_text, _text, put_bytes,
                           put_cigar, put_int)
from ...jit import nb
from .formats_paf import _PAF_AS

_SAM_UNMAPPED = _text(b"\t*\t0\t0\t*\t*\t0\t0\t")
_SAM_MAPQ = _text(b"\t255\t")
_SAM_MATE = _text(b"\t*\t0\t0\t")
_SAM_MD = _text(b"\tMD:Z:")
#: BAM op code of each ``Op`` (=, X, I, D) and of M, S, N
_BAM_OP = np.array([7, 8, 1, 2], np.int64)
_BAM_M = 0
_BAM_S = 4
_BAM_N = 3


@nb.njit(**_JIT)
def put_count(buf, pos, value):
    """A count (``value`` >= 0) in decimal, as ``put_int`` writes it, at once below 100 (most run lengths)."""
    if value < 10:
        buf[pos] = 48 + value
        return pos + 1
    if value < 100:
        buf[pos] = 48 + value // 10
        buf[pos + 1] = 48 + value % 10
        return pos + 2
    return put_int(buf, pos, value)


@nb.njit(**_JIT)
def sam_mapped(t_seq_off, stats, run_count, p):
    """Whether pair ``p`` is a mapped record: a non-empty target and at least one aligned base (the arrays of
    the targets' ``BlockView``, the ``PairView`` and the ``RunStore.view``; ``formatting.put_cigar`` says why
    arrays)."""
    return t_seq_off[p + 1] > t_seq_off[p] and run_count[p] > 0 and stats[p, 0] + stats[p, 1] > 0


@nb.njit(**_JIT)
def sam_mapped_all(t, rec, runs):
    """``sam_mapped`` of every pair, as a boolean array."""
    t_seq_off, stats, run_count = t.seq_off, rec.stats, runs.count
    n = run_count.shape[0]
    out = np.empty(n, np.bool_)
    for p in range(n):
        out[p] = sam_mapped(t_seq_off, stats, run_count, p)
    return out


@nb.njit(**_JIT)
def sam_flag(strand, role, p, mapped):
    """The SAM FLAG of pair ``p``: 4 unmapped, 16 reverse-complemented, 256 secondary."""
    flag = 0 if mapped else 4
    if strand[p]:
        flag |= 16
    if role[p] == 2:
        flag |= 256
    return flag


@nb.njit(**_JIT)
def _md_bound(span, nruns):
    """Bytes enough for an MD:Z string over ``span`` target bases in ``nruns`` runs: a number before every
    mismatched base and deletion run."""
    if span < 0:
        span = 0
    return 2 * span + (nruns + 1) * (INT_WIDTH + 1)


@nb.njit(**_JIT)
def put_md(buf, pos, run_op, run_len, r0, nr, t_seq, at, ref_letters):
    """The MD:Z string of the runs ``r0 .. r0 + nr - 1`` (unmerged) over the target's codes from ``at``."""
    num = np.int64(0)
    for r in range(r0, r0 + nr):
        op = run_op[r]
        n = np.int64(run_len[r])
        if op == 0:
            num += n
            at += n
        elif op == 1:
            for i in range(n):
                pos = put_count(buf, pos, num)
                buf[pos] = ref_letters[t_seq[at + i]]
                pos += 1
                num = 0
            at += n
        elif op == 3:
            pos = put_count(buf, pos, num)
            buf[pos] = 94  # '^'
            pos += 1
            for i in range(n):
                buf[pos] = ref_letters[t_seq[at + i]]
                pos += 1
            num = 0
            at += n
    return put_count(buf, pos, num)


@nb.njit(**_JIT)
def _put_mapped_letters(buf, pos, src, start, end, table):
    """``table[src[i]]`` for i in start..end-1, or '*' for none."""
    if end <= start:
        buf[pos] = _STAR
        return pos + 1
    for i in range(start, end):
        buf[pos] = table[src[i]]
        pos += 1
    return pos


@nb.njit(**_JIT)
def format_sam(q, qual, has_qual, t, rec, runs, letters, merge_m, seq_letters, qual_letters, ref_letters, tags):
    """SAM records of every pair, in order.

    Mapped: ``QNAME FLAG TNAME tstart+1 255 [qstartS]CIGAR[restS] * 0 0 SEQ
    QUAL AS:i NM:i MD:Z``; a pair without aligned bases (empty target, no
    runs, or no = or X base): ``QNAME FLAG * 0 0 * * 0 0 SEQ QUAL AS:i``
    (``sam_flag``); then ``tags``. SEQ and QUAL are '*' when empty (QUAL also
    without qualities); NM is stats columns 1 to 3.
    """
    qn, qo, qs, q_seq, tn, to, ts, t_seq = q.names, q.name_off, q.seq_off, q.seq, t.names, t.name_off, t.seq_off, t.seq
    qstart, qend, tstart, tend, score, stats = rec.qstart, rec.qend, rec.tstart, rec.tend, rec.score, rec.stats
    strand, role = rec.strand, rec.role
    run_op, run_len, run_off, run_count = runs.op, runs.length, runs.off, runs.count
    n = run_count.shape[0]
    total = 0
    for p in range(n):
        qlen = qs[p + 1] - qs[p]
        total += (qo[p + 1] - qo[p]) + (to[p + 1] - to[p]) + 2 * qlen
        total += run_count[p] * RUN_WIDTH + _md_bound(tend[p] - tstart[p], run_count[p]) + 8 * (INT_WIDTH + 1) + 64
        total += tags.shape[0]
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        qa = qs[p]
        qb = qs[p + 1]
        pos = put_bytes(buf, pos, qn, qo[p], qo[p + 1])
        mapped = sam_mapped(ts, stats, run_count, p)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, sam_flag(strand, role, p, mapped))
        if mapped:
            buf[pos] = TAB
            pos = put_bytes(buf, pos + 1, tn, to[p], to[p + 1])
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, tstart[p] + 1)
            pos = _put_text(buf, pos, _SAM_MAPQ)
            if qstart[p] > 0:
                pos = put_int(buf, pos, qstart[p])
                buf[pos] = 83  # 'S'
                pos += 1
            pos = put_cigar(buf, pos, run_op, run_len, run_off[p], run_count[p], letters, merge_m, 0)
            if qend[p] < qb - qa:
                pos = put_int(buf, pos, qb - qa - qend[p])
                buf[pos] = 83
                pos += 1
            pos = _put_text(buf, pos, _SAM_MATE)
        else:
            pos = _put_text(buf, pos, _SAM_UNMAPPED)
        pos = _put_mapped_letters(buf, pos, q_seq, qa, qb, seq_letters)
        buf[pos] = TAB
        if has_qual:
            pos = _put_mapped_letters(buf, pos + 1, qual, qa, qb, qual_letters)
        else:
            buf[pos + 1] = _STAR
            pos += 2
        pos = _put_text(buf, pos, _PAF_AS)
        pos = put_int(buf, pos, score[p])
        if mapped:
            pos = _put_text(buf, pos, _PAF_NM)
            pos = put_int(buf, pos, stats[p, 1] + stats[p, 2] + stats[p, 3])
            pos = _put_text(buf, pos, _SAM_MD)
            pos = put_md(buf, pos, run_op, run_len, run_off[p], run_count[p], t_seq, ts[p] + tstart[p], ref_letters)
        pos = _put_text(buf, pos, tags)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


@nb.njit(**_JIT)
def put_le(buf, pos, value, width):
    """``value`` as a little-endian integer of ``width`` bytes (two's complement)."""
    v = np.int64(value)
    for i in range(width):
        buf[pos + i] = v & 0xFF
        v >>= 8
    return pos + width


@nb.njit(**_JIT)
def reg2bin(beg, end):
    """The BAM bin of the 0-based half-open span [beg, end) (SAM specification, section 5.3)."""
    end -= 1
    if beg >> 14 == end >> 14:
        return ((1 << 15) - 1) // 7 + (beg >> 14)
    if beg >> 17 == end >> 17:
        return ((1 << 12) - 1) // 7 + (beg >> 17)
    if beg >> 20 == end >> 20:
        return ((1 << 9) - 1) // 7 + (beg >> 20)
    if beg >> 23 == end >> 23:
        return ((1 << 6) - 1) // 7 + (beg >> 23)
    if beg >> 26 == end >> 26:
        return ((1 << 3) - 1) // 7 + (beg >> 26)
    return 0


@nb.njit(**_JIT)
def put_int_tag(buf, pos, c1, c2, value):
    """An integer tag in the smallest type that holds it (c, C, s, S, i, I), as htslib stores ``XX:i:value``."""
    buf[pos] = c1
    buf[pos + 1] = c2
    v = np.int64(value)
    if v < 0:
        if v >= -128:
            buf[pos + 2] = 99  # 'c'
            return put_le(buf, pos + 3, v, 1)
        if v >= -32768:
            buf[pos + 2] = 115  # 's'
            return put_le(buf, pos + 3, v, 2)
        buf[pos + 2] = 105  # 'i'
        return put_le(buf, pos + 3, v, 4)
    if v <= 255:
        buf[pos + 2] = 67  # 'C'
        return put_le(buf, pos + 3, v, 1)
    if v <= 65535:
        buf[pos + 2] = 83  # 'S'
        return put_le(buf, pos + 3, v, 2)
    buf[pos + 2] = 73  # 'I'
    return put_le(buf, pos + 3, v, 4)


@nb.njit(**_JIT)
def _put_bam_cigar(buf, pos, run_op, run_len, r0, nr, merge_m, clip_l, clip_r):
    """The runs ``r0 .. r0 + nr - 1`` and the clips as BAM ops (uint32 length << 4 | op); returns (position,
    ops, reference bases)."""
    ops = 0
    rlen = np.int64(0)
    if clip_l > 0:
        pos = put_le(buf, pos, (np.int64(clip_l) << 4) | _BAM_S, 4)
        ops += 1
    k = 0
    while k < nr:
        op = run_op[r0 + k]
        length = np.int64(run_len[r0 + k])
        code = _BAM_OP[op]
        if merge_m and op <= 1:
            code = _BAM_M
            while k + 1 < nr and run_op[r0 + k + 1] <= 1:
                k += 1
                length += run_len[r0 + k]
        if op != 2:
            rlen += length
        pos = put_le(buf, pos, (length << 4) | code, 4)
        ops += 1
        k += 1
    if clip_r > 0:
        pos = put_le(buf, pos, (np.int64(clip_r) << 4) | _BAM_S, 4)
        ops += 1
    return pos, ops, rlen


@nb.njit(**_JIT)
def encode_bam(q, qual, has_qual, t, rec, runs, merge_m, ref_ids, nt16, qual_values, ref_letters, tags):
    """BAM records (SAM specification, section 4.2) of every pair, in order: the records ``format_sam`` writes.

    ``ref_ids[p]``: the reference index of pair ``p``'s target (read for mapped
    records only); ``nt16[b]``: the 4-bit code of a sequence byte;
    ``qual_values[b]``: the quality value of a quality byte. Integer tags take
    the smallest type that holds them, as htslib gives them; a CIGAR of more
    than 65535 ops goes to a CG:B,I tag, the CIGAR field holding
    ``<qlen>S<rlen>N`` (htslib's convention).
    """
    qn, qo, qs, q_seq, ts, t_seq = q.names, q.name_off, q.seq_off, q.seq, t.seq_off, t.seq
    qstart, qend, tstarts, tend, score, stats = rec.qstart, rec.qend, rec.tstart, rec.tend, rec.score, rec.stats
    strand, role = rec.strand, rec.role
    run_op, run_len, run_off, run_count = runs.op, runs.length, runs.off, runs.count
    n = run_count.shape[0]
    total = 0
    for p in range(n):
        qlen = qs[p + 1] - qs[p]
        total += 36 + (qo[p + 1] - qo[p]) + (qlen + 1) // 2 + qlen
        total += 8 * (run_count[p] + 2) + _md_bound(tend[p] - tstarts[p], run_count[p]) + 64 + tags.shape[0]
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        start = pos
        qa = qs[p]
        qlen = qs[p + 1] - qa
        mapped = sam_mapped(ts, stats, run_count, p)
        tstart = tstarts[p] if mapped else -1
        pos = put_le(buf, pos + 4, ref_ids[p] if mapped else -1, 4)
        pos = put_le(buf, pos, tstart, 4)
        name_len = qo[p + 1] - qo[p]
        buf[pos] = name_len + 1
        buf[pos + 1] = 255 if mapped else 0
        fixed = pos + 2  # bin and n_cigar_op, known once the CIGAR is written
        pos = put_le(buf, pos + 6, sam_flag(strand, role, p, mapped), 2)
        pos = put_le(buf, pos, qlen, 4)
        pos = put_le(buf, pos, -1, 4)
        pos = put_le(buf, pos, -1, 4)
        pos = put_le(buf, pos, 0, 4)
        pos = put_bytes(buf, pos, qn, qo[p], qo[p + 1])
        buf[pos] = 0
        pos += 1
        cigar_at = pos
        ops = 0
        rlen = np.int64(1)
        if mapped:
            pos, ops, rlen = _put_bam_cigar(buf, pos, run_op, run_len, run_off[p], run_count[p], merge_m, qstart[p],
                                            qlen - qend[p])
        long_cigar = ops > 65535
        if long_cigar:  # the ops move to the CG tag below; two placeholder ops here
            pos = cigar_at
            pos = put_le(buf, pos, (np.int64(qlen) << 4) | _BAM_S, 4)
            pos = put_le(buf, pos, (rlen << 4) | _BAM_N, 4)
        put_le(buf, fixed, reg2bin(np.int64(tstart), np.int64(tstart) + rlen), 2)
        put_le(buf, fixed + 2, 2 if long_cigar else ops, 2)
        for i in range(0, qlen - 1, 2):
            buf[pos] = (nt16[q_seq[qa + i]] << 4) | nt16[q_seq[qa + i + 1]]
            pos += 1
        if qlen & 1:
            buf[pos] = nt16[q_seq[qa + qlen - 1]] << 4
            pos += 1
        if has_qual:
            for i in range(qlen):
                buf[pos + i] = qual_values[qual[qa + i]]
        else:
            for i in range(qlen):
                buf[pos + i] = 255
        pos += qlen
        pos = put_int_tag(buf, pos, 65, 83, score[p])  # AS
        if mapped:
            pos = put_int_tag(buf, pos, 78, 77, stats[p, 1] + stats[p, 2] + stats[p, 3])  # NM
            buf[pos] = 77  # MD
            buf[pos + 1] = 68
            buf[pos + 2] = 90  # 'Z'
            pos = put_md(buf, pos + 3, run_op, run_len, run_off[p], run_count[p], t_seq, ts[p] + tstarts[p],
                         ref_letters)
            buf[pos] = 0
            pos += 1
        if long_cigar:
            buf[pos] = 67  # CG
            buf[pos + 1] = 71
            buf[pos + 2] = 66  # 'B'
            buf[pos + 3] = 73  # 'I'
            pos = put_le(buf, pos + 4, ops, 4)
            pos, _, _ = _put_bam_cigar(buf, pos, run_op, run_len, run_off[p], run_count[p], merge_m, qstart[p],
                                       qlen - qend[p])
        pos = _put_text(buf, pos, tags)
        put_le(buf, start, pos - start - 4, 4)
    return buf[:pos]
