"""A chunk's records formatted in parts side by side (pairs: TSV, PAF, SAM, BAM; triplets: TSV, MAF).

A compiled formatter loops over every record of the views it is given.
``cut`` gives it records a..b-1 alone (offset arrays sliced; the buffers they
point into kept whole), and ``Parts.map`` makes one formatter call per part
in a pool of ``threads`` threads, the parts' bytes coming back in record
order. The formatters release the interpreter lock, so the parts run at
once: formatting no longer holds up the writer thread of a run that
aligns faster than one thread formats (several GPUs).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..io.block import BlockView
from ..results import RunView

#: records a part holds at least
PART = 4096


def cut(views: tuple, a: int, b: int) -> tuple:
    """Records a..b-1 of a chunk's views: record blocks (``BlockView``), runs (``RunView``), per-record
    arrays in a named tuple (``PairView``) or alone."""
    out = []
    for v in views:
        if isinstance(v, BlockView):
            v = v._replace(name_off=v.name_off[a:b + 1], seq_off=v.seq_off[a:b + 1])
        elif isinstance(v, RunView):
            v = v._replace(off=v.off[a:b], count=v.count[a:b])
        elif isinstance(v, tuple):
            v = type(v)(*(x[a:b] for x in v))
        else:
            v = v[a:b]
        out.append(v)
    return tuple(out)


class Parts:
    """Formats a chunk's ``n`` records in parts with ``threads`` threads (one call where parts would not pay)."""

    def __init__(self, threads: int):
        self.threads = max(1, int(threads or 1))
        self.pool = None

    def map(self, one, views: tuple, n: int) -> list:
        """``one(*views)`` over the parts of the records, in order: a list of what each call returned."""
        count = min(self.threads, -(-n // PART))
        if count <= 1:
            return [one(*views)]
        cuts = np.linspace(0, n, count + 1).astype(np.int64)
        parts = [cut(views, int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:])]
        if self.pool is None:
            self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="seqalign-format")
        return list(self.pool.map(lambda part: one(*part), parts))

    def shutdown(self, wait: bool = True):
        """End the pool's threads (``wait``: after the parts in progress; else dropping those not begun)."""
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=not wait)
            self.pool = None
