"""The base of the pairwise text writers (TSV, PAF): compiled formatting calls per chunk, in parts.

A subclass names its row formatter (``rows(q, t, record, runs, letters,
merge_m)`` over the views of ``formatting``; ``format`` is the call a chunk's
parts take, ``parts.Parts`` running them side by side with the writer's
threads) and an optional header line,
which goes out with the first chunk (or at the close of a run without any),
unless the output is a later part of a sharded run (``WriterContext.header``).
"""

from __future__ import annotations

from ..protocols import Writer
from ..results import CIGAR_LETTERS
from .parts import Parts


class TextWriter(Writer):
    header = b""
    rows = None  # the compiled row formatter

    def __init__(self, ctx):
        self.out = ctx.out
        self.cigar_m = ctx.cigar_m
        self.stream = ctx.out.open(threads=ctx.threads)
        self.header_written = not self.header or not ctx.header  # a later part of a sharded run: none
        self.parts = Parts(ctx.threads)

    def _header(self):
        if not self.header_written:
            self.stream.write(self.header)
            self.header_written = True

    def format(self, q, t, rec, runs):
        """The rows of the records of these views (a part of a chunk)."""
        return self.rows(q, t, rec, runs, CIGAR_LETTERS, self.cigar_m)

    def write(self, chunk, res):
        self._header()
        for rows in self.parts.map(self.format, (chunk.q.view(), chunk.t.view(), res.view(), res.cigar.view()),
                                   len(res.score)):
            self.stream.write(rows)

    def close(self):
        self._header()
        self.out.commit()
        self.parts.shutdown()

    def discard(self):
        self.parts.shutdown(wait=False)
