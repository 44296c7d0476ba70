"""Build hooks: ship kernels/ inside the wheel, and compile the CPU engine into it.

kernels/ sits next to this file both in a checkout and in an unpacked sdist
(MANIFEST.in grafts it), so the same path serves both builds; the wheel
carries it as seqalign_cli/kernels.

The CPU engine is compiled while the wheel is built (``seqalign_cli.precompile``
run on the built package, the subcommands in parallel processes): numba
caches every compiled function in ``__pycache__`` beside its module, and
those caches go into the wheel. Where CuPy and a GPU are usable, the same
jobs then run on the GPU, which fills CuPy's kernel cache (the user's, not
the wheel's), so the first GPU run does not compile kernels either. An install built on a machine therefore
aligns at once on its first run there; where the caches do not fit (another
processor, another numba), numba compiles on first use as before. Set
``SEQALIGN_PRECOMPILE=0`` to skip it (a faster build); a failure only
prints a note.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from setuptools import setup
from setuptools.command.build_py import build_py

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
SHIPPED = (".cu", ".cuh", ".md")
#: the subcommands compiled side by side, one process each
GROUPS = (("pair",), ("triplet", "graph"))


def _note(message: str):
    print(f"seqalign build: {message}", file=sys.stderr, flush=True)


def precompile(build_lib: str):
    """Run the package's precompile jobs on the built copy, so the caches land in build_lib."""
    if os.environ.get("SEQALIGN_PRECOMPILE", "1").strip() in ("0", "no", "false", ""):
        _note("SEQALIGN_PRECOMPILE=0: the CPU engine compiles on first use")
        return
    build_lib = os.path.abspath(build_lib)
    path = [build_lib] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_CACHE_DIR", None)  # the caches go beside the modules, into the wheel
    start = time.perf_counter()
    _note("compiling the CPU engine into the wheel (once, about a minute; SEQALIGN_PRECOMPILE=0 skips it)")
    with tempfile.TemporaryDirectory() as cwd:
        procs = [subprocess.Popen([sys.executable, "-m", "seqalign_cli.precompile", "--quiet", f"--into={build_lib}", *group],
                                  cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for group in GROUPS]
        errors = [p.communicate()[1].decode(errors="replace").strip() for p in procs]
        # then the GPU kernels where a GPU is usable (CuPy's kernel cache, the user's): quick, the CPU
        # engine is compiled by now
        gpu = subprocess.run([sys.executable, "-m", "seqalign_cli.precompile", "--quiet", f"--into={build_lib}",
                              "--backend=cuda"], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        procs.append(gpu)
        errors.append(gpu.stderr.decode(errors="replace").strip())
    failed = [e.splitlines()[-1] if e else f"exit {p.returncode}" for p, e in zip(procs, errors) if p.returncode]
    for root, _dirs, files in os.walk(os.path.join(build_lib, "seqalign_cli")):
        for name in files:  # first-run markers are the user's, not the wheel's
            if name.startswith("seqalign-") and name.endswith(".compiled"):
                os.remove(os.path.join(root, name))
    if failed:
        _note(f"compiling ahead failed, the CPU engine compiles on first use instead ({'; '.join(failed)})")
    else:
        _note(f"compiled the CPU engine in {time.perf_counter() - start:.0f} s")


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if not os.path.isdir(KERNELS):
            raise FileNotFoundError(
                f"{KERNELS} is missing: an sdist must carry kernels/ (see MANIFEST.in)"
            )
        dst = os.path.join(self.build_lib, "seqalign_cli", "kernels")
        os.makedirs(dst, exist_ok=True)
        for root, dirs, files in os.walk(KERNELS):  # subfolders too: the headers of kernels/triplet/
            dirs.sort()
            into = os.path.join(dst, os.path.relpath(root, KERNELS))
            for name in sorted(files):
                if name.endswith(SHIPPED):
                    os.makedirs(into, exist_ok=True)
                    shutil.copy2(os.path.join(root, name), into)
        if not self.editable_mode:
            precompile(self.build_lib)


setup(cmdclass={"build_py": BuildWithKernels})
