"""TSV writer: a header line, then one row per pair in input order.

Columns: qname qlen qstart qend tname tlen tstart tend score cigar nm
(0-based half-open spans; nm = mismatches + inserted + deleted bases).
"""

from __future__ import annotations

COLUMNS = ("qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm")


class TsvWriter:
    def __init__(self, out, cigar_m: bool = False):
        self.out = out
        self.cigar_m = cigar_m
        self.stream = out.open()
        self.stream.write(("\t".join(COLUMNS) + "\n").encode())

    def write(self, chunk, res):
        cigars = res.cigars(self.cigar_m)
        cols = zip(chunk.queries, chunk.targets, res.qstart.tolist(), res.qend.tolist(),
                   res.tstart.tolist(), res.tend.tolist(), res.score.tolist(), cigars,
                   (res.stats[:, 1] + res.stats[:, 2] + res.stats[:, 3]).tolist())
        rows = [f"{q.name}\t{len(q.seq)}\t{qs}\t{qe}\t{t.name}\t{len(t.seq)}\t{ts}\t{te}\t{s}\t{c}\t{nm}\n"
                for q, t, qs, qe, ts, te, s, c, nm in cols]
        self.stream.write("".join(rows).encode())

    def close(self):
        self.out.commit()
