"""Golden outputs: every case of ``tests/golden`` run by the installed ``seqalign``, its bytes against the file.

The cases, their command lines and their verification live in
``tests/golden/make_golden.py`` (how the files were made and checked:
``tests/golden/README.md``). Here:

* each case runs on the CPU backend, and on the cuda backend where a GPU is
  usable (the ``gpu`` parameter) and the case runs there (``Case.backends``:
  not a search in a mode its kernels do not score), in a temporary copy of
  the inputs, and its
  stdout must equal the golden file byte for byte (SAM's ``@PG`` version and
  ``--backend`` aside; BAM inflated, and decoded by htslib);
* the committed files pass the verification that made them (the oracles'
  scores, the CIGARs, columns and paths rescored, the tie rules' alignment),
  so a golden file cannot hold a wrong alignment;
* that verification rejects files altered in the ways a wrong engine would
  alter them.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from golden import make_golden as mg
from support.backends import BACKENDS

NAMES = [case.name for case in mg.CASES]
BY_NAME = {case.name: case for case in mg.CASES}


@pytest.fixture(scope="module", params=BACKENDS)
def outputs(request, tmp_path_factory):
    """(backend, case name -> stdout bytes or the error) of every case, a few runs side by side."""
    backend = request.param
    folder = mg.copy_inputs(tmp_path_factory.mktemp(f"golden_{backend}"))

    def run(case):
        try:
            return mg.run_case(case, backend, folder)
        except mg.GoldenError as err:
            return err

    cases = [case for case in mg.CASES if backend in case.backends]
    with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
        return backend, dict(zip((case.name for case in cases), pool.map(run, cases)))


@pytest.mark.parametrize("name", NAMES)
def test_output_matches_golden(outputs, name):
    backend, got = outputs
    case = BY_NAME[name]
    if name not in got:
        pytest.skip(f"{name} runs on {', '.join(case.backends)} only")
    if isinstance(got[name], Exception):
        pytest.fail(str(got[name]))
    want = {p.name: p.read_bytes() for p in mg.expected_files(case)}
    problems = mg.compare(case, got[name], want)
    assert not problems, f"{backend}: " + "\n".join(problems)


def test_committed_files_verify():
    assert mg.verify_all() == []


def test_files_and_cases_agree():
    """Every golden file belongs to a case, every case's files and inputs exist, and the set stays small."""
    made = {p.name for case in mg.CASES for p in mg.expected_files(case)}
    assert {p.name for p in mg.EXPECTED.iterdir()} == made
    inputs = {p.name for p in mg.INPUTS.iterdir()}
    for case in mg.CASES:
        named = [a for a in (*case.inputs, case.value("--pairs")) if a]
        assert set(named) <= inputs, case
    assert len(set(NAMES)) == len(NAMES)
    # every family and format seqalign writes has a case
    assert {(c.family, c.fmt) for c in mg.CASES} == {
        ("pair", "tsv"), ("pair", "paf"), ("pair", "sam"), ("pair", "bam"), ("pair", "blast6"),
        ("triplet", "tsv"), ("triplet", "maf"), ("graph", "tsv"), ("graph", "gaf"),
        ("search", "blast6"), ("search", "tsv"), ("search", "paf")}
    assert all(set(c.backends) <= {"cpu", "cuda"} and "cpu" in c.backends for c in mg.CASES)
    size = sum(p.stat().st_size for d in (mg.INPUTS, mg.EXPECTED) for p in d.iterdir())
    assert size < 300_000


def test_pg_line_is_the_only_leeway():
    """``canonical_header`` forgives the @PG version and backend, and nothing else."""
    line = b"@PG\tPN:seqalign\tID:seqalign\tVN:9.9\tCL:seqalign pair -q --backend cuda --format sam x.fa"
    assert mg.canonical_header(line) == mg.canonical_header(line.replace(b"VN:9.9", b"VN:0.1.0")
                                                             .replace(b"cuda", b"cpu"))
    assert mg.canonical_header(line) != mg.canonical_header(line.replace(b"x.fa", b"y.fa"))
    sq = b"@SQ\tSN:1\tLN:211\tVN:1"
    assert mg.canonical_header(sq) == sq


def _sub(old: str, new: str, count: int = 1):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, count)
    return edit


def _field(line_no: int, col: int, value: str):
    """Replace column ``col`` (0-based) of line ``line_no`` (0-based, header included)."""
    def edit(text: str) -> str:
        lines = text.split("\n")
        f = lines[line_no].split("\t")
        f[col] = value
        lines[line_no] = "\t".join(f)
        return "\n".join(lines)
    return edit


def _bump(line_no: int, col: int, by: int):
    def edit(text: str) -> str:
        f = text.split("\n")[line_no].split("\t")
        return _field(line_no, col, str(int(f[col]) + by))(text)
    return edit


def _swap(a: int, b: int):
    """Swap lines ``a`` and ``b`` (0-based, header included)."""
    def edit(text: str) -> str:
        lines = text.split("\n")
        lines[a], lines[b] = lines[b], lines[a]
        return "\n".join(lines)
    return edit


def _drop(line_no: int):
    def edit(text: str) -> str:
        lines = text.split("\n")
        del lines[line_no]
        return "\n".join(lines)
    return edit


def _append(line: str):
    return lambda text: text + line + "\n"


