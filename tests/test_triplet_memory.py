"""The triplet CPU engine's memory: the traceback within ``--max-matrix-mb``, and running out of memory.

* the checkpointed walk (``cpu_checkpoint``: checkpoints, blocks of
  codes swept again over the walk's rectangle) gives the whole cube's
  alignments bit for bit: many random triplets, every mode, linear gaps
  (the walk on values' bytes and on kinds, int32 and int64 cells) and
  affine gaps, budgets from 1 byte (the floor) to nearly the whole cube;
* the schedule's plan keeps within the memory it is given and needs the
  fewest sweeps;
* a triplet traced back past the budget takes at most the budget (or the
  floor) beyond what score only takes (peak resident memory of the command);
* out of memory (under ``ulimit -v``, or a budget past the address space):
  exit 1, one line naming what ran out and ``--max-matrix-mb``, no
  traceback, no output file.
"""

from __future__ import annotations

import random
import subprocess
import sys
from math import comb
from pathlib import Path

import pytest

from seqalign_cli.families.triplet.cpu import CpuTriplet
from seqalign_cli.families.triplet.cpu_checkpoint import FLOOR_CODES, FLOOR_VALUES, marks, plan
from seqalign_cli.config import AlignConfig, Scoring
from seqalign_cli.families.triplet.batch import make_triplets

from support.generators import related_triplet
from support.helpers import messages

SEQALIGN = str(Path(sys.executable).with_name("seqalign"))
MODES = ("global", "semi-global", "local")
LINEAR = {
    "values": Scoring(match=2, mismatch=4, gap_open=0, gap_extend=2, n_penalty=1),  # the walk on values' bytes
    "kinds": Scoring(match=20, mismatch=30, gap_open=0, gap_extend=25, n_penalty=5),  # past the value bound
    "wide": Scoring(match=300_000_000, mismatch=500_000_000, gap_open=0, gap_extend=200_000_000, n_penalty=7),
}
AFFINE = {
    "affine": Scoring(match=2, mismatch=4, gap_open=3, gap_extend=1, n_penalty=1),
    "affine_wide": Scoring(match=300_000_000, mismatch=500_000_000, gap_open=100_000_000, gap_extend=200_000_000,
                           n_penalty=7),
}


def related(rng, n, rate=0.18, alphabet="ACGT"):
    return related_triplet(rng, n, rate, alphabet)


def triplets(rng, count, longest):
    trip = [related(rng, rng.randint(0, longest), alphabet="ACGTN" if k % 5 == 0 else "ACGT") for k in range(count)]
    trip += [["".join(rng.choice("ACGT") for _ in range(rng.randint(0, 12))) for _ in range(3)] for _ in range(8)]
    # long and thin (many slices of a few cells), and short and wide
    trip.append(["".join(rng.choice("ACGT") for _ in range(n)) for n in (5 * longest, 6, 4)])
    trip.append(related(rng, 4 * longest)[:1] + ["AC", "G"])
    trip.append(["ACG"] + related(rng, 2 * longest)[:2])
    return [[x.encode() for x in col] for col in zip(*trip)]


def records(engine, seqs, scoring, mode, budget):
    res = engine.align(make_triplets(*seqs), AlignConfig(scoring=scoring, mode=mode, traceback=True,
                                                         matrix_budget=budget))
    cols = res.column_strings()
    return [(int(res.score[t]), tuple(res.start[t].tolist()), tuple(res.end[t].tolist()), cols[t])
            for t in range(res.size)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(LINEAR))
