"""Writers of triplets: TSV (one row per triplet, formatted in bulk) and MAF (one block per triplet).

TSV columns: name1 name2 name3 len1 len2 len3 score beg1 end1 beg2 end2 beg3
end3 columns (0-based half-open spans; columns as runs of the kinds of
``results.Column``: M, a, b, c, A, B, C; '*' for an empty alignment or score
only). A header line goes out with the first chunk.

MAF: a ``##maf`` header, then per triplet ``a score=S`` and one ``s`` line
per sequence that takes part (name, start, size, +, source length, gapped
text with the letters as read); a sequence with no residue in the
alignment (an empty row) is left out, so an empty alignment is a block of
its ``a`` line alone.
"""

from __future__ import annotations

import numpy as np

from ..formatting import format_triplet_tsv
from ..results import COLUMN_LETTERS, COLUMN_STEPS

COLUMNS = ("name1", "name2", "name3", "len1", "len2", "len3", "score", "beg1", "end1", "beg2", "end2",
           "beg3", "end3", "columns")


class TripletTsvWriter:
    score_only = True

    def __init__(self, ctx):
        self.out = ctx.out
        self.stream = ctx.out.open()
        self.header_written = False

    def _header(self):
        if not self.header_written:
            self.stream.write(("\t".join(COLUMNS) + "\n").encode())
            self.header_written = True

    def write(self, chunk, res):
        self._header()
        a, b, c = (block.view() for block in chunk.blocks)
        self.stream.write(format_triplet_tsv(a, b, c, res.view(), res.columns.view(), COLUMN_LETTERS))

    def close(self):
        self._header()
        self.out.commit()


def gapped_rows(seqs: list[bytes], start: np.ndarray, ops: np.ndarray, lens: np.ndarray) -> list[bytes]:
    """The three gapped texts of an alignment: residues from ``start`` on, '-' where a column has none."""
    steps = np.repeat(COLUMN_STEPS[ops], lens, axis=0)  # (columns, 3)
    rows = []
    for s in range(3):
        text = np.full(len(steps), ord("-"), np.uint8)
        take = steps[:, s].astype(bool)
        letters = np.frombuffer(seqs[s], np.uint8)[start[s]:start[s] + int(take.sum())]
        text[take] = letters
        rows.append(text.tobytes())
    return rows


class MafWriter:
    score_only = False

    def __init__(self, ctx):
        self.out = ctx.out
        self.stream = ctx.out.open()
        self.stream.write(b"##maf version=1 scoring=sum-of-pairs\n\n")

    def write(self, chunk, res):
        records = [block.records() for block in chunk.blocks]
        lines = []
        for t in range(len(chunk)):
            lines.append(f"a score={int(res.score[t])}\n".encode())
            ops, lens = res.columns.runs(t)
            seqs = [records[s][t].seq for s in range(3)]
            rows = gapped_rows(seqs, res.start[t], ops, lens)
            for s in range(3):
                size = int(res.end[t, s] - res.start[t, s])
                if size == 0:
                    continue
                rec = records[s][t]
                lines.append(f"s {rec.name} {int(res.start[t, s])} {size} + {len(rec.seq)} ".encode()
                             + rows[s] + b"\n")
            lines.append(b"\n")
        self.stream.write(b"".join(lines))

    def close(self):
        self.out.commit()
