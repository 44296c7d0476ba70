"""Time the first run on a fresh environment: install the checkout into a new virtual environment (or a
folder of its own) with new cache folders, then run the README's quick-start job (and a GPU one with --backend cuda) twice.

    python benchmarks/first_run.py                      # fresh venv from the package index
    python benchmarks/first_run.py --offline            # this interpreter and its packages (no index)
    python benchmarks/first_run.py --no-precompile      # the build skips compiling (first run compiles)
    python benchmarks/first_run.py --offline --backend cuda

Prints the install time, then for each run its wall time and the time from the
start of the process to the end of its first chunk: the summary's stages say
how long compiling took (the first run's stderr names it). The quick start
aligns examples/reads.fa.gz against examples/windows.fa.gz (2,000 pairs),
glocal, to SAM.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, env, cwd=None) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--offline", action="store_true",
                    help="install into a folder of its own (pip --target, --no-deps --no-build-isolation), run "
                         "with this interpreter and its packages")
    ap.add_argument("--no-precompile", action="store_true", help="build with SEQALIGN_PRECOMPILE=0")
    ap.add_argument("--backend", default="cpu", help="backend of the timed runs (cpu or cuda)")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--find-links", metavar="DIR",
                    help="with --offline: first install setuptools into the venv from wheels in DIR")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="seqalign-first-run-")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "CUPY_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = os.path.join(work, "cache")  # fresh user caches: numba's, CuPy's kernels
    env["CUPY_CACHE_DIR"] = os.path.join(work, "cache", "cupy")
    if args.no_precompile:
        env["SEQALIGN_PRECOMPILE"] = "0"
    src = os.path.join(work, "src")
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", "__pycache__", "build", "*.egg-info",
                                                             ".venv", ".head", ".whl", ".carry"))
    try:
        if args.offline:  # into a folder of its own, beside this interpreter's packages
            site = os.path.join(work, "site")
            pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                   "--no-build-isolation"]
            if args.find_links:
                subprocess.run(pip + ["--target", os.path.join(work, "build-site"), "--no-index", "--find-links",
                                      args.find_links, "setuptools>=77"], env=env, check=True)
                env["PYTHONPATH"] = os.pathsep.join([os.path.join(work, "build-site")] +
                                                    env.get("PYTHONPATH", "").split(os.pathsep))
            seconds, proc = sh(pip + ["--target", site, src], env)
            env["PYTHONPATH"] = os.pathsep.join([site] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p and os.path.abspath(p) != ROOT])
            exe = [sys.executable, "-m", "seqalign_cli"]
        else:  # a new virtual environment from the package index
            env.pop("PYTHONPATH", None)
            venv = os.path.join(work, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            seconds, proc = sh([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q",
                                "--disable-pip-version-check", src], env)
            exe = [os.path.join(venv, "bin", "seqalign")]
        if proc.returncode:
            sys.exit(f"install failed:\n{proc.stderr}")
        print(f"install ({'offline' if args.offline else 'index'}, precompile "
              f"{'off' if args.no_precompile else 'on'}): {seconds:.1f} s")
        for k in range(args.runs):
            cmd = exe + ["pair", "--mode", "glocal", "--backend", args.backend,
                         os.path.join(src, "examples", "reads.fa.gz"), os.path.join(src, "examples", "windows.fa.gz"),
                         "-o", os.path.join(work, f"example{k}.sam")]
            seconds, proc = sh(cmd, env, cwd=work)
            if proc.returncode:
                sys.exit(f"run failed:\n{proc.stderr}")
            lines = [line for line in proc.stderr.splitlines() if "compil" in line or "GCUPS" in line]
            print(f"run {k + 1} ({args.backend}): {seconds:.2f} s wall")
            for line in lines:
                print(f"    {line}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
