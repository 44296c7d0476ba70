"""Text output written in bulk: numba helpers that put ASCII straight into a byte buffer.

Every text writer (TSV, PAF, SAM, MAF, GAF), the BAM records and
``Alignments.cigars`` format through these, one call per chunk rather than
one Python string per row.
Records come in as
named tuples of arrays (``RecordBlock.view``, ``Alignments.view``,
``RunStore.view``); run strings are spelled through a letter table given by
the caller (``results.CIGAR_LETTERS`` for pairs). The helpers take
the buffer and a write position and return the new position; the caller
sizes the buffer beforehand from upper bounds (``INT_WIDTH`` per integer,
``RUN_WIDTH`` per CIGAR run).
"""

from __future__ import annotations

import numpy as np

from .jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: widest int64 in decimal, sign included
INT_WIDTH = 20
#: widest CIGAR run: an int32 length and its letter
RUN_WIDTH = 11
_M = 77
_STAR = 42
TAB = 9
NEWLINE = 10


@nb.njit(**_JIT)
def put_int(buf, pos, value):
    """Write ``value`` in decimal at ``pos``; returns the position after it."""
    v = np.int64(value)
    if v < 0:
        buf[pos] = 45  # '-'
        pos += 1
    start = pos
    if v < 0:
        # digit by digit on the negative value: no overflow at the int64 minimum
        while True:
            d = -(v % -10)
            buf[pos] = 48 + d
            pos += 1
            v = (v + d) // 10
            if v == 0:
                break
    else:
        while True:
            buf[pos] = 48 + v % 10
            pos += 1
            v //= 10
            if v == 0:
                break
    i = start
    j = pos - 1
    while i < j:
        c = buf[i]
        buf[i] = buf[j]
        buf[j] = c
        i += 1
        j -= 1
    return pos


@nb.njit(**_JIT)
def put_bytes(buf, pos, src, start, end):
    """Copy ``src[start:end]`` to ``pos``; returns the position after it."""
    for i in range(start, end):
        buf[pos] = src[i]
        pos += 1
    return pos


@nb.njit(**_JIT)
def put_runs(buf, pos, runs, p, letters, merge_m, empty):
    """The run string of record ``p`` spelled with ``letters[op]``; with ``merge_m`` ops 0 and 1 merge into 'M'.

    No runs write ``empty`` ('*') when it is non-zero, nothing otherwise.
    """
    run_op = runs.op
    run_len = runs.length
    r0 = runs.off[p]
    nr = runs.count[p]
    if nr == 0:
        if empty != 0:
            buf[pos] = empty
            pos += 1
        return pos
    k = 0
    while k < nr:
        op = run_op[r0 + k]
        length = np.int64(run_len[r0 + k])
        letter = letters[op]
        if merge_m and op <= 1:
            letter = _M
            while k + 1 < nr and run_op[r0 + k + 1] <= 1:
                k += 1
                length += run_len[r0 + k]
        pos = put_int(buf, pos, length)
        buf[pos] = letter
        pos += 1
        k += 1
    return pos


@nb.njit(**_JIT)
def format_runs(runs, letters, merge_m):
    """The run strings of every record in one byte buffer (empty for no runs). Returns (buffer, offsets)."""
    n = runs.count.shape[0]
    total = 0
    for p in range(n):
        total += runs.count[p] * RUN_WIDTH + 1
    buf = np.empty(total, np.uint8)
    offs = np.empty(n + 1, np.int64)
    pos = 0
    for p in range(n):
        offs[p] = pos
        pos = put_runs(buf, pos, runs, p, letters, merge_m, 0)
    offs[n] = pos
    return buf[:pos], offs


@nb.njit(**_JIT)
def _row_bound(q, t, runs, ints):
    """Bytes enough for every row: both names, ``ints`` integers and separators, the runs."""
    total = 0
    for p in range(runs.count.shape[0]):
        total += (q.name_off[p + 1] - q.name_off[p]) + (t.name_off[p + 1] - t.name_off[p]) + ints * (INT_WIDTH + 1)
        total += runs.count[p] * RUN_WIDTH + 32
    return total


