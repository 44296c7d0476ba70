"""The seams of the family table: every registered family conforms to ``protocols``, and a toy family plugs
into the table, the runner, the writers and the GPU scheduler.

The "identity" family aligns each sequence with itself: its score is
``match`` times its length. It has a CPU engine, a TSV writer and a reader
of its own, all defined here, each subclassing its protocol and writing only
what the protocol requires (the optional parts take their defaults), and no
pairwise module is touched: what the runner, ``select_backend``, the
writers' registry and the GPU scheduler need of a family is only what the
table, the protocols and its hooks give.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from seqalign_cli import families, precompile, protocols, writers
from seqalign_cli.backends import select_backend
from seqalign_cli.backends.cuda.scheduler import GpuScheduler
from seqalign_cli.config import AlignConfig, RunConfig, Scoring
from seqalign_cli.errors import UsageError
from seqalign_cli.io.fastx import FastxReader
from seqalign_cli.families.graph.inputs import GraphInputs
from seqalign_cli.families.pairwise.inputs import PairInputs
from seqalign_cli.families.triplet.inputs import TripletInputs
from seqalign_cli.families.search.inputs import SearchInputs
from seqalign_cli.runner import run
from seqalign_cli.writers import WriterContext, make_writer
from seqalign_cli.writers.output import OutputFile

from support.clidata import GQ
from support.helpers import FakeDeviceEngine


@dataclass(frozen=True)
class IdentityInputs(protocols.Inputs):
    path: str

    @property
    def files(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass
class IdentityBatch(protocols.Batch):
    lengths: np.ndarray

    @property
    def size(self) -> int:
        return len(self.lengths)

    def cells_each(self) -> np.ndarray:
        return self.lengths.astype(np.int64)

    def cells(self) -> int:
        return int(self.lengths.sum())

    def subset(self, idx) -> "IdentityBatch":
        return IdentityBatch(self.lengths[idx])


@dataclass
class IdentityScores(protocols.DeviceResults):
    score: np.ndarray

    def take(self, idx, other):
        self.score[idx] = other.score

    def finish(self, cfg):
        return self


@dataclass
class IdentityChunk(protocols.Chunk):
    block: object

    def __len__(self) -> int:
        return len(self.block)

    def batch(self) -> IdentityBatch:
        return IdentityBatch(self.block.lengths)


def identity_chunks(inputs: IdentityInputs, size: int):
    for block in FastxReader(inputs.path).blocks():
        for start in range(0, len(block), size):
            yield IdentityChunk(block.slice(start, start + size))


class IdentityCpu(protocols.CpuEngine):
    def __init__(self, threads: int):
        self.threads = threads
        self.aligned = []

    def align(self, batch, cfg):
        self.aligned += batch.lengths.tolist()
        return IdentityScores(batch.lengths.astype(np.int64) * cfg.scoring.match)


class IdentityTsv(protocols.Writer):
    score_only = True

    def __init__(self, ctx):
        self.out = ctx.out
        self.stream = ctx.out.open()

    def write(self, chunk, res):
        for name, score in zip(chunk.block.names_list(), res.score.tolist()):
            self.stream.write(f"{name}\t{score}\n".encode())

    def close(self):
        self.out.commit()


class IdentityHooks(protocols.Hooks):
    @staticmethod
    def allocate(batch, cfg):
        return IdentityScores(np.full(batch.size, -1, np.int64))

    @staticmethod
    def on_gpu(batch, cfg):
        return batch.lengths % 2 == 0  # odd lengths: the "CPU fallback"


class FakeDevice(FakeDeviceEngine):
    """An engine on a pretend GPU: aligns what it is given with the CPU engine's rule."""

    def __init__(self, device):
        super().__init__(device)
        self.aligned = []

    def align(self, batch, cfg, subset, out):
        self.aligned += batch.lengths[subset].tolist()
        out.score[subset] = batch.lengths[subset] * cfg.scoring.match


@pytest.fixture
def identity(monkeypatch):
    family = families.Family(name="identity", command="identity", unit="sequences",
                             chunks=identity_chunks, cpu=IdentityCpu)
    monkeypatch.setitem(families.FAMILIES, "identity", family)
    monkeypatch.setitem(writers.WRITERS, ("identity", "tsv"), IdentityTsv)
    return family


def test_toy_family_runs_through_the_runner(identity, tmp_path):
    out = tmp_path / "scores.tsv"
    said = []
    cfg = RunConfig(inputs=IdentityInputs(str(GQ)), family="identity", output=str(out), backend="auto",
                    batch_size=7, align=AlignConfig())
    summary = run(cfg, log=said.append)
    records = FastxReader(str(GQ))
    expected = [f"{r.name}\t{2 * len(r.seq)}" for r in records]
    assert out.read_text().splitlines() == expected
    assert summary.records == len(expected) and summary.unit == "sequences"
    assert summary.line().startswith(f"{len(expected)} sequences,")
    assert summary.backend == "cpu"
    assert said == ["backend auto: picked cpu (identity has no GPU engine)"]


