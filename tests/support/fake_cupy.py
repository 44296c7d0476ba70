"""A stand-in for CuPy, under which the GPU engines' own constructors run on a machine without a GPU.

The engines of ``seqalign_cli.backends.cuda`` import ``cupy`` in their
constructors (``DeviceEngine.__init__``) and ask the device for its size
there (``CudaGraph``, ``CudaTriplet``). ``without_device(cls, ...)`` builds
such an engine through its constructor with ``cp`` standing in for the
module; host-side tests then exercise what needs no device (plans, results,
stream bookkeeping) on a fully built engine.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

GIB = 1024**3


def fake_cupy(sms: int = 4, memory: int = 16 * GIB, **names) -> SimpleNamespace:
    """A cupy of one pretend device with ``sms`` multiprocessors and ``memory`` bytes (all free), plus ``names``
    (module attributes, such as ``asarray``)."""

    class Device:
        def __init__(self, device: int = 0):
            self.id = device
            self.attributes = {"MultiProcessorCount": sms}
            self.mem_info = (memory, memory)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    runtime = SimpleNamespace(getDeviceProperties=lambda device: {"totalGlobalMem": memory})
    return SimpleNamespace(cuda=SimpleNamespace(Device=Device, runtime=runtime), **names)


def without_device(cls, *args, cp=None, **kwargs):
    """``cls(*args, **kwargs)`` with ``cp`` (default: ``fake_cupy()``) as the ``cupy`` its constructor imports."""
    cp = fake_cupy() if cp is None else cp
    missing = object()
    saved = sys.modules.get("cupy", missing)
    sys.modules["cupy"] = cp
    try:
        return cls(*args, **kwargs)
    finally:
        if saved is missing:
            del sys.modules["cupy"]
        else:
            sys.modules["cupy"] = saved
