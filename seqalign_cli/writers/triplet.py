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

The parts after the first of a sharded run (``WriterContext.header`` False)
leave out the TSV and MAF headers: the parts concatenate into the whole.
"""

from __future__ import annotations

from ..formatting import format_maf, format_triplet_tsv
from ..protocols import Writer
from ..results import COLUMN_LETTERS, COLUMN_STEPS

COLUMNS = ("name1", "name2", "name3", "len1", "len2", "len3", "score", "beg1", "end1", "beg2", "end2",
           "beg3", "end3", "columns")


class TripletTsvWriter(Writer):
    score_only = True

    def __init__(self, ctx):
        self.out = ctx.out
        self.traceback = ctx.traceback
        self.stream = ctx.out.open(threads=ctx.threads)
        self.header_written = not ctx.header  # a later part of a sharded run: none

    def _header(self):
        if not self.header_written:
            self.stream.write(("#" + "\t".join(COLUMNS) + "\n").encode())
            self.header_written = True

    def write(self, chunk, res):
        self._header()
        a, b, c = (block.view() for block in chunk.blocks)
        # score only: no runs ('*') and free starts of -1 ('*')
        self.stream.write(format_triplet_tsv(a, b, c, res.view(), res.columns.view(), COLUMN_LETTERS))

    def close(self):
        self._header()
        self.out.commit()


class MafWriter(Writer):

    def __init__(self, ctx):
        self.out = ctx.out
        self.stream = ctx.out.open(threads=ctx.threads)
        if ctx.header:  # not in a later part of a sharded run
            self.stream.write(b"##maf version=1 scoring=sum-of-pairs\n\n")

    def write(self, chunk, res):
        blocks = tuple(block.view() for block in chunk.blocks)
        self.stream.write(format_maf(blocks, res.view(), res.columns.view(), COLUMN_STEPS))

    def close(self):
        self.out.commit()
