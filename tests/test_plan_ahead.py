"""A batch's launches planned by the reading thread (``HOOKS.plan_ahead``) are those the aligning thread
plans, argument for argument (numpy standing in for CuPy: ``support.numpy_cupy``), and the engine takes
a plan made ahead only for the run's own configuration and the pairs it planned. The runner's reader plans
in a thread of its own beside the reading one, batches in order."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from seqalign_cli.config import AlignConfig
from seqalign_cli.families.pairwise import gpu
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.families.pairwise.gpu import HOOKS, CudaPairwise
from seqalign_cli.runner import _Reader
from support import numpy_cupy


def _batch():
    """Short pairs of every plan shape, and long ones (whole warps, shared warps, checkpoints)."""
    rng = random.Random(7)
    seq = lambda n: bytes(rng.choice(b"ACGT") for _ in range(n))  # noqa: E731
    lengths = [rng.randint(1, 400) for _ in range(600)] + [rng.randint(2000, 6000) for _ in range(5)]
    return make_batch([seq(n) for n in lengths], [seq(max(1, n + rng.randint(-20, 20))) for n in lengths])


@pytest.fixture
def counted(monkeypatch):
    """The launches recorded, and the number of plans made (``gpu.plan_launches``)."""
    calls = numpy_cupy.install(monkeypatch)
    made = []
    real = gpu.plan_launches
    monkeypatch.setattr(gpu, "plan_launches", lambda *a, **k: made.append(1) or real(*a, **k))
    return calls, made


def _launches(batch, cfg, calls, subset=None):
    calls.clear()
    subset = np.flatnonzero(HOOKS.on_gpu(batch, cfg)) if subset is None else subset
    CudaPairwise(0).submit(batch, cfg, subset, HOOKS.allocate(batch, cfg))
    return list(calls)


@pytest.mark.parametrize("mode", ["global", "local", "semi-global"])
@pytest.mark.parametrize("trace", [True, False])
def test_launches_planned_ahead_are_the_aligning_threads(counted, mode, trace):
    calls, made = counted
    batch = _batch()
    # a small matrix budget sends the long pairs' traceback to the checkpointed route
    cfg = AlignConfig(mode=mode, traceback=trace, matrix_budget=1 << 20)
    alone = _launches(batch, cfg, calls)
    assert len(made) == 1 and len(alone) >= 6
    HOOKS.plan_ahead(batch, cfg)
    made.clear()
    assert _launches(batch, cfg, calls) == alone
    assert not made  # the aligning thread planned nothing


def test_a_plan_is_taken_only_for_its_configuration_and_pairs(counted):
    calls, made = counted
    batch = _batch()
    cfg = AlignConfig()
    HOOKS.plan_ahead(batch, cfg)
    made.clear()
    other = AlignConfig()  # equal values, another run's object: planned anew
    assert _launches(batch, other, calls) == _launches(batch, cfg, calls)
    assert len(made) == 1
    made.clear()
    half = np.flatnonzero(HOOKS.on_gpu(batch, cfg))[::2]  # a piece of the batch (out of memory, several GPUs)
    _launches(batch, cfg, calls, half)
    assert len(made) == 1
    assert HOOKS.on_gpu(batch, cfg) is batch.planned.gpu


class _Chunk:
    def __init__(self, k, log):
        self.k, self.log = k, log

    def __len__(self):
        return 3

    def batch(self):
        self.log.append(("read", self.k, threading.current_thread().name))
        return {"k": self.k}


def test_the_reader_plans_each_batch_in_a_thread_of_its_own_in_order():
    log = []
    reader = _Reader(_Chunk(k, log) for k in range(6))
    plan_thread = []

    def plan(batch):
        plan_thread.append(threading.current_thread().name)
        batch["planned"] = True

    reader.plan = plan  # set once the backend is chosen: batches read before may go unplanned
    got = [(chunk.k, batch) for chunk, batch in reader]
    assert [k for k, _ in got] == list(range(6))
    assert all(batch["k"] == k for k, batch in got)
    assert {name for _, _, name in log} == {"seqalign-read"}
    assert plan_thread and set(plan_thread) == {"seqalign-plan"}
    assert all(batch.get("planned") for _, batch in got[-len(plan_thread):])
    assert reader.records == 18


def test_an_error_of_the_reading_thread_reaches_the_consumer_after_the_batches_before_it():
    def chunks():
        yield _Chunk(0, [])
        raise ValueError("bad record")

    reader = _Reader(chunks())
    reader.plan = lambda batch: None
    first = next(reader)
    assert first[0].k == 0
    with pytest.raises(ValueError, match="bad record"):
        next(reader)


def test_closing_the_reader_stops_both_threads():
    def endless():
        k = 0
        while True:
            yield _Chunk(k, [])
            k += 1

    reader = _Reader(endless(), depth=1)
    next(reader)
    reader.close()
    reader.thread.join(2)
    reader.made.thread.join(2)
    assert not reader.thread.is_alive() and not reader.made.thread.is_alive()
