"""Compiling ahead: the precompile jobs run, the guard of a wheel build, shipped caches seeded in numba's layout."""

import os
import subprocess
import sys

from numba.core.caching import UserProvidedCacheLocator

from seqalign_cli import jit, precompile


def test_every_precompile_job_runs(tmp_path):
    """The jobs a wheel build and `seqalign compile` run are valid command lines that succeed."""
    messages = []
    assert precompile.run_jobs(str(tmp_path), messages.append) == 0, messages
    commands = {args[0] for args, _ in precompile.JOBS}
    assert commands == {"pair", "triplet", "graph", "search"}
    outputs = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out"))
    assert len(outputs) == len(precompile.JOBS)
    assert all((tmp_path / name).stat().st_size > 0 for name in outputs)


def test_a_wheel_build_refuses_another_copy_of_the_package(tmp_path, capsys):
    assert precompile.main(["--quiet", f"--into={tmp_path}"]) == 1
    assert "not the one under" in capsys.readouterr().err


def test_shipped_caches_are_seeded_in_numbas_layout(tmp_path, monkeypatch):
    package = tmp_path / "pkg" / "seqalign_cli"
    shipped = package / "__pycache__"
    shipped.mkdir(parents=True)
    (package / "mod.py").write_text("")
    for name in ("mod.f-10.py311.nbi", "mod.f-10.py311.1.nbc", "mod.g-20.py311.nbi", "mod.g-20.py311.1.nbc"):
        (shipped / name).write_bytes(name.encode())
    cache = tmp_path / "cache"
    # where numba itself looks for mod.py's functions under a cache folder of the user's
    target = cache / UserProvidedCacheLocator.get_suitable_cache_subpath(str(package / "mod.py"))
    target.mkdir(parents=True)
    (target / "mod.g-20.py311.nbi").write_bytes(b"the user's own index")
    monkeypatch.setattr(jit, "_source_folders", lambda: [str(package)])
    jit._seed(str(cache))
    assert (target / "mod.f-10.py311.nbi").read_bytes() == b"mod.f-10.py311.nbi"
    assert (target / "mod.f-10.py311.1.nbc").read_bytes() == b"mod.f-10.py311.1.nbc"
    # a function that has an index of its own keeps it, and gets none of the shipped data files
    assert (target / "mod.g-20.py311.nbi").read_bytes() == b"the user's own index"
    assert not (target / "mod.g-20.py311.1.nbc").exists()
    # once per version: a second call copies nothing again
    os.remove(target / "mod.f-10.py311.nbi")
    jit._seed(str(cache))
    assert not (target / "mod.f-10.py311.nbi").exists()


def test_the_gpu_host_plan_compiles_ahead_with_the_types_of_a_run():
    """The pairwise GPU engine's host plan is compiled code: ``compile_ahead`` (run by precompile, no GPU
    needed) compiles every signature that a batch's planning then uses, so a first GPU run compiles nothing."""
    import numpy as np

    from seqalign_cli.families.pairwise import plan
    from seqalign_cli.families.pairwise.gpu import HOOKS
    from seqalign_cli.families.pairwise.gpu_subwarp import border_layout
    from seqalign_cli.config import AlignConfig
    from seqalign_cli.families.pairwise.batch import make_batch

    plan.compile_ahead()
    steps = (plan._route, plan._plan, plan._pair, plan._borders)
    before = [len(step.signatures) for step in steps]
    assert all(before)
    batch = make_batch([b"ACGT" * 40, b"AC" * 700, b"A"], [b"ACGA" * 41, b"AC" * 720, b"C"])
    for trace in (False, True):
        cfg = AlignConfig(traceback=trace)
        qlen, tlen = batch.qlen.astype(np.int64), batch.tlen.astype(np.int64)  # as CudaPairwise.prepare
        subset = np.flatnonzero(HOOKS.on_gpu(batch, cfg))
        G, R, pack, words, key = plan.plan_pairs(qlen, tlen, subset, cfg.scoring, trace)
        for scoring in (None, cfg.scoring):
            items = plan.pair_items(subset, qlen, tlen, scoring)
            border_layout(np, qlen, tlen, items, 16, batch.size)
        # the checkpointed route's borders: pairs as int64 indices, a number of rows per pair
        border_layout(np, qlen, tlen, subset.reshape(-1, 1), 512, batch.size, np.array([1, 2, 1]))
    assert [len(step.signatures) for step in steps] == before


