"""Out of device memory in the cuda backend: the batch is halved and the run goes on.

No GPU or CuPy needed: the engines are fakes that align with the CPU engine
but raise CuPy's out-of-memory error when a subset holds more cells than
their limit, and a stand-in ``cupy`` module provides the error classes and
the memory pools.
"""

from __future__ import annotations

import copy
import os
import sys
import threading
import time
import types

import numpy as np
import pytest

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.backends.cuda import is_out_of_memory
from seqalign_cli.families.pairwise.gpu import HOOKS
from seqalign_cli.backends.cuda.scheduler import GpuScheduler, halves
from seqalign_cli.config import AlignConfig
from seqalign_cli.families.pairwise.batch import make_batch

from support.generators import AFFINE, random_pairs
from support.helpers import FakeDeviceEngine, assert_same_results

THREADS = os.cpu_count() or 1
#: cells a fake device holds at once; some pairs of the batch hold more alone
LIMIT = 400_000
MESSAGE = "GPU 0 out of memory; aligning the batch in halves"


def stand_in_cupy():
    """A ``cupy`` module with the error classes and the pools the backend uses."""
    cupy = types.ModuleType("cupy")
    cupy.OutOfMemoryError = type("OutOfMemoryError", (MemoryError,), {})
    cupy.CUDARuntimeError = type("CUDARuntimeError", (RuntimeError,), {})
    cupy.CUDADriverError = type("CUDADriverError", (RuntimeError,), {})
    cupy.freed = []  # (pool, current device) of every free_all_blocks call
    local = threading.local()

    class Device:
        def __init__(self, device):
            self.device = device

        def __enter__(self):
            self.before, local.device = getattr(local, "device", None), self.device

        def __exit__(self, *exc):
            local.device = self.before

    class Pool:
        def __init__(self, kind):
            self.kind = kind

        def free_all_blocks(self):
            cupy.freed.append((self.kind, getattr(local, "device", None)))

    cupy.cuda = types.SimpleNamespace(
        Device=Device,
        memory=types.SimpleNamespace(OutOfMemoryError=cupy.OutOfMemoryError),
        runtime=types.SimpleNamespace(CUDARuntimeError=cupy.CUDARuntimeError),
        driver=types.SimpleNamespace(CUDADriverError=cupy.CUDADriverError),
    )
    cupy.get_default_memory_pool = lambda: Pool("device")
    cupy.get_default_pinned_memory_pool = lambda: Pool("pinned")
    return cupy


@pytest.fixture
def cupy(monkeypatch):
    fake = stand_in_cupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    return fake


def key(batch, k):
    """A pair by its sequences (the pairs of a test batch are all different)."""
    return batch.query(k).tobytes(), batch.target(k).tobytes()


class FakeEngine(FakeDeviceEngine):
    """Aligns subsets with the CPU engine.

    Raises ``error()`` when the subset holds more than ``limit`` cells, or the
    batch (its device copy) more than ``max_pairs`` pairs.
    """

    compute = CpuPairwise(THREADS)
    lock = threading.Lock()  # one CPU alignment at a time across the engine threads

    def __init__(self, device, error, limit=LIMIT, max_pairs=None, barrier=None):
        super().__init__(device)
        self.error, self.limit, self.max_pairs, self.barrier = error, limit, max_pairs, barrier
        self.calls = []  # (pairs in the batch, pairs in the subset, cells in the subset) of every call
        self.done = []  # the pairs aligned

    def align(self, batch, cfg, subset, out):
        if self.barrier is not None and not self.calls:
            self.barrier.wait(timeout=30)  # every engine takes a piece
        cells = int((batch.qlen[subset].astype(np.int64) * batch.tlen[subset]).sum())
        self.calls.append((batch.size, len(subset), cells))
        if cells > self.limit or (self.max_pairs is not None and batch.size > self.max_pairs):
            raise self.error()
        with self.lock:
            out.take(subset, self.compute.align(batch.subset(subset), cfg))
        self.done += [key(batch, k) for k in subset]

    def failures(self):
        return sum(c > self.limit or (self.max_pairs is not None and n > self.max_pairs)
                   for n, _, c in self.calls)


class CountingCpu(CpuPairwise):
    """The CPU engine, noting the pairs it aligns."""

    def __init__(self, threads):
        super().__init__(threads)
        self.pairs = []

    def align(self, batch, cfg):
        self.pairs += [key(batch, k) for k in range(batch.size)]
        return super().align(batch, cfg)


