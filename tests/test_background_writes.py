"""The output written by a thread of its own (``writers/background.py``): order kept, a writer's ``write``
returning while the file is busy, a write's error raised in the writer's thread, nothing left after an
error elsewhere; and a run's output the same with it."""

from __future__ import annotations

import io
import threading

import pytest

from seqalign_cli.writers.background import BackgroundWrites
from seqalign_cli.writers.output import OutputFile


class Slow(io.BytesIO):
    """A file whose writes wait for ``go`` (and fail from write ``fail`` on, with a broken pipe)."""

    def __init__(self, fail: int | None = None):
        super().__init__()
        self.go = threading.Event()
        self.calls = 0
        self.fail = fail

    def write(self, data):
        self.go.wait(10)
        self.calls += 1
        if self.fail is not None and self.calls >= self.fail:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(data)


def test_pieces_are_written_in_order_and_close_waits_for_them():
    raw = Slow()
    raw.go.set()
    out = BackgroundWrites(raw, depth=3)
    pieces = [bytes([k % 251]) * (k + 1) for k in range(200)]
    for piece in pieces:
        assert out.write(piece) == len(piece)
    out.close()
    assert raw.getvalue() == b"".join(pieces)
    assert not out.thread.is_alive()


def test_write_returns_while_the_file_is_busy_until_depth_pieces_wait():
    raw = Slow()
    out = BackgroundWrites(raw, depth=2)
    for _ in range(3):  # one taken by the thread (waiting in the file's write), two queued
        out.write(b"x")
    blocked = threading.Thread(target=out.write, args=(b"y",), daemon=True)
    blocked.start()
    blocked.join(0.3)
    assert blocked.is_alive() and raw.calls == 0  # the fourth waits for room: the file's pace
    raw.go.set()
    blocked.join(5)
    out.close()
    assert raw.getvalue() == b"xxxy"


@pytest.mark.parametrize("where", ["write", "flush", "close"])
def test_a_writes_error_is_raised_in_the_writers_thread(where):
    raw = Slow(fail=2)
    raw.go.set()
    out = BackgroundWrites(raw)
    out.write(b"a")
    out.write(b"b")  # fails in the thread
    out.queue.join()
    with pytest.raises(BrokenPipeError):
        getattr(out, where)(*((b"c",) if where == "write" else ()))
    assert raw.getvalue() == b"a"


def test_abandon_drops_what_is_queued():
    raw = Slow()
    out = BackgroundWrites(raw, depth=4)
    for piece in (b"1", b"2", b"3"):
        out.write(piece)
    out.abandon()
    raw.go.set()
    out.thread.join(5)
    assert not out.thread.is_alive() and raw.getvalue() in (b"", b"1")


@pytest.mark.parametrize("compress", [False, True])
def test_an_output_file_commits_every_byte_through_its_thread(tmp_path, compress):
    import gzip

    path = tmp_path / ("out.txt.gz" if compress else "out.txt")
    out = OutputFile(str(path))
    stream = out.open(threads=2, background=True)
    assert isinstance(out._queued, BackgroundWrites)
    data = [b"%d\tline\n" % k * 50 for k in range(2000)]
    for piece in data:
        stream.write(piece)
    out.commit()
    assert not out._queued.thread.is_alive()
    text = gzip.decompress(path.read_bytes()) if compress else path.read_bytes()
    assert text == b"".join(data)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_an_error_of_the_file_fails_the_commit_and_the_discard_removes_it(tmp_path):
    out = OutputFile(str(tmp_path / "out.tsv"))
    out.background = True  # as a GPU run sets it
    out.open().write(b"first\n")
    out._queued.queue.join()
    out._raw.close()  # the file fails under the thread (as a full disk would)
    out.open().write(b"second\n")
    with pytest.raises(ValueError):
        out.commit()
    out.discard()
    assert list(tmp_path.iterdir()) == []


