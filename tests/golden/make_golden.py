"""Golden outputs: every case's expected bytes, made by the CPU backend and verified by independent oracles.

Run from the repository root:

    python tests/golden/make_golden.py            # run every case, verify, write what verifies
    python tests/golden/make_golden.py --check    # verify the committed files only (runs nothing)
    python tests/golden/make_golden.py --inputs   # first cut inputs/ again from the public data

A regeneration runs the installed ``seqalign`` (beside this Python) on every
case of ``CASES`` with ``--backend cpu``, in a temporary copy of ``inputs/``,
and verifies every output before anything is written: if one case fails,
nothing is written and the run exits 1. ``tests/test_golden.py`` compares
both backends' bytes with the files and runs ``verify_all`` on them.

What verification asserts, record by record (``verify``):

* pairs (TSV, PAF, SAM, BAM): the score equals parasail's and Biopython's
  (each pair and, with ``--strand both``, its reverse complement: the strand
  kept is the better one, forward on a tie); the whole alignment (spans and
  CIGAR) is the one the README's tie rules pick, walked by the plain-Python
  Gotoh of ``tests/support/oracles.py``; the CIGAR rescored over its spans gives the
  score; NM, MD, PAF's matches and block length, SAM's flag, POS, clips,
  SEQ, QUAL, tags and header are recomputed from the inputs. BAM is decoded
  by pysam (htslib) and must give the golden ``.bam.sam`` text, verified as
  SAM;
* triplets (TSV, MAF): the columns rescored (sum of pairs, affine openings)
  give the score; the score equals the independent numpy DP of
  ``tests/data/triplet/sars.expected.tsv`` where that file has it, and the
  whole alignment equals the plain-Python 3-D DP of ``tests/support/triplet_oracles.py``
  (tie rules; affine gaps too) for triplets of at most 60 bp; MAF's gapped
  texts spell the inputs;
* graphs (TSV, GAF): the path is a walk of the oriented graph and the CIGAR
  rescored against the bases it spells gives the score
  (``graph_oracles.check_alignment``); the score equals parasail's best over
  every source-to-sink walk; the whole record equals the tie rules' walk of
  ``graph_oracles.ref_align``; GAF's columns agree with ``cg:Z``;
* protein pairs (TSV, PAF, BLAST tabular): as DNA pairs, every score from the
  substitution matrix as Biopython ships it (the classic NCBI file; parasail
  and Biopython read their own copies), gaps at BLAST's cost for the matrix
  unless given; BLAST tabular's pident, length, mismatch, gapopen and 1-based
  spans recounted from the CIGAR, its E-value and bit score recomputed from
  NCBI's published Karlin-Altschul lambda and K (``KARLIN_ALTSCHUL``) over the
  query's and the target's lengths and printed as BLAST prints them
  (``blast_evalue``, ``blast_bits``), ``*`` where none are published;
* searches (BLAST tabular, TSV, PAF): each query's hits are a brute-force
  ranking: every database record scored by parasail and Biopython (which must
  agree), the non-empty ones sorted by score, best first, then database
  order, cut by ``--min-score`` and ``--evalue`` (E-values over the
  database's residues) and ``--top``; each hit's whole alignment is the tie
  rules' Gotoh walk, its CIGAR rescores to its score, and every column
  (BLAST's as above, rank, score, CIGAR; PAF's as for pairs) is recomputed;
  a query without hits is TSV's row of ``*``, and nothing in BLAST tabular
  and PAF.

Score-only outputs: the score and the end coordinates against the oracles,
``*`` where the README says nothing is computed.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import gzip
import math
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
ROOT = TESTS.parent
INPUTS = HERE / "inputs"
EXPECTED = HERE / "expected"
SHARED = ROOT.parent / "shared" / "data"
SEQALIGN = Path(sys.executable).with_name("seqalign")
#: the command: the installed script, or the package run by the interpreter where none is installed (a GPU
#: machine that takes the checkout through PYTHONPATH)
COMMAND = [str(SEQALIGN)] if SEQALIGN.exists() else [sys.executable, "-m", "seqalign_cli"]

if __name__ == "__main__" and str(TESTS) not in sys.path:
    # run as a script: tests/ for the shared test modules (under pytest, pyproject.toml's pythonpath puts it there)
    sys.path.insert(0, str(TESTS))

from support import graph_oracles, oracles, triplet_oracles  # noqa: E402
from support.clidata import read_fastx  # noqa: E402
from support.gaf import check_cigar, parse_line  # noqa: E402

Scoring = namedtuple("Scoring", "match mismatch gap_open gap_extend n_penalty")
DEFAULTS = {
    "pair": Scoring(2, 4, 4, 2, 1),
    "triplet": Scoring(2, 4, 0, 2, 1),
    "graph": Scoring(2, 4, 4, 2, 1),
}
_OPTION = {"--match": "match", "--mismatch": "mismatch", "--gap-open": "gap_open",
           "--gap-extend": "gap_extend", "--n-penalty": "n_penalty"}
BWA = ("--match", "1", "--mismatch", "4", "--gap-open", "6", "--gap-extend", "1")
READ_GROUP = ("-R", r"@RG\tID:golden\tSM:ex1")
EX1 = ("--pairs", "ex1_reads.pairs.tsv")
BAM_LEVEL = ("--compress-level", "0")

#: the largest triplet (longest sequence) the plain-Python 3-D DP aligns here
TRIPLET_DP_MAX = 60

ProteinScoring = namedtuple("ProteinScoring", "match mismatch gap_open gap_extend n_penalty matrix alphabet")
#: BLAST's gap costs (open, extend: a gap of length k costs open + k*extend) when only the matrix is given
BLAST_GAPS = {"BLOSUM62": (11, 1), "BLOSUM50": (13, 2)}
#: NCBI BLAST's published (lambda, K) of gapped local alignment (blast_stat.c of the NCBI C++ toolkit)
KARLIN_ALTSCHUL = {("BLOSUM62", 11, 1): (0.267, 0.041)}
PROTEIN = ("--alphabet", "protein")
#: what ``seqalign search`` keeps of each query without --top
SEARCH_TOP = 10


class GoldenError(AssertionError):
    """A golden output that does not verify (the message names the file and the record)."""


# ---------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One command and its golden output ``expected/<name>``; the name's extension is the format."""

    name: str
    family: str  # pair, triplet, graph, search
    mode: str
    inputs: tuple
    options: tuple = ()
    #: False: the command gives neither --format nor --mode (the case's are seqalign's defaults)
    given: bool = True
    #: the backends the case runs on (test_golden.py): the cuda backend hands a search in a mode other than
    #: local to the CPU engine (said on stderr)
    backends: tuple = ("cpu", "cuda")
    #: the one line the command writes on stderr (on the CPU backend), if any
    warning: str = ""

    @property
    def fmt(self) -> str:
        return self.name.rsplit(".", 1)[1]

    def argv(self, backend: str) -> list[str]:
        """The arguments after ``seqalign`` (inputs named relative to the folder the command runs in)."""
        given = ["--format", self.fmt, "--mode", self.mode] if self.given else []
        return [self.family, "-q", "--backend", backend, *given, *self.options, *self.inputs]

    @property
    def protein(self) -> bool:
        return self.family == "search" or self.value("--alphabet") == "protein"

    @property
    def scoring(self):
        if self.protein:
            name = self.value("--matrix") or "BLOSUM62"
            go, ge = BLAST_GAPS[name]
            go, ge = int(self.value("--gap-open") or go), int(self.value("--gap-extend") or ge)
            return ProteinScoring(0, 0, go, ge, 0, substitution_matrix(name), "protein")
        sc = DEFAULTS[self.family]
        opts = list(self.options)
        for k, opt in enumerate(opts[:-1]):
            if opt in _OPTION:
                sc = sc._replace(**{_OPTION[opt]: int(opts[k + 1])})
        return sc

    def value(self, option: str):
        opts = list(self.options)
        return opts[opts.index(option) + 1] if option in opts else None

    def flag(self, option: str) -> bool:
        return option in self.options