def backend(engines, log=None) -> GpuScheduler:
    """The scheduler over ``engines``; batches are cut into pieces past ``split_cells`` alone (not the
    pairwise family's ``whole_cells``)."""
    hooks = copy.copy(HOOKS)
    hooks.whole_cells = 0
    return GpuScheduler(engines, CountingCpu(THREADS), hooks, log, device="fake GPU")


def pairs(seed=5, count=400):
    """A batch of different random pairs, and the cells of each."""
    qs, ts = random_pairs(seed, count, long_share=0.1)
    batch = make_batch([q.encode() for q in qs], [t.encode() for t in ts])
    first = {}
    for k in range(batch.size):
        first.setdefault(key(batch, k), k)
    batch = batch.subset(np.array(sorted(first.values())))
    return batch, batch.qlen.astype(np.int64) * batch.tlen


def assert_same(a, b):
    assert_same_results(a, b, ("cpu", "halved"))


def assert_each_pair_once(b, batch, cells, limit=LIMIT):
    """Every pair aligned once: on a fake device if it fits there alone, else on the CPU."""
    on_gpu = [k for e in b.engines for k in e.done]
    assert len(on_gpu) == len(set(on_gpu)), "a pair was aligned twice on the devices"
    assert len(b.cpu.pairs) == len(set(b.cpu.pairs)), "a pair was aligned twice on the CPU"
    big = {key(batch, k) for k in np.flatnonzero(cells > limit)}
    assert set(b.cpu.pairs) == big
    assert set(on_gpu) == {key(batch, k) for k in range(batch.size)} - big


@pytest.mark.parametrize("traceback", [True, False])
@pytest.mark.parametrize("mode", ["global", "local", "glocal"])
def test_one_device_halves_until_pairs_fit(cupy, mode, traceback):
    batch, cells = pairs()
    assert cells.sum() > 8 * LIMIT and (cells > LIMIT).any() and (cells <= LIMIT).any()
    cfg = AlignConfig(scoring=AFFINE, mode=mode, traceback=traceback)
    said = []
    engine = FakeEngine(0, lambda: cupy.OutOfMemoryError("out of memory allocating 2,147,483,648 bytes"))
    b = backend([engine], said.append)
    res = b.align(batch, cfg)
    assert_same(CpuPairwise(THREADS).align(batch, cfg), res)
    assert_each_pair_once(b, batch, cells)
    # the whole batch first, then ever smaller batches of their own
    assert engine.calls[0][:2] == (batch.size, batch.size)
    assert all(n == m for n, m, _ in engine.calls[1:]) and max(n for n, _, _ in engine.calls[1:]) < batch.size
    assert min(c for _, _, c in engine.calls) <= LIMIT
    # each failure dropped the device copy and emptied both pools on the device
    failures = engine.failures()
    assert engine.releases > failures
    assert cupy.freed == [("device", 0), ("pinned", None)] * failures
    assert said == [MESSAGE]


def test_halves_shrink_the_device_copy(cupy):
    """When the batch's own copy does not fit, halves fit: no pair ends on the CPU."""
    batch, cells = pairs(seed=6, count=400)
    cfg = AlignConfig(scoring=AFFINE, mode="local", traceback=True)
    engine = FakeEngine(0, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf, max_pairs=40)
    b = backend([engine], lambda m: None)
    assert_same(CpuPairwise(THREADS).align(batch, cfg), b.align(batch, cfg))
    assert_each_pair_once(b, batch, cells, limit=np.inf)
    assert b.cpu.pairs == []
    assert 0 < engine.failures() < batch.size // 4


def test_several_devices_halve_the_pieces_they_take(cupy):
    batch, cells = pairs(seed=8, count=600)
    cfg = AlignConfig(scoring=AFFINE, mode="local", traceback=True)
    barrier = threading.Barrier(2)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), barrier=barrier)
               for dev in (0, 1)]
    said = []
    b = backend(engines, said.append)
    b.split_cells = b.spread_cells = b.piece_records = 0  # every batch in pieces over the devices
    b.pieces_per_gpu = 2
    res = b.align(batch, cfg)
    assert_same(CpuPairwise(THREADS).align(batch, cfg), res)
    assert_each_pair_once(b, batch, cells)
    assert all(len(e.done) for e in engines)
    assert all(e.calls[0][1] < batch.size for e in engines)  # queue pieces, not the whole batch
    assert sum(e.failures() for e in engines) == len(cupy.freed) // 2
    assert {dev for pool, dev in cupy.freed if pool == "device"} <= {0, 1}
    assert len(said) == 1 and said[0].endswith("out of memory; aligning the batch in halves")


