"""``seqalign info``: what this installation can run on."""

from __future__ import annotations

import platform

from . import __version__


def report() -> list[str]:
    import numba
    import numpy

    from .backends.cuda import gpu_available

    lines = [f"seqalign {__version__}", f"python {platform.python_version()}, numpy {numpy.__version__}, "
             f"numba {numba.__version__}", f"cpu backend: yes ({numba.config.NUMBA_NUM_THREADS} threads available)"]
    ok, why = gpu_available()
    lines.append(f"cuda backend: {'yes' if ok else 'no'} ({why})")
    if not ok:
        return lines
    import cupy

    from .backends.cuda import device_name
    from .backends.cuda.loader import kernel_dir, module

    lines.append(f"cupy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}, "
                 f"driver {cupy.cuda.runtime.driverGetVersion()}")
    for dev in range(cupy.cuda.runtime.getDeviceCount()):
        props = cupy.cuda.runtime.getDeviceProperties(dev)
        lines.append(f"GPU {dev}: {device_name(dev)}, compute capability {props['major']}.{props['minor']}, "
                     f"{props['multiProcessorCount']} SMs, {props['totalGlobalMem'] / 2**30:.0f} GiB")
    lines.append(f"kernels: {kernel_dir()}")
    names = tuple(f"pairwise_warp<{m}, {t}, {r}, {p}>" for m in range(4) for t in ("false", "true")
                  for r in (1, 8) for p in ("false", "true"))
    try:
        module("pairwise_warp.cu", names + ("pairwise_trace<1>", "pairwise_trace<8>"))
        lines.append(f"pairwise_warp.cu: compiles ({len(names) + 2} variants checked)")
    except Exception as exc:
        lines.append(f"pairwise_warp.cu: FAILS to compile: {exc}")
    return lines
