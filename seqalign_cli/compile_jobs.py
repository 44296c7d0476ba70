"""Compile the CPU engine ahead of the first run: small jobs of every subcommand, so numba caches them.

``seqalign compile`` runs them (the Docker image at build time, a user after
an install), and the wheel build runs them too (``setup.py``, through
``precompile``: the caches go into the wheel beside the modules, so an
install built on this machine starts aligning at once). The jobs are
command lines run in this process through the entry the caller gives
(``command_line``: ``cli.main``, which the command line passes itself and
``precompile`` imports), on small generated inputs: every subcommand,
every output format, score only and traceback, FASTA and FASTQ, plain and
gzip input, the checkpointed traceback route, affine triplets, a graph too
wide for the lanes; the alignment modes are run-time values of the same
compiled functions. What a job compiles is
what a real run of that shape would compile (``tests/test_precompile.py``
runs every mode, width and route of every subcommand after the jobs and
checks that none needs anything more).

Scores past 32 bits (float64 pair lanes past 2**24, int64 triplet and graph
cells past 2**28: large scoring values, or, with the default scoring,
graphs of some 22 Mb of segments and more, 45 Mb forward only) take
specializations of their own, which add about 60 % to the compile (126 s
of CPU time to 198 s on a 2-core machine): ``WIDE_JOBS`` run only when asked
(``--wide``, ``seqalign compile --wide``); otherwise the first run that
needs one compiles it and says so on stderr (``jit.CompileNotice``).

It needs only the package's own dependencies: from the GPU side it imports
only the GPU engines' host plans (``families/pairwise/plan.py``,
``families/triplet/plan.py``: compiled code that runs on the host),
which it compiles too, as it does the subsets of a batch that the GPU
scheduler makes (``batching.gather_runs``).
``python -m seqalign_cli.precompile [--quiet] [--wide] [SUBCOMMAND...]`` runs ``main`` through ``cli.main``.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import random
import sys
import tempfile
import time

#: (subcommand arguments, output suffix) of each job; {q} {t} {fq} {gfa} {reads} {tri} ... name the inputs,
#: {stats} a --stats file
JOBS = (
    (["pair", "{q}", "{t}"], "tsv"),
    (["pair", "--mode", "glocal", "{fq}", "{t}"], "sam"),
    (["pair", "--mode", "local", "{q}", "{t}"], "bam"),
    (["pair", "--mode", "semi-global", "{q}", "{t}"], "paf"),
    (["pair", "--score-only", "{q}", "{t}"], "tsv.gz"),
    (["pair", "--max-matrix-mb", "1", "{long_q}", "{long_t}"], "tsv"),
    (["pair", "--max-matrix-mb", "1", "--match", "20", "{longer_q}", "{longer_t}"], "tsv"),
    (["pair", "--score-only", "{longer_q}", "{longer_t}"], "tsv"),
    (["pair", "{longer_q}", "{longer_t}"], "sam"),  # the direction bytes of a long pair kept whole, walked
    (["pair", "--cross", "{q}", "{t}"], "tsv"),
    (["pair", "--interleaved", "{q}"], "tsv"),
    (["pair", "--strand", "both", "--shard", "2/2", "-R", "@RG\\tID:x", "--stats", "{stats}", "{q}", "{t}"], "sam"),
    (["pair", "--strand", "both", "--cross", "{q}", "{t}"], "paf"),
    # substitution matrices (A C G T are amino acids too): lane groups with traceback, score only, checkpointed
    (["pair", "--alphabet", "protein", "--mode", "local", "{q}", "{t}"], "m8"),
    (["pair", "--alphabet", "protein", "--score-only", "{q}", "{t}"], "tsv"),
    (["pair", "--alphabet", "protein", "--max-matrix-mb", "1", "{long_q}", "{long_t}"], "tsv"),
    # local score-only pairs: the striped vectors with end cells, int16 lanes, and int32 past them (3 kb)
    (["pair", "--alphabet", "protein", "--mode", "local", "--score-only", "{q}", "{t}"], "tsv"),
    (["pair", "--alphabet", "protein", "--mode", "local", "--score-only", "{longer_q}", "{longer_t}"], "tsv"),
    (["search", "{q}", "{t}"], "m8"),
    (["search", "--alphabet", "dna", "--mode", "glocal", "{q}", "{t}"], "tsv"),
    (["search", "--alphabet", "dna", "{q}", "{t}"], "paf"),  # the striped pass with match/mismatch scores
    (["triplet", "--interleaved", "{tri}"], "tsv"),
    (["triplet", "--interleaved", "{tri}"], "maf"),
    (["triplet", "--interleaved", "--score-only", "{tri}"], "tsv"),
    (["triplet", "--interleaved", "--max-matrix-mb", "1", "{long_tri}"], "tsv"),
    (["triplet", "--interleaved", "--gap-open", "2", "{tri}"], "maf"),
    (["graph", "{gfa}", "{reads}"], "gaf"),
    (["graph", "--mode", "global", "{gfa}", "{reads}"], "tsv"),
    (["graph", "--score-only", "{gfa}", "{reads}"], "tsv"),
    (["graph", "--shard", "2/3", "--stats", "{stats}", "{gfa}", "{reads}"], "gaf"),
    (["graph", "{fan}", "{fan_reads}"], "gaf"),  # reads too long for the lanes of so many slots: one at a time
    (["triplet", "--shard", "1/2", "--stats", "{stats}", "{tri}", "{tri}", "{tri}"], "tsv"),
)

#: ``--match`` of the wide jobs: every job's score bound passes the engines' 32-bit limits (float32's 2**24
#: for pairs, int32's 2**28 for triplets and graphs) and stays far below their 64-bit ones
WIDE_MATCH = "1000000000"
#: the 64-bit score specializations (float64 pairs, int64 triplets and graphs): compiled only when asked
#: (``seqalign compile --wide``), since they add about 60 % to the compile; a run that needs one
#: otherwise compiles it on first use and says so (``jit.CompileNotice``)
WIDE_JOBS = (
    (["pair", "--match", WIDE_MATCH, "{q}", "{t}"], "tsv"),  # the lane groups in float64
    (["pair", "--match", WIDE_MATCH, "--max-matrix-mb", "1", "{long_q}", "{long_t}"], "tsv"),  # checkpointed
    (["triplet", "--interleaved", "--match", WIDE_MATCH, "{tri}"], "maf"),
    (["triplet", "--interleaved", "--match", WIDE_MATCH, "--gap-open", "2", "{tri}"], "maf"),
    (["graph", "--match", WIDE_MATCH, "{gfa}", "{reads}"], "gaf"),  # int64 reads go one at a time
)


def _mutate(rng: random.Random, seq: str) -> str:
    out = []
    for base in seq:
        r = rng.random()
        if r < 0.04:
            out.append(rng.choice("ACGT"))
        elif r < 0.06:
            continue
        elif r < 0.08:
            out.append(base + rng.choice("ACGT"))
        else:
            out.append(base)
    return "".join(out)


def _fasta(path: str, records, compress: bool = False) -> str:
    text = "".join(f">{name}\n{seq}\n" for name, seq in records).encode()
    with open(path, "wb") as fh:
        fh.write(gzip.compress(text) if compress else text)
    return path


def write_inputs(folder: str, seed: int = 7) -> dict[str, str]:
    """Small generated inputs of every kind the jobs read, in ``folder``."""
    rng = random.Random(seed)
    refs = ["".join(rng.choice("ACGT") for _ in range(rng.randint(60, 180))) for _ in range(24)]
    reads = [_mutate(rng, r) for r in refs]
    reads[0] = "N" + reads[0]
    paths = {
        "t": _fasta(os.path.join(folder, "t.fa"), [(f"t{i}", s) for i, s in enumerate(refs)]),
        "q": _fasta(os.path.join(folder, "q.fa.gz"), [(f"q{i}", s) for i, s in enumerate(reads)], True),
    }
    fq = "".join(f"@q{i}\n{s}\n+\n{'I' * len(s)}\n" for i, s in enumerate(reads))
    paths["fq"] = os.path.join(folder, "q.fq")
    with open(paths["fq"], "w") as fh:
        fh.write(fq)
    long_ref = "".join(rng.choice("ACGT") for _ in range(1500))
    paths["long_t"] = _fasta(os.path.join(folder, "lt.fa"), [("lt", long_ref)])
    paths["long_q"] = _fasta(os.path.join(folder, "lq.fa"), [("lq", _mutate(rng, long_ref))])
    # 3 kb: scores past 16-bit lanes (the long-pair route's 32-bit kernels with --match 20; its 16-bit trial
    # with the default scoring)
    longer_ref = long_ref + "".join(rng.choice("ACGT") for _ in range(1500))
    paths["longer_t"] = _fasta(os.path.join(folder, "llt.fa"), [("llt", longer_ref)])
    paths["longer_q"] = _fasta(os.path.join(folder, "llq.fa"), [("llq", _mutate(rng, longer_ref))])
    tri = [(f"{k}{i}", _mutate(rng, r)) for i, r in enumerate(refs[:8]) for k in "abc"]
    paths["tri"] = _fasta(os.path.join(folder, "tri.fa"), tri)
    long_tri = [(k, _mutate(rng, long_ref[:220])) for k in "abc"]
    paths["long_tri"] = _fasta(os.path.join(folder, "ltri.fa"), long_tri)
    # a graph: a chain of segments with a bubble at every second one
    segs, links = [], []
    backbone = "".join(rng.choice("ACGT") for _ in range(240))
    for k in range(0, 240, 40):
        segs.append((f"s{k}", backbone[k:k + 40]))
        segs.append((f"v{k}", _mutate(rng, backbone[k:k + 40])))
    for a in range(len(segs) // 2 - 1):
        for x in (segs[2 * a][0], segs[2 * a + 1][0]):
            for y in (segs[2 * a + 2][0], segs[2 * a + 3][0]):
                links.append(f"L\t{x}\t+\t{y}\t+\t0M\n")
    paths["gfa"] = os.path.join(folder, "g.gfa")
    with open(paths["gfa"], "w") as fh:
        fh.write("H\tVN:Z:1.0\n" + "".join(f"S\t{n}\t{s}\n" for n, s in segs) + "".join(links))
    read_recs = [(f"r{i}", _mutate(rng, backbone[o:o + 90])) for i, o in enumerate(range(0, 150, 10))]
    paths["reads"] = _fasta(os.path.join(folder, "reads.fa"), read_recs)
    # a fan: two segments joined by 3,000 one-base ones, each row of which waits in a slot for the last
    # segment; the lanes of 140-base reads would pass the budget there (``families/graph/cpu.fits_lanes``)
    ends = ["".join(rng.choice("ACGT") for _ in range(70)) for _ in range(2)]
    paths["fan"] = os.path.join(folder, "fan.gfa")
    with open(paths["fan"], "w") as fh:
        fh.write(f"H\tVN:Z:1.0\nS\ta\t{ends[0]}\nS\tb\t{ends[1]}\n")
        for k in range(3000):
            fh.write(f"S\tx{k}\t{rng.choice('ACGT')}\nL\ta\t+\tx{k}\t+\t0M\nL\tx{k}\t+\tb\t+\t0M\n")
    paths["fan_reads"] = _fasta(os.path.join(folder, "fan_reads.fa"),
                                [(f"f{i}", _mutate(rng, ends[0] + "A" + ends[1])) for i in range(3)])
    paths["stats"] = os.path.join(folder, "run_mqc.json")
    return paths


def jobs(wide: bool = False) -> tuple:
    """The jobs: ``JOBS``, and ``WIDE_JOBS`` after them when ``wide``."""
    return JOBS + WIDE_JOBS if wide else JOBS


def run_jobs(folder: str, command_line, say=lambda m: None, commands=None, backend: str = "cpu",
             wide: bool = False) -> int:
    """Run the jobs (of the subcommands in ``commands``, or all; the wide ones too when ``wide``) on
    ``backend`` in this process, each through ``command_line`` (``cli.main``: its arguments, then
    SystemExit); the number that failed (0 when all ran)."""
    paths = write_inputs(folder)
    failed = 0
    for k, (args, suffix) in enumerate(jobs(wide)):
        if commands and args[0] not in commands:
            continue
        argv = [a.format(**paths) for a in args]
        argv += ["--backend", backend, "-q", "-o", os.path.join(folder, f"out{k}.{suffix}")]
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                command_line(argv)
        except SystemExit as exc:
            if exc.code not in (0, None):
                failed += 1
                say(f"seqalign compile: job {' '.join(argv)} failed: {err.getvalue().strip()}")
    return failed


def precompile(command_line, say=lambda m: print(m, file=sys.stderr), commands=None, backend: str = "cpu",
               wide: bool = False) -> tuple[float, int]:
    """Compile (or load from the cache) everything the jobs use, the jobs run through ``command_line``;
    (seconds, jobs that failed)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="seqalign-compile-") as folder:
        failed = run_jobs(folder, command_line, say, commands, backend, wide)
    from . import batching

    batching.compile_ahead()  # the GPU scheduler's subsets of a batch, needing no GPU to compile
    from .io.cut import compile_ahead as cut_ahead

    cut_ahead()  # the cutting scan of runs with worker processes (which no job starts)
    if not commands or "pair" in commands:
        from .families.pairwise.plan import compile_ahead

        compile_ahead()  # the GPU engine's host plan is compiled code too, needing no GPU to compile
    if not commands or "triplet" in commands:
        from .families.triplet.plan import compile_ahead as triplet_ahead

        triplet_ahead()  # the triplet GPU engine's tile wave table likewise
    return time.perf_counter() - start, failed


