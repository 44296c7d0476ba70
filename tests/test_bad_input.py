"""A catalogue of bad and odd inputs, through the installed ``seqalign`` command, for every subcommand.

Every case runs ``seqalign <family> -q --backend cpu ... -o OUT`` in a folder
of its own, where OUT already exists with other content. What each kind of
case must show:

* error: the exit code (1 bad data, 2 bad usage), exactly one stderr line
  ``seqalign: error: ...`` naming the file and the record where there is
  one (``needles``), no traceback, nothing on stdout, OUT keeps its content
  and no file is left behind (a ``.fai`` built beside a ``--pairs``
  reference is an index kept on purpose, as samtools keeps it, and is not
  counted);
* warning (an input without records): exit 0, exactly one stderr line
  ``seqalign: warning: ...`` naming the empty file(s), and OUT holds the
  format's header alone;
* ok (odd but valid input): exit 0, nothing on stderr, OUT as ``check`` says.

The cases run side by side (a few processes at a time) in a module fixture;
each is then one parametrized test. Data is built here, a few records each.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import random
import shutil
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from support.clidata import EX1
from support.helpers import messages

SEQALIGN = str(Path(sys.executable).with_name("seqalign"))
KEEP = b"an output that must survive a failed run\n"
PAIR_HEADER = b"#qname\tqlen\tqstart\tqend\ttname\ttlen\ttstart\ttend\tscore\tcigar\tnm\n"
TRIPLET_HEADER = b"#name1\tname2\tname3\tlen1\tlen2\tlen3\tscore\tbeg1\tend1\tbeg2\tend2\tbeg3\tend3\tcolumns\n"
GRAPH_HEADER = b"#read\tlength\tstart\tend\tscore\tpath\tpath_start\tpath_end\tcigar\n"

GOOD_Q = b">r1\nACGTACGTAC\n>r2\nGGCATTACGA\n"
GOOD_T = b">t1\nACGTTACGTAC\n>t2\nGGCATACGA\n"
GFA = b"H\tVN:Z:1.0\nS\ts1\tACGTACGT\nS\ts2\tGGCC\nS\ts3\tTTAA\nL\ts1\t+\ts2\t+\t0M\nL\ts1\t+\ts3\t+\t0M\n"
READS = b">g1\nACGTACGTGG\n>g2\nTTAACGTA\n"
RNG = random.Random(11)


def seq(n: int) -> str:
    return "".join(RNG.choice("ACGT") for _ in range(n))


def fasta(*records) -> bytes:
    return "".join(f">{name}\n{s}\n" for name, s in records).encode()


LONG_Q = fasta(("long1", seq(150)), ("long2", seq(150)))
LONG_T = fasta(("w1", seq(200)), ("w2", seq(200)))
MANY = fasta(*[(f"m{i}", "ACGT" if i != 2999 else "ACQT") for i in range(3001)])


@dataclass
class Case:
    family: str  # pair | triplet | graph
    args: list  # after '<family> -q --backend cpu'; file names are relative to the case's folder
    files: dict  # name -> bytes
    code: int = 1
    needles: tuple = ()
    out: str | None = "out.tsv"  # the -o name (None: no -o, stdout)
    stdin: bytes | None = None
    kind: str = "error"  # error | warning | ok
    check: Callable[[bytes], bool] | None = None  # ok/warning: the output is right
    setup: Callable[[Path], None] | None = None


def header_only(header: bytes):
    return lambda out: out == header


def rows(out: bytes) -> list[list[str]]:
    return [line.split("\t") for line in out.decode().splitlines() if not line.startswith("#")]


def read_only_reference(folder: Path):
    """A reference folder nothing can be written to (for root, whom modes do not stop, the index's place is taken)."""
    ref = folder / "ref"
    ref.mkdir()
    shutil.copy(EX1, ref / "ex1.fa")
    if os.geteuid() == 0:
        (ref / "ex1.fa.fai").mkdir()  # the index cannot be written where pyfaidx puts it
    ref.chmod(0o555)


def fifo(*names: str):
    """A setup making named pipes with no writer: an input that must be refused by looking at it, as opening
    it would wait for ever (the case's run would end at its timeout)."""
    return lambda folder: [os.mkfifo(folder / name) for name in names]


def link(name: str, target: str):
    """A setup making ``name`` a symbolic link to the case's file ``target``."""
    return lambda folder: os.symlink(target, folder / name)


#: what every refusal of ``--shard`` on an input it cannot read twice says
SHARD_NEEDS = "--shard needs a regular file to count and skip records"
INTERLEAVED = fasta(("q1", "ACGTACGTAC"), ("t1", "ACGTTACGTAC"), ("q2", "GGCATTACGA"), ("t2", "GGCATACGA"))


def _sam_records(out: bytes) -> list[str]:
    return [line for line in out.decode().splitlines() if not line.startswith("@")]


CASES: dict[str, Case] = {
    # ---------------------------------------------------------------- pair: letters
    "pair protein letter E": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nACGT\n>r2\nACEGT\n", "t.fa": GOOD_T},
                                  needles=("q.fa", "record 2 (r2)", "'E'", "position 3", "IUPAC")),
    "pair protein letter J": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nACJT\n>r2\nAC\n", "t.fa": GOOD_T},
                                  needles=("q.fa", "record 1 (r1)", "'J'")),
    "pair protein letter Z lower case": Case("pair", ["q.fa", "t.fa"],
                                             {"q.fa": b">r1\nACGT\n>r2\nacgz\n", "t.fa": GOOD_T},
                                             needles=("q.fa", "record 2 (r2)", "'z'")),
    "pair protein letters O P Q L F I": Case("pair", ["q.fa", "t.fa"],
                                             {"q.fa": GOOD_Q, "t.fa": b">t1\nMKLFPQIO\n>t2\nAC\n"},
                                             needles=("t.fa", "record 1 (t1)", "'L'", "position 3")),
    "pair digits in a sequence": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": b">t1\nAC\n>t2\n1 acgt\n"},
                                      needles=("t.fa", "record 2 (t2)", "'1'", "position 1")),
    "pair stop codon star": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nACGT*\n>r2\nA\n", "t.fa": GOOD_T},
                                 needles=("q.fa", "record 1 (r1)", "'*'")),
    "pair gap dash": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nAC--GT\n>r2\nA\n", "t.fa": GOOD_T},
                          needles=("q.fa", "record 1 (r1)", "'-'", "gap")),
    "pair gap dot": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nACGT\n>r2\nA.C\n", "t.fa": GOOD_T},
                         needles=("q.fa", "record 2 (r2)", "'.'")),
    "pair fastq record pasted into fasta": Case(
        "pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nACGT\n@r2\nACGT\n+\nIIII\n>r3\nAC\n", "t.fa": GOOD_T},
        needles=("q.fa", "record 1 (r1)", "'@'", "FASTQ")),
    "pair plus line inside fasta": Case("pair", ["q.fa", "t.fa"],
                                        {"q.fa": GOOD_Q, "t.fa": b">t1\nACGT\n+\nIIII\n>t2\nAC\n"},
                                        needles=("t.fa", "record 1 (t1)", "'+'", "FASTQ")),
    "pair byte outside ascii": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nAC\xc3\xa9GT\n>r2\nA\n", "t.fa": GOOD_T},
                                    needles=("q.fa", "record 1 (r1)", "byte 195", "position 3")),
    "pair vertical tab inside a line": Case("pair", ["q.fa", "t.fa"],
                                            {"q.fa": b">r1\nAC\x0bGT\n>r2\nA\n", "t.fa": GOOD_T},
                                            needles=("q.fa", "record 1 (r1)", "byte 11")),
    "pair space inside a fastq sequence": Case("pair", ["q.fq", "t.fa"],
                                               {"q.fq": b"@r1\nACGT\n+\nIIII\n@r2\nAC GT\n+\nIIIII\n", "t.fa": GOOD_T},
                                               needles=("q.fq", "record 2 (r2)", "' ' (a space)")),
    "pair bad letter in a multi-line fastq": Case(
        "pair", ["q.fq", "t.fa"], {"q.fq": b"@r1\nAC\nGT\n+\nII\nII\n@r2\nAC\nGE\n+\nII\nII\n", "t.fa": GOOD_T},
        needles=("q.fq", "record 2 (r2)", "'E'", "position 4")),
    "pair bad letter in gzip": Case("pair", ["q.fa.gz", "t.fa"],
                                    {"q.fa.gz": gzip.compress(b">r1\nACGT\n>r2\nACXTE\n"), "t.fa": GOOD_T},
                                    needles=("q.fa.gz", "record 2 (r2)", "'E'", "position 5")),
    "pair bad letter on stdin": Case("pair", ["-", "t.fa"], {"t.fa": GOOD_T}, stdin=b">r1\nAC\n>r2\nAC%T\n",
                                     needles=("<stdin>", "record 2 (r2)", "'%'")),
    "pair bad letter far into a file": Case("pair", ["many.fa", "many.fa"], {"many.fa": MANY},
                                            needles=("many.fa", "record 3000 (m2999)", "'Q'", "position 3")),
    "pair bad letter in an interleaved target": Case(
        "pair", ["--interleaved", "i.fa"], {"i.fa": b">q1\nACGT\n>t1\nACGT\n>q2\nAC\n>t2\nA?GT\n"},
        needles=("i.fa", "record 4 (t2)", "'?'")),
    "pair bad letter in cross targets": Case("pair", ["--cross", "q.fa", "t.fa"],
                                             {"q.fa": GOOD_Q, "t.fa": b">t1\nACGT\n>t2\nAC=GT\n"},
                                             needles=("t.fa", "record 2 (t2)", "'='")),
    "pair bad letter in a pairs region": Case(
        "pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
        {"p.tsv": b"r1\tc1:1-8\nr2\tc2:3-10\n", "q.fa": GOOD_Q, "ref.fa": b">c1\nACGTACGT\n>c2\nACGTAC\nGT*AAA\n"},
        needles=("ref.fa", "record 2 (c2)", "'*'", "position 9")),
    "pair bad letter in a pairs query": Case(
        "pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
        {"p.tsv": b"r1\tc1:1-8\n", "q.fa": b">r1\nACGU\n>r2\nAB!\n", "ref.fa": b">c1\nACGTACGT\n"},
        needles=("q.fa", "record 2 (r2)", "'!'")),
    # ---------------------------------------------------------------- pair: qualities
    "pair quality below 33": Case("pair", ["q.fq", "t.fa"], {"q.fq": b"@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nII\x1fI\n",
                                                             "t.fa": GOOD_T},
                                  needles=("q.fq", "record 2 (r2)", "quality", "byte 31", "position 3")),
    "pair quality DEL 127": Case("pair", ["q.fq", "t.fa"], {"q.fq": b"@r1\nACGT\n+\nI\x7fII\n@r2\nA\n+\nI\n",
                                                            "t.fa": GOOD_T},
                                 needles=("q.fq", "record 1 (r1)", "quality", "byte 127")),
    "pair quality space inside": Case("pair", ["q.fq", "t.fa"], {"q.fq": b"@r1\nACGT\n+\nII I\n@r2\nA\n+\nI\n",
                                                                 "t.fa": GOOD_T},
                                      needles=("q.fq", "record 1 (r1)", "quality", "a space")),
    "pair quality outside ascii": Case("pair", ["q.fq", "t.fa"],
                                       {"q.fq": b"@r1\nACG\n+\nI\xc3\xa9\n@r2\nA\n+\nI\n", "t.fa": GOOD_T},
                                       needles=("q.fq", "record 1 (r1)", "quality", "byte 195")),
    # ---------------------------------------------------------------- pair: SAM read names
    "sam read name over 254": Case("pair", ["q.fa", "t.fa"],
                                   {"q.fa": fasta(("r" * 255, "ACGT"), ("r2", "AC")), "t.fa": GOOD_T}, out="out.sam",
                                   needles=("q.fa", "record 1 (rrr", "255 bytes", "254")),
    "bam read name starting with @": Case("pair", ["q.fq", "t.fa"],
                                          {"q.fq": b"@r1\nACGT\n+\nIIII\n@@r2\nAC\n+\nII\n", "t.fa": GOOD_T},
                                          out="out.bam", needles=("q.fq", "record 2 (@r2)", "begins with '@'")),
    "sam read name outside ascii": Case("pair", ["q.fa", "t.fa"], {"q.fa": ">r1\nAC\n>réad\nAC\n".encode(),
                                                                   "t.fa": GOOD_T},
                                        out="out.sam", needles=("q.fa", "record 2", "'é'", "position 2")),
    "sam read name with a control character": Case("pair", ["q.fa", "t.fa"],
                                                   {"q.fa": b">r\x01x\nAC\n>r2\nAC\n", "t.fa": GOOD_T},
                                                   out="out.sam", needles=("q.fa", "record 1 (r\\x01x)", "byte 1")),
    "sam interleaved query name": Case("pair", ["--interleaved", "i.fa"],
                                       {"i.fa": fasta(("q1", "AC"), ("t1", "AC"), ("q" * 300, "AC"), ("t2", "AC"))},
                                       out="out.sam", needles=("i.fa", "record 3 (qqq", "300 bytes")),
    "sam pairs query name": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
                                 {"p.tsv": b"r1\tc1:1-4\n@x\tc1\n", "q.fa": b">r1\nACGT\n>@x\nACGT\n",
                                  "ref.fa": b">c1\nACGTACGT\n"},
                                 out="out.sam", needles=("q.fa", "record 2 (@x)", "begins with '@'")),
    "tsv keeps odd and long read names": Case(
        "pair", ["q.fa", "t.fa"], {"q.fa": fasta(("r" * 300, "ACGT"), ("@r~é", "AC")), "t.fa": GOOD_T},
        kind="ok", code=0, check=lambda out: [r[0] for r in rows(out)] == ["r" * 300, "@r~é"]),
    "paf keeps read names starting with @": Case("pair", ["q.fa", "t.fa"],
                                                 {"q.fa": fasta(("@r1", "ACGT"), ("r2", "AC")), "t.fa": GOOD_T},
                                                 out="out.paf", kind="ok", code=0,
                                                 check=lambda out: out.split(b"\t", 1)[0] == b"@r1"),
    # ---------------------------------------------------------------- pair: 32-bit scores in SAM/BAM
    "sam scoring beyond int32 before any work": Case(
        "pair", ["--match", "1000000000", "q.fa", "t.fa"], {"q.fa": b">r1\nAEGT\n", "t.fa": GOOD_T}, out="out.sam",
        code=2, needles=("32-bit", "AS:i", "--match 1000000000")),
    "bam gap extend beyond int32": Case("pair", ["--gap-extend", "800000000", "q.fa", "t.fa"],
                                        {"q.fa": GOOD_Q, "t.fa": GOOD_T}, out="out.bam", code=2,
                                        needles=("32-bit", "--gap-extend 800000000")),
    "sam scoring beyond int32 for long pairs": Case(
        "pair", ["--match", "10000000", "q.fa", "t.fa"], {"q.fa": LONG_Q, "t.fa": LONG_T}, out="out.sam", code=2,
        needles=("q.fa", "record 1 (long1)", "150 x 200", "32-bit")),
    "tsv takes scores beyond int32": Case(
        "pair", ["--match", "1000000000", "q.fa", "t.fa"], {"q.fa": b">r1\nACGTACGT\n", "t.fa": b">t1\nACGTACGT\n"},
        kind="ok", code=0, check=lambda out: rows(out)[0][8] == "8000000000"),
    # ---------------------------------------------------------------- pair: options that contradict
    "cross with interleaved": Case("pair", ["--cross", "--interleaved", "q.fa"], {"q.fa": GOOD_Q}, code=2,
                                   needles=("--cross and --interleaved", "cannot be combined")),
    "interleaved with cross": Case("pair", ["--interleaved", "q.fa", "--cross"], {"q.fa": GOOD_Q}, code=2,
                                   needles=("--cross and --interleaved",)),
    "pairs with cross": Case("pair", ["--pairs", "p.tsv", "--cross", "q.fa", "t.fa"],
                             {"p.tsv": b"r1\tt1\n", "q.fa": GOOD_Q, "t.fa": GOOD_T}, code=2,
                             needles=("--cross and --pairs",)),
    "format bam to a sam name": Case("pair", ["--format", "bam", "q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T},
                                     out="r.sam", code=2, needles=("--format bam", "r.sam")),
    "format sam to an upper-case paf name": Case("pair", ["--format", "sam", "q.fa", "t.fa"],
                                                 {"q.fa": GOOD_Q, "t.fa": GOOD_T}, out="r.PAF", code=2,
                                                 needles=("--format sam", "r.PAF")),
    "bam with gz": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T}, out="r.bam.gz", code=2,
                        needles=("r.bam.gz", "BAM is compressed")),
    "score only to sam": Case("pair", ["--score-only", "q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T},
                              out="r.sam", code=2, needles=("--score-only",)),
    "upper-case sam extension": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T}, out="x.SAM",
                                     kind="ok", code=0, check=lambda out: out.startswith(b"@HD\tVN:1.6")),
    "txt name with format paf": Case("pair", ["--format", "paf", "q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T},
                                     out="r.txt", kind="ok", code=0, check=lambda out: out.startswith(b"r1\t10\t")),
    "score only writes stars": Case(
        "pair", ["--score-only", "--mode", "local", "q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T}, kind="ok",
        code=0, check=lambda out: out.startswith(PAIR_HEADER)
        and all(r[2] == r[6] == r[9] == r[10] == "*" and r[3] != "*" for r in rows(out))),
    # ---------------------------------------------------------------- pair: --pairs regions and references
    "pairs region forms samtools takes": Case(
        "pair", ["--pairs", "p.tsv", "q.fa", "ref/ex1.fa"],
        {"p.tsv": b"r1\tchr1\nr1\tchr1:1,500\nr1\tchr1:1500-\nr1\tchr1:1,001-1,010\nr1\tchr2:-20\n"
                  b"r1\t{chr2}:5-9\nr1\tchr1:1k-1,001\n", "q.fa": GOOD_Q},
        kind="ok", code=0, setup=lambda d: (d.joinpath("ref").mkdir(), shutil.copy(EX1, d / "ref" / "ex1.fa")),
        check=lambda out: [(r[4], int(r[5])) for r in rows(out)] == [
            ("chr1", 1575), ("chr1:1,500", 76), ("chr1:1500-", 76), ("chr1:1,001-1,010", 10), ("chr2:-20", 20),
            ("{chr2}:5-9", 5), ("chr1:1k-1,001", 2)]),
    "pairs read-only reference folder": Case(
        "pair", ["--pairs", "p.tsv", "q.fa", "ref/ex1.fa"], {"p.tsv": b"r1\tchr2:1,001-1,010\n", "q.fa": GOOD_Q},
        kind="ok", code=0, setup=read_only_reference,
        check=lambda out: [(r[4], int(r[5])) for r in rows(out)] == [("chr2:1,001-1,010", 10)]),
    "pairs gzip reference": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa.gz"],
                                 {"p.tsv": b"r2\tc1:2-5\n", "q.fa": GOOD_Q,
                                  "ref.fa.gz": gzip.compress(b">c1\nACGTAC\n")},
                                 kind="ok", code=0, check=lambda out: rows(out)[0][4:6] == ["c1:2-5", "4"]),
    "pairs region outside": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
                                 {"p.tsv": b"r1\tc1:1-4\nr2\tc1:5-2\n", "q.fa": GOOD_Q, "ref.fa": b">c1\nACGTACGT\n"},
                                 needles=("p.tsv: line 2", "c1:5-2", "outside")),
    "pairs unknown target": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
                                 {"p.tsv": b"r1\tc9:1-4\n", "q.fa": GOOD_Q, "ref.fa": b">c1\nACGTACGT\n"},
                                 needles=("p.tsv: line 1", "unknown target name 'c9:1-4'")),
    "pairs unknown query": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
                                {"p.tsv": b"r1\tc1\nnobody\tc1\n", "q.fa": GOOD_Q, "ref.fa": b">c1\nACGTACGT\n"},
                                needles=("p.tsv: line 2", "unknown query name 'nobody'")),
    "pairs duplicate query": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
                                  {"p.tsv": b"r1\tc1\n", "q.fa": b">r1\nAC\n>r1\nGT\n", "ref.fa": b">c1\nACGTACGT\n"},
                                  needles=("q.fa", "record 2", "duplicate query name 'r1'")),
    # ---------------------------------------------------------------- pair: structure
    "pair unequal counts": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": b">t1\nAC\n"},
                                needles=("2 queries in q.fa", "1 targets in t.fa")),
    "pair empty query against records": Case("pair", ["q.fa", "t.fa"], {"q.fa": b"", "t.fa": GOOD_T},
                                             needles=("0 queries in q.fa", "2 targets in t.fa")),
    "pair odd interleaved": Case("pair", ["--interleaved", "i.fa"], {"i.fa": b">a\nAC\n>b\nAC\n>c\nAC\n"},
                                 needles=("i.fa", "record 3 (c)", "no partner")),
    "pair fastq quality length": Case("pair", ["q.fq", "q.fq"], {"q.fq": b"@r1\nACGT\n+\nIII\n"},
                                      needles=("q.fq", "record 1 (r1)", "quality length 3")),
    "pair fastq missing plus": Case("pair", ["q.fq", "q.fq"], {"q.fq": b"@r1\nACGT\nIIII\n"},
                                    needles=("q.fq", "record 1 (r1)", "'+'")),
    "pair truncated gzip": Case("pair", ["q.fa.gz", "t.fa"],
                                {"q.fa.gz": gzip.compress(GOOD_Q * 50)[:-30], "t.fa": GOOD_T},
                                needles=("q.fa.gz", "truncated gzip")),
    "pair truncated bzip2": Case("pair", ["q.fa.bz2", "t.fa"],
                                 {"q.fa.bz2": bz2.compress(GOOD_Q * 50)[:-30], "t.fa": GOOD_T},
                                 needles=("q.fa.bz2", "truncated bzip2")),
    "pair truncated xz": Case("pair", ["q.fa.xz", "t.fa"],
                              {"q.fa.xz": lzma.compress(GOOD_Q * 50)[:-30], "t.fa": GOOD_T},
                              needles=("q.fa.xz", "truncated xz")),
    "pair bzip2 read": Case("pair", ["q.fa.bz2", "t.fa"], {"q.fa.bz2": bz2.compress(GOOD_Q), "t.fa": GOOD_T},
                            kind="ok", code=0, check=lambda out: len(rows(out)) == 2),
    "pair output named cram": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T}, out="out.cram",
                                   code=2, needles=("out.cram", "does not write CRAM", "tsv, sam, bam, paf")),
    "triplet output named fasta": Case("triplet", ["a.fa", "a.fa", "a.fa"], {"a.fa": GOOD_Q}, out="out.fa",
                                       code=2, needles=("out.fa", "does not write FASTA", "tsv, maf")),
    "pair NUL in a read name": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nAC\n>r\x002\nAC\n", "t.fa": GOOD_T},
                                    needles=("q.fa", "record 2", "control character", "position 2")),
    "pair escape in a target name": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": b">t\x1b[31m\nACGT\n>t2\nAC\n"},
                                         needles=("t.fa", "record 1", "control character")),
    "triplet control character in a name": Case("triplet", ["a.fa", "a.fa", "b.fa"],
                                                {"a.fa": b">a\nACGT\n", "b.fa": b">b\x07\nACGT\n"},
                                                needles=("b.fa", "record 1", "control character")),
    "pair not fasta": Case("pair", ["q.txt", "t.fa"], {"q.txt": b"ID\tvalue\n1\t2\n", "t.fa": GOOD_T},
                           needles=("q.txt", "record 1", "FASTA")),
    "pair empty record name": Case("pair", ["q.fa", "t.fa"], {"q.fa": b">r1\nAC\n>\nAC\n", "t.fa": GOOD_T},
                                   needles=("q.fa", "record 2", "empty record name")),
    "pair missing input": Case("pair", ["nothere.fa", "t.fa"], {"t.fa": GOOD_T}, code=2,
                               needles=("nothere.fa", "no such file")),
    "pair directory input": Case("pair", ["sub", "t.fa"], {"t.fa": GOOD_T}, code=2, setup=lambda d: d.joinpath(
        "sub").mkdir(), needles=("sub", "directory")),
    "pair output names an input": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T}, out="t.fa",
                                       code=2, needles=("t.fa", "-o names")),
    "pair output folder missing": Case("pair", ["q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": GOOD_T},
                                       out="nowhere/out.tsv", code=2, needles=("nowhere/out.tsv", "does not exist")),
    "pair odd letters accepted": Case(
        "pair", ["q.fa", "t.fa"], {"q.fa": b">r1\r\nacgu\r\nRYSWKMBDHVNX\r\n>r2\n\n", "t.fa": b">t1\nACGT\n>t2\nAC\n"},
        kind="ok", code=0, check=lambda out: [r[1] for r in rows(out)] == ["16", "0"]),
    # ---------------------------------------------------------------- pair: empty inputs
    "pair both empty": Case("pair", ["q.fa", "t.fa"], {"q.fa": b"", "t.fa": b"\n\n"}, kind="warning", code=0,
                            needles=("q.fa, t.fa", "no records"), check=header_only(PAIR_HEADER)),
    "pair empty stdin and file": Case("pair", ["-", "t.fa.gz"], {"t.fa.gz": gzip.compress(b"")}, stdin=b"",
                                      kind="warning", code=0, needles=("<stdin>, t.fa.gz", "empty input"),
                                      check=header_only(PAIR_HEADER)),
    "pair cross empty targets": Case("pair", ["--cross", "q.fa", "t.fa"], {"q.fa": GOOD_Q, "t.fa": b""},
                                     kind="warning", code=0, needles=("t.fa: no records",),
                                     check=header_only(PAIR_HEADER)),
    "pair interleaved empty": Case("pair", ["--interleaved", "i.fa"], {"i.fa": b""}, kind="warning", code=0,
                                   needles=("i.fa",), check=header_only(PAIR_HEADER)),
    "pair empty pairs file": Case("pair", ["--pairs", "p.tsv", "q.fa", "ref.fa"],
                                  {"p.tsv": b"# nothing\n", "q.fa": GOOD_Q, "ref.fa": b">c1\nACGT\n"},
                                  kind="warning", code=0, needles=("p.tsv", "no pairs listed"),
                                  check=header_only(PAIR_HEADER)),
    "pair empty to sam": Case("pair", ["q.fa", "t.fa"], {"q.fa": b"", "t.fa": b""}, out="out.sam", kind="warning",
                              code=0, needles=("q.fa, t.fa",),
                              check=lambda out: out.startswith(b"@HD") and _sam_records(out) == []),
    "pair empty to paf": Case("pair", ["q.fa", "t.fa"], {"q.fa": b"", "t.fa": b""}, out="out.paf", kind="warning",
                              code=0, needles=("q.fa, t.fa",), check=header_only(b"")),
    # ---------------------------------------------------------------- triplet
    "triplet bad letter in C": Case("triplet", ["a.fa", "b.fa", "c.fa"],
                                    {"a.fa": b">a1\nACGT\n", "b.fa": b">b1\nACGT\n", "c.fa": b">c1\nACIT\n"},
                                    needles=("c.fa", "record 1 (c1)", "'I'")),
    "triplet bad quality": Case("triplet", ["a.fq", "b.fa", "c.fa"],
                                {"a.fq": b"@a1\nACGT\n+\nII\x80I\n", "b.fa": b">b1\nACGT\n", "c.fa": b">c1\nACGT\n"},
                                needles=("a.fq", "record 1 (a1)", "quality", "0x80")),
    "triplet interleaved bad letter": Case("triplet", ["--interleaved", "i.fa"],
                                           {"i.fa": b">a\nAC\n>b\nAC\n>c\nA1\n"},
                                           needles=("i.fa", "record 3 (c)", "'1'")),
    "triplet unequal counts": Case("triplet", ["a.fa", "b.fa", "c.fa"],
                                   {"a.fa": b">a1\nAC\n", "b.fa": b">b1\nAC\n>b2\nAC\n", "c.fa": b">c1\nAC\n"},
                                   needles=("1 in a.fa", "2 in b.fa", "1 in c.fa")),
    "triplet interleaved not a multiple of 3": Case("triplet", ["--interleaved", "i.fa"],
                                                    {"i.fa": b">a\nAC\n>b\nAC\n"}, needles=("i.fa", "multiple of 3")),
    "triplet to sam": Case("triplet", ["a.fa", "a.fa", "a.fa"], {"a.fa": b">a\nAC\n"}, out="x.sam", code=2,
                           needles=("x.sam", "triplet alignments cannot be written as sam")),
    "triplet format maf to a tsv name": Case("triplet", ["--format", "maf", "a.fa", "a.fa", "a.fa"],
                                             {"a.fa": b">a\nAC\n"}, out="x.tsv", code=2,
                                             needles=("--format maf", "x.tsv")),
    "triplet score only stars": Case(
        "triplet", ["--score-only", "--mode", "local", "a.fa", "a.fa", "a.fa"], {"a.fa": b">a\nACGTAC\n"},
        kind="ok", code=0, check=lambda out: out.startswith(TRIPLET_HEADER)
        and rows(out) == [["a", "a", "a", "6", "6", "6", "36", "*", "6", "*", "6", "*", "6", "*"]]),
    "triplet all empty": Case("triplet", ["a.fa", "b.fa", "c.fa"], {"a.fa": b"", "b.fa": b"", "c.fa": b""},
                              kind="warning", code=0, needles=("a.fa, b.fa, c.fa",),
                              check=header_only(TRIPLET_HEADER)),
    "triplet interleaved empty to maf": Case("triplet", ["--interleaved", "i.fa"], {"i.fa": b""}, out="out.maf",
                                             kind="warning", code=0, needles=("i.fa",),
                                             check=header_only(b"##maf version=1 scoring=sum-of-pairs\n\n")),
    # ---------------------------------------------------------------- graph
    "graph bad letter in a segment": Case("graph", ["g.gfa", "r.fa"],
                                          {"g.gfa": GFA.replace(b"GGCC", b"GGEC"), "r.fa": READS},
                                          needles=("g.gfa", "line 3", "segment s2", "'E'", "position 3")),
    "graph gap in a segment": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA.replace(b"TTAA", b"TT-A"), "r.fa": READS},
                                   needles=("g.gfa", "line 4", "segment s3", "'-'")),
    "graph bad letter in a read": Case("graph", ["g.gfa", "r.fq"],
                                       {"g.gfa": GFA, "r.fq": b"@g1\nACGT\n+\nIIII\n@g2\nACFT\n+\nIIII\n"},
                                       needles=("r.fq", "record 2 (g2)", "'F'")),
    "graph star segment": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA.replace(b"GGCC", b"*"), "r.fa": READS},
                               needles=("g.gfa", "line 3", "s2", "no sequence")),
    "graph link to a missing segment": Case("graph", ["g.gfa", "r.fa"],
                                            {"g.gfa": GFA + b"L\ts3\t+\ts9\t+\t0M\n", "r.fa": READS},
                                            needles=("g.gfa", "line 7", "s9")),
    "graph cycle": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA + b"L\ts2\t+\ts1\t+\t0M\n", "r.fa": READS},
                        needles=("g.gfa", "cycle")),
    "graph overlap": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA.replace(b"s3\t+\t0M", b"s3\t+\t2M"),
                                                       "r.fa": READS}, needles=("g.gfa", "line 6", "overlap")),
    "graph duplicate segment": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA + b"S\ts1\tAC\n", "r.fa": READS},
                                    needles=("g.gfa", "line 7", "duplicate segment name s1")),
    "graph without segments": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": b"H\tVN:Z:1.0\n", "r.fa": READS},
                                   needles=("g.gfa", "no segments")),
    "graph '>' in a segment name": Case("graph", ["g.gfa", "r.fa"],
                                        {"g.gfa": GFA.replace(b"s2", b"s>2"), "r.fa": READS},
                                        needles=("g.gfa", "line 3", "segment name s>2", "'>'", "position 2")),
    "graph '<' in a segment name": Case("graph", ["g.gfa", "r.fa"],
                                        {"g.gfa": GFA.replace(b"s3", b"<s3"), "r.fa": READS},
                                        needles=("g.gfa", "line 4", "segment name <s3", "'<'", "position 1")),
    "graph NUL in a segment name": Case("graph", ["g.gfa", "r.fa"],
                                        {"g.gfa": GFA.replace(b"s1", b"s\x001"), "r.fa": READS},
                                        needles=("g.gfa", "line 2", "control character", "byte 0")),
    "graph GFA2 header": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA.replace(b"VN:Z:1.0", b"VN:Z:2.0"),
                                                           "r.fa": READS},
                              needles=("g.gfa", "line 1", "GFA2 is not supported", "VN:Z:2.0")),
    "graph GFA2 edge": Case("graph", ["g.gfa", "r.fa"],
                            {"g.gfa": b"S\ts1\t8\tACGTACGT\n", "r.fa": READS},
                            needles=("g.gfa", "line 1", "GFA2 is not supported", "length before its sequence")),
    "graph GFA2 E line": Case("graph", ["g.gfa", "r.fa"],
                              {"g.gfa": GFA.replace(b"H\tVN:Z:1.0\n", b"") + b"E\t*\ts1+\ts2+\t8$\t8$\t0\t0\t*\n",
                               "r.fa": READS}, needles=("g.gfa", "line 6", "GFA2 is not supported", "E line")),
    "graph both on stdin": Case("graph", ["-", "-"], {}, stdin=b"", code=2, needles=("stdin",)),
    "graph to paf": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA, "r.fa": READS}, out="x.paf", code=2,
                         needles=("x.paf", "graph alignments cannot be written as paf")),
    "graph score only stars": Case(
        "graph", ["--score-only", "--mode", "local", "g.gfa", "r.fa"], {"g.gfa": GFA, "r.fa": READS}, kind="ok",
        code=0, check=lambda out: out.startswith(b"#read\t") and all(r[2] == "*" for r in rows(out))),
    "graph empty reads": Case("graph", ["g.gfa", "r.fa"], {"g.gfa": GFA, "r.fa": b""}, kind="warning", code=0,
                              needles=("r.fa: no records",), check=header_only(GRAPH_HEADER)),
    "graph empty reads to gaf": Case("graph", ["g.gfa", "-"], {"g.gfa": GFA}, stdin=b"\n", out="out.gaf",
                                     kind="warning", code=0, needles=("<stdin>",), check=header_only(b"")),
    # ---------------------------------------------------------------- --shard: the input it reads twice
    # (a pipe given as /dev/stdin stands for a shell's <(...), a /dev/fd/N that is a pipe as well)
    "shard pair query on stdin": Case("pair", ["--shard", "1/2", "-", "t.fa"], {"t.fa": GOOD_T}, stdin=GOOD_Q, code=2,
                                      needles=(SHARD_NEEDS, "reads QUERY twice", "'-' is stdin")),
    "shard pair query from a pipe": Case("pair", ["--shard", "1/2", "/dev/stdin", "t.fa"], {"t.fa": GOOD_T},
                                         stdin=GOOD_Q, code=2,
                                         needles=(SHARD_NEEDS, "reads QUERY twice", "'/dev/stdin' is a pipe")),
    "shard pair query a fifo": Case("pair", ["--shard", "2/2", "q.fifo", "t.fa"], {"t.fa": GOOD_T},
                                    setup=fifo("q.fifo"), code=2, needles=(SHARD_NEEDS, "'q.fifo' is a pipe")),
    "shard pair query a character device": Case("pair", ["--shard", "1/2", "/dev/null", "t.fa"], {"t.fa": GOOD_T},
                                                code=2, needles=(SHARD_NEEDS, "'/dev/null' is a character device")),
    "shard pair cross query a fifo": Case("pair", ["--cross", "--shard", "1/2", "q.fifo", "t.fa"], {"t.fa": GOOD_T},
                                          setup=fifo("q.fifo"), code=2, needles=(SHARD_NEEDS, "'q.fifo' is a pipe")),
    "shard pair interleaved from a pipe": Case("pair", ["--interleaved", "--shard", "1/2", "/dev/stdin"], {},
                                               stdin=INTERLEAVED, code=2,
                                               needles=(SHARD_NEEDS, "QUERY", "'/dev/stdin' is a pipe")),
    "shard pair interleaved a fifo": Case("pair", ["--interleaved", "--shard", "2/2", "i.fifo"], {},
                                          setup=fifo("i.fifo"), code=2, needles=(SHARD_NEEDS, "'i.fifo' is a pipe")),
    "shard pairs file from a pipe": Case("pair", ["--pairs", "/dev/stdin", "--shard", "1/2", "q.fa", "t.fa"],
                                         {"q.fa": GOOD_Q, "t.fa": GOOD_T}, stdin=b"r1\tt1\nr2\tt2\n", code=2,
                                         needles=(SHARD_NEEDS, "the --pairs file twice", "'/dev/stdin' is a pipe")),
    "shard pairs file a fifo": Case("pair", ["--pairs", "p.fifo", "--shard", "2/2", "q.fa", "t.fa"],
                                    {"q.fa": GOOD_Q, "t.fa": GOOD_T}, setup=fifo("p.fifo"), code=2,
                                    needles=(SHARD_NEEDS, "the --pairs file twice", "'p.fifo' is a pipe")),
    "shard triplet A from a pipe": Case("triplet", ["--shard", "1/2", "/dev/stdin", "b.fa", "c.fa"],
                                        {"b.fa": GOOD_Q, "c.fa": GOOD_T}, stdin=GOOD_Q, code=2,
                                        needles=(SHARD_NEEDS, "reads A twice", "'/dev/stdin' is a pipe")),
    "shard triplet A a fifo": Case("triplet", ["--shard", "2/2", "a.fifo", "b.fa", "c.fa"],
                                   {"b.fa": GOOD_Q, "c.fa": GOOD_T}, setup=fifo("a.fifo"), code=2,
                                   needles=(SHARD_NEEDS, "reads A twice", "'a.fifo' is a pipe")),
    "shard triplet interleaved on stdin": Case("triplet", ["--interleaved", "--shard", "1/2", "-"], {},
                                               stdin=fasta(("a", "ACG"), ("b", "ACG"), ("c", "ACG")), code=2,
                                               needles=(SHARD_NEEDS, "'-' is stdin")),
    "shard graph reads from a pipe": Case("graph", ["--shard", "1/2", "g.gfa", "/dev/stdin"], {"g.gfa": GFA},
                                          stdin=READS, code=2,
                                          needles=(SHARD_NEEDS, "reads READS twice", "'/dev/stdin' is a pipe")),
    "shard graph reads a fifo": Case("graph", ["--shard", "2/2", "g.gfa", "r.fifo"], {"g.gfa": GFA},
                                     setup=fifo("r.fifo"), code=2,
                                     needles=(SHARD_NEEDS, "reads READS twice", "'r.fifo' is a pipe")),
    "shard workers pair query a fifo": Case("pair", ["--workers", "2", "--shard", "2/2", "q.fifo", "t.fa"],
                                            {"t.fa": GOOD_T}, setup=fifo("q.fifo"), code=2,
                                            needles=(SHARD_NEEDS, "reads QUERY twice", "'q.fifo' is a pipe")),
    "shard workers interleaved on stdin": Case("pair", ["--workers", "2", "--interleaved", "--shard", "1/2", "-"], {},
                                               stdin=INTERLEAVED, code=2, needles=(SHARD_NEEDS, "'-' is stdin")),
    "shard workers triplet A from a pipe": Case("triplet", ["--workers", "2", "--shard", "1/2", "/dev/stdin",
                                                            "b.fa", "c.fa"], {"b.fa": GOOD_Q, "c.fa": GOOD_T},
                                                stdin=GOOD_Q, code=2,
                                                needles=(SHARD_NEEDS, "reads A twice", "'/dev/stdin' is a pipe")),
    # what is read once may be a pipe, and a regular file may be behind a link or compressed
    "shard target from a pipe, query a link": Case(
        "pair", ["--shard", "2/2", "q.link", "/dev/stdin"], {"q.fa": GOOD_Q}, setup=link("q.link", "q.fa"),
        stdin=GOOD_T, kind="ok", code=0, check=lambda out: [(r[0], r[4]) for r in rows(out)] == [("r2", "t2")]),
    "shard workers gzip query": Case(
        "pair", ["--workers", "2", "--shard", "1/2", "q.fa.gz", "t.fa"], {"q.fa.gz": gzip.compress(GOOD_Q),
                                                                         "t.fa": GOOD_T},
        kind="ok", code=0, check=lambda out: out.startswith(PAIR_HEADER)
        and [(r[0], r[4]) for r in rows(out)] == [("r1", "t1")]),
    "shard graph from a pipe, reads a file": Case(
        "graph", ["--shard", "2/2", "/dev/stdin", "r.fa"], {"r.fa": READS}, stdin=GFA, kind="ok", code=0,
        check=lambda out: [r[0] for r in rows(out)] == ["g2"]),
}


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if not p.name.endswith(".fai"))


