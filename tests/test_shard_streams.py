"""``--shard K/N`` on inputs that cannot be read twice: refused at once, never an empty run, never a wait.

A part is found in two passes over the file that defines the units
(``io/shard.py``); a pipe gives its records to the first pass only, and a
named pipe's second opening waits for a writer. What the catalogue of
``test_bad_input.py`` cannot set up is here: a named pipe with a writer
waiting on it, the ``/dev/fd/N`` of a real pipe (a shell's ``<(...)``)
handed to the command, and the check itself, which looks at a file without
opening it. The runs without ``--shard`` beside them show that the same
streams do feed a whole run, so a refusal is the check's and not the
stream's.
"""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from seqalign_cli.errors import UsageError
from seqalign_cli.io.shard import not_regular, require_file

SEQALIGN = str(Path(sys.executable).with_name("seqalign"))
NEEDS = "seqalign: error: --shard needs a regular file to count and skip records"
QUERY = b">r1\nACGTACGTAC\n>r2\nGGCATTACGA\n>r3\nTTACGATTGC\n>r4\nACCGTAGGAT\n"
TARGET = b">t1\nACGTTACGTAC\n>t2\nGGCATACGA\n>t3\nTTACGTTGC\n>t4\nACCGTAGAT\n"
#: a run's time at most: a refusal takes about a second, a wait would take for ever
LIMIT = 60


def seqalign(*args, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([SEQALIGN, *args], cwd=cwd, capture_output=True, timeout=LIMIT, **kw)


def refused(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """The one error line of a usage error, checked: exit 2, nothing on stdout, no traceback."""
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert proc.stdout == b"" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith(NEEDS), err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def names(out: bytes) -> list[str]:
    return [line.split("\t")[0] for line in out.decode().splitlines() if not line.startswith("#")]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "q.fa").write_bytes(QUERY)
    (tmp_path / "t.fa").write_bytes(TARGET)
    return tmp_path


# ----------------------------------------------------------------- a named pipe with a writer waiting


class Writer:
    """A thread that opens a named pipe for writing (it waits there for a reader) and writes ``data``."""

    def __init__(self, path: Path, data: bytes):
        self.path, self.data = path, data
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self):
        try:
            with open(self.path, "wb") as fh:
                fh.write(self.data)
        except BrokenPipeError:  # the reader went away early
            pass

    def release(self) -> bytes:
        """Read the pipe to its end (the writer, if still waiting, then finishes); what was left in it."""
        if not self.thread.is_alive():
            return b""
        with open(self.path, "rb") as fh:  # a writer waits: this opening does not
            rest = fh.read()
        self.thread.join(10)
        assert not self.thread.is_alive()
        return rest


@pytest.mark.parametrize("shard", ["1/2", "2/2"])
@pytest.mark.parametrize("workers", [None, "2"])
def test_a_fifo_with_a_writer_is_refused_without_waiting(folder, shard, workers):
    os.mkfifo(folder / "q.fifo")
    writer = Writer(folder / "q.fifo", QUERY)
    extra = ["--workers", workers] if workers else []
    proc = seqalign("pair", "-q", "--backend", "cpu", *extra, "--shard", shard, "q.fifo", "t.fa", "-o", "out.tsv",
                    cwd=folder)
    refused(proc, "reads QUERY twice", "'q.fifo' is a pipe")
    assert not (folder / "out.tsv").exists()
    assert writer.release() == QUERY  # the run never opened it: every byte is still there


def test_the_same_fifo_feeds_a_run_without_shard(folder):
    os.mkfifo(folder / "q.fifo")
    writer = Writer(folder / "q.fifo", QUERY)
    proc = seqalign("pair", "-q", "--backend", "cpu", "q.fifo", "t.fa", "-o", "out.tsv", cwd=folder)
    assert proc.returncode == 0, proc.stderr.decode()
    assert names((folder / "out.tsv").read_bytes()) == ["r1", "r2", "r3", "r4"]
    assert writer.release() == b""


# ----------------------------------------------------------------- /dev/fd/N of a real pipe (a shell's <(...))


def piped(data: bytes) -> int:
    """The reading end of a pipe that holds ``data`` and whose writing end is closed."""
    r, w = os.pipe()
    os.write(w, data)  # small: the pipe's buffer holds it
    os.close(w)
    return r