def test_the_gpu_host_plan_takes_read_only_lengths_without_compiling():
    import numpy as np

    from seqalign_cli.families.pairwise import plan
    from seqalign_cli.config import AlignConfig
    from seqalign_cli.families.pairwise.batch import make_batch

    plan.compile_ahead()
    before = len(plan._route.signatures)
    batch = make_batch([b"ACGT" * 40], [b"ACGA" * 41])
    assert not batch.qlen.flags.writeable  # a batch's lengths are read-only
    plan.route_pairs(batch.qlen, batch.tlen, AlignConfig(), 1 << 31, 1 << 24, 1 << 29)
    assert len(plan._route.signatures) == before


def test_subsets_of_every_familys_batch_compile_nothing_after_compile_ahead():
    """``batching.compile_ahead`` (run by precompile) compiles the one ``gather_runs`` that the subsets of a
    pair, triplet or read batch take, and a subset holds the records asked for, in that order."""
    import numpy as np

    from seqalign_cli import batching
    from seqalign_cli.io.encode import encode_many
    from seqalign_cli.families.pairwise.batch import make_batch
    from seqalign_cli.families.graph.batch import GraphBatch
    from seqalign_cli.families.triplet.batch import make_triplets

    batching.compile_ahead()
    before = len(batching._gather.signatures)
    seqs = [b"ACGT", b"", b"GGA", b"T" * 9]
    pairs = make_batch(seqs, seqs[::-1])
    triplets = make_triplets(seqs, seqs[::-1], seqs)
    codes, offs = encode_many(seqs)
    reads = GraphBatch(codes, offs, graph=None)
    idx = np.array([3, 1, 0])
    sub = pairs.subset(idx)
    assert [sub.query(k).tobytes() for k in range(3)] == [pairs.query(k).tobytes() for k in idx]
    assert [sub.target(k).tobytes() for k in range(3)] == [pairs.target(k).tobytes() for k in idx]
    sub = triplets.subset(idx)
    assert all(sub.seq(s, k).tobytes() == triplets.seq(s, int(j)).tobytes() for s in range(3)
               for k, j in enumerate(idx))
    sub = reads.subset(idx)
    assert [sub.seq(k).tobytes() for k in range(3)] == [reads.seq(int(j)).tobytes() for j in idx]
    assert reads.subset(np.array([], np.int64)).size == 0
    assert len(batching._gather.signatures) == before


def test_results_merged_by_records_compile_nothing_after_compile_ahead():
    """``RunStore.take`` (the scheduler merging a piece's or the CPU engine's results into a batch's) copies
    each record's runs into its slots with the one ``scatter_runs`` that ``compile_ahead`` compiles."""
    import numpy as np

    from seqalign_cli import batching, results
    from seqalign_cli.families.pairwise.cpu import CpuPairwise
    from seqalign_cli.families.triplet.cpu import CpuTriplet
    from seqalign_cli.families.pairwise.gpu import HOOKS as PAIRS
    from seqalign_cli.families.triplet.gpu import HOOKS as TRIPLETS
    from seqalign_cli.config import AlignConfig, Scoring
    from seqalign_cli.families.pairwise.batch import make_batch
    from seqalign_cli.families.triplet.batch import make_triplets
    from seqalign_cli.results import CIGAR_LETTERS
    from seqalign_cli.families.triplet.results import COLUMN_LETTERS

    batching.compile_ahead()
    before = len(results._scatter.signatures)
    seqs = [b"ACGTACGTTA", b"", b"GGA", b"TTGCA" * 9, b"ACCA"]
    cfg = AlignConfig(mode="local", traceback=True, scoring=Scoring(gap_open=0))
    for batch, cpu, hooks, letters in ((make_batch(seqs, seqs[::-1]), CpuPairwise(1), PAIRS, CIGAR_LETTERS),
                                       (make_triplets(seqs, seqs[::-1], seqs), CpuTriplet(1), TRIPLETS,
                                        COLUMN_LETTERS)):
        whole = cpu.align(batch, cfg)
        merged = hooks.allocate(batch, cfg)
        for part in (np.array([4, 1, 3]), np.array([0, 2])):
            merged.take(part, cpu.align(batch.subset(part), cfg))
        store = getattr(merged, "cigar", None) or merged.columns
        want = getattr(whole, "cigar", None) or whole.columns
        assert store.strings(letters) == want.strings(letters)
    assert len(results._scatter.signatures) == before


