"""The CUDA engine: kernels from kernels/*.cu compiled at run time through CuPy.

Pairs the GPU kernels cannot hold exactly (scores beyond int32 lanes) or whose
traceback would exceed the per-pair memory budget are aligned by the CPU
engine inside the same batch, so results are the same whatever the route.
"""

from __future__ import annotations

import numpy as np

from ...batching import PairBatch
from ...config import AlignConfig
from ...results import Alignments


def gpu_available() -> tuple[bool, str]:
    """Whether a usable CUDA GPU is present, and why not when it is not."""
    try:
        import cupy
    except ImportError:
        return False, "CuPy is not installed (pip install 'seqalign[cuda]')"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return False, f"no CUDA device ({exc.__class__.__name__})"
    if count == 0:
        return False, "no CUDA device"
    return True, f"{count} CUDA device(s)"


def device_name(device: int) -> str:
    import cupy

    return cupy.cuda.runtime.getDeviceProperties(device)["name"].decode()


class CudaBackend:
    """Aligns batches on one GPU, with the CPU engine for what the GPU cannot hold."""

    name = "cuda"

    def __init__(self, device: int = 0, threads: int = 1):
        from ..cpu import CpuBackend
        from .pairwise import CudaPairwise

        self.engine = CudaPairwise(device)
        self.cpu = CpuBackend(threads)
        self.threads = self.cpu.threads
        self.device = f"GPU {device}: {device_name(device)}"

    def align(self, batch: PairBatch, cfg: AlignConfig) -> Alignments:
        from .pairwise import INT32_LIMIT, dir_words, rows_per_lane

        qlen = batch.qlen.astype(np.int64)
        tlen = batch.tlen.astype(np.int64)
        out = Alignments.allocate(qlen, tlen, cfg.traceback)
        sc = cfg.scoring
        bound = sc.score_bound(qlen, tlen)
        on_gpu = bound < INT32_LIMIT
        if cfg.traceback:
            on_gpu &= dir_words(qlen, tlen, rows_per_lane(qlen)) * 4 <= cfg.matrix_budget
        gpu_idx = np.flatnonzero(on_gpu)
        cpu_idx = np.flatnonzero(~on_gpu)
        if len(gpu_idx):
            self.engine.align(batch, cfg, gpu_idx, out)
        if len(cpu_idx):
            out.take(cpu_idx, self.cpu.align(batch.subset(cpu_idx), cfg))
        out.normalize_empty(cfg.mode_code)
        return out
