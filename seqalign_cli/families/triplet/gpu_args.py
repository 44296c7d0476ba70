"""The triplet kernels' arguments, stated once (``launch.KernelArgs``): one structure a kernel of
kernels/triplet.cu and kernels/triplet_affine.cu (or a set of kernels with one parameter list, ``ALSO``),
fields in the kernel's order. ``tests/test_kernel_contracts.py`` holds each to its kernels' parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...backends.cuda.launch import KernelArgs

A = object  # a device array, a scalar of the kernel's type, or launch.NULL


@dataclass
class Triplets(KernelArgs):
    """The sequences every forward kernel reads: codes and offsets of A, B and C, and the work list."""

    a: A
    aoff: A
    b: A
    boff: A
    c: A
    coff: A
    order: A

    @staticmethod
    def of(d, order) -> dict:
        """The fields of a batch on the device (``d``: ``gpu._DeviceBatch``) and a work list."""
        return {"a": d.codes[0], "aoff": d.offs[0], "b": d.codes[1], "boff": d.offs[1], "c": d.codes[2],
                "coff": d.offs[2], "order": order}


@dataclass
class SweepArgs(Triplets):
    """triplet_score and the kernels of the same list (TRIPLET_PARAMS): ``border``/``border_off`` the
    scratch between slices, ``out`` score and end cell (4 ints a triplet), ``tiles``/``ntiles``/``sync`` the
    tile wave (unused without tiles)."""

    KERNEL, NAME, ALSO = "triplet.cu", "triplet_score", ("triplet_score16", "triplet_small16")
    nwork: A
    match: A
    mismatch: A
    gap_open: A
    gap_extend: A
    n_penalty: A
    border: A
    border_off: A
    out: A
    tiles: A
    ntiles: A
    sync: A


@dataclass
class SweepTraceArgs(SweepArgs):
    """triplet_trace and triplet_trace16: the direction bytes (``dirs``/``dir_off``) and the window of
    slices (``wslices`` a triplet's window height, ``wq`` this window, ``ck``/``ck_off`` the kept slices)."""

    NAME, ALSO = "triplet_trace", ("triplet_trace16",)
    dirs: A
    dir_off: A
    wslices: A
    wq: A
    ck: A
    ck_off: A


@dataclass
class _Walk(KernelArgs):
    """What both walks read first: one thread a slot of ``order``, the offsets and the end cells."""

    order: A
    nwork: A
    aoff: A
    boff: A
    coff: A
    out: A


@dataclass
class WalkArgs(_Walk):
    """triplet_walk: the run buffers, the window, then the codes and the scoring it rescores cells with
    (``vals``: whether ``dirs`` holds values, not kinds)."""

    KERNEL, NAME = "triplet.cu", "triplet_walk"
    dirs: A
    dir_off: A
    run_off: A
    run_op: A
    run_len: A
    info: A
    wslices: A
    wq: A
    ck: A
    ck_off: A
    a: A
    b: A
    c: A
    match: A
    mismatch: A
    gap_extend: A
    n_penalty: A
    vals: A


@dataclass
class AffineArgs(Triplets):
    """triplet_affine: one block a triplet; ``kw`` the chunk width, ``ring``/``ring_off`` its rows, ``info``,
    ``words``/``word_off`` and the window (``wslices``, ``wq``) with traceback (NULL and 0 without)."""

    KERNEL, NAME = "triplet_affine.cu", "triplet_affine"
    match: A
    mismatch: A
    gap_open: A
    gap_extend: A
    n_penalty: A
    kw: A
    ring: A
    ring_off: A
    out: A
    info: A
    words: A
    word_off: A
    wslices: A
    wq: A


@dataclass
class AffineWalkArgs(_Walk):
    """triplet_affine_walk: one thread a triplet of ``order``, from the words of the window ``wq``."""

    KERNEL, NAME = "triplet_affine.cu", "triplet_affine_walk"
    words: A
    word_off: A
    run_off: A
    run_op: A
    run_len: A
    info: A
    wslices: A
    wq: A
