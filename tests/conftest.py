"""Shared fixtures: the ``backend`` every correctness test runs on, CPU and (when one is usable) GPU.

``backend`` (pairs) and ``triplet_backend`` give a family's backend as a run would select it
(``backends.select_backend``): ``align(batch, cfg)`` returns the batch's
results. The cuda parameter is marked ``gpu`` and skipped without a usable
GPU, so one test body checks both engines against the same oracles.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # the shared test modules (oracles, generators, helpers)


def _gpu_usable() -> bool:
    from seqalign_cli.backends import gpu_status

    return gpu_status()[0]


GPU = pytest.mark.skipif(not _gpu_usable(), reason="needs a usable CUDA GPU")


BACKENDS = ["cpu", pytest.param("cuda", marks=[pytest.mark.gpu, GPU])]


def make_backend(family: str, name: str):
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    return select_backend(families.get(family), name, os.cpu_count() or 1, lambda m: None, 0)


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request):
    """The pairwise family's backend."""
    return make_backend("pairwise", request.param)


@pytest.fixture(scope="session", params=BACKENDS)
def triplet_backend(request):
    """The triplet family's backend (cuda: the GPU scheduler, the CPU engine for what it cannot hold)."""
    return make_backend("triplet", request.param)