def test_checkpointed_walk_equals_the_whole_cube_linear(mode, name):
    """Linear gaps: every budget gives the whole cube's alignments (1 byte: the floor, every triplet through the
    checkpoints; larger ones: some triplets whole, the others with more checkpoints and longer blocks)."""
    rng = random.Random(1000 + 7 * MODES.index(mode) + list(LINEAR).index(name))
    seqs = triplets(rng, 30, 60)
    whole = records(CpuTriplet(1), seqs, LINEAR[name], mode, 1 << 30)
    for budget in (1, 700, 6_000, 40_000, 150_000):
        assert records(CpuTriplet(2), seqs, LINEAR[name], mode, budget) == whole, budget


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(AFFINE))
def test_checkpointed_walk_equals_the_whole_cube_affine(mode, name):
    """Affine gaps: likewise (words of 4 bytes a cell, checkpoints of seven values a cell)."""
    rng = random.Random(2000 + 7 * MODES.index(mode) + list(AFFINE).index(name))
    seqs = triplets(rng, 14, 28)
    whole = records(CpuTriplet(1), seqs, AFFINE[name], mode, 1 << 30)
    for budget in (1, 5_000, 60_000):
        assert records(CpuTriplet(2), seqs, AFFINE[name], mode, budget) == whole, budget


