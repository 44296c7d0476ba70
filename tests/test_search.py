"""``seqalign search``: each query's best hits against a whole database, checked against the public expected
top 10 (parasail, checked with FASTA36's ssearch36) and against a brute-force search (every pair scored by the
plain Gotoh, sorted); BLAST tabular parsed by Biopython; the cuts, the empty cases, the parts of a sharded run.
"""

from __future__ import annotations

import gzip
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from support.backends import GPU
from support.helpers import messages
from support.oracles import ref_align

from seqalign_cli import matrices
from seqalign_cli.config import Scoring
from seqalign_cli.matrices import statistics

DATA = Path(__file__).resolve().parent / "data" / "protein"
DB = DATA / "db.fa.gz"
#: the shortest public queries (the CPU searches them against the whole database in seconds)
FIRST = 3
COLUMNS = ("qname", "tname", "pident", "length", "mismatch", "gapopen", "qstart", "qend", "tstart", "tend",
           "evalue", "bitscore", "rank", "score", "cigar")


def seqalign(args, **kw):
    return subprocess.run([sys.executable, "-m", "seqalign_cli", *[str(a) for a in args]], capture_output=True,
                          timeout=600, **kw)


def records(path) -> list[tuple[str, str]]:
    text = (gzip.open if str(path).endswith(".gz") else open)(path, "rt").read()
    out = []
    for rec in text.split(">")[1:]:
        head, _, seq = rec.partition("\n")
        out.append((head.split()[0], seq.replace("\n", "")))
    return out


def write_fasta(path, recs) -> Path:
    path.write_text("".join(f">{name}\n{seq}\n" for name, seq in recs))
    return path


def tsv_rows(text: str) -> list[dict]:
    lines = text.splitlines()
    assert lines[0] == "#" + "\t".join(COLUMNS)
    return [dict(zip(COLUMNS, line.split("\t"))) for line in lines[1:]]


@pytest.fixture(scope="module")
def first_queries(tmp_path_factory):
    return write_fasta(tmp_path_factory.mktemp("q") / "q.fa", records(DATA / "queries.fa")[:FIRST])


@pytest.mark.parametrize("scheme, gaps", [("BLOSUM62_o11_e1", []), ("BLOSUM62", ["--gap-open", 10])])
def test_top10_equals_the_public_expected(tmp_path, first_queries, scheme, gaps):
    out = tmp_path / "hits.tsv"
    proc = seqalign(["search", first_queries, DB, *gaps, "-t", 2, "-q", "-o", out])
    assert proc.returncode == 0, proc.stderr.decode()
    got = [(r["qname"], int(r["rank"]), r["tname"], int(r["score"])) for r in tsv_rows(out.read_text())]
    want = []
    for line in open(DATA / f"expected.search.{scheme}.tsv"):
        if line.startswith(("#", "qname")):
            continue
        qname, rank, tname, score, _ = line.rstrip("\n").split("\t")
        want.append((qname, int(rank), tname, int(score)))
    names = [name for name, _ in records(first_queries)]
    assert got == [w for w in want if w[0] in names]


def test_blast_tabular_is_the_default_and_parses(tmp_path, first_queries):
    from Bio import SearchIO

    out = tmp_path / "hits.out"
    proc = seqalign(["search", first_queries, DB, "-q", "-o", out])
    assert proc.returncode == 0, proc.stderr.decode()
    results = list(SearchIO.parse(str(out), "blast-tab"))
    assert [r.id for r in results] == [name for name, _ in records(first_queries)]  # input order
    residues = sum(len(seq) for _, seq in records(DB))
    qlen = {name: len(seq) for name, seq in records(first_queries)}
    for result in results:
        hsps = [hsp for hit in result for hsp in hit]
        assert len(hsps) == 10
        bits = [hsp.bitscore for hsp in hsps]
        assert bits == sorted(bits, reverse=True)
        for hsp in hsps:  # E = m n 2**-bits, the database's residues as n (within the printed digits)
            want = qlen[result.id] * residues * 2.0 ** -hsp.bitscore
            assert hsp.evalue == 0.0 if want < 1e-180 else 0.3 <= hsp.evalue / want <= 3, (hsp.evalue, want)


