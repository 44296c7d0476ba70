"""The main process's side of a run with workers: tasks cut, handed out, and their output written in order.

Three threads and the calling one:

* the cutting thread (``_tasks``) reads the input files through
  ``io.cut.FileCutter`` (each file of a lockstep pairing in a thread of its
  own) and makes tasks: the k-th piece of every file. Where the files stop
  matching (a piece of fewer records than the others, a file that ends
  first, a piece that is not FASTA/FASTQ) the last task holds what is left
  of every file, whole: its worker's reader then finds the problem and
  gives the message the run without workers gives;
* the dispatching thread (``Pool._run``) hands each task to a worker with
  fewer than ``IN_FLIGHT`` tasks, receives what workers send (results,
  errors, lines to say) and notices a worker that ends unexpectedly;
* the writing thread (``_write``) takes the results in task order and
  writes their bytes to the output (the format's header before the first
  ones), raising a task's error in its turn;
* the caller (``runner._run_workers``) waits, a tenth of a second at a
  time, so that a signal is answered at once; ``close`` kills the workers.

Tasks handed out but not yet written are at most ``AHEAD`` a worker: a
slow output holds the cutting back rather than filling memory.
"""

from __future__ import annotations

import errno
import heapq
import os
import queue
import selectors
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from .. import families
from ..errors import InputError, SeqalignError, UsageError
from ..io.ahead import Ahead
from ..io.sizing import ChunkSize
from ..protocols import Results
from . import channel

#: the folder that holds the package
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: tasks a worker holds at once (one it works on, one waiting): it never waits for the next
IN_FLIGHT = 2
#: tasks handed out and not yet written, a worker
AHEAD = 4


@dataclass
class Result:
    seq: int
    error: BaseException | None = None
    fds: list = field(default_factory=list)
    nbytes: int = 0
    records: int = 0
    cells: int = 0
    span: str | None = None

    def close(self):
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []

    def __lt__(self, other):
        return self.seq < other.seq


class WorkerDied(SeqalignError):
    exit_code = 1


def raised(kind: str, fields: tuple) -> BaseException:
    """The error a worker described (``child.describe``)."""
    if kind in ("InputError", "UsageError", "SeqalignError"):
        cls = {"InputError": InputError, "UsageError": UsageError}.get(kind, SeqalignError)
        message, path, record, line = fields
        return cls(message, path=path, record=record, line=line)
    if kind == "MemoryError":
        return MemoryError()
    if kind == "OSError":
        code, text, filename = fields
        return OSError(code, text, filename)
    return SeqalignError(f"a worker failed: {fields[0]}")


def _lockstep(cutters: list):
    """Tasks (lists of pieces, one a file) from the cutters, each file in a thread of its own."""
    streams = [iter(c) for c in cutters] if len(cutters) == 1 else \
        [Ahead(iter(c), depth=2, name="seqalign-cut") for c in cutters]
    try:
        while True:
            pieces = [next(s, None) for s in streams]
            if all(p is None for p in pieces):
                return
            if all(p is not None and p.records for p in pieces) and len({p.records for p in pieces}) == 1:
                yield pieces
                continue
            yield [cutter.rest(piece, stream) for piece, stream, cutter in zip(pieces, streams, cutters)]
            return
    finally:
        for s in streams:
            if isinstance(s, Ahead):
                s.close()


