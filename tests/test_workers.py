"""Runs with worker processes (``--workers``): the same output as one process, errors, signals, inputs, parts.

Every run goes through ``python -m seqalign_cli`` on the CPU backend (the
pipeline is the same on a GPU; the GPU suite runs it there), with small
batches so that a run has many chunks, and compares its output byte for
byte with the same run in one process (``--workers 1``).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.clidata import GQ, GT
from support.backends import GPU
from support.helpers import messages

TESTS = Path(__file__).resolve().parent
TRIPLETS = TESTS / "data" / "triplet"
COVID = TESTS / "data" / "pairwise"
CHILD = "seqalign_cli.workers.child"


def seqalign(args, timeout=300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seqalign_cli", *[str(a) for a in args]],
                          capture_output=True, timeout=timeout, **kwargs)


def ok(proc) -> bytes:
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    return proc.stdout


def run_both(tmp_path: Path, args: list, out: str, workers=(3,)) -> list[bytes]:
    """The output file of ``args`` in one process, then with each worker count: their bytes."""
    outputs = []
    for w in (1, *workers):
        path = tmp_path / f"w{w}.{out}"
        ok(seqalign([*args, "--backend", "cpu", "-q", "--workers", w, "-o", path]))
        data = path.read_bytes()
        outputs.append(gzip.decompress(data) if out.endswith(".gz") else data)
    return outputs


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> tuple[Path, Path]:
    """200 GASAL2 pairs, plain FASTA."""
    folder = tmp_path_factory.mktemp("pairs")
    q, t = folder / "q.fa", folder / "t.fa"
    q.write_bytes(gzip.decompress(GQ.read_bytes()))
    t.write_bytes(gzip.decompress(GT.read_bytes()))
    return q, t


@pytest.mark.parametrize("out,extra", [("tsv", []), ("paf", []), ("tsv.gz", []), ("tsv", ["--score-only"]),
                                       ("tsv", ["--mode", "local", "--strand", "both"])])
def test_pairs_same_output_with_workers(tmp_path, pairs, out, extra):
    outputs = run_both(tmp_path, ["pair", *pairs, "--batch-size", 37, *extra], out)
    assert outputs[0].count(b"\n") >= 200
    assert all(o == outputs[0] for o in outputs[1:])


def test_interleaved_fastq_and_gzip_inputs(tmp_path, pairs):
    """An interleaved FASTQ file, and a gzip query: the same rows as the plain FASTA pairs."""
    recs = [(r.split(b"\n", 1)[0], r.split(b"\n", 1)[1].replace(b"\n", b"")) for f in pairs
            for r in f.read_bytes().split(b">")[1:]]
    half = len(recs) // 2
    fq = b"".join(b"@%s\n%s\n+\n%s\n" % (name, s, b"I" * len(s))
                  for k in range(half) for name, s in (recs[k], recs[half + k]))
    (tmp_path / "il.fq").write_bytes(fq)
    (tmp_path / "q.fa.gz").write_bytes(gzip.compress(pairs[0].read_bytes()))
    base = run_both(tmp_path, ["pair", *pairs, "--batch-size", 29], "tsv", workers=())[0]
    inter = run_both(tmp_path, ["pair", "--interleaved", tmp_path / "il.fq", "--batch-size", 29], "tsv")
    gz = run_both(tmp_path, ["pair", tmp_path / "q.fa.gz", pairs[1], "--batch-size", 29], "tsv", workers=(3,))
    assert all(o == base for o in (*inter, *gz))


def test_order_restored_when_later_chunks_end_first(tmp_path):
    """The first chunk holds long pairs (seconds of work), the later ones short pairs: they end first, and the
    output is still in input order."""
    rng = random.Random(5)

    def seq(n):
        return "".join(rng.choice("ACGT") for _ in range(n))

    long = [(seq(1500), seq(1500)) for _ in range(4)]
    short = [(seq(20), seq(22)) for _ in range(40)]
    q = "".join(f">q{k}\n{a}\n" for k, (a, _) in enumerate(long + short))
    t = "".join(f">t{k}\n{b}\n" for k, (_, b) in enumerate(long + short))
    (tmp_path / "q.fa").write_text(q)
    (tmp_path / "t.fa").write_text(t)
    outputs = run_both(tmp_path, ["pair", tmp_path / "q.fa", tmp_path / "t.fa", "--batch-size", 4], "tsv",
                       workers=(3,))
    assert outputs[0] == outputs[1]
    names = [line.split(b"\t")[0] for line in outputs[1].splitlines()[1:]]
    assert names == [b"q%d" % k for k in range(44)]


@pytest.mark.parametrize("interleaved,out", [(False, "tsv"), (False, "maf"), (True, "tsv")])
def test_triplets_same_output_with_workers(tmp_path, interleaved, out):
    inputs = ([TRIPLETS / "sars.interleaved.fa", "--interleaved"] if interleaved
              else [TRIPLETS / f"sars.{s}.fa" for s in "abc"])
    outputs = run_both(tmp_path, ["triplet", *inputs, "--batch-size", 3], out)
    assert outputs[0] and all(o == outputs[0] for o in outputs[1:])


def test_stdin_and_fifo_inputs(tmp_path, pairs):
    base = run_both(tmp_path, ["pair", *pairs, "--batch-size", 50], "tsv", workers=())[0]
    proc = seqalign(["pair", "-", pairs[1], "--backend", "cpu", "-q", "--workers", 3, "--batch-size", 50],
                    input=pairs[0].read_bytes())
    assert ok(proc) == base
    fifo = tmp_path / "q.fifo"
    os.mkfifo(fifo)
    feeder = subprocess.Popen(f"cat {pairs[0]} > {fifo}", shell=True)
    proc = seqalign(["pair", fifo, pairs[1], "--backend", "cpu", "-q", "--workers", 3, "--batch-size", 50],
                    timeout=120)
    feeder.wait()
    assert ok(proc) == base


def test_shard_parts_with_workers_make_the_whole(tmp_path, pairs):
    base = run_both(tmp_path, ["pair", *pairs, "--batch-size", 23], "tsv", workers=())[0]
    parts = [ok(seqalign(["pair", *pairs, "--backend", "cpu", "-q", "--workers", 2, "--batch-size", 23,
                          "--shard", f"{k}/3"])) for k in (1, 2, 3)]
    assert b"".join(parts) == base
    assert not parts[1].startswith(b"#")


def test_stats_with_workers(tmp_path, pairs):
    docs = []
    for w in (1, 3):
        ok(seqalign(["pair", *pairs, "--backend", "cpu", "-q", "--workers", w, "--batch-size", 31,
                     "-o", tmp_path / f"o{w}.tsv", "--stats", tmp_path / f"s{w}.json"]))
        docs.append(json.loads((tmp_path / f"s{w}.json").read_text())["seqalign"])
    for key in ("records", "aligned", "unaligned", "cells", "histograms"):
        assert docs[0][key] == docs[1][key], key


def test_error_in_a_chunk_stops_the_run(tmp_path, pairs):
    """A bad letter in record 150 (the fourth chunk of 41): its message, exit 1, no output, no temporary file."""
    records = pairs[0].read_bytes().split(b">")
    head, body = records[150].split(b"\n", 1)
    records[150] = head + b"\n" + body[:5] + b"7" + body[6:]
    bad = tmp_path / "bad.fa"
    bad.write_bytes(b">".join(records))
    out = tmp_path / "out.tsv"
    proc = seqalign(["pair", bad, pairs[1], "--backend", "cpu", "--workers", 3, "--batch-size", 41, "-o", out])
    assert proc.returncode == 1
    lines = messages(proc.stderr.decode())
    assert len(lines) == 1 and "bad.fa: record 150" in lines[0] and "'7'" in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.fa"]


def test_unequal_files_give_the_message_of_one_process(tmp_path, pairs):
    short = tmp_path / "short.fa"
    short.write_bytes(b">".join(pairs[0].read_bytes().split(b">")[:121]))
    messages = [seqalign(["pair", short, pairs[1], "--backend", "cpu", "--workers", w, "--batch-size", 50,
                          "-o", tmp_path / "o.tsv"]) for w in (1, 3)]
    assert [m.returncode for m in messages] == [1, 1]
    assert messages[0].stderr == messages[1].stderr
    assert b"120 queries" in messages[0].stderr and b"200 targets" in messages[0].stderr


def _long_run(tmp_path: Path) -> list:
    """A run of a few minutes on the CPU with 2 workers (covid pairs written many times)."""
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    q.write_bytes(gzip.decompress((COVID / "covid_ont.query.fa.gz").read_bytes()) * 400)
    t.write_bytes(gzip.decompress((COVID / "covid_ont.target.fa.gz").read_bytes()) * 400)
    return [sys.executable, "-m", "seqalign_cli", "pair", str(q), str(t), "--backend", "cpu", "--workers", "2",
            "--batch-size", "64", "-o", str(tmp_path / "out.tsv")]


def _workers_of(pid: int, want: int, timeout: float = 120) -> list[int]:
    """The worker processes of ``pid`` once ``want`` of them are up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            kids += [int(k) for k in (task / "children").read_text().split()]
        kids = [k for k in kids if CHILD in Path(f"/proc/{k}/cmdline").read_bytes().decode(errors="replace")]
        if len(kids) >= want:
            return kids
        time.sleep(0.05)
    raise AssertionError("workers did not start")


