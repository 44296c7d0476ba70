"""Backends: the one dispatch point that picks the backend of a run for a family.

A backend is what the runner talks to: ``name``, ``device``, ``threads``,
``start(batch, cfg)`` returning an object whose ``result()`` gives the
batch's results (``cpu.Done``, the GPU scheduler's ``Pending``), ``steps()`` (host time by step, or None),
``depth`` (batches in flight) and ``write_behind`` (the output file written by a thread of its own). The CPU
backend runs the family's CPU engine; the cuda backend is the GPU scheduler
over the family's engine on each device, with the CPU engine for what a GPU
cannot hold. GPU queries go through here too (``gpu_status``,
``warm_up``), so callers never reach into the cuda package for them.
"""

from __future__ import annotations

from typing import Callable

from ..errors import UsageError

BACKENDS = ("auto", "cpu", "cuda")


def gpu_status() -> tuple[bool, str]:
    """Whether a usable CUDA GPU is present, and why not when it is not."""
    from .cuda import gpu_available

    return gpu_available()


def warm_up(name: str, device) -> None:
    """Start the GPU driver in the background when backend ``name`` may use one (before heavy imports)."""
    if name != "cpu":
        from .cuda import start_driver

        start_driver(device)


def cpu_only(align, family) -> str | None:
    """Why a run's alignment settings need the CPU engine, or None: substitution matrices (proteins, or DNA
    with ``--matrix``) in a family whose GPU engine scores none (``Family.gpu_matrices``)."""
    if align is not None and align.scoring.matrix is not None and not family.gpu_matrices:
        return "substitution matrices (--matrix, --alphabet protein) are aligned by the CPU engine only in this version"
    return None


def select_backend(family, name: str, threads: int, log: Callable[[str], None], device=0, align=None,
                   progress: bool = False):
    """The backend ``name`` for ``family`` (a ``families.Family``); ``auto`` says on the log what it picked.

    ``device``: a GPU number, a sequence of them, or "all". ``align``: the run's ``AlignConfig``, where
    it asks for what only the CPU engine does (``cpu_only``). ``progress``: a bar is shown, so a batch of
    long records is aligned in pieces counted as they end (``CpuBackend``; ``GpuScheduler.progress_cells``).
    """
    from ..io.encode import set_code_buffers
    from .cpu import CpuBackend, LazyEngine

    if name not in BACKENDS:
        raise UsageError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
    set_code_buffers(None)

    def on_cpu():  # with a bar, batches of long records go in pieces where the family's hooks gather results
        gathers = progress and family.cuda_hooks is not None
        return CpuBackend(family.cpu_engine(threads), (lambda: family.load(family.cuda_hooks).allocate)
                          if gathers else None)

    if name == "cpu":
        return on_cpu()
    why_cpu = cpu_only(align, family)
    if why_cpu is not None:
        if name == "cuda":
            raise UsageError(f"--backend cuda: {why_cpu}")
        log(f"backend auto: picked cpu ({why_cpu})")
        return on_cpu()
    if family.cuda is None:
        if name == "cuda":
            raise UsageError(f"--backend cuda: {family.command} has no GPU engine")
        log(f"backend auto: picked cpu ({family.command} has no GPU engine)")
        return on_cpu()
    ok, why = gpu_status()
    if not ok:
        if name == "cuda":
            raise UsageError(f"--backend cuda: no usable GPU: {why}")
        log(f"backend auto: picked cpu ({why})")
        return on_cpu()
    new = family.new_on_gpu(align) if name == "auto" else None
    if new is not None:
        log(f"backend auto: picked cpu ({new} in this version: ask for it with --backend cuda)")
        return on_cpu()
    from .cuda import device_count
    from .cuda.scheduler import GpuScheduler

    if device == "all":
        device = tuple(range(device_count()))
    devices = (device,) if isinstance(device, int) else tuple(device)
    try:
        backend = GpuScheduler([family.cuda_engine(dev) for dev in devices], LazyEngine(family, threads),
                               family.load(family.cuda_hooks), log=log, progress=progress)
    except Exception as exc:  # bad device number, driver trouble
        if name == "cuda":
            raise UsageError(f"--backend cuda: cannot use GPU {device} ({exc})") from None
        log(f"backend auto: picked cpu (GPU {device} unusable: {exc})")
        return on_cpu()
    if name == "auto":
        log(f"backend auto: picked cuda ({backend.device})")
    from .cuda.device import code_buffers

    set_code_buffers(code_buffers(devices[0]))  # the readers' codes page-locked from now on: no staging copy
    return backend