class Pool:
    """The workers of a run and the threads that feed them and write their output (see the module)."""

    def __init__(self, cfg, workers: int, threads: int):
        """Start the workers at once (each takes a second or so to load its engines), before this process
        loads anything heavy; ``start`` then begins the run. A sharded run's first file is checked first
        (``shard.require_file``): it is read twice, and nothing is started for a run that cannot be."""
        self.cfg = cfg
        self._require_file()
        self.error: BaseException | None = None
        self.records = self.cells = self.read = 0
        self.backend = None  # (name, device, threads) of the first worker ready
        #: the writing thread's time waiting for the next task's result, and writing
        self.stages = {"wait": 0.0, "write": 0.0}
        self._said: set[str] = set()
        self._stopping = False
        self._lock = threading.Condition()
        self._ready: list[Result] = []  # a heap of results by task number
        self._next = 0  # the next task to write
        self._total: int | None = None  # the tasks of the run, once the input is cut
        self._threads: list[threading.Thread] = []
        self.workers = [_Worker(k, cfg, threads) for k in range(workers)]

    def start(self, stream, header: bytes, say, observe=None):
        """Cut the input, hand it out and write the output to ``stream``: ``header`` before the first record's
        bytes (or at the end of a run without any); ``say``: the workers' lines; ``observe``: each chunk's
        scores and spans (``stats.Collector.add``)."""
        from ..io.cut import FileCutter

        self.stream, self.header, self.say, self.observe = stream, header, say, observe
        paths, per = self.cfg.inputs.pieces()
        skip, limit = self._part(paths[0], per)
        size = self.cfg.batch_size or ChunkSize.of(families.get(self.cfg.family).chunk_size).count
        self.cutters = [FileCutter(path, size, per, skip, limit) for path in paths]
        self._threads = [threading.Thread(target=self._guard, args=(work,), name=name, daemon=True)
                         for work, name in ((self._run, "seqalign-workers"), (self._write, "seqalign-write"))]
        for thread in self._threads:
            thread.start()

    def _require_file(self):
        """A usage error when ``--shard``'s first file (QUERY, or A) is not a regular file, before any worker
        starts or the file is opened (a FIFO's opening waits for a writer)."""
        from ..io.shard import require_file

        if self.cfg.shard is not None:
            paths, _ = self.cfg.inputs.pieces()
            require_file(self.cfg.shard, paths[0], "A" if self.cfg.family == "triplet" else "QUERY")

    def _part(self, path: str, per: int) -> tuple[int, int | None]:
        """(records skipped, records taken at most) of ``--shard``, whose units the first file defines (a
        regular file: ``_require_file``)."""
        from ..io.shard import plan, records

        if self.cfg.shard is None:
            return 0, None
        return records(plan(self.cfg.shard, path, per))

    def _guard(self, work):
        try:
            work()
        except BaseException as exc:
            with self._lock:
                if self.error is None:
                    self.error = exc
                self._lock.notify_all()

    # ---------------------------------------------------------------- handing out

    def _run(self):
        tasks = Ahead(self._tasks(), depth=len(self.workers) * IN_FLIGHT, name="seqalign-cut-tasks")
        sel = selectors.DefaultSelector()
        for w in self.workers:
            sel.register(w.chan.sock, selectors.EVENT_READ, w)
        seq = 0
        pending = None  # a task taken from the cutting thread, not yet handed out
        cut_done = False
        try:
            while self.error is None:
                while not cut_done and seq - self._next < AHEAD * len(self.workers):
                    if pending is None:
                        try:  # what the cutting thread has made; never waiting, the workers' messages come too
                            pending = tasks.items.get_nowait()
                        except queue.Empty:
                            break
                    if pending is _END_OF_TASKS:
                        cut_done, pending = True, None
                        with self._lock:
                            self._total = seq
                            self._lock.notify_all()
                        break
                    if isinstance(pending, BaseException):  # the input's error, in its turn
                        self._finished(Result(seq, error=pending))
                        seq += 1
                        cut_done, pending = True, None
                        with self._lock:
                            self._total = seq
                            self._lock.notify_all()
                        break
                    worker = min(self.workers, key=lambda w: len(w.tasks))
                    if len(worker.tasks) >= IN_FLIGHT:
                        break
                    worker.give(seq, pending)
                    self.read += pending[0].records
                    pending = None
                    seq += 1
                if cut_done and self._total is not None and self._next >= self._total:
                    return
                for key, _ in sel.select(timeout=0.01):
                    self._receive(key.data, sel)
        finally:
            tasks.close()
            sel.close()
            if pending is not None and not isinstance(pending, BaseException) and pending is not _END_OF_TASKS:
                for piece in pending:
                    piece.close()

    def _tasks(self):
        try:
            yield from _lockstep(self.cutters)
        except SeqalignError as exc:
            yield exc
        yield _END_OF_TASKS

    def _receive(self, worker: "_Worker", sel):
        try:
            message, fds = worker.chan.recv()
        except (EOFError, ConnectionError):
            sel.unregister(worker.chan.sock)
            if not self._stopping:
                raise WorkerDied(f"a worker process ended unexpectedly ({worker.ending()}); no output written")
            return
        kind = message[0]
        if kind == "say":  # every worker says what its backend says: once
            if message[1] not in self._said:
                self._said.add(message[1])
                self.say(message[1])
        elif kind == "ready":
            worker.ready = True
            if self.backend is None:
                self.backend = message[1:]
        elif kind == "done":
            _, seq, nbytes, records, cells, span = message
            worker.tasks.discard(seq)
            self._finished(Result(seq, fds=fds, nbytes=nbytes, records=records, cells=cells, span=span))
        elif kind == "error":
            _, seq, what, fields = message
            if seq < 0:  # the worker could not start: its backend, its writer
                raise raised(what, fields)
            worker.tasks.discard(seq)
            self._finished(Result(seq, error=raised(what, fields)))

    def _finished(self, result: Result):
        with self._lock:
            heapq.heappush(self._ready, result)
            self._lock.notify_all()

    # ---------------------------------------------------------------- writing

    def _write(self):
        while True:
            clock = time.perf_counter()
            with self._lock:
                while self.error is None and not (self._ready and self._ready[0].seq == self._next):
                    if self._total is not None and self._next >= self._total:
                        return
                    self._lock.wait(0.1)
                if self.error is not None:
                    return
                result = heapq.heappop(self._ready)
            self.stages["wait"] += time.perf_counter() - clock
            try:
                if result.error is not None:
                    raise result.error
                clock = time.perf_counter()
                self._copy(result)
                self.stages["write"] += time.perf_counter() - clock
                self.records += result.records
                self.cells += result.cells
            finally:
                result.close()
            with self._lock:
                self._next += 1
                self._lock.notify_all()

    def _copy(self, result: Result):
        import mmap

        if result.nbytes:
            self._header()
            if not self._sent(result.fds[0], result.nbytes):
                with mmap.mmap(result.fds[0], result.nbytes, prot=mmap.PROT_READ) as data:
                    self.stream.write(data)
        if self.observe is not None and len(result.fds) > 1:
            import numpy as np

            size = os.fstat(result.fds[1]).st_size
            with mmap.mmap(result.fds[1], size, prot=mmap.PROT_READ) as data:
                cols = np.frombuffer(data, np.int64).reshape(3, -1).copy()
            self.observe(_StatsPart(cols, result.span))

    def _sent(self, fd: int, nbytes: int) -> bool:
        """Whether the bytes went out through ``sendfile`` (copied by the kernel, no page of them mapped here):
        a plain output only (BGZF compresses them here), where the kernel takes it."""
        fileno = getattr(self.stream, "fileno", None)
        if fileno is None or not hasattr(os, "sendfile"):
            return False
        try:
            out = fileno()
        except (OSError, ValueError):
            return False
        self.stream.flush()
        done = 0
        while done < nbytes:
            try:
                n = os.sendfile(out, fd, done, nbytes - done)
            except OSError as exc:
                if done or exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    raise
                return False
            if n == 0:
                raise OSError(errno.EIO, "a worker's output ended early")
            done += n
        return True

    def _header(self):
        if self.header:
            self.stream.write(self.header)
            self.header = b""

    # ---------------------------------------------------------------- the end

    def wait(self, step: float = 0.1) -> bool:
        """Whether the run is over (every task written, or an error); waits ``step`` seconds at most."""
        with self._lock:
            if self.error is None and not (self._total is not None and self._next >= self._total):
                self._lock.wait(step)
            return self.error is not None or (self._total is not None and self._next >= self._total)

    def finish(self):
        """Stop the workers once every task is written (they end at once); the header of a run without records."""
        self._header()
        self._stopping = True
        for w in self.workers:
            w.stop()
        for thread in self._threads:
            thread.join(timeout=5)

    def close(self):
        """Kill the workers (an error, a signal) and let the threads end."""
        self._stopping = True
        if self.error is None:
            self.error = SeqalignError("stopped")
        for w in self.workers:
            w.kill()
        with self._lock:
            while self._ready:
                heapq.heappop(self._ready).close()
            self._lock.notify_all()


