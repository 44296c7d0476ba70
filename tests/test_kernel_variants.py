"""The one table of kernel variants (``backends/cuda/variants.py``): what ``seqalign info`` compiles is what the
build check instantiates, no kernel keeps a hand-written list, and every value a template parameter takes in a
launch (the pairwise engine's real launches, the other families' launch spaces) is compiled at least once."""

from __future__ import annotations

import itertools
import os
import re

import numpy as np
import pytest

from seqalign_cli.backends.cuda import variants
from seqalign_cli.backends.cuda.loader import kernel_dir
from seqalign_cli.config import AlignConfig, Mode
from support import numpy_cupy

BOOLS = (False, True)


def parse(name: str) -> tuple[str, tuple[str, ...]]:
    """``kernel<a, b>`` as ("kernel", ("a", "b"))."""
    head, _, args = name.partition("<")
    return head, tuple(a.strip() for a in args.rstrip(">").split(",")) if args else ()


def gaps(table: tuple[str, ...], launches) -> list[tuple[str, int, str]]:
    """(launch, parameter, value) of each launched template argument that no variant of the table has."""
    seen = {(head, k, v) for head, args in map(parse, table) for k, v in enumerate(args)}
    return sorted({(name, k, v) for name in launches for head, args in [parse(name)] for k, v in enumerate(args)
                   if (head, k, v) not in seen})


def test_the_build_file_instantiates_the_table_and_nothing_else():
    table = variants.table()
    assert set(table) == {f for f in os.listdir(kernel_dir()) if f.endswith(".cu")}
    for name, names in table.items():
        assert len(set(names)) == len(names), name
        source = variants.build_source(name, names)
        assert f'#include "{name}"' in source
        taken = re.findall(r"\(void\*\)&(\w+<[^>]*>),", source)
        assert taken == [getattr(v, "build", v) for v in names]


def test_whole_warps_shared_by_several_are_written_as_the_builds_warp():
    subwarp = variants.table()["pairwise_subwarp.cu"]
    shared = [v for v in subwarp if parse(v)[0].startswith("pairwise_subwarp") and parse(v)[1][4] != "1"]
    assert shared and all(parse(v.build)[1][2] == "SA_WARP" and parse(v)[1][2] == "32" for v in shared)
    # a group of 32 lanes alone in its block stays 32 (half a 64-wide warp is a valid group)
    alone = [v for v in subwarp if parse(v)[1][2:3] == ("32",) and parse(v)[1][4:] == ("1",)]
    assert alone and all(getattr(v, "build", v) == v for v in alone)


def test_no_kernel_keeps_a_hand_written_list():
    for name in os.listdir(kernel_dir()):
        if name.endswith((".cu", ".cuh")):
            with open(os.path.join(kernel_dir(), name)) as fh:
                assert "SA_INSTANTIATE_ALL" not in fh.read(), name


def test_main_writes_a_file_a_kernel(tmp_path, capsys, monkeypatch):
    assert variants.main([str(tmp_path)]) == 0
    written = sorted(os.listdir(tmp_path))
    assert written == sorted(os.path.splitext(f)[0] + "_variants.cu" for f in variants.table())
    assert variants.main([]) == 2
    monkeypatch.chdir(tmp_path)
    assert variants.main(["--help"]) == 0 and variants.main(["-x"]) == 2  # an option is never a folder
    assert sorted(os.listdir(tmp_path)) == written


def test_gaps_finds_a_value_never_compiled():
    assert gaps(("k<0, 4>", "k<1, 6>"), ["k<1, 4>"]) == []
    assert gaps(("k<0, 4>",), ["k<0, 8>"]) == [("k<0, 8>", 1, "8")]


def _pair_batch():
    """Pairs of every plan shape, long pairs (whole warps shared by warps, checkpointed traceback)."""
    from seqalign_cli.families.pairwise.batch import make_batch

    rng = np.random.default_rng(3)
    lengths = list(rng.integers(1, 400, 500)) + [2000, 3000, 5000, 9000, 17000]
    seq = lambda n: rng.choice(list(b"ACGT"), int(n)).astype(np.uint8).tobytes()  # noqa: E731
    return make_batch([seq(n) for n in lengths], [seq(max(1, n + 7)) for n in lengths])


