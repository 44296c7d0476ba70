"""Items of an iterator made ahead in a thread of their own.

The second (and third) file of a pairing read in lockstep is parsed beside
the first: the parser is compiled code that releases the interpreter lock,
so two files take about the time of one (``pairwise.chunks.zip_chunks``,
``triplet.chunks.triplet_chunks``). The runner's reader thread is one too (chunks
and their batches). Items and an error come out in the order the iterator
made them; ``close`` (or the end of the consumer) stops the thread, and a
consumer waiting for an item returns once it is closed.
"""

from __future__ import annotations

import queue
import threading
from typing import Iterator

_END = object()


class Ahead:
    """Iterates over ``blocks``, ``depth`` items ahead, made in a daemon thread."""

    def __init__(self, blocks: Iterator, depth: int = 2, name: str = "seqalign-read-ahead"):
        self.items: queue.Queue = queue.Queue(maxsize=depth)
        self.stopped = threading.Event()
        self.done = False
        self.thread = threading.Thread(target=self._run, args=(blocks,), name=name, daemon=True)
        self.thread.start()

    def _put(self, item) -> bool:
        while not self.stopped.is_set():
            try:
                self.items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, blocks):
        try:
            for block in blocks:
                if not self._put(block):
                    return
            self._put(_END)
        except BaseException as exc:  # raised in the consumer, after the blocks made before it
            self._put(exc)

    def __iter__(self):
        return self

    def __next__(self):
        while not self.done:
            try:
                item = self.items.get(timeout=0.1)
            except queue.Empty:
                if self.stopped.is_set():  # closed: nothing more comes
                    self.done = True
                continue
            if item is _END:
                self.done = True
            elif isinstance(item, BaseException):
                self.done = True
                raise item
            else:
                return item
        raise StopIteration

    def close(self):
        self.stopped.set()

    def __del__(self):
        self.stopped.set()
