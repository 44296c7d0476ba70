"""The graph family's benchmark behind ``seqalign bench --family graph``: GCUPS of the graph kernels by read
length and mode, reads sampled from the graph's own walks.
"""

from __future__ import annotations

import time

import numpy as np

from ...config import AlignConfig
from .batch import GraphBatch
from .gpu import HOOKS, CudaGraph


def time_graph(engine: CudaGraph, batch: GraphBatch, cfg: AlignConfig, reps: int = 3) -> float:
    """Best wall time of aligning ``batch`` on the device (graph already uploaded), seconds."""
    out = HOOKS.allocate(batch, cfg)
    subset = np.arange(batch.size)
    engine.align(batch, cfg, subset, out)  # compile, upload the graph
    best = float("inf")
    for _ in range(reps):
        engine.cp.cuda.Device(engine.device).synchronize()
        t = time.perf_counter()
        engine.align(batch, cfg, subset, out)
        best = min(best, time.perf_counter() - t)
    return best


def bench_run(lengths, modes, scorings=None, reps: int = 3, target_cells: float = 2e10, out=print,
              graph_path: str | None = None, traceback: bool = False):
    """GCUPS of the graph kernels by read length and mode, reads sampled from the graph's own walks.

    The signature of ``seqalign bench``'s call; the graph is the packaged
    test graph (cactus-BRCA2 when present) or ``graph_path``; cells = read
    length x bases of the oriented graph.
    """
    from .chunks_gfa import load_graph
    from .batch import make_graph_batch
    from ...backends.cuda import device_name

    graph = load_graph(graph_path or _default_graph())
    engine = CudaGraph(0)
    out(f"# {device_name(0)}; {graph.n_bases} oriented bases; wall time of the device engine, best of {reps}")
    out("length\treads\tmode\ttraceback\tms\tGCUPS")
    rng = np.random.default_rng(1)
    letters = np.frombuffer(b"ACGT", np.uint8)
    spelled = letters[np.minimum(graph.codes, 3)]
    for L in lengths:
        count = int(min(100_000, max(132 * 4, target_cells // max(L * graph.n_bases, 1))))
        starts = rng.integers(0, max(graph.n_bases - L, 1), count)
        reads = [spelled[s:s + L].tobytes() for s in starts]
        batch = make_graph_batch(graph, reads)
        for mode in modes:
            if mode not in ("global", "glocal", "local"):
                continue
            cfg = AlignConfig(mode=mode, traceback=traceback)
            secs = time_graph(engine, batch, cfg, reps)
            out(f"{L}\t{count}\t{mode}\t{traceback}\t{secs * 1e3:.1f}\t{batch.cells() / secs / 1e9:.1f}")


def _default_graph() -> str:
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../../../tests/data/graph/cactus-BRCA2.gfa",):
        path = os.path.normpath(os.path.join(here, rel))
        if os.path.exists(path):
            return path
    raise FileNotFoundError("no graph to benchmark: pass graph_path")
