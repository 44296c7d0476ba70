"""SAM/BAM writer: the query is the read, the target the reference.

Records are streamed to a temporary body file; the header (``@HD``, one
``@SQ`` per distinct target in order of first use, ``@PG`` with the full
command line) is only known at the end, so ``close`` writes header and body
(SAM as text; BAM through pysam). Unaligned query ends are soft-clipped; tags
AS:i (score), NM:i and MD:Z. A pair without aligned bases (empty alignment,
empty query or target) is an unmapped record carrying AS:i.

Target names must be unique: the same name with two different sequences is
an error.
"""

from __future__ import annotations

import shutil
import tempfile

from .. import __version__
from ..errors import InputError
from ..results import Op

UNMAPPED = 4
#: reference letters as MD:Z shows them: upper case, U as T
_REF_LETTER = {c: chr(c).upper() for c in b"ACGTNacgtnRYSWKMBDHVrysw kmbdhv".replace(b" ", b"")}
_REF_LETTER.update({ord("U"): "T", ord("u"): "T"})


def md_tag(ops, lens, target: bytes, tstart: int) -> str:
    """The MD:Z string of an alignment (reference bases upper-case)."""
    parts = []
    num = 0
    tpos = tstart
    for op, n in zip(ops, lens):
        if op == Op.MATCH:
            num += n
            tpos += n
        elif op == Op.MISMATCH:
            for b in target[tpos:tpos + n]:
                parts.append(f"{num}{_REF_LETTER.get(b, 'N')}")
                num = 0
            tpos += n
        elif op == Op.DELETION:
            parts.append(f"{num}^{''.join(_REF_LETTER.get(b, 'N') for b in target[tpos:tpos + n])}")
            num = 0
            tpos += n
    parts.append(str(num))
    return "".join(parts)


class SamWriter:
    bam = False

    def __init__(self, ctx):
        self.out = ctx.out
        self.command_line = ctx.command_line.replace("\t", " ").replace("\n", " ")
        self.cigar_m = ctx.cigar_m
        self.targets: dict[str, tuple[int, int]] = {}
        self.target_file = getattr(ctx.inputs, "reference", None) or "target"
        self.body = tempfile.TemporaryFile(mode="w+b")

    def _register(self, t):
        key = (len(t.seq), hash(t.seq))
        seen = self.targets.setdefault(t.name, key)
        if seen != key:
            raise InputError(f"target name {t.name!r} is used for two different sequences; "
                             f"SAM/BAM need unique reference names (rename one, or write TSV/PAF)",
                             path=self.target_file, record=f"{t.num} ({t.name})" if t.num else t.name)

    def write(self, chunk, res):
        cigars = res.cigars(self.cigar_m)
        lines = []
        for k, (q, t) in enumerate(zip(chunk.queries, chunk.targets)):
            seq = q.seq.decode("ascii", "replace").upper().replace("U", "T") or "*"
            qual = q.qual.decode("ascii", "replace") if q.qual else "*"
            score = int(res.score[k])
            matches, mism, ins, dels = (int(x) for x in res.stats[k])
            if len(t.seq) == 0 or res.cigar.count[k] == 0 or matches + mism == 0:
                lines.append(f"{q.name}\t{UNMAPPED}\t*\t0\t0\t*\t*\t0\t0\t{seq}\t{qual}\tAS:i:{score}\n")
                continue
            self._register(t)
            qs, qe = int(res.qstart[k]), int(res.qend[k])
            clip_l = f"{qs}S" if qs > 0 else ""
            clip_r = f"{len(q.seq) - qe}S" if qe < len(q.seq) else ""
            ops, lens = res.cigar.runs(k)
            md = md_tag(ops.tolist(), lens.tolist(), t.seq, int(res.tstart[k]))
            lines.append(f"{q.name}\t0\t{t.name}\t{int(res.tstart[k]) + 1}\t255\t{clip_l}{cigars[k]}{clip_r}"
                         f"\t*\t0\t0\t{seq}\t{qual}\tAS:i:{score}\tNM:i:{mism + ins + dels}\tMD:Z:{md}\n")
        self.body.write("".join(lines).encode())

    def header_dict(self) -> dict:
        return {
            "HD": {"VN": "1.6", "SO": "unsorted"},
            "SQ": [{"SN": name, "LN": length} for name, (length, _) in self.targets.items()],
            "PG": [{"ID": "seqalign", "PN": "seqalign", "VN": __version__, "CL": self.command_line}],
        }

    def close(self):
        import pysam

        hdict = self.header_dict()
        if not hdict["SQ"]:
            del hdict["SQ"]
        header = pysam.AlignmentHeader.from_dict(hdict)
        self.body.seek(0)
        if self.bam and self.out.direct:
            # stdout, a FIFO, a device: through a temporary file, since htslib writing to a
            # closed pipe itself would print its own errors (a copy raises a quiet BrokenPipeError)
            with tempfile.NamedTemporaryFile(suffix=".bam") as tmp:
                self._write_bam(tmp.name, header)
                shutil.copyfileobj(tmp, self.out.open())
        elif self.bam:
            self._write_bam(self.out.make_temp(), header)
        else:
            stream = self.out.open()
            stream.write((str(header).rstrip("\n") + "\n").encode())
            shutil.copyfileobj(self.body, stream)
        self.body.close()
        self.out.commit()

    def _write_bam(self, path: str, header):
        import pysam

        with pysam.AlignmentFile(path, "wb", header=header) as bam:
            for line in self.body:
                bam.write(pysam.AlignedSegment.fromstring(line.decode().rstrip("\n"), header))

    def discard(self):
        self.body.close()


class BamWriter(SamWriter):
    bam = True
