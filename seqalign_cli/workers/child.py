"""One worker process of a run (``workers``): whole chunks, from their pieces of input to their output bytes.

Started by the main process (``pool``) as ``python -m seqalign_cli.workers.child FD PARENT``,
with its end of a socket (``channel``) as FD. The first message is the
run: its configuration, this worker's number among the run's workers and
its threads. The worker picks its backend once (on several GPUs, worker k
takes the k-th, round robin), says ``ready``, then takes tasks until the
socket closes or says ``stop``:

* a task is one chunk's pieces of the input files (memory files, ``io.cut``),
  each named as its file and numbered from its first record
  (``fastx.alias``), so that the family's reader reads them as the run
  without workers reads the files, with the same messages;
* the chunk is aligned, its results finished (``chunk.finish``) and
  formatted by the family's writer into memory (no header: the main process
  writes it); the bytes go back in a memory file of their own, with the
  chunk's records and cells (and with ``--stats`` the scores and spans, in
  another memory file);
* an error goes back as its class and text, for the main process to raise
  in its turn.

The worker ends with the main process: the kernel kills it when its parent
dies (``PR_SET_PDEATHSIG``), and it leaves SIGINT and SIGHUP (a terminal's,
sent to the whole process group) to the main process, which stops it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys

from .channel import Channel

#: prctl's option that sends the process a signal when its parent ends
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int):
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the socket's end still stops the worker
        pass
    if os.getppid() != parent:  # the parent ended before the call
        os._exit(1)


class MemorySink:
    """What a writer writes to in a worker (the ``OutputFile`` calls it makes): bytes kept in memory."""

    compress = False

    def __init__(self):
        self.parts: list = []

    def open(self, threads: int = 1):
        return self

    def write(self, data):
        self.parts.append(bytes(data) if not isinstance(data, bytes) else data)

    def flush(self):
        pass

    def commit(self):
        pass

    def discard(self, close: bool = True):
        self.parts.clear()

    def take(self) -> list:
        parts, self.parts = self.parts, []
        return parts


def _device(device, index: int):
    """This worker's GPU of the run's ``device`` (a number, several, or "all")."""
    if isinstance(device, (tuple, list)):
        return device[index % len(device)]
    if device == "all":
        from ..backends.cuda import device_count

        try:
            return index % max(device_count(), 1)
        except Exception:  # no driver: the backend's choice says why
            return 0
    return device


class Worker:
    """The worker's run: its backend and writer, and the tasks it takes."""

    def __init__(self, chan: Channel, cfg, index: int, threads: int):
        from .. import families
        from ..backends import select_backend, warm_up
        from ..writers import WriterContext, make_writer

        self.chan, self.cfg = chan, cfg
        self.family = families.get(cfg.family)
        from ..io import alphabet

        alphabet.use(cfg.align.scoring.alphabet)  # the run's letters, before any piece is read
        device = _device(cfg.device, index)
        if self.family.cuda is not None:
            warm_up(cfg.backend, device)
        from .. import jit  # noqa: F401 - numba's cache folder settled first

        self.backend = select_backend(self.family, cfg.backend, threads, self.say, device, cfg.align)
        self.sink = MemorySink()
        self.writer = make_writer(self.family.name, cfg.out_format,
                                  WriterContext.of_run(cfg, self.sink, threads, header=False))

    def say(self, message: str):
        self.chan.send(("say", message))

    def run(self):
        self.chan.send(("ready", self.backend.name, self.backend.device, self.backend.threads))
        while True:
            try:
                message, fds = self.chan.recv()
            except EOFError:
                return
            if message[0] == "stop":
                return
            _, seq, names = message
            try:
                reply, out = self.task(names, fds)
            except BaseException as exc:  # the main process raises it in its turn
                self.sink.discard()
                self.chan.send(("error", seq, *describe(exc)))
                continue
            finally:
                for fd in fds:
                    os.close(fd)
            try:
                self.chan.send(("done", seq, *reply), out)
            finally:
                for fd in out:
                    os.close(fd)

    def task(self, names, fds) -> tuple[tuple, list[int]]:
        """Align and format one chunk from its pieces: ((bytes, records, cells, span), descriptors)."""
        import numpy as np

        from ..io import fastx
        from ..io.cut import memory_file, write_all

        cfg = self.cfg
        given = iter(fds)
        paths = []
        for name, first, path, offset, length in names:  # a memory file, or a range of the file itself
            path = f"/proc/self/fd/{next(given)}" if path is None else path
            fastx.alias(path, name, first, None if path.startswith("/proc/self/fd/") else (offset, length))
            paths.append(path)
        paths = tuple(paths)
        records = cells = 0
        stats: list = []
        span = None
        try:
            for chunk in self.family.read(cfg.inputs.on_pieces(paths), cfg.batch_size):
                batch = chunk.batch()
                res = self.backend.start(batch, cfg.align).result()
                res = chunk.finish(res)
                self.writer.write(chunk, res)
                records += len(chunk)
                cells += batch.cells()
                if cfg.stats is not None:
                    span = res.SPAN or None
                    stats.append(stats_columns(res))
        finally:
            for path in paths:
                fastx.alias(path, None)
        parts = self.sink.take()
        nbytes = sum(len(p) for p in parts)
        out = [memory_file()]
        for part in parts:
            write_all(out[0], part)
        if stats:
            out.append(memory_file(np.concatenate(stats, axis=1)))
        return (nbytes, records, cells, span), out


def stats_columns(res):
    """What ``stats.Collector`` reads of a chunk's results: scores, whether aligned, spans (3 x n int64)."""
    import numpy as np

    score = np.asarray(res.score, np.int64)
    spans = res.aligned_spans()
    if spans is not None:
        aligned, span = spans
        return np.stack([score, np.asarray(aligned, np.int64), np.asarray(span, np.int64)])
    return np.stack([score, np.ones_like(score), np.full_like(score, -2)])


def describe(exc: BaseException) -> tuple[str, tuple]:
    """An error as (kind, fields) for the main process to raise again (``pool.raised``)."""
    from ..errors import SeqalignError

    if isinstance(exc, SeqalignError):
        return type(exc).__name__, (exc.message, exc.path, exc.record, exc.line)
    if isinstance(exc, MemoryError):
        return "MemoryError", ()
    if isinstance(exc, OSError):
        return "OSError", (exc.errno, exc.strerror or str(exc), exc.filename)
    return "Exception", (f"{type(exc).__name__}: {exc}",)


def main():
    fd, parent = int(sys.argv[1]), int(sys.argv[2])
    _die_with_parent(parent)
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    chan = Channel(socket.socket(fileno=fd))
    try:
        (cfg, index, threads), _ = chan.recv()
    except EOFError:
        return
    try:
        worker = Worker(chan, cfg, index, threads)
    except BaseException as exc:
        chan.send(("error", -1, *describe(exc)))
        return
    worker.run()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # no teardown of the driver and the pools: the main process waits for nothing
