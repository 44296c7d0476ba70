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


def device_count() -> int:
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def device_name(device: int) -> str:
    import cupy

    return cupy.cuda.runtime.getDeviceProperties(device)["name"].decode()


def split_by_cells(idx: np.ndarray, cells: np.ndarray, pieces: int) -> list[np.ndarray]:
    """Pairs ``idx`` cut into about ``pieces`` parts of similar cell counts, largest pairs first."""
    idx = idx[np.argsort(-cells[idx], kind="stable")]
    cum = np.cumsum(cells[idx])
    cuts = np.searchsorted(cum, np.linspace(0, cum[-1], pieces + 1)[1:-1], side="right")
    return [p for p in np.split(idx, np.unique(cuts)) if len(p)]


class CudaBackend:
    """Aligns batches on one or more GPUs, with the CPU engine for what a GPU cannot hold.

    With several GPUs, each batch is cut into pieces of similar cell counts
    that the GPUs take from a shared queue as they finish the previous one
    (dynamic partitioning); results land in input order.
    """

    name = "cuda"

    def __init__(self, devices=(0,), threads: int = 1):
        from ..cpu import CpuBackend
        from .pairwise import CudaPairwise

        devices = (devices,) if isinstance(devices, int) else tuple(devices)
        self.engines = [CudaPairwise(dev) for dev in devices]
        self.cpu = CpuBackend(threads)
        self.threads = self.cpu.threads
        names = {device_name(dev) for dev in devices}
        self.device = (f"GPU {devices[0]}: {names.pop()}" if len(devices) == 1
                       else f"GPUs {','.join(map(str, devices))}: {', '.join(sorted(names))}")

    def align(self, batch: PairBatch, cfg: AlignConfig) -> Alignments:
        from .pairwise import INT32_LIMIT, planned_dir_words

        qlen = batch.qlen.astype(np.int64)
        tlen = batch.tlen.astype(np.int64)
        out = Alignments.allocate(qlen, tlen, cfg.traceback)
        sc = cfg.scoring
        bound = sc.score_bound(qlen, tlen)
        on_gpu = bound < INT32_LIMIT
        if cfg.traceback:
            on_gpu &= planned_dir_words(qlen, tlen) * 4 <= cfg.matrix_budget
        gpu_idx = np.flatnonzero(on_gpu)
        cpu_idx = np.flatnonzero(~on_gpu)
        if len(gpu_idx):
            self._gpu(batch, cfg, gpu_idx, qlen * tlen, out)
        if len(cpu_idx):
            out.take(cpu_idx, self.cpu.align(batch.subset(cpu_idx), cfg))
        out.normalize_empty(cfg.mode_code)
        return out

    def _gpu(self, batch, cfg, idx, cells, out):
        if len(self.engines) == 1:
            self.engines[0].align(batch, cfg, idx, out)
            self.engines[0].release()
            return
        import queue
        import threading

        work: queue.Queue = queue.Queue()
        for piece in split_by_cells(idx, cells, 4 * len(self.engines)):
            work.put(piece)
        errors = []

        def drain(engine):
            try:
                while True:
                    try:
                        piece = work.get_nowait()
                    except queue.Empty:
                        return
                    engine.align(batch, cfg, piece, out)
            except BaseException as exc:  # re-raised in the calling thread
                errors.append(exc)
            finally:
                engine.release()

        threads = [threading.Thread(target=drain, args=(e,)) for e in self.engines]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