def test_toy_family_formats_and_backends(identity, tmp_path):
    assert identity.formats == ("tsv",)
    assert families.get("pairwise").formats == ("tsv", "sam", "bam", "paf", "blast6")
    cfg = RunConfig(inputs=IdentityInputs(str(GQ)), family="identity", output=str(tmp_path / "x.sam"),
                    out_format="sam")
    with pytest.raises(UsageError, match="identity alignments cannot be written as sam"):
        run(cfg)
    with pytest.raises(UsageError, match="identity has no GPU engine"):
        select_backend(identity, "cuda", 1, lambda m: None)
    assert not (tmp_path / "x.sam").exists()


def test_gpu_scheduler_takes_a_toy_family(identity):
    """Routes, the CPU fallback inside a batch and several devices come from the family's hooks alone."""
    cpu = IdentityCpu(1)
    lengths = np.arange(1, 60)
    batch = IdentityBatch(lengths)
    cfg = AlignConfig()
    for devices in ([FakeDevice(0)], [FakeDevice(0), FakeDevice(1)]):
        cpu.aligned = []
        scheduler = GpuScheduler(devices, cpu, IdentityHooks(), device="fake")
        res = scheduler.align(batch, cfg)
        assert res.score.tolist() == (lengths * 2).tolist()
        on_devices = sorted(x for d in devices for x in d.aligned)
        assert on_devices == [x for x in lengths.tolist() if x % 2 == 0]
        assert sorted(cpu.aligned) == [x for x in lengths.tolist() if x % 2]


def _small_run(name: str, paths: dict):
    """Inputs and alignment settings of a small run of each registered family (``precompile``'s inputs)."""
    dna = AlignConfig()
    return {
        "pairwise": (PairInputs(paths["q"], paths["t"]), dna),
        "triplet": (TripletInputs((paths["tri"],), interleaved=True), AlignConfig(scoring=Scoring(gap_open=0))),
        "graph": (GraphInputs(paths["gfa"], paths["reads"]), AlignConfig(mode="glocal")),
        "search": (SearchInputs(paths["q"], paths["t"], top=3), AlignConfig(mode="local")),
    }[name]


@pytest.mark.parametrize("name", sorted(families.FAMILIES))
def test_every_family_conforms_to_the_protocols(name, tmp_path):
    """Each registered family's objects, made by a real run's steps, are what ``protocols`` says, and the
    shared layers' calls (optional parts included) work on them."""
    family = families.get(name)
    inputs, cfg = _small_run(name, precompile.write_inputs(str(tmp_path)))
    assert isinstance(inputs, protocols.Inputs) and inputs.files
    assert inputs.pieces() is None or len(inputs.pieces()) == 2
    chunk = next(iter(family.read(inputs, 16)))
    assert isinstance(chunk, protocols.Chunk) and len(chunk) > 0
    batch = chunk.batch()
    assert isinstance(batch, protocols.Batch) and batch.size > 0
    assert batch.cells() == int(np.sum(batch.cells_each())) and batch.subset(np.array([0])).size == 1
    engine = family.cpu_engine(1)
    assert isinstance(engine, protocols.CpuEngine) and engine.threads == 1
    results = chunk.finish(engine.align(batch, cfg))
    assert isinstance(results, protocols.Results) and len(results.score) > 0
    spans = results.aligned_spans()
    assert spans is None or (len(spans) == 2 and results.SPAN)
    if family.cuda_hooks is not None:
        hooks = family.load(family.cuda_hooks)
        assert isinstance(hooks, protocols.Hooks)
        assert isinstance(hooks.allocate(batch, cfg), protocols.DeviceResults)
        assert len(hooks.on_gpu(batch, cfg)) == batch.size
    for fmt in family.formats:
        out = tmp_path / f"out.{fmt}"
        writer = make_writer(name, fmt, WriterContext(OutputFile(str(out)), align=cfg, inputs=inputs))
        assert isinstance(writer, protocols.Writer)
        writer.write(chunk, results)
        writer.close()
        assert out.stat().st_size > 0, fmt


def test_command_line_imports_nothing_heavy_before_the_runner():
    """The runner starts the GPU driver before numpy, numba and CuPy load: nothing before it may pull them in."""
    import subprocess
    import sys

    code = ("import sys; import seqalign_cli.runner as runner; "
            "runner.run = lambda cfg, log: print(sorted(m for m in ('numpy', 'numba', 'cupy') if m in sys.modules)); "
            "from seqalign_cli.cli import main; main(['pair', '-q', sys.argv[1], sys.argv[1]])")
    out = subprocess.run([sys.executable, "-c", code, str(GQ)], capture_output=True, text=True).stdout
    assert out.strip() == "[]"
