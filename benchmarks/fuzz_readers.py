"""Fuzz the input readers: FASTA/FASTQ (``FastxReader``) and GFA (``load_graph``) on generated inputs.

Every case either parses to the reference readers' records (tests/fastx_reference.py,
tests/gfa_reference.py) or stops with the clean ``InputError`` they expect (see
tests/fuzz_inputs.py, shared with tests/test_fuzz_readers.py). Prints the counts
(parsed equal, clean errors, failures) and the time; exits 1 on any failure,
after printing a reproducer (seed, case number and the input bytes) for the
first failures. A case that runs past --hang seconds stops the run at once
(exit 3) with its reproducer.

    python benchmarks/fuzz_readers.py --cases 100000 --seed 1 --kind all
    python benchmarks/fuzz_readers.py --kind fastx --seed 1 --case 4711    # one case again, in full
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_inputs import EQUAL, ERROR, make_case, run_case, warm_up  # noqa: E402

#: failures printed in full (the others are counted)
SHOWN = 5


def scratch() -> tempfile.TemporaryDirectory:
    """A folder for the case files, in memory where the system has one."""
    shm = "/dev/shm"
    where = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix="seqalign-fuzz-", dir=where)


class Watchdog(threading.Thread):
    """Ends the process (exit 3) with the reproducer of a case that runs longer than ``limit`` seconds."""

    def __init__(self, limit: float):
        super().__init__(daemon=True)
        self.limit = limit
        self.case = None
        self.since = 0.0

    def watch(self, case):
        self.case, self.since = case, time.monotonic()

    def run(self):
        while True:
            time.sleep(1.0)
            case = self.case
            if case is not None and time.monotonic() - self.since > self.limit:
                print(f"HANG: a case ran past {self.limit:.0f} s\n{case.reproducer()}", flush=True)
                os._exit(3)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000, help="cases in all (split evenly for --kind all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", choices=["fastx", "gfa", "all"], default="all")
    ap.add_argument("--case", type=int, help="run this case number alone and print it in full")
    ap.add_argument("--hang", type=float, default=60.0, help="seconds after which a case counts as a hang")
    args = ap.parse_args(argv)
    kinds = ["fastx", "gfa"] if args.kind == "all" else [args.kind]

    with scratch() as folder:
        folder = Path(folder)
        broken = warm_up(folder)  # compile (or load) the readers' compiled code before the clock starts
        if broken:
            print("FAILURE on a fixed warm-up input: " + "\n".join(broken))
            return 1
        if args.case is not None:
            for kind in kinds:
                case = make_case(kind, args.seed, args.case)
                outcome, why = run_case(case, folder)
                print(f"{case.reproducer()}\noutcome: {outcome}")
                if why:
                    print(why)
            return 0
        watchdog = Watchdog(args.hang)
        watchdog.start()
        counts = {(kind, outcome): 0 for kind in kinds for outcome in (EQUAL, ERROR, "failure")}
        shown = 0
        start = time.perf_counter()
        for k in range(args.cases):
            kind = kinds[k % len(kinds)]
            number = k // len(kinds)
            case = make_case(kind, args.seed, number)
            watchdog.watch(case)
            outcome, why = run_case(case, folder)
            counts[kind, outcome] += 1
            if why and shown < SHOWN:
                shown += 1
                print(f"FAILURE: {why}\nreproduce: python benchmarks/fuzz_readers.py --kind {kind} "
                      f"--seed {args.seed} --case {number}\n{case.reproducer()}\n", flush=True)
        took = time.perf_counter() - start
        watchdog.watch(None)

    print(f"fuzz_readers: seed {args.seed}, {args.cases} cases, {took:.1f} s "
          f"({1e3 * took / max(1, args.cases):.2f} ms a case), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs")
    print("kind   cases  parsed equal  clean errors  failures")
    for kind in kinds:
        row = [counts[kind, o] for o in (EQUAL, ERROR, "failure")]
        print(f"{kind:5} {sum(row):7} {row[0]:13} {row[1]:13} {row[2]:9}")
    failures = sum(counts[kind, "failure"] for kind in kinds)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