@pytest.mark.parametrize("family, args, role", [
    ("pair", ["{fd}", "t.fa"], "QUERY"),
    ("pair", ["--cross", "{fd}", "t.fa"], "QUERY"),
    ("pair", ["--interleaved", "{fd}"], "QUERY"),
    ("pair", ["--workers", "2", "{fd}", "t.fa"], "QUERY"),
    ("pair", ["--workers", "2", "--interleaved", "{fd}"], "QUERY"),
    ("pair", ["--pairs", "{fd}", "q.fa", "t.fa"], "the --pairs file"),
    ("triplet", ["{fd}", "q.fa", "t.fa"], "A"),
    ("triplet", ["--interleaved", "{fd}"], "A"),
    ("triplet", ["--workers", "2", "{fd}", "q.fa", "t.fa"], "A"),
    ("graph", ["g.gfa", "{fd}"], "READS"),
])
def test_dev_fd_of_a_pipe_is_refused(folder, family, args, role):
    (folder / "g.gfa").write_bytes(b"S\ts1\tACGTACGTAC\nS\ts2\tGGCA\nL\ts1\t+\ts2\t+\t0M\n")
    data = b"r1\tt1\nr2\tt2\n" if "--pairs" in args else QUERY
    r = piped(data)
    try:
        fd = f"/dev/fd/{r}"
        proc = seqalign(family, "-q", "--backend", "cpu", "--shard", "1/2", *[a.format(fd=fd) for a in args],
                        "-o", "out.tsv", cwd=folder, pass_fds=(r,))
        refused(proc, f"reads {role} twice", f"'{fd}' is a pipe")
        assert os.read(r, 1 << 16) == data  # nothing was read from it
    finally:
        os.close(r)
    assert sorted(p.name for p in folder.iterdir()) == ["g.gfa", "q.fa", "t.fa"]  # nothing left behind


def test_dev_fd_of_a_pipe_feeds_a_run_without_shard(folder):
    r = piped(QUERY)
    try:
        proc = seqalign("pair", "-q", "--backend", "cpu", f"/dev/fd/{r}", "t.fa", "-o", "out.tsv", cwd=folder,
                        pass_fds=(r,))
    finally:
        os.close(r)
    assert proc.returncode == 0, proc.stderr.decode()
    assert names((folder / "out.tsv").read_bytes()) == ["r1", "r2", "r3", "r4"]


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_a_target_read_once_may_be_a_pipe(folder, workers):
    """Only what is read twice must be a file: the targets of a zip pairing are skipped as they are read."""
    r = piped(TARGET)
    try:
        proc = seqalign("pair", "-q", "--backend", "cpu", *workers, "--shard", "2/2", "q.fa", f"/dev/fd/{r}",
                        "-o", "out.tsv", cwd=folder, pass_fds=(r,))
    finally:
        os.close(r)
    assert proc.returncode == 0, proc.stderr.decode()
    out = (folder / "out.tsv").read_bytes()
    assert names(out) == ["r3", "r4"] and b"\tt3\t" in out and b"\tt4\t" in out


# ----------------------------------------------------------------- the check


def test_what_a_file_is(tmp_path):
    (tmp_path / "q.fa").write_bytes(QUERY)
    (tmp_path / "q.fa.gz").write_bytes(gzip.compress(QUERY))
    os.symlink("q.fa", tmp_path / "link.fa")
    os.symlink("link.fa", tmp_path / "link2.fa")
    os.mkfifo(tmp_path / "q.fifo")
    os.symlink("q.fifo", tmp_path / "fifo.link")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "q.sock"))
        assert not_regular(str(tmp_path / "q.sock")) == "a socket"
    assert not_regular(str(tmp_path / "q.fa")) is None
    assert not_regular(str(tmp_path / "q.fa.gz")) is None
    assert not_regular(str(tmp_path / "link2.fa")) is None  # a link to a link to a regular file
    assert not_regular(str(tmp_path / "q.fifo")) == "a pipe"
    assert not_regular(str(tmp_path / "fifo.link")) == "a pipe"
    assert not_regular(str(tmp_path)) == "a directory"
    assert not_regular("/dev/null") == "a character device"
    assert not_regular("-") == "stdin"
    assert not_regular(str(tmp_path / "missing.fa")) is None  # the reader says it is missing
    r, w = os.pipe()
    try:
        assert not_regular(f"/dev/fd/{r}") == "a pipe"
    finally:
        os.close(r)
        os.close(w)


def test_the_check_never_opens_a_fifo(tmp_path):
    """A FIFO without a writer: opening it would wait for ever, looking at it returns at once."""
    os.mkfifo(tmp_path / "q.fifo")
    seen = []
    thread = threading.Thread(target=lambda: seen.append(not_regular(str(tmp_path / "q.fifo"))), daemon=True)
    thread.start()
    thread.join(10)
    assert seen == ["a pipe"]


def test_require_file(tmp_path):
    os.mkfifo(tmp_path / "q.fifo")
    (tmp_path / "q.fa").write_bytes(QUERY)
    require_file(None, str(tmp_path / "q.fifo"), "QUERY")  # no --shard: a pipe is read once
    require_file((1, 2), str(tmp_path / "q.fa"), "QUERY")
    require_file((1, 2), None, "the --pairs file")  # no such input
    odd = tmp_path / "odd\nname"
    os.mkfifo(odd)
    with pytest.raises(UsageError) as exc:
        require_file((2, 3), str(odd), "READS")
    assert exc.value.exit_code == 2 and "\n" not in str(exc.value) and "odd\\nname' is a pipe" in str(exc.value)
    with pytest.raises(UsageError) as exc:
        require_file((2, 3), str(tmp_path / "q.fifo"), "READS")
    assert exc.value.exit_code == 2 and "reads READS twice" in str(exc.value) and "is a pipe" in str(exc.value)
    with pytest.raises(UsageError) as exc:
        require_file((1, 1), "-", "A")
    assert "'-' is stdin" in str(exc.value)