# ------------------------------------------------------------------ brute force on a small database with ties


def small_case(seed: int):
    rng = random.Random(seed)
    amino = "ARNDCQEGHILKMFPSTWYV"
    db = [(f"d{k}", "".join(rng.choice(amino) for _ in range(rng.randint(1, 40)))) for k in range(60)]
    db += [(f"dup{k}", db[k][1]) for k in range(0, 60, 7)]  # equal records: ties broken by database order
    queries = [(f"q{k}", "".join(rng.choice(amino) for _ in range(rng.randint(1, 25)))) for k in range(6)]
    queries.append(("nohit", "W"))  # W against the letters below: nothing scores above 0
    return queries, db


def brute_force(queries, db, scoring, mode, top, min_score=None, max_evalue=None):
    """Every pair aligned by the plain Gotoh, the non-empty ones sorted by score, then database order."""
    ka = statistics.params(scoring, mode)
    residues = sum(len(s) for _, s in db)
    out = {}
    for qname, q in queries:
        hits = []
        for k, (tname, t) in enumerate(db):
            score, qs, qe, ts, te, cigar = ref_align(q, t, scoring, mode)
            if cigar == "*":
                continue
            if min_score is not None and score < min_score:
                continue
            if max_evalue is not None and ka.K * len(q) * residues * 2.718281828459045 ** (-ka.lam * score) > \
                    max_evalue * (1 + 1e-9):
                continue
            hits.append((-score, k, tname, score, qs + 1, qe, ts + 1, te, cigar))
        out[qname] = sorted(hits)[:top]
    return out


@pytest.mark.parametrize("mode, cuts", [
    ("local", []),
    ("local", ["--top", 3, "--min-score", 15]),
    ("local", ["--top", 50, "--evalue", 5]),
    ("global", ["--top", 4]),
    ("glocal", ["--top", 2, "--min-score", -10]),
])
def test_hits_equal_brute_force(tmp_path, mode, cuts):
    queries, db = small_case(5)
    db = [(name, seq.replace("W", "A")) for name, seq in db]
    qf, dbf = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "db.fa", db)
    out = tmp_path / "hits.tsv"
    proc = seqalign(["search", qf, dbf, "--mode", mode, *cuts, "-q", "-o", out])
    assert proc.returncode == 0, proc.stderr.decode()
    rows = tsv_rows(out.read_text())
    opts = dict(zip(cuts[::2], cuts[1::2]))
    scoring = Scoring(gap_open=11, gap_extend=1, matrix=matrices.load("BLOSUM62"), alphabet="protein")
    want = brute_force(queries, db, scoring, mode, opts.get("--top", 10), opts.get("--min-score"),
                       opts.get("--evalue"))
    for qname, _ in queries:
        got = [r for r in rows if r["qname"] == qname]
        if not want[qname]:
            assert got == [dict(zip(COLUMNS, [qname] + ["*"] * (len(COLUMNS) - 1)))]
            continue
        assert [(r["tname"], int(r["score"]), int(r["qstart"]), int(r["qend"]), int(r["tstart"]), int(r["tend"]),
                 r["cigar"]) for r in got] == [h[2:] for h in want[qname]], qname
        assert [int(r["rank"]) for r in got] == list(range(1, len(got) + 1))
    assert [r["qname"] for r in rows] == sorted((r["qname"] for r in rows), key=[q for q, _ in queries].index)