@nb.njit(**_JIT)
def put_record(buf, pos, block, p):
    """Name and sequence length of record ``p`` of a ``BlockView``, tab-separated."""
    pos = put_bytes(buf, pos, block.names, block.name_off[p], block.name_off[p + 1])
    buf[pos] = TAB
    return put_int(buf, pos + 1, block.seq_off[p + 1] - block.seq_off[p])


@nb.njit(**_JIT)
def put_int_or_star(buf, pos, value):
    """``value`` in decimal, or '*' when it is negative (not computed)."""
    if value < 0:
        buf[pos] = _STAR
        return pos + 1
    return put_int(buf, pos, value)


@nb.njit(**_JIT)
def put_span(buf, pos, start, end):
    """``\tstart\tend``."""
    buf[pos] = TAB
    pos = put_int(buf, pos + 1, start)
    buf[pos] = TAB
    return put_int(buf, pos + 1, end)


@nb.njit(**_JIT)
def put_strand(buf, pos, rec, p):
    """``\t+`` or ``\t-``: the strand column of pair ``p`` (``--strand both``)."""
    buf[pos] = TAB
    buf[pos + 1] = 45 if rec.strand[p] else 43  # '-', '+'
    return pos + 2


@nb.njit(**_JIT)
def format_tsv(q, t, rec, runs, letters, merge_m, strand_column=False):
    """TSV rows: qname qlen qstart qend tname tlen tstart tend score cigar nm ('*' for no runs).

    ``q``, ``t``: the queries and targets (``BlockView``); ``rec``: a
    ``PairView``; nm is stats columns 1 to 3 (mismatches, inserted and
    deleted bases). With ``strand_column`` a last column holds the strand
    (``put_strand``).
    """
    n = runs.count.shape[0]
    buf = np.empty(_row_bound(q, t, runs, 8), np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, q, p)
        pos = put_span(buf, pos, rec.qstart[p], rec.qend[p])
        buf[pos] = TAB
        pos = put_record(buf, pos + 1, t, p)
        pos = put_span(buf, pos, rec.tstart[p], rec.tend[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.score[p])
        buf[pos] = TAB
        pos = put_runs(buf, pos + 1, runs, p, letters, merge_m, _STAR)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.stats[p, 1] + rec.stats[p, 2] + rec.stats[p, 3])
        if strand_column:
            pos = put_strand(buf, pos, rec, p)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


@nb.njit(**_JIT)
def _put_text(buf, pos, text):
    for i in range(text.shape[0]):
        buf[pos + i] = text[i]
    return pos + text.shape[0]


def _text(s: bytes) -> np.ndarray:
    return np.frombuffer(s, np.uint8).copy()


_PAF_UNMAPPED = _text(b"\t0\t0\t*\t")
_PAF_ZEROS = _text(b"\t0\t0\t0\t0\t0\tAS:i:")
_PAF_CG = _text(b"\t255\tcg:Z:")
_PAF_AS = _text(b"\tAS:i:")
_PAF_NM = _text(b"\tNM:i:")
#: the tp:A tag of each ``results.Role`` (none for a query's only record)
_PAF_TP = _text(b"\ttp:A:P\ttp:A:S")


@nb.njit(**_JIT)
def put_tp(buf, pos, rec, p):
    """PAF's ``tp:A:P`` (primary) or ``tp:A:S`` (secondary) of pair ``p``; nothing for a query's only record."""
    role = rec.role[p]
    if role == 0:
        return pos
    return put_bytes(buf, pos, _PAF_TP, 7 * (role - 1), 7 * role)


