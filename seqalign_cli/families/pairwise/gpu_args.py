"""The pairwise kernels' arguments, stated once (``launch.KernelArgs``): one structure a ``__global__``
function of kernels/pairwise_warp.cu and kernels/pairwise_subwarp.cu, fields in the kernel's order.

Every kernel starts with the batch's pairs (``Pairs``: codes, their offsets, the work list); the forward
kernels go on with the scoring (``Scored``), the walks with the mode and the direction codes.
``tests/test_kernel_contracts.py`` holds each structure to its kernel's parameter list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.cuda.launch import KernelArgs

A = object  # a device array, a scalar of the kernel's type, or launch.DIRS


@dataclass
class Pairs(KernelArgs):
    """The pairs every pairwise kernel reads: query and target codes with their offsets, and the work
    list ``order`` of ``nwork`` items (a pair index each; two in the 16-bit kernels, -1 for none)."""

    q: A
    qoff: A
    t: A
    toff: A
    order: A
    nwork: A

    @staticmethod
    def of(d, order, nwork) -> dict:
        """The fields of a batch on the device (``d``: q, qoff, t, toff) and a work list."""
        return {"q": d.q, "qoff": d.qoff, "t": d.t, "toff": d.toff, "order": order, "nwork": np.int32(nwork)}


@dataclass
class Scored(Pairs):
    match: A
    mismatch: A
    gap_open: A
    gap_extend: A
    n_penalty: A


@dataclass
class WarpArgs(Scored):
    """pairwise_warp: ``mat`` the 32 x 32 matrix (SUB_MATRIX), ``border``/``border_off`` the rows between
    stages, ``dirs``/``dir_off`` the direction codes (traceback), ``out`` the end cells (``ends``)."""

    KERNEL, NAME = "pairwise_warp.cu", "pairwise_warp"
    mat: A
    border: A
    border_off: A
    dirs: A
    dir_off: A
    out: A


@dataclass
class Subwarp16Args(Scored):
    """pairwise_subwarp16: as ``WarpArgs`` without a matrix."""

    KERNEL, NAME = "pairwise_subwarp.cu", "pairwise_subwarp16"
    border: A
    border_off: A
    dirs: A
    dir_off: A
    out: A


@dataclass
class SubwarpArgs(Subwarp16Args):
    """pairwise_subwarp: ``stage_sel`` each item's one stage to compute with codes (checkpointed
    traceback; NULL: every stage), ``keep`` whether the border rows of every stage are kept."""

    NAME = "pairwise_subwarp"
    stage_sel: A
    keep: A


@dataclass
class Walked(Pairs):
    """What every walk reads after the pairs: the mode, the direction codes and the end cells."""

    mode: A
    dirs: A
    dir_off: A
    ends: A

    @staticmethod
    def runs(d) -> dict:
        """The run buffers a walk writes (``d``: run_off, run_op, run_len, info)."""
        return {"run_off": d.run_off, "run_op": d.run_op, "run_len": d.run_len, "info": d.info}


@dataclass
class _Traced(Walked):
    """A whole walk's run buffers (``Walked.runs``)."""

    run_off: A
    run_op: A
    run_len: A
    info: A


@dataclass
class WarpTraceArgs(_Traced):
    """pairwise_trace: ``eq_all`` whether every equal pair of codes is '=' (protein), not only A C G T."""

    KERNEL, NAME = "pairwise_warp.cu", "pairwise_trace"
    eq_all: A


@dataclass
class SubwarpTraceArgs(_Traced):
    """subwarp_trace: the scoring after the run buffers (the walk rescores the 16-bit kernels' cells)."""

    KERNEL, NAME = "pairwise_subwarp.cu", "subwarp_trace"
    match: A
    mismatch: A
    gap_open: A
    gap_extend: A
    n_penalty: A


@dataclass
class WalkArgs(Walked):
    """subwarp_walk (checkpointed traceback): ``stage_sel`` each pair's stage this round, ``walk`` the
    saved walkers (WALKER_INTS a pair)."""

    KERNEL, NAME = "pairwise_subwarp.cu", "subwarp_walk"
    stage_sel: A
    walk: A
    run_off: A
    run_op: A
    run_len: A
    info: A