def test_the_triplet_wave_table_compiles_nothing_after_compile_ahead():
    """The tile wave's table is compiled code (one pass that releases the interpreter lock); the triplet GPU
    engine's ``compile_ahead`` (run by precompile) compiles it with the types of a run's plan."""
    import numpy as np

    from seqalign_cli.families.triplet import plan as tp
    from seqalign_cli.config import AlignConfig

    tp.compile_ahead()
    before = len(tp._wave_table.signatures)
    assert before
    lengths = np.array([[300, 500, 200], [5, 5, 5], [100, 24, 23]])
    plans = tp.plan_launches(lengths, np.arange(3), AlignConfig(), tp.Tuning(wave_tiles=2))
    assert any(pl.ntiles for pl in plans)
    assert len(tp._wave_table.signatures) == before


# ---- what `seqalign compile` covers, and the notice for what it leaves to first use ----------------------

TESTS = os.path.dirname(os.path.abspath(__file__))
NOTICE_LINE = r"seqalign: compiling the CPU engine \(first run; cached afterwards\)\.\.\. \d+\.\d s"


def _choices(command: str, option: str) -> list[str]:
    """The values the command line offers for a subcommand's option (its click choice)."""
    from seqalign_cli.cli import cli

    return next(list(p.type.choices) for p in cli.commands[command].params if p.name == option)


#: the output name's extension of a format whose name is not one
EXTENSION = {"blast6": "m8"}


def _subcommands() -> list[str]:
    """The alignment subcommands: those with a --mode."""
    from seqalign_cli.cli import cli

    return sorted(name for name, command in cli.commands.items() if any(p.name == "mode" for p in command.params))


def _probes(paths: dict, wide: bool) -> list[list[str]]:
    """Runs of every subcommand in each of its modes, with traceback and score only, through every route of
    its engine, and in each output format; with the default scoring or (``wide``) past the engines' 32-bit
    limits. Routes: pairs in lane groups, long pairs inside the pair (int16, int32 with --match 20, their
    direction bytes kept or checkpointed); triplets with linear and affine gaps, the whole cube or
    checkpoints; graph reads in lanes or one at a time."""
    from seqalign_cli import precompile

    width = ["--match", precompile.WIDE_MATCH] if wide else []
    longer = [paths["longer_q"], paths["longer_t"]]
    protein = [] if wide else [["--alphabet", "protein", paths["q"], paths["t"]],  # substitution arrays
                               ["--alphabet", "protein", "--max-matrix-mb", "1", paths["long_q"], paths["long_t"]]]
    routes = {
        "pair": [[paths["q"], paths["t"]], ["--max-matrix-mb", "1", paths["long_q"], paths["long_t"]], longer]
        + ([] if wide else [["--match", "20", *longer]]) + protein,
        "triplet": [[*gaps, "--interleaved", *tri] for gaps in ([], ["--gap-open", "2"])
                    for tri in ([paths["tri"]], ["--max-matrix-mb", "1", paths["long_tri"]])],
        "graph": [[paths["gfa"], paths["reads"]], [paths["fan"], paths["fan_reads"]]],
        "search": ([] if wide else [[paths["q"], paths["t"]]]) + [["--alphabet", "dna", paths["q"], paths["t"]]],
    }
    assert sorted(routes) == _subcommands()
    runs = []
    for command, inputs in routes.items():
        for mode in _choices(command, "mode"):
            for trace in ([], ["--score-only"]) if command != "search" else ([],):  # a search traces its hits
                runs += [[command, "--mode", mode, *trace, *width, *args, "-o", "out.tsv"] for args in inputs]
        for fmt in _choices(command, "out_format"):
            if wide and fmt in ("sam", "bam"):
                continue  # SAM/BAM store 32-bit scores: a wide scoring is a usage error there
            runs.append([command, *width, *inputs[0], "-o", f"out.{EXTENSION.get(fmt, fmt)}"])
    return runs


def _loaded() -> dict[str, set[str]]:
    """The package's compiled functions loaded in this process (compiled here or read from numba's cache),
    by name, with their signatures."""
    from numba.core.registry import CPUDispatcher

    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("seqalign_cli") and module is not None:
            for value in vars(module).values():
                if isinstance(value, CPUDispatcher):
                    key = f"{value.py_func.__module__}.{value.py_func.__qualname__}"
                    found.setdefault(key, set()).update(str(s) for s in value.signatures)
    return found


def _added(before: dict, after: dict) -> dict[str, list[str]]:
    return {k: sorted(v - before.get(k, set())) for k, v in after.items() if v - before.get(k, set())}