def test_kept_hits_are_a_sort_of_every_record_cut():
    """The cut (``select`` after ``score_floor``: one pass, or a partition past ``TOP_BY_INSERTION``) keeps what
    sorting every record would: ties in database order, the --min-score and --evalue edges exact (the E-value
    by the formula the output prints)."""
    from seqalign_cli.families.search.cpu import score_floor, select
    from seqalign_cli.families.search.inputs import SearchInputs

    ka = statistics.params(Scoring(gap_open=11, gap_extend=1, matrix=matrices.load("BLOSUM62"),
                                   alphabet="protein"), "local")
    rng = np.random.default_rng(7)
    for _ in range(2000):
        n, hi = int(rng.integers(0, 200)), int(rng.integers(1, 60))
        score = rng.integers(0, hi, n).astype(np.int64)
        empty = rng.random(n) < rng.random()
        cuts = SearchInputs("q", "d", top=int(rng.choice([rng.integers(1, 30), rng.integers(60, 150)])),
                            min_score=None if rng.random() < 0.5 else int(rng.integers(0, hi)),
                            max_evalue=None if rng.random() < 0.5 else float(rng.choice([0, 1e-3, 1, 10, 1e9])))
        m, residues = int(rng.integers(1, 1000)), int(rng.integers(1, 10**8))
        ok = ~empty
        if cuts.min_score is not None:
            ok &= score >= cuts.min_score
        if cuts.max_evalue is not None:
            ok &= ka.evalue(score, m, residues) <= cuts.max_evalue
        want = sorted(np.flatnonzero(ok), key=lambda k: (-score[k], k))[:cuts.top]
        assert select(score, empty, score_floor(cuts, ka, m, residues), cuts.top).tolist() == want


def test_query_without_hits_writes_nothing_in_blast_tabular(tmp_path):
    qf = write_fasta(tmp_path / "q.fa", [("w", "WWW"), ("a", "AAAA")])
    dbf = write_fasta(tmp_path / "db.fa", [("d0", "GGGG"), ("d1", "AAAAA")])
    proc = seqalign(["search", qf, dbf, "-q"])
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert [line.split("\t")[:2] for line in lines] == [["a", "d1"]]


def test_empty_database_is_a_header_and_a_warning(tmp_path):
    qf = write_fasta(tmp_path / "q.fa", [("a", "AAAA")])
    dbf = tmp_path / "db.fa"
    dbf.write_text("")
    out = tmp_path / "hits.tsv"
    proc = seqalign(["search", qf, dbf, "-o", out])
    assert proc.returncode == 0
    assert out.read_text() == "#" + "\t".join(COLUMNS) + "\n"
    err = [line for line in messages(proc.stderr.decode()) if line.startswith("seqalign: warning:")]
    assert len(err) == 1 and str(dbf) in err[0] and "empty input" in err[0], err


def test_shards_concatenate_to_the_whole(tmp_path):
    queries, db = small_case(9)
    qf, dbf = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "db.fa", db)
    whole = seqalign(["search", qf, dbf, "-q", "--format", "tsv"])
    parts = [seqalign(["search", qf, dbf, "-q", "--format", "tsv", "--shard", f"{k}/3"]) for k in (1, 2, 3)]
    assert whole.returncode == 0 and all(p.returncode == 0 for p in parts)
    assert b"".join(p.stdout for p in parts) == whole.stdout


def test_a_chunk_holds_the_queries_of_batch_size_scores(tmp_path):
    from seqalign_cli import families
    from seqalign_cli.families.search.chunks import search_chunks
    from seqalign_cli.families.search.inputs import SearchInputs
    from seqalign_cli.io import alphabet

    queries, db = small_case(9)
    qf, dbf = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "db.fa", db)
    inputs = SearchInputs(str(qf), str(dbf), top=10)
    alphabet.use("protein")
    try:
        sizes = (1, 3 * len(db), 4 * len(db) - 1, families.get("search").chunk_size)
        counts = [[len(c) for c in search_chunks(inputs, size)] for size in sizes]
    finally:
        alphabet.use("dna")
    # the default: the queries of 2^23 scores side by side (decisions/search_chunks.md), here all in one chunk
    assert sizes[-1] == 1 << 23
    assert counts == [[1] * len(queries), [3, 3, 1], [3, 3, 1], [len(queries)]]
    helped = seqalign(["search", "--help"]).stdout.decode()
    assert "Query x record scores a chunk" in " ".join(helped.split())


