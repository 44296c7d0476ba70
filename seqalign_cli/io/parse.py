"""Numba kernels that cut a block of FASTA/FASTQ text into record columns, and follow records unparsed.

They work line by line: lines are found with the C library's ``memchr``
(called from compiled code), sequence lines are copied and encoded by loops
that the compiler vectorises (unsigned indices, no per-byte branches), and
only the rare line holding spaces, tabs or carriage returns inside takes a
byte-by-byte path. Every kernel reproduces what the Python line parser does
on the input it accepts (see ``fastx``); the tests compare both.

The record scan (``_scan``) follows the records of raw text without
parsing them (no names, letters or checks): what ``fastx.skip_records``
passes over, ``shard.count_records`` counts and ``cut`` cuts into pieces.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ..jit import nb

_JIT = dict(nogil=True, cache=True, boundscheck=False)

_U1 = np.uint64(1)

#: what stopped the FASTQ kernel
FQ_END, FQ_MORE, FQ_OTHER = 0, 1, 2


@intrinsic
def find_byte(typingctx, arr, start, stop, value):
    """Index of the first byte equal to ``value`` in arr[start:stop] (uint8, C order), else ``stop``."""
    sig = types.int64(arr, types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        a, lo, hi, val = args
        ary = context.make_array(signature.args[0])(context, builder, a)
        i8p = ir.IntType(8).as_pointer()
        i64 = ir.IntType(64)
        data = builder.bitcast(ary.data, i8p)
        fnty = ir.FunctionType(i8p, [i8p, ir.IntType(32), i64])
        memchr = cgutils.get_or_insert_function(builder.module, fnty, "memchr")
        res = builder.call(memchr, [builder.gep(data, [lo]), builder.trunc(val, ir.IntType(32)),
                                    builder.sub(hi, lo)])
        off = builder.sub(builder.ptrtoint(res, i64), builder.ptrtoint(data, i64))
        return builder.select(cgutils.is_null(builder, res), hi, off)

    return sig, codegen


@nb.njit(**_JIT)
def line_end(data, p, n):
    """Index of the first newline at or after p (n if none)."""
    if p >= n:
        return n
    return find_byte(data, p, n, 10)


@nb.njit(**_JIT)
def next_header(data, p, n):
    """Index of the first '>' at or after p (p > 0) that starts a line of data[:n], else -1: where a FASTA
    text can be cut between records."""
    i = p
    while i < n:
        i = find_byte(data, i, n, 62)
        if i >= n:
            return -1
        if data[i - 1] == 10:
            return i
        i += 1
    return -1


@nb.njit(**_JIT)
def is_space(c):
    """ASCII whitespace as bytes.split()/strip() see it: space, \\t \\n \\v \\f \\r."""
    return c == 32 or (c >= 9 and c <= 13)


@nb.njit(**_JIT)
def strip(data, a, b):
    """data[a:b] without leading and trailing whitespace, as (start, stop)."""
    while a < b and is_space(data[a]):
        a += 1
    while b > a and is_space(data[b - 1]):
        b -= 1
    return a, b


@nb.njit(**_JIT)
def put_name(data, hs, he, names, npos):
    """The first word of the header data[hs:he] (bytes.split() semantics) appended to names.

    Returns the new end of names and whether a byte of the name is not ASCII.
    """
    a = hs
    while a < he and is_space(data[a]):
        a += 1
    high = False
    while a < he and not is_space(data[a]):
        c = data[a]
        names[npos] = c
        high |= c >= 128
        npos += 1
        a += 1
    return npos, high


@nb.njit(**_JIT)
def _copy(data, a, b, out, o):
    """out[o:] = data[a:b]; returns whether a space, tab or CR was among them."""
    iu = np.uint64(a)
    ou = np.uint64(o)
    w = False
    for q in range(np.uint64(b - a)):
        c = data[iu + q]
        out[ou + q] = c
        w |= (c == 32) | (c == 9) | (c == 13)
    return w


@nb.njit(**_JIT)
def copy_fasta_line(data, a, b, seq, o):
    """A FASTA sequence line data[a:b] appended without spaces, tabs and CRs; returns the new end."""
    e = b
    if e > a and data[e - 1] == 13:
        e -= 1
    if not _copy(data, a, e, seq, o):
        return o + (e - a)
    for i in range(a, b):
        c = data[i]
        if c != 32 and c != 9 and c != 13:
            seq[o] = c
            o += 1
    return o


@nb.njit(**_JIT)
def parse_fasta(data, n, final):
    """FASTA records of data[:n], which starts with '>'.

    As the reference parser: records are cut on newline + '>' (every line
    that starts with '>' is a header), the name is the header's first word,
    the sequence is every other line with spaces, tabs, CRs (and newlines)
    removed. Unless ``final``, the last record is left out (more of it may
    follow). Returns (names, name_off, seq, seq_off, where the first record
    left out starts, first record with an empty name or -1, whether a name
    byte is not ASCII).
    """
    names = np.empty(n, np.uint8)
    seq = np.empty(n, np.uint8)
    # a record takes two bytes at least ('>' and a newline): room for all, only what is used is touched
    name_off = np.empty(n // 2 + 2, np.int64)
    seq_off = np.empty(n // 2 + 2, np.int64)
    name_off[0] = 0
    seq_off[0] = 0
    bad = -1
    high = False
    npos = 0
    o = 0
    r = 0
    i = 0
    last = 0  # where the last header starts
    while i < n:
        j = line_end(data, i, n)
        if data[i] == 62:  # '>': a header
            if r > 0:
                seq_off[r] = o
            last = i
            before = npos
            npos, h = put_name(data, i + 1, j, names, npos)
            high |= h
            if npos == before and bad < 0:
                bad = r
            r += 1
            name_off[r] = npos
        elif j > i:
            o = copy_fasta_line(data, i, j, seq, o)
        i = j + 1
    seq_off[r] = o
    stop = n
    if not final and r > 0:
        r -= 1
        npos = name_off[r]
        o = seq_off[r]
        stop = last
        if bad == r:
            bad = -1
    return names[:npos], name_off[:r + 1], seq[:o], seq_off[:r + 1], stop, bad, high


@nb.njit(**_JIT)
def parse_fastq(data, n, final):
    """Four-line FASTQ records of data[:n] (header, sequence, '+', quality).

    Reproduces the reference line parser on the records it takes: blank
    lines between records are skipped, sequence and quality lines are
    stripped, a record whose sequence is empty has no quality line. Stops at
    the end (FQ_END), at a record that is not complete in data unless
    ``final`` (FQ_MORE), or at a record it does not take (FQ_OTHER: more than
    one sequence or quality line, or anything malformed; the reference parser
    takes over there and reports any error). Returns the columns of the
    records taken (names, name_off, seq, qual, seq_off), where the first
    record not taken starts, the status and whether a name byte is not ASCII.
    """
    names = np.empty(n, np.uint8)
    seq = np.empty(n, np.uint8)
    qual = np.empty(n, np.uint8)
    # a record takes five bytes at least ('@', a name, '+' and two newlines)
    name_off = np.empty(n // 5 + 2, np.int64)
    seq_off = np.empty(n // 5 + 2, np.int64)
    name_off[0] = 0
    seq_off[0] = 0
    high = False
    npos = 0
    o = 0
    r = 0
    p = 0
    start = 0
    status = FQ_END
    while True:
        # blank lines before a record
        e = p
        while p < n:
            e = line_end(data, p, n)
            if e == n and not final:
                break
            a, b = strip(data, p, e)
            if a < b:
                break
            p = e + 1
        if p >= n:
            status = FQ_END
            break
        start = p
        if e == n and not final:
            status = FQ_MORE
            break
        if data[p] != 64:  # '@'
            status = FQ_OTHER
            break
        ha, hb = p + 1, e
        # the sequence line, or the '+' line when the sequence is empty
        s2 = e + 1
        if s2 >= n:
            status = FQ_OTHER if final else FQ_MORE
            break
        e2 = line_end(data, s2, n)
        if e2 == n and not final:
            status = FQ_MORE
            break
        sa = sb = qa = 0
        if data[s2] == 43:  # '+'
            p = e2 + 1
        else:
            sa, sb = strip(data, s2, e2)
            s3 = e2 + 1
            if s3 >= n:
                status = FQ_OTHER if final else FQ_MORE
                break
            e3 = line_end(data, s3, n)
            if e3 == n and not final:
                status = FQ_MORE
                break
            if data[s3] != 43:  # a second sequence line, or no '+'
                status = FQ_OTHER
                break
            p = e3 + 1
            if sb > sa:
                s4 = e3 + 1
                if s4 >= n:
                    status = FQ_OTHER if final else FQ_MORE
                    break
                e4 = line_end(data, s4, n)
                if e4 == n and not final:
                    status = FQ_MORE
                    break
                qa, qb = strip(data, s4, e4)
                if qb - qa != sb - sa:  # a multi-line quality, or a wrong length
                    status = FQ_OTHER
                    break
                p = e4 + 1
        before = npos
        npos, h = put_name(data, ha, hb, names, npos)
        if npos == before:  # empty name
            status = FQ_OTHER
            break
        high |= h
        _copy(data, sa, sb, seq, o)
        _copy(data, qa, qa + (sb - sa), qual, o)
        o += sb - sa
        r += 1
        name_off[r] = npos
        seq_off[r] = o
    stop = n if status == FQ_END else start
    return names[:npos], name_off[:r + 1], seq[:o], qual[:o], seq_off[:r + 1], stop, status, high


# ------------------------------------------------------------------ the record scan

#: what a file's first non-blank line says it is
_OTHER, _FASTA, _FASTQ = -1, 0, 1


@nb.njit(**_JIT)
def _last_line_end(data, n):
    """Where the last whole line of data[:n] ends (after its newline), 0 when there is none."""
    i = n
    while i > 0 and data[i - 1] != 10:
        i -= 1
    return i


@nb.njit(**_JIT)
def _scan(data, n, final, kind, state, target):
    """Follow the records of data[:n], whole lines only unless ``final``, from ``state``.

    ``state``: (records started, FASTQ place: 0 between records, 1 in the
    sequence lines, 2 in the quality lines; sequence length; quality length),
    updated. Stops at the start of record ``target`` (0-based; -1 for none).
    Returns (where the scan stopped, whether record ``target`` starts there).
    """
    count, mode, seq, qual = state[0], state[1], state[2], state[3]
    end = n if final else _last_line_end(data, n)
    p = 0
    found = False
    while p < end:
        e = line_end(data, p, end)
        if kind == _FASTA:
            if data[p] == 62:  # '>': a header
                if count == target:
                    found = True
                    break
                count += 1
        elif mode == 0:  # between records: blank lines, then a header
            a, b = strip(data, p, e)
            if a < b:
                if count == target:
                    found = True
                    break
                count += 1
                mode = 1
                seq = 0
        elif mode == 1:  # sequence lines up to the '+' line
            if e > p and data[p] == 43:
                mode = 2 if seq > 0 else 0
                qual = 0
            else:
                a, b = strip(data, p, e)
                seq += b - a
        else:  # quality lines until as long as the sequence
            a, b = strip(data, p, e)
            qual += b - a
            if qual >= seq:
                mode = 0
        p = e + 1
    state[0], state[1], state[2], state[3] = count, mode, seq, qual
    return min(p, end), found
