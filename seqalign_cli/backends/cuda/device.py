"""What every family's engine on one GPU shares: pinned buffers, streams, uploads, offsets, the job cycle.

``DeviceEngine`` is the base of a family's engine on one device. It holds
the streams that batches in flight take turns on and the device copy of the
last batch, and gives the scheduler its three calls:

* ``submit(batch, cfg, subset, out)``: upload through pinned buffers, plan
  and queue the kernels and the copy back of results on a stream of its
  own, return a job at once;
* ``collect(job)``: wait for the job (an event recorded after its work:
  its stream may hold a later job's work by then, when more batches are in
  flight than there are streams) and fill ``out``;
* ``align(batch, cfg, subset, out)``: the same, synchronously, for a piece of
  a batch (halves after an out-of-memory error); the batch is uploaded once
  while later calls bring more pieces of it;
* ``release()``: drop the device copy (and the work areas).

A family's launches take large work areas from ``scratch(name, nbytes)``,
kept for each stream and reused by its later launches. Launches of a job
that do not depend on each other may run side by side (``side_by_side``:
side streams forked from the job's stream and joined back into it), so
that launches too small to fill the GPU by themselves share it.

A family supplies ``upload(batch, out, cfg, staged)`` (its device copy),
``queue(batch, cfg, subset, out, d, stream, clock)`` (kernels and copies
back, returning a ``Job``) and ``results(job, clock, whole)`` (fill ``out``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...jit import nb
from .launch import KernelArgs
from .loader import module

#: streams an engine takes turns on: batches submitted and not yet collected overlap
STREAMS = 3
#: threads a block of pack_runs
PACK_THREADS = 256
#: side streams of each stream (``DeviceEngine.side_by_side``)
SIDE_STREAMS = 3


def pinned(shape, dtype) -> np.ndarray:
    """A host array in page-locked memory (CuPy's pinned pool), for copies that do not wait.

    The pool hands a freed buffer back only for a request of its size, so sizes are rounded up to
    classes of eight a doubling: batches of similar sizes reuse the buffers instead of pinning new pages.
    """
    import cupy

    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    size = max(count, 1) * dtype.itemsize
    step = 1 << max(size.bit_length() - 4, 9)
    mem = cupy.cuda.alloc_pinned_memory(-(-size // step) * step)
    return np.frombuffer(mem, dtype, count).reshape(shape)


#: the largest code buffer the readers get page-locked: chunks of long reads (compute-bound, and many of
#: them held at once by the pipeline) keep plain memory and the staging copy
PINNED_CODES_MAX = 32 << 20


def code_buffers(device: int):
    """The readers' page-locked code buffers (``io.encode.set_code_buffers``), made in ``device``'s context:
    the readers' threads have no device of their own, and a run on other GPUs opens no context on GPU 0."""
    import cupy

    def alloc(length: int) -> np.ndarray:
        if length > PINNED_CODES_MAX:
            return np.empty(length, np.uint8)
        with cupy.cuda.Device(device):
            return pinned((length,), np.uint8)

    return alloc


def is_pinned(host: np.ndarray) -> bool:
    """Whether ``host`` is a contiguous array in a buffer from ``pinned`` (numpy keeps the buffer behind a
    memoryview, and a view behind the arrays it was cut from)."""
    import cupy

    base = host.base
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return isinstance(base, cupy.cuda.PinnedMemoryPointer) and host.flags.c_contiguous


def offsets(sizes: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums: where each of ``sizes`` starts when laid back to back."""
    off = np.zeros(len(sizes), np.int64)
    if len(sizes) > 1:
        np.cumsum(sizes[:-1], out=off[1:])
    return off


def shape_groups(subset: np.ndarray, key: np.ndarray, cells: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The items of ``subset`` by kernel shape: [(key, items)] in ascending ``key`` (one value per item of
    ``subset``), each group's items largest ``cells`` first (indexed by item; sizes within 1/1024 of an
    octave of each other count as equal), ties in ``subset`` order: long items start early, short ones fill
    in behind. Two radix sorts of 16-bit keys where the shapes' keys fit 16 bits."""
    return [(k, items) for k, items, _ in shape_parts(subset, key, cells)[0]]


def shape_parts(subset: np.ndarray, key: np.ndarray, cells: np.ndarray, sizes: np.ndarray | None = None,
                limit: int = 0) -> tuple[list[tuple[int, np.ndarray, int]], np.ndarray | None]:
    """``shape_groups``, each group cut further as ``fitting_parts`` cuts it (consecutive parts whose
    ``sizes``, indexed by item, add up to ``limit`` at most; an item alone may pass it), in one compiled
    pass: [(key, items, total size)] and each item's offset within its part (indexed by item; None without
    ``sizes``), where a launch's items lay out their work areas back to back."""
    key = np.require(key, np.int64, "CW")
    if not len(key):
        return [], (None if sizes is None else np.zeros(len(sizes), np.int64))
    subset = np.require(subset, np.int64, "CW")
    order = group_order(key, _size_rank(subset, np.require(cells, np.int64, "CW")))
    items, keys = subset[order], key[order]
    sized = sizes is not None
    sizes = np.require(sizes, np.int64, "CW") if sized else np.zeros(0, np.int64)
    off = np.zeros(len(sizes), np.int64)
    bounds = np.empty(len(items) + 1, np.int64)
    totals = np.empty(len(items), np.int64)
    parts = _cut_parts(items, keys, sizes, limit, off, bounds, totals)
    return ([(int(keys[bounds[k]]), items[bounds[k]:bounds[k + 1]], int(totals[k])) for k in range(parts)],
            off if sized else None)


@nb.njit(nogil=True, cache=True)
def _size_rank(subset, cells):
    """65535 less each item's size on a scale of 1/1024 octave (``shape_groups``' order, largest first)."""
    rank = np.empty(subset.shape[0], np.uint16)
    for i in range(subset.shape[0]):
        rank[i] = 65535 - int(np.log2(np.float64(max(cells[subset[i]], 1))) * 1024)
    return rank


@nb.njit(nogil=True, cache=True)
def _cut_parts(items, keys, sizes, limit, off, bounds, totals):
    """``shape_parts``' cuts of ``items`` (in group order, ``keys`` theirs): where the key changes and, with
    ``sizes`` (not empty), where the part's sizes would pass ``limit``; each item's offset in its part into
    ``off``, the parts' starts into ``bounds`` and their sizes into ``totals``. Returns the number of parts."""
    sized = sizes.shape[0] > 0
    parts, start, total = 0, 0, 0
    bounds[0] = 0
    for j in range(items.shape[0]):
        size = sizes[items[j]] if sized else 0
        if j > start and (keys[j] != keys[j - 1] or (sized and total + size > limit)):
            totals[parts] = total
            parts += 1
            bounds[parts] = start = j
            total = 0
        if sized:
            off[items[j]] = total
        total += size
    totals[parts] = total
    bounds[parts + 1] = items.shape[0]
    return parts + 1


@nb.njit(nogil=True, cache=True)
def group_order(key, rank):
    """The order of items by ``key`` then ``rank`` (uint16), ties in item order, in compiled code (one call
    a batch, outside the interpreter lock): a counting sort by rank, then one by key where the keys span
    fewer than 2**16 values (a stable merge sort otherwise)."""
    n = key.shape[0]
    count = np.zeros(65537, np.int64)
    for i in range(n):
        count[rank[i] + 1] += 1
    for b in range(65536):
        count[b + 1] += count[b]
    by_rank = np.empty(n, np.int64)
    for i in range(n):
        r = rank[i]
        by_rank[count[r]] = i
        count[r] += 1
    lo, hi = key.min(), key.max()
    if hi - lo >= 65536:
        return by_rank[np.argsort(key[by_rank], kind="mergesort")]
    start = np.zeros(hi - lo + 2, np.int64)
    for i in range(n):
        start[key[i] - lo + 1] += 1
    for b in range(hi - lo + 1):
        start[b + 1] += start[b]
    order = np.empty(n, np.int64)
    for j in range(n):
        i = by_rank[j]
        k = key[i] - lo
        order[start[k]] = i
        start[k] += 1
    return order


def fitting_parts(sel: np.ndarray, sizes: np.ndarray, limit: int) -> list[np.ndarray]:
    """Consecutive parts of ``sel`` whose ``sizes`` add up to ``limit`` at most (an item alone may exceed it).

    What a launch may hold at once: direction codes, border scratch.
    """
    cum = np.cumsum(sizes[sel])
    parts, start = [], 0
    while start < len(sel):
        base = cum[start - 1] if start else 0
        end = max(start + 1, int(np.searchsorted(cum, base + limit, side="right")))
        parts.append(sel[start:end])
        start = end
    return parts


def run_slots(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Indices of the slots starts[k] .. starts[k]+counts[k]-1 of every record."""
    total = int(counts.sum())
    first = np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + (np.arange(total) - first)


def upload(cp, host: np.ndarray, staged: list | None, pad16: bool = False):
    """A device copy of ``host`` queued on the current stream.

    With ``staged`` (a list that keeps the staging buffers alive until the
    stream has copied them) the array goes through a pinned buffer and the
    copy does not wait; without it, a plain synchronous copy. ``pad16``:
    the device array is padded to a multiple of 16 bytes (kernels that read
    16-byte pieces).
    """
    size = -(-len(host) // 16) * 16 if pad16 else len(host)
    dev = cp.empty(size, host.dtype)
    if staged is None:
        dev[:len(host)].set(host)
        return dev
    if is_pinned(host):  # page-locked already (the readers' codes of a GPU run): no staging copy
        staged.append(host)
        dev[:len(host)].set(host, stream=cp.cuda.get_current_stream())
        return dev
    buf = pinned((size,), host.dtype)
    np.copyto(buf[:len(host)], host)
    staged.append(buf)
    dev.set(buf, stream=cp.cuda.get_current_stream())
    return dev


def upload_runs(cp, runs, staged: list | None):
    """Device arrays for a ``RunStore``'s runs: its offsets uploaded, op and length slots to be written.

    Slots past a record's run count are never read, so they are left uncleared.
    """
    return (upload(cp, np.asarray(runs.off, np.int64), staged), cp.empty(max(len(runs.op), 1), np.uint8),
            cp.empty(max(len(runs.length), 1), np.int32))


def copy_back(d_arr, shape, stream) -> np.ndarray:
    """A pinned host array of ``shape`` into which ``d_arr`` is copied on ``stream`` (queued: the copy does not wait)."""
    host = pinned(shape, d_arr.dtype)
    d_arr.get(stream=stream, out=host.reshape(d_arr.shape), blocking=False)
    return host


def copy_runs_back(d_op, d_len, stream) -> dict:
    """Every run slot copied to pinned host arrays on ``stream``, queued with a job's kernels: ``fetch_runs``
    then takes the runs from them (``host``) without another copy."""
    return {"run_op": copy_back(d_op, (len(d_op),), stream), "run_len": copy_back(d_len, (len(d_len),), stream)}


def fetch_runs(cp, runs, d_off, d_op, d_len, subset: np.ndarray, whole: bool, host: dict | None = None):
    """Bring back the runs that ``subset``'s records wrote on the device into the ``RunStore`` ``runs``.

    ``whole``: no other engine writes ``runs``, so its layout is made anew
    (``RunStore.packed``): one kernel packs the runs in use on the device
    (kernels/runs.cu; CuPy's searchsorted and gathers would be five kernels,
    each loaded at its first use, in the middle of the first batch), one
    copy brings them back. Otherwise (a piece of a batch shared by several
    devices) only the slots of ``subset`` are copied, so that other devices'
    stay untouched.

    ``host`` (``copy_runs_back``, queued after the job's kernels): every slot
    is on the host already. Whole, ``runs`` takes those arrays in its own
    layout; otherwise the slots of ``subset`` are copied from them. For
    engines whose kernels run long: the packing kernel, queued once the
    job is done, would wait behind the next job's kernels.
    """
    if whole and host is not None:
        runs.op, runs.length = host["run_op"], host["run_len"]
        return
    if not whole:
        slots = run_slots(runs.off[subset], runs.count[subset])
        if host is not None:
            runs.op[slots], runs.length[slots] = host["run_op"][slots], host["run_len"][slots]
        else:
            d_slots = cp.asarray(slots)
            runs.op[slots], runs.length[slots] = cp.asnumpy(d_op[d_slots]), cp.asnumpy(d_len[d_slots])
        return
    off, total = runs.packed(subset)
    if total:
        op, length = cp.empty(total, np.uint8), cp.empty(total, np.int32)
        pack = module("runs.cu", (), cp.cuda.Device().id).get_function("pack_runs")
        blocks = min(-(-total // PACK_THREADS), 65535)
        pack((blocks,), (PACK_THREADS,), PackArgs(dst_off=cp.asarray(off), n=np.int64(len(off)), src_off=d_off,
                                                  op=d_op, len=d_len, total=np.int64(total), op_out=op,
                                                  len_out=length).values())
        op, length = cp.asnumpy(op), cp.asnumpy(length)
    else:
        op, length = np.empty(1, np.uint8), np.empty(1, np.int32)
    runs.off, runs.op, runs.length = off, op, length


@dataclass
class PackArgs(KernelArgs):
    """pack_runs (kernels/runs.cu): ``n`` records' runs from their slots (``src_off``) into ``total`` packed
    slots (``dst_off``, the records' new offsets)."""

    KERNEL, NAME = "runs.cu", "pack_runs"
    dst_off: object
    n: object
    src_off: object
    op: object
    len: object
    total: object
    op_out: object
    len_out: object


class Clock:
    """Adds the time since the last call to ``seconds[step]``."""

    def __init__(self, seconds: dict):
        self.seconds = seconds
        self.last = time.perf_counter()

    def __call__(self, step: str):
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - self.last
        self.last = now


@dataclass
class Job:
    """Work of one batch queued on a stream: what ``collect`` needs to finish it."""

    batch: object
    cfg: object
    subset: np.ndarray
    out: object
    d: object  # the family's device copy of the batch
    stream: object
    host: dict  # pinned host arrays the stream copies results into, by name
    staged: list | None = None  # pinned upload buffers, kept until the stream has read them
    done: object = None  # an event recorded on the stream after the job's work (``submit``)


class DeviceEngine:
    """The base of a family's engine on one GPU (see the module's docstring)."""

    #: CPU threads of the run's host work on this engine's results (the scheduler sets the run's ``-t``)
    threads = 1

    def __init__(self, device: int = 0):
        import cupy

        self.cp = cupy
        self.device = device
        self._held = None  # (batch, out, device copy) of the batch on the device
        self._streams = None  # created on first use, on the engine's device
        self._turn = 0
        self._scratch: dict = {}  # (name, stream): a device work area kept for the stream's launches
        self._sides: dict = {}  # stream pointer: the side streams of ``side_by_side``
        self.seconds: dict[str, float] = {}  # host time by step (upload, prepare, kernels, wait, results)

    def release(self):
        """Drop the device copy of the last batch and the work areas (``scratch``)."""
        self._held = None
        self._scratch.clear()

    def scratch(self, name: str, nbytes: int):
        """A device work area of ``nbytes`` (uint8, contents undefined) for launches on the current stream.

        Kept by name and stream and reused while large enough: a launch's
        traceback codes take a share of the device's memory, which the memory
        pool would allocate anew for each launch and, freed on another
        stream, not reuse (a ``cudaMalloc``; with the memory full, a release
        of every cached block that waits for the device and stalls the
        pipeline). Launches on one stream run in order, so the next one
        writes the area only after the last one has read it.
        """
        key = (name, self.cp.cuda.get_current_stream().ptr)
        buf = self._scratch.pop(key, None)
        if buf is None or buf.size < nbytes:
            buf = None  # the old area goes back to the pool first
            buf = self.cp.empty(max(nbytes, 1), np.uint8)
        self._scratch[key] = buf
        return buf[:max(nbytes, 1)]

    def side_by_side(self, stream, works: list):
        """Queue ``works`` (callables that queue kernels on the current stream) side by side: round robin
        over ``SIDE_STREAMS`` streams that start after ``stream``'s work so far and that ``stream`` waits for.

        Each callable's kernels run in order on its side stream; different callables' may overlap, so they
        must not depend on each other. Work areas allocated while a callable queues belong to its side
        stream (CuPy's pool hands a freed block back only to its own stream), and later work of ``stream``
        starts after them all.
        """
        if len(works) < 2:
            for work in works:
                work()
            return
        sides = self._sides.get(stream.ptr)
        if sides is None:
            sides = [self.cp.cuda.Stream(non_blocking=True) for _ in range(SIDE_STREAMS)]
            self._sides[stream.ptr] = sides
        sides = sides[:len(works)]
        start = stream.record()
        for side in sides:
            side.wait_event(start)
        for k, work in enumerate(works):
            with sides[k % len(sides)]:
                work()
        for side in sides:
            stream.wait_event(side.record())

    def _stream(self):
        """The next of the engine's streams (batches in flight take turns)."""
        if self._streams is None:
            self._streams = [self.cp.cuda.Stream(non_blocking=True) for _ in range(STREAMS)]
        self._turn = (self._turn + 1) % STREAMS
        return self._streams[self._turn]

    def align(self, batch, cfg, subset: np.ndarray, out):
        """Align the records ``subset`` of ``batch`` into ``out`` (indexed by record), synchronously.

        Only the records of ``subset`` (and their run slots) are written, so
        several devices can fill one ``out``; a subset that is the whole
        batch gets the packed run layout.
        """
        cp = self.cp
        clock = Clock(self.seconds)
        with cp.cuda.Device(self.device):
            if self._held is None or self._held[0] is not batch or self._held[1] is not out:
                self._held = (batch, out, self.upload(batch, out, cfg, None))
            job = self.queue(batch, cfg, subset, out, self._held[2], cp.cuda.get_current_stream(), clock)
            self._finish(job, clock, whole=len(subset) == batch.size)

    def submit(self, batch, cfg, subset: np.ndarray, out) -> Job:
        """Queue the whole work of the records ``subset`` on a stream of its own and return at once.

        The host work of the next batch (reading, planning, uploading)
        overlaps this batch's kernels. ``out``'s run slots are laid out anew
        by ``collect``: records outside ``subset`` keep room for their runs
        but not their contents.
        """
        cp = self.cp
        clock = Clock(self.seconds)
        with cp.cuda.Device(self.device):
            stream = self._stream()
            with stream:
                staged: list = []
                d = self.upload(batch, out, cfg, staged)
                clock("upload")
                job = self.queue(batch, cfg, subset, out, d, stream, clock)
                job.staged = staged
                job.done = stream.record()
        return job

    def collect(self, job: Job):
        """Wait for a submitted job and fill its ``out``."""
        clock = Clock(self.seconds)
        with self.cp.cuda.Device(self.device), job.stream:
            self._finish(job, clock, whole=True)

    def _finish(self, job: Job, clock: Clock, whole: bool):
        (job.stream if job.done is None else job.done).synchronize()  # not the later jobs on its stream
        clock("wait")
        self.results(job, clock, whole)
        clock("results")

    # the family's part
    def upload(self, batch, out, cfg, staged: list | None):
        raise NotImplementedError

    def queue(self, batch, cfg, subset, out, d, stream, clock) -> Job:
        raise NotImplementedError

    def results(self, job: Job, clock: Clock, whole: bool):
        raise NotImplementedError
