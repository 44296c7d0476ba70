"""Compiling ahead: the precompile jobs run, the guard of a wheel build, shipped caches seeded in numba's layout."""

import os

from numba.core.caching import UserProvidedCacheLocator

from seqalign_cli import jit, precompile


def test_every_precompile_job_runs(tmp_path):
    """The jobs a wheel build and `seqalign compile` run are valid command lines that succeed."""
    messages = []
    assert precompile.run_jobs(str(tmp_path), messages.append) == 0, messages
    commands = {args[0] for args, _ in precompile.JOBS}
    assert commands == {"pair", "triplet", "graph"}
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

    from seqalign_cli.backends.cuda import pairwise_plan as plan
    from seqalign_cli.backends.cuda.pairwise import HOOKS
    from seqalign_cli.backends.cuda.pairwise_subwarp import border_layout
    from seqalign_cli.config import AlignConfig
    from seqalign_cli.io.encode import make_batch

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

    from seqalign_cli.backends.cuda import pairwise_plan as plan
    from seqalign_cli.config import AlignConfig
    from seqalign_cli.io.encode import make_batch

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
    from seqalign_cli.io.encode import encode_many, make_batch
    from seqalign_cli.io.graph import GraphBatch
    from seqalign_cli.io.triplet import make_triplets

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

    from seqalign_cli import batching
    from seqalign_cli.backends.cpu.pairwise import CpuPairwise
    from seqalign_cli.backends.cpu.triplet import CpuTriplet
    from seqalign_cli.backends.cuda.pairwise import HOOKS as PAIRS
    from seqalign_cli.backends.cuda.triplet import HOOKS as TRIPLETS
    from seqalign_cli.config import AlignConfig, Scoring
    from seqalign_cli.io.encode import make_batch
    from seqalign_cli.io.triplet import make_triplets
    from seqalign_cli.results import CIGAR_LETTERS, COLUMN_LETTERS

    batching.compile_ahead()
    before = len(batching._scatter.signatures)
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
    assert len(batching._scatter.signatures) == before


def test_the_triplet_wave_table_compiles_nothing_after_compile_ahead():
    """The tile wave's table is compiled code (one pass that releases the interpreter lock); the triplet GPU
    engine's ``compile_ahead`` (run by precompile) compiles it with the types of a run's plan."""
    import numpy as np

    from seqalign_cli.backends.cuda import triplet_plan as tp
    from seqalign_cli.config import AlignConfig

    tp.compile_ahead()
    before = len(tp._wave_table.signatures)
    assert before
    lengths = np.array([[300, 500, 200], [5, 5, 5], [100, 24, 23]])
    plans = tp.plan_launches(lengths, np.arange(3), AlignConfig(), tp.Tuning(wave_tiles=2))
    assert any(pl.ntiles for pl in plans)
    assert len(tp._wave_table.signatures) == before
