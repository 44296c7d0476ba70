"""PAF writer: the 12 standard columns plus cg:Z (CIGAR), AS:i (score), NM:i.

A pair without alignment keeps its names and lengths, with strand '*' and
zero spans, like an unmapped PAF line. The rows of a chunk are formatted in
one compiled call (``formatting``).
"""

from __future__ import annotations

from ..formatting import format_paf


class PafWriter:
    def __init__(self, out, cigar_m: bool = False):
        self.out = out
        self.cigar_m = cigar_m
        self.stream = out.open()

    def write(self, chunk, res):
        q, t = chunk.q, chunk.t
        self.stream.write(format_paf(q.names, q.name_off, q.seq_off, res.qstart, res.qend, t.names, t.name_off,
                                     t.seq_off, res.tstart, res.tend, res.score, res.stats, res.run_op,
                                     res.run_len, res.run_off, res.nruns, self.cigar_m))

    def close(self):
        self.out.commit()
