"""Packaging: a wheel built from the sdist ships the GPU kernels.

The kernels live at the top of the checkout (kernels/); setup.py's build_py
hook copies them into the wheel as seqalign_cli/kernels. pip builds a wheel
from the sdist, not from the checkout, so the sdist must carry kernels/
(MANIFEST.in). This test takes the route pip takes: sdist of a clean copy of
the checkout, wheel from the unpacked sdist, `pip install --target` of that
wheel; every kernels/*.cu and *.cuh must arrive unchanged. Builds run without
isolation through setuptools.build_meta in the running interpreter, so no
network is needed (the test extra pins setuptools>=77 for that).

The distribution is named seqalign-cli (files seqalign_cli-VERSION...), the
import package seqalign_cli and the command seqalign.

The Docker image cannot be built here (no daemon, no base images): its
Dockerfile is checked as text (a fixed non-root user, the compile step after
NUMBA_CACHE_DIR, the entry point, a build context that keeps the sources),
and its compile step is run as it is written, in a fresh NUMBA_CACHE_DIR,
after which runs of every subcommand must compile nothing.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from seqalign_cli import __version__
from seqalign_cli.families import FAMILIES

DIST = "seqalign-cli"  # the distribution's name; file names spell it seqalign_cli
ROOT = Path(__file__).resolve().parents[1]
KERNELS = sorted(p for p in (ROOT / "kernels").rglob("*") if p.suffix in (".cu", ".cuh"))  # subfolders too
# A copy without build outputs: a stale seqalign_cli.egg-info/SOURCES.txt in the
# checkout would otherwise leak into the sdist and hide a MANIFEST.in gap.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
    ".hypothesis", ".pytest_cache", ".venv", ".whl",
)


def _backend(hook: str, cwd: Path, out: Path) -> Path:
    """Run setuptools.build_meta.<hook>(out) in cwd; the one file it made.

    The wheel is built without compiling the CPU engine into it (a minute of
    compiling that other tests do anyway; benchmarks/first_run.py times it).
    """
    out.mkdir()
    code = f"import sys, setuptools.build_meta as b; b.{hook}(sys.argv[1])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out)],
        cwd=cwd, capture_output=True, text=True, timeout=300, env=dict(os.environ, SEQALIGN_PRECOMPILE="0"),
    )
    assert proc.returncode == 0, f"{hook} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    (made,) = out.iterdir()
    return made


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    setuptools = pytest.importorskip("setuptools")
    major = int(setuptools.__version__.split(".")[0])
    assert major >= 77, (
        f"setuptools {setuptools.__version__} cannot read license = \"MIT\" (PEP 639): "
        "install the test extra, which asks for setuptools>=77"
    )
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "checkout"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCES)
    sdist = _backend("build_sdist", src, tmp / "sdist")
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp / "unpacked", filter="data")
        else:
            tar.extractall(tmp / "unpacked")
    (tree,) = (tmp / "unpacked").iterdir()
    wheel = _backend("build_wheel", tree, tmp / "wheel")
    return {"tmp": tmp, "sdist": sdist, "members": members, "wheel": wheel}


def test_sdist_carries_kernels_and_stays_small(built):
    top = {name.split("/", 1)[1] for name in built["members"] if "/" in name}
    for kernel in KERNELS:
        assert f"kernels/{kernel.relative_to(ROOT / 'kernels').as_posix()}" in top
    assert not [n for n in top if n.startswith(("benchmarks/", "tests/", "examples/"))]
    # the package's sources, kernels (kernels/triplet/'s headers too) and README (twice: as itself and as
    # PKG-INFO), no data: ~475 kB today (one package a family; the triplet kernel in headers)
    assert os.path.getsize(built["sdist"]) < 490_000


def test_files_and_metadata_name_the_distribution(built):
    assert built["sdist"].name == f"seqalign_cli-{__version__}.tar.gz"
    assert built["wheel"].name.startswith(f"seqalign_cli-{__version__}-")
    with zipfile.ZipFile(built["wheel"]) as whl:
        meta = whl.read(f"seqalign_cli-{__version__}.dist-info/METADATA").decode()
        entry_points = whl.read(f"seqalign_cli-{__version__}.dist-info/entry_points.txt").decode()
    assert f"\nName: {DIST}\n" in meta
    assert "seqalign = seqalign_cli.cli:main" in entry_points


def test_wheel_from_sdist_ships_every_kernel(built):
    with zipfile.ZipFile(built["wheel"]) as whl:
        names = set(whl.namelist())
        for kernel in KERNELS:
            name = f"seqalign_cli/kernels/{kernel.relative_to(ROOT / 'kernels').as_posix()}"
            assert name in names, f"{name} missing from {built['wheel'].name}"
            assert whl.read(name) == kernel.read_bytes()


def test_installed_wheel_has_kernels(built):
    target = built["tmp"] / "target"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
         "--disable-pip-version-check", "-q", "--target", str(target), str(built["wheel"])],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for kernel in KERNELS:
        installed = target / "seqalign_cli" / "kernels" / kernel.relative_to(ROOT / "kernels")
        assert installed.read_bytes() == kernel.read_bytes()
    code = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"
    proc = subprocess.run([sys.executable, "-c", code, DIST], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(target)})
    assert proc.returncode == 0 and proc.stdout.strip() == __version__, proc.stderr


# --- the Docker image -------------------------------------------------------------------------

def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile in order: continuation lines joined, comments dropped."""
    found, current = [], ""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        current += line.strip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        word, _, rest = current.partition(" ")
        found.append((word.upper(), rest.strip()))
        current = ""
    assert not current, "a continuation line ends the Dockerfile"
    return found


