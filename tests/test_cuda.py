"""The cuda backend against the cpu backend, byte for byte (GPU only; skipped elsewhere)."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from seqalign_cli.families.pairwise.cpu import CpuPairwise
from seqalign_cli.backends.cuda import gpu_available
from seqalign_cli.families.pairwise.gpu import Tuning
from seqalign_cli.config import MODES, AlignConfig, Scoring
from seqalign_cli.families.pairwise.batch import make_batch
from seqalign_cli.io.fastx import FastxReader

from support.helpers import assert_same_results
from support.generators import AFFINE, BWA, LINEAR, mutate, random_dna, random_pairs

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not gpu_available()[0], reason=gpu_available()[1])]

DATA = os.path.join(os.path.dirname(__file__), "data", "pairwise")


@pytest.fixture(scope="module")
def backends():
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    gpu = select_backend(families.get("pairwise"), "cuda", os.cpu_count() or 1, lambda m: None, 0)
    return CpuPairwise(os.cpu_count() or 1), gpu


def assert_same(backends, qs, ts, scoring, mode, traceback=True):
    cpu, gpu = backends
    batch = make_batch([q.encode() if isinstance(q, str) else q for q in qs],
                       [t.encode() if isinstance(t, str) else t for t in ts])
    cfg = AlignConfig(scoring=scoring, mode=mode, traceback=traceback)
    assert_same_results(cpu.align(batch, cfg), gpu.align(batch, cfg), ("cpu", "gpu"))


@pytest.mark.parametrize("traceback", [True, False])
@pytest.mark.parametrize("scoring", [AFFINE, LINEAR, BWA], ids=["affine", "linear", "bwa"])
@pytest.mark.parametrize("mode", MODES)
def test_random_pairs(backends, mode, scoring, traceback):
    qs, ts = random_pairs(MODES.index(mode) * 100 + scoring.gap_open * 2 + traceback, 3000, long_share=0.05)
    assert_same(backends, qs, ts, scoring, mode, traceback)


#: (G, R) shapes forced on every pair: one thread per pair, subwarps, whole warps,
#: one to many stages per query, one to three direction words per lane and step
SHAPES = [(1, 4), (4, 8), (8, 20), (16, 6), (32, 16), (32, 4)]


@pytest.fixture
def engines(backends):
    """The GPU engines, restored to their plan after the test."""
    yield backends[1].engines
    for e in backends[1].engines:
        e.tuning = Tuning()


@pytest.mark.parametrize("shape", SHAPES, ids=[f"G{g}R{r}" for g, r in SHAPES])
@pytest.mark.parametrize("mode", MODES)
def test_every_shape(backends, engines, shape, mode):
    qs, ts = random_pairs(MODES.index(mode) * 7 + shape[0] * 100 + shape[1], 800, long_share=0.03)
    for e in engines:
        e.tuning = Tuning(shape=shape)
    assert_same(backends, qs, ts, AFFINE, mode, True)  # 16-bit lanes with traceback (plane layout)
    assert_same(backends, qs, ts, BWA, mode, False)  # 16-bit lanes
    for e in engines:
        e.tuning = Tuning(shape=shape, pack16=False)
    assert_same(backends, qs, ts, LINEAR, mode, False)  # int32 lanes
    assert_same(backends, qs, ts, AFFINE, mode, True)  # int32 lanes with traceback (nibble layout)


@pytest.mark.parametrize("mode", MODES)
def test_warp_kernel(backends, engines, mode):
    qs, ts = random_pairs(MODES.index(mode) + 40, 1500, long_share=0.05)
    for e in engines:
        e.tuning = Tuning(kernel="warp")
    assert_same(backends, qs, ts, AFFINE, mode, True)
    assert_same(backends, qs, ts, AFFINE, mode, False)


def test_16bit_partners_of_different_shapes(backends):
    # neighbours in size order share a 16-bit matrix: lengths and N placed so
    # that each half's end cells and padding differ
    rng = random.Random(5)
    qs, ts = [], []
    for k in range(400):
        m = rng.randint(1, 300)
        q = random_dna(rng, m)
        t = mutate(rng, q, 0.1)[: rng.randint(1, m + 20)] + random_dna(rng, rng.randint(0, 40))
        if k % 7 == 0:
            t = t[: len(t) // 2] + "N" + t[len(t) // 2:]
        qs.append(q)
        ts.append(t)
    for mode in MODES:
        assert_same(backends, qs, ts, AFFINE, mode, False)
        assert_same(backends, qs, ts, AFFINE, mode, True)


#: query lengths around warp sizes and around the plan's shape limits (8, 16, 32, 64, 80, 128, 160, 256,
#: 320, 512 rows) and stage boundaries of whole warps (512, 1024)
BOUNDARIES = [1, 2, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 80, 81, 127, 128, 129, 160, 161, 255, 256, 257, 320, 321,
              511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2049]


@pytest.mark.parametrize("mode", MODES)
def test_length_classes(backends, mode):
    rng = random.Random(7)
    qs, ts = [], []
    for m in BOUNDARIES:
        for n in (1, 32, 33, m, m + 7, 300):
            q = random_dna(rng, m)
            qs.append(q)
            ts.append(mutate(rng, q, 0.05)[:n] if n <= m else mutate(rng, q, 0.05) + random_dna(rng, n - m))
    assert_same(backends, qs, ts, AFFINE, mode, True)
    assert_same(backends, qs, ts, AFFINE, mode, False)


@pytest.mark.parametrize("mode", ["global", "local"])
def test_long_pairs(backends, mode):
    rng = random.Random(11)
    qs, ts = [], []
    for n in (5000, 20000):
        q = random_dna(rng, n)
        qs.append(q)
        ts.append(mutate(rng, q, 0.05))
    assert_same(backends, qs, ts, AFFINE, mode, True)
    assert_same(backends, qs, ts, AFFINE, mode, False)


def long_pairs(rng, lengths, rate, n_at):
    """Related pairs of the given query lengths: every third target cut short,
    the others with unrelated flanks; a run of N in the query of length n_at."""
    qs, ts = [], []
    for m in lengths:
        q = random_dna(rng, m)
        t = mutate(rng, q, rate)
        t = t[: int(len(t) * rng.uniform(0.3, 1.0))] if m % 3 == 0 else random_dna(rng, 40) + t + random_dna(rng, 90)
        if m == n_at:
            q = q[: m // 3] + "N" * 20 + q[m // 3:]
        qs.append(q)
        ts.append(t)
    return qs, ts


@pytest.mark.parametrize("mode", MODES)
def test_pairs_shared_by_several_warps(backends, mode):
    # score only, queries of 2 to 20 stages of 512 rows: 2, 4 or 8 warps a pair,
    # border rows passed between warps through a ring; targets shorter and longer
    qs, ts = long_pairs(random.Random(31 + MODES.index(mode)),
                        (600, 1024, 1100, 1800, 2100, 3000, 4096, 4100, 6000, 10_000), 0.1, n_at=3000)
    assert_same(backends, qs, ts, AFFINE, mode, False)
    assert_same(backends, qs, ts, LINEAR, mode, False)


#: values of neighbouring cells up to 28 apart: long pairs leave the 16-bit bound of
#: one warp early (from about 2,300 bp) but fit the offsets of shared pairs
WIDE = Scoring(match=5, mismatch=8, gap_open=10, gap_extend=5, n_penalty=3)


@pytest.mark.parametrize("mode", MODES)
def test_shared_pairs_in_16bit_lanes(backends, engines, mode):
    # score only, 2 to 16 warps a pair of pairs, values relative to offsets that
    # follow the warps' largest H; the same pairs in int32 lanes after
    from seqalign_cli.families.pairwise import gpu_subwarp as subwarp

    assert subwarp.shared16_fits(WIDE, MODES.index(mode), 512)
    rng = random.Random(41 + MODES.index(mode))
    lengths = [rng.randint(1100, 9000) for _ in range(13)] + [4096, 3000]
    qs, ts = long_pairs(rng, lengths, 0.1, n_at=3000)
    qs.append(random_dna(rng, 2500))  # unrelated: values far below the diagonal's
    ts.append(random_dna(rng, 7000))
    if mode == "local":
        # H at its floor of 0 for thousands of rows and columns, then far above it
        core = random_dna(rng, 3000)
        qs.append(random_dna(rng, 2000) + core)
        ts.append(random_dna(rng, 4000) + mutate(rng, core, 0.05) + random_dna(rng, 1500))
        # the best end past column 65,536 (columns of the row maxima kept in 16 bits)
        q = random_dna(rng, 1200)
        qs.append(q)
        ts.append(random_dna(rng, 66_000) + mutate(rng, q, 0.05) + random_dna(rng, 500))
    for scoring in (WIDE, AFFINE):
        assert_same(backends, qs, ts, scoring, mode, False)
    for e in engines:
        e.tuning = Tuning(pack16=False)
    assert_same(backends, qs, ts, WIDE, mode, False)


@pytest.mark.parametrize("mode", MODES)
def test_checkpointed_traceback(backends, mode):
    # a budget of 64 KB per pair sends every query of more than one stage
    # (512 rows) through the checkpointed traceback on the GPU
    from seqalign_cli.families.pairwise.gpu import routes

    qs, ts = long_pairs(random.Random(21 + MODES.index(mode)), (100, 512, 513, 1024, 1025, 1500, 2600, 4000),
                        0.08, n_at=1500)
    cpu, gpu = backends
    batch = make_batch([q.encode() for q in qs], [t.encode() for t in ts])
    cfg = AlignConfig(scoring=AFFINE, mode=mode, traceback=True, matrix_budget=64 * 1024)
    ckpt = routes(batch.qlen.astype(np.int64), batch.tlen.astype(np.int64), cfg).checkpointed
    assert ckpt.sum() >= 6
    assert_same_results(cpu.align(batch, cfg), gpu.align(batch, cfg), ("cpu", "gpu"))


def test_large_values_and_cpu_fallback(backends):
    rng = random.Random(3)
    q = random_dna(rng, 3000)
    qs, ts = [q, q, "ACGT" * 10], [q, mutate(rng, q, 0.1), "ACGA" * 10]
    # bound below 2**29: int32 lanes on the GPU
    assert_same(backends, qs, ts, Scoring(10000, 20000, 30000, 1000, 5), "global")
    # bound beyond 2**29: routed to the CPU engine inside the same batch
    assert_same(backends, qs, ts, Scoring(200000, 20000, 30000, 1000, 5), "local")


def test_n_and_empty(backends):
    qs = ["", "A", "", "NNNN", "ACGTNACGT", "acgtuRYacgt", "N" * 40]
    ts = ["", "", "C", "NNNN", "ACGTTACGT", "ACGTTACGT", "A" * 40]
    for mode in MODES:
        assert_same(backends, qs, ts, AFFINE, mode, True)
        assert_same(backends, qs, ts, AFFINE, mode, False)


@pytest.mark.parametrize("name", ["gasal2", "covid_ont", "na12878_illumina"])
def test_datasets(backends, name):
    qs = [r.seq for r in FastxReader(os.path.join(DATA, f"{name}.query.fa.gz"))]
    ts = [r.seq for r in FastxReader(os.path.join(DATA, f"{name}.target.fa.gz"))]
    for scoring in (AFFINE, BWA):
        for mode in MODES:
            assert_same(backends, qs, ts, scoring, mode, True)


def test_cli_cuda_equals_cpu(tmp_path):
    from seqalign_cli.cli import main

    ex = os.path.join(os.path.dirname(__file__), "..", "examples")
    outs = {}
    for backend in ("cpu", "cuda"):
        for fmt in ("tsv", "sam"):
            path = tmp_path / f"{backend}.{fmt}"
            with pytest.raises(SystemExit) as exc:
                main(["pair", "-q", "--mode", "glocal", "--backend", backend, os.path.join(ex, "reads.fa.gz"),
                      os.path.join(ex, "windows.fa.gz"), "-o", str(path)])
            assert exc.value.code == 0
            text = path.read_text().splitlines()
            outs[backend, fmt] = [line for line in text if not line.startswith("@PG")]
    assert outs["cpu", "tsv"] == outs["cuda", "tsv"]
    assert outs["cpu", "sam"] == outs["cuda", "sam"]


@pytest.mark.skipif(gpu_available()[0] and __import__("cupy").cuda.runtime.getDeviceCount() < 2,
                    reason="needs two GPUs")
@pytest.mark.parametrize("traceback", [True, False])
def test_several_gpus(monkeypatch, traceback):
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend

    cpu = CpuPairwise(os.cpu_count() or 1)
    multi = select_backend(families.get("pairwise"), "cuda", os.cpu_count() or 1, lambda m: None, "all")
    qs, ts = random_pairs(99, 4000, long_share=0.05)
    assert_same((cpu, multi), qs, ts, AFFINE, "local", traceback)  # a batch goes whole to one GPU
    multi.spread_cells = 0  # a batch whole to one GPU's pipeline
    assert_same((cpu, multi), qs, ts, AFFINE, "local", traceback)
    monkeypatch.setattr(multi.hooks, "whole_cells", 0, raising=False)
    multi.split_cells = multi.piece_records = 0  # a batch in pieces over the GPUs
    assert_same((cpu, multi), qs, ts, AFFINE, "local", traceback)


@pytest.mark.skipif(gpu_available()[0] and __import__("cupy").cuda.runtime.getDeviceCount() < 2,
                    reason="needs two GPUs")
@pytest.mark.parametrize("route", ["first GPU", "whole", "pieces"])
def test_several_gpus_write_what_one_writes(tmp_path, monkeypatch, route):
    """Many batches in flight over every GPU's pipeline, whole or in pieces: the same TSV as one GPU."""
    from seqalign_cli.families.pairwise.gpu import PairwiseHooks
    from seqalign_cli.backends.cuda.scheduler import GpuScheduler
    from seqalign_cli.cli import main

    if route != "first GPU":
        monkeypatch.setattr(GpuScheduler, "spread_cells", 0)
    if route == "pieces":
        monkeypatch.setattr(PairwiseHooks, "whole_cells", 0)
        monkeypatch.setattr(GpuScheduler, "split_cells", 0)
        monkeypatch.setattr(GpuScheduler, "piece_records", 0)
    qs, ts = random_pairs(98, 3000, long_share=0.05)
    files = [tmp_path / "q.fa", tmp_path / "t.fa"]
    for path, seqs in zip(files, (qs, ts)):
        path.write_text("".join(f">p{k}\n{s}\n" for k, s in enumerate(seqs)))
    outs = []
    for devices in ("0", "all"):
        out = tmp_path / f"{devices}.tsv"
        with pytest.raises(SystemExit) as exc:
            main(["pair", "-q", "--backend", "cuda", "--devices", devices, "--batch-size", "200",
                  "--mode", "local", *map(str, files), "-o", str(out)])
        assert exc.value.code == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == len(qs) + 1