def test_runtime_and_driver_allocation_errors_count_as_out_of_memory(cupy):
    batch, cells = pairs(seed=9, count=150)
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=True)
    expected = CpuPairwise(THREADS).align(batch, cfg)
    for error in (lambda: cupy.CUDARuntimeError("cudaErrorMemoryAllocation: out of memory"),
                  lambda: cupy.CUDADriverError("CUDA_ERROR_OUT_OF_MEMORY: out of memory")):
        b = backend([FakeEngine(0, error)], lambda m: None)
        assert_same(expected, b.align(batch, cfg))
        assert_each_pair_once(b, batch, cells)


@pytest.mark.parametrize("devices", [1, 2])
def test_other_errors_are_raised(cupy, devices):
    batch, _ = pairs(seed=10, count=100)
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=False)
    engines = [FakeEngine(dev, lambda: cupy.CUDARuntimeError("cudaErrorIllegalAddress: illegal memory access"))
               for dev in range(devices)]
    with pytest.raises(cupy.CUDARuntimeError, match="cudaErrorIllegalAddress"):
        backend(engines).align(batch, cfg)
    assert all(e.releases == (1 if e.calls else 0) for e in engines)  # the batch went whole to one device
    assert sum(e.releases for e in engines) == 1
    assert cupy.freed == []


def test_said_once_on_stderr(cupy, capsys):
    batch, _ = pairs(seed=11, count=120)
    cfg = AlignConfig(scoring=AFFINE, mode="local", traceback=False)
    b = backend([FakeEngine(0, lambda: cupy.OutOfMemoryError("out of memory"))])
    b.align(batch, cfg)
    b.align(batch, cfg)
    assert capsys.readouterr().err.splitlines() == [f"seqalign: {MESSAGE}"]


def test_out_of_memory_is_recognised(cupy, monkeypatch):
    assert is_out_of_memory(cupy.OutOfMemoryError("out of memory"))
    assert is_out_of_memory(cupy.CUDARuntimeError("cudaErrorMemoryAllocation: out of memory"))
    assert is_out_of_memory(cupy.CUDADriverError("CUDA_ERROR_OUT_OF_MEMORY: out of memory"))
    assert not is_out_of_memory(cupy.CUDARuntimeError("cudaErrorIllegalAddress: an illegal memory access"))
    assert not is_out_of_memory(cupy.CUDADriverError("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"))
    assert not is_out_of_memory(MemoryError())  # host memory: not the device's
    monkeypatch.setitem(sys.modules, "cupy", None)  # CuPy absent
    assert not is_out_of_memory(MemoryError())


def test_halves_always_make_two_parts():
    idx = np.arange(6)
    for cells in ([5, 5, 5, 5, 5, 5], [100, 1, 2, 3, 0, 0], [0] * 6, [0, 0, 0, 0, 0, 7]):
        cells = np.array(cells)
        a, b = halves(idx, cells)
        assert len(a) and len(b) and sorted(np.concatenate([a, b]).tolist()) == idx.tolist()
    assert halves(idx, np.array([100, 1, 2, 3, 0, 0]))[0].tolist() == [0]  # the one outweighing the rest
    assert [len(p) for p in halves(idx, np.zeros(6, int))] == [3, 3]


def test_several_devices_take_whole_batches_in_turn(cupy):
    """Batches under ``split_cells`` go whole to a device that has room; each device's pipeline queues
    them while earlier ones are not collected, and results stay in order."""
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=True)
    barrier = threading.Barrier(2)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf, barrier=barrier)
               for dev in (0, 1)]
    b = backend(engines)
    b.spread_cells = 0  # every batch to the devices' pipelines
    b.share_when_idle = False  # whole batches, however idle a device
    assert b.depth == 4
    batches = [pairs(seed=20 + k, count=60)[0] for k in range(6)]
    pending = [b.start(batch, cfg) for batch in batches]  # all in flight before the first is collected
    for batch, p in zip(batches, pending):
        assert_same(CpuPairwise(THREADS).align(batch, cfg), p.result())
    sizes = [n for e in engines for n, m, _ in e.calls]
    assert sorted(sizes) == sorted(batch.size for batch in batches)  # whole batches, each once
    assert all(n == m for e in engines for n, m, _ in e.calls)
    assert all(len(e.calls) for e in engines)  # both devices took batches
    assert b.cpu.pairs == []