def test_the_plan_keeps_within_its_memory_and_needs_the_fewest_sweeps():
    """``plan``: f checkpoints and blocks of b slices fit the free bytes and walk through L slices in r sweeps
    (C(f + r + 1, r) blocks), no plan of as few checkpoints needs fewer; ``marks`` places them in order inside
    the slices."""
    rng = random.Random(5)
    out = __import__("numpy").empty(5000, "int64")
    for _ in range(400):
        d = rng.randint(1, 50)
        c = d * rng.choice((1, 4, 7, 14))
        free = rng.randint(d, 40 * c)
        L = rng.randint(free // d + 1, 3000)
        f, r, b = plan(L, free, c, d)
        assert f * c + b * d <= free and b >= 1 and r >= 1
        assert comb(f + r + 1, r) * b >= L
        for g in range(0, min((free - d) // c, 64) + 1):  # every plan the search tries in full
            bg = (free - g * c) // d
            assert comb(g + r, r - 1) * bg < L, (L, free, c, d, g)  # none in r - 1 sweeps
        p0 = rng.randint(-1, 100)
        count = marks(p0, L, f, r, b, out)
        got = out[:count].tolist()
        assert count <= f and got == sorted(set(got)) and all(p0 < m < p0 + L for m in got)


def _peak_kb(*args) -> int:
    """The command's peak resident memory in kB (a process of its own, so that the peak is its alone)."""
    code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
            "assert p.returncode == 0, p.stderr; print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    return int(subprocess.run([sys.executable, "-c", code, SEQALIGN, *args], capture_output=True, check=True,
                              text=True).stdout)


def _write_triplet(folder: Path, n: int, seed: int) -> list[str]:
    seqs = related(random.Random(seed), n, rate=0.1)
    paths = []
    for name, s in zip("abc", seqs):
        (folder / f"{name}.fa").write_text(f">{name}\n{s}\n")
        paths.append(str(folder / f"{name}.fa"))
    return paths


def test_traceback_stays_within_the_budget(tmp_path):
    """A 600 bp triplet traced back with --max-matrix-mb 8 (its whole cube of codes: 217 MB) and 1 (below the
    floor: 2 slices of values and 4 of codes, 4.3 MB) takes at most that beyond score only (within the noise of
    a few MB; the checkpoints of every 49th slice and a block of 49 slices that it took before were 52 MB),
    and writes the whole cube's alignment."""
    paths = _write_triplet(tmp_path, 600, 3)
    common = ["triplet", "-q", "--backend", "cpu", *paths]
    base = _peak_kb(*common, "--score-only", "-o", str(tmp_path / "s.tsv"))
    floor_kb = (FLOOR_VALUES * 4 + FLOOR_CODES) * 601 * 601 // 1024
    want = None
    for mb, bound_kb in ((8, 8 * 1024), (1, floor_kb)):
        out = tmp_path / f"t{mb}.tsv"
        extra = _peak_kb(*common, "--max-matrix-mb", str(mb), "-o", str(out)) - base
        assert extra <= bound_kb + 6 * 1024, (mb, extra, bound_kb)
        want = want or subprocess.run([SEQALIGN, *common, "--max-matrix-mb", "300", "-o", "-"], capture_output=True,
                                      check=True).stdout
        assert out.read_bytes() == want


def _vm_peak_kb(tmp_path: Path) -> int:
    """The address space a tiny triplet run takes (the interpreter, numba, the runner's threads), in kB."""
    (tmp_path / "tiny.fa").write_text(">t\nACGTAC\n")
    tiny = str(tmp_path / "tiny.fa")
    code = ("import sys; from seqalign_cli.cli import main\n"
            "try:\n    main(['triplet', '-q', '--backend', 'cpu', sys.argv[1], sys.argv[1], sys.argv[1], '-o', "
            "sys.argv[2]])\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmPeak')][0])")
    return int(subprocess.run([sys.executable, "-c", code, tiny, str(tmp_path / "tiny.tsv")], capture_output=True,
                              check=True, text=True).stdout)


def _one_line_error(proc, folder: Path, before: set):
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "Error" not in err, err
    lines = messages(err)
    assert len(lines) == 1 and lines[0].startswith("seqalign: error: out of memory aligning triplets"), err
    assert "--max-matrix-mb" in lines[0]
    assert proc.stdout == b""
    assert {p.name for p in folder.iterdir()} == before, "a file was left behind"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("options", [[], ["--max-matrix-mb", "100000"], ["--gap-open", "2"]],
                         ids=["default", "budget_past_memory", "affine"])
def test_out_of_memory_under_ulimit_is_one_line(tmp_path, options):
    """Under ``ulimit -v`` (what a tiny run takes, plus 100 MB), a 2,000 bp triplet whose traceback takes 256 MB
    (the default budget; affine gaps: its floor, 288 MB) or 7.6 GB (a budget of 100,000 MB) fails at once: exit
    1, one line, no output file."""
    # the engine's compiled code for these options, the checkpointed walk included, loaded or compiled before
    # the limit (a compile under it would fail in the compiler, not in the engine)
    warm = tmp_path / "warm"
    warm.mkdir()
    _write_triplet(warm, 300, 5)
    subprocess.run([SEQALIGN, "triplet", "-q", "--backend", "cpu", *options, "--max-matrix-mb", "1", "a.fa", "b.fa",
                    "c.fa", "-o", "out.tsv"], cwd=warm, check=True, capture_output=True, timeout=300)
    limit = _vm_peak_kb(tmp_path) + 100 * 1024
    folder = tmp_path / "run"
    folder.mkdir()
    _write_triplet(folder, 2000, 11)
    before = {p.name for p in folder.iterdir()}
    cmd = " ".join([SEQALIGN, "triplet", "-q", "--backend", "cpu", *options, "a.fa", "b.fa", "c.fa", "-o",
                    "out.tsv"])
    proc = subprocess.run(["bash", "-c", f"ulimit -v {limit}; exec {cmd}"], cwd=folder, capture_output=True,
                          timeout=300)
    _one_line_error(proc, folder, before)


@pytest.mark.parametrize("gap_open", [0, 2])
def test_traceback_past_the_address_space_is_one_line(tmp_path, gap_open):
    """A budget that lets a 65,536 bp triplet's codes (2**48 bytes, past any address space) be asked for whole:
    the request fails before any slice is made; exit 1, one line, no output file."""
    (tmp_path / "a.fa").write_text(">big\n" + "ACGT" * 16384 + "\n")
    before = {p.name for p in tmp_path.iterdir()}
    proc = subprocess.run([SEQALIGN, "triplet", "-q", "--backend", "cpu", "--gap-open", str(gap_open),
                           "--max-matrix-mb", "300000000", "a.fa", "a.fa", "a.fa", "-o", "out.tsv"], cwd=tmp_path,
                          capture_output=True, timeout=300)
    _one_line_error(proc, tmp_path, before)
    assert "65,536 x 65,536 x 65,536 bp" in proc.stderr.decode()
