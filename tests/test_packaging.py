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
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from seqalign_cli import __version__

DIST = "seqalign-cli"  # the distribution's name; file names spell it seqalign_cli
ROOT = Path(__file__).resolve().parents[1]
KERNELS = sorted(p for p in (ROOT / "kernels").iterdir() if p.suffix in (".cu", ".cuh"))
# A copy without build outputs: a stale seqalign_cli.egg-info/SOURCES.txt in the
# checkout would otherwise leak into the sdist and hide a MANIFEST.in gap.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
    ".hypothesis", ".pytest_cache", ".venv", ".whl",
)


def _backend(hook: str, cwd: Path, out: Path) -> Path:
    """Run setuptools.build_meta.<hook>(out) in cwd; the one file it made."""
    out.mkdir()
    code = f"import sys, setuptools.build_meta as b; b.{hook}(sys.argv[1])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out)],
        cwd=cwd, capture_output=True, text=True, timeout=300,
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
        assert f"kernels/{kernel.name}" in top
    assert not [n for n in top if n.startswith(("benchmarks/", "tests/", "examples/"))]
    assert os.path.getsize(built["sdist"]) < 200_000


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
            name = f"seqalign_cli/kernels/{kernel.name}"
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
        installed = target / "seqalign_cli" / "kernels" / kernel.name
        assert installed.read_bytes() == kernel.read_bytes()
    code = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"
    proc = subprocess.run([sys.executable, "-c", code, DIST], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(target)})
    assert proc.returncode == 0 and proc.stdout.strip() == __version__, proc.stderr
