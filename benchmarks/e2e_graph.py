"""End to end: ``seqalign graph`` on the cactus-BRCA2 graph and on a simulated 5 Mbp pangenome graph.

Usage: python benchmarks/e2e_graph.py [--backend cuda] [--devices 0,1] [--cpu-reads 50] [--reps 2]
                                     [--out DIR] [--skip-sim] [--skip-cactus] [--sim-dir DIR] [--run-timeout S]
                                     [--sim-cases short,short-gaf,long,long-gaf]
A check without a GPU, small: --backend cpu -t 4 --cactus-reads 20 --cpu-reads 10 --sim-bases 50000
                              --sim-reads 20 --sim-long-reads 2 --sim-long-length 1000 --reps 1

(a) tests/data/graph/cactus-BRCA2.gfa with its 1,000 reads of 100 bp
    (cactus-BRCA2.fastq), ``--mode`` glocal: score only (TSV) and with
    traceback (GAF), on ``--backend`` (cuda) and on the CPU engine with one
    thread. The CPU runs take the first ``--cpu-reads`` reads only and are
    extrapolated to all the reads: their time outside the aligning stage
    (interpreter start, graph loading, writing; from seqalign's summary
    line) plus the aligning stage's time per read times the reads. The CPU
    output is compared with the first records of the ``--backend`` output.
(b) The graph of ``simulate_graph.py`` (5 Mbp backbone, SNP and indel
    bubbles) with 10,000 reads of 150 bp (score only, and GAF) and with 100
    reads of 10 kb (score only and GAF), on ``--backend`` (``--sim-cases``: short,
    short-gaf, long, long-gaf). The files are written to
    ``--sim-dir`` (a temporary folder unless given; files already there
    under the same names are used as they are).

Before the timed runs, every ``--backend`` configuration runs once on one
read against the cactus graph (a cactus read, and a random read of each
simulated length: kernels compiled, caches filled; not timed).
Each timed run is a fresh ``seqalign`` process (``seqalign`` from PATH, else
``python -m seqalign_cli``; ``--seqalign`` chooses), timed from start to
exit; the best of ``--reps`` runs is reported.

Cells: read length times the graph's oriented bases, counted from the GFA
(twice the total segment length, both orientations; once with
``--forward-only``). GCUPS = cells / wall seconds. Peak GPU memory: the
highest ``memory.used`` of ``nvidia-smi`` sampled every 100 ms during the
run, less its level just before the run, per GPU (short peaks between two
samples can be missed). The stderr of every run, the outputs and the table
(``table.md``) go to ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import simulate_graph  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "graph")
CACTUS_GFA = os.path.join(DATA, "cactus-BRCA2.gfa")
CACTUS_READS = os.path.join(DATA, "cactus-BRCA2.fastq")

#: seqalign's summary line: "<n> reads, <cells> cells, <g> GCUPS, backend ..., <s> s wall (read .., align .., ..)"
SUMMARY = re.compile(r"(\d+) reads, ([0-9.e+]+) cells, ([0-9.]+) GCUPS, backend (.*?), ([0-9.]+) s wall \((.*?)\),"
                     r".*peak memory (\d+) MB")


def open_text(path: str):
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt") if gz else open(path)


def oriented_bases(gfa: str, forward_only: bool) -> tuple[int, int]:
    """(segments, oriented bases) of a GFA: the total segment length, twice unless forward only."""
    segments = total = 0
    with open_text(gfa) as fh:
        for line in fh:
            if line.startswith("S\t"):
                segments += 1
                total += len(line.split("\t", 3)[2].rstrip("\n"))
    return segments, total if forward_only else 2 * total


def read_records(path: str) -> list[tuple[str, str, str | None]]:
    """(header line without its marker, sequence, quality or None) of every FASTA/FASTQ record."""
    records = []
    with open_text(path) as fh:
        lines = [line.rstrip("\n") for line in fh]
    i = 0
    while i < len(lines):
        if lines[i].startswith("@"):
            records.append((lines[i][1:], lines[i + 1], lines[i + 3]))
            i += 4
        elif lines[i].startswith(">"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith(">"):
                j += 1
            records.append((lines[i][1:], "".join(lines[i + 1:j]), None))
            i = j
        else:
            i += 1
    return records


def write_records(records, path: str) -> str:
    with open(path, "w") as out:
        for name, seq, qual in records:
            out.write(f"@{name}\n{seq}\n+\n{qual}\n" if qual is not None else f">{name}\n{seq}\n")
    return path


class GpuMemory:
    """Peak ``memory.used`` (MiB) of every GPU while running, by ``nvidia-smi -lms`` read in a thread."""

    def __init__(self, interval_ms: int = 100):
        self.interval_ms = interval_ms
        self.smi = shutil.which("nvidia-smi")
        self.proc = self.thread = None
        self.base: dict[int, int] = {}
        self.peak: dict[int, int] = {}

    @staticmethod
    def _parse(text: str) -> dict[int, int]:
        out = {}
        for line in text.splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                out[int(parts[0])] = int(parts[1])
        return out

    def _query(self, *extra) -> list[str]:
        return [self.smi, "--query-gpu=index,memory.used", "--format=csv,noheader,nounits", *extra]

    def __enter__(self):
        if not self.smi:
            return self
        try:
            self.base = self._parse(subprocess.run(self._query(), capture_output=True, text=True, timeout=30).stdout)
        except (OSError, subprocess.SubprocessError):
            self.smi = None
            return self
        self.peak = dict(self.base)
        self.proc = subprocess.Popen(self._query("-lms", str(self.interval_ms)), stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            for gpu, used in self._parse(line).items():
                self.peak[gpu] = max(self.peak.get(gpu, 0), used)

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.thread.join(timeout=10)

    def rise(self) -> dict[int, int] | None:
        """MiB above the level before the run, per GPU; None without nvidia-smi."""
        if not self.smi or not self.base:
            return None
        return {g: self.peak.get(g, 0) - b for g, b in self.base.items()}


def gpu_text(rise: dict[int, int] | None) -> str:
    if rise is None:
        return "n/a"
    used = [f"{v:,}" for g, v in sorted(rise.items()) if v > 0]
    return " + ".join(used) if used else "0"


class Runner:
    def __init__(self, args):
        self.args = args
        if args.seqalign == "auto":
            exe = shutil.which("seqalign")
            self.prefix = [exe] if exe else [sys.executable, "-m", "seqalign_cli"]
        else:
            self.prefix = args.seqalign.split()
        self.rows = []

    def command(self, gfa, reads, out, backend, threads, score_only, devices=None):
        a = self.args
        cmd = [*self.prefix, "graph", "--backend", backend, "-t", str(threads), "--mode", a.mode]
        if devices:
            cmd += ["--devices", devices]
        if a.forward_only:
            cmd.append("--forward-only")
        if score_only:
            cmd.append("--score-only")
        if a.batch_size:
            cmd += ["--batch-size", str(a.batch_size)]
        return [*cmd, gfa, reads, "-o", out]

    def once(self, cmd, log) -> dict:
        """One run: wall seconds, seqalign's summary, the GPU memory rise; None wall on failure or timeout."""
        with GpuMemory() as mem:
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.args.run_timeout or None)
                wall, rc, err = time.perf_counter() - t0, proc.returncode, proc.stderr
            except subprocess.TimeoutExpired as e:
                wall, rc = None, "timeout"
                err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        with open(log, "a") as fh:
            fh.write(f"$ {' '.join(cmd)}\n{err}exit {rc}, {wall if wall is None else f'{wall:.3f}'} s\n\n")
        run = {"wall": wall if rc == 0 else None, "rc": rc, "gpu": mem.rise(), "summary": None, "stages": {}}
        m = SUMMARY.search(err)
        if m:
            run["summary"] = {"cells": float(m.group(2)), "gcups": float(m.group(3)), "backend": m.group(4),
                              "wall": float(m.group(5)),
                              "peak_mb": int(m.group(7))}
            run["stages"] = {k: float(v) for k, v in re.findall(r"(\w+) ([0-9.]+) s", m.group(6))}
        if rc != 0:
            tail = err.strip().splitlines()[-3:]
            print(f"  FAILED ({rc}): {' | '.join(tail)}", flush=True)
        return run

    def timed(self, label, cmd, log, reps) -> dict:
        """The best of ``reps`` runs (the failed run when one fails: its wall is None)."""
        best = None
        for rep in range(reps):
            run = self.once(cmd, log)
            if run["wall"] is None:
                return run
            s = run["summary"]
            print(f"  {label} run {rep + 1}: {run['wall']:.2f} s wall"
                  + (f"; seqalign: {s['cells']:.3g} cells, {s['wall']:.2f} s, {s['gcups']:.2f} GCUPS ("
                     f"{', '.join(f'{k} {v:.2f} s' for k, v in run['stages'].items())}), host peak {s['peak_mb']} MB"
                     if s else "")
                  + (f"; GPU memory rise {gpu_text(run['gpu'])} MiB" if run["gpu"] is not None else ""), flush=True)
            if best is None or run["wall"] < best["wall"]:
                best = run
        return best

    def add(self, data, reads, backend, output, run, cells, extrapolated=None, note=""):
        """A table row; ``extrapolated`` = (wall seconds for all reads) replaces the measured wall."""
        if extrapolated is None and run["wall"] is None:
            what = "timeout" if run["rc"] == "timeout" else "failed"
            self.rows.append([data, f"{reads:,}", backend, output, what, "", "", "", "", "", note])
            return
        wall = extrapolated if extrapolated is not None else run["wall"]
        s = run["summary"]
        mark = "~" if extrapolated is not None else ""
        self.rows.append([data, f"{reads:,}", backend, output, f"{mark}{wall:.2f}", f"{mark}{reads / wall:,.0f}",
                          f"{mark}{cells / wall / 1e9:.3g}", f"{s['gcups']:.3g}" if s else "",
                          gpu_text(run["gpu"]) if run["gpu"] is not None else "n/a",
                          f"{s['peak_mb']:,}" if s else "", note])

    def table(self) -> str:
        head = ["data", "reads", "backend", "output", "wall s", "reads/s", "GCUPS", "GCUPS (seqalign)",
                "peak GPU MiB", "host peak MB", "note"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines)