def test_several_devices_share_a_batch_of_many_cells(cupy):
    """A batch over ``split_cells`` is cut into pieces of similar cells, ``pieces_per_gpu`` a device
    at most, each of about ``split_cells / 2`` cells and ``piece_records`` records at least."""
    batch, cells = pairs(seed=21, count=300)
    cfg = AlignConfig(scoring=AFFINE, mode="local", traceback=False)
    barrier = threading.Barrier(2)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf, barrier=barrier)
               for dev in (0, 1)]
    b = backend(engines)
    b.spread_cells, b.pieces_per_gpu, b.share_when_idle = 0, 2, False
    total = int(cells.sum())
    for split, records, count in ((total // 16, 1, 4), (total * 2 // 3, 1, 3), (total - 1, 1, 2),
                                  (total // 16, 100, 3)):
        for e in engines:
            e.calls = []
        barrier.reset()
        b.split_cells, b.piece_records = split, records
        assert_same(CpuPairwise(THREADS).align(batch, cfg), b.align(batch, cfg))
        calls = [c for e in engines for c in e.calls]
        assert len(calls) == count and sum(n for n, _, _ in calls) == batch.size
        assert max(c for _, _, c in calls) < 2.5 * cells.sum() / count  # pieces of similar cells
        assert all(len(e.calls) for e in engines)


def test_a_batch_is_shared_only_with_an_idle_device(cupy):
    """A batch under ``split_cells`` goes whole to the device that takes it, unless another device has
    nothing to do: then the taker cuts it with that one (a run's first batch)."""
    cfg = AlignConfig(scoring=AFFINE, mode="local", traceback=True)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf) for dev in (0, 1)]
    b = backend(engines)
    b.spread_cells = 0  # every batch to the devices' pipelines
    (first, cells), second = pairs(seed=40, count=120), pairs(seed=41, count=80)[0]
    assert int(cells.sum()) < b.split_cells  # whole when dealt
    holding, release = threading.Event(), threading.Event()
    held_align = engines[1].align

    def held(*args):  # device 1 keeps its part of the first batch until the second batch is taken
        holding.set()
        assert release.wait(30), "the second batch was not taken"
        held_align(*args)

    engines[1].align = held
    pending = [b.start(first, cfg)]
    assert holding.wait(30), "device 1 got no part of the first batch"
    pending.append(b.start(second, cfg))
    for _ in range(3000):  # device 0 takes the second batch while device 1 is busy
        if engines[0].calls and engines[0].calls[-1][0] == second.size:
            break
        time.sleep(0.01)
    release.set()
    for batch, p in zip((first, second), pending):
        assert_same(CpuPairwise(THREADS).align(batch, cfg), p.result())
    assert len(engines[1].calls) == 1 and engines[1].calls[0][0] < first.size
    assert engines[0].calls[-1][:2] == (second.size, second.size)  # whole: no device was idle
    first_parts = engines[0].calls[:-1] + engines[1].calls
    assert all(n == m for n, m, _ in first_parts) and sum(n for n, _, _ in first_parts) == first.size
    assert b.cpu.pairs == []


def test_a_batch_is_cut_with_every_idle_device(cupy):
    """Three idle devices: the one that takes the batch cuts it in three parts of similar cells."""
    batch, cells = pairs(seed=43, count=150)
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=True)
    barrier = threading.Barrier(3)  # each device holds its first part until all three have one
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf, barrier=barrier)
               for dev in range(3)]
    b = backend(engines)
    b.spread_cells = 0
    assert int(cells.sum()) < b.split_cells  # whole when dealt
    assert_same(CpuPairwise(THREADS).align(batch, cfg), b.align(batch, cfg))
    assert [len(e.calls) for e in engines] == [1, 1, 1]
    parts = [e.calls[0] for e in engines]
    assert sum(n for n, _, _ in parts) == batch.size and all(n == m for n, m, _ in parts)
    assert max(c for _, _, c in parts) < 2 * cells.sum() / 3


