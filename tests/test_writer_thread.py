"""The runner's writing stage (``runner._WriterThread``): results collected in input order by one thread
while another writes the chunk before, errors of either raised in the aligning thread, and a stop that
does not wait for a stuck write."""

from __future__ import annotations

import threading
import time

import pytest

from seqalign_cli.runner import _WriterThread


class _Chunk(list):
    def finish(self, results):
        return results


class _Pending:
    def __init__(self, k, seen: list, fail: bool = False):
        self.k, self.seen, self.fail = k, seen, fail

    def result(self):
        self.seen.append(self.k)
        if self.fail:
            raise RuntimeError(f"batch {self.k} failed")
        return self.k


class _Writer:
    def __init__(self, hold=None):
        self.got, self.hold = [], hold

    def write(self, chunk, results):
        if self.hold is not None:
            self.hold(results)
        self.got.append(results)


def test_the_next_results_are_collected_while_a_chunk_is_written():
    seen: list = []
    ahead = threading.Event()

    def hold(results):
        if results == 0:  # chunk 0 is written only once chunk 1's results came: two threads, or a deadlock
            assert ahead.wait(5), "the next chunk's results were not collected during a write"

    writer = _Writer(hold)
    stage = _WriterThread(writer, depth=2)
    for k in range(5):
        pending = _Pending(k, seen)
        if k == 1:
            pending.result = lambda p=pending: (ahead.set(), _Pending.result(p))[1]
        stage.put(_Chunk([k, k]), pending)
    stage.finish()
    assert writer.got == [0, 1, 2, 3, 4] and seen == [0, 1, 2, 3, 4]
    assert stage.written == 5 and stage.records == 10


def test_an_error_while_collecting_is_raised_and_nothing_after_it_is_written():
    seen: list = []
    writer = _Writer()
    stage = _WriterThread(writer, depth=2)
    with pytest.raises(RuntimeError, match="batch 1 failed"):  # by a later put, or by finish
        for k in range(4):
            stage.put(_Chunk([k]), _Pending(k, seen, fail=k == 1))
            time.sleep(0.05)
        stage.finish()
    stage.stop()  # both threads ended
    assert writer.got in ([], [0])  # nothing from the failed batch on: chunk 0 at most, had it come first


def test_stop_does_not_wait_for_a_stuck_write():
    release = threading.Event()
    writer = _Writer(lambda results: release.wait(30))
    stage = _WriterThread(writer, depth=2)
    for k in range(3):
        stage.put(_Chunk([k]), _Pending(k, []))
    time.sleep(0.2)
    start = time.monotonic()
    stage.stop(wait=0.5)
    assert time.monotonic() - start < 3
    release.set()