_END_OF_TASKS = object()


class _StatsPart(Results):
    """A chunk's scores and spans as ``stats.Collector.add`` reads a family's results."""

    def __init__(self, cols, span: str | None):
        self.score = cols[0]
        self._cols = cols
        self.SPAN = span or ""

    def aligned_spans(self):
        return (self._cols[1].astype(bool), self._cols[2]) if self.SPAN else None


class _Worker:
    """One worker process and its end of the socket."""

    def __init__(self, index: int, cfg, threads: int):
        self.chan, theirs = channel.pair()
        self.index = index
        self.tasks: set[int] = set()
        self.ready = False  # until it says so (its tasks may be handed out meanwhile: they wait in its socket)
        # the package this process runs, whatever the worker's path would find first
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "seqalign_cli.workers.child", str(theirs.fileno()), str(os.getpid())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        theirs.close()
        self.chan.send((cfg, index, threads))

    def give(self, seq: int, pieces: list):
        try:
            self.chan.send(("task", seq, [p.where() for p in pieces]), [p.fd for p in pieces if p.fd >= 0])
        finally:
            for piece in pieces:
                piece.close()
        self.tasks.add(seq)

    def ending(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "its socket closed"
        if code < 0:
            import signal

            return f"killed by {signal.Signals(-code).name}"
        return f"exit status {code}"

    def stop(self):
        try:
            self.chan.send(("stop",))
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
        self.chan.close()

    def kill(self):
        try:
            self.proc.kill()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.chan.close()