@pytest.mark.parametrize("mode", ["global", "semi-global", "glocal", "local"])
def test_the_pairwise_launches_are_covered(monkeypatch, mode):
    from seqalign_cli.config import Scoring
    from seqalign_cli.families.pairwise.gpu import HOOKS, CudaPairwise

    calls = numpy_cupy.install(monkeypatch)
    batch = _pair_batch()
    table = variants.table()
    covered = table["pairwise_subwarp.cu"] + table["pairwise_warp.cu"]
    names = set()
    for trace, budget, scoring in itertools.product(BOOLS, (1 << 20, 1 << 32), (Scoring(), Scoring(300, 200, 500, 100))):
        cfg = AlignConfig(mode=mode, traceback=trace, matrix_budget=budget, scoring=scoring)
        calls.clear()
        subset = np.flatnonzero(HOOKS.on_gpu(batch, cfg))
        CudaPairwise(0).submit(batch, cfg, subset, HOOKS.allocate(batch, cfg))
        names |= {c[0] for c in calls}
    assert any("subwarp_walk" in n for n in names) and any(parse(n)[1][4:] == ("8",) for n in names)
    assert gaps(covered, names) == []


def test_the_pairwise_launch_space_is_covered():
    from seqalign_cli.families.pairwise import gpu_subwarp as sw
    from seqalign_cli.families.pairwise import gpu_warp as w
    from seqalign_cli.families.pairwise.plan import LONG, PLAN_G, PLAN_R

    modes = range(len(Mode))
    shapes = list(zip(PLAN_G, PLAN_R))
    rows = range(1, w.MAX_R + 1)
    subs = (w.SUB_COMPUTED, w.SUB_PROFILE, w.SUB_MATRIX)
    warp = [w.warp_name(m, t, r, s) for m in modes for t in BOOLS for r in rows for s in subs]
    warp += [w.trace_name(r) for r in rows]
    G, R = LONG
    subwarp = [sw.subwarp_name(m, t, g, r, p) for m in modes for t in BOOLS for g, r in shapes for p in BOOLS]
    subwarp += [sw.subwarp_name(m, False, G, R, p, wb) for m in modes for p in BOOLS for wb in (2, 4, 8)]
    subwarp += [sw.subwarp_name(m, False, G, R, True, 16) for m in modes]
    subwarp += [sw.trace_name(g, r, p) for g, r in shapes for p in BOOLS] + [sw.walk_name(G, R)]
    table = variants.table()
    assert gaps(table["pairwise_warp.cu"], warp) == []
    assert gaps(table["pairwise_subwarp.cu"], subwarp) == []


def test_the_triplet_launch_space_is_covered():
    from seqalign_cli.families.triplet import gpu_affine, plan

    traced = {(t, r) for _, t, r in plan.PLAN} | {plan.LONG} | set(plan.CHOICE)
    scored = traced | {(t, r) for *_, t, r in plan.SHORT} | set(plan.LONG_CHOICE)  # shapes of score only
    names = []
    for m, (t, r), pack in itertools.product(plan.MODES, sorted(scored), BOOLS):
        if pack and r > plan.PACK16_MAX_R:
            continue
        names += [plan.kernel_name(m, r, t, pack, wave=wave) for wave in BOOLS]
        if (t, r) in traced:
            names += [plan.kernel_name(m, r, t, pack, trace=True, wave=wave, windows=win, values=v)
                      for wave, win, v in itertools.product(BOOLS, BOOLS, BOOLS) if not v or t in plan.VALUES_LANES]
            names.append(plan.walk_name(m, r, t))
    names += [plan.kernel_name(m, q, 1, True, small=True) for m in plan.MODES for q in plan.SMALL]
    table = variants.table()
    assert gaps(table["triplet.cu"], names) == []
    assert set(table["triplet_affine.cu"]) == {n for m in plan.MODES for n in gpu_affine.kernel_names(m)}


def test_the_graph_and_search_launch_spaces_are_compiled_whole():
    from seqalign_cli.families.graph import gpu as graph
    from seqalign_cli.families.search import gpu as search

    table = variants.table()
    names = {f(k, m, t) for f in (graph.score_name, graph.score16_name) for k in graph.WIDTHS for m in graph.MODES
             for t in BOOLS}
    names |= {graph.walk_name(k, m) for k in graph.WIDTHS for m in graph.MODES}
    names |= {graph.best_name(m) for m in graph.MODES}
    assert names <= set(table["graph.cu"])
    groups = [g for _, g in search.GROUPS] + [search.LONG_GROUP]
    assert set(table["search.cu"]) == ({search.kernel_name(g, p) for g in groups for p in BOOLS}
                                       | {search.columns.kernel_name(g, c) for g, c in search.columns.SHAPES})
