"""Where a run's wall time goes, thread by thread: ``seqalign`` in process, its threads' stacks sampled.

Usage: python benchmarks/profile_threads.py [--interval 0.002] [--top 20] -- pair --backend cuda Q T -o out.tsv ...

A sampling thread looks at every thread's stack each ``--interval`` seconds
(``sys._current_frames``) and counts, per thread kind (reader, aligning,
writer, the GPUs' pipelines, formatting and compression pools merged by name),
the innermost frame of this package or of the libraries it calls, and the
whole stack's frames of this package. Printed: per thread kind, the share of
samples in each place (waiting included: a thread blocked in a queue shows
there). Compiled code (numba, CuPy's kernels) shows as the Python line that
called it. Works with any Python version and slows the run little.
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
import time
from collections import Counter, defaultdict


def _where(frame) -> str:
    code = frame.f_code
    return f"{code.co_filename.split('/site-packages/')[-1].split('/work/main/')[-1]}:{frame.f_lineno}({code.co_name})"


def _own(frame) -> str | None:
    """The innermost frame of seqalign_cli in a stack."""
    while frame is not None:
        if "seqalign_cli" in frame.f_code.co_filename:
            return _where(frame)
        frame = frame.f_back
    return None


def sample(stop: threading.Event, interval: float, leaf: dict, own: dict, counts: Counter):
    me = threading.get_ident()
    while not stop.wait(interval):
        names = {t.ident: t.name for t in threading.enumerate()}
        for ident, frame in sys._current_frames().items():
            if ident == me:
                continue
            kind = re.sub(r"[-_]?\d+(_\d+)?$", "", names.get(ident, "?"))
            counts[kind] += 1
            leaf[kind][_where(frame)] += 1
            place = _own(frame)
            if place is not None:
                own[kind][place] += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interval", type=float, default=0.002)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    leaf, own, counts = defaultdict(Counter), defaultdict(Counter), Counter()
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(stop, opts.interval, leaf, own, counts), daemon=True)
    t0 = time.perf_counter()
    sampler.start()
    from seqalign_cli.cli import main as seqalign

    try:
        seqalign(args)
    except SystemExit as exc:
        if exc.code:
            raise
    finally:
        stop.set()
        sampler.join()
    print(f"wall {time.perf_counter() - t0:.2f} s, a sample every {opts.interval * 1e3:.1f} ms")
    for kind, n in counts.most_common():
        print(f"\n===== {kind}: {n} samples ({n * opts.interval:.2f} s of thread time)")
        print("  innermost frame:")
        for place, k in leaf[kind].most_common(opts.top):
            print(f"    {100 * k / n:5.1f}%  {place}")
        print("  innermost seqalign frame:")
        for place, k in own[kind].most_common(opts.top):
            print(f"    {100 * k / n:5.1f}%  {place}")


if __name__ == "__main__":
    main()
