"""Proteins and substitution matrices in ``seqalign pair``: exact scores against parasail, Biopython and a plain
Gotoh, CIGARs that rescore under the matrix, the letter rules, BLAST tabular output, and the errors.

The public set (``tests/data/protein``, README there): 500 real pairs with parasail's scores in three modes and
three schemes. On a GPU, matrices run in the warp kernel (``pairwise_warp.cu``, its matrix variant) when asked
for (``--backend cuda``): its alignments are the CPU engine's, byte for byte.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from support.backends import GPU
from support.clidata import write_fasta
from support.helpers import messages, parse_tsv
from support.oracles import biopython_score, parasail_score, ref_align, rescore

from seqalign_cli import matrices
from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.io import alphabet
from seqalign_cli.families.pairwise.batch import make_batch

DATA = Path(__file__).resolve().parent / "data" / "protein"
QUERIES = DATA / "pairs.query.fa"
TARGETS = DATA / "pairs.target.fa"
#: file label -> (matrix, gap_open, gap_extend)
SCHEMES = {"BLOSUM62": ("BLOSUM62", 10, 1), "BLOSUM50": ("BLOSUM50", 12, 2), "BLOSUM62_o11_e1": ("BLOSUM62", 11, 1)}
#: file label -> --mode
FILE_MODES = {"global": "global", "semiglobal": "semi-global", "local": "local"}
AMINO = "ARNDCQEGHILKMFPSTWYV"


def protein(name: str, go: int, ge: int) -> Scoring:
    return Scoring(gap_open=go, gap_extend=ge, matrix=matrices.load(name), alphabet="protein")


def fasta_seqs(path) -> list[str]:
    return [line.strip() for line in open(path) if not line.startswith(">")]


def expected(mode_label: str, scheme: str) -> list[int]:
    rows = [line.rstrip("\n").split("\t") for line in open(DATA / f"expected.{mode_label}.{scheme}.tsv")
            if line[0].isdigit()]
    return [int(r[5]) for r in rows]


@pytest.fixture
def proteins():
    """The process reads proteins while a test runs (the alphabet is chosen once a run)."""
    alphabet.use("protein")
    yield
    alphabet.use("dna")


def align(queries, targets, scoring, mode, traceback=True, threads=2):
    batch = make_batch([q.encode() for q in queries], [t.encode() for t in targets])
    return CpuPairwise(threads).align(batch, AlignConfig(scoring=scoring, mode=mode, traceback=traceback))


def seqalign(args, **kw):
    return subprocess.run([sys.executable, "-m", "seqalign_cli", *[str(a) for a in args]], capture_output=True,
                          timeout=600, **kw)


# ------------------------------------------------------------------ the public pairs


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("mode_label", FILE_MODES)
def test_public_pairs_score_as_parasail(proteins, mode_label, scheme):
    """All 500 pairs, three modes x three schemes: parasail's scores, and every CIGAR rescores to its score."""
    queries, targets = fasta_seqs(QUERIES), fasta_seqs(TARGETS)
    scoring = protein(*SCHEMES[scheme])
    res = align(queries, targets, scoring, FILE_MODES[mode_label])
    want = expected(mode_label, scheme)
    wrong = [k for k in range(len(want)) if int(res.score[k]) != want[k]]
    assert not wrong, [(k, int(res.score[k]), want[k]) for k in wrong[:5]]
    for k, cigar in enumerate(res.cigars()):
        got = rescore(queries[k], targets[k], int(res.qstart[k]), int(res.qend[k]), int(res.tstart[k]),
                      int(res.tend[k]), cigar, scoring)
        assert got == want[k], (k, cigar)


def test_score_only_equals_traceback_scores(proteins):
    queries, targets = fasta_seqs(QUERIES)[:120], fasta_seqs(TARGETS)[:120]
    scoring = protein("BLOSUM62", 11, 1)
    for mode in ("global", "semi-global", "glocal", "local"):
        full = align(queries, targets, scoring, mode)
        only = align(queries, targets, scoring, mode, traceback=False)
        assert np.array_equal(full.score, only.score), mode
        assert np.array_equal(full.qend, only.qend) and np.array_equal(full.tend, only.tend), mode