def _pair_cases():
    g = ("gasal2.q.fa", "gasal2.t.fa")
    x = ("ex1_reads.fq", "ex1.fa")
    out = [Case(f"pair.{m}.tsv", "pair", m, g) for m in ("global", "semi-global", "glocal", "local")]
    out += [
        Case("pair.local.bwa.tsv", "pair", "local", g, BWA),
        Case("pair.glocal.paf", "pair", "glocal", g),
        Case("pair.local.sam", "pair", "local", g),
        Case("pair.global.bam", "pair", "global", g, BAM_LEVEL),
        Case("pair.global.score-only.tsv", "pair", "global", g, ("--score-only",)),
        Case("pair.glocal.score-only.tsv", "pair", "glocal", g, ("--score-only",)),
        Case("pair.local.score-only.tsv", "pair", "local", g, ("--score-only",)),
        Case("pair.ex1.both.local.tsv", "pair", "local", x, EX1 + ("--strand", "both")),
        Case("pair.ex1.both.glocal.paf", "pair", "glocal", x, EX1 + ("--strand", "both")),
        Case("pair.ex1.both.local.paf", "pair", "local", x, EX1 + ("--strand", "both")),
        Case("pair.ex1.both.glocal.sam", "pair", "glocal", x, EX1 + ("--strand", "both") + READ_GROUP),
        Case("pair.ex1.both.local.bam", "pair", "local", x, EX1 + ("--strand", "both") + READ_GROUP + BAM_LEVEL),
        Case("pair.ex1.both.semi-global.score-only.tsv", "pair", "semi-global", x,
             EX1 + ("--strand", "both", "--score-only")),
        Case("pair.ex1.forward.global.sam", "pair", "global", x, EX1),
    ]
    return out


def _triplet_cases():
    t = ("sars.a.fa", "sars.b.fa", "sars.c.fa")
    short = ("--interleaved", "sars_short.fa")
    out = [Case(f"triplet.{m}.tsv", "triplet", m, t) for m in ("global", "semi-global", "local")]
    out += [
        Case("triplet.global.maf", "triplet", "global", t),
        Case("triplet.local.maf", "triplet", "local", t),
        Case("triplet.semi-global.score-only.tsv", "triplet", "semi-global", t, ("--score-only",)),
        Case("triplet.affine.global.tsv", "triplet", "global", short[1:], (short[0], "--gap-open", "3")),
        Case("triplet.affine.local.maf", "triplet", "local", short[1:], (short[0], "--gap-open", "3")),
    ]
    return out


def _graph_cases():
    gr = ("graph.gfa", "graph_reads.fa")
    out = [Case(f"graph.{m}.tsv", "graph", m, gr) for m in ("global", "glocal", "local")]
    out += [
        Case("graph.glocal.gaf", "graph", "glocal", gr),
        Case("graph.local.gaf", "graph", "local", gr),
        Case("graph.forward-only.glocal.gaf", "graph", "glocal", gr, ("--forward-only",)),
        Case("graph.glocal.score-only.tsv", "graph", "glocal", gr, ("--score-only",)),
        Case("graph.local.score-only.tsv", "graph", "local", gr, ("--score-only",)),
    ]
    return out


def _protein_cases():
    pp = ("protein.q.fa", "protein.t.fa")
    b62 = PROTEIN + ("--matrix", "BLOSUM62", "--gap-open", "11", "--gap-extend", "1")
    b50 = PROTEIN + ("--matrix", "BLOSUM50", "--gap-open", "13", "--gap-extend", "2")
    out = [Case(f"pair.protein.{m}.{f}", "pair", m, pp, b62)
           for m, f in (("local", "tsv"), ("global", "tsv"), ("local", "blast6"), ("local", "paf"),
                        ("global", "paf"))]
    out += [
        Case("pair.protein.local.score-only.tsv", "pair", "local", pp, b62 + ("--score-only",)),
        Case("pair.protein.BLOSUM50.global.tsv", "pair", "global", pp, b50),
    ]
    return out


def _search_cases():
    s = ("search.q.fa", "search.db.fa")
    return [
        Case("search.defaults.blast6", "search", "local", s, given=False),
        Case("search.local.tsv", "search", "local", s),
        Case("search.local.paf", "search", "local", s),
        Case("search.local.top3.min-score.tsv", "search", "local", s, ("--top", "3", "--min-score", "50")),
        Case("search.local.evalue.blast6", "search", "local", s, ("--top", "20", "--evalue", "0.005")),
        Case("search.global.top3.tsv", "search", "global", s, ("--top", "3"), backends=("cpu",),
             warning="seqalign: warning: E-values and bit scores are for local alignments; "
                     "--mode global writes '*' for them"),
    ]


CASES = _pair_cases() + _triplet_cases() + _graph_cases() + _protein_cases() + _search_cases()


def expected_files(case: Case) -> list[Path]:
    """The golden files of a case: its output, and for BAM the decoded text beside it."""
    out = [EXPECTED / case.name]
    if case.fmt == "bam":
        out.append(EXPECTED / (case.name + ".sam"))
    return out


# ---------------------------------------------------------------- running seqalign


def copy_inputs(folder: Path) -> Path:
    """A copy of ``inputs/`` in ``folder`` (a ``--pairs`` run may write an index beside its reference)."""
    for src in sorted(INPUTS.iterdir()):
        shutil.copyfile(src, folder / src.name)
    return folder


