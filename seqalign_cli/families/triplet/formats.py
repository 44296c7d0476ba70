"""Writers of triplets: TSV (one row per triplet, formatted in bulk) and MAF (one block per triplet).

TSV columns: name1 name2 name3 len1 len2 len3 score beg1 end1 beg2 end2 beg3
end3 columns (0-based half-open spans; columns as runs of the kinds of
``results.Column``: M, a, b, c, A, B, C; '*' for an empty alignment or score
only). A header line (starting with '#') goes out with the first chunk. Score
only, a start the mode leaves free (-1 from the engine) is '*'.

MAF: a ``##maf`` header, then per triplet ``a score=S`` and one ``s`` line
per sequence that takes part (name, start, size, +, source length, gapped
text with the letters as read); a sequence with no residue in the
alignment (an empty row) is left out, so an empty alignment is a block of
its ``a`` line alone.

A chunk's triplets are formatted in parts side by side by the run's threads
(``writers.parts``), as the pair writers' are.

The parts after the first of a sharded run (``WriterContext.header`` False)
leave out the TSV and MAF headers: the parts concatenate into the whole.
"""

from __future__ import annotations

import numpy as np

from ...formatting import (_JIT, _STAR, INT_WIDTH, NEWLINE, RUN_WIDTH, TAB, _put_text, _text, put_bytes, put_int,
                          put_int_or_star, put_runs)
from ...jit import nb
from ...protocols import Writer
from ...writers.parts import Parts
from .results import COLUMN_LETTERS, COLUMN_STEPS


@nb.njit(**_JIT)
def format_triplet_tsv(a, b, c, rec, runs, letters):
    """Triplet TSV rows: name1 name2 name3 len1 len2 len3 score beg1 end1 beg2 end2 beg3 end3 columns.

    ``a``, ``b``, ``c``: the three ``BlockView``s; ``rec``: a ``TripletView``;
    the columns spelled with ``letters`` ('*' for no runs).
    """
    n = runs.count.shape[0]
    total = 0
    for p in range(n):
        total += (a.name_off[p + 1] - a.name_off[p]) + (b.name_off[p + 1] - b.name_off[p])
        total += (c.name_off[p + 1] - c.name_off[p]) + 10 * (INT_WIDTH + 1) + runs.count[p] * RUN_WIDTH + 8
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = put_bytes(buf, pos, a.names, a.name_off[p], a.name_off[p + 1])
        buf[pos] = TAB
        pos = put_bytes(buf, pos + 1, b.names, b.name_off[p], b.name_off[p + 1])
        buf[pos] = TAB
        pos = put_bytes(buf, pos + 1, c.names, c.name_off[p], c.name_off[p + 1])
        for block in (a, b, c):
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, block.seq_off[p + 1] - block.seq_off[p])
        buf[pos] = TAB
        pos = put_int(buf, pos + 1, rec.score[p])
        for s in range(3):
            buf[pos] = TAB  # a start not computed (score only) is '*'
            pos = put_int_or_star(buf, pos + 1, rec.start[p, s])
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, rec.end[p, s])
        buf[pos] = TAB
        pos = put_runs(buf, pos + 1, runs, p, letters, False, _STAR)
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


_MAF_A = _text(b"a score=")
_MAF_S = _text(b"s ")
_MAF_PLUS = _text(b" + ")


@nb.njit(**_JIT)
def format_maf(blocks, rec, runs, steps):
    """MAF blocks: ``a score=S``, then an ``s`` line per sequence with residues in the alignment, a blank line.

    ``blocks``: the three ``BlockView``s (A, B, C); ``rec``: a
    ``TripletView``; ``steps[kind, s]``: whether a column of that kind takes
    a residue of sequence s (``results.COLUMN_STEPS``). The gapped text keeps
    the letters as read, '-' for a gap.
    """
    n = runs.count.shape[0]
    total = 0
    for p in range(n):
        cols = 0
        for r in range(runs.off[p], runs.off[p] + runs.count[p]):
            cols += runs.length[r]
        total += 2 * INT_WIDTH + 16
        for block in blocks:
            total += block.name_off[p + 1] - block.name_off[p] + cols + 4 * (INT_WIDTH + 1) + 8
    buf = np.empty(total, np.uint8)
    pos = 0
    for p in range(n):
        pos = _put_text(buf, pos, _MAF_A)
        pos = put_int(buf, pos, rec.score[p])
        buf[pos] = NEWLINE
        pos += 1
        for s in range(3):
            block = blocks[s]
            begin, end = rec.start[p, s], rec.end[p, s]
            if end <= begin:
                continue
            pos = _put_text(buf, pos, _MAF_S)
            pos = put_bytes(buf, pos, block.names, block.name_off[p], block.name_off[p + 1])
            buf[pos] = 32
            pos = put_int(buf, pos + 1, begin)
            buf[pos] = 32
            pos = put_int(buf, pos + 1, end - begin)
            pos = _put_text(buf, pos, _MAF_PLUS)
            pos = put_int(buf, pos, block.seq_off[p + 1] - block.seq_off[p])
            buf[pos] = 32
            pos += 1
            at = block.seq_off[p] + begin
            for r in range(runs.off[p], runs.off[p] + runs.count[p]):
                take = steps[runs.op[r], s]
                for _ in range(runs.length[r]):
                    if take:
                        buf[pos] = block.seq[at]
                        at += 1
                    else:
                        buf[pos] = 45  # '-'
                    pos += 1
            buf[pos] = NEWLINE
            pos += 1
        buf[pos] = NEWLINE
        pos += 1
    return buf[:pos]


COLUMNS = ("name1", "name2", "name3", "len1", "len2", "len3", "score", "beg1", "end1", "beg2", "end2",
           "beg3", "end3", "columns")


def _tsv_rows(a, b, c, rec, runs):
    return format_triplet_tsv(a, b, c, rec, runs, COLUMN_LETTERS)


def _maf_blocks(a, b, c, rec, runs):
    return format_maf((a, b, c), rec, runs, COLUMN_STEPS)


class _PartsWriter(Writer):
    """A chunk's triplets formatted in parts side by side by the run's threads (``writers.parts``), each part's
    bytes written in order."""

    rows = None  # the part's formatter: (a, b, c, TripletView, runs) -> bytes

    def __init__(self, ctx):
        self.out = ctx.out
        self.stream = ctx.out.open(threads=ctx.threads)
        self.parts = Parts(ctx.threads)

    def write(self, chunk, res):
        a, b, c = (block.view() for block in chunk.blocks)
        for part in self.parts.map(self.rows, (a, b, c, res.view(), res.columns.view()), len(res.score)):
            self.stream.write(part)

    def close(self):
        self.out.commit()
        self.parts.shutdown()

    def discard(self):
        self.parts.shutdown(wait=False)


class TripletTsvWriter(_PartsWriter):
    score_only = True
    rows = staticmethod(_tsv_rows)  # score only: no runs ('*') and free starts of -1 ('*')

    def __init__(self, ctx):
        super().__init__(ctx)
        self.header_written = not ctx.header  # a later part of a sharded run: none

    def _header(self):
        if not self.header_written:
            self.stream.write(("#" + "\t".join(COLUMNS) + "\n").encode())
            self.header_written = True

    def write(self, chunk, res):
        self._header()
        super().write(chunk, res)

    def close(self):
        self._header()
        super().close()


class MafWriter(_PartsWriter):
    rows = staticmethod(_maf_blocks)

    def __init__(self, ctx):
        super().__init__(ctx)
        if ctx.header:  # not in a later part of a sharded run
            self.stream.write(b"##maf version=1 scoring=sum-of-pairs\n\n")
