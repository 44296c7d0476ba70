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
"""

from __future__ import annotations

import numpy as np

from ..formatting import INT_WIDTH, TAB, format_maf, format_triplet_tsv, put_bytes, put_int
from ..jit import nb
from ..results import COLUMN_LETTERS, COLUMN_STEPS
from .tsv import put_int_or_star

COLUMNS = ("name1", "name2", "name3", "len1", "len2", "len3", "score", "beg1", "end1", "beg2", "end2",
           "beg3", "end3", "columns")


@nb.njit(nogil=True, cache=True, boundscheck=False)
def format_triplet_score_only(a, b, c, rec):
    """Score-only triplet TSV rows: as ``format_triplet_tsv`` with columns '*' and a start of -1 as '*'."""
    n = rec.score.shape[0]
    total = 0
    for p in range(n):
        total += (a.name_off[p + 1] - a.name_off[p]) + (b.name_off[p + 1] - b.name_off[p])
        total += (c.name_off[p + 1] - c.name_off[p]) + 10 * (INT_WIDTH + 1) + 8
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
            buf[pos] = TAB
            pos = put_int_or_star(buf, pos + 1, rec.start[p, s])
            buf[pos] = TAB
            pos = put_int(buf, pos + 1, rec.end[p, s])
        buf[pos] = TAB
        buf[pos + 1] = 42  # '*'
        buf[pos + 2] = 10
        pos += 3
    return buf[:pos]


class TripletTsvWriter:
    score_only = True

    def __init__(self, ctx):
        self.out = ctx.out
        self.traceback = ctx.traceback
        self.stream = ctx.out.open(threads=ctx.threads)
        self.header_written = False

    def _header(self):
        if not self.header_written:
            self.stream.write(("#" + "\t".join(COLUMNS) + "\n").encode())
            self.header_written = True

    def write(self, chunk, res):
        self._header()
        a, b, c = (block.view() for block in chunk.blocks)
        if not self.traceback:
            self.stream.write(format_triplet_score_only(a, b, c, res.view()))
            return
        self.stream.write(format_triplet_tsv(a, b, c, res.view(), res.columns.view(), COLUMN_LETTERS))

    def close(self):
        self._header()
        self.out.commit()


class MafWriter:
    score_only = False

    def __init__(self, ctx):
        self.out = ctx.out
        self.stream = ctx.out.open(threads=ctx.threads)
        self.stream.write(b"##maf version=1 scoring=sum-of-pairs\n\n")

    def write(self, chunk, res):
        blocks = tuple(block.view() for block in chunk.blocks)
        self.stream.write(format_maf(blocks, res.view(), res.columns.view(), COLUMN_STEPS))

    def close(self):
        self.out.commit()
