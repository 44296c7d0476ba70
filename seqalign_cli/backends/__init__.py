"""Backends: the one dispatch point that picks the engine for a run."""

from __future__ import annotations

from typing import Callable

from ..errors import UsageError

BACKENDS = ("auto", "cpu")


def select_backend(name: str, threads: int, log: Callable[[str], None]):
    """The backend for ``name``; ``auto`` says on the log what it picked."""
    from .cpu import CpuBackend

    if name == "cpu":
        return CpuBackend(threads)
    if name == "auto":
        log("backend auto: picked cpu (no GPU backend in this build)")
        return CpuBackend(threads)
    raise UsageError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
