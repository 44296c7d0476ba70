"""The graph kernels' arguments, stated once (``launch.KernelArgs``): one structure a kernel of
kernels/graph.cu (or a set with one parameter list, ``ALSO``), fields in the kernel's order.
``tests/test_kernel_contracts.py`` holds each to its kernels' parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.cuda.launch import KernelArgs, profile_fits, scores

A = object  # a device array or a scalar of the kernel's type


@dataclass
class GraphReads(KernelArgs):
    """What the sweeps and the walk read first (GRAPH_ARGS): the graph's arrays (``_DeviceGraph``), its
    sections, the reads with the work list and its item counter, the scoring."""

    gcode: A
    pred_off: A
    pred: A
    slot: A
    flags: A
    gnode: A
    multi: A
    meta: A
    eslot: A
    n: A
    n_slots: A
    sec: A
    nsec: A
    rcode: A
    roff: A
    order: A
    count: A
    next: A
    match: A
    mismatch: A
    gap_open: A
    gap_extend: A
    n_penalty: A
    use_prof: A

    @staticmethod
    def of(dg, d, order, count: int, counter, scoring) -> dict:
        """The fields of a graph on the device (``dg``), a batch (``d``: codes, offs) and a work list."""
        graph = dict(zip(("gcode", "pred_off", "pred", "slot", "flags", "gnode", "multi", "meta", "eslot"),
                         dg.arrays))
        return dict(graph, n=np.int32(dg.n), n_slots=np.int32(dg.n_slots), sec=dg.sec, nsec=np.int32(dg.nsec),
                    rcode=d.codes, roff=d.offs, order=order, count=np.int32(count), next=counter, **scores(scoring),
                    use_prof=np.int32(profile_fits(scoring)))


@dataclass
class ScoreArgs(GraphReads):
    """graph_score and graph_score16: each warp's work rows (``ws_all``), borders or stripe links
    (``border_all``), checkpoints every ``B`` steps (``cp_all``), the sections' end cells, the pipeline's
    stripes (``pipe``, 0: none)."""

    KERNEL, NAME, ALSO = "graph.cu", "graph_score", ("graph_score16",)
    ws_all: A
    ws_stride: A
    border_all: A
    border_stride: A
    cp_all: A
    cp_stride: A
    B: A
    ends: A
    pipe: A


@dataclass
class BestArgs(KernelArgs):
    """graph_best: one thread a read, the best of its ``nsec`` end cells into ``out``; ``oe`` and ``ge`` the
    costs of a gap's first and next bases."""

    KERNEL, NAME = "graph.cu", "graph_best"
    ends: A
    nsec: A
    roff: A
    order: A
    count: A
    oe: A
    ge: A
    out: A


@dataclass
class WalkArgs(GraphReads):
    """graph_walk: the sweep's work rows and checkpoints, each warp's windows, codes and arguments
    (``*_all`` with their strides), the end cells (``out``), the run buffers, the path (``node_off``,
    ``nodes``), ``info``, and whether the checkpoints hold two reads (``packed``)."""

    KERNEL, NAME = "graph.cu", "graph_walk"
    ws_all: A
    ws_stride: A
    cp_all: A
    cp_stride: A
    B: A
    win_all: A
    codes_all: A
    codes_stride: A
    args_all: A
    args_stride: A
    out: A
    run_off: A
    run_op: A
    run_len: A
    node_off: A
    nodes: A
    info: A
    packed: A
