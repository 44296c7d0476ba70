"""Pipeline safety, end to end through ``python -m seqalign_cli``: what ``-o`` does to what is there,
signals in the middle of a run, and a machine where numba's cache folders cannot be written.

* Regular files (and links to them) are replaced whole, through a temporary
  file in the target's folder; devices, FIFOs, ``/dev/stdout`` and
  ``/dev/fd/N`` are written directly and left as they are.
* ``-o`` naming an input is a usage error; a failed run leaves an existing
  output untouched and no temporary file behind.
* SIGTERM, SIGINT and SIGHUP end a run within a second, even inside a long
  compiled call, with 143, 130 and 129, one stderr line and no leftovers.
* With the package folder, HOME and NUMBA_CACHE_DIR unwritable the run
  compiles into a folder of its own under TMPDIR and says so once.

Data: the first 200 GASAL2 pairs of ``tests/data/cli`` (see ``clidata``), a
few small triplets written here, and a 40 kb pair made here for the signals.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from support.clidata import GQ, GT
from support.helpers import messages

PACKAGE = Path(__file__).resolve().parents[1] / "seqalign_cli"


def seqalign(args, timeout=300, **kwargs) -> subprocess.CompletedProcess:
    """Run ``python -m seqalign_cli`` (through main()); bytes in, bytes out."""
    return subprocess.run([sys.executable, "-m", "seqalign_cli", *[str(a) for a in args]],
                          capture_output=True, timeout=timeout, **kwargs)


def leftovers(*folders) -> list[str]:
    """Temporary output files (``.NAME.*.tmp``) left in ``folders``."""
    return sorted(p.name for folder in folders for p in Path(folder).iterdir()
                  if re.fullmatch(r"\..+\..+\.tmp", p.name))


def ok(proc) -> bytes:
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.stdout


def write_triplets(folder: Path) -> list[Path]:
    """Three small FASTA files of 4 triplets (20 to 60 bp, related sequences)."""
    rng = random.Random(11)
    seqs = [[], [], []]
    for t in range(4):
        base = "".join(rng.choice("ACGT") for _ in range(rng.randint(20, 60)))
        for k in range(3):
            s = list(base)
            for _ in range(3):
                s[rng.randrange(len(s))] = rng.choice("ACGT")
            seqs[k].append("".join(s))
    paths = []
    for k, name in enumerate("abc"):
        path = folder / f"tri.{name}.fa"
        path.write_text("".join(f">{name}{t}\n{s}\n" for t, s in enumerate(seqs[k])))
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """family -> (command and inputs, the expected output bytes of the TSV written to a plain file)."""
    folder = tmp_path_factory.mktemp("reference")
    out = {}
    for family, args in (("pair", ["pair", GQ, GT]), ("triplet", ["triplet", *write_triplets(folder)])):
        ref = folder / f"{family}.tsv"
        ok(seqalign([*args, "-q", "--backend", "cpu", "-o", ref]))
        out[family] = (args, ref.read_bytes())
    return out


FAMILIES = ["pair", "triplet"]


def _read_all(path: Path, into: list):
    with open(path, "rb") as pipe:
        into.append(pipe.read())


# ------------------------------------------------------ what -o does to what is there


@pytest.mark.skipif(not hasattr(os, "mknod") or os.geteuid() != 0,
                    reason="making a character device (os.mknod) needs root")
def test_character_device_is_written_and_left_alone(tmp_path, jobs):
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    args, _ = jobs["pair"]
    assert ok(seqalign([*args, "-q", "-o", dev])) == b""
    st = dev.lstat()
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    # a link to it, and a .gz name: written through, nothing created beside
    link = tmp_path / "out.tsv.gz"
    link.symlink_to(dev)
    ok(seqalign([*args, "-q", "-o", link]))
    assert link.is_symlink() and stat.S_ISCHR(dev.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "out.tsv.gz"]


def test_dev_null_is_left_alone(jobs):
    args, _ = jobs["pair"]
    before = os.stat("/dev/null")
    assert ok(seqalign([*args, "-q", "-o", "/dev/null"])) == b""
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_rdev, after.st_ino) == (before.st_rdev, before.st_ino)


@pytest.mark.parametrize("family", FAMILIES)
def test_fifo_reader_receives_everything(tmp_path, jobs, family):
    args, ref = jobs[family]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(fifo, got))
    reader.start()
    proc = seqalign([*args, "-q", "-o", fifo])
    reader.join(timeout=60)
    ok(proc)
    assert got == [ref]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_gzip_fifo_has_no_file_name_in_its_header(tmp_path, jobs):
    args, ref = jobs["pair"]
    fifo = tmp_path / "pipe.tsv.gz"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(fifo, got))
    reader.start()
    ok(seqalign([*args, "-q", "-o", fifo]))
    reader.join(timeout=60)
    data = got[0]
    assert data[:3] == b"\x1f\x8b\x08" and not data[3] & 0x08  # FNAME not set
    assert gzip.decompress(data) == ref


@pytest.mark.parametrize("family", FAMILIES)
def test_symlink_to_a_regular_file_replaces_the_target(tmp_path, jobs, family):
    args, ref = jobs[family]
    (tmp_path / "data").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "data" / "result.tsv"
    target.write_text("previous result\n")
    target.chmod(0o640)
    link = tmp_path / "links" / "result.tsv"
    link.symlink_to(target)
    ok(seqalign([*args, "-q", "-o", link]))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == ref and not target.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # a replaced file keeps its permission bits
    assert leftovers(tmp_path / "data", tmp_path / "links") == []
    assert sorted(p.name for p in (tmp_path / "links").iterdir()) == ["result.tsv"]


def test_dangling_symlink_creates_its_target(tmp_path, jobs):
    args, ref = jobs["pair"]
    link = tmp_path / "link.tsv"
    link.symlink_to(tmp_path / "new.tsv")
    ok(seqalign([*args, "-q", "-o", link]))
    assert link.is_symlink() and (tmp_path / "new.tsv").read_bytes() == ref
    assert leftovers(tmp_path) == []


def test_symlink_to_a_fifo_is_written_through(tmp_path, jobs):
    args, ref = jobs["pair"]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.tsv"
    link.symlink_to(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(fifo, got))
    reader.start()
    proc = seqalign([*args, "-q", "-o", link])
    reader.join(timeout=60)
    ok(proc)
    assert got == [ref]
    assert link.is_symlink() and stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv", "pipe"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_dev_stdout_appends_and_process_substitution(tmp_path, jobs):
    """``-o /dev/stdout >> file`` writes through the descriptor (appends); ``-o >(cmd)`` is /dev/fd/N."""
    args, ref = jobs["pair"]
    cmd = [sys.executable, "-m", "seqalign_cli", *[str(a) for a in args], "-q"]
    out = tmp_path / "appended.tsv"
    out.write_bytes(b"kept\n")
    script = '"$@" -o /dev/stdout >> "$OUT"'
    proc = subprocess.run(["bash", "-c", script, "bash", *cmd], env={**os.environ, "OUT": str(out)},
                          capture_output=True, timeout=300)
    ok(proc)
    assert out.read_bytes() == b"kept\n" + ref
    sub = tmp_path / "sub.tsv"
    script = '"$@" -o >(cat > "$OUT"); wait'
    proc = subprocess.run(["bash", "-c", script, "bash", *cmd], env={**os.environ, "OUT": str(sub)},
                          capture_output=True, timeout=300)
    ok(proc)
    deadline = time.monotonic() + 30
    while (not sub.exists() or sub.stat().st_size < len(ref)) and time.monotonic() < deadline:
        # cat may finish after bash
        time.sleep(0.05)
    assert sub.read_bytes() == ref
    assert leftovers(tmp_path) == []


def test_gzip_output_is_bgzf_naming_no_file(tmp_path, jobs):
    args, ref = jobs["pair"]
    out = tmp_path / "result.tsv.gz"
    ok(seqalign([*args, "-q", "-o", out]))
    data = out.read_bytes()
    assert data[:4] == b"\x1f\x8b\x08\x04" and data[12:14] == b"BC"  # FEXTRA with BC, no FNAME
    assert b".tmp" not in data and b"result" not in data
    assert data.endswith(bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000"))
    assert gzip.decompress(data) == ref


# ------------------------------------------------------ -o naming an input, failed runs


@pytest.mark.parametrize("family, which", [("pair", 0), ("pair", 1), ("pair", "link"), ("triplet", 2)])
def test_output_naming_an_input_is_a_usage_error(tmp_path, jobs, family, which):
    args, _ = jobs[family]
    inputs = [tmp_path / f"in{k}{Path(a).suffix}" for k, a in enumerate(args[1:])]
    for src, dst in zip(args[1:], inputs):
        shutil.copyfile(src, dst)
    before = {p: p.read_bytes() for p in inputs}
    if which == "link":
        output = tmp_path / "alias"
        output.symlink_to(inputs[1])
    else:
        output = inputs[which]
    proc = seqalign([args[0], *inputs, "-o", output])
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and len(messages(err)) == 1, err
    assert messages(err)[0].startswith("seqalign: error: ") and "-o names" in err and "input" in err, err
    assert {p: p.read_bytes() for p in inputs} == before
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["keep.tsv", "keep.sam", "keep.bam", "keep.tsv.gz", "keep.paf"])
def test_bad_input_leaves_an_existing_output_untouched(tmp_path, name):
    """A run that fails (here after several chunks were written: a record too many at the end of the
    queries) exits 1, keeps what the output held and leaves no temporary file."""
    out = tmp_path / name
    out.write_bytes(b"previous result\n")
    query = tmp_path / "q.fa"
    query.write_bytes(gzip.decompress(GQ.read_bytes()) + b">extra\nACGT\n")
    proc = seqalign(["pair", "--batch-size", "7", query, GT, "-o", out])
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "Traceback" not in err and err.splitlines()[-1].startswith("seqalign: error: "), err
    assert out.read_bytes() == b"previous result\n"
    assert leftovers(tmp_path) == []


def test_malformed_input_leaves_an_existing_output_untouched(tmp_path):
    out = tmp_path / "keep.tsv"
    out.write_bytes(b"previous result\n")
    bad = tmp_path / "bad.fq"
    bad.write_text("@r1\nACGT\n+\nII\n")
    proc = seqalign(["pair", bad, bad, "-o", out])
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr, proc.stderr.decode()
    assert out.read_bytes() == b"previous result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.fq", "keep.tsv"]


# ------------------------------------------------------ signals


@pytest.fixture(scope="module")
def long_pair(tmp_path_factory):
    """Twelve 40 kb pairs (about 1 % substitutions): each at least a fraction of a second of one compiled
    call on a CPU, many seconds in all (the runs below take one pair a chunk)."""
    folder = tmp_path_factory.mktemp("long")
    rng = random.Random(3)
    a = "".join(rng.choice("ACGT") for _ in range(40_000))
    b = list(a)
    for i in range(0, len(b), 97):
        b[i] = rng.choice("ACGT")
    (folder / "q.fa").write_text(f">q\n{a}\n" * 12)
    (folder / "t.fa").write_text(f">t\n{''.join(b)}\n" * 12)
    return folder / "q.fa", folder / "t.fa"


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_signal_mid_run_removes_the_temporary_output(tmp_path, long_pair, sig, code):
    if signal.getsignal(sig) == signal.SIG_IGN:  # under nohup: the run inherits it ignored and leaves it so
        pytest.skip(f"{signal.Signals(sig).name} is ignored here")
    out = tmp_path / "out.tsv"
    out.write_bytes(b"previous result\n")
    proc = subprocess.Popen([sys.executable, "-m", "seqalign_cli", "pair", "-q", "--backend", "cpu",
                             *long_pair, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120  # the temporary file appears once the run is under way
        while not leftovers(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert leftovers(tmp_path), "the run did not begin"
        time.sleep(1.0)  # inside the long pair's compiled call
        assert proc.poll() is None, "the run ended before the signal"
        sent = time.monotonic()
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = stderr.decode()
    assert proc.returncode == code, (proc.returncode, err)
    assert elapsed < 2.0, elapsed
    assert err == f"seqalign: interrupted by {signal.Signals(sig).name}\n", err
    assert stdout == b""
    assert out.read_bytes() == b"previous result\n"
    assert leftovers(tmp_path) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]


# ------------------------------------------------------ read-only machines


def _unwritable(base: Path, name: str) -> Path:
    """A path nobody can create (its parent is a regular file): unwritable even for root."""
    blocker = base / name
    blocker.write_text("")
    return blocker / "cache"


def test_unwritable_numba_cache_falls_back_to_a_temporary_folder(tmp_path, jobs):
    """Package folder, HOME, XDG_CACHE_HOME and NUMBA_CACHE_DIR all unwritable: the run compiles into
    TMPDIR/seqalign-numba-cache-UID, says so once with the time, and the next run uses that cache."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "seqalign_cli", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for folder in [site / "seqalign_cli", *(p for p in (site / "seqalign_cli").rglob("*") if p.is_dir())]:
        if any(folder.glob("*.py")):
            (folder / "__pycache__").write_text("")  # numba cannot make its cache folder here
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(tmp),
           "HOME": str(_unwritable(tmp_path, "home")), "XDG_CACHE_HOME": str(_unwritable(tmp_path, "xdg")),
           "NUMBA_CACHE_DIR": str(_unwritable(tmp_path, "numba"))}
    args, ref = jobs["pair"]
    out = tmp_path / "out.tsv"
    where = [sys.executable, "-c", "import seqalign_cli, sys; sys.stdout.write(seqalign_cli.__file__)"]
    found = subprocess.run(where, env=env, cwd=tmp_path, capture_output=True, text=True).stdout
    assert found.startswith(str(site)), found

    first = seqalign([*args, "--backend", "cpu", "-o", out], env=env, cwd=tmp_path, timeout=600)
    ok(first)
    assert out.read_bytes() == ref
    lines = first.stderr.decode().splitlines()
    notes = [line for line in lines if "compil" in line]
    assert len(notes) == 1 and re.fullmatch(
        r"seqalign: compiling the CPU engine \(first run; cached afterwards\)\.\.\. \d+\.\d s", notes[0]), lines
    cache = tmp / f"seqalign-numba-cache-{os.getuid()}"
    assert cache.is_dir() and any(cache.rglob("*.nbi")), sorted(p.name for p in tmp.iterdir())

    again = seqalign([*args, "--backend", "cpu", "-o", out], env=env, cwd=tmp_path, timeout=600)
    ok(again)
    assert out.read_bytes() == ref
    assert "compil" not in again.stderr.decode(), again.stderr.decode()
    quiet = seqalign([*args, "-q", "--backend", "cpu", "-o", out], env=env, cwd=tmp_path, timeout=600)
    assert ok(quiet) == b"" and quiet.stderr == b""


