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
    checks = {
        "pairwise_warp.cu": tuple(f"pairwise_warp<{m}, {t}, {r}, {p}>" for m in range(4) for t in ("false", "true")
                                  for r in (1, 8) for p in ("false", "true")) + ("pairwise_trace<1>", "pairwise_trace<8>"),
        "pairwise_subwarp.cu": tuple(f"pairwise_subwarp<{m}, {t}, {g}, {r}, 1>" for m in range(4)
                                     for t in ("false", "true") for g, r in ((1, 4), (8, 20), (32, 16)))
        + tuple(f"pairwise_subwarp<{m}, false, 32, 16, 8>" for m in range(4))
        + tuple(f"pairwise_subwarp16<{m}, {t}, 8, 20, 1>" for m in range(4) for t in ("false", "true"))
        + tuple(f"pairwise_subwarp16<{m}, false, 32, 16, 8>" for m in range(3))
        + ("subwarp_trace<8, 20, false>", "subwarp_trace<8, 20, true>"),
    }
    for name, expressions in checks.items():
        try:
            module(name, expressions)
            lines.append(f"{name}: compiles ({len(expressions)} variants checked)")
        except Exception as exc:
            lines.append(f"{name}: FAILS to compile: {exc}")
    return lines
