"""Pairwise alignment on the GPU with the warp kernel (kernels/pairwise_warp.cu).

Per batch: codes and offsets go to the device once; pairs are bucketed by
query length into the rows-per-lane variant R (a warp covers 32*R query rows
per stage); each bucket runs the forward kernel (score and end cell, plus
direction codes when tracing back) and then the traceback kernel (CIGAR
runs, starts and counts), in slices whose direction codes fit in
``DIRS_BYTES``. The CIGAR runs come back in the same slots the CPU engine
uses, so no per-pair host loop is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...batching import PairBatch
from ...config import AlignConfig
from ...results import Alignments
from .loader import module

WARP = 32
MAX_R = 8
#: int32 lanes hold every score whose bound stays below this
INT32_LIMIT = 2**29
#: direction codes held on the device at once
DIRS_BYTES = 2 * 1024**3
KERNEL = "pairwise_warp.cu"
#: substitution scores fit the kernel's signed-byte query profile up to this
PROFILE_LIMIT = 127
THREADS = 128


def rows_per_lane(qlen: np.ndarray) -> np.ndarray:
    """R for each pair: the fewest rows per lane that cover the query in one stage, at most 8."""
    return np.clip((qlen + WARP - 1) // WARP, 1, MAX_R)


def dir_words(qlen: np.ndarray, tlen: np.ndarray, R: np.ndarray) -> np.ndarray:
    """uint32 words of direction codes each pair needs (see the kernel's layout)."""
    stages = (qlen + WARP * R - 1) // (WARP * R)
    return stages * (tlen + WARP - 1) * WARP


def run_slots(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Indices of the run slots starts[k] .. starts[k]+counts[k]-1 of every pair."""
    total = int(counts.sum())
    first = np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + (np.arange(total) - first)


def _offsets(sizes: np.ndarray) -> np.ndarray:
    off = np.zeros(len(sizes), np.int64)
    if len(sizes) > 1:
        np.cumsum(sizes[:-1], out=off[1:])
    return off


@dataclass
class _DeviceBatch:
    """A batch's inputs and outputs on the device."""

    q: object
    qoff: object
    t: object
    toff: object
    border: object
    border_off: object
    ends: object
    run_off: object = None
    run_op: object = None
    run_len: object = None
    info: object = None


class CudaPairwise:
    """Runs the warp kernel for batches on one device."""

    def __init__(self, device: int = 0):
        import cupy

        self.cp = cupy
        self.device = device
        self._held = None  # (batch, out, device arrays) of the batch on the device

    def release(self):
        """Drop the device copy of the last batch."""
        self._held = None

    def _kernels(self, mode: int, trace: bool, R: int, prof: bool):
        fwd = f"pairwise_warp<{mode}, {'true' if trace else 'false'}, {R}, {'true' if prof else 'false'}>"
        back = f"pairwise_trace<{R}>"
        mod = module(KERNEL, (fwd, back), self.device)
        return mod.get_function(fwd), mod.get_function(back)

    def _upload(self, batch: PairBatch, out: Alignments, trace: bool) -> _DeviceBatch:
        cp = self.cp
        tlen = batch.tlen.astype(np.int64)
        one = np.zeros(1, np.uint8)
        d = _DeviceBatch(
            q=cp.asarray(batch.q_codes if len(batch.q_codes) else one),
            qoff=cp.asarray(batch.q_off.astype(np.int64)),
            t=cp.asarray(batch.t_codes if len(batch.t_codes) else one),
            toff=cp.asarray(batch.t_off.astype(np.int64)),
            border=cp.empty(int(2 * (tlen + 1).sum()) + 1, np.int32),
            border_off=cp.asarray(_offsets(2 * (tlen + 1))),
            ends=cp.zeros(3 * batch.size, np.int32),
        )
        if trace:
            d.run_off = cp.asarray(out.run_off)
            d.run_op = cp.zeros(len(out.run_op), np.uint8)
            d.run_len = cp.zeros(len(out.run_len), np.int32)
            d.info = cp.zeros(7 * batch.size, np.int32)
        return d

    def align(self, batch: PairBatch, cfg: AlignConfig, subset: np.ndarray, out: Alignments):
        """Align the pairs ``subset`` of ``batch`` into ``out`` (indexed by pair).

        Only the pairs of ``subset`` (and their run slots) are written, so
        several devices can fill one ``out``. The batch is uploaded once and
        kept while later calls bring more subsets of the same batch.
        """
        cp = self.cp
        qlen = batch.qlen.astype(np.int64)
        tlen = batch.tlen.astype(np.int64)
        with cp.cuda.Device(self.device):
            if self._held is None or self._held[0] is not batch or self._held[1] is not out:
                self._held = (batch, out, self._upload(batch, out, cfg.traceback))
            d = self._held[2]
            self.run_kernels(qlen, tlen, cfg, subset, d)
            ends = cp.asnumpy(d.ends).reshape(-1, 3)
            out.score[subset] = ends[subset, 0]
            out.qend[subset] = ends[subset, 1]
            out.tend[subset] = ends[subset, 2]
            if cfg.traceback:
                info = cp.asnumpy(d.info).reshape(-1, 7)
                out.qstart[subset] = info[subset, 0]
                out.tstart[subset] = info[subset, 1]
                out.nruns[subset] = info[subset, 2]
                out.stats[subset] = info[subset, 3:7]
                slots = run_slots(out.run_off[subset], out.nruns[subset])
                d_slots = cp.asarray(slots)
                out.run_op[slots] = cp.asnumpy(d.run_op[d_slots])
                out.run_len[slots] = cp.asnumpy(d.run_len[d_slots])
            else:
                out.qstart[subset] = 0 if cfg.mode_code in (0, 2) else -1
                out.tstart[subset] = 0 if cfg.mode_code == 0 else -1

    def run_kernels(self, qlen: np.ndarray, tlen: np.ndarray, cfg: AlignConfig, subset: np.ndarray,
                    d: _DeviceBatch):
        """Launch the kernels of every length bucket (asynchronous)."""
        R_all = rows_per_lane(qlen)
        words = dir_words(qlen, tlen, R_all)
        for R in np.unique(R_all[subset]):
            sel = subset[R_all[subset] == R]
            # largest first: long warps start early, short ones fill in behind
            sel = sel[np.argsort(-(qlen[sel] * tlen[sel]), kind="stable")]
            for part in self._slices(sel, words, cfg.traceback):
                self._launch(part, int(R), cfg, words, d)

    @staticmethod
    def _slices(sel: np.ndarray, words: np.ndarray, trace: bool):
        """Consecutive parts of ``sel`` whose direction codes fit in DIRS_BYTES."""
        if not trace:
            yield sel
            return
        cum = np.cumsum(words[sel] * 4)
        start = 0
        while start < len(sel):
            base = cum[start - 1] if start else 0
            end = max(start + 1, int(np.searchsorted(cum, base + DIRS_BYTES, side="right")))
            yield sel[start:end]
            start = end

    def _launch(self, part: np.ndarray, R: int, cfg: AlignConfig, words: np.ndarray, d: _DeviceBatch):
        cp = self.cp
        sc = cfg.scoring
        prof = max(sc.match, sc.mismatch, sc.n_penalty) <= PROFILE_LIMIT
        fwd, back = self._kernels(cfg.mode_code, cfg.traceback, R, prof)
        order = cp.asarray(part.astype(np.int32))
        nwork = np.int32(len(part))
        if cfg.traceback:
            dir_off = np.zeros(len(words), np.int64)
            dir_off[part] = _offsets(words[part])
            dirs = cp.empty(int(words[part].sum()) + 1, np.uint32)
            d_dir_off = cp.asarray(dir_off)
        else:
            dirs = cp.empty(1, np.uint32)
            d_dir_off = cp.zeros(len(words), np.int64)
        blocks = (len(part) * WARP + THREADS - 1) // THREADS
        fwd((blocks,), (THREADS,), (
            d.q, d.qoff, d.t, d.toff, order, nwork, np.int32(sc.match), np.int32(sc.mismatch),
            np.int32(sc.gap_open), np.int32(sc.gap_extend), np.int32(sc.n_penalty), d.border,
            d.border_off, dirs, d_dir_off, d.ends))
        if cfg.traceback:
            tblocks = (len(part) + THREADS - 1) // THREADS
            back((tblocks,), (THREADS,), (
                d.q, d.qoff, d.t, d.toff, order, nwork, np.int32(cfg.mode_code), dirs, d_dir_off,
                d.ends, d.run_off, d.run_op, d.run_len, d.info))