@pytest.mark.parametrize("args, needle", [
    (["--mode", "global", "--evalue", "1"], "--evalue: E-values and bit scores are for local alignments"),
    (["--matrix", "PAM30", "--gap-open", 20, "--evalue", "1"], "--evalue: no published Karlin-Altschul"),
    (["-o", "hits.sam"], "search alignments cannot be written as sam"),
    (["--top", 0], "Invalid value for '--top'"),
])
def test_usage_errors(tmp_path, args, needle):
    qf = write_fasta(tmp_path / "q.fa", [("a", "AAAA")])
    proc = seqalign(["search", qf, qf, *args], cwd=tmp_path)
    err = messages(proc.stderr.decode())
    assert proc.returncode == 2, err
    assert needle in "\n".join(err), err


def test_paf_rows_are_the_tsv_hits(tmp_path):
    queries, db = small_case(3)
    qf, dbf = write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "db.fa", db)
    tsv = seqalign(["search", qf, dbf, "-q", "--format", "tsv"])
    paf = seqalign(["search", qf, dbf, "-q", "--format", "paf"])
    assert tsv.returncode == 0 and paf.returncode == 0
    hits = [r for r in tsv_rows(tsv.stdout.decode()) if r["tname"] != "*"]
    rows = [line.split("\t") for line in paf.stdout.decode().splitlines()]
    assert len(rows) == len(hits) > 0
    for r, f in zip(hits, rows):
        assert (f[0], f[5], int(f[2]) + 1, int(f[3]), int(f[7]) + 1, int(f[8])) == (
            r["qname"], r["tname"], int(r["qstart"]), int(r["qend"]), int(r["tstart"]), int(r["tend"]))
        assert f[12] == "cg:Z:" + r["cigar"] and f[13] == "AS:i:" + r["score"]


# ------------------------------------------------------------------ the striped score pass


def _codes(seqs, protein=True):
    from seqalign_cli.io import alphabet
    from seqalign_cli.io.encode import encode

    alphabet.use("protein" if protein else "dna")
    try:
        out = [encode(s) for s in seqs]
    finally:
        alphabet.use("dna")
    offs = np.zeros(len(out) + 1, np.int64)
    offs[1:] = np.cumsum([len(c) for c in out])
    return out, (np.concatenate(out) if out else np.zeros(0, np.uint8)), offs


@pytest.mark.parametrize("case", ["protein", "cheap_gaps", "free_extension", "int32", "dna", "short"])
def test_striped_local_scores_equal_the_plain_gotoh_and_parasail(case):
    """The striped vectors (int16 and int32 lanes, the lazy-F pass at its longest) against the plain Gotoh on
    small pairs and parasail on larger ones; query lengths on and off the vector width."""
    from seqalign_cli.families.pairwise import cpu_striped as striped
    from seqalign_cli.families.search.cpu import substitution_array
    from support.oracles import parasail_score, ref_score

    rng = random.Random(case)
    amino = "ARNDCQEGHILKMFPSTWYVBZX*"
    scoring = {
        "protein": Scoring(gap_open=11, gap_extend=1, matrix=matrices.load("BLOSUM62"), alphabet="protein"),
        "cheap_gaps": Scoring(gap_open=0, gap_extend=1, matrix=matrices.load("PAM30"), alphabet="protein"),
        "free_extension": Scoring(gap_open=3, gap_extend=0, matrix=matrices.load("BLOSUM50"), alphabet="protein"),
        "int32": Scoring(match=900, mismatch=3, gap_open=5, gap_extend=2),
        "dna": Scoring(),
        "short": Scoring(gap_open=10, gap_extend=1, matrix=matrices.load("BLOSUM62"), alphabet="protein"),
    }[case]
    letters = amino if scoring.alphabet == "protein" else "ACGTN"
    high = {"short": 3}.get(case, 90)
    queries = ["".join(rng.choice(letters) for _ in range(n)) for n in (1, 2, 15, 16, 17, 31, 32, 33, 64, high)]
    targets = ["".join(rng.choice(letters) for _ in range(rng.randint(0, 120))) for _ in range(40)]
    targets += [q[3:] + "".join(rng.choice(letters) for _ in range(5)) for q in queries]  # related
    _, codes, offs = _codes(targets, scoring.alphabet == "protein")
    qcodes, _, _ = _codes(queries, scoring.alphabet == "protein")
    S = substitution_array(scoring)
    assert (striped.lane_dtype(90, S) == np.int32) == (case == "int32")
    for q, qc in zip(queries, qcodes):
        got = striped.local_scores(qc, S, codes, offs, np.arange(len(targets)), scoring.gap_open, scoring.gap_extend)
        for t, score in zip(targets, got.tolist()):
            small = len(q) * len(t) <= 600
            want = ref_score(q, t, scoring, "local") if small or not t else parasail_score(q, t, scoring, "local")
            assert score == want, (case, q, t)


