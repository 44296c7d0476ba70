"""Shared fixtures: the ``backend`` every correctness test runs on, CPU and (when one is usable) GPU.

``backend`` (pairs) and ``triplet_backend`` give a family's backend as a run would select it
(``backends.select_backend``): ``align(batch, cfg)`` returns the batch's
results. The cuda parameter is marked ``gpu`` and skipped without a usable
GPU, so one test body checks both engines against the same oracles.

The parameters and ``make_backend`` live in ``support.backends`` (the shared
test modules are in ``tests/support``; pyproject.toml puts ``tests/`` on the path).
"""

from __future__ import annotations

import pytest

from support.backends import BACKENDS, make_backend


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request):
    """The pairwise family's backend."""
    return make_backend("pairwise", request.param)


@pytest.fixture(scope="session", params=BACKENDS)
def triplet_backend(request):
    """The triplet family's backend (cuda: the GPU scheduler, the CPU engine for what it cannot hold)."""
    return make_backend("triplet", request.param)
