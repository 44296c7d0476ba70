"""numpy standing in for CuPy, deep enough for a GPU engine's ``submit`` to run without a GPU.

Device arrays are numpy arrays (``set``/``get`` copy), streams and events
order nothing, pinned memory is plain memory, and a kernel only records its
call: name, grid, block and a digest of every argument's contents. A host
test then compares the launches that two ways of planning a batch queue,
argument for argument. ``install(monkeypatch)`` puts the stand-in in place
of ``cupy`` and of the kernel loader of the pairwise launches; its
``calls`` list gets the launches.
"""

from __future__ import annotations

import hashlib
import sys
from types import SimpleNamespace

import numpy as np


class ndarray(np.ndarray):
    def set(self, host, stream=None):
        np.copyto(self.view(np.ndarray).reshape(-1)[:host.size], np.asarray(host).reshape(-1))

    def get(self, stream=None, out=None, blocking=True):
        if out is None:
            return np.array(self.view(np.ndarray))
        np.copyto(out, self.view(np.ndarray))
        return out


def _device(a) -> ndarray:
    return np.asarray(a).view(ndarray)


class _Stream:
    count = 0

    def __init__(self, non_blocking=False):
        _Stream.count += 1
        self.ptr = _Stream.count

    def __enter__(self):
        _current.append(self)
        return self

    def __exit__(self, *exc):
        _current.pop()
        return False

    def record(self, event=None):
        return SimpleNamespace(synchronize=lambda: None)

    def wait_event(self, event):
        pass

    def synchronize(self):
        pass


_current = [_Stream()]


class _Device:
    def __init__(self, device: int = 0):
        self.id = device
        self.attributes = {"MultiProcessorCount": 132}
        self.mem_info = (80 << 30, 80 << 30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class PinnedMemoryPointer(bytearray):
    pass


class Kernel:
    """A kernel that records its calls in ``calls``: (name, grid, block, digest of the arguments)."""

    def __init__(self, name: str, calls: list):
        self.name, self.calls = name, calls

    def __call__(self, grid, block, args, shared_mem=0):
        digest = hashlib.sha1()
        for a in args:
            if isinstance(a, np.ndarray):
                digest.update(str(a.dtype).encode() + np.ascontiguousarray(a).tobytes())
            else:
                digest.update(repr(a).encode())
        self.calls.append((self.name, tuple(grid), tuple(block), digest.hexdigest()))


def numpy_cupy(calls: list) -> SimpleNamespace:
    """The stand-in module; kernels record into ``calls``."""
    cuda = SimpleNamespace(Device=_Device, Stream=_Stream, get_current_stream=lambda: _current[-1],
                           alloc_pinned_memory=PinnedMemoryPointer, PinnedMemoryPointer=PinnedMemoryPointer)
    module = SimpleNamespace(get_function=lambda name: Kernel(name, calls))
    return SimpleNamespace(
        cuda=cuda,
        # every buffer starts zeroed, so that digests do not see leftover memory
        empty=lambda shape, dtype=float: _device(np.zeros(shape, dtype)),
        zeros=lambda shape, dtype=float: _device(np.zeros(shape, dtype)),
        asarray=lambda a, dtype=None: _device(np.array(a, dtype=dtype)),
        asnumpy=lambda a, stream=None: np.array(np.asarray(a)),
        maximum=lambda *a: _device(np.maximum(*a)),
        module=lambda name, expressions, device=0: module,
    )


def install(monkeypatch) -> list:
    """The stand-in as ``cupy`` and as the pairwise launches' kernel loader; returns the list of calls."""
    from seqalign_cli.families.pairwise import gpu_subwarp, gpu_warp

    calls: list = []
    cp = numpy_cupy(calls)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    monkeypatch.setattr(gpu_subwarp, "module", cp.module)
    monkeypatch.setattr(gpu_warp, "module", cp.module)
    return calls