def test_striped_int8_pass_rescores_the_records_that_reach_its_top(monkeypatch):
    """The int8 first pass: records scoring below ``INT8_TOP`` keep its score, those at or above it are scored
    again in int16 lanes (prefixes of the query: scores on both sides of the top, every one exact); a matrix
    past int8 skips the pass."""
    from seqalign_cli.families.pairwise import cpu_striped as striped
    from seqalign_cli.families.search.cpu import substitution_array
    from support.oracles import ref_score

    rng = random.Random(8)
    scoring = Scoring(gap_open=11, gap_extend=1, matrix=matrices.load("BLOSUM62"), alphabet="protein")
    query = "".join(rng.choice("ARNDCQEGHILKMFPSTWYV") for _ in range(70))
    targets = [query[:k] for k in range(1, 71, 3)] + ["W" * 30, "W" * 24 + query[:40]]
    (qc,), _, _ = _codes([query])
    _, codes, offs = _codes(targets)
    S = substitution_array(scoring)
    lanes = []
    real = striped.scores
    monkeypatch.setattr(striped, "scores", lambda P, *a: (lanes.append((P.dtype, len(a[2]))), real(P, *a))[1])
    got = striped.local_scores(qc, S, codes, offs, np.arange(len(targets)), 11, 1).tolist()
    want = [ref_score(query, t, scoring, "local") for t in targets]
    assert got == want
    high = sum(w >= striped.INT8_TOP for w in want)
    assert 0 < high < len(want)
    assert lanes == [(np.int8, len(targets)), (np.int16, high)]
    lanes.clear()
    striped.local_scores(qc, S * 20, codes, offs, np.arange(len(targets)), 11, 1)
    assert [dtype for dtype, _ in lanes] == [np.int16]


# ------------------------------------------------------------------ the GPU score pass (kernels/search.cu)


def _batches(qf, dbf, top: int):
    """The search batches of a run over ``qf`` x ``dbf``, encoded as proteins."""
    from seqalign_cli.io import alphabet
    from seqalign_cli.families.search.inputs import SearchInputs
    from seqalign_cli.families.search.chunks import search_chunks

    alphabet.use("protein")
    try:
        batches = [c.batch() for c in search_chunks(SearchInputs(str(qf), str(dbf), top=top), 1 << 30)]
        for b in batches:
            b.db.codes  # encoded now, in this alphabet
        return batches
    finally:
        alphabet.use("dna")


def _hits_table(hits):
    return (hits.query.tolist(), hits.target.tolist(), hits.rank.tolist(), hits.score.tolist(),
            hits.alignments.cigars())


def _gpu_equals_cpu(batches, cfg):
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    family = families.get("search")
    gpu = select_backend(family, "cuda", 2, lambda m: None, 0, align=cfg)
    cpu = family.cpu_engine(2)
    found = 0
    for batch in batches:
        want = cpu.align(batch, cfg)
        got = gpu.align(batch, cfg)
        assert _hits_table(got) == _hits_table(want)
        found += len(want.query)
    assert found > 0


