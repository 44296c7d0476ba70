"""Launches of the warp kernel (kernels/pairwise_warp.cu): one warp per pair.

Pairs are bucketed by query length into the rows-per-lane variant R (a warp
covers 32*R query rows per stage, R at most 8). The kernel of scorings the
byte profile cannot hold, and of substitution matrices (``substitution``).
"""

from __future__ import annotations

import numpy as np

from ...backends.cuda.launch import DIRS, THREADS, Launch, flag, profile_fits, scores
from ...backends.cuda.loader import module
from .gpu_args import Pairs, Walked, WarpArgs, WarpTraceArgs

WARP = 32
MAX_R = 8
KERNEL = "pairwise_warp.cu"


def rows_per_lane(qlen: np.ndarray) -> np.ndarray:
    """R for each pair: the fewest rows per lane that cover the query in one stage, at most 8."""
    return np.clip((qlen + WARP - 1) // WARP, 1, MAX_R)


def dir_words(qlen: np.ndarray, tlen: np.ndarray, R: np.ndarray) -> np.ndarray:
    """uint32 words of direction codes each pair needs (traceback.cuh's layout, G = 32)."""
    stages = (qlen + WARP * R - 1) // (WARP * R)
    return stages * (tlen + WARP - 1) * WARP


#: where the kernel takes its substitution scores (its SUB template argument, kernels/common.cuh)
SUB_COMPUTED, SUB_PROFILE, SUB_MATRIX = 0, 1, 2
#: a matrix's side in the kernel (codes below it)
MATRIX_CODES = 32


def substitution(scoring) -> int:
    """The kernel's SUB for a scoring: its matrix, else the byte profile where the values fit, else computed."""
    if scoring.matrix is not None:
        return SUB_MATRIX
    return SUB_PROFILE if profile_fits(scoring) else SUB_COMPUTED


def matrix_table(scoring) -> np.ndarray:
    """The matrix as the kernel reads it: int32, MATRIX_CODES x MATRIX_CODES, row = query code (flat)."""
    S = scoring.table(np.int32)
    table = np.zeros((MATRIX_CODES, MATRIX_CODES), np.int32)
    table[:S.shape[0], :S.shape[1]] = S
    return table.ravel()


def warp_name(mode: int, trace: bool, R: int, sub: int) -> str:
    """The warp kernel of R rows a lane and a substitution source (SUB_*)."""
    return f"pairwise_warp<{int(mode)}, {flag(trace)}, {int(R)}, {int(sub)}>"


def trace_name(R: int) -> str:
    """The warp kernel's traceback of R rows a lane."""
    return f"pairwise_trace<{int(R)}>"


def kernels(device: int, mode: int, trace: bool, R: int, sub: int):
    """The forward kernel and its traceback."""
    fwd, back = warp_name(mode, trace, R, sub), trace_name(R)
    mod = module(KERNEL, (fwd, back), device)
    return mod.get_function(fwd), mod.get_function(back)


def prepare(cp, device, d, qlen, tlen, part: np.ndarray, R: int, cfg, words: int = 0, d_dir_off=None) -> Launch:
    """The warp kernel (and traceback) of rows-per-lane R over the pairs ``part``, inputs uploaded."""
    sc = cfg.scoring
    sub = substitution(sc)
    fwd, back = kernels(device, cfg.mode_code, cfg.traceback, R, sub)
    order = cp.asarray(part.astype(np.int32))
    sizes = np.where(qlen[part] > WARP * R, 2 * (tlen[part] + 1), 0)
    border_off = np.zeros(len(qlen), np.int64)
    border_off[part] = np.cumsum(sizes) - sizes
    border = cp.empty(int(sizes.sum()) + 1, np.int32)
    blocks = (len(part) * WARP + THREADS - 1) // THREADS
    mat = cp.asarray(matrix_table(sc)) if sub == SUB_MATRIX else cp.zeros(1, np.int32)
    pairs = Pairs.of(d, order, len(part))
    head = dict(pairs, **scores(sc), mat=mat, border=border, border_off=cp.asarray(border_off), out=d.ends)
    if not cfg.traceback:
        return Launch(fwd, blocks, THREADS,
                      WarpArgs(**head, dirs=cp.empty(1, np.uint32), dir_off=cp.zeros(1, np.int64)).values())
    eq_all = np.int32(sc.alphabet == "protein")  # as the CPU engine's ``_eq_below``: X against X is '='
    back_args = WarpTraceArgs(**pairs, mode=np.int32(cfg.mode_code), dirs=DIRS, dir_off=d_dir_off, ends=d.ends,
                              **Walked.runs(d), eq_all=eq_all)
    return Launch(fwd, blocks, THREADS, WarpArgs(**head, dirs=DIRS, dir_off=d_dir_off).values(), back,
                  (len(part) + THREADS - 1) // THREADS, back_args.values(), words)
