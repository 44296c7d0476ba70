"""Writers of reads aligned to a graph: TSV and GAF, one row per read in input order, formatted in bulk.

A chunk brings the reads (``chunk.block``, a ``RecordBlock``) and the graph
(``chunk.graph``: segment ``names`` and lengths ``seg_len``); oriented node
u is segment ``u >> 1``, forward (``>``) when ``u`` is even, reverse
complement (``<``) when odd. The labels of all nodes (``>name``, ``<name``)
are made once per graph (``node_labels``) and the rows of a chunk are
formatted in one compiled call (``format_graph_tsv``,
``format_gaf``, below).

TSV: a header line, then ``read length start end score path path_start
path_end cigar`` (0-based half-open spans; path and CIGAR '*' for an empty
alignment). Score only: ``read length start end score``, start ``*`` where
the mode leaves it unknown (not computed).

GAF: the 12 columns (read name, length, start, end, strand '+', path, path
length, path start, path end, residue matches ('=' bases), block length
(= + X + I + D bases), mapping quality 255), then ``AS:i`` (score), ``NM:i``
(X + I + D bases) and ``cg:Z`` (the CIGAR with =, X, I, D). A read with an
empty alignment: ``name length 0 0 * * 0 0 0 0 0 0 AS:i:score``.
"""

from __future__ import annotations

import numpy as np

from ...formatting import (INT_WIDTH, NEWLINE, RUN_WIDTH, TAB, _JIT, _PAF_NM, _STAR, _put_text, _text, put_bytes,
    put_int, put_int_or_star, put_record, put_runs, put_span)
from ...jit import nb
from ...protocols import Writer
from ...results import CIGAR_LETTERS

TSV_COLUMNS = ("#read", "length", "start", "end", "score", "path", "path_start", "path_end", "cigar")
SCORE_COLUMNS = TSV_COLUMNS[:5]


# ------------------------------------------------------------------ graphs
#
# Reads aligned to a graph: ``reads`` is the reads' ``BlockView``, ``rec`` a
# ``results.GraphView``, ``runs`` the CIGAR ``RunView``. A path is spelled
# from a node label table made once per graph: ``node_text[node_off[u]:
# node_off[u + 1]]`` is ``>name`` or ``<name`` of oriented node u.


@nb.njit(**_JIT)
def put_path(buf, pos, rec, p, node_text, node_off):
    """The path of read ``p`` as node labels back to back ('*' when it has no node)."""
    a = rec.path_off[p]
    b = rec.path_off[p + 1]
    if a == b:
        buf[pos] = _STAR
        return pos + 1
    for i in range(a, b):
        u = rec.path_nodes[i]
        pos = put_bytes(buf, pos, node_text, node_off[u], node_off[u + 1])
    return pos


@nb.njit(**_JIT)
def _graph_row_bound(reads, rec, runs, node_off, p, ints):
    """Bytes enough for row ``p``: its name, ``ints`` integers and separators, path labels and runs."""
    total = reads.name_off[p + 1] - reads.name_off[p] + ints * (INT_WIDTH + 1) + runs.count[p] * RUN_WIDTH + 48
    for i in range(rec.path_off[p], rec.path_off[p + 1]):
        u = rec.path_nodes[i]
        total += node_off[u + 1] - node_off[u]
    return total


@nb.njit(**_JIT)
def run_totals(runs, p):
    """Bases of each CIGAR op (=, X, I, D) in the runs of record ``p``."""
    eq = 0
    x = 0
    ins = 0
    dels = 0
    for r in range(runs.off[p], runs.off[p] + runs.count[p]):
        op = runs.op[r]
        length = np.int64(runs.length[r])
        if op == 0:
            eq += length
        elif op == 1:
            x += length
        elif op == 2:
            ins += length
        else:
            dels += length
    return eq, x, ins, dels