def test_compile_notice_lines():
    """The first-run line: begun by numba's compile event, ended with the time; another stderr line
    in between ends it early and the time comes on a line of its own; a failed run writes no marker."""
    import io

    from seqalign_cli import jit

    text = re.escape("seqalign: compiling the CPU engine (first run; cached afterwards)...")
    out = io.StringIO()
    notice = jit.CompileNotice("notice-check", stream=out)
    assert notice.active and notice.first
    jit.nb.njit(lambda x: x + 1)(1)  # compiles (not cached): one event
    notice.close()
    assert re.fullmatch(text + r" \d+\.\d s\n", out.getvalue()), out.getvalue()
    jit.nb.njit(lambda x: x + 2)(1)  # after the line is closed: nothing more is said
    notice.finish(ok=False)
    assert out.getvalue().count("\n") == 1 and not os.path.exists(notice.marker)

    out = io.StringIO()
    notice = jit.CompileNotice("notice-check", stream=out)
    jit.nb.njit(lambda x: x + 3)(1)
    notice.interject()
    out.write("seqalign: backend auto: picked cpu\n")
    notice.finish(ok=False)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and re.fullmatch(text, lines[0]), lines
    assert lines[1] == "seqalign: backend auto: picked cpu"
    assert re.fullmatch(r"seqalign: compiled the CPU engine in \d+\.\d s", lines[2]), lines

    quiet = jit.CompileNotice("notice-check", enabled=False, stream=out)
    assert not quiet.active and quiet.listener is None