def test_local_score_only_end_cells_by_the_tie_rule(proteins):
    """Local score-only pairs through the striped vectors (``striped.pair_scores``): the plain Gotoh's end
    cell under the tie rule (smallest query end, then target end) where many cells tie, lengths on and off
    the vector width, int16 and int32 lanes (a long query, and a target past int16 columns)."""
    from support.oracles import ref_end

    rng = random.Random(7)
    scoring = protein("BLOSUM62", 11, 1)
    queries, targets = [], []
    for n in (1, 2, 7, 15, 16, 17, 33, 64):
        q = "".join(rng.choice("ACDW") for _ in range(n))
        queries += [q, q * 3, "W" * n]
        targets += [q * 2 + "A" + q, "".join(rng.choice("ACDW") for _ in range(40)), "W" * (n + 5)]
    queries += ["G" * 10, "KKK", "", "ACD"]  # no positive cell against the target, and empty sides: empty
    targets += ["PPP", "DDD", "ACD", ""]
    res = align(queries, targets, scoring, "local", traceback=False)
    for k, (q, t) in enumerate(zip(queries, targets)):
        want = ref_end(q, t, scoring, "local")
        assert (int(res.score[k]), int(res.qend[k]), int(res.tend[k])) == want, (q, t)
    big_q = "".join(rng.choice(AMINO) for _ in range(3000))  # 11 * 3000 passes int16 lanes
    long_t = "".join(rng.choice(AMINO) for _ in range(70000)) + big_q[100:200]  # columns past int16 codes
    res = align([big_q, big_q[:50]], [big_q[5:400], long_t], scoring, "local", traceback=False)
    full = align([big_q, big_q[:50]], [big_q[5:400], long_t], scoring, "local")
    for name in ("score", "qend", "tend"):
        assert np.array_equal(getattr(res, name), getattr(full, name)), name


