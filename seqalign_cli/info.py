"""``seqalign info``: what this installation can run on, and which kernels of every family compile."""

from __future__ import annotations

import platform

from ._version import __version__


def report() -> list[str]:
    import numba
    import numpy

    from .backends import gpu_status

    lines = [f"seqalign {__version__}", f"python {platform.python_version()}, numpy {numpy.__version__}, "
             f"numba {numba.__version__}", f"cpu backend: yes ({numba.config.NUMBA_NUM_THREADS} threads available)"]
    ok, why = gpu_status()
    lines.append(f"cuda backend: {'yes' if ok else 'no'} ({why})")
    if not ok:
        return lines
    import cupy

    from .backends.cuda import device_name
    from .backends.cuda.loader import kernel_dir, module
    from .backends.cuda.variants import table

    lines.append(f"cupy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}, "
                 f"driver {cupy.cuda.runtime.driverGetVersion()}")
    for dev in range(cupy.cuda.runtime.getDeviceCount()):
        props = cupy.cuda.runtime.getDeviceProperties(dev)
        lines.append(f"GPU {dev}: {device_name(dev)}, compute capability {props['major']}.{props['minor']}, "
                     f"{props['multiProcessorCount']} SMs, {props['totalGlobalMem'] / 2**30:.0f} GiB")
    lines.append(f"kernels: {kernel_dir()}")
    for name, expressions in table().items():
        try:
            module(name, expressions)
            lines.append(f"{name}: compiles" + (f" ({len(expressions)} variants checked)" if expressions else ""))
        except Exception as exc:
            lines.append(f"{name}: FAILS to compile: {exc}")
    return lines