def _protein_cfg(mode="local", **gaps):
    from seqalign_cli.config import AlignConfig

    gaps = {"gap_open": 11, "gap_extend": 1, **gaps}
    return AlignConfig(scoring=Scoring(matrix=matrices.load("BLOSUM62"), alphabet="protein", **gaps), mode=mode)


def _varied_case(tmp_path, seed: int):
    """Records of 1 to 700 residues (every group size once its limits are lowered) and queries past one
    stage of every group, related to some records so that hits have long alignments."""
    rng = random.Random(seed)
    amino = "ARNDCQEGHILKMFPSTWYV"
    db = [(f"d{k}", "".join(rng.choice(amino) for _ in range(rng.choice([1, 5, 30, 90, 200, 700])))) for k in
          range(120)]
    queries = [(f"q{k}", "".join(rng.choice(amino) for _ in range(n))) for k, n in enumerate((3, 40, 150, 600))]
    for k in range(0, 120, 9):  # a query's piece, mutated, inside some records
        q = queries[k % 4][1]
        piece = "".join(c if rng.random() < 0.8 else rng.choice(amino) for c in q[: rng.randint(1, len(q))])
        db[k] = (db[k][0], db[k][1][:20] + piece + db[k][1][20:])
    db += [(f"dup{k}", db[k][1]) for k in range(0, 120, 13)]  # ties: database order
    return write_fasta(tmp_path / "q.fa", queries), write_fasta(tmp_path / "db.fa", db)


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("case", ["public", "public-rows", "groups", "columns", "int32", "parts", "streamed",
                                  "gaps"])
def test_gpu_search_equals_the_cpu_engine(tmp_path, monkeypatch, case):
    """Every kernel variant (the row kernel's group sizes 1, 8, 32 with several stages, 16-bit and int32
    lanes; the column kernel's shapes of 4, 8 and 32 lanes and 16, 24 and 32 columns) and the database in
    parts, kept or brought through, give the CPU engine's hits, scores and alignments."""
    from seqalign_cli.families.search import gpu as gpu_search

    cfg = _protein_cfg()
    # every record to the row kernel ("-rows", "groups"), else 16-bit records up to 1,024 to the column kernel
    monkeypatch.setattr(gpu_search.columns, "UP_TO", 0 if case.endswith("-rows") or case == "groups" else None)
    if case.startswith("public"):
        qf = write_fasta(tmp_path / "q.fa", records(DATA / "queries.fa")[:6])
        _gpu_equals_cpu(_batches(qf, DB, 25), cfg)
        return
    monkeypatch.setattr(gpu_search, "GROUPS", ((20, 1), (100, 8)))  # records of 1-700: every group
    if case == "int32":
        monkeypatch.setattr(gpu_search, "INT16_LIMIT", 60)
    if case in ("parts", "streamed"):
        monkeypatch.setattr(gpu_search.CudaSearch, "part_codes", 900)
    if case == "streamed":
        monkeypatch.setattr(gpu_search, "DB_SHARE", 0.0)
    if case == "gaps":
        cfg = _protein_cfg(gap_open=0, gap_extend=3)
    shapes = set()
    if case == "columns":  # the shapes the column kernel ran
        real = gpu_search.CudaSearch._columns
        monkeypatch.setattr(gpu_search.CudaSearch, "_columns",
                            lambda self, part, launch, *a: shapes.add((launch.G, launch.C)) or real(self, part, launch, *a))
    qf, dbf = _varied_case(tmp_path, 17)
    _gpu_equals_cpu(_batches(qf, dbf, 200), cfg)
    if case == "columns":
        assert {g for g, _ in shapes} >= {4, 8, 32} and {c for _, c in shapes} >= {16, 24, 32}