@pytest.mark.parametrize("mode", ["global", "semi-global", "glocal"])
def test_bordered_score_only_through_the_striped_vectors(proteins, mode):
    """Score-only pairs of the modes without a floor (``striped.pair_scores``): the plain Gotoh's end cell
    by the tie rule on small pairs of every matrix and gap cost (free openings and extensions, a matrix far
    below zero, pairs whose best is a border's), the traceback path's on long ones (int32 lanes); an empty
    side goes to the lane groups."""
    from support.oracles import ref_end

    rng = random.Random(11)
    for name, go, ge in (("BLOSUM62", 11, 1), ("PAM30", 0, 3), ("BLOSUM50", 13, 2), ("PAM250", 2, 0)):
        scoring = protein(name, go, ge)
        queries = ["".join(rng.choice(AMINO) for _ in range(rng.randint(1, 40))) for _ in range(30)]
        targets = [q[rng.randint(0, len(q) // 2):] + "".join(rng.choice(AMINO) for _ in range(rng.randint(0, 9)))
                   if k % 2 else "".join(rng.choice(AMINO) for _ in range(rng.randint(1, 40)))
                   for k, q in enumerate(queries)]
        queries += ["W", "WW", "PPPP", "CCC"]  # bests on the borders, and ties along the last row and column
        targets += ["GG", "G", "WWWWPPPP", "CCCCCC"]
        targets = [t or "A" for t in targets]
        res = align(queries + ["", "ACD"], targets + ["ACD", ""], scoring, mode, traceback=False)
        for k, (q, t) in enumerate(zip(queries, targets)):
            got = (int(res.score[k]), int(res.qend[k]), int(res.tend[k]))
            assert got == ref_end(q, t, scoring, mode), (name, q, t)
        full = align(["", "ACD"], ["ACD", ""], scoring, mode)
        assert res.score[-2:].tolist() == full.score.tolist()
    scoring = protein("BLOSUM62", 11, 1)
    big = ["".join(rng.choice(AMINO) for _ in range(n)) for n in (3000, 700)]  # 11 * 3000 passes int16 lanes
    targets = [big[0][10:2900], big[1] + big[1][:300]]
    only = align(big, targets, scoring, mode, traceback=False)
    full = align(big, targets, scoring, mode)
    for field in ("score", "qend", "tend"):
        assert np.array_equal(getattr(only, field), getattr(full, field)), field


# ------------------------------------------------------------------ random proteins, every mode and matrix


def random_pairs(seed: int, count: int, low: int, high: int, letters: str = AMINO):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        q = "".join(rng.choice(letters) for _ in range(rng.randint(low, high)))
        if rng.random() < 0.5:  # related: the query mutated
            t = "".join(c if rng.random() < 0.7 else rng.choice(letters) for c in q)
            cut = rng.randint(0, max(0, len(t) // 3))
            t = t[cut:] + "".join(rng.choice(letters) for _ in range(rng.randint(0, 5)))
        else:
            t = "".join(rng.choice(letters) for _ in range(rng.randint(low, high)))
        out.append((q, t or "A"))
    return out


@pytest.mark.parametrize("name", matrices.BUILTIN[:-1])  # the protein ones
def test_every_builtin_matrix_every_mode_matches_parasail_and_biopython(proteins, name):
    go, ge = {"BLOSUM45": (14, 2), "PAM30": (9, 1)}.get(name, (10, 1))
    scoring = protein(name, go, ge)
    pairs = random_pairs(len(name), 40, 1, 60, AMINO + "BZX*")
    for mode in ("global", "semi-global", "glocal", "local"):
        res = align([q for q, _ in pairs], [t for _, t in pairs], scoring, mode)
        for k, (q, t) in enumerate(pairs):
            assert int(res.score[k]) == parasail_score(q, t, scoring, mode), (name, mode, q, t)
            assert int(res.score[k]) == biopython_score(q, t, scoring, mode), (name, mode, q, t)


def test_alignments_follow_the_tie_rule(proteins):
    """Small pairs: the whole alignment (spans and CIGAR) is the plain Gotoh's under the documented tie rule."""
    scoring = protein("BLOSUM62", 11, 1)
    pairs = random_pairs(7, 60, 0, 14, "AWCGX*")  # few letters: many ties
    for mode in ("global", "semi-global", "glocal", "local"):
        res = align([q for q, _ in pairs], [t for _, t in pairs], scoring, mode)
        got = list(zip(res.score.tolist(), res.qstart.tolist(), res.qend.tolist(), res.tstart.tolist(),
                       res.tend.tolist(), res.cigars()))
        for k, (q, t) in enumerate(pairs):
            assert got[k] == ref_align(q, t, scoring, mode), (mode, q, t)


@pytest.mark.parametrize("name, go, ge", [("BLOSUM62", 11, 1), ("PAM30", 0, 1), ("BLOSUM45", 5, 3),
                                           ("BLOSUM80", 10, 0)])
def test_striped_traceback_equals_the_lane_groups(proteins, monkeypatch, name, go, ge):
    """Traceback through the striped vectors (their H kept, ``striped_trace``) gives the lane groups' alignments,
    counts included, in every mode: related and unrelated pairs, few letters (ties), gaps free to open or to
    extend, and queries past int16 lanes."""
    pairs = random_pairs(3, 120, 1, 90) + random_pairs(4, 60, 1, 40, "AWCX*") + random_pairs(5, 3, 2800, 3100)
    batch = make_batch([q.encode() for q, _ in pairs], [t.encode() for _, t in pairs])
    for mode in ("global", "semi-global", "glocal", "local"):
        cfg = AlignConfig(scoring=protein(name, go, ge), mode=mode)
        got = CpuPairwise(2).align(batch, cfg)
        with monkeypatch.context() as m:
            m.setattr(CpuPairwise, "_striped", staticmethod(lambda b, subset, c, out: np.ones(out.size, bool)))
            want = CpuPairwise(2).align(batch, cfg)
        for field in ("score", "qstart", "qend", "tstart", "tend", "stats"):
            assert np.array_equal(getattr(got, field), getattr(want, field)), (mode, field)
        assert got.cigars() == want.cigars(), mode


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("name, go, ge", [("BLOSUM62", 11, 1), ("PAM30", 0, 1), ("BLOSUM45", 5, 3)])
def test_gpu_matrix_pairs_equal_the_cpu_engine(proteins, name, go, ge):
    """The warp kernel's matrix variant (``--backend cuda``): every mode, score only and with traceback, the
    CPU engine's scores, ends, starts, CIGARs and counts, on the public pairs, tie-heavy pairs, and queries of
    several stages (past 256 rows)."""
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    qs, ts = fasta_seqs(QUERIES)[:120], fasta_seqs(TARGETS)[:120]
    pairs = list(zip(qs, ts)) + random_pairs(8, 60, 1, 40, "AWCX*") + random_pairs(9, 6, 600, 1400)
    batch = make_batch([q.encode() for q, _ in pairs], [t.encode() for _, t in pairs])
    family = families.get("pairwise")
    for mode in ("global", "semi-global", "glocal", "local"):
        for traceback in (False, True):
            cfg = AlignConfig(scoring=protein(name, go, ge), mode=mode, traceback=traceback)
            gpu = select_backend(family, "cuda", 2, lambda m: None, 0, align=cfg)
            got = gpu.align(batch, cfg)
            want = CpuPairwise(2).align(batch, cfg)
            fields = ("score", "qstart", "qend", "tstart", "tend") + (("stats",) if traceback else ())
            for field in fields:
                assert np.array_equal(getattr(got, field), getattr(want, field)), (mode, traceback, field)
            if traceback:
                assert got.cigars() == want.cigars(), mode


@pytest.mark.gpu
@GPU
def test_gpu_dna_matrix_pairs_equal_the_cpu_engine():
    """A DNA matrix (NUC.4.4) on the GPU: N against N is X, as on the CPU."""
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    rng = random.Random(3)
    pairs = [("".join(rng.choice("ACGTN") for _ in range(rng.randint(1, 300))),
              "".join(rng.choice("ACGTN") for _ in range(rng.randint(1, 300)))) for _ in range(200)]
    batch = make_batch([q.encode() for q, _ in pairs], [t.encode() for _, t in pairs])
    cfg = AlignConfig(scoring=Scoring(gap_open=10, gap_extend=1, matrix=matrices.load("NUC.4.4")), mode="local")
    gpu = select_backend(families.get("pairwise"), "cuda", 2, lambda m: None, 0, align=cfg)
    got = gpu.align(batch, cfg)
    want = CpuPairwise(2).align(batch, cfg)
    assert np.array_equal(got.score, want.score) and got.cigars() == want.cigars()
    assert np.array_equal(got.stats, want.stats)


def test_auto_takes_matrix_pairs_to_the_gpu(monkeypatch):
    """The GPU suite has held the warp kernel's matrix variant (and the search's kernel) to the CPU engine:
    ``auto`` takes matrix runs to a usable GPU as any other (nothing of the run is new there)."""
    from seqalign_cli import families

    cfg = AlignConfig(scoring=protein("BLOSUM62", 11, 1), mode="local")
    assert families.get("pairwise").gpu_matrices is True
    pairwise = families.get("pairwise")
    assert pairwise.new_on_gpu(cfg) is None and pairwise.new_on_gpu(AlignConfig()) is None
    assert families.get("search").new_on_gpu(cfg) is None


def test_checkpointed_traceback_equals_the_full_matrix(proteins):
    """Pairs past the traceback budget go through the checkpointed walk: the same alignments."""
    pairs = random_pairs(11, 6, 300, 700)
    scoring = protein("BLOSUM50", 12, 2)
    batch = make_batch([q.encode() for q, _ in pairs], [t.encode() for _, t in pairs])
    for mode in ("global", "local"):
        full = CpuPairwise(2).align(batch, AlignConfig(scoring=scoring, mode=mode))
        small = CpuPairwise(2).align(batch, AlignConfig(scoring=scoring, mode=mode, matrix_budget=1))
        assert np.array_equal(full.score, small.score)
        assert full.cigars() == small.cigars()


# ------------------------------------------------------------------ letters


def test_letters_rule_case_unknown_and_stop(proteins):
    """Case is ignored; U, O and J score as X; '*' scores from its row; equal letters (X too) are '='."""
    scoring = protein("BLOSUM62", 11, 1)
    res = align(["mkwvUOJ*", "XXXX"], ["MKWVXXX*", "XXXX"], scoring, "global")
    s = scoring.matrix.score
    assert int(res.score[0]) == s("M", "M") + s("K", "K") + s("W", "W") + s("V", "V") + 3 * s("X", "X") + s("*", "*")
    cigars = res.cigars()
    assert cigars[0] == "4=3X1="  # U/O/J against X: scored as X-X, but different letters
    assert cigars[1] == "4=" and int(res.score[1]) == 4 * s("X", "X")


def test_dna_matrix_scores_from_its_rows():
    """DNA with --matrix: the codes A C G T N scored from NUC.4.4's rows (N as N)."""
    scoring = Scoring(gap_open=10, gap_extend=1, matrix=matrices.load("NUC.4.4"), alphabet="dna")
    res = align(["ACGTNACGT"], ["ACGTAACGA"], scoring, "global")
    assert int(res.score[0]) == parasail_score("ACGTNACGT", "ACGTAACGA", scoring, "global") == 7 * 5 - 2 - 4
    assert res.cigars() == ["4=1X3=1X"]


# ------------------------------------------------------------------ matrices


def test_builtin_matrices_are_the_classic_ncbi_files():
    m = matrices.load("blosum62")
    assert m.letters == "ARNDCQEGHILKMFPSTWYVBZX*" and m.score("W", "W") == 11 and m.score("N", "B") == 3
    assert m.score("X", "A") == 0 and m.score("*", "*") == 1 and m.score("*", "A") == -4
    assert matrices.load("BLOSUM80").score("A", "A") == 7  # the third-bit file, not BLAST+'s half-bit one
    assert matrices.load("PAM250").score("W", "W") == 17


def test_matrix_file_faults_name_file_and_line(tmp_path):
    good = (Path(matrices.__file__).parent / "data" / "BLOSUM62").read_text().splitlines()
    cases = {
        "short_row": (good[:12] + [good[12].rsplit(maxsplit=1)[0]] + good[13:], 13, "values for 24 columns"),
        "not_int": (good[:9] + [good[9].replace("-1", "x1", 1)] + good[10:], 10, "'x1' is not an integer"),
        "twice": (good[:9] + [good[8]] + good[10:], 10, "appears twice"),
        "unknown_row": (good[:9] + ["J" + good[9][1:]] + good[10:], 10, "is not one of the header's letters"),
    }
    for name, (lines, line, needle) in cases.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(matrices.InputError) as err:
            matrices.load(str(path))
        assert f"{path}: line {line}: " in str(err.value) and needle in str(err.value), (name, str(err.value))


# ------------------------------------------------------------------ the command line


def test_command_line_protein_defaults_are_blast(tmp_path):
    """--alphabet protein alone: BLOSUM62 11/1 (BLAST's), local scores as the 11/1 file; on the CPU, said once."""
    out = tmp_path / "out.tsv"
    proc = seqalign(["pair", "--alphabet", "protein", "--mode", "local", QUERIES, TARGETS, "-o", out])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = parse_tsv(out.read_text())
    assert [r["score"] for r in rows] == expected("local", "BLOSUM62_o11_e1")
    err = messages(proc.stderr.decode())
    assert err[0].startswith("seqalign: backend auto: picked "), err
    assert sum(line.startswith("seqalign: backend auto") for line in err) == 1, err


def test_blast_tabular_parses_and_agrees(tmp_path):
    """BLAST tabular (.m8): Biopython's blast-tab parser reads it; columns agree with the TSV of the same run."""
    from Bio import SearchIO

    m8, tsv = tmp_path / "out.m8", tmp_path / "out.tsv"
    for out in (m8, tsv):
        proc = seqalign(["pair", "--alphabet", "protein", "--mode", "local", "-q", QUERIES, TARGETS, "-o", out])
        assert proc.returncode == 0, proc.stderr.decode()
    rows = {(r["qname"], r["tname"]): r for r in parse_tsv(tsv.read_text())}
    hits = [hsp for result in SearchIO.parse(str(m8), "blast-tab") for hit in result for hsp in hit]
    assert len(hits) == sum(r["cigar"] != "*" for r in rows.values()) == len(m8.read_text().splitlines())
    for hsp in hits:
        r = rows[(hsp.query_id, hsp.hit_id)]
        assert (hsp.query_start, hsp.query_end, hsp.hit_start, hsp.hit_end) == (r["qstart"], r["qend"], r["tstart"],
                                                                                 r["tend"])
        assert hsp.aln_span == sum(int(n) for n in re.findall(r"(\d+)[=XID]", r["cigar"]))
        bits = (0.267 * r["score"] - np.log(0.041)) / np.log(2)  # BLOSUM62 11/1; BLAST truncates past 99.9
        assert 0 <= bits - hsp.bitscore < 1 if bits > 99.9 else hsp.bitscore == pytest.approx(bits, abs=0.051)
        evalue = 0.041 * r["qlen"] * r["tlen"] * np.exp(-0.267 * r["score"])  # the pair as the search space
        assert hsp.evalue == 0.0 if evalue < 1e-180 else 0.5 <= hsp.evalue / evalue <= 1.5, (hsp.evalue, evalue)


def test_blast_tabular_without_parameters_says_so(tmp_path):
    proc = seqalign(["pair", "--alphabet", "protein", "--mode", "global", "-q", QUERIES, TARGETS, "--format",
                     "blast6"])
    assert proc.returncode == 0
    err = messages(proc.stderr.decode())
    assert err == ["seqalign: warning: E-values and bit scores are for local alignments; --mode global writes '*' "
                   "for them"], err
    first = proc.stdout.decode().splitlines()[0].split("\t")
    assert first[10:] == ["*", "*"] and len(first) == 12


@pytest.mark.parametrize("args, code, needles", [
    (["--alphabet", "dna"], 1, ["pairs.query.fa: record 1", "invalid sequence character 'F'",
                                "the alphabet is DNA; proteins: --alphabet protein"]),
    (["--alphabet", "protein", "--match", "3"], 2, ["--match cannot be combined with a substitution matrix"]),
    (["--alphabet", "protein", "-o", "x.sam"], 2, ["SAM/BAM hold nucleotide reads"]),
    (["--alphabet", "protein", "--strand", "both"], 2, ["proteins have no other strand"]),
    (["--alphabet", "protein", "--matrix", "BLOSUM99"], 2, ["neither a built-in matrix"]),
    (["--alphabet", "protein", "--score-only", "--format", "blast6"], 2, ["--score-only writes TSV only"]),
])
def test_command_line_errors_are_one_line(tmp_path, args, code, needles):
    proc = seqalign(["pair", *args, QUERIES, TARGETS], cwd=tmp_path)
    err = [line for line in messages(proc.stderr.decode()) if not line.startswith("seqalign: backend auto:")]
    assert proc.returncode == code, err
    assert len(err) == 1 and err[0].startswith("seqalign: error: "), err
    for needle in needles:
        assert needle in err[0], (needle, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_malformed_matrix_file_is_one_line_exit_1(tmp_path):
    bad = tmp_path / "my.mat"
    bad.write_text("   A  R\nA  4 -1\nR -1\n")
    proc = seqalign(["pair", "--alphabet", "protein", "--matrix", bad, QUERIES, TARGETS])
    err = messages(proc.stderr.decode())
    assert proc.returncode == 1 and len(err) == 1, err
    assert err[0] == f"seqalign: error: {bad}: line 3: row 'R' has 1 values for 2 columns", err


def test_matrix_past_32_bits_is_a_usage_error_before_reading(tmp_path):
    big = tmp_path / "big.mat"
    big.write_text("   A  R\nA  3000000000 -1\nR -1 4\n")
    proc = seqalign(["pair", "--alphabet", "protein", "--matrix", big, tmp_path / "missing.fa", QUERIES])
    err = messages(proc.stderr.decode())
    assert proc.returncode == 2 and len(err) == 1, err
    assert "pass 32-bit integers" in err[0] and "missing.fa" not in err[0], err


def test_worker_processes_read_proteins_too(tmp_path):
    """Each worker process takes the run's alphabet: the same output as one process."""
    one, two = tmp_path / "one.tsv", tmp_path / "two.tsv"
    for out, extra in ((one, []), (two, ["--workers", 2, "--batch-size", 100])):
        proc = seqalign(["pair", "--alphabet", "protein", "--mode", "local", "-q", *extra, QUERIES, TARGETS,
                         "-o", out])
        assert proc.returncode == 0, proc.stderr.decode()
    assert one.read_bytes() == two.read_bytes() and len(one.read_text().splitlines()) == 501


def test_alphabet_auto_picks_from_the_first_records_and_says_so(tmp_path):
    """--alphabet auto: protein on the public proteins (the run as --alphabet protein), dna on DNA (as the
    default), a usage error on stdin; the choice is said on stderr."""
    out = {}
    for name, args in (("auto", ["--alphabet", "auto"]), ("protein", ["--alphabet", "protein"])):
        out[name] = tmp_path / f"{name}.tsv"
        proc = seqalign(["pair", *args, "--mode", "local", QUERIES, TARGETS, "-o", out[name]])
        assert proc.returncode == 0, proc.stderr.decode()
        if name == "auto":
            said = [line for line in messages(proc.stderr.decode()) if "alphabet auto" in line]
            assert len(said) == 1 and "picked protein" in said[0] and "record" in said[0], said
    assert out["auto"].read_bytes() == out["protein"].read_bytes()
    dna_q = write_fasta(tmp_path / "q.fa", [("r1", "ACGTTGCA" * 4), ("r2", "NNACGTRY")])
    dna_t = write_fasta(tmp_path / "t.fa", [("t1", "ACGTAGCA" * 4), ("t2", "ACGTACGT")])
    auto = seqalign(["pair", "--alphabet", "auto", dna_q, dna_t])
    plain = seqalign(["pair", "-q", dna_q, dna_t])
    assert auto.returncode == 0 and auto.stdout == plain.stdout
    assert "alphabet auto: picked dna" in auto.stderr.decode()
    piped = seqalign(["pair", "--alphabet", "auto", "-", TARGETS], input=QUERIES.read_bytes())
    err = messages(piped.stderr.decode())
    assert piped.returncode == 2 and "--alphabet auto reads the start of the queries" in err[-1], err