def _run(name: str, case: Case, root: Path):
    folder = root / name.replace(" ", "_")
    folder.mkdir()
    for file, data in case.files.items():
        (folder / file).write_bytes(data)
    if case.setup:
        case.setup(folder)
    out = folder / case.out if case.out else None
    if out is not None and case.out not in case.files and out.parent.is_dir():
        out.write_bytes(KEEP)
    before = _listing(folder)
    args = [SEQALIGN, case.family, "-q", "--backend", "cpu", *case.args] + (["-o", case.out] if case.out else [])
    proc = subprocess.run(args, cwd=folder, input=case.stdin if case.stdin is not None else b"", capture_output=True,
                          timeout=120)
    result = dict(proc=proc, before=before, after=_listing(folder),
                  output=out.read_bytes() if out is not None and out.is_file() else None)
    for sub in folder.rglob("*"):  # a read-only folder is made writable again for the clean-up
        if sub.is_dir():
            sub.chmod(sub.stat().st_mode | stat.S_IWUSR)
    return result


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad_input")
    with ThreadPoolExecutor(max(2, min(4, os.cpu_count() or 2))) as pool:
        futures = {name: pool.submit(_run, name, case, root) for name, case in CASES.items()}
    return {name: f.result() for name, f in futures.items()}


def test_the_catalogue_is_large():
    assert len(CASES) >= 60
    assert {c.family for c in CASES.values()} == {"pair", "triplet", "graph"}


@pytest.mark.parametrize("name", list(CASES))
def test_case(results, name):
    case, got = CASES[name], results[name]
    proc = got["proc"]
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == case.code, (proc.returncode, err)
    assert "Traceback" not in err and "Exception" not in err, err
    lines = messages(err)
    if case.kind == "error":
        assert len(lines) == 1 and lines[0].startswith("seqalign: error: "), err
        for needle in case.needles:
            assert needle in lines[0], (needle, err)
        assert proc.stdout == b""
        if case.out and case.out not in case.files and got["output"] is not None:
            assert got["output"] == KEEP, "the output file was touched"
        assert got["after"] == got["before"], "a file was left behind or removed"
        return
    if case.kind == "warning":
        assert len(lines) == 1 and lines[0].startswith("seqalign: warning: "), err
        for needle in case.needles:
            assert needle in lines[0], (needle, err)
    else:
        assert err == "", err
    assert got["output"] is not None and case.check(got["output"]), got["output"][:500]
    assert set(got["after"]) - set(got["before"]) <= {case.out}, "a file was left behind"
