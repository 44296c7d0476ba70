"""Graph family on a GPU: the device engine against the CPU engine on random graphs, then timings.

    python benchmarks/check_graph.py [--cases 200] [--time] [--cpu-reads 20] [--section-rows N] [--int32]

Prints every field that differs (score, spans, path, CIGAR) and, with
``--time``, GCUPS of the GPU on the cactus-BRCA2 graph with its 1,000 reads
(glocal, score only and with traceback) beside the CPU engine on one thread.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from seqalign_cli.families.graph.cpu import CpuGraph  # noqa: E402
from seqalign_cli.families.graph.gpu import HOOKS, CudaGraph  # noqa: E402
from seqalign_cli.config import AlignConfig, Scoring  # noqa: E402
from seqalign_cli.families.graph.chunks_gfa import load_graph  # noqa: E402
from seqalign_cli.families.graph.batch import make_graph_batch  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "graph")


def random_gfa(rng: random.Random, nodes: int, max_len: int) -> str:
    lines = []
    for i in range(nodes):
        seq = "".join(rng.choice("ACGTN" if rng.random() < 0.1 else "ACGT") for _ in range(rng.randint(1, max_len)))
        lines.append(f"S\ts{i}\t{seq}")
    for j in range(1, nodes):
        for i in range(max(0, j - 4), j):
            if rng.random() < 0.5 or i == j - 1:
                lines.append(f"L\ts{i}\t+\ts{j}\t+\t0M")
    return "\n".join(lines) + "\n"


def mutate(rng: random.Random, seq: str) -> str:
    out = []
    for c in seq:
        r = rng.random()
        if r < 0.05:
            continue
        out.append(rng.choice("ACGT") if r < 0.12 else c)
        if rng.random() < 0.04:
            out.append(rng.choice("ACGT"))
    return "".join(out)


def fields(res, k):
    return (int(res.score[k]), int(res.qstart[k]), int(res.qend[k]), int(res.pstart[k]), int(res.pend[k]),
            tuple(res.path(k).tolist()) if res.traceback else (), res.cigars()[k] if res.traceback else "")


def compare(graph, reads, cfg, gpu, label) -> int:
    batch = make_graph_batch(graph, reads)
    cpu = CpuGraph(2).align(batch, cfg)
    out = HOOKS.allocate(batch, cfg)
    sub = np.flatnonzero(HOOKS.on_gpu(batch, cfg))
    if not len(sub):
        return 0
    gpu.align(batch, cfg, sub, out)
    out.finish(cfg)
    bad = 0
    for k in sub:
        a, b = fields(cpu, k), fields(out, k)
        if a != b:
            bad += 1
            if bad <= 5:
                print(f"DIFF {label} read {k} len {len(reads[k])}: cpu {a} gpu {b}", flush=True)
    return bad


def random_cases(n: int, gpu) -> int:
    rng = random.Random(7)
    bad = 0
    for case in range(n):
        text = random_gfa(rng, rng.randint(1, 30), rng.choice((1, 3, 12)))
        with tempfile.NamedTemporaryFile("w", suffix=".gfa", delete=False) as fh:
            fh.write(text)
        graph = load_graph(fh.name, forward_only=rng.random() < 0.3)
        os.unlink(fh.name)
        spelled = "".join("ACGTN"[c] for c in graph.codes)
        reads = []
        for _ in range(rng.randint(1, 40)):
            L = rng.choice((1, 5, 30, 31, 32, 33, 64, 80, 100, 150, 180, 250, 300, 513, 700, 1500))
            s = rng.randint(0, max(len(spelled) - 1, 0))
            piece = spelled[s:s + L] or "A"
            r = mutate(rng, piece) or "C"
            if rng.random() < 0.2:
                r = "".join(rng.choice("ACGT") for _ in range(L))
            reads.append(r.encode())
        sc = Scoring(rng.randint(0, 3), rng.randint(1, 5), rng.randint(0, 5), rng.randint(1, 3), rng.randint(0, 2))
        if case % 5 == 4:  # scores past the byte profile
            sc = Scoring(rng.randint(100, 200), rng.randint(128, 300), rng.randint(0, 500), rng.randint(1, 300), 130)
        for mode in ("global", "glocal", "local"):
            for trace in (False, True):
                cfg = AlignConfig(scoring=sc, mode=mode, traceback=trace)
                bad += compare(graph, reads, cfg, gpu, f"case {case} {mode} trace={trace} {sc}")
    print(f"random cases: {n}, differences: {bad}", flush=True)
    return bad


def read_fastq(path: str) -> list[bytes]:
    with open(path, "rb") as fh:
        return [line.strip() for i, line in enumerate(fh) if i % 4 == 1]


def timings(gpu, cpu_reads: int):
    graph = load_graph(os.path.join(DATA, "cactus-BRCA2.gfa"))
    reads = read_fastq(os.path.join(DATA, "cactus-BRCA2.fastq"))
    batch = make_graph_batch(graph, reads)
    print(f"cactus-BRCA2: {graph.n_bases} oriented bases, {batch.size} reads, {batch.cells() / 1e9:.2f} G cells")
    for trace in (False, True):
        for mode in ("glocal", "local", "global"):
            cfg = AlignConfig(mode=mode, traceback=trace)
            out = HOOKS.allocate(batch, cfg)
            sub = np.arange(batch.size)
            gpu.align(batch, cfg, sub, out)
            best = 1e9
            for _ in range(3):
                t = time.perf_counter()
                gpu.align(batch, cfg, sub, out)
                best = min(best, time.perf_counter() - t)
            print(f"gpu {mode} traceback={trace}: {best * 1e3:.1f} ms, {batch.cells() / best / 1e9:.1f} GCUPS",
                  flush=True)
    few = make_graph_batch(graph, reads[:cpu_reads])
    cfg = AlignConfig(mode="glocal", traceback=False)
    CpuGraph(1).align(make_graph_batch(graph, reads[:1]), cfg)
    t = time.perf_counter()
    CpuGraph(1).align(few, cfg)
    secs = time.perf_counter() - t
    print(f"cpu 1 thread glocal score only: {cpu_reads} reads {secs:.2f} s, {few.cells() / secs / 1e9:.3f} GCUPS",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--cpu-reads", type=int, default=20)
    ap.add_argument("--section-rows", type=int, default=None, help="least rows a section (default: the engine's)")
    ap.add_argument("--int32", action="store_true", help="every read in int32 cells (no 16-bit cells)")
    args = ap.parse_args()
    rows = {} if args.section_rows is None else {"section_rows": args.section_rows}
    gpu = CudaGraph(0, pack16=not args.int32, **rows)
    bad = random_cases(args.cases, gpu)
    if args.time:
        timings(gpu, args.cpu_reads)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