def main(argv, command_line) -> int:
    """``[--quiet] [--wide] [--backend=cpu|cuda] [--into=DIR] [SUBCOMMAND...]``: the jobs of those
    subcommands (default: all), run through ``command_line``; ``--wide``: the 64-bit score jobs too;
    ``--into``: fail unless this package is the copy under DIR (a wheel build's). ``argv`` None: the
    process's arguments."""
    args = sys.argv[1:] if argv is None else argv
    into = next((a.split("=", 1)[1] for a in args if a.startswith("--into=")), None)
    here = os.path.dirname(os.path.abspath(__file__))
    if into is not None and os.path.commonpath([here, os.path.abspath(into)]) != os.path.abspath(into):
        print(f"seqalign: the package imported is {here}, not the one under {into}", file=sys.stderr)
        return 1
    quiet = "--quiet" in args or "-q" in args
    wide = "--wide" in args
    backend = next((a.split("=", 1)[1] for a in args if a.startswith("--backend=")), "cpu")
    commands = [a for a in args if not a.startswith("-")]
    say = (lambda m: None) if quiet else (lambda m: print(m, file=sys.stderr))
    from . import jit

    if backend != "cpu":
        from .backends import gpu_status

        ok, why = gpu_status()
        if not ok:
            say(f"seqalign: GPU kernels not compiled: {why}")
            return 0
    what = "the CPU engine" if backend == "cpu" else "the GPU kernels"
    where = jit.CACHE_FOLDER if backend == "cpu" else "CuPy's kernel cache"
    say(f"seqalign: compiling {what} into {where} ...")
    seconds, failed = precompile(command_line, say, commands, backend, wide)
    say(f"seqalign: compiled {what} in {seconds:.1f} s" + (f" ({failed} jobs failed)" if failed else ""))
    return 1 if failed else 0
