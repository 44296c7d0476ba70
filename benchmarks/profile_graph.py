"""Graph kernels on a GPU: kernel time by read count and width (device events), to see where time goes.

    python benchmarks/profile_graph.py [--graph tests/data/graph/cactus-BRCA2.gfa] [--counts 250,1000,4000,16000]
        [--cells 16,32]

--lengths L,...: reads of these lengths taken from the graph's own bases (in place of --reads).
--cells: the cell widths to time, 16 (glocal and local reads that fit go two a warp in 16-bit cells, the
engine's default) and 32 (every read in int32 cells).
--pipeline on,off: reads of several stripes in the stripe pipeline where the engine's rule takes it (on, the
default) or a warp a read (off).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from seqalign_cli.families.graph.gpu import HOOKS, CudaGraph  # noqa: E402
from seqalign_cli.config import AlignConfig  # noqa: E402
from seqalign_cli.families.graph.chunks_gfa import load_graph  # noqa: E402
from seqalign_cli.families.graph.batch import make_graph_batch  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "graph")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", default=os.path.join(DATA, "cactus-BRCA2.gfa"))
    ap.add_argument("--reads", default=os.path.join(DATA, "cactus-BRCA2.fastq"))
    ap.add_argument("--counts", default="250,1000,4000,16000")
    ap.add_argument("--lengths", default="", help="reads of these lengths from the graph's bases (not --reads)")
    ap.add_argument("--modes", default="glocal")
    ap.add_argument("--traceback", action="store_true")
    ap.add_argument("--widths", default="1", help="least columns a lane holds (comma-separated runs)")
    ap.add_argument("--cells", default="16", help="16 (the default engine), 32 (int32 cells only), or both")
    ap.add_argument("--pipeline", default="on", help="on (the engine's rule), off (a warp a read), or both")
    ap.add_argument("--section-rows", type=int, default=None,
                    help="least rows a section (default: the engine's; more than the graph: one section)")
    args = ap.parse_args()
    import cupy as cp

    graph = load_graph(args.graph)
    with open(args.reads, "rb") as fh:
        sets = {"reads": [line.strip() for i, line in enumerate(fh) if i % 4 == 1]}
    if args.lengths:
        rng = np.random.default_rng(1)
        spelled = np.frombuffer(b"ACGT", np.uint8)[np.minimum(graph.codes, 3)]
        sets = {f"{L} bp": [spelled[s:s + L].tobytes() for s in rng.integers(0, max(graph.n_bases - L, 1), 4096)]
                for L in map(int, args.lengths.split(","))}
    print(f"{graph.n_bases} oriented bases, {graph.n_slots} slots, {int((np.diff(graph.pred_off) >= 2).sum())} "
          f"rows of several predecessors")
    for name, reads, mode, w, count, bits, pipe in (
            (n, r, m, int(w), int(c), int(b), p) for n, r in sets.items() for m in args.modes.split(",")
            for w in args.widths.split(",") for c in args.counts.split(",") for b in args.cells.split(",")
            for p in args.pipeline.split(",")):
        rows = {} if args.section_rows is None else {"section_rows": args.section_rows}
        eng = CudaGraph(0, min_width=w, pack16=bits == 16, pipeline=pipe == "on", **rows)
        if True:
            rs = (reads * (count // len(reads) + 1))[:count]
            batch = make_graph_batch(graph, rs)
            cfg = AlignConfig(mode=mode, traceback=args.traceback)
            out = HOOKS.allocate(batch, cfg)
            sub = np.arange(batch.size)
            eng.align(batch, cfg, sub, out)
            cp.cuda.Device(0).synchronize()
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            eng.align(batch, cfg, sub, out)
            end.record()
            end.synchronize()
            ms = cp.cuda.get_elapsed_time(start, end)
            print(f"{name} {mode} width>={w} cells {bits} pipeline {pipe} reads {count}: {ms:.1f} ms, "
                  f"{batch.cells() / ms / 1e6:.1f} GCUPS, "
                  f"{ms * 1e6 / (graph.n_bases + 31):.0f} ns a step", flush=True)


if __name__ == "__main__":
    main()
