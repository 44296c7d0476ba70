"""Where a short GPU run's time goes before and around the alignment work.

Usage: python benchmarks/startup.py [--runs 3] [--late-driver] [--orders] [--traceback]
                                    [--family pairwise|triplet] [FILE ...]

Starts a fresh interpreter ``runs`` times. Each one takes the steps of a
``seqalign pair`` (or ``seqalign triplet``) run on the GPU one at a time and
prints, for each step, the seconds since the parent started the process
(the interpreter's own start included):

    interpreter   the child's first line runs
    cli           import seqalign_cli.cli (click, the options)
    runner        start the driver early (as ``run`` does; not with --late-driver),
                  import the runner, the readers and batching (numpy, numba)
    cupy          import cupy
    devices       cupy.cuda.runtime.getDeviceCount()
    context       the first allocation on GPU 0 (creates the CUDA context)
    backend       select_backend(family, "cuda", ...) (engine objects)
    read          read and encode the first 20,000 records of the inputs
                  (loads the parser's compiled code)
    first batch   align them (loads every kernel module that batch needs,
                  the planner's compiled code)
    second batch  the same records again (all loaded)
    format        the first batch's TSV (MAF for triplets with --traceback)
                  rows, into a sink that drops them

Pairs align with traceback (TSV with CIGARs), triplets score only unless
``--traceback``. The files default to the GASAL2 pairs of the shared data
folder (``--family pairwise``); triplets need their three files.

``--orders``: instead, the seconds until numba's first cached function has
run (the parser) and CuPy has made its first array, with the two done one
after the other (numba first, or CuPy first) or one in a thread beside the
other, the orders taking turns ``runs`` times: how much of the imports one
thread could hide behind the other's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "pairwise", "gasal2")

CHILD = r"""
import sys, time
t0 = float(sys.argv[1])
def mark(what):
    print(f"{what}\t{time.time() - t0:.3f}", flush=True)
mark("interpreter")
import seqalign_cli.cli
mark("cli")
family_name, driver, trace, files = sys.argv[2], sys.argv[3], sys.argv[4] == "trace", sys.argv[5:]
if driver == "early":
    from seqalign_cli.backends.cuda import start_driver
    start_driver(0)  # as the runner does
import seqalign_cli.runner
from seqalign_cli import families
from seqalign_cli.backends import select_backend
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.pairwise.inputs import PairInputs, TripletInputs
from seqalign_cli.writers import WriterContext, make_writer
mark("runner")
import cupy
mark("cupy")
cupy.cuda.runtime.getDeviceCount()
mark("devices")
cupy.zeros(1).sum().item()
mark("context")
family = families.get(family_name)
backend = select_backend(family, "cuda", 16, lambda m: None, 0)
mark("backend")
inputs = TripletInputs(tuple(files)) if family_name == "triplet" else PairInputs(*files)
chunk = next(iter(family.read(inputs, 20000)))
batch = chunk.batch()
mark("read")
# the command line's defaults: triplets' gaps linear (--gap-open 0), --max-matrix-mb 256
cfg = AlignConfig(traceback=trace, scoring=Scoring(gap_open=0) if family_name == "triplet" else Scoring(),
                matrix_budget=256 << 20)
res = backend.start(batch, cfg).result()
mark("first batch")
backend.start(batch, cfg).result()
mark("second batch")
class Sink:
    def open(self, threads=1): return self
    def write(self, data): return len(data)
    def commit(self): pass
fmt = "maf" if family_name == "triplet" and trace else "tsv"
make_writer(family.name, fmt, WriterContext(out=Sink(), traceback=trace, inputs=inputs)).write(chunk, res)
mark("format")
"""


ORDERS_CHILD = r"""
import sys, threading, time
t0 = float(sys.argv[1])
import numpy as np
def numba_part():
    from seqalign_cli.io.parse import parse_fasta
    parse_fasta(np.frombuffer(b">a\nACGT\n", np.uint8), 8, True)
def cupy_part():
    import cupy
    cupy.zeros(1)
order = sys.argv[2]
if order in ("numba, cupy", "cupy, numba"):
    for part in ((numba_part, cupy_part) if order == "numba, cupy" else (cupy_part, numba_part)):
        part()
else:
    side, main = (cupy_part, numba_part) if order == "cupy beside numba" else (numba_part, cupy_part)
    thread = threading.Thread(target=side)
    thread.start()
    main()
    thread.join()
print(f"{time.time() - t0:.3f}")
"""
ORDERS = ("numba, cupy", "cupy, numba", "cupy beside numba", "numba beside cupy")


def orders(runs: int):
    """Seconds to numba's first cached function and CuPy's first array, in each order (runs taking turns)."""
    times: dict[str, list[float]] = {order: [] for order in ORDERS}
    for _ in range(runs):
        for order in ORDERS:
            start = time.time()
            out = subprocess.run([sys.executable, "-c", ORDERS_CHILD, repr(start), order],
                                 check=True, capture_output=True, text=True).stdout
            times[order].append(float(out))
    for order, secs in times.items():
        print(f"{order}\tmedian {statistics.median(secs):.3f} s\truns " + " ".join(f"{x:.3f}" for x in secs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", help="the run's input files (default: the GASAL2 pairs)")
    ap.add_argument("--family", default="pairwise", choices=("pairwise", "triplet"))
    ap.add_argument("--traceback", action="store_true", help="triplets: traceback and MAF rows (pairs always)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--late-driver", action="store_true", help="no early start of the driver")
    ap.add_argument("--orders", action="store_true", help="time numba's and CuPy's first uses in four orders")
    args = ap.parse_args()
    if args.orders:
        orders(args.runs)
        return
    files = args.files or [os.path.join(DATA, "query_batch.fasta.gz"), os.path.join(DATA, "target_batch.fasta.gz")]
    trace = args.traceback or args.family == "pairwise"
    rows = []
    for _ in range(args.runs):
        start = time.time()
        out = subprocess.run([sys.executable, "-c", CHILD, repr(start), args.family,
                              "late" if args.late_driver else "early", "trace" if trace else "score", *files],
                             check=True, capture_output=True, text=True).stdout
        rows.append([line.split("\t") for line in out.strip().splitlines()])
    print("step\t" + "\t".join(f"run {i + 1}: s since start (step)" for i in range(args.runs)))
    for k, (step, _) in enumerate(rows[0]):
        cells = []
        for run in rows:
            t = float(run[k][1])
            prev = float(run[k - 1][1]) if k else 0.0
            cells.append(f"{t:.3f} ({t - prev:.3f})")
        print(step + "\t" + "\t".join(cells))


if __name__ == "__main__":
    main()
