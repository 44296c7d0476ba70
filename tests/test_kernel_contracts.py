"""The host-kernel contracts: each kernel's argument structure (``launch.KernelArgs``) names the kernel's
parameters in the kernel's order, read from its source (no GPU needed); every kernel a launch calls has one."""

from __future__ import annotations

import glob
import os
import re
from dataclasses import fields

import pytest

from seqalign_cli.backends.cuda.device import PackArgs
from seqalign_cli.backends.cuda.launch import KernelArgs, global_functions, kernel_parameters
from seqalign_cli.backends.cuda.loader import kernel_dir
from seqalign_cli.families.graph import gpu_args as graph
from seqalign_cli.families.pairwise import gpu_args as pairwise
from seqalign_cli.families.search.gpu import SearchArgs
from seqalign_cli.families.search.gpu_columns import ColumnArgs
from seqalign_cli.families.triplet import gpu_args as triplet

CONTRACTS = [PackArgs, SearchArgs, ColumnArgs,
             pairwise.WarpArgs, pairwise.WarpTraceArgs, pairwise.Subwarp16Args, pairwise.SubwarpArgs,
             pairwise.SubwarpTraceArgs, pairwise.WalkArgs,
             triplet.SweepArgs, triplet.SweepTraceArgs, triplet.WalkArgs, triplet.AffineArgs, triplet.AffineWalkArgs,
             graph.ScoreArgs, graph.BestArgs, graph.WalkArgs]


def kernel_source(name: str, seen: set | None = None) -> str:
    """kernels/``name`` with the family headers it includes (``#include "<family>/x.cuh"``) inlined, as the
    compiler reads it: a parameter list may be a macro of a header."""
    seen = set() if seen is None else seen
    with open(os.path.join(kernel_dir(), name)) as fh:
        source = fh.read()
    inline = lambda m: "" if m.group(1) in seen or seen.add(m.group(1)) else kernel_source(m.group(1), seen)  # noqa: E731
    return re.sub(r'^#include "(\w+/[\w.]+)"$', inline, source, flags=re.M)


@pytest.mark.parametrize("args", CONTRACTS, ids=lambda a: a.NAME)
def test_argument_structures_follow_their_kernels(args):
    source = kernel_source(args.KERNEL)
    for name in (args.NAME, *args.ALSO):
        assert [f.name for f in fields(args)] == kernel_parameters(source, name), name


def test_every_argument_structure_is_checked():
    assert set(KernelArgs.contracts()) == set(CONTRACTS)


def test_every_kernel_has_an_argument_structure():
    defined = set()
    for path in glob.glob(os.path.join(kernel_dir(), "*.cu")):
        with open(path) as fh:
            defined |= {(os.path.basename(path), name) for name in global_functions(fh.read())}
    assert defined == {(c.KERNEL, name) for c in CONTRACTS for name in (c.NAME, *c.ALSO)}


def test_the_host_owns_the_block_size():
    """Every family launches launch.THREADS a block, and the kernels take that value from the loader's defines
    (common.cuh's fallback for a build by hand is the same number) instead of a number of their own."""
    from seqalign_cli.backends.cuda import launch, loader
    from seqalign_cli.families.graph import gpu as graph_gpu
    from seqalign_cli.families.pairwise import gpu_subwarp, gpu_warp
    from seqalign_cli.families.search import gpu as search_gpu
    from seqalign_cli.families.triplet import plan as triplet_plan

    assert {m.THREADS for m in (graph_gpu, gpu_subwarp, gpu_warp, search_gpu, triplet_plan)} == {launch.THREADS}
    assert f"-DSA_THREADS={launch.THREADS}" in loader.defines()
    with open(os.path.join(kernel_dir(), "common.cuh")) as fh:
        common = fh.read()
    fallback = re.search(r"#ifndef SA_THREADS\n#define SA_THREADS (\d+)\n#endif", common)
    assert fallback and int(fallback.group(1)) == launch.THREADS
    for path in glob.glob(os.path.join(kernel_dir(), "**", "*.cu*"), recursive=True):
        if os.path.basename(path) == "common.cuh":  # the fallback, above
            continue
        with open(path) as fh:
            assert not re.search(r"(define\s+SA_THREADS|\bTHREADS\s*=)\s*\d", fh.read()), path


def test_parameter_parsing_reads_templates_bounds_and_comments():
    source = """
    // search_local(int wrong)
    template <int G>
    __global__ void __launch_bounds__(128, 2) k(const uint8_t* __restrict__ a, /* b */ int n,
                                                 uint2* border) {}
    """
    assert kernel_parameters(source, "k") == ["a", "n", "border"]
    nested = "template <int W>\n__global__ void __launch_bounds__(W > 1 ? (W * 32) : 128, (1)) k2(int x, int* y) { k(x); }"
    assert kernel_parameters(nested, "k2") == ["x", "y"]
    with pytest.raises(ValueError):
        kernel_parameters(source, "missing")
    shared = "#define PARAMS int a, \\\n    int* b\n__global__ void k3(PARAMS, int c) {}"
    assert kernel_parameters(shared, "k3") == ["a", "b", "c"]
    assert global_functions(source + nested + shared) == {"k", "k2", "k3"}