# (case, file, edit): each a wrong output that must not verify
MUTATIONS = [
    ("pair.global.tsv", None, _bump(1, 8, 2)),  # a score off by two
    ("pair.local.tsv", None, _field(2, 9, "*")),  # a CIGAR lost
    ("pair.glocal.tsv", None, _bump(1, 6, 1)),  # a target start moved: the CIGAR no longer fits
    ("pair.local.bwa.tsv", None, _bump(3, 10, 1)),  # nm
    ("pair.global.score-only.tsv", None, _bump(1, 8, -1)),
    ("pair.ex1.both.local.tsv", None, _field(2, 11, "+")),  # the worse strand
    ("pair.glocal.paf", None, _bump(0, 9, 1)),  # residue matches
    ("pair.local.sam", None, _bump(6, 3, 1)),  # POS
    ("pair.ex1.both.glocal.sam", None, _sub("RG:Z:golden", "RG:Z:other")),
    ("pair.ex1.forward.global.sam", None, _sub("MD:Z:0^CCAGCACAGG5A28", "MD:Z:0^CCAGCACAGG5C28")),
    ("pair.ex1.both.local.bam", ".sam", _sub("\t16\t", "\t0\t")),  # flag 16 lost from the decoded text
    ("triplet.global.tsv", None, _bump(1, 6, -2)),
    ("triplet.local.tsv", None, _sub("32M4a2M2a1M1a", "32M4a2M2a1M1b")),
    ("triplet.affine.global.tsv", None, _sub("3C2b13M3c2B", "3C2b13M3c1B1C")),  # scores lower
    ("triplet.global.maf", None, _sub("TTGTTACTTTCCTTTACNATC", "TTGTTACTTTCCTTTACAATC")),
    ("triplet.semi-global.score-only.tsv", None, _bump(1, 8, -1)),  # an end coordinate
    ("graph.glocal.tsv", None, _sub(">1>2>4", ">1>3>4")),  # the other allele
    ("graph.global.tsv", None, _bump(1, 4, 1)),
    ("graph.glocal.gaf", None, _sub("AS:i:108", "AS:i:110")),
    ("graph.forward-only.glocal.gaf", None, _bump(0, 8, 1)),  # path end
    ("graph.local.score-only.tsv", None, _bump(1, 3, -1)),  # read end
    ("pair.protein.local.tsv", None, _bump(1, 8, 1)),  # a score the CIGAR does not give
    ("pair.protein.BLOSUM50.global.tsv", None, _field(2, 8, "593")),  # BLOSUM62's score of the pair
    ("pair.protein.local.score-only.tsv", None, _bump(3, 3, 1)),  # a query end
    ("pair.protein.local.blast6", None, _field(0, 2, "22.413")),  # pident
    ("pair.protein.local.blast6", None, _bump(1, 5, 1)),  # gapopen
    ("pair.protein.local.blast6", None, _sub("\t3e-43\t", "\t2e-43\t")),  # E-value
    ("pair.protein.local.paf", None, _bump(0, 9, 1)),  # residue matches
    ("pair.protein.global.paf", None, _sub("AS:i:-88", "AS:i:-87")),
    ("search.defaults.blast6", None, _swap(1, 2)),  # equal scores out of database order (the copy is first)
    ("search.local.tsv", None, _drop(10)),  # a query's tenth hit lost
    ("search.local.tsv", None, _field(2, 12, "3")),  # rank
    ("search.local.paf", None, _bump(2, 7, 1)),  # a target start: cg:Z no longer fits
    ("search.local.top3.min-score.tsv", None, _drop(9)),  # the '*' row of the query without hits
    ("search.local.evalue.blast6", None, _sub("\t0.001\t27.3", "\t0.002\t27.3")),
    ("search.local.evalue.blast6", None,  # a hit past the --evalue cut kept
     _append("gi|122087146|sp|P02232.2|LGB1_VICFA/1-80\tHBB_MANSP/1-80\t37.931\t29\t18\t0\t44\t72\t45\t73\t"
             "0.010\t24.3")),
    ("search.global.top3.tsv", None, _field(1, 10, "3e-34")),  # an E-value outside local mode
]


@pytest.mark.parametrize("name,suffix,edit", MUTATIONS, ids=[f"{m[0]}-{k}" for k, m in enumerate(MUTATIONS)])
def test_verification_rejects_a_wrong_file(name, suffix, edit):
    case = BY_NAME[name]
    files = {p.name: p.read_bytes() for p in mg.expected_files(case)}
    mg.verify(case, files)  # the file as committed verifies
    target = name + (suffix or "")
    files[target] = edit(files[target].decode()).encode()
    with pytest.raises(AssertionError):
        mg.verify(case, files)


def test_bam_comparison_sees_a_changed_record():
    """A BAM whose records differ is caught even though its decoded header matches."""
    import gzip

    from seqalign_cli.writers.bgzf import EOF, compress_block

    case = BY_NAME["pair.global.bam"]
    want = {p.name: p.read_bytes() for p in mg.expected_files(case)}
    raw = bytearray(gzip.decompress(want[case.name]))
    raw[-2] ^= 1  # a letter of the last record's MD:Z
    changed = compress_block(bytes(raw), 0) + EOF
    assert mg.compare(case, want[case.name], want) == []
    assert mg.compare(case, changed, want)