def coverage_report(folder: str) -> dict:
    """In a fresh process: what `seqalign compile` loads (its jobs), then what the probes load beyond it;
    then the same for `seqalign compile --wide` and the wide probes."""
    import contextlib
    import io

    from seqalign_cli import precompile
    from seqalign_cli.cli import main

    def run(argv, where):
        os.makedirs(where, exist_ok=True)
        err = io.StringIO()
        argv = [*argv[:-1], os.path.join(where, argv[-1]), "--backend", "cpu", "-q"]
        try:
            with contextlib.redirect_stderr(err):
                main(argv)
        except SystemExit as exc:
            assert exc.code in (0, None), f"{argv}: {err.getvalue()}"

    report = {}
    precompile.precompile(say=lambda m: None)  # what `seqalign compile` runs
    paths = precompile.write_inputs(folder)
    for wide in (False, True):
        if wide:
            before = _loaded()
            os.makedirs(os.path.join(folder, "wide"))
            assert precompile.run_jobs(os.path.join(folder, "wide"), wide=True) == 0
            report["wide_jobs"] = _added(before, _loaded())
        before = _loaded()
        probes = _probes(paths, wide)
        for k, argv in enumerate(probes):
            run(argv, os.path.join(folder, f"{int(wide)}-{k}"))
        report["wide" if wide else "narrow"] = _added(before, _loaded())
        report[f"probes_{int(wide)}"] = len(probes)
    return report


def test_compile_covers_every_mode_route_and_width_of_every_subcommand(tmp_path):
    """After the jobs of `seqalign compile`, runs of every subcommand in every mode, traceback and score
    only, every engine route and output format load no compiled function that the jobs did not (so, after
    `seqalign compile`, none compiles); with scores past 32 bits, likewise after the jobs of
    `seqalign compile --wide`, which load specializations of every subcommand's engine that the plain
    jobs do not. In a process of its own, so that nothing is loaded before the jobs."""
    import json

    code = f"import json, test_precompile as t; print(json.dumps(t.coverage_report({str(tmp_path)!r})))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [TESTS, os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["probes_0"] >= 60 and report["probes_1"] >= 60
    assert report["narrow"] == {}, f"`seqalign compile` leaves these to a run: {report['narrow']}"
    assert report["wide"] == {}, f"`seqalign compile --wide` leaves these to a run: {report['wide']}"
    engines = {key.rsplit(".", 1)[0] for key in report["wide_jobs"]}
    for module in ("seqalign_cli.families.pairwise.cpu", "seqalign_cli.families.triplet.cpu_cube",
                   "seqalign_cli.families.triplet.cpu_affine", "seqalign_cli.families.graph.cpu_dp"):
        assert module in engines, sorted(report["wide_jobs"])  # each engine's wide cells


def test_the_wide_jobs_pass_every_engines_32_bit_limit(tmp_path):
    """WIDE_MATCH puts every record of the jobs' inputs past the limit below which each engine takes its
    32-bit cells (float32 lanes for pairs), and below the limit past which it refuses the scoring."""
    from seqalign_cli.families.graph import cpu as graph
    from seqalign_cli.families.pairwise import cpu as pairwise
    from seqalign_cli.families.triplet import cpu as triplet
    from seqalign_cli.config import Scoring
    from seqalign_cli.families.graph.chunks_gfa import load_graph

    paths = precompile.write_inputs(str(tmp_path))
    wide = Scoring(match=int(precompile.WIDE_MATCH))

    def lengths(path):
        import gzip

        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as fh:
            return [len(line.strip()) for line in fh if not line.startswith(">")]

    pairs = [(q, t) for q in lengths(paths["q"]) for t in lengths(paths["t"])]
    bounds = [wide.score_bound(q, t) for q, t in pairs + [(lengths(paths["long_q"])[0], lengths(paths["long_t"])[0])]]
    assert pairwise.FLOAT32_LIMIT <= min(bounds) and max(bounds) < pairwise.FLOAT64_LIMIT
    import numpy as np

    tri = np.array(lengths(paths["tri"])).reshape(-1, 3)
    bounds = wide.triplet_bound(tri)
    assert triplet.INT32_LIMIT <= bounds.min() and bounds.max() < triplet.INT64_LIMIT
    n_bases = load_graph(paths["gfa"]).n_bases
    bounds = [wide.score_bound(m, n_bases) for m in lengths(paths["reads"])]
    assert graph.INT32_LIMIT <= min(bounds) and max(bounds) < graph.INT64_LIMIT


