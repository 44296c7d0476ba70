"""The CUDA backend's light entry: device queries, and the driver started early.

Kernels come from kernels/*.cu compiled at run time through CuPy; the
engine that aligns batches is ``engine.CudaBackend``. This module imports
nothing heavy, so a run can start the driver (``start_driver``) before it
loads the rest of the package.
"""

from __future__ import annotations

import sys
import threading


def gpu_available() -> tuple[bool, str]:
    """Whether a usable CUDA GPU is present, and why not when it is not."""
    try:
        import cupy
    except ImportError:
        return False, "CuPy is not installed (pip install 'seqalign-cli[cuda]')"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return False, f"no CUDA device ({exc.__class__.__name__})"
    if count == 0:
        return False, "no CUDA device"
    return True, f"{count} CUDA device(s)"


def device_count() -> int:
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def device_name(device: int) -> str:
    import cupy

    return cupy.cuda.runtime.getDeviceProperties(device)["name"].decode()


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is CuPy's report of a device allocation that failed."""
    try:
        import cupy
    except ImportError:
        return False
    cuda = cupy.cuda
    if isinstance(exc, cuda.memory.OutOfMemoryError):
        return True
    if isinstance(exc, cuda.runtime.CUDARuntimeError):
        return "cudaErrorMemoryAllocation" in str(exc)
    if isinstance(exc, cuda.driver.CUDADriverError):  # kernel launches and module loads
        return "CUDA_ERROR_OUT_OF_MEMORY" in str(exc)
    return False


def start_driver(devices) -> threading.Thread | None:
    """Start the CUDA driver and the primary context of the first of ``devices`` in a background thread.

    Called before the run loads numpy, numba and CuPy: the driver's start and
    a context's creation take tenths of a second, and through ctypes they
    run without the interpreter lock, beside those imports. CuPy later uses
    the same primary context. The other GPUs' contexts open when a batch
    first goes to them (the scheduler sends batches of short records to the
    first GPU alone: such a run pays for no other context, measured 0.3-0.5
    s of a 2-8 s run on two H200s). Any failure (no driver, no such device)
    is left for the backend's own checks to report. ``devices``: a GPU
    number, a sequence of them, or "all".
    """
    if not sys.platform.startswith("linux"):
        return None
    thread = threading.Thread(target=_open_contexts, args=(devices,), name="cuda-start", daemon=True)
    thread.start()
    return thread


def _open_contexts(devices):
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        if cuda.cuInit(0) != 0:
            return
        if devices == "all":
            devices = (0,)
        elif isinstance(devices, int):
            devices = (devices,)
        for ordinal in tuple(devices)[:1]:
            dev, ctx = ctypes.c_int(0), ctypes.c_void_p()
            if cuda.cuDeviceGet(ctypes.byref(dev), ordinal) == 0:
                # kept for the process's life; CuPy's runtime retains the same context
                cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    except (OSError, AttributeError):  # no driver library, or an unexpected one
        return
