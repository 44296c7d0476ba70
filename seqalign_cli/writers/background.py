"""Writes on a thread of their own: the output stream of a GPU run's writer (``OutputFile.background``), so that
the writer formats its next chunk while the last one goes to the file.

``write`` queues the bytes (the caller hands them over: a formatter's new array, a compressed block, never a
buffer it fills again) and returns at once while fewer than ``depth`` pieces wait; the thread writes them
in order to the file object below. An error of a write (a broken pipe, a full disk) is raised by the next
``write``, by ``flush`` or by ``close``, in the writer's thread, as a write of its own would have raised
it. ``flush`` waits until every piece is written, then flushes the file object; ``close`` also ends the
thread (the file object stays open: ``OutputFile`` closes it); ``abandon`` (an error elsewhere) drops what
is queued.
"""

from __future__ import annotations

import queue
import threading

#: pieces (a chunk's parts, BGZF blocks) queued before ``write`` waits for the file
DEPTH = 8


class BackgroundWrites:
    """A binary stream over ``raw`` whose writes a thread of its own makes, in order."""

    def __init__(self, raw, depth: int = DEPTH):
        self.raw = raw
        self.queue: queue.Queue = queue.Queue(maxsize=depth)
        self.error: BaseException | None = None
        self.closed = False
        self.thread = threading.Thread(target=self._run, name="seqalign-file", daemon=True)
        self.thread.start()

    def writable(self) -> bool:
        return True

    def _run(self):
        while True:
            data = self.queue.get()
            try:
                if data is None:
                    return
                if self.error is None and not self.closed:  # after an error or ``abandon``: dropped
                    self.raw.write(data)
            except BaseException as exc:  # raised in the writer's thread
                self.error = exc
            finally:
                self.queue.task_done()

    def _raise(self):
        if self.error is not None:
            raise self.error

    def write(self, data) -> int:
        self._raise()
        if self.closed:  # as a closed file answers (the thread may be gone: nothing would take the piece)
            raise ValueError("write to a closed output")
        self.queue.put(data)
        return memoryview(data).nbytes

    def flush(self):
        self.queue.join()
        self._raise()
        self.raw.flush()

    def close(self):
        """Write what is queued and end the thread; raises the error of a write, if any."""
        if self.closed:
            return
        self.queue.put(None)
        self.thread.join()
        self.closed = True
        self._raise()
        self.raw.flush()

    def abandon(self):
        """After an error elsewhere: what is queued is dropped, the thread ends without waiting for it."""
        self.closed = True
        try:
            self.queue.put_nowait(None)
        except queue.Full:  # the thread drops the queued pieces, then ends at the next None or with the process
            pass