def test_the_notice_speaks_whenever_a_run_compiles(tmp_path, monkeypatch):
    """After the first run of a family (its marker written, as `seqalign compile` writes it), a run that
    still compiles (a specialization left to first use) says so all the same; a close() that comes while a
    compile is under way ends the line once the compile ends, with the whole compile's time."""
    import io
    import re

    monkeypatch.setattr(jit, "CACHE_FOLDER", str(tmp_path))
    (tmp_path / f"seqalign-{jit.__version__}-pairwise.compiled").write_text("")
    out = io.StringIO()
    notice = jit.CompileNotice("pairwise", stream=out)
    assert not notice.first and not notice.active  # no compile expected: the progress bar need not wait
    assert out.getvalue() == ""
    jit.nb.njit(lambda x: x + 5)(1)  # compiles (not cached)
    notice.close()
    assert re.fullmatch(NOTICE_LINE + "\n", out.getvalue()), out.getvalue()
    notice.finish(ok=True)

    out = io.StringIO()
    notice = jit.CompileNotice("pairwise", stream=out)
    notice._start()  # a compile begins in the aligning thread
    notice.close()  # the first chunk is written meanwhile (another batch)
    assert out.getvalue() == "seqalign: " + notice.TEXT
    notice._end()
    assert re.fullmatch(NOTICE_LINE + "\n", out.getvalue()), out.getvalue()
    notice.finish(ok=True)
    assert out.getvalue().count("\n") == 1

    out = io.StringIO()
    quiet = jit.CompileNotice("pairwise", enabled=False, stream=out)
    jit.nb.njit(lambda x: x + 6)(1)
    quiet.finish(ok=True)
    assert out.getvalue() == "" and quiet.listener is None


def _entry_points():
    """Each subcommand's engine entry point that its wide cells compile (the one a run calls), as the
    engines import it."""
    from seqalign_cli.families.graph import cpu as graph
    from seqalign_cli.families.pairwise import cpu as pairwise
    from seqalign_cli.families.triplet import cpu as triplet

    return {"pair": pairwise.align_groups, "triplet": triplet.align_each, "graph": graph.align_each,
            "search": pairwise.align_groups}  # a search's two passes are the pairwise engine's


def test_a_wide_run_after_compile_says_that_it_compiles_in_every_subcommand(tmp_path):
    """The state after `seqalign compile` (its caches, the first-run markers) with the wide cells of each
    subcommand's engine not compiled: a run with scores past 32 bits compiles them and prints the notice
    with its time; the next run loads them and says nothing."""
    import re
    import shutil

    paths = precompile.write_inputs(str(tmp_path))
    family = {"pair": "pairwise", "triplet": "triplet", "graph": "graph", "search": "search"}
    args = {"pair": [paths["q"], paths["t"]], "triplet": ["--interleaved", paths["tri"]],
            "graph": [paths["gfa"], paths["reads"]], "search": ["--alphabet", "dna", paths["q"], paths["t"]]}
    assert sorted(args) == _subcommands()
    for command, entry in _entry_points().items():
        if entry is _entry_points()["pair"] and command != "pair":
            continue  # the same engine entry (a search's passes are the pairwise engine's): compiled once above
        cache = tmp_path / f"cache-{command}"
        if jit.CACHE_FOLDER != os.path.join(jit.PACKAGE, "__pycache__"):
            shutil.copytree(jit.CACHE_FOLDER, cache)  # what this suite compiled; else the run seeds it
        cache.mkdir(exist_ok=True)
        (cache / f"seqalign-{jit.__version__}-{family[command]}.compiled").write_text("")
        env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
        argv = [sys.executable, "-m", "seqalign_cli", command, "--match", precompile.WIDE_MATCH, *args[command],
                "--backend", "cpu", "-o", str(tmp_path / f"{command}.tsv")]
        # the seeded caches first (a run that compiles nothing), then the entry point's cache dropped
        first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        assert first.returncode == 0, first.stderr
        name = f"{entry.py_func.__module__.rsplit('.', 1)[1]}.{entry.py_func.__qualname__}-*.nbi"
        indexes = list(cache.rglob(name))
        assert indexes, f"no cache of {name} in {cache}"
        for index in indexes:
            index.unlink()
        compiled = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        assert compiled.returncode == 0, compiled.stderr
        notes = [line for line in compiled.stderr.splitlines() if "compil" in line]
        assert len(notes) == 1 and re.fullmatch(NOTICE_LINE, notes[0]), compiled.stderr
        assert list(cache.rglob(name)), "compiled, but not cached"
        again = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        assert again.returncode == 0 and "compil" not in again.stderr, again.stderr
