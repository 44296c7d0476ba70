"""Backends: the one dispatch point that picks the engine for a run."""

from __future__ import annotations

from typing import Callable

from ..errors import UsageError

BACKENDS = ("auto", "cpu", "cuda")


class Done:
    """Results already finished: what ``start`` returns for a backend that aligns at once.

    Every backend has ``start(batch, cfg)``, returning an object whose
    ``result()`` gives the batch's alignments; the runner hands it to the
    writer thread, which asks for the result when it writes the batch.
    """

    def __init__(self, res):
        self.res = res

    def result(self):
        return self.res


def select_backend(name: str, threads: int, log: Callable[[str], None], device=0):
    """The backend for ``name``; ``auto`` says on the log what it picked.

    ``device``: a GPU number, a sequence of them, or "all".
    """
    from .cpu import CpuBackend
    from .cuda import gpu_available

    if name == "cpu":
        return CpuBackend(threads)
    if name not in ("auto", "cuda"):
        raise UsageError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
    ok, why = gpu_available()
    if ok:
        from .cuda import device_count
        from .cuda.engine import CudaBackend

        if device == "all":
            device = tuple(range(device_count()))

        try:
            backend = CudaBackend(device, threads, log=log)
        except Exception as exc:  # bad device number, driver trouble
            if name == "cuda":
                raise UsageError(f"--backend cuda: cannot use GPU {device} ({exc})") from None
            log(f"backend auto: picked cpu (GPU {device} unusable: {exc})")
            return CpuBackend(threads)
        if name == "auto":
            log(f"backend auto: picked cuda ({backend.device})")
        return backend
    if name == "cuda":
        raise UsageError(f"--backend cuda: no usable GPU: {why}")
    log(f"backend auto: picked cpu ({why})")
    return CpuBackend(threads)
