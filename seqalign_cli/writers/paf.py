"""PAF writer: the 12 standard columns plus cg:Z (CIGAR), AS:i (score), NM:i.

A pair without alignment keeps its names and lengths, with strand '*' and
zero spans, like an unmapped PAF line.
"""

from __future__ import annotations


class PafWriter:
    def __init__(self, out, cigar_m: bool = False):
        self.out = out
        self.cigar_m = cigar_m
        self.stream = out.open()

    def write(self, chunk, res):
        cigars = res.cigars(self.cigar_m)
        st = res.stats
        rows = []
        for k, (q, t) in enumerate(zip(chunk.queries, chunk.targets)):
            score = int(res.score[k])
            if res.nruns[k] == 0:
                rows.append(f"{q.name}\t{len(q.seq)}\t0\t0\t*\t{t.name}\t{len(t.seq)}\t0\t0\t0\t0\t0"
                            f"\tAS:i:{score}\n")
                continue
            matches, mism, ins, dels = (int(x) for x in st[k])
            rows.append(f"{q.name}\t{len(q.seq)}\t{res.qstart[k]}\t{res.qend[k]}\t+\t{t.name}\t"
                        f"{len(t.seq)}\t{res.tstart[k]}\t{res.tend[k]}\t{matches}\t"
                        f"{matches + mism + ins + dels}\t255\tcg:Z:{cigars[k]}\tAS:i:{score}\t"
                        f"NM:i:{mism + ins + dels}\n")
        self.stream.write("".join(rows).encode())

    def close(self):
        self.out.commit()