@nb.njit(**_JIT)
def format_paf(q, t, rec, runs, letters, merge_m):
    """PAF rows: 12 columns, cg:Z, AS:i, NM:i (and ``put_tp``'s tag); a pair without runs has strand '*' and
    zero spans.

    A pair aligned reverse-complemented (``rec.strand``) has strand '-' and
    its query span on the query as read (PAF's rule); its CIGAR is that of
    the reverse-complemented query, along the target.
    """
    n = runs.count.shape[0]
    buf = np.empty(_row_bound(q, t, runs, 12), np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, q, p)
        if runs.count[p] == 0:
            pos = _put_text(buf, pos, _PAF_UNMAPPED)
            pos = put_record(buf, pos, t, p)
            pos = _put_text(buf, pos, _PAF_ZEROS)
            pos = put_int(buf, pos, rec.score[p])
            pos = put_tp(buf, pos, rec, p)
            buf[pos] = NEWLINE
            pos += 1
            continue
        matches = rec.stats[p, 0]
        edits = rec.stats[p, 1] + rec.stats[p, 2] + rec.stats[p, 3]
        if rec.strand[p]:
            qlen = q.seq_off[p + 1] - q.seq_off[p]
            pos = put_span(buf, pos, qlen - rec.qend[p], qlen - rec.qstart[p])
        else:
            pos = put_span(buf, pos, rec.qstart[p], rec.qend[p])
        buf[pos] = TAB
        buf[pos + 1] = 45 if rec.strand[p] else 43  # '-', '+'
        buf[pos + 2] = TAB
        pos = put_record(buf, pos + 3, t, p)
        pos = put_span(buf, pos, rec.tstart[p], rec.tend[p])
        pos = put_span(buf, pos, matches, matches + edits)
        pos = _put_text(buf, pos, _PAF_CG)
        pos = put_runs(buf, pos, runs, p, letters, merge_m, _STAR)
        pos = _put_text(buf, pos, _PAF_AS)
        pos = put_int(buf, pos, rec.score[p])
        pos = _put_text(buf, pos, _PAF_NM)
        pos = put_int(buf, pos, edits)
        pos = put_tp(buf, pos, rec, p)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


# ------------------------------------------------------------------ SAM and BAM
#
# Pairs as SAM/BAM records: the query is the read, the target the reference.
# ``q``, ``t``: the queries' and targets' ``BlockView``; ``qual`` the queries'
# quality letters (offsets ``q.seq_off``; ignored unless ``has_qual``);
# ``rec``: a ``PairView``; ``runs``: the CIGAR ``RunView``. Letter tables are
# given by the caller (``writers.sam``): ``seq_letters[b]``, the SEQ letter of
# a sequence byte; ``qual_letters[b]``, the QUAL letter of a quality byte;
# ``ref_letters[b]``, the MD:Z letter of a target byte. ``tags``: bytes every
# record ends with (the read group's ``RG:Z`` tag, SAM text or BAM binary;
# empty for none). The queries of pairs aligned reverse-complemented
# (``rec.strand``) come reverse-complemented already (``io.mapping``).

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
def put_cigar(buf, pos, runs, p, letters, merge_m):
    """The runs of record ``p`` as ``put_runs`` spells them (at least one run), lengths through ``put_count``."""
    run_op = runs.op
    run_len = runs.length
    r0 = runs.off[p]
    nr = runs.count[p]
    k = 0
    while k < nr:
        op = run_op[r0 + k]
        length = np.int64(run_len[r0 + k])
        letter = letters[op]
        if merge_m and op <= 1:
            letter = _M
            while k + 1 < nr and run_op[r0 + k + 1] <= 1:
                k += 1
                length += run_len[r0 + k]
        pos = put_count(buf, pos, length)
        buf[pos] = letter
        pos += 1
        k += 1
    return pos


@nb.njit(**_JIT)
def sam_mapped(t, rec, runs, p):
    """Whether pair ``p`` is a mapped record: a non-empty target and at least one aligned base."""
    return t.seq_off[p + 1] > t.seq_off[p] and runs.count[p] > 0 and rec.stats[p, 0] + rec.stats[p, 1] > 0


@nb.njit(**_JIT)
def sam_mapped_all(t, rec, runs):
    """``sam_mapped`` of every pair, as a boolean array."""
    n = runs.count.shape[0]
    out = np.empty(n, np.bool_)
    for p in range(n):
        out[p] = sam_mapped(t, rec, runs, p)
    return out


