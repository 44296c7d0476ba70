"""Exact 3-way alignment on the CPU, the reference engine of the triplet family: ``CpuTriplet``.

Triplets are aligned one at a time by ``cpu_cube`` (linear gaps: SIMD
along the anti-diagonals of each slice; the whole cube of direction bytes within the
traceback budget, the checkpointed walk beyond it) or ``cpu_affine``
(affine gaps: seven values a cell, the same two walks), threads across
triplets, largest first, each thread taking the next triplet when it is
free. Cells are int32 where the score bound allows, int64 otherwise.

Memory: each thread's triplet takes its slices (what score only takes) and,
with traceback, at most ``--max-matrix-mb`` more (or the floor of
``cpu_checkpoint``). Where that is more than the process can have, the
compiled engine's ``MemoryError`` becomes one line (``out_of_memory``): the
largest triplet, what it takes, and the option that bounds it.
"""

from __future__ import annotations

import numpy as np

from ...config import AlignConfig, Mode
from ...errors import SeqalignError, UsageError
from ...jit import nb, thread_count
from ...protocols import CpuEngine
from . import cpu_affine as triplet_affine
from .batch import TripletBatch
from .cpu_checkpoint import FLOOR_CODES, FLOOR_VALUES
from .cpu_cube import align_each
from .results import TripletAlignments, opening_costs

#: int32 cells hold every score whose bound stays below this (minus infinity is -2**29)
INT32_LIMIT = 2**28
NEG32 = -(2**29)
NEG64 = -(2**60)
#: int64 cells: larger scores are refused
INT64_LIMIT = 2**58


def check_config(cfg: AlignConfig):
    """What the triplet family computes: global, semi-global or local."""
    if cfg.mode_code is Mode.GLOCAL:
        raise UsageError("triplets are aligned in global, semi-global or local mode")


class CpuTriplet(CpuEngine):
    """The triplet engine on the CPU: ``align(batch, cfg)`` gives the batch's ``TripletAlignments``."""

    def __init__(self, threads: int = 1):
        self.threads = thread_count(threads)

    def align(self, batch: TripletBatch, cfg: AlignConfig) -> TripletAlignments:
        check_config(cfg)
        lengths = batch.lengths
        out = TripletAlignments.allocate(lengths, cfg.traceback)
        bound = cfg.scoring.triplet_bound(lengths)
        if len(bound) and bound.max() >= INT64_LIMIT:
            raise UsageError("scoring values too large: triplet scores could exceed 2**58")
        res = np.zeros((batch.size, 8), np.int64)
        nb.set_num_threads(self.threads)
        runs = out.columns
        seqs = (batch.codes[0], batch.offs[0], batch.codes[1], batch.offs[1], batch.codes[2], batch.offs[2])
        affine = cfg.scoring.gap_open > 0
        for wide in (False, True):
            dtype, neg = (np.int64, NEG64) if wide else (np.int32, NEG32)
            args = (int(cfg.mode_code), np.array(cfg.scoring.as_list(), dtype), np.array([neg], dtype))
            if affine:
                args += (opening_costs(cfg.scoring.gap_open, dtype),)
            else:  # the walk on the values' low bytes where the scoring allows it
                args += (cfg.scoring.triplet_values_fit(),)
            sel = np.flatnonzero((bound >= INT32_LIMIT) == wide)
            if len(sel):
                sel = sel[np.argsort(-batch.cells_each()[sel], kind="stable")]  # largest first
                each = triplet_affine.align_each if affine else align_each
                try:
                    with nb.parallel_chunksize(1):  # threads take them one at a time (equal shares would give
                        # the first thread all the largest)
                        each(*seqs, sel, *args, cfg.traceback, cfg.matrix_budget, runs.off, runs.op, runs.length,
                             res)
                except (MemoryError, SystemError) as exc:  # a parallel call's MemoryError comes as a SystemError
                    if not isinstance(exc, MemoryError) and not isinstance(exc.__cause__, MemoryError):
                        raise
                    raise SeqalignError(out_of_memory(lengths[sel[0]], cfg, affine, wide, self.threads)) from None
        out.score[:] = res[:, 0]
        out.start[:] = res[:, 1:4]
        out.end[:] = res[:, 4:7]
        out.columns.count[:] = res[:, 7]
        return out.finish(cfg)


def triplet_bytes(n1: int, n2: int, n3: int, cfg: AlignConfig, affine: bool, wide: bool) -> tuple[int, int]:
    """(slices, traceback): about what one triplet's alignment takes, in bytes (the engines' arrays)."""
    cell = 8 if wide else 4
    cells = (n2 + 1) * (n3 + 1)
    if affine:  # two slices of seven values, the B x C table
        slices = 15 * (n2 + 2) * (n3 + 2) * cell
        values, codes = 7 * cells * cell, 4 * cells
    else:  # two slices and the B x C table, by anti-diagonal
        slices = 3 * (n2 + n3 + 3) * (n2 + 2) * cell
        values, codes = cells * cell, cells
    if not cfg.traceback:
        return slices, 0
    whole = (n1 + 1) * codes
    floor = FLOOR_VALUES * values + FLOOR_CODES * codes
    return slices, whole if whole <= cfg.matrix_budget else max(cfg.matrix_budget, floor)


def out_of_memory(lengths, cfg: AlignConfig, affine: bool, wide: bool, threads: int) -> str:
    """The one line of a triplet engine out of memory: the largest triplet (``lengths``), what it takes, and
    what bounds that."""
    n1, n2, n3 = (int(x) for x in lengths)
    slices, trace = triplet_bytes(n1, n2, n3, cfg, affine, wide)
    mb = lambda x: f"{(x + (1 << 20) - 1) >> 20:,} MB"  # noqa: E731
    what = (f"{mb(trace)} of traceback (bounded by --max-matrix-mb, now {cfg.matrix_budget >> 20}) and "
            f"{mb(slices)} of slices" if trace else f"{mb(slices)} of slices (score only)")
    return (f"out of memory aligning triplets: the largest ({n1:,} x {n2:,} x {n3:,} bp) takes about {what}, "
            f"for each of the {threads} threads (-t {threads})")
