"""End to end: the 20,000 GASAL2 pairs replicated to 1,000,000, file to TSV with CIGAR.

Usage: python benchmarks/e2e_gasal2.py QUERY.fa.gz TARGET.fa.gz [--copies 50] [--backend cuda] [-t 16]
                                      [--runs 2] [--bytecode] [--out FILE] [--formats tsv,sam,bam] [--batch-size N]
                                      [--score-only] [--devices 0|all|0,1 ...] [--workers 1 8 ...]
                                      [--compress gzip|bgzip]
                                      [--gasal2 BIN [--gasal2-args ...]]

Writes the replicated FASTA files to a temporary folder (uncompressed), then
runs ``seqalign pair`` on them and prints its summary line (wall time and
the time of each stage: read, align, write). ``--formats``: the same runs
for each output format, one after the other in this process, and each
format's wall against TSV's. ``--devices``: each device setting in turn
(``--devices 0 all``), with records per second, the ratio to the first and
whether the output is the same as the first setting's. ``--workers``: each
worker count in turn (``--workers 1 8``: one process, then eight workers),
within each device setting.
A device setting ``parts:0,1`` runs one seqalign process a GPU, each on
its part of the input (``--shard K/N``), and joins their outputs (TSV, PAF):
several interpreters for the host work of short pairs, which one process
keeps on one GPU.
``--gasal2 BIN``: also time that program (a user-built GASAL2 test program;
nothing is built here) on the same replicated files, given as
``BIN [--gasal2-args] Q T``, and print both walls and their ratio.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time


def write_bytecode():
    """Byte-compile seqalign_cli and the packages a GPU run imports (where writable)."""
    import compileall
    import importlib

    for name in ("seqalign_cli", "numpy", "numba", "llvmlite", "cupy", "cupy_backends", "click", "rich"):
        try:
            folder = os.path.dirname(importlib.import_module(name).__file__)
        except ImportError:
            continue
        ok = compileall.compile_dir(folder, quiet=2, workers=0)
        print(f"bytecode: {name} ({folder}): {'written' if ok else 'some files failed'}")


def compressed(path: str, how: str | None) -> str:
    """``path`` itself, or a copy compressed by ``gzip -1`` (plain gzip) or as BGZF (bgzip's level, pysam)."""
    if how is None:
        return path
    if how == "gzip":
        subprocess.run(f"gzip -1 -c {path} > {path}.gz", shell=True, check=True)
    else:
        import pysam

        pysam.tabix_compress(path, f"{path}.gz", force=True)
    t0 = time.perf_counter()
    subprocess.run(f"{sys.executable} -c \"import shutil, isal.igzip as z; shutil.copyfileobj(z.open('{path}.gz'), "
                   f"open('/dev/null', 'wb'), 1 << 22)\"", shell=True, check=True)
    print(f"{how}: {path}.gz decompressed by igzip alone (one thread) in {time.perf_counter() - t0:.2f} s")
    return f"{path}.gz"


def add_run_options(ap: argparse.ArgumentParser):
    """The options of a timed ``seqalign pair`` run (shared with ``e2e_mix.py``)."""
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("-t", "--threads", type=int, default=os.cpu_count())
    ap.add_argument("--mode", default="global")
    ap.add_argument("--batch-size", type=int, default=0, help="records a chunk (default 0: the command's own rule)")
    ap.add_argument("--out", help="keep the output here (default: a temporary file)")
    ap.add_argument("--runs", type=int, default=2, help="first run compiles kernels; later runs reuse the caches")
    ap.add_argument("--formats", default="tsv", help="output formats to time, comma-separated (tsv, sam, bam, paf)")
    ap.add_argument("--score-only", action="store_true")
    ap.add_argument("--devices", nargs="*", default=[None],
                    help="device settings to time in turn: a GPU number, 'all' or '0,1'")
    ap.add_argument("--workers", nargs="*", default=[None],
                    help="worker process counts to time in turn (seqalign's --workers; 1: one process)")
    ap.add_argument("--bytecode", action="store_true",
                    help="first write the bytecode (.pyc) of seqalign and the packages it imports, as an "
                         "installer does; for interpreters that run with PYTHONDONTWRITEBYTECODE set over "
                         "packages installed without it")
    ap.add_argument("--seqalign-args", default="", help="more options for seqalign pair (one string)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("query")
    ap.add_argument("target")
    ap.add_argument("--copies", type=int, default=50)
    add_run_options(ap)
    ap.add_argument("--compress", choices=("gzip", "bgzip"), default=None,
                    help="give seqalign the replicated files compressed: gzip -1, or BGZF")
    ap.add_argument("--gasal2", help="a GASAL2 test program to time beside seqalign (not built here)")
    ap.add_argument("--gasal2-args", default="-a 2 -b 4 -q 4 -r 2 -s -p -y global -t 8",
                    help="its arguments before the two files")
    args = ap.parse_args()
    if args.bytecode:
        write_bytecode()
    tmp = tempfile.mkdtemp()
    paths = []
    for src, name in ((args.query, "q.fa"), (args.target, "t.fa")):
        with gzip.open(src, "rb") as fh:
            data = fh.read()
        n_pairs = data.count(b"\n>") + data.startswith(b">")
        n_pairs *= args.copies
        path = os.path.join(tmp, name)
        with open(path, "wb") as out:
            for _ in range(args.copies):
                out.write(data)
        paths.append(compressed(path, args.compress))
    first = time_settings(args, paths, n_pairs, tmp)
    if args.gasal2:
        gcmd = [args.gasal2, *args.gasal2_args.split(), *paths]
        t0 = time.perf_counter()
        subprocess.run(gcmd, check=True, stdout=subprocess.DEVNULL)
        gwall = time.perf_counter() - t0
        print(f"gasal2: {gwall:.2f} s wall ({' '.join(gcmd)}); seqalign/gasal2 = {first / gwall:.2f}")


def time_settings(args, paths: list[str], n_pairs: int, tmp: str) -> float:
    """Time ``seqalign pair`` on ``paths`` for each device setting and format (``args``: ``add_run_options``).

    Prints each run's wall, the records per second of each setting's last
    run and its ratio to the first setting's, and whether every device
    setting wrote the same output as the first (a digest per format).
    Returns the first setting's wall.
    """
    # SEQALIGN_PROFILE=FILE: profile the runs (cProfile stats of the last run in FILE, the
    # top functions printed); main() is given its argv, so it returns instead of exiting at once
    profile = os.environ.get("SEQALIGN_PROFILE")
    script = f"import cProfile, sys; from seqalign_cli.cli import main; cProfile.run('main(sys.argv[1:])', {profile!r})"
    prefix = [sys.executable, "-c", script] if profile else [sys.executable, "-m", "seqalign_cli"]
    walls, digests = {}, {}
    rows = 0
    settings = [(d, w) for d in args.devices for w in args.workers]
    for devices, workers in settings:
        for fmt in args.formats.split(","):
            out = args.out or os.path.join(tmp, f"out.{fmt}")
            cmd = [*prefix, "pair", "--backend", args.backend, "-t", str(args.threads), "--mode", args.mode, *paths]
            cmd += ["--batch-size", str(args.batch_size)] if args.batch_size else []
            cmd += ["--score-only"] if args.score_only else []
            cmd += ["--workers", workers] if workers else []
            cmd += args.seqalign_args.split()
            for run in range(args.runs):
                t0 = time.perf_counter()
                if devices and devices.startswith("parts:"):
                    run_parts(cmd, devices[len("parts:"):].split(","), fmt, out)
                else:
                    subprocess.run(cmd + (["--devices", devices] if devices else []) + ["-o", out], check=True)
                wall = time.perf_counter() - t0
                print(f"{fmt} devices={devices or 'default'} workers={workers or 'default'} run {run + 1} "
                      f"({'cold caches' if run == 0 else 'warm caches'}): {wall:.2f} s wall")
            walls[(devices, workers, fmt)] = wall
            digests[(devices, workers, fmt)] = _digest(out, fmt)
            rows = n_pairs if fmt == "bam" else _rows(out)
            print(f"e2e {fmt}: {rows} records, {wall:.2f} s wall including interpreter start, "
                  f"{rows / wall:.0f} pairs/s")
    if profile:
        import pstats

        for key in ("cumulative", "tottime"):
            pstats.Stats(profile).sort_stats(key).print_stats(40)
    first = next(iter(walls.values()))
    for (devices, workers, fmt), wall in walls.items():
        digest = digests[(devices, workers, fmt)]
        same = ("not compared" if digest is None else
                "identical to" if digest == digests[(*settings[0], fmt)] else "DIFFERENT FROM")
        print(f"summary: {fmt} devices={devices or 'default'} workers={workers or 'default'} {wall:.2f} s, "
              f"{rows / wall:.0f} pairs/s, "
              f"{first / wall:.2f}x the first setting's records per second, output {same} the first setting's")
    return first


def run_parts(cmd: list[str], gpus: list[str], fmt: str, out: str):
    """``cmd`` as one process a GPU, each aligning its part of the input (``--shard K/N``, N the GPUs),
    all at once; their outputs joined in part order into ``out`` (the device setting ``parts:0,1``).

    The parts of a text output without a header after the first concatenate into the whole run's
    (README, Parts of a run): TSV and PAF only.
    """
    if fmt not in ("tsv", "paf"):
        raise SystemExit(f"parts: {fmt} parts do not concatenate into one file (tsv, paf only)")
    n = len(gpus)
    parts = [f"{out}.part{k + 1}" for k in range(n)]
    procs = [subprocess.Popen(cmd + ["--shard", f"{k + 1}/{n}", "--devices", gpu, "-o", part])
             for k, (gpu, part) in enumerate(zip(gpus, parts))]
    if any(p.wait() for p in procs):
        raise SystemExit("parts: a part failed")
    with open(out, "wb") as joined:
        for part in parts:
            with open(part, "rb") as fh:
                shutil.copyfileobj(fh, joined, 1 << 24)
            os.remove(part)


def _digest(path: str, fmt: str) -> str:
    """A digest of a text output, without the header lines that name the command (@PG); None for BAM
    (its header, which names the command, is compressed with the records)."""
    import hashlib

    if fmt == "bam":
        return None
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for line in fh:
            if not line.startswith(b"@PG"):
                h.update(line)
    return h.hexdigest()


def _rows(path: str) -> int:
    with open(path, "rb") as fh:
        return sum(1 for line in fh if not line.startswith((b"#", b"@")))


if __name__ == "__main__":
    main()
