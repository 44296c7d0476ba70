"""Writers of a database search: BLAST tabular (the default) and TSV, each query's hits best first, queries in
input order.

* ``blast6``: BLAST's ``-outfmt 6`` (``pairwise.formats_blast``), the database's
  residues as the search space; a query without hits writes nothing, as BLAST.
* ``tsv``: a header line, then the same twelve columns (1-based inclusive
  spans, as BLAST's) and ``rank score cigar``; a query without hits is one
  row of its name and ``*`` in every other column, so that every query is in
  the output.
* ``paf``: the pairwise PAF rows (``pairwise.formats_paf``: 0-based spans, cg:Z,
  AS:i, NM:i) of each hit; a query without hits writes nothing.
"""

from __future__ import annotations

import numpy as np

from ...writers.text import TextWriter
from ..pairwise.formats_blast import fields, warn_without_statistics
from ..pairwise.formats_paf import PafWriter

TSV_COLUMNS = ("qname", "tname", "pident", "length", "mismatch", "gapopen", "qstart", "qend", "tstart", "tend",
               "evalue", "bitscore", "rank", "score", "cigar")


class _SearchWriter(TextWriter):
    """TextWriter's header and commit; rows formatted in Python (``formats_blast.fields``), not in parts."""

    def __init__(self, ctx):
        super().__init__(ctx)
        warn_without_statistics(ctx)

    def write(self, chunk, res):
        self._header()
        qnames = chunk.block.names_list()
        dbnames = chunk.db.names
        lines = fields([qnames[q] for q in res.query.tolist()], [dbnames[t] for t in res.target.tolist()],
                       res.alignments, res.evalue, res.bits)
        self.stream.write("".join(self.rows(qnames, res, lines)).encode())


class SearchBlastWriter(_SearchWriter):
    @staticmethod
    def rows(qnames, res, lines):
        return [line + "\n" for line in lines]


class SearchTsvWriter(_SearchWriter):
    header = ("#" + "\t".join(TSV_COLUMNS) + "\n").encode()

    @staticmethod
    def rows(qnames, res, lines):
        cigars = res.alignments.cigars()
        first = np.searchsorted(res.query, np.arange(len(qnames) + 1))
        out = []
        for q, name in enumerate(qnames):
            if first[q] == first[q + 1]:
                out.append(name + "\t*" * (len(TSV_COLUMNS) - 1) + "\n")
            for h in range(first[q], first[q + 1]):
                out.append(f"{lines[h]}\t{res.rank[h]}\t{res.score[h]}\t{cigars[h]}\n")
        return out


class SearchPafWriter(PafWriter):
    def write(self, chunk, res):
        q = chunk.block.take(res.query).view()
        t = chunk.db.block.take(res.target).view()
        for rows in self.parts.map(self.format, (q, t, res.alignments.view(), res.alignments.cigar.view()),
                                   len(res.query)):
            self.stream.write(rows)
