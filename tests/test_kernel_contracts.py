"""The host-kernel contracts: each kernel's argument structure (``launch.KernelArgs``) names the kernel's
parameters in the kernel's order, read from its source (no GPU needed)."""

from __future__ import annotations

import os
from dataclasses import fields

import pytest

from seqalign_cli.backends.cuda.launch import KernelArgs, kernel_parameters
from seqalign_cli.backends.cuda.loader import kernel_dir
from seqalign_cli.families.search.gpu import SearchArgs

CONTRACTS = [SearchArgs]


@pytest.mark.parametrize("args", CONTRACTS, ids=lambda a: a.NAME)
def test_argument_structures_follow_their_kernels(args):
    with open(os.path.join(kernel_dir(), args.KERNEL)) as fh:
        source = fh.read()
    assert [f.name for f in fields(args)] == kernel_parameters(source, args.NAME)


def test_every_argument_structure_is_checked():
    assert {c for c in KernelArgs.__subclasses__()} == set(CONTRACTS)


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