@nb.njit(**_JIT)
def format_graph_tsv(reads, rec, runs, letters, node_text, node_off, traceback):
    """Graph TSV rows: read length start end score, then (with ``traceback``) path path_start path_end cigar.

    An empty alignment has path and CIGAR '*' (its spans are 0 already).
    """
    n = rec.score.shape[0]
    total = 0
    for p in range(n):
        total += _graph_row_bound(reads, rec, runs, node_off, p, 7)
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, reads, p)
        pos = put_span(buf, pos, rec.qstart[p], rec.qend[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.score[p])
        if traceback:
            buf[pos] = TAB
            pos = put_path(buf, pos + 1, rec, p, node_text, node_off)
            pos = put_span(buf, pos, rec.pstart[p], rec.pend[p])
            buf[pos] = TAB
            pos = put_runs(buf, pos + 1, runs, p, letters, False, _STAR)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


_GAF_UNALIGNED = _text(b"\t0\t0\t*\t*\t0\t0\t0\t0\t0\t0\tAS:i:")
_GAF_MAPQ = _text(b"\t255\tAS:i:")
_GAF_CG = _text(b"\tcg:Z:")


@nb.njit(**_JIT)
def format_gaf(reads, rec, runs, letters, node_text, node_off, seg_len):
    """GAF rows: the 12 columns, AS:i, NM:i and cg:Z; a read with an empty path gets the unaligned line.

    Path length: the sum of ``seg_len`` over the path's nodes; residue matches:
    '=' bases; block length: = + X + I + D bases; NM: X + I + D bases.
    Unaligned: ``name len 0 0 * * 0 0 0 0 0 0 AS:i:score`` (no NM, no cg).
    """
    n = rec.score.shape[0]
    total = 0
    for p in range(n):
        total += _graph_row_bound(reads, rec, runs, node_off, p, 12)
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, reads, p)
        a = rec.path_off[p]
        b = rec.path_off[p + 1]
        if a == b:
            pos = _put_text(buf, pos, _GAF_UNALIGNED)
            pos = put_int(buf, pos, rec.score[p])
            buf[pos] = NEWLINE
            pos += 1
            continue
        path_len = 0
        for i in range(a, b):
            path_len += seg_len[rec.path_nodes[i] >> 1]
        eq, x, ins, dels = run_totals(runs, p)
        pos = put_span(buf, pos, rec.qstart[p], rec.qend[p])
        buf[pos] = TAB
        buf[pos + 1] = 43  # '+'
        buf[pos + 2] = TAB
        pos = put_path(buf, pos + 3, rec, p, node_text, node_off)
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, path_len)
        pos = put_span(buf, pos, rec.pstart[p], rec.pend[p])
        pos = put_span(buf, pos, eq, eq + x + ins + dels)
        pos = _put_text(buf, pos, _GAF_MAPQ)
        pos = put_int(buf, pos, rec.score[p])
        pos = _put_text(buf, pos, _PAF_NM)
        pos = put_int(buf, pos, x + ins + dels)
        pos = _put_text(buf, pos, _GAF_CG)
        pos = put_runs(buf, pos, runs, p, letters, False, _STAR)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


def node_labels(names) -> tuple[np.ndarray, np.ndarray]:
    """The labels ``>name`` and ``<name`` of every oriented node (2 * segments) as flat bytes and offsets.

    Node u's label is ``text[off[u]:off[u + 1]]``.
    """
    encoded = [name.encode() for name in names]
    sizes = np.repeat(np.array([len(b) + 1 for b in encoded], np.int64), 2)
    off = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=off[1:])
    text = b"".join(b">" + b + b"<" + b for b in encoded)
    return np.frombuffer(text, np.uint8).copy(), off


@nb.njit(nogil=True, cache=True, boundscheck=False)
def format_graph_score_only(reads, rec):
    """Score-only graph TSV rows: read length start end score, a start of -1 (not computed) as '*'."""
    n = rec.score.shape[0]
    total = 0
    for p in range(n):
        total += reads.name_off[p + 1] - reads.name_off[p] + 5 * (INT_WIDTH + 1) + 8
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = put_record(buf, pos, reads, p)
        buf[pos] = TAB
        pos = put_int_or_star(buf, pos + 1, rec.qstart[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.qend[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.score[p])
        buf[pos] = 10
        pos += 1
    return buf[:pos]


class _GraphWriter(Writer):
    """What both formats share: the output stream, the node labels of the chunk's graph, a header."""


    def __init__(self, ctx):
        self.out = ctx.out
        self.traceback = ctx.traceback
        self.stream = ctx.out.open(threads=ctx.threads)
        self.header = b""
        self.header_written = not ctx.header  # a later part of a sharded run: no header
        self._graph = None
        self._labels = None
        self._seg_len = None

    def _header(self):
        if not self.header_written:
            self.stream.write(self.header)
            self.header_written = True

    def labels(self, graph):
        """(text, offsets, segment lengths) of ``graph``, made on its first chunk."""
        if graph is not self._graph:
            text, off = node_labels(graph.names)
            self._labels = (text, off)
            self._seg_len = np.ascontiguousarray(graph.seg_len, np.int64)
            self._graph = graph
        return self._labels[0], self._labels[1], self._seg_len

    def close(self):
        self._header()
        self.out.commit()


class GraphTsvWriter(_GraphWriter):
    score_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.header = ("\t".join(TSV_COLUMNS if self.traceback else SCORE_COLUMNS) + "\n").encode()

    def write(self, chunk, res):
        self._header()
        if not self.traceback:
            self.stream.write(format_graph_score_only(chunk.block.view(), res.view()))
            return
        text, off, _ = self.labels(chunk.graph)
        self.stream.write(format_graph_tsv(chunk.block.view(), res.view(), res.cigar.view(), CIGAR_LETTERS,
                                           text, off, self.traceback))


class GafWriter(_GraphWriter):
    def write(self, chunk, res):
        text, off, seg_len = self.labels(chunk.graph)
        self.stream.write(format_gaf(chunk.block.view(), res.view(), res.cigar.view(), CIGAR_LETTERS,
                                     text, off, seg_len))