def backend_label(args) -> str:
    if args.backend == "cpu":
        return f"cpu -t {args.threads}"
    return f"{args.backend}" + (f" --devices {args.devices}" if args.devices else "")


def warm_up(r: Runner, args, out: str, reads_files: list[tuple[str, bool]]):
    """Each --backend configuration once on one read against the cactus graph (kernel variants, caches).

    ``reads_files``: (reads, with traceback too); the shortest first (it also warms the CPU engine).
    """
    t0 = time.perf_counter()
    log = os.path.join(out, "warmup.log")
    ones = []
    for k, (path, traceback) in enumerate(reads_files):
        one = write_records(read_records(path)[:1], os.path.join(out, f"warmup_{k}.{fastx_ext(path)}"))
        ones.append(one)
        for score_only in (True, False) if traceback else (True,):
            ext = "tsv" if score_only else "gaf"
            run = r.once(r.command(CACTUS_GFA, one, os.path.join(out, f"warmup.{ext}"), args.backend, args.threads,
                                   score_only, args.devices), log)
            if run["wall"] is None:
                sys.exit(f"warm-up run failed; see {log}")
    if args.backend != "cpu":
        r.once(r.command(CACTUS_GFA, ones[0], os.path.join(out, "warmup.tsv"), "cpu", 1, True), log)
    print(f"warm-up (one read each, kernels compiled and caches filled; not timed): "
          f"{time.perf_counter() - t0:.1f} s", flush=True)


