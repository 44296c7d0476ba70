"""A CPU batch of long records aligned in pieces (``backends.cpu.CpuBackend``): the same results as the batch
whole, for every family that can gather them, and a count of the records done that moves within the batch
(what the progress bar adds to the batches written)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from seqalign_cli import families, precompile
from seqalign_cli.backends import select_backend
from seqalign_cli.backends.cpu import CpuBackend
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.graph.inputs import GraphInputs
from seqalign_cli.families.pairwise.inputs import PairInputs
from seqalign_cli.families.triplet.inputs import TripletInputs
from seqalign_cli.writers import WriterContext, make_writer
from seqalign_cli.writers.output import OutputFile


def _run(name: str, paths: dict):
    family = families.get(name)
    inputs, cfg = {
        "pairwise": (PairInputs(paths["q"], paths["t"]), AlignConfig(mode="local")),
        "triplet": (TripletInputs((paths["tri"],), interleaved=True), AlignConfig(scoring=Scoring(gap_open=0))),
        "graph": (GraphInputs(paths["gfa"], paths["reads"]), AlignConfig(mode="glocal")),
    }[name]
    return family, inputs, next(iter(family.read(inputs, 64))), cfg


def _tsv(name, inputs, chunk, results, cfg, path) -> bytes:
    writer = make_writer(name, "tsv", WriterContext(OutputFile(str(path)), inputs=inputs, align=cfg))
    writer.write(chunk, chunk.finish(results))
    writer.close()
    return path.read_bytes()


class Watched:
    """An engine that notes the backend's count of records done each time it is given a piece."""

    def __init__(self, engine):
        self.engine, self.threads, self.seen, self.backend = engine, engine.threads, [], None

    def align(self, batch, cfg):
        self.seen.append((self.backend.partial, batch.size))
        return self.engine.align(batch, cfg)


@pytest.mark.parametrize("name", ["pairwise", "triplet", "graph"])
def test_pieces_give_the_whole_batchs_results_and_count_as_they_go(name, tmp_path, monkeypatch):
    family, inputs, chunk, cfg = _run(name, precompile.write_inputs(str(tmp_path)))
    batch = chunk.batch()
    whole = _tsv(name, inputs, chunk, family.cpu_engine(2).align(batch, cfg), cfg, tmp_path / "whole.tsv")
    backend = select_backend(family, "cpu", 2, lambda m: None, progress=True)
    monkeypatch.setattr(CpuBackend, "PIECE_CELLS", max(1, batch.cells() // 40))  # this small batch: pieces
    monkeypatch.setattr(CpuBackend, "PIECE_RECORDS", 2)
    watched = Watched(backend.engine)
    watched.backend, backend.engine = backend, watched
    pieces = backend.pieces(batch)
    assert pieces is not None and len(pieces) >= 2
    assert np.array_equal(np.concatenate(pieces), np.arange(batch.size))
    got = _tsv(name, inputs, chunk, backend.start(batch, cfg).result(), cfg, tmp_path / "pieces.tsv")
    assert got == whole and len(got.splitlines()) == batch.size + 1
    done = [before for before, _ in watched.seen]
    sizes = [size for _, size in watched.seen]
    assert done == [sum(sizes[:k]) for k in range(len(sizes))] and sum(sizes) == batch.size  # moves each piece
    assert backend.partial == 0  # the batch done: its records are counted with the batches written


def test_small_batches_runs_without_a_bar_and_families_without_hooks_go_whole(tmp_path):
    family, _, chunk, _ = _run("pairwise", precompile.write_inputs(str(tmp_path)))
    assert select_backend(family, "cpu", 2, lambda m: None, progress=True).pieces(chunk.batch()) is None
    assert select_backend(family, "cpu", 2, lambda m: None).allocator is None  # no bar: every batch whole
    hookless = dataclasses.replace(families.get("search"), cuda=None, cuda_hooks=None)
    assert select_backend(hookless, "cpu", 1, lambda m: None, progress=True).allocator is None  # no hooks


def test_pieces_keep_enough_records_a_thread():
    class Batch:
        size = 10

        def cells_each(self):
            return np.full(10, 10**12)

    backend = CpuBackend(type("E", (), {"threads": 4})(), allocator=lambda: None)
    backend.PIECE_RECORDS = 2
    assert backend.pieces(Batch()) is None  # 10 records, 4 threads: 8 records a piece, one piece
    backend.threads = 2
    assert [len(p) for p in backend.pieces(Batch())] == [5, 5]  # at least two records a thread a piece


def test_gpu_batches_go_in_counted_pieces_when_a_bar_is_shown(tmp_path):
    """With a bar, a GPU batch of many cells goes to the GPU's pipeline in pieces, each counted in
    ``partial`` as it ends and handed over with the batch (results those of the whole batch); without a
    bar, or with few cells, the batch is one job (a fake GPU that aligns with the CPU engine)."""
    import threading

    from seqalign_cli.families.pairwise.cpu import CpuPairwise
    from seqalign_cli.families.pairwise.gpu import HOOKS
    from seqalign_cli.backends.cuda.scheduler import GpuScheduler
    from support.helpers import FakeDeviceEngine

    family, _, chunk, cfg = _run("pairwise", precompile.write_inputs(str(tmp_path)))
    batch = chunk.batch()
    whole = CpuPairwise(1).align(batch, cfg)

    class Engine(FakeDeviceEngine):
        lock = threading.Lock()

        def __init__(self, device):
            super().__init__(device)
            self.calls = []

        def align(self, batch, cfg, subset, out):
            with self.lock:
                self.calls.append((len(subset), scheduler.partial))
                out.take(subset, CpuPairwise(1).align(batch.subset(subset), cfg))

    for progress, cells, pieces in ((True, 1, 16), (False, 1, 1), (True, 10**15, 1)):  # pieces: at most
        engine = Engine(0)
        scheduler = GpuScheduler([engine], CpuPairwise(1), HOOKS, device="fake GPU", progress=progress)
        scheduler.progress_cells = cells
        got = scheduler.align(batch, cfg)
        for name in ("score", "qstart", "qend", "tstart", "tend"):
            assert np.array_equal(getattr(got, name), getattr(whole, name)), name
        assert got.cigars() == whole.cigars()
        assert sum(n for n, _ in engine.calls) == batch.size
        assert (2 <= len(engine.calls) <= 16) if pieces > 1 else len(engine.calls) == 1
        seen = [before for _, before in engine.calls]  # the count as each piece began: the ones ended before it
        assert seen == sorted(seen) and all(b <= sum(n for n, _ in engine.calls[:k]) for k, b in enumerate(seen))
        assert (seen[-1] > 0) == (pieces > 1)  # it moves within the batch
        assert scheduler.partial == 0  # handed over with the batch
