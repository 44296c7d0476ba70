"""The one loader of GPU kernels: kernels/*.cu compiled through CuPy RawModule.

Template variants are instantiated through ``name_expressions``; modules are
cached in-process (and on disk by CuPy). Sources are found in the installed
package (``seqalign_cli/kernels``) or in a source checkout (``kernels/``); each
is prefixed with ``#line 1 "file.cu"`` so compile errors point at the file.
"""

from __future__ import annotations

import functools
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = (
    os.path.join(_HERE, "..", "..", "kernels"),  # installed wheel: seqalign_cli/kernels
    os.path.join(_HERE, "..", "..", "..", "kernels"),  # source checkout
)


def kernel_dir() -> str:
    for path in _CANDIDATES:
        if os.path.isfile(os.path.join(path, "common.cuh")):
            return os.path.abspath(path)
    raise FileNotFoundError("kernel sources (common.cuh) not found next to the package")


def _source(name: str) -> str:
    folder = kernel_dir()
    with open(os.path.join(folder, name)) as fh:
        return f'#line 1 "{name}"\n' + fh.read()


@functools.lru_cache(maxsize=None)
def module(name: str, expressions: tuple[str, ...], device: int = 0):
    """A compiled module of kernels/<name> with the given template variants.

    CuPy compiles for the current device's own architecture (SASS, so Hopper
    gets its DPX instructions) and caches the binary on disk.
    """
    import cupy

    # SEQALIGN_KERNEL_DEFINES (e.g. "SHARED_BLOCKS=1"): tuning constants for benchmarks
    defines = tuple(f"-D{d}" for d in os.environ.get("SEQALIGN_KERNEL_DEFINES", "").split())
    options = ("-std=c++17", f"-I{kernel_dir()}") + defines
    with cupy.cuda.Device(device):
        mod = cupy.RawModule(code=_source(name), options=options, name_expressions=expressions)
        mod.compile()
    return mod