@nb.njit(**_JIT)
def sam_flag(rec, p, mapped):
    """The SAM FLAG of pair ``p``: 4 unmapped, 16 reverse-complemented, 256 secondary."""
    flag = 0 if mapped else 4
    if rec.strand[p]:
        flag |= 16
    if rec.role[p] == 2:
        flag |= 256
    return flag


@nb.njit(**_JIT)
def _md_bound(rec, runs, p):
    """Bytes enough for the MD:Z string of pair ``p``: a number before every mismatched base and deletion run."""
    span = rec.tend[p] - rec.tstart[p]
    if span < 0:
        span = 0
    return 2 * span + (runs.count[p] + 1) * (INT_WIDTH + 1)


@nb.njit(**_JIT)
def put_md(buf, pos, runs, p, t, tstart, ref_letters):
    """The MD:Z string of pair ``p`` (its runs, unmerged, over the target from ``tstart``)."""
    num = np.int64(0)
    at = t.seq_off[p] + tstart
    for r in range(runs.off[p], runs.off[p] + runs.count[p]):
        op = runs.op[r]
        n = np.int64(runs.length[r])
        if op == 0:
            num += n
            at += n
        elif op == 1:
            for i in range(n):
                pos = put_count(buf, pos, num)
                buf[pos] = ref_letters[t.seq[at + i]]
                pos += 1
                num = 0
            at += n
        elif op == 3:
            pos = put_count(buf, pos, num)
            buf[pos] = 94  # '^'
            pos += 1
            for i in range(n):
                buf[pos] = ref_letters[t.seq[at + i]]
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
    n = runs.count.shape[0]
    total = 0
    for p in range(n):
        qlen = q.seq_off[p + 1] - q.seq_off[p]
        total += (q.name_off[p + 1] - q.name_off[p]) + (t.name_off[p + 1] - t.name_off[p]) + 2 * qlen
        total += runs.count[p] * RUN_WIDTH + _md_bound(rec, runs, p) + 8 * (INT_WIDTH + 1) + 64 + tags.shape[0]
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        qa = q.seq_off[p]
        qb = q.seq_off[p + 1]
        pos = put_bytes(buf, pos, q.names, q.name_off[p], q.name_off[p + 1])
        mapped = sam_mapped(t, rec, runs, p)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, sam_flag(rec, p, mapped))
        if mapped:
            buf[pos] = TAB
            pos = put_bytes(buf, pos + 1, t.names, t.name_off[p], t.name_off[p + 1])
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, rec.tstart[p] + 1)
            pos = _put_text(buf, pos, _SAM_MAPQ)
            if rec.qstart[p] > 0:
                pos = put_int(buf, pos, rec.qstart[p])
                buf[pos] = 83  # 'S'
                pos += 1
            pos = put_cigar(buf, pos, runs, p, letters, merge_m)
            if rec.qend[p] < qb - qa:
                pos = put_int(buf, pos, qb - qa - rec.qend[p])
                buf[pos] = 83
                pos += 1
            pos = _put_text(buf, pos, _SAM_MATE)
        else:
            pos = _put_text(buf, pos, _SAM_UNMAPPED)
        pos = _put_mapped_letters(buf, pos, q.seq, qa, qb, seq_letters)
        buf[pos] = TAB
        if has_qual:
            pos = _put_mapped_letters(buf, pos + 1, qual, qa, qb, qual_letters)
        else:
            buf[pos + 1] = _STAR
            pos += 2
        pos = _put_text(buf, pos, _PAF_AS)
        pos = put_int(buf, pos, rec.score[p])
        if mapped:
            pos = _put_text(buf, pos, _PAF_NM)
            pos = put_int(buf, pos, rec.stats[p, 1] + rec.stats[p, 2] + rec.stats[p, 3])
            pos = _put_text(buf, pos, _SAM_MD)
            pos = put_md(buf, pos, runs, p, t, rec.tstart[p], ref_letters)
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
def _put_bam_cigar(buf, pos, runs, p, merge_m, clip_l, clip_r):
    """The CIGAR of pair ``p`` as BAM ops (uint32 length << 4 | op); returns (position, ops, reference bases)."""
    ops = 0
    rlen = np.int64(0)
    if clip_l > 0:
        pos = put_le(buf, pos, (np.int64(clip_l) << 4) | _BAM_S, 4)
        ops += 1
    run_op = runs.op
    run_len = runs.length
    r0 = runs.off[p]
    nr = runs.count[p]
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
    n = runs.count.shape[0]
    total = 0
    for p in range(n):
        qlen = q.seq_off[p + 1] - q.seq_off[p]
        total += 36 + (q.name_off[p + 1] - q.name_off[p]) + (qlen + 1) // 2 + qlen
        total += 8 * (runs.count[p] + 2) + _md_bound(rec, runs, p) + 64 + tags.shape[0]
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        start = pos
        qa = q.seq_off[p]
        qlen = q.seq_off[p + 1] - qa
        mapped = sam_mapped(t, rec, runs, p)
        tstart = rec.tstart[p] if mapped else -1
        pos = put_le(buf, pos + 4, ref_ids[p] if mapped else -1, 4)
        pos = put_le(buf, pos, tstart, 4)
        name_len = q.name_off[p + 1] - q.name_off[p]
        buf[pos] = name_len + 1
        buf[pos + 1] = 255 if mapped else 0
        fixed = pos + 2  # bin and n_cigar_op, known once the CIGAR is written
        pos = put_le(buf, pos + 6, sam_flag(rec, p, mapped), 2)
        pos = put_le(buf, pos, qlen, 4)
        pos = put_le(buf, pos, -1, 4)
        pos = put_le(buf, pos, -1, 4)
        pos = put_le(buf, pos, 0, 4)
        pos = put_bytes(buf, pos, q.names, q.name_off[p], q.name_off[p + 1])
        buf[pos] = 0
        pos += 1
        cigar_at = pos
        ops = 0
        rlen = np.int64(1)
        if mapped:
            clip_l = rec.qstart[p]
            clip_r = qlen - rec.qend[p]
            pos, ops, rlen = _put_bam_cigar(buf, pos, runs, p, merge_m, clip_l, clip_r)
        long_cigar = ops > 65535
        if long_cigar:  # the ops move to the CG tag below; two placeholder ops here
            pos = cigar_at
            pos = put_le(buf, pos, (np.int64(qlen) << 4) | _BAM_S, 4)
            pos = put_le(buf, pos, (rlen << 4) | _BAM_N, 4)
        put_le(buf, fixed, reg2bin(np.int64(tstart), np.int64(tstart) + rlen), 2)
        put_le(buf, fixed + 2, 2 if long_cigar else ops, 2)
        for i in range(0, qlen - 1, 2):
            buf[pos] = (nt16[q.seq[qa + i]] << 4) | nt16[q.seq[qa + i + 1]]
            pos += 1
        if qlen & 1:
            buf[pos] = nt16[q.seq[qa + qlen - 1]] << 4
            pos += 1
        if has_qual:
            for i in range(qlen):
                buf[pos + i] = qual_values[qual[qa + i]]
        else:
            for i in range(qlen):
                buf[pos + i] = 255
        pos += qlen
        pos = put_int_tag(buf, pos, 65, 83, rec.score[p])  # AS
        if mapped:
            pos = put_int_tag(buf, pos, 78, 77, rec.stats[p, 1] + rec.stats[p, 2] + rec.stats[p, 3])  # NM
            buf[pos] = 77  # MD
            buf[pos + 1] = 68
            buf[pos + 2] = 90  # 'Z'
            pos = put_md(buf, pos + 3, runs, p, t, rec.tstart[p], ref_letters)
            buf[pos] = 0
            pos += 1
        if long_cigar:
            buf[pos] = 67  # CG
            buf[pos + 1] = 71
            buf[pos + 2] = 66  # 'B'
            buf[pos + 3] = 73  # 'I'
            pos = put_le(buf, pos + 4, ops, 4)
            pos, _, _ = _put_bam_cigar(buf, pos, runs, p, merge_m, rec.qstart[p], qlen - rec.qend[p])
        pos = _put_text(buf, pos, tags)
        put_le(buf, start, pos - start - 4, 4)
    return buf[:pos]
