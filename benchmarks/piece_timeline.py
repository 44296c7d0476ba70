"""When each GPU job of a run was queued, waited for and finished: ``seqalign`` in process, its engines timed.

Usage: python benchmarks/piece_timeline.py [--streams N] [--side-streams N] [--pieces-per-gpu N] [--split-cells N]
                                          [--no-share] [--batches-per-gpu N] [--triplet-rate KIND:MODE:RATE]
                                          -- triplet --backend cuda --devices 0,1 A B C -o out.tsv ...

Every ``submit`` and ``collect`` of the GPU engines (``DeviceEngine``: a
whole batch on one GPU, a piece of one with several) is timed from the
process's start. Printed after seqalign's own summary, on stderr, a line a
job by GPU in the order collected: its records and cells, when its host work
(upload, plan, launches) began and ended, when the GPU began and ended its
work (events recorded on its stream before its uploads and after its copies
back, ``Job.done``; counted from its GPU's first such event, which is put at
the host time it was recorded), when its launches began on the GPU (an
event recorded after the triplet engine's ``prepare``; for other families
the job's start), when the collecting thread began to wait,
when the GPU was done with it (the job's end event's synchronize returned)
and when its results were in ``out``. A wait of zero means the job was
finished before its turn to be collected. Then each GPU's first submit, last
finish, the sum of its waits and how long some job was in flight on it (the
union of the jobs' spans; "idle" is the rest of the span from the first
job's start to the last one's end), and how long some job's launches were
running (the union from each job's launch event to its end: what is left of
the span is the GPU waiting for the host's uploads and plans).

``--streams`` sets ``device.STREAMS`` (the streams a GPU's batches in flight
take turns on), ``--side-streams`` sets ``device.SIDE_STREAMS`` (1: a job's
launches one after another), ``--pieces-per-gpu`` sets
``GpuScheduler.pieces_per_gpu`` and ``--split-cells``
``GpuScheduler.split_cells`` (the cells over which a batch is cut into
pieces), ``--no-share`` turns ``GpuScheduler.share_when_idle`` off (no batch
cut when taken while a GPU is idle), ``--batches-per-gpu`` sets
``GpuScheduler.batches_per_gpu`` (batches in flight a GPU), and
``--triplet-rate`` one rate of the triplet plan's choice of lanes
(``triplet_plan.CHOICE_RATE``, KIND ``score``, or ``CHOICE_RATE_TRACE``,
KIND ``trace``: MODE's rate of 16 lanes against 4), for comparisons in one
session.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=None)
    ap.add_argument("--side-streams", type=int, default=None)
    ap.add_argument("--pieces-per-gpu", type=int, default=None)
    ap.add_argument("--split-cells", type=float, default=None)
    ap.add_argument("--no-share", action="store_true")
    ap.add_argument("--batches-per-gpu", type=int, default=None)
    ap.add_argument("--triplet-rate", default=None, metavar="KIND:MODE:RATE")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args

    from profile_threads import run_seqalign  # this folder's
    from seqalign_cli.backends.cuda import device, scheduler
    from seqalign_cli.families.triplet import gpu as triplet, plan as triplet_plan
    from seqalign_cli.config import Mode

    if opts.streams is not None:
        device.STREAMS = opts.streams
    if opts.side_streams is not None:
        device.SIDE_STREAMS = opts.side_streams
    if opts.pieces_per_gpu is not None:
        scheduler.GpuScheduler.pieces_per_gpu = opts.pieces_per_gpu
    if opts.split_cells is not None:
        scheduler.GpuScheduler.split_cells = int(opts.split_cells)
    if opts.no_share:
        scheduler.GpuScheduler.share_when_idle = False
    if opts.batches_per_gpu is not None:
        scheduler.GpuScheduler.batches_per_gpu = opts.batches_per_gpu
    if opts.triplet_rate is not None:
        kind, mode, rate = opts.triplet_rate.split(":")
        table = triplet_plan.CHOICE_RATE_TRACE if kind == "trace" else triplet_plan.CHOICE_RATE
        table[Mode.parse(mode)] = (1.0, float(rate))
    t0 = time.perf_counter()
    jobs: dict[int, dict] = {}  # number: the job's times
    numbers = itertools.count()
    lock = threading.Lock()
    submit, collect, stream_of = device.DeviceEngine.submit, device.DeviceEngine.collect, device.DeviceEngine._stream
    origin: dict[int, object] = {}  # GPU: the event its times count from (its first job's start)

    def timed_stream(self):
        """The job's stream, with an event recorded on it before the job's uploads: when the GPU starts it."""
        stream = stream_of(self)
        event = self.cp.cuda.Event()
        event.record(stream)
        origin.setdefault(self.device, (event, time.perf_counter() - t0))
        self._began = event
        self._launched = None
        return stream

    def timed_prepare(prepare):
        def prepared(self, *args):
            launches = prepare(self, *args)
            self._launched = self.cp.cuda.Event()
            self._launched.record()  # on the job's stream (current): its launches come next
            return launches
        return prepared

    triplet.CudaTriplet.prepare = timed_prepare(triplet.CudaTriplet.prepare)

    def timed_submit(self, batch, cfg, subset, out):
        begin = time.perf_counter() - t0
        job = submit(self, batch, cfg, subset, out)  # one submit at a time an engine: _began is this job's
        job.events = (self._began, job.done, self._launched or self._began)
        with lock:
            job.number = next(numbers)
            jobs[job.number] = dict(gpu=self.device, records=len(subset),
                                    cells=int(batch.cells_each()[subset].sum()), begin=begin,
                                    queued=time.perf_counter() - t0)
        return job

    def timed_collect(self, job):
        wait = time.perf_counter() - t0
        with self.cp.cuda.Device(self.device):
            job.done.synchronize()
            first, at = origin[self.device]
            on_gpu = tuple(at + self.cp.cuda.get_elapsed_time(first, e) / 1e3 for e in job.events)
        done = time.perf_counter() - t0
        collect(self, job)
        with lock:
            jobs[job.number].update(wait=wait, done=done, results=time.perf_counter() - t0, on_gpu=on_gpu)

    device.DeviceEngine.submit, device.DeviceEngine.collect = timed_submit, timed_collect
    device.DeviceEngine._stream = timed_stream
    try:
        run_seqalign(args)
    finally:
        report(jobs)


def report(jobs: dict[int, dict]):
    out = sys.stderr
    for gpu in sorted({j["gpu"] for j in jobs.values()}):
        mine = sorted((j for j in jobs.values() if j["gpu"] == gpu and "done" in j), key=lambda j: j["wait"])
        if not mine:
            continue
        waited = sum(max(j["done"] - j["wait"], 0.0) for j in mine)
        spans = sorted(j["on_gpu"][:2] for j in mine)
        busy, reach = union(spans)
        running, _ = union(sorted((j["on_gpu"][2], j["on_gpu"][1]) for j in mine))
        print(f"GPU {gpu}: {len(mine)} jobs, first submit at {min(j['begin'] for j in mine):.3f} s, last done at "
              f"{max(j['done'] for j in mine):.3f} s, waits summed {waited:.3f} s; on the GPU from "
              f"{spans[0][0]:.3f} to {reach:.3f} s, some job in flight {busy:.3f} s of it "
              f"(idle {reach - spans[0][0] - busy:.3f} s), some job's launches running {running:.3f} s", file=out)
        for j in mine:
            print(f"  {j['records']:7d} records {j['cells'] / 1e9:9.1f} Gcells  host {j['begin']:7.3f}-"
                  f"{j['queued']:7.3f}  gpu {j['on_gpu'][0]:7.3f}-{j['on_gpu'][1]:7.3f} "
                  f"(launches from {j['on_gpu'][2]:7.3f})  wait {j['wait']:7.3f}  "
                  f"done {j['done']:7.3f} ({j['done'] - j['wait']:6.3f})  results {j['results']:7.3f}", file=out)


def union(spans: list) -> tuple[float, float]:
    """The length of the union of sorted (start, end) spans, and the last end."""
    busy, reach = 0.0, spans[0][0]
    for a, b in spans:
        busy += max(b - max(a, reach), 0.0)
        reach = max(reach, b)
    return busy, reach


if __name__ == "__main__":
    main()