@pytest.mark.gpu
@GPU
def test_gpu_search_command_output_is_the_cpu_one(tmp_path, first_queries):
    """The whole command, byte for byte, in each format; a mode the kernels do not score goes to the CPU
    engine, said once."""
    for fmt in ("blast6", "tsv", "paf"):
        cpu = seqalign(["search", first_queries, DB, "--backend", "cpu", "-q", "--format", fmt])
        gpu = seqalign(["search", first_queries, DB, "--backend", "cuda", "-q", "--format", fmt])
        assert cpu.returncode == 0 and gpu.returncode == 0, gpu.stderr.decode()
        assert gpu.stdout == cpu.stdout and len(cpu.stdout) > 0
    args = ["search", first_queries, DB, "--mode", "glocal", "--top", 3, "--format", "tsv"]
    cpu = seqalign([*args, "--backend", "cpu", "-q"])
    gpu = seqalign([*args, "--backend", "cuda"])
    assert gpu.returncode == 0 and gpu.stdout == cpu.stdout
    notes = [line for line in messages(gpu.stderr.decode()) if "CPU engine scores this run" in line]
    assert len(notes) == 1, gpu.stderr.decode()


def test_python_api_gives_the_command_rows(tmp_path, first_queries):
    """``seqalign_cli.search``: the TSV rows of the command as records, and its options' defaults."""
    import seqalign_cli as sa

    hits = sa.search(str(first_queries), DB, top=4, backend="cpu")
    proc = seqalign(["search", first_queries, DB, "--top", 4, "--format", "tsv", "-q", "--backend", "cpu"])
    rows = tsv_rows(proc.stdout.decode())
    assert len(hits) == len(rows) == 4 * FIRST
    for hit, row in zip(hits, rows):
        assert [f"{v:.3f}" if k == "pident" else str(v) for k, v in hit._asdict().items()
                if k not in ("evalue", "bitscore")] == [row[k] for k in COLUMNS if k not in ("evalue", "bitscore")]
        assert hit.evalue > 0 and hit.bitscore > 0
    assert sa.search(str(first_queries), DB, top=1, gap_open=10, backend="cpu")[0].score >= hits[0].score
    with pytest.raises(TypeError, match="file paths"):
        sa.search(["ACDE"], DB)
    with pytest.raises(ValueError, match="evalue"):
        sa.search(str(first_queries), DB, mode="global", evalue=1.0)


def test_search_in_pieces_gives_the_whole_batch_hits(tmp_path, monkeypatch):
    """A batch of queries aligned in pieces (the progress bar's, or a GPU scheduler's) gathers into the hits
    of the whole batch (``SearchHits.take`` and ``finish``)."""
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend
    from seqalign_cli.backends.cpu import CpuBackend

    qf, dbf = _varied_case(tmp_path, 5)
    cfg = _protein_cfg()
    backend = select_backend(families.get("search"), "cpu", 1, lambda m: None, align=cfg, progress=True)
    assert isinstance(backend, CpuBackend) and backend.allocator is not None
    # a query a piece, last first: the pieces' hits are put back in query order
    monkeypatch.setattr(backend, "pieces", lambda batch: [np.array([k]) for k in reversed(range(batch.size))])
    for batch in _batches(qf, dbf, 30):
        whole = backend.engine.align(batch, cfg)
        assert _hits_table(backend.align(batch, cfg)) == _hits_table(whole) and len(whole.query) > 0


def test_auto_takes_the_cpu_engine_while_a_gpu_engine_is_new(monkeypatch):
    """A usable GPU and a family whose GPU engine is new (``gpu_when_asked``): ``auto`` runs the CPU engine and
    says why. No registered family is held back now (the search's GPU engine passed the GPU suite)."""
    import dataclasses

    from seqalign_cli import backends, families
    from seqalign_cli.backends.cpu import CpuBackend

    monkeypatch.setattr(backends, "gpu_status", lambda: (True, "1 CUDA device(s)"))
    said = []
    held = dataclasses.replace(families.get("search"), gpu_when_asked=True)
    backend = backends.select_backend(held, "auto", 1, said.append, align=_protein_cfg())
    assert isinstance(backend, CpuBackend)
    assert said == ["backend auto: picked cpu (search's GPU engine is new in this version: ask for it with "
                    "--backend cuda)"]
    assert [f.name for f in families.FAMILIES.values() if f.gpu_when_asked] == []
