"""The backends a correctness test runs on: CPU, and cuda when a GPU is usable.

``BACKENDS`` parametrizes a test over them (the cuda parameter is marked ``gpu``
and skipped without a usable GPU); ``make_backend`` gives a family's backend as a
run would select it (``backends.select_backend``). The fixtures of
``tests/conftest.py`` are built from these; test files that parametrize or build
backends themselves import them from here.
"""

from __future__ import annotations

import os

import pytest


def _gpu_usable() -> bool:
    from seqalign_cli.backends import gpu_status

    return gpu_status()[0]


GPU = pytest.mark.skipif(not _gpu_usable(), reason="needs a usable CUDA GPU")


BACKENDS = ["cpu", pytest.param("cuda", marks=[pytest.mark.gpu, GPU])]


def make_backend(family: str, name: str):
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    return select_backend(families.get(family), name, os.cpu_count() or 1, lambda m: None, 0)
