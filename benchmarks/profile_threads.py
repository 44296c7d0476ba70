"""Where a run's wall time goes, thread by thread: ``seqalign`` in process, its threads' stacks sampled.

Usage: python benchmarks/profile_threads.py [--interval 0.002] [--top 20] [--window 0.05]
                                           -- pair --backend cuda Q T -o out.tsv ...

A sampling thread looks at every thread's stack each ``--interval`` seconds
(``sys._current_frames``) and counts, per thread kind (reader, aligning,
writer, the GPUs' pipelines, formatting and compression pools merged by name),
the innermost frame of this package or of the libraries it calls, and the
whole stack's frames of this package. Printed: per thread kind, the share of
samples in each place (waiting included: a thread blocked in a queue shows
there). Compiled code (numba, CuPy's kernels) shows as the Python line that
called it. Works with any Python version and slows the run little.

Then a timeline per thread kind, one character a ``--window`` (default 50 ms)
since the start: how busy its threads were there (0-9 tenths of the samples
outside a wait: a queue, an event, an idle pool worker; blank: no such
thread then), to see which thread the run waits on at each moment.

Last, the CPU time each thread kind used against the time its threads were
alive (``time.thread_time`` at a thread's start and end; the main thread from
the run's start): a thread that is busy in the samples but uses little CPU
waits for the interpreter lock, the driver or the disk.
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


def _idle(frame) -> bool:
    """Whether a thread waits: in a lock, queue or event wait, or an idle pool worker."""
    code = frame.f_code
    return code.co_filename.endswith(("threading.py", "queue.py")) or code.co_name == "_worker"


def sample(stop: threading.Event, interval: float, leaf: dict, own: dict, counts: Counter, timeline: dict,
           window: float):
    me = threading.get_ident()
    t0 = time.perf_counter()
    while not stop.wait(interval):
        names = {t.ident: t.name for t in threading.enumerate()}
        at = int((time.perf_counter() - t0) / window)
        for ident, frame in sys._current_frames().items():
            if ident == me:
                continue
            kind = re.sub(r"[-_]?\d+(_\d+)?$", "", names.get(ident, "?"))
            counts[kind] += 1
            seen, busy = timeline[kind]
            seen[at] += 1
            busy[at] += not _idle(frame)
            leaf[kind][_where(frame)] += 1
            place = _own(frame)
            if place is not None:
                own[kind][place] += 1


def count_cpu(used: list):
    """Record (name, CPU seconds, wall seconds) of every thread started from now on, at its end."""
    run = threading.Thread.run

    def counted_run(self):
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            return run(self)
        finally:
            used.append((self.name, time.thread_time() - cpu, time.perf_counter() - wall))

    threading.Thread.run = counted_run


def run_seqalign(args: list[str]):
    """seqalign's command line ``args`` in this process: returns after a run that exits 0, raises otherwise."""
    from seqalign_cli.cli import main as seqalign

    try:
        seqalign(args)
    except SystemExit as exc:
        if exc.code:
            raise


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interval", type=float, default=0.002)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--window", type=float, default=0.05, help="seconds a character of the timeline")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    leaf, own, counts = defaultdict(Counter), defaultdict(Counter), Counter()
    timeline = defaultdict(lambda: (Counter(), Counter()))
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(stop, opts.interval, leaf, own, counts, timeline, opts.window),
                               daemon=True)
    used: list = []
    count_cpu(used)
    t0 = time.perf_counter()
    cpu0 = time.thread_time()
    sampler.start()
    try:
        run_seqalign(args)
    finally:
        used.append(("MainThread", time.thread_time() - cpu0, time.perf_counter() - t0))
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
    ticks = max((max(seen) for seen, _ in timeline.values() if seen), default=0) + 1
    print(f"\n===== timeline: a character every {opts.window * 1e3:.0f} ms, busy tenths (0-9), blank: no thread")
    ruler = [" "] * (ticks + 4)
    for k in range(0, ticks, 10):  # the seconds since the start, every 10 characters
        ruler[k:k + 4] = f"{k * opts.window:<4.2g}"
    print(f"{'seconds':>24} " + "".join(ruler).rstrip())
    for kind, _ in counts.most_common():
        seen, busy = timeline[kind]
        line = "".join(" " if not seen[k] else str(min(9, 10 * busy[k] // seen[k])) for k in range(ticks))
        print(f"{kind[:24]:>24} {line}")
    cpu, alive = Counter(), Counter()
    for name, c, w in used:
        kind = re.sub(r"[-_]?\d+(_\d+)?$", "", name)
        cpu[kind] += c
        alive[kind] += w
    print("\n===== CPU time used against time alive (threads of a kind summed)")
    for kind, c in cpu.most_common():
        print(f"{kind[:24]:>24} {c:6.2f} s of CPU in {alive[kind]:6.2f} s alive")


if __name__ == "__main__":
    main()