def run_case(case: Case, backend: str, folder: Path) -> bytes:
    """The command's stdout; GoldenError when it fails or says anything on stderr but the case's warning."""
    proc = subprocess.run([*COMMAND, *case.argv(backend)], cwd=folder, capture_output=True, timeout=600)
    if proc.returncode or proc.stderr.decode(errors="replace") != (case.warning + "\n" if case.warning else ""):
        raise GoldenError(f"{case.name}: seqalign {' '.join(case.argv(backend))} exited {proc.returncode}: "
                          f"{proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


# ---------------------------------------------------------------- comparing bytes

_PG_VN = re.compile(rb"\tVN:[^\t\n]*")
_PG_BACKEND = re.compile(rb"--backend [a-z]+")


def canonical_header(text: bytes) -> bytes:
    """SAM header text with the ``@PG`` line's version and ``--backend`` made neutral.

    The version changes with every release and the backend is the one thing
    that differs between the CPU and the cuda command lines; every other byte
    is compared as it is.
    """
    lines = text.split(b"\n")
    for k, line in enumerate(lines):
        if line.startswith(b"@PG\t"):
            lines[k] = _PG_BACKEND.sub(b"--backend cpu", _PG_VN.sub(b"\tVN:*", line))
    return b"\n".join(lines)


def bam_payload(data: bytes) -> tuple[bytes, bytes]:
    """(header text, everything after it) of a BAM file's decompressed bytes (BGZF inflated by gzip)."""
    raw = gzip.decompress(data)
    if raw[:4] != b"BAM\x01":
        raise GoldenError("not a BAM file")
    (l_text,) = struct.unpack_from("<i", raw, 4)
    return raw[8:8 + l_text], raw[8 + l_text:]


def bam_text(data: bytes) -> bytes:
    """A BAM file decoded by htslib (pysam) as SAM text: the header, then one line a record."""
    import pysam

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.bam"
        path.write_bytes(data)
        with pysam.AlignmentFile(str(path), "rb", check_sq=False) as fh:
            lines = [str(fh.header)] + [rec.to_string() + "\n" for rec in fh.fetch(until_eof=True)]
    return "".join(lines).encode()


def _diff(want: bytes, got: bytes, name: str) -> str:
    lines = difflib.unified_diff(want.decode(errors="replace").splitlines(),
                                 got.decode(errors="replace").splitlines(),
                                 f"expected/{name}", "output", lineterm="", n=1)
    return "\n".join(list(lines)[:20])


def compare(case: Case, got: bytes, want: dict[str, bytes]) -> list[str]:
    """What differs between a run's output and the golden files (``want``: file name -> bytes); [] if nothing.

    Text formats are compared byte for byte (SAM: the ``@PG`` line through
    ``canonical_header``). BAM is compared after inflating: the header text
    (``canonical_header``) and every byte after it, then its decoding by
    htslib against the ``.bam.sam`` file, so neither the compressor nor the
    header's length can hide or fake a difference.
    """
    name = case.name
    if case.fmt == "sam":
        got, ref = canonical_header(got), canonical_header(want[name])
        return [] if got == ref else [_diff(ref, got, name)]
    if case.fmt != "bam":
        return [] if got == want[name] else [_diff(want[name], got, name)]
    problems = []
    head, body = bam_payload(got)
    ref_head, ref_body = bam_payload(want[name])
    if canonical_header(head) != canonical_header(ref_head):
        problems.append(f"{name}: header text differs\n" + _diff(canonical_header(ref_head),
                                                                 canonical_header(head), name))
    if body != ref_body:
        at = next((k for k, (x, y) in enumerate(zip(body, ref_body)) if x != y), min(len(body), len(ref_body)))
        problems.append(f"{name}: records differ from byte {at} after the header "
                        f"({len(body)} bytes, expected {len(ref_body)})")
    try:
        text = canonical_header(bam_text(got))
    except (ValueError, OSError) as err:
        return problems + [f"{name}: htslib cannot decode it: {err}"]
    ref_text = canonical_header(want[name + ".sam"])
    if text != ref_text:
        problems.append(_diff(ref_text, text, name + ".sam"))
    return problems


# ---------------------------------------------------------------- inputs as the oracles see them


def read_records(path: Path):
    """[(name, seq, qual or None)] of a FASTA/FASTQ file."""
    return read_fastx(path)


def read_text(path: Path) -> str:
    return path.read_text()


Pair = namedtuple("Pair", "qname q qual tname t")


def load_pairs(case: Case, folder: Path) -> list[Pair]:
    """The case's pairs in output order: zip pairing, or a ``--pairs`` file's regions (1-based inclusive)."""
    queries = read_records(folder / case.inputs[0])
    targets = read_records(folder / case.inputs[1])
    pairs_file = case.value("--pairs")
    if pairs_file is None:
        return [Pair(qn, q, qq, tn, t) for (qn, q, qq), (tn, t, _) in zip(queries, targets, strict=True)]
    reads = {n: (s, q) for n, s, q in queries}
    refs = {n: s for n, s, _ in targets}
    out = []
    for line in read_text(folder / pairs_file).splitlines():
        if not line or line.startswith("#"):
            continue
        qname, region = line.split("\t")
        chrom, span = region.rsplit(":", 1)
        beg, end = (int(x) for x in span.split("-"))
        out.append(Pair(qname, *reads[qname], region, refs[chrom][beg - 1:end]))
    return out


def revcomp(seq: str) -> str:
    return graph_oracles.revcomp(seq)


# ---------------------------------------------------------------- pair oracles


class SubstitutionMatrix:
    """A matrix as Biopython ships it (the classic NCBI file), in the shape the oracles read: ``name``,
    ``letters``, ``scores`` (rows in letter order) and ``score(a, b)``."""

    def __init__(self, name: str):
        from Bio.Align import substitution_matrices

        array = substitution_matrices.load(name)
        self.name = name
        self.letters = "".join(array.alphabet)
        self.scores = tuple(tuple(int(array[a, b]) for b in self.letters) for a in self.letters)
        self._rows = {a: dict(zip(self.letters, row)) for a, row in zip(self.letters, self.scores)}

    def score(self, a: str, b: str) -> int:
        return self._rows[a][b]

    def __eq__(self, other):
        return isinstance(other, SubstitutionMatrix) and (self.name, self.scores) == (other.name, other.scores)

    def __hash__(self):
        return hash((self.name, self.scores))

    def __repr__(self):
        return self.name


@functools.lru_cache(maxsize=None)
def substitution_matrix(name: str) -> SubstitutionMatrix:
    return SubstitutionMatrix(name)


@functools.lru_cache(maxsize=None)
def peer_score(q: str, t: str, sc, mode: str) -> int:
    """The optimal score of a pair with two non-empty sides by parasail and by Biopython, which must agree."""
    score = oracles.parasail_score(q, t, sc, mode)
    bio = oracles.biopython_score(q, t, sc, mode)
    if bio != score:
        raise GoldenError(f"oracles disagree: Biopython {bio}, parasail {score} ({mode}, {sc})")
    return score


@functools.lru_cache(maxsize=None)
def align_truth(q: str, t: str, sc, mode: str):
    """The tie rules' alignment (score, qstart, qend, tstart, tend, cigar), its score checked against
    parasail and Biopython (three implementations that must agree)."""
    ref = oracles.ref_align(q, t, sc, mode)
    if q and t:
        score = peer_score(q, t, sc, mode)
        if score != ref[0]:
            raise GoldenError(f"oracles disagree: parasail and Biopython {score}, Gotoh {ref[0]} ({mode}, {sc})")
    return ref


@functools.lru_cache(maxsize=None)
def pair_truth(q: str, t: str, sc, mode: str):
    """The tie rules' alignment (``align_truth``) and end cell (``oracles.ref_end``)."""
    return align_truth(q, t, sc, mode), oracles.ref_end(q, t, sc, mode)


def pair_choice(p: Pair, case: Case):
    """(strand, query as aligned, tie rules' alignment, end cell) of a pair."""
    sc = case.scoring
    fwd = pair_truth(p.q, p.t, sc, case.mode)
    if case.value("--strand") != "both":
        return "+", p.q, *fwd
    rc = revcomp(p.q)
    rev = pair_truth(rc, p.t, sc, case.mode)
    if rev[0][0] > fwd[0][0]:  # the reverse strand only when strictly better
        return "-", rc, *rev
    return "+", p.q, *fwd


def _check(cond: bool, where: str, what: str):
    if not cond:
        raise GoldenError(f"{where}: {what}")


def _check_alignment(where, q, t, sc, got, ref):
    """Rescore the reported alignment, then require the tie rules' one."""
    score, qs, qe, ts, te, cigar = got
    try:
        rescored = oracles.rescore(q, t, qs, qe, ts, te, cigar, sc)
    except oracles.CigarError as err:
        raise GoldenError(f"{where}: {err}") from None
    _check(rescored == score, where, f"CIGAR {cigar} rescores to {rescored}, reported {score}")
    _check(tuple(got) == tuple(ref), where, f"alignment {got}, the tie rules give {ref}")


def _nm(cigar: str) -> int:
    _, x, i, d = oracles.cigar_counts(cigar)
    return x + i + d


def _md(cigar: str, t: str, ts: int) -> str:
    """SAM's MD of a =/X/I/D CIGAR placed at target position ``ts``."""
    out, count, j = [], 0, ts
    for ln, op in oracles.parse_cigar(cigar):
        if op == "=":
            count += ln
            j += ln
        elif op == "X":
            for k in range(ln):
                out.append(f"{count}{t[j + k]}")
                count = 0
            j += ln
        elif op == "D":
            out.append(f"{count}^{t[j:j + ln]}")
            count = 0
            j += ln
    return "".join(out) + str(count)


def _rows(text: str, where: str, header: str | None):
    lines = text.split("\n")
    _check(lines[-1] == "", where, "the output does not end with a newline")
    lines = lines[:-1]
    if header is not None:
        _check(lines[:1] == [header], where, f"header {lines[:1]}, expected {header!r}")
        lines = lines[1:]
    return [line.split("\t") for line in lines]


PAIR_TSV = "#qname\tqlen\tqstart\tqend\ttname\ttlen\ttstart\ttend\tscore\tcigar\tnm"


def _free_starts(mode: str) -> tuple[bool, bool]:
    """Whether the query start and the target start are free (not computed by --score-only)."""
    return {"global": (False, False), "glocal": (False, True)}.get(mode, (True, True))


def verify_pair_tsv(case, text, pairs):
    both = case.value("--strand") == "both"
    rows = _rows(text, case.name, PAIR_TSV + ("\tstrand" if both else ""))
    _check(len(rows) == len(pairs), case.name, f"{len(rows)} rows for {len(pairs)} pairs")
    for k, (row, p) in enumerate(zip(rows, pairs)):
        where = f"{case.name} row {k + 1} ({p.qname})"
        strand, q, ref, end = pair_choice(p, case)
        _check(len(row) == 11 + both, where, f"{len(row)} columns")
        _check(row[0] == p.qname and row[4] == p.tname, where, "names")
        _check((int(row[1]), int(row[5])) == (len(p.q), len(p.t)), where, "lengths")
        if both:
            _check(row[11] == strand, where, f"strand {row[11]}, the better strand is {strand}")
        if case.flag("--score-only"):
            fq, ft = _free_starts(case.mode)
            starts = ("*" if fq else "0", "*" if ft else "0")
            _check((row[2], row[6]) == starts, where, f"starts {row[2]}, {row[6]}, expected {starts}")
            _check((int(row[8]), int(row[3]), int(row[7])) == end, where, f"score and ends, expected {end}")
            _check(row[9:11] == ["*", "*"], where, "CIGAR and nm are not computed")
            continue
        got = (int(row[8]), int(row[2]), int(row[3]), int(row[6]), int(row[7]), row[9])
        _check_alignment(where, q, p.t, case.scoring, got, ref)
        _check(int(row[10]) == _nm(row[9]) if row[9] != "*" else row[10] == "0", where, "nm")


def verify_pair_paf(case, text, pairs):
    rows = _rows(text, case.name, None)
    _check(len(rows) == len(pairs), case.name, f"{len(rows)} lines for {len(pairs)} pairs")
    for k, (row, p) in enumerate(zip(rows, pairs)):
        where = f"{case.name} line {k + 1} ({p.qname})"
        strand, q, ref, _ = pair_choice(p, case)
        score, qs, qe, ts, te, cigar = ref
        _check(len(row) == 15, where, f"{len(row)} columns")
        _check(row[0] == p.qname and row[5] == p.tname, where, "names")
        _check((int(row[1]), int(row[6])) == (len(p.q), len(p.t)), where, "lengths")
        if cigar == "*":
            want_strand, span = "*", (0, 0, 0, 0)
        else:
            # a reverse-strand span is counted on the query as read
            want_strand, span = strand, ((qs, qe) if strand == "+" else (len(q) - qe, len(q) - qs)) + (ts, te)
        _check(row[4] == want_strand, where, f"strand {row[4]}, expected {want_strand}")
        got_span = (int(row[2]), int(row[3]), int(row[7]), int(row[8]))
        _check(got_span == span, where, f"spans {got_span}, expected {span}")
        _check(row[12] == f"cg:Z:{cigar}" and row[13] == f"AS:i:{score}", where, f"cg/AS, expected {ref}")
        _check(oracles.rescore(q, p.t, qs, qe, ts, te, row[12][5:], case.scoring) == score if cigar != "*"
               else score == 0, where, "cg:Z rescores to AS")
        eq, x, i, d = oracles.cigar_counts(cigar)
        _check((int(row[9]), int(row[10]), row[11]) == (eq, eq + x + i + d, "255"), where,
               "residue matches, block length, mapping quality")
        _check(row[14] == f"NM:i:{x + i + d}", where, "NM")


def _sam_header(case, header_lines, pairs, where):
    want = ["@HD\tVN:1.6\tSO:unsorted"]
    seen = set()
    for p in pairs:
        if p.t and p.tname not in seen:
            seen.add(p.tname)
            want.append(f"@SQ\tSN:{p.tname}\tLN:{len(p.t)}")
    rg = case.value("-R")
    if rg is not None:
        want.append(rg.replace("\\t", "\t"))
    cl = " ".join(["seqalign"] + [shlex.quote(a) for a in case.argv("cpu")])
    _check(len(header_lines) == len(want) + 1, where, f"{len(header_lines)} header lines, expected {len(want) + 1}")
    _check(header_lines[:-1] == want, where, f"header {header_lines[:-1]}, expected {want}")
    pg = header_lines[-1]
    _check(re.fullmatch(r"@PG\tPN:seqalign\tID:seqalign\tVN:[^\t]+\tCL:(.*)", pg) is not None, where, f"{pg!r}")
    _check(pg.split("\tCL:", 1)[1] == cl, where, f"@PG CL is not the command line {cl!r}")


def verify_pair_sam(case, text, pairs):
    lines = text.split("\n")
    _check(lines[-1] == "", case.name, "no final newline")
    header = [line for line in lines[:-1] if line.startswith("@")]
    records = [line.split("\t") for line in lines[len(header):-1]]
    _sam_header(case, header, pairs, case.name)
    _check(len(records) == len(pairs), case.name, f"{len(records)} records for {len(pairs)} pairs")
    rg = case.value("-R")
    for k, (rec, p) in enumerate(zip(records, pairs)):
        where = f"{case.name} record {k + 1} ({p.qname})"
        strand, q, ref, _ = pair_choice(p, case)
        score, qs, qe, ts, te, cigar = ref
        _check(rec[0] == p.qname, where, "QNAME")
        tags = [f"AS:i:{score}"]
        if cigar == "*":
            # unmapped: the read as given, flag 4
            _check(rec[1:9] == ["4", "*", "0", "0", "*", "*", "0", "0"], where, f"unmapped fields {rec[1:9]}")
            seq, qual = p.q, p.qual
        else:
            flag = "16" if strand == "-" else "0"
            clips = (f"{qs}S" if qs else "") + cigar + (f"{len(q) - qe}S" if qe < len(q) else "")
            want = [flag, p.tname, str(ts + 1), "255", clips, "*", "0", "0"]
            _check(rec[1:9] == want, where, f"fields {rec[1:9]}, expected {want}")
            _check(oracles.rescore(rec[9], p.t, qs, qe, ts, te, cigar, case.scoring) == score, where,
                   "CIGAR rescored over SEQ")
            seq = q
            qual = p.qual[::-1] if p.qual is not None and strand == "-" else p.qual
            tags += [f"NM:i:{_nm(cigar)}", f"MD:Z:{_md(cigar, p.t, ts)}"]
        _check(rec[9] == seq and rec[10] == (qual or "*"), where, "SEQ/QUAL")
        if rg is not None:
            tags.append("RG:Z:" + rg.split("ID:", 1)[1].split("\\t")[0])
        _check(rec[11:] == tags, where, f"tags {rec[11:]}, expected {tags}")


# ---------------------------------------------------------------- BLAST tabular and searches


def _int(where: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GoldenError(f"{where}: {text!r} is not a number") from None


def karlin_altschul(case: Case):
    """NCBI's (lambda, K) of the case's matrix and gap costs, or None where none are published (and in every
    mode but local)."""
    if case.mode != "local" or not case.protein:
        return None
    sc = case.scoring
    return KARLIN_ALTSCHUL.get((sc.matrix.name, sc.gap_open, sc.gap_extend))


def evalue(ka, score: int, m: int, n: int) -> float:
    """Karlin-Altschul's E = K m n exp(-lambda S), no length correction (the README's)."""
    lam, k = ka
    return k * m * n * math.exp(-lam * score)


def blast_evalue(e: float) -> str:
    """An E-value as BLAST's tabular output prints it (the NCBI C++ toolkit's
    CAlignFormatUtil::GetScoreString, spaces trimmed)."""
    if e < 1.0e-180:
        return "0.0"
    fmt = ("%2.0e" if e < 1.0e-99 else "%3.0e" if e < 0.0009 else "%4.3f" if e < 0.1 else "%3.2f" if e < 1.0
           else "%2.1f" if e < 10.0 else "%2.0f")
    return (fmt % e).strip()


def blast_bits(b: float) -> str:
    """A bit score as BLAST prints it: whole bits, truncated, past 99.9 (the same function)."""
    if b > 99999:
        return "%5.3e" % b
    if b > 99.9:
        return str(int(b))
    return ("%4.1f" % b).strip()


def blast_stats(case: Case, score: int, m: int, n: int) -> list[str]:
    """BLAST's evalue and bitscore columns of a score over a search space of m x n letters ('*' without
    published parameters)."""
    ka = karlin_altschul(case)
    if ka is None:
        return ["*", "*"]
    lam, k = ka
    return [blast_evalue(evalue(ka, score, m, n)), blast_bits((lam * score - math.log(k)) / math.log(2))]


def blast_columns(ref) -> list[str]:
    """BLAST's pident length mismatch gapopen qstart qend sstart send of an alignment
    (score, qstart, qend, tstart, tend, cigar), recounted from its CIGAR."""
    _, qs, qe, ts, te, cigar = ref
    runs = oracles.parse_cigar(cigar)
    eq, x, _, _ = oracles.cigar_counts(cigar)
    length = sum(n for n, _ in runs)
    gapopen = sum(1 for _, op in runs if op in "ID")
    return [f"{100 * eq / length:.3f}", str(length), str(x), str(gapopen), str(qs + 1), str(qe), str(ts + 1),
            str(te)]


def paf_columns(qname: str, q: str, tname: str, t: str, ref) -> list[str]:
    """A forward-strand PAF line of an alignment: the 12 columns, cg:Z, AS:i, NM:i."""
    score, qs, qe, ts, te, cigar = ref
    eq, x, i, d = oracles.cigar_counts(cigar)
    return [qname, str(len(q)), str(qs), str(qe), "+", tname, str(len(t)), str(ts), str(te), str(eq),
            str(eq + x + i + d), "255", f"cg:Z:{cigar}", f"AS:i:{score}", f"NM:i:{x + i + d}"]


def verify_pair_blast6(case, text, pairs):
    """One row a pair with an alignment (an empty one writes none), BLAST's 12 columns."""
    rows = _rows(text, case.name, None)
    want = []
    for p in pairs:
        ref = pair_choice(p, case)[2]
        if ref[5] != "*":
            want.append((p, ref))
    _check(len(rows) == len(want), case.name, f"{len(rows)} rows for {len(want)} pairs with an alignment")
    for k, (row, (p, ref)) in enumerate(zip(rows, want)):
        where = f"{case.name} line {k + 1} ({p.qname})"
        _check(len(row) == 12 and row[:2] == [p.qname, p.tname], where, f"names {row[:2]}, columns {len(row)}")
        expect = [p.qname, p.tname, *blast_columns(ref), *blast_stats(case, ref[0], len(p.q), len(p.t))]
        _check(row == expect, where, f"{row[2:]}, the tie rules' alignment {ref} gives {expect[2:]}")


def load_search(case: Case, folder: Path):
    """([(name, seq)] of the queries, [(name, seq)] of the database)."""
    return tuple([(n, s) for n, s, _ in read_records(folder / f)] for f in case.inputs)


def search_truth(case: Case, queries, db):
    """[(qname, query, hits)], hits [(rank, tname, target, alignment)]: every record scored by parasail and
    Biopython, the non-empty ones best first then in database order, cut by --min-score, --evalue and --top;
    each kept hit's alignment the tie rules' Gotoh walk (``align_truth``)."""
    sc, mode = case.scoring, case.mode
    top = int(case.value("--top") or SEARCH_TOP)
    floor = None if case.value("--min-score") is None else int(case.value("--min-score"))
    cut = None if case.value("--evalue") is None else float(case.value("--evalue"))
    ka = karlin_altschul(case)
    _check(cut is None or ka is not None, case.name, "--evalue without published parameters")
    residues = sum(len(t) for _, t in db)
    out = []
    for qname, q in queries:
        ranked = []
        for k, (tname, t) in enumerate(db):
            _check(bool(q and t), case.name, f"an empty record ({qname}, {tname}): keep them out of the inputs")
            score = peer_score(q, t, sc, mode)
            if mode in ("local", "semi-global") and score == 0:
                continue  # the empty alignment (the tie rule picks it at 0): no hit
            if floor is not None and score < floor:
                continue
            if cut is not None:
                e = evalue(ka, score, len(q), residues)
                _check(abs(e - cut) > 1e-6 * cut, case.name,
                       f"E-value {e} of {qname} x {tname} too close to the cut {cut} to call: change the cut")
                if e > cut:
                    continue
            ranked.append((-score, k))
        hits = []
        for rank, (neg, k) in enumerate(sorted(ranked)[:top], 1):
            tname, t = db[k]
            ref = align_truth(q, t, sc, mode)
            _check(ref[0] == -neg, case.name, f"{qname} x {tname}: Gotoh {ref[0]}, parasail {-neg}")
            hits.append((rank, tname, t, ref))
        out.append((qname, q, hits))
    return out


SEARCH_TSV = "#" + "\t".join(("qname", "tname", "pident", "length", "mismatch", "gapopen", "qstart", "qend",
                              "tstart", "tend", "evalue", "bitscore", "rank", "score", "cigar"))


def _search_hits(case, recs):
    """[(qname, query, hit or None for a query without hits)] in output order, and the database's residues."""
    queries, db = recs
    out = []
    for qname, q, hits in search_truth(case, queries, db):
        out += [(qname, q, hit) for hit in hits] or [(qname, q, None)]
    return out, sum(len(t) for _, t in db)


def _reported(where, fields, base: int):
    """(score, qstart, qend, tstart, tend, cigar) of printed fields (score, qstart, qend, tstart, tend, cigar),
    the starts made 0-based (``base``: 1 for BLAST's 1-based starts, 0 for PAF's)."""
    score, qs, qe, ts, te, cigar = fields
    return (_int(where, score), _int(where, qs) - base, _int(where, qe), _int(where, ts) - base, _int(where, te),
            cigar)


def verify_search_tsv(case, text, recs):
    rows = _rows(text, case.name, SEARCH_TSV)
    want, residues = _search_hits(case, recs)
    _check(len(rows) == len(want), case.name, f"{len(rows)} rows, the ranking gives {len(want)}")
    for k, (row, (qname, q, hit)) in enumerate(zip(rows, want)):
        where = f"{case.name} row {k + 1} ({qname})"
        _check(len(row) == 15 and row[0] == qname, where, f"query {row[0]}, {len(row)} columns")
        if hit is None:
            _check(row[1:] == ["*"] * 14, where, f"{row[1:3]}...: a query without hits is a row of '*'")
            continue
        rank, tname, t, ref = hit
        _check(row[1] == tname and row[12] == str(rank), where,
               f"hit {row[12]} {row[1]}, the ranking gives {rank} {tname} (score {ref[0]})")
        got = _reported(where, (row[13], row[6], row[7], row[8], row[9], row[14]), 1)
        _check_alignment(where, q, t, case.scoring, got, ref)  # the CIGAR rescored, then the tie rules' walk
        expect = [qname, tname, *blast_columns(ref), *blast_stats(case, ref[0], len(q), residues), str(rank),
                  str(ref[0]), ref[5]]
        _check(row == expect, where, f"{row[2:12]}, expected {expect[2:12]}")


def _hit_lines(case, text, recs):
    """(lines, hits, database residues) of a search's BLAST tabular or PAF output: a line a hit, in the ranking's
    order (a query without hits writes nothing)."""
    rows = _rows(text, case.name, None)
    want, residues = _search_hits(case, recs)
    want = [w for w in want if w[2] is not None]
    _check(len(rows) == len(want), case.name, f"{len(rows)} lines, the ranking gives {len(want)}")
    return rows, want, residues


def verify_search_blast6(case, text, recs):
    rows, want, residues = _hit_lines(case, text, recs)
    for k, (row, (qname, q, (rank, tname, t, ref))) in enumerate(zip(rows, want)):
        where = f"{case.name} line {k + 1} ({qname})"
        _check(len(row) == 12 and row[:2] == [qname, tname], where,
               f"hit {row[:2]}, the ranking gives {tname} at rank {rank} (score {ref[0]})")
        expect = [qname, tname, *blast_columns(ref), *blast_stats(case, ref[0], len(q), residues)]
        _check(row == expect, where, f"{row[2:]}, the tie rules' alignment {ref} gives {expect[2:]}")


def verify_search_paf(case, text, recs):
    rows, want, _ = _hit_lines(case, text, recs)
    for k, (row, (qname, q, (rank, tname, t, ref))) in enumerate(zip(rows, want)):
        where = f"{case.name} line {k + 1} ({qname})"
        _check(len(row) == 15 and row[0] == qname and row[5] == tname, where,
               f"hit {row[0]} {row[5:6]}, the ranking gives {tname} at rank {rank} (score {ref[0]})")
        _check(row[12].startswith("cg:Z:") and row[13].startswith("AS:i:"), where, "cg:Z and AS:i")
        got = _reported(where, (row[13][5:], row[2], row[3], row[7], row[8], row[12][5:]), 0)
        _check_alignment(where, q, t, case.scoring, got, ref)  # cg:Z rescored to AS:i, then the tie rules' walk
        expect = paf_columns(qname, q, tname, t, ref)
        _check(row == expect, where, f"{row}, expected {expect}")


# ---------------------------------------------------------------- triplets


@functools.lru_cache(maxsize=None)
def sars_expected() -> dict:
    """(name1, name2, name3, mode) -> score of tests/data/triplet/sars.expected.tsv (default scoring)."""
    out = {}
    for line in (TESTS / "data" / "triplet" / "sars.expected.tsv").read_text().splitlines()[1:]:
        _, n1, n2, n3, mode, score = line.split("\t")
        out[n1, n2, n3, mode] = int(score)
    return out


@functools.lru_cache(maxsize=None)
def triplet_truth(a: str, b: str, c: str, names: tuple, sc: Scoring, mode: str):
    """(score, begins, ends, columns or None): the tie rules' alignment where the 3-D DP runs, and the
    score of the numpy DP of sars.expected.tsv where it has one; the two must agree."""
    score = sars_expected().get((*names, mode)) if sc == DEFAULTS["triplet"] else None
    if max(len(a), len(b), len(c)) <= TRIPLET_DP_MAX:
        fn = triplet_oracles.ref_align_affine if sc.gap_open else triplet_oracles.ref_align
        ref = fn(a, b, c, sc, mode)
        if score is not None and ref[0] != score:
            raise GoldenError(f"oracles disagree on {names} {mode}: 3-D DP {ref[0]}, sars.expected.tsv {score}")
        return int(ref[0]), tuple(ref[1]), tuple(ref[2]), ref[3]
    if score is None:
        raise GoldenError(f"no oracle for triplet {names} ({mode}, {sc}): keep such triplets out of the cases")
    return score, None, None, None


def load_triplets(case: Case, folder: Path):
    """[(names, seqs)] of the case's triplets."""
    if case.flag("--interleaved"):
        recs = read_records(folder / case.inputs[0])
        groups = [recs[k:k + 3] for k in range(0, len(recs), 3)]
    else:
        groups = list(zip(*(read_records(folder / f) for f in case.inputs), strict=True))
    return [(tuple(r[0] for r in g), tuple(r[1] for r in g)) for g in groups]


TRIPLET_TSV = "#name1\tname2\tname3\tlen1\tlen2\tlen3\tscore\tbeg1\tend1\tbeg2\tend2\tbeg3\tend3\tcolumns"


def _triplet_rescore(where, seqs, begins, ends, columns, sc):
    try:
        return triplet_oracles.rescore(*seqs, begins, ends, columns, sc)
    except AssertionError as err:
        raise GoldenError(f"{where}: {err}") from None


def _check_triplet(where, seqs, names, case, got):
    """got: (score, begins, ends, columns)."""
    truth = triplet_truth(*seqs, names, case.scoring, case.mode)
    score, begins, ends, columns = got
    _check(score == truth[0], where, f"score {score}, the oracle gives {truth[0]}")
    rescored = 0 if columns == "*" else _triplet_rescore(where, seqs, begins, ends, columns, case.scoring)
    _check(rescored == score, where, f"columns {columns} rescore to {rescored}, reported {score}")
    if columns == "*":
        _check(begins == ends == (0, 0, 0), where, "an empty alignment has empty spans")
    if truth[3] is not None:
        _check((begins, ends, columns) == truth[1:], where, f"alignment {got}, the tie rules give {truth}")


def verify_triplet_tsv(case, text, triplets):
    rows = _rows(text, case.name, TRIPLET_TSV)
    _check(len(rows) == len(triplets), case.name, f"{len(rows)} rows for {len(triplets)} triplets")
    for k, (row, (names, seqs)) in enumerate(zip(rows, triplets)):
        where = f"{case.name} row {k + 1} ({names[0]})"
        _check(len(row) == 14 and tuple(row[:3]) == names, where, "names")
        _check(tuple(int(x) for x in row[3:6]) == tuple(len(s) for s in seqs), where, "lengths")
        score = int(row[6])
        if case.flag("--score-only"):
            truth = triplet_truth(*seqs, names, case.scoring, case.mode)
            start = "0" if case.mode == "global" else "*"
            _check(score == truth[0], where, f"score {score}, the oracle gives {truth[0]}")
            _check([row[7], row[9], row[11], row[13]] == [start] * 3 + ["*"], where, "starts and columns")
            if truth[2] is not None:
                _check(tuple(int(row[x]) for x in (8, 10, 12)) == truth[2], where, f"ends, expected {truth[2]}")
            continue
        begins = tuple(int(row[x]) for x in (7, 9, 11))
        ends = tuple(int(row[x]) for x in (8, 10, 12))
        _check_triplet(where, seqs, names, case, (score, begins, ends, row[13]))


def verify_triplet_maf(case, text, triplets):
    blocks = text.split("\n\n")
    _check(blocks[0] == "##maf version=1 scoring=sum-of-pairs", case.name, f"header {blocks[0]!r}")
    _check(blocks[-1] == "", case.name, "the file ends with a blank line")
    blocks = blocks[1:-1]
    _check(len(blocks) == len(triplets), case.name, f"{len(blocks)} blocks for {len(triplets)} triplets")
    for k, (block, (names, seqs)) in enumerate(zip(blocks, triplets)):
        where = f"{case.name} block {k + 1} ({names[0]})"
        lines = block.split("\n")
        _check(re.fullmatch(r"a score=-?\d+", lines[0]) is not None, where, f"{lines[0]!r}")
        score = int(lines[0][8:])
        rows = {}
        for line in lines[1:]:
            f = line.split(" ")
            _check(len(f) == 7 and f[0] == "s" and f[4] == "+" and f[1] in names, where, f"{line!r}")
            x = names.index(f[1])
            start, size, src = int(f[2]), int(f[3]), int(f[5])
            _check(src == len(seqs[x]) and f[6].replace("-", "") == seqs[x][start:start + size], where,
                   f"the s line of {f[1]} does not spell its sequence")
            rows[x] = (start, size, f[6])
        widths = {len(r[2]) for r in rows.values()}
        _check(len(widths) <= 1, where, "gapped texts of different lengths")
        width = widths.pop() if widths else 0
        kinds = []
        for col in range(width):
            step = tuple(int(x in rows and rows[x][2][col] != "-") for x in range(3))
            _check(step in triplet_oracles.STEPS, where, f"column {col + 1} holds no residue")
            kinds.append(triplet_oracles.KINDS[triplet_oracles.STEPS.index(step)])
        columns = triplet_oracles.runs(kinds)
        # a sequence without an s line has no residue in the alignment: its span is empty at 0
        begins = tuple(rows[x][0] if x in rows else 0 for x in range(3))
        ends = tuple(rows[x][0] + rows[x][1] if x in rows else 0 for x in range(3))
        _check(all(rows[x][1] > 0 for x in rows), where, "an s line without residues")
        if columns == "*":
            begins = ends = (0, 0, 0)
        _check_triplet(where, seqs, names, case, (score, begins, ends, columns))


# ---------------------------------------------------------------- graphs


@functools.lru_cache(maxsize=None)
def oriented(text: str, forward_only: bool):
    g = graph_oracles.orient(text, forward_only)
    return g, graph_oracles.enumerate_paths(g)


@functools.lru_cache(maxsize=None)
def graph_truth(read: str, text: str, forward_only: bool, sc: Scoring, mode: str):
    """The tie rules' record (graph_oracles.ref_align), its score checked against parasail's best over every
    source-to-sink walk (global: pair global; glocal: pair glocal, or the read all inserted; local: pair
    local)."""
    g, walks = oriented(text, forward_only)
    ref = graph_oracles.ref_align(read, g, sc, mode)
    best = max(oracles.parasail_score(read, spelled, sc, mode) for _, spelled in walks)
    if mode == "glocal":
        best = max(best, -(sc.gap_open + len(read) * sc.gap_extend))
    if best != ref.score:
        raise GoldenError(f"oracles disagree: parasail over walks {best}, graph DP {ref.score} ({mode})")
    return ref


def load_graph(case: Case, folder: Path):
    text = read_text(folder / case.inputs[0])
    reads = [(n, s) for n, s, _ in read_records(folder / case.inputs[1])]
    return text, reads


GRAPH_TSV = "#read\tlength\tstart\tend\tscore\tpath\tpath_start\tpath_end\tcigar"


def _check_graph(where, case, text, read, got):
    """got: a GraphRecord-like (score, qstart, qend, path node ids, pstart, pend, cigar)."""
    fwd = case.flag("--forward-only")
    g, _ = oriented(text, fwd)
    truth = graph_truth(read, text, fwd, case.scoring, case.mode)
    try:
        graph_oracles.check_alignment(read, g, got, case.scoring, case.mode)
    except AssertionError as err:
        raise GoldenError(f"{where}: {err}") from None
    _check(tuple(got) == tuple(truth[:7]), where, f"record {got}, the tie rules give {truth[:7]}")


def verify_graph_tsv(case, text_out, graph):
    text, reads = graph
    fwd = case.flag("--forward-only")
    g, _ = oriented(text, fwd)
    score_only = case.flag("--score-only")
    rows = _rows(text_out, case.name, "\t".join(GRAPH_TSV.split("\t")[:5]) if score_only else GRAPH_TSV)
    _check(len(rows) == len(reads), case.name, f"{len(rows)} rows for {len(reads)} reads")
    for k, (row, (name, read)) in enumerate(zip(rows, reads)):
        where = f"{case.name} row {k + 1} ({name})"
        _check(row[0] == name and int(row[1]) == len(read), where, "name and length")
        truth = graph_truth(read, text, fwd, case.scoring, case.mode)
        if score_only:
            start = "*" if case.mode == "local" else "0"
            want = [start, str(truth.qend if truth.path else (0 if case.mode == "local" else len(read))),
                    str(truth.score)]
            _check(len(row) == 5 and row[2:] == want, where, f"{row[2:]}, expected {want}")
            continue
        _check(len(row) == 9, where, f"{len(row)} columns")
        path = g.parse_path(row[5])
        got = graph_oracles.GraphRecord(int(row[4]), int(row[2]), int(row[3]), path, int(row[6]), int(row[7]),
                                        "" if row[8] == "*" else row[8], None)
        _check_graph(where, case, text, read, got[:7])


def verify_graph_gaf(case, text_out, graph):
    text, reads = graph
    fwd = case.flag("--forward-only")
    g, _ = oriented(text, fwd)
    seg_len = dict(zip(g.names, (len(s) for s in g.seqs)))
    rows = _rows(text_out, case.name, None)
    _check(len(rows) == len(reads), case.name, f"{len(rows)} lines for {len(reads)} reads")
    for k, (row, (name, read)) in enumerate(zip(rows, reads)):
        where = f"{case.name} line {k + 1} ({name})"
        try:
            rec = parse_line("\t".join(row), k + 1)
        except ValueError as err:
            raise GoldenError(f"{where}: {err}") from None
        _check(rec.qname == name and rec.qlen == len(read), where, "name and length")
        score = rec.tags["AS"][1]
        if not rec.aligned:
            truth = graph_truth(read, text, fwd, case.scoring, case.mode)
            _check(not truth.path and truth.score == score and rec.mapq == 0, where, f"unaligned, expected {truth}")
            continue
        try:
            c = check_cigar(rec, seg_len)
        except AssertionError as err:
            raise GoldenError(f"{where}: {err}") from None
        _check(rec.strand == "+" and rec.mapq == 255, where, "strand and mapping quality")
        _check(list(rec.tags) == ["AS", "NM", "cg"], where, f"tags {list(rec.tags)}")
        _check(rec.matches == c["="], where, "residue matches")
        got = (score, rec.qstart, rec.qend, g.parse_path(rec.path), rec.pstart, rec.pend, rec.tags["cg"][1])
        _check_graph(where, case, text, read, got)


# ---------------------------------------------------------------- verification


def _verify_bam(case, data: bytes, text: bytes, pairs):
    _check(bam_text(data) == text, case.name, f"htslib's decoding differs from {case.name}.sam")
    verify_pair_sam(case, text.decode(), pairs)


VERIFY = {
    ("pair", "tsv"): verify_pair_tsv, ("pair", "paf"): verify_pair_paf, ("pair", "sam"): verify_pair_sam,
    ("pair", "blast6"): verify_pair_blast6,
    ("triplet", "tsv"): verify_triplet_tsv, ("triplet", "maf"): verify_triplet_maf,
    ("graph", "tsv"): verify_graph_tsv, ("graph", "gaf"): verify_graph_gaf,
    ("search", "tsv"): verify_search_tsv, ("search", "blast6"): verify_search_blast6,
    ("search", "paf"): verify_search_paf,
}
LOADERS = {"pair": load_pairs, "triplet": load_triplets, "graph": load_graph, "search": load_search}


def verify(case: Case, files: dict[str, bytes], folder: Path = INPUTS):
    """GoldenError unless the case's golden files (file name -> bytes) verify against the inputs in folder."""
    records = LOADERS[case.family](case, folder)
    if case.fmt == "bam":
        _verify_bam(case, files[case.name], files[case.name + ".sam"], records)
    else:
        VERIFY[case.family, case.fmt](case, files[case.name].decode(), records)


def verify_all(files: dict[str, bytes] | None = None, folder: Path = INPUTS) -> list[str]:
    """Verify every case (the committed files when ``files`` is None); returns the problems found."""
    problems = []
    for case in CASES:
        try:
            got = files if files is not None else {p.name: p.read_bytes() for p in expected_files(case)}
            verify(case, got, folder)
        except (AssertionError, ValueError, OSError) as err:  # GoldenError, and the oracles' own assertions
            problems.append(f"{case.name}: {err}" if case.name not in str(err) else str(err))
    return problems


# ---------------------------------------------------------------- inputs from the public data

EX1_READS = (  # (QNAME, FLAG) of ex1.sam.gz: mismatches, both strands, insertions, N
    ("EAS192_3:6:170:169:57", 163), ("EAS54_61:4:143:69:578", 147), ("EAS114_32:5:78:583:499", 83),
    ("EAS218_4:1:48:9:409", 99), ("EAS139_11:2:71:83:58", 163), ("EAS56_59:6:199:327:965", 163),
    ("B7_610:8:95:426:791", 147), ("EAS139_19:5:89:525:113", 163),
)
GASAL2_PAIRS = 4
SARS_TRIPLETS = (23, 39, 48, 50, 55, 56)
SARS_SHORT = (22, 24, 55)
#: the offset triplet 55 of the short set is cut to the first bases of each sequence (gaps at the start)
SARS_CUT = {55: 18}
GRAPHS = ("graphaligner", "155227783-155227803", "113968116-113968146")
GRAPH_READS = ("graphaligner", "155227783-155227803", "113968116-113968146")
#: pairs of tests/data/protein/pairs.{query,target}.fa (their pair= number): fn3 domains, globins, paralogs
#: (ending in '*'), unrelated proteins
PROTEIN_PAIRS = (1, 96, 18, 37, 189, 40)
#: search queries: (file of tests/data/protein, name, 0-based half-open span kept or None for all)
SEARCH_QUERIES = (
    ("pairs.query.fa", "HBB_LARRI", (0, 80)),
    ("pairs.query.fa", "TENA_CHICK/1046-1124", None),
    ("queries.fa", "gi|122087146|sp|P02232.2|LGB1_VICFA", (0, 80)),
    ("queries.fa", "gi|84028206|sp|P20930.3|FILA_HUMAN", (200, 230)),  # no hit scores 50 (--min-score)
)
#: search database: these records of tests/data/protein/db.fa.gz in its order, globins cut to their first
#: 80 residues (SEARCH_GLOBIN_CUT); a copy of SEARCH_COPY first (equal scores: database order)
SEARCH_DB = (
    "938293.PRJEB85.HG003687_165", "938293.PRJEB85.HG003691_30", "TIE2_HUMAN/640-724", "MYG_HORSE",
    "TENA_CHICK/1228-1306", "HBB1_VAREX", "tr|K2GRD5|K2GRD5_ENTNP", "tr|A0A0U0U8T3|A0A0U0U8T3_MYCTX", "HBAD_CHLME",
    "HBA_MESAU", "HBB_TRIIN", "MPSF_CHICK/601-684", "LAR_DROME/516-598", "HBB_TACAC", "ITB4_HUMAN/1221-1310",
    "TENA_HUMAN/1257-1335", "sp|Q6GZP9|076R_FRG3G", "PTPRB_HUMAN/1262-1344", "FINC_BOVIN/1635-1713",
    "MYPC2_CHICK/632-717", "sp|Q91G70|026R_IIV6", "tr|Q2M0P2|Q2M0P2_DROPS", "EPHB2_CHICK/438-521", "MYG_SAISC",
    "FINC_RAT/1267-1346", "HBB_MANSP", "TIE1_HUMAN/547-632", "sp|Q6GZU6|030R_FRG3G", "TENA_CHICK/775-853",
    "HBB_EQUHE", "TENA_CHICK/957-1033", "sp|P59726|PQQA_KLUIN", "sp|P84927|DMS7_PHYTS", "tr|Q6WXX3|Q6WXX3_9MOLU",
    "sp|B0M3A8|FAR5_STRNA", "tr|Q38L33|Q38L33_STREQ", "sp|Q86QV4|KGX48_CENEL", "sp|P86485|CR21_LITPE",
)
SEARCH_GLOBIN_CUT = 80
SEARCH_COPY = "HBB_TACAC"


def _fasta_records(path: Path):
    """[(header line without '>', sequence)] of a FASTA file (plain or gzip), headers kept whole."""
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
    out = []
    for line in text.splitlines():
        if line.startswith(">"):
            out.append([line[1:], ""])
        elif out:
            out[-1][1] += line.strip()
    return [tuple(r) for r in out]


def _fasta(recs) -> str:
    return "".join(f">{h}\n{s}\n" for h, s in recs)


def _cut(rec, keep: int | None):
    """A sars record cut to its first ``keep`` bases, its name's 1-based inclusive span made to match."""
    head, seq = rec
    if keep is None:
        return rec
    name, rest = head.split(" ", 1)
    genome, span = name.split(":")
    beg = int(span.split("-")[0])
    return f"{genome}:{beg}-{beg + keep - 1} {rest} first {keep} bases", seq[:keep]


def _span(rec, span):
    """A protein record cut to ``span`` (0-based half-open), its name given the 1-based span as name/beg-end."""
    if span is None:
        return rec
    head, seq = rec
    name, _, rest = head.partition(" ")
    beg, end = span
    return f"{name}/{beg + 1}-{end} {rest}".rstrip(), seq[beg:end]


def protein_inputs() -> dict[str, str]:
    """inputs/protein.{q,t}.fa, search.q.fa and search.db.fa, from tests/data/protein."""
    data = TESTS / "data" / "protein"
    out = {}
    for side, src in (("q", "pairs.query.fa"), ("t", "pairs.target.fa")):
        recs = _fasta_records(data / src)
        out[f"protein.{side}.fa"] = _fasta(recs[k] for k in PROTEIN_PAIRS)
    files = {}
    queries = []
    for src, name, span in SEARCH_QUERIES:
        recs = files.setdefault(src, {h.split()[0]: (h, s) for h, s in _fasta_records(data / src)})
        queries.append(_span(recs[name], span))
    out["search.q.fa"] = _fasta(queries)
    db = []
    for head, seq in _fasta_records(data / "db.fa.gz"):
        name = head.split()[0]
        if name in SEARCH_DB:
            globin = name.startswith(("HB", "MYG_"))
            db.append(_span((head, seq), (0, SEARCH_GLOBIN_CUT) if globin else None))
    assert [h.split()[0].split("/")[0] if h.startswith(("HB", "MYG_")) else h.split()[0] for h, _ in db] == \
        list(SEARCH_DB), "SEARCH_DB is not in the database's order"
    head, seq = db[SEARCH_DB.index(SEARCH_COPY)]
    name = head.split()[0]
    copy = (f"{name}_copy the record {name} below, copied (ties: database order)", seq)
    out["search.db.fa"] = _fasta([copy] + db)
    return out


def make_inputs(shared: Path = SHARED) -> dict[str, bytes]:
    """Every file of inputs/, cut from the public data (see README.md: provenance)."""
    out = {}
    gasal2 = shared / "pairwise" / "gasal2"
    for side, src in (("q", "query_batch.fasta.gz"), ("t", "target_batch.fasta.gz")):
        out[f"gasal2.{side}.fa"] = _fasta(_fasta_records(gasal2 / src)[:GASAL2_PAIRS])
    pysam_data = shared / "genomes" / "pysam" / "tests" / "pysam_data"
    out["ex1.fa"] = (pysam_data / "ex1.fa").read_text()
    refs = {h.split()[0]: s for h, s in _fasta_records(pysam_data / "ex1.fa")}
    found = {}
    with gzip.open(pysam_data / "ex1.sam.gz", "rt") as fh:
        for line in fh:
            f = line.rstrip("\n").split("\t")
            key = (f[0], int(f[1]))
            if key in EX1_READS and key not in found:
                found[key] = f
    fq, regions = [], ["# read\tex1.fa region (1-based inclusive): the read's mapped span, 10 bp either side"]
    for key in EX1_READS:
        f = found[key]
        seq, qual = f[9], f[10]
        if key[1] & 16:  # stored on the reference strand: back to the read as sequenced
            seq, qual = revcomp(seq), qual[::-1]
        fq.append(f"@{f[0]}\n{seq}\n+\n{qual}\n")
        beg = max(1, int(f[3]) - 10)
        end = min(len(refs[f[2]]), int(f[3]) + len(seq) + 9)
        regions.append(f"{f[0]}\t{f[2]}:{beg}-{end}")
    out["ex1_reads.fq"] = "".join(fq)
    out["ex1_reads.pairs.tsv"] = "\n".join(regions) + "\n"
    sars = [_fasta_records(TESTS / "data" / "triplet" / f"sars.{x}.fa") for x in "abc"]
    for x, recs in zip("abc", sars):
        out[f"sars.{x}.fa"] = _fasta(recs[i] for i in SARS_TRIPLETS)
    out["sars_short.fa"] = _fasta(_cut(sars[x][i], SARS_CUT.get(i)) for i in SARS_SHORT for x in range(3))
    gfa = ["H\tVN:Z:1.0\n"]
    for name in GRAPHS:
        gfa += [line for line in (TESTS / "data" / "graph" / f"{name}.gfa").read_text().splitlines(True)
                if line[:2] in ("S\t", "L\t")]
    out["graph.gfa"] = "".join(gfa)
    reads = {h.split()[0]: s for h, s in _fasta_records(TESTS / "data" / "graph" / "small_dag_reads.fa")}
    recs = [(n, reads[n]) for n in GRAPH_READS] + [("graphaligner_rc", revcomp(reads["graphaligner"]))]
    out["graph_reads.fa"] = _fasta(recs)
    out.update(protein_inputs())
    return {k: v.encode() for k, v in out.items()}


# ---------------------------------------------------------------- regeneration


def regenerate(folder: Path, jobs: int) -> dict[str, bytes]:
    """Every golden file's new bytes, from CPU runs in ``folder`` (a copy of inputs/)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(jobs) as pool:
        outputs = dict(zip((c.name for c in CASES), pool.map(lambda c: run_case(c, "cpu", folder), CASES)))
    files = {}
    for case in CASES:
        files[case.name] = outputs[case.name]
        if case.fmt == "bam":
            files[case.name + ".sam"] = bam_text(outputs[case.name])
    return files


def _write(folder: Path, files: dict[str, bytes], label: str):
    folder.mkdir(exist_ok=True)
    for name, data in sorted(files.items()):
        path = folder / name
        old = path.read_bytes() if path.exists() else None
        if old != data:
            path.write_bytes(data)
            print(f"{label}/{name}: {'new' if old is None else 'changed'}")
    for path in sorted(folder.iterdir()):
        if path.name not in files:
            path.unlink()
            print(f"{label}/{path.name}: removed (no case makes it)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="verify the committed files only")
    ap.add_argument("--inputs", action="store_true", help="cut inputs/ again from the public data first")
    ap.add_argument("--shared", type=Path, default=SHARED, help=f"the public data (default {SHARED})")
    ap.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1), help="runs side by side")
    args = ap.parse_args(argv)
    if args.check:
        problems = verify_all()
        print("\n".join(problems) or f"{len(CASES)} golden cases verify")
        return 1 if problems else 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.inputs:
            inputs = make_inputs(args.shared)
            for name, data in inputs.items():
                (folder / name).write_bytes(data)
        else:
            copy_inputs(folder)
        try:
            files = regenerate(folder, args.jobs)
        except GoldenError as err:
            print(err, file=sys.stderr)
            return 1
        problems = verify_all(files, folder)
        if problems:
            print("not written: the new outputs do not verify\n" + "\n".join(problems), file=sys.stderr)
            return 1
        if args.inputs:
            _write(INPUTS, inputs, "inputs")
    _write(EXPECTED, files, "expected")
    print(f"{len(CASES)} golden cases made and verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
