"""The base of the pairwise text writers (TSV, PAF): one compiled formatting call per chunk.

A subclass names its row formatter (``rows(q, t, record, runs, letters,
merge_m)`` over the views of ``formatting``) and an optional header line,
which goes out with the first chunk (or at the close of a run without any),
unless the output is a later part of a sharded run (``WriterContext.header``).
"""

from __future__ import annotations

from ..results import CIGAR_LETTERS


class TextWriter:
    header = b""
    rows = None  # the compiled row formatter
    score_only = False

    def __init__(self, ctx):
        self.out = ctx.out
        self.cigar_m = ctx.cigar_m
        self.stream = ctx.out.open(threads=ctx.threads)
        self.header_written = not self.header or not ctx.header  # a later part of a sharded run: none

    def _header(self):
        if not self.header_written:
            self.stream.write(self.header)
            self.header_written = True

    def write(self, chunk, res):
        self._header()
        self.stream.write(self.rows(chunk.q.view(), chunk.t.view(), res.view(), res.cigar.view(), CIGAR_LETTERS,
                                    self.cigar_m))

    def close(self):
        self._header()
        self.out.commit()