def test_a_gpu_run_leaves_the_cpu_engine_unloaded_until_needed():
    import subprocess
    import sys

    code = ("import sys; from seqalign_cli import families; from seqalign_cli.backends import select_backend; "
            "from seqalign_cli.config import AlignConfig; "
            "from seqalign_cli.families.pairwise.batch import make_batch; "
            "b = select_backend(families.get('pairwise'), 'cuda', 2, lambda m: None, 0); "
            "b.align(make_batch([b'ACGT'], [b'ACGA']), AlignConfig()); "
            "print(sorted(m for m in sys.modules if m.startswith('seqalign_cli.families.pairwise.cpu')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "seqalign_cli.families.pairwise.cpu_dp" not in out and "long_pair" not in out, out


def test_a_gpu_run_reads_codes_into_page_locked_buffers():
    """Once a GPU backend is chosen, the readers' codes are page-locked (uploaded without a staging copy), and the
    pairs align as the CPU engine aligns them."""
    from seqalign_cli import families
    from seqalign_cli.backends import select_backend
    from seqalign_cli.backends.cuda.device import is_pinned
    from seqalign_cli.families.pairwise.chunks import PairInputs, pair_chunks

    from seqalign_cli.io.encode import set_code_buffers

    gpu = select_backend(families.get("pairwise"), "cuda", 2, lambda m: None, 0)
    q, t = (os.path.join(DATA, f"gasal2.{side}.fa.gz") for side in ("query", "target"))
    try:
        for chunk in pair_chunks(PairInputs(q, t), 700):
            batch = chunk.batch()
            assert is_pinned(batch.q_codes) and is_pinned(batch.t_codes)
            cfg = AlignConfig(scoring=BWA, mode="local")
            assert_same_results(CpuPairwise(2).align(batch, cfg), gpu.start(batch, cfg).result(), ("cpu", "gpu"))
    finally:
        set_code_buffers(None)  # plain buffers again for the tests that follow


def test_runs_packed_on_the_device_are_each_records_runs_in_use():
    """``fetch_runs`` (kernels/runs.cu): every record's runs in use, back to back; the room of the records
    outside the subset (the CPU engine's) kept whole; records with no runs and a subset of one record."""
    import cupy as cp

    from seqalign_cli.backends.cuda.device import fetch_runs
    from seqalign_cli.results import RunStore

    rng = np.random.default_rng(31)
    for n in (1, 7, 5000):
        room = rng.integers(0, 40, n)
        runs = RunStore.allocate(room, n)
        runs.count[:] = np.minimum(room, rng.integers(0, 30, n))
        runs.op[:] = rng.integers(0, 4, len(runs.op))
        runs.length[:] = rng.integers(1, 10**6, len(runs.op))
        want = [runs.runs(k) for k in range(n)]
        subset = np.sort(rng.permutation(n)[:max(1, n * 3 // 4)])
        outside = np.setdiff1d(np.arange(n), subset)
        kept = {k: (runs.op[runs.off[k]:runs.off[k] + room[k]].copy(),
                    runs.length[runs.off[k]:runs.off[k] + room[k]].copy()) for k in outside}
        d_off, d_op, d_len = cp.asarray(runs.off), cp.asarray(runs.op), cp.asarray(runs.length)
        fetch_runs(cp, runs, d_off, d_op, d_len, subset, True)
        for k in subset:
            ops, lens = runs.runs(k)
            assert ops.tolist() == want[k][0].tolist() and lens.tolist() == want[k][1].tolist()
        for k in outside:
            assert runs.op[runs.off[k]:runs.off[k] + room[k]].tolist() == kept[k][0].tolist()
            assert runs.length[runs.off[k]:runs.off[k] + room[k]].tolist() == kept[k][1].tolist()
        assert len(runs.op) == max(runs.count[subset].sum() + room[outside].sum(), 1)  # one slot at least
