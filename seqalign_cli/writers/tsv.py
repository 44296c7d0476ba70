"""TSV writer: a header line, then one row per pair in input order.

Columns: qname qlen qstart qend tname tlen tstart tend score cigar nm
(0-based half-open spans; nm = mismatches + inserted + deleted bases).
The rows of a chunk are formatted in one compiled call (``formatting``).
The header goes out with the first chunk, so a run that fails before it
writes nothing to stdout.
"""

from __future__ import annotations

from ..formatting import format_tsv

COLUMNS = ("qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm")


def tsv_rows(chunk, res, cigar_m: bool = False):
    """The TSV rows of a chunk and its results, as one uint8 array."""
    q, t = chunk.q, chunk.t
    return format_tsv(q.names, q.name_off, q.seq_off, res.qstart, res.qend, t.names, t.name_off, t.seq_off,
                      res.tstart, res.tend, res.score, res.stats, res.run_op, res.run_len, res.run_off,
                      res.nruns, cigar_m)


class TsvWriter:
    def __init__(self, out, cigar_m: bool = False):
        self.out = out
        self.cigar_m = cigar_m
        self.stream = out.open()
        self.header_written = False

    def _header(self):
        if not self.header_written:
            self.stream.write(("\t".join(COLUMNS) + "\n").encode())
            self.header_written = True

    def write(self, chunk, res):
        self._header()
        self.stream.write(tsv_rows(chunk, res, self.cigar_m))

    def close(self):
        self._header()
        self.out.commit()