def docker_env(instructions) -> dict[str, str]:
    env = {}
    for word, args in instructions:
        if word == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(args))
    return env


def compile_step(instructions) -> tuple[int, str]:
    """The RUN instruction that compiles the CPU engine: (its index, its command)."""
    (step,) = [(i, args) for i, (word, args) in enumerate(instructions)
               if word == "RUN" and "seqalign compile" in args]
    return step


def test_dockerfile_runs_as_a_fixed_user_and_compiles_into_its_cache():
    instructions = dockerfile()
    words = [word for word, _ in instructions]
    assert words[0] == "FROM"
    index, command = compile_step(instructions)
    users = [(i, args) for i, (word, args) in enumerate(instructions) if word == "USER"]
    assert users, "the image runs as root"
    last_user = users[-1][1].split(":")[0]
    assert last_user.isdigit() and int(last_user) != 0, f"USER {users[-1][1]}: a fixed uid, not root"
    assert users[-1][0] < index, "the compile step runs as the runtime user"
    cache = docker_env(instructions[:index]).get("NUMBA_CACHE_DIR", "")
    assert cache.startswith("/"), "NUMBA_CACHE_DIR is set before the compile step"
    made_writable = re.findall(r"chmod -R 0?777 (\S+)", " ".join(a for w, a in instructions[:index] if w == "RUN"))
    assert any(cache == p or cache.startswith(p.rstrip("/") + "/") for p in made_writable), made_writable
    assert "umask 0000" in command  # what numba writes stays writable by every uid
    (entry,) = [args for word, args in instructions if word == "ENTRYPOINT"]
    assert json.loads(entry) == ["seqalign"]
    assert words.index("ENTRYPOINT") > index


def test_dockerignore_keeps_what_the_build_needs():
    patterns = [p.strip().rstrip("/") for p in (ROOT / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]

    def excluded(path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        return any(fnmatch.fnmatch(prefix, p) or (p.startswith("**/") and fnmatch.fnmatch(part, p[3:]))
                   for p in patterns for prefix in prefixes for part in parts)

    for needed in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "kernels/common.cuh",
                   "seqalign_cli/cli.py", "seqalign_cli/families/pairwise/cpu_dp.py", "seqalign_cli/jit.py"):
        assert not excluded(needed), needed
    for left_out in (".git/HEAD", "seqalign_cli/__pycache__/jit.cpython-311.pyc", "build/lib/x.py",
                     "tests/test_cli.py"):
        assert excluded(left_out), left_out


def _cache_files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file() and not p.name.endswith(".compiled")}


def test_docker_compile_step_fills_the_cache_that_runs_load(tmp_path):
    """The Dockerfile's compile step, run as written into an empty NUMBA_CACHE_DIR (it compiles there,
    or copies what the installed package already has compiled: seconds, not minutes); then runs of
    every subcommand (first-run markers removed, so that the notice would speak) compile nothing."""
    from support.clidata import GQ, GT, read_fastx, write_fasta  # tests/ is on the path (pyproject.toml)

    from seqalign_cli.jit import CompileNotice

    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    _, command = compile_step(dockerfile())
    proc = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    before = _cache_files(cache)
    assert any(name.endswith(".nbc") for name in before), "nothing was cached in NUMBA_CACHE_DIR"
    markers = sorted(p.name for p in cache.glob("*.compiled"))
    assert markers == [f"seqalign-{__version__}-{f}.compiled" for f in sorted(FAMILIES)]
    for path in cache.rglob("*"):  # writable by any uid that runs the image
        assert path.stat().st_mode & 0o777 == (0o777 if path.is_dir() else 0o666), path
        if path.name.endswith(".compiled"):
            path.unlink()

    data = ROOT / "tests" / "data"
    tri = [write_fasta(tmp_path / f"{k}.fa", read_fastx(data / "triplet" / f"sars.{k}.fa")[:6]) for k in "abc"]
    graph = [data / "graph" / "x.gfa", data / "graph" / "small_dag_reads.fa"]
    runs = [
        ["pair", GQ, GT, "-o", "p.tsv"],
        ["pair", "--mode", "glocal", GQ, GT, "-o", "p.sam"],
        ["pair", "--mode", "local", "--shard", "2/3", GQ, GT, "-o", "part.tsv"],
        ["triplet", *tri, "-o", "t.maf"],
        ["graph", *graph, "-o", "g.gaf"],
    ]
    for args in runs:
        proc = subprocess.run(["seqalign", *map(str, args), "--backend", "cpu"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert CompileNotice.TEXT not in proc.stderr, f"seqalign {args[0]} compiled: {proc.stderr}"
    assert _cache_files(cache) == before, "a run compiled (or rewrote) cache entries"