def test_a_cpu_run_writes_its_file_itself(tmp_path, monkeypatch):
    """On the CPU alignment sets the pace, and a thread more only takes a core's time (1-3 % on two cores)."""
    from seqalign_cli.writers import background

    made = []
    real = background.BackgroundWrites.__init__
    monkeypatch.setattr(background.BackgroundWrites, "__init__",
                        lambda self, *a, **k: made.append(1) or real(self, *a, **k))
    opened = []
    real_open = OutputFile.open
    monkeypatch.setattr(OutputFile, "open",
                        lambda self, *a, **k: opened.append(self.background) or real_open(self, *a, **k))
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    q.write_bytes(b">a\nACGTACGT\n>b\nGGGG\n")
    t.write_bytes(b">a\nACGAACGT\n>b\nGGCG\n")
    from seqalign_cli.cli import main

    with pytest.raises(SystemExit) as end:
        main(["pair", "--backend", "cpu", str(q), str(t), "-o", str(tmp_path / "o.tsv")])
    assert end.value.code == 0
    assert opened and opened[0] is False and not made
    assert (tmp_path / "o.tsv").read_bytes().count(b"\n") >= 2


def test_a_write_after_abandon_is_refused_not_left_waiting():
    raw = Slow()
    raw.go.set()
    out = BackgroundWrites(raw, depth=1)
    out.abandon()
    out.thread.join(5)
    with pytest.raises(ValueError):
        for _ in range(3):  # more than the queue holds: a hang without the check
            out.write(b"late")


@pytest.mark.parametrize("name", ["o.tsv", "o.paf", "o.sam", "o.bam", "o.tsv.gz"])
def test_the_file_thread_writes_what_a_run_writes_itself(tmp_path, monkeypatch, name):
    """Every writer of pairs through the file thread (as a GPU run writes) gives the bytes it writes itself
    (a CPU run here: the thread forced on)."""
    import os

    from seqalign_cli.cli import main

    examples = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "examples"))
    args = ["pair", "--backend", "cpu", "-t", "2", "--mode", "glocal", "--batch-size", "300",
            os.path.join(examples, "reads.fa.gz"), os.path.join(examples, "windows.fa.gz"), "-o", name]

    def run(folder):
        folder.mkdir()
        monkeypatch.chdir(folder)  # the same command line (SAM's @PG names it)
        with pytest.raises(SystemExit) as end:
            main(args)
        assert end.value.code == 0
        return (folder / name).read_bytes()

    alone = run(tmp_path / "alone")
    made = []
    real = BackgroundWrites.__init__
    monkeypatch.setattr(BackgroundWrites, "__init__", lambda self, *a, **k: made.append(1) or real(self, *a, **k))
    monkeypatch.setattr(OutputFile, "background", property(lambda self: True, lambda self, value: None),
                        raising=False)  # on whatever the runner sets
    threaded = run(tmp_path / "threaded")
    assert made and len(alone) > 10_000
    assert threaded == alone


@pytest.mark.parametrize("fmt", ["tsv", "bam"])
def test_a_closed_stdout_ends_quietly_through_the_file_thread(fmt):
    """``seqalign pair ... | head`` with the file thread on (as a GPU run writes): exit 0, nothing on stderr."""
    import subprocess
    import sys

    from support.clidata import GQ, GT

    launch = ("from seqalign_cli.writers.output import OutputFile; "
              "OutputFile.background = property(lambda self: True, lambda self, value: None); "
              "from seqalign_cli.cli import main; main()")
    cmd = ('"$0" -c "$1" pair -q --cross --format "$2" "$3" "$4" | head -c 100 > /dev/null; '
           'exit "${PIPESTATUS[0]}"')
    proc = subprocess.run(["bash", "-c", cmd, sys.executable, launch, fmt, str(GQ), str(GT)], capture_output=True,
                          timeout=300)
    assert proc.stderr == b"", proc.stderr.decode()
    assert proc.returncode == 0