def random_read(path: str, length: int) -> str:
    rng = random.Random(length)
    seq = "".join(rng.choice("ACGT") for _ in range(length))
    return write_records([(f"w{length}", seq, "I" * length)], path)


def fastx_ext(path: str) -> str:
    with open_text(path) as fh:
        return "fastq" if fh.read(1) == "@" else "fa"


def same_records(a: str, b: str, n: int) -> bool:
    """Do the first n records (after any header line) of two outputs agree?"""
    def first(path):
        with open(path) as fh:
            return [line for line in fh if not line.startswith("#")][:n]
    return first(a) == first(b)


def cactus(r: Runner, args, out: str) -> str:
    segments, bases = oriented_bases(CACTUS_GFA, args.forward_only)
    records = read_records(CACTUS_READS)
    if args.cactus_reads:
        records = records[:args.cactus_reads]
    main_reads = CACTUS_READS if not args.cactus_reads else \
        write_records(records, os.path.join(out, f"cactus_{len(records)}.fastq"))
    few = records[:args.cpu_reads]
    few_path = write_records(few, os.path.join(out, f"cactus_{len(few)}.fastq"))
    cells = sum(len(s) for _, s, _ in records) * bases
    few_cells = sum(len(s) for _, s, _ in few) * bases
    print(f"\n(a) cactus-BRCA2: {segments:,} segments, {bases:,} oriented bases; {len(records):,} reads, "
          f"{cells:.3g} cells; CPU on 1 thread: the first {len(few)} reads ({few_cells:.3g} cells), extrapolated",
          flush=True)
    label = backend_label(args)
    walls = {}
    for score_only, output in ((True, "score only (tsv)"), (False, "gaf")):
        ext = "tsv" if score_only else "gaf"
        log = os.path.join(out, f"cactus_{ext}.log")
        main_out = os.path.join(out, f"cactus.{ext}")
        cmd = r.command(CACTUS_GFA, main_reads, main_out, args.backend, args.threads, score_only, args.devices)
        run = r.timed(f"{label} {output}", cmd, log, args.reps)
        r.add("cactus-BRCA2", len(records), label, output, run, cells)
        walls[(label, ext)] = run["wall"]

        cpu_out = os.path.join(out, f"cactus_cpu1_{len(few)}.{ext}")
        cmd = r.command(CACTUS_GFA, few_path, cpu_out, "cpu", 1, score_only)
        cpu = r.timed(f"cpu -t 1 {output}, {len(few)} reads", cmd, log, args.cpu_reps)
        if cpu["wall"] is None:
            r.add("cactus-BRCA2", len(records), "cpu -t 1", output, cpu, cells)
            continue
        align = cpu["stages"].get("align")
        if align is not None:
            per_read = align / len(few)
            extra = cpu["wall"] - align
            total = extra + per_read * len(records)
            how = (f"measured on {len(few)} reads: {cpu['wall']:.2f} s wall, aligning stage {align:.2f} s "
                   f"({per_read * 1e3:.1f} ms a read, {few_cells / align / 1e9:.3f} GCUPS); extrapolated: "
                   f"{extra:.2f} s outside the aligning stage + {len(records)} x {per_read * 1e3:.1f} ms")
        else:
            total = cpu["wall"] * len(records) / len(few)
            how = f"measured on {len(few)} reads: {cpu['wall']:.2f} s wall; extrapolated in proportion to the reads"
        print(f"  cpu -t 1 {output}: {how} = {total:.1f} s for {len(records)} reads", flush=True)
        r.add("cactus-BRCA2", len(records), "cpu -t 1", output, cpu, cells, extrapolated=total,
              note=f"~ extrapolated from {len(few)} reads (GCUPS (seqalign): on those)")
        walls[("cpu", ext)] = total
        if run["wall"] is not None:
            agree = same_records(main_out, cpu_out, len(few))
            print(f"  {label} and cpu -t 1 {output} agree on the first {len(few)} reads: "
                  f"{'yes' if agree else 'NO'}", flush=True)
    ratios = []
    for ext, output in (("tsv", "score only"), ("gaf", "gaf")):
        g, c = walls.get((label, ext)), walls.get(("cpu", ext))
        if g and c:
            ratios.append(f"{output} {c / g:.1f}x")
    return f"{label} / cpu -t 1 on cactus-BRCA2, end to end (CPU extrapolated): " + ", ".join(ratios) \
        if ratios else ""