def test_a_family_keeps_batches_whole_under_its_whole_cells(cupy):
    """The pairwise family's ``whole_cells`` raises the cut: a batch under it goes whole however low
    ``split_cells``; over it, in pieces."""
    batch, cells = pairs(seed=42, count=200)
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=False)
    for whole, count in ((int(cells.sum()), 1), (int(cells.sum()) - 1, 2)):
        engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf)
                   for dev in (0, 1)]
        b = GpuScheduler(engines, CountingCpu(THREADS), HOOKS, device="fake GPU")
        assert HOOKS.whole_cells > cells.sum()
        b.hooks = copy.copy(HOOKS)
        b.hooks.whole_cells = whole
        b.spread_cells = b.split_cells = b.piece_records = 0
        b.share_when_idle = False
        assert_same(CpuPairwise(THREADS).align(batch, cfg), b.align(batch, cfg))
        calls = [c for e in engines for c in e.calls]
        assert len(calls) == count and sum(m for _, m, _ in calls) == batch.size


def test_a_busy_device_takes_no_more_pieces(cupy):
    """Pieces wait in one queue and a device takes the next one when it has room: while one device is
    held by its first piece, the other takes every other piece (dynamic partitioning)."""
    batch, cells = pairs(seed=22, count=300)
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=False)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf) for dev in (0, 1)]
    b = backend(engines)
    b.spread_cells, b.split_cells, b.piece_records, b.pieces_per_gpu = 0, int(cells.sum()) // 16, 1, 4  # 8 pieces
    rest = threading.Event()  # set once the free device has aligned the seven other pieces
    holding = threading.Event()  # set once the held device has its piece
    held = engines[1]
    held_align, free_align = held.align, engines[0].align

    def slow(*args):
        holding.set()
        assert rest.wait(30), "the free device did not take the other pieces"
        held_align(*args)

    def fast(*args):
        assert holding.wait(30), "the other device took no piece"
        free_align(*args)
        if len(engines[0].calls) == 7:
            rest.set()

    held.align, engines[0].align = slow, fast
    assert_same(CpuPairwise(THREADS).align(batch, cfg), b.align(batch, cfg))
    assert len(held.calls) == 1 and len(engines[0].calls) == 7


def test_a_piece_that_ends_first_makes_room_at_once(cupy):
    """A device's pieces are collected as they end: while its first piece still runs, the end of its
    second makes room for a third (collected in order, the device would wait for the first)."""
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=False)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf) for dev in (0, 1)]
    b = backend(engines)
    b.spread_cells = 0  # every batch to the devices' pipelines
    b.share_when_idle = False  # whole batches
    third = threading.Event()  # device 0 has taken a third batch
    first_submit, first_collect, other_submit = engines[0].submit, engines[0].collect, engines[1].submit
    engines[1].submit = lambda *args: third.wait(30) and other_submit(*args)  # device 1 stays busy
    taken = []

    def submit(batch, cfg, subset, out):
        first_submit(batch, cfg, subset, out)
        taken.append(batch.size)
        if len(taken) == 3:
            third.set()
        return len(taken)  # the job: its number on device 0

    def collect(job):
        if job == 1:  # the first piece runs until device 0 has taken a third one
            assert third.wait(10), "device 0 took no third piece while its first ran"
        first_collect("job")

    engines[0].submit, engines[0].collect = submit, collect
    batches = [pairs(seed=50 + k, count=20 + k)[0] for k in range(4)]
    pending = [b.start(batch, cfg) for batch in batches]
    for batch, p in zip(batches, pending):
        assert_same(CpuPairwise(THREADS).align(batch, cfg), p.result())
    assert third.is_set() and len(taken) >= 3


def test_batches_of_short_records_stay_on_the_first_device(cupy):
    """Under ``spread_cells`` cells a record, batches take the one-GPU path on the first device."""
    cfg = AlignConfig(scoring=AFFINE, mode="global", traceback=False)
    engines = [FakeEngine(dev, lambda: cupy.OutOfMemoryError("out of memory"), limit=np.inf) for dev in (0, 1)]
    b = backend(engines)
    batches = [pairs(seed=30 + k, count=50) for k in range(3)]
    b.spread_cells = max(int(cells.mean()) for _, cells in batches) + 1
    for batch, _ in batches:
        assert_same(CpuPairwise(THREADS).align(batch, cfg), b.align(batch, cfg))
    assert len(engines[0].calls) == 3 and not engines[1].calls
    b.spread_cells = min(int(cells.mean()) for _, cells in batches)  # now every batch is spread
    gate = threading.Event()  # the first device's pipeline holds its batch until every batch is handed out
    first_submit = engines[0].submit
    engines[0].submit = lambda *args: gate.wait(30) and first_submit(*args)
    pending = [b.start(batch, cfg) for batch, _ in batches]
    gate.set()
    for p in pending:
        p.result()
    assert engines[1].calls