def _gone(pids: list[int], timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and "zombie" not in _state(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_worker_ends_the_run(tmp_path):
    proc = subprocess.Popen(_long_run(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kids = _workers_of(proc.pid, 2)
    time.sleep(1.0)
    os.kill(kids[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err.decode().splitlines() == [
        "seqalign: error: a worker process ended unexpectedly (killed by SIGKILL); no output written"]
    assert _gone(kids)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.fa", "t.fa"]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sigterm_leaves_nothing(tmp_path):
    shm = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    proc = subprocess.Popen(_long_run(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kids = _workers_of(proc.pid, 2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()
    assert b"Traceback" not in err
    assert _gone(kids)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.fa", "t.fa"]
    if shm:
        assert set(os.listdir("/dev/shm")) <= shm


def test_worker_count(pairs):
    """Workers when asked, for pairings that can be cut and formats that concatenate; none by default."""
    from seqalign_cli import workers
    from seqalign_cli.config import AlignConfig, RunConfig
    from seqalign_cli.families.pairwise.inputs import PairInputs
    from seqalign_cli.families.triplet.inputs import TripletInputs

    def cfg(fmt="tsv", pairing="zip", family="pairwise"):
        inputs = (PairInputs(str(pairs[0]), str(pairs[1]), pairing=pairing) if family == "pairwise"
                  else TripletInputs(("a", "b", "c")))
        return RunConfig(inputs, family=family, out_format=fmt, backend="cuda", align=AlignConfig())

    assert workers.count(cfg(), None) == 1
    assert workers.count(cfg(), 1) == 1
    assert workers.count(cfg(), 4) == 4
    assert workers.count(cfg(fmt="paf", pairing="interleaved"), 3) == 3
    assert workers.count(cfg(fmt="maf", family="triplet"), 3) == 3
    assert workers.count(cfg(fmt="sam"), 4) == 1
    assert workers.count(cfg(fmt="bam"), 4) == 1
    assert workers.count(cfg(pairing="cross"), 4) == 1
    assert workers.count(cfg(pairing="pairs"), 4) == 1


@pytest.mark.gpu
@GPU
@pytest.mark.parametrize("extra", [[], ["--score-only"], ["--mode", "local"]])
def test_gpu_workers_same_output(tmp_path, pairs, extra):
    """On the GPU: workers sharing it write what one process writes, and what the CPU writes."""
    outputs = []
    for backend, w in (("cpu", 1), ("cuda", 1), ("cuda", 3)):
        path = tmp_path / f"{backend}{w}.tsv"
        ok(seqalign(["pair", *pairs, "--batch-size", 37, *extra, "--backend", backend, "-q", "--workers", w,
                     "-o", path]))
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