#: the cases of (b): the short reads score only and with GAF, the long reads score only
SIM_CASES = ("short", "short-gaf", "long", "long-gaf")


def simulated(r: Runner, args, out: str):
    sim_dir = args.sim_dir or tempfile.mkdtemp(prefix="seqalign-graph-sim-")
    reads = [args.sim_reads, args.sim_long_reads]
    lengths = [args.sim_read_length, args.sim_long_length]
    name = f"sim{args.sim_bases}_s{args.seed}"
    gfa, (short, long_) = simulate_graph.paths(sim_dir, name, reads, lengths, "fastq")
    if all(os.path.exists(p) for p in (gfa, short, long_)):
        print(f"\n(b) simulated graph: using {gfa}, {short}, {long_}", flush=True)
    else:
        print(f"\n(b) simulated graph: writing to {sim_dir}", flush=True)
        simulate_graph.simulate(sim_dir, args.sim_bases, reads, lengths, seed=args.seed, name=name)
    segments, bases = oriented_bases(gfa, args.forward_only)
    print(f"  {segments:,} segments, {bases:,} oriented bases", flush=True)
    label = backend_label(args)
    cases = {"short": (short, reads[0], lengths[0], True), "short-gaf": (short, reads[0], lengths[0], False),
             "long": (long_, reads[1], lengths[1], True), "long-gaf": (long_, reads[1], lengths[1], False)}
    for path, count, length, score_only in (cases[c] for c in SIM_CASES if c in args.sim_cases):
        ext = "tsv" if score_only else "gaf"
        output = "score only (tsv)" if score_only else "gaf"
        cells = sum(len(s) for _, s, _ in read_records(path)) * bases
        print(f"  {count:,} reads of {length:,} bp, {output}: {cells:.3g} cells", flush=True)
        tag = f"sim_{count}x{length}"
        cmd = r.command(gfa, path, os.path.join(out, f"{tag}.{ext}"), args.backend, args.threads, score_only,
                        args.devices)
        run = r.timed(f"{label} {output}", cmd, os.path.join(out, f"{tag}_{ext}.log"), args.reps)
        r.add(f"sim {args.sim_bases / 1e6:g} Mbp, {length:,} bp", count, label, output, run, cells)
    if not args.sim_dir:
        shutil.rmtree(sim_dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="cuda", help="cuda, or cpu for a check on a machine without a GPU")
    ap.add_argument("--devices", default=None, help="passed to seqalign (several GPUs: 0,1 or all)")
    ap.add_argument("-t", "--threads", type=int, default=os.cpu_count(), help="seqalign -t of the --backend runs")
    ap.add_argument("--mode", default="glocal", choices=("glocal", "local", "global"))
    ap.add_argument("--forward-only", action="store_true", help="passed to seqalign; cells count one orientation")
    ap.add_argument("--batch-size", type=int, default=None, help="passed to seqalign (default: its own)")
    ap.add_argument("--reps", type=int, default=2, help="timed runs of each --backend case (best reported)")
    ap.add_argument("--cpu-reps", type=int, default=1, help="timed runs of each CPU one-thread case")
    ap.add_argument("--cpu-reads", type=int, default=50, help="reads of the CPU one-thread runs (extrapolated)")
    ap.add_argument("--cactus-reads", type=int, default=0, help="cactus reads of the --backend runs (0: all)")
    ap.add_argument("--skip-cactus", action="store_true")
    ap.add_argument("--skip-sim", action="store_true")
    ap.add_argument("--sim-dir", default=None, help="folder of the simulated files (kept; reused when present)")
    ap.add_argument("--sim-bases", type=lambda x: int(float(x)), default=5_000_000)
    ap.add_argument("--sim-reads", type=int, default=10000)
    ap.add_argument("--sim-read-length", type=int, default=150)
    ap.add_argument("--sim-long-reads", type=int, default=100)
    ap.add_argument("--sim-long-length", type=int, default=10000)
    ap.add_argument("--sim-cases", default=",".join(SIM_CASES),
                    help="which of (b) to run: short (score only), short-gaf, long (score only), long-gaf")
    ap.add_argument("--seed", type=int, default=1, help="of the simulated files")
    ap.add_argument("--run-timeout", type=float, default=0, help="seconds a seqalign run may take (0: no limit)")
    ap.add_argument("--no-warmup", action="store_true")
    ap.add_argument("--seqalign", default="auto", help="the command to run (default: seqalign from PATH, "
                                                       "else python -m seqalign_cli)")
    ap.add_argument("--out", default=None, help="folder of the logs, outputs and table.md (default: temporary)")
    args = ap.parse_args()
    args.sim_cases = [c.strip() for c in args.sim_cases.split(",") if c.strip()]
    if set(args.sim_cases) - set(SIM_CASES):
        ap.error(f"--sim-cases: one of {', '.join(SIM_CASES)}")
    out = args.out or tempfile.mkdtemp(prefix="seqalign-e2e-graph-")
    os.makedirs(out, exist_ok=True)
    r = Runner(args)
    print(f"seqalign: {' '.join(r.prefix)}; backend {backend_label(args)}, mode {args.mode}; logs in {out}",
          flush=True)
    if not args.no_warmup:
        files = []
        if not args.skip_cactus:
            files.append((CACTUS_READS, True))
        if not args.skip_sim:
            # kernel variants depend on the read length, not on the graph: one random read of each length
            short = {"short", "short-gaf"} & set(args.sim_cases)
            if short:
                files.append((random_read(os.path.join(out, "warmup_short.fastq"), args.sim_read_length),
                              "short-gaf" in short))
            if "long" in args.sim_cases:
                files.append((random_read(os.path.join(out, "warmup_long.fastq"), args.sim_long_length), False))
        if files:
            warm_up(r, args, out, files)
    ratio = ""
    if not args.skip_cactus:
        ratio = cactus(r, args, out)
    if not args.skip_sim:
        simulated(r, args, out)
    table = r.table()
    cpu_reps = "" if args.skip_cactus else f" ({args.cpu_reps} for the CPU on one thread)"
    sides = "forward orientation only" if args.forward_only else "both orientations"
    notes = [f"GCUPS = read length x oriented graph bases ({sides}) / wall seconds of the whole process "
             f"(interpreter start, graph loading, writing "
             f"included); GCUPS (seqalign) is its own summary line's (its wall, without interpreter start); "
             f"best of {args.reps} runs{cpu_reps}; mode {args.mode}."]
    if not args.skip_cactus:
        notes.append(f"~: CPU one thread measured on the first {args.cpu_reads} reads and extrapolated per read "
                     f"(time outside the aligning stage + aligning time per read x reads).")
    notes.append("peak GPU MiB: nvidia-smi memory.used sampled every 100 ms, less the level before the run "
                 "(the CUDA context included); host peak MB: seqalign's summary line.")
    if ratio:
        notes.append(ratio + ".")
    text = table + "\n\n" + "\n".join(notes) + "\n"
    print("\n" + text, flush=True)
    with open(os.path.join(out, "table.md"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
