"""The output file: what is already there is never harmed.

* A regular file, or a name that does not exist yet: written to a temporary
  file in the same folder (``.NAME.XXXX.tmp``) and renamed onto the name at
  the end, so the name holds either what it held before or the whole new
  output. The temporary file is removed on any error and on SIGINT, SIGTERM
  and SIGHUP. A file that is replaced keeps its permission bits; a new one
  gets 0666 less the umask.
* A symbolic link to a regular file (or to a name that does not exist yet):
  the same, in the folder of the file it points to; the link stays a link.
* Anything else (``-`` for stdout, a character device such as /dev/null, a
  FIFO, ``/dev/stdout``, ``/dev/fd/N`` from process substitution, a link to
  one of those): written directly, never created, replaced or removed. A
  name of one of this process's own descriptors (``/dev/stdout``,
  ``/dev/fd/N``, ``/proc/self/fd/N``) writes to that descriptor itself.
* ``-o`` naming an input file (the same file, through any name or link) is
  a usage error before anything is read.

A ``.gz`` name is compressed as BGZF (``bgzf.py``: gzip members of at most
64 KiB, readable by any gzip reader and indexable by htslib; text formats
only, BAM is BGZF by itself). BGZF block headers name no file, so neither the
temporary name nor the final one is in the output.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile

from ..errors import UsageError
from ..interrupts import critical

#: a folder whose entries are open descriptors, once links are resolved
_FD_FOLDER = re.compile(r"/dev/fd|/proc/(self|thread-self|\d+)(/task/\d+)?/fd")


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _descriptor(path: str) -> int | None:
    """The descriptor number when ``path`` names one of this process's open descriptors
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``, also through links), else None."""
    current = os.path.abspath(path)
    for _ in range(40):  # links followed one at a time; the last one may not resolve (pipe:[N])
        folder, name = os.path.split(current)
        real_folder = os.path.realpath(folder)
        match = _FD_FOLDER.fullmatch(real_folder)
        if match and name.isdigit():
            owner = match.group(1)  # None for /dev/fd itself (a file system of its own on BSD and macOS)
            if owner in (None, "self", "thread-self") or int(owner) == os.getpid():
                return int(name)
            return None
        full = os.path.join(real_folder, name)
        if not os.path.islink(full):
            return None
        current = os.path.normpath(os.path.join(real_folder, os.readlink(full)))
    return None


def same_file(path: str, other: str) -> bool:
    """Whether two names are one existing regular file (same device and inode, links followed)."""
    try:
        a, b = os.stat(path), os.stat(other)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(a.st_mode) and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class OutputFile:
    """One run's output. ``direct``: written in place (stdout, devices, FIFOs); else through a temporary file.

    ``inputs``: the run's input files; ``-o`` naming one of them is a usage error.
    """

    def __init__(self, path: str, compress: bool | None = None, inputs=(), level: int | None = None):
        self.path = path
        #: the BGZF level of a compressed output (``bgzf``; None its default)
        self.level = level
        self.stdout = path == "-"
        self.compress = path.endswith(".gz") if compress is None else compress
        self.tmp_path: str | None = None
        self.final = path  # the regular file renamed onto at the end (a link's target for a link)
        self.fd: int | None = 1 if self.stdout else None  # one of this process's descriptors, written through
        self.mode: int | None = None  # permission bits of the file replaced, or None for a new file
        self._raw = None
        self._queued = None  # the background writes under the stream (``open``)
        self.background = False  # ``open``'s default: the backend's ``write_behind`` (``runner._run``)
        self.stream = None
        self.direct = self.stdout
        if self.stdout and sys.stdout is None:  # started with descriptor 1 closed (>&-)
            raise UsageError("standard output is closed: give the output as -o FILE")
        if not self.stdout:
            self._classify()
            for name in inputs:
                if name and name != "-" and same_file(path, name):
                    which = "an input file" if name == path else f"the input file {name}"
                    raise UsageError(f"-o names {which}; choose another output name", path=path)
        self._umask = _umask()

    def _classify(self):
        path = self.path
        fd = _descriptor(path)
        if fd is not None:
            try:
                os.fstat(fd)
            except OSError:
                raise UsageError(f"descriptor {fd} is not open", path=path) from None
            self.direct, self.fd = True, fd
            return
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        except OSError as exc:  # a loop of links, a folder that cannot be searched
            raise UsageError(f"cannot write the output: {exc.strerror or exc}", path=path) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise UsageError("is a directory, expected an output file name", path=path)
        if st is not None and not stat.S_ISREG(st.st_mode):
            self.direct = True  # a device, a FIFO, a socket: written in place
            return
        if os.path.islink(path):  # to a regular file, or to a name not there yet: the target is replaced
            self.final = os.path.realpath(path)
        if st is not None:
            self.mode = stat.S_IMODE(st.st_mode) & 0o777
        folder = os.path.dirname(os.path.abspath(self.final))
        if not os.path.isdir(folder):
            raise UsageError("output directory does not exist",
                             path=path if self.final == path else f"{path} -> {self.final}")

    def make_temp(self) -> str:
        """Create the temporary file beside the final one and return its path."""
        if self.tmp_path is None:
            folder = os.path.dirname(os.path.abspath(self.final))
            base = os.path.basename(self.final)
            with critical():  # made and recorded, or neither
                try:
                    fd, self.tmp_path = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
                except PermissionError:
                    raise UsageError("output directory is not writable", path=self.path) from None
                except OSError as exc:  # a folder files cannot be made in (/proc), a full disk: the name given
                    raise UsageError(f"cannot create the output: {exc.strerror or exc}", path=self.path) from None
            os.close(fd)
            os.chmod(self.tmp_path, self.mode if self.mode is not None else 0o666 & ~self._umask)
        return self.tmp_path

    def open(self, threads: int = 1, background: bool | None = None):
        """A binary stream to write to (BGZF for .gz names, compressed by ``threads`` threads); ``background``
        (default: the ``background`` attribute, the backend's ``write_behind``): the file written by a thread of
        its own (``background.py``; not for a caller that reuses the buffer it wrote, or writes around the
        stream, as the worker processes' output does)."""
        if self.stream is not None:
            return self.stream
        if self.stdout:
            self._raw = sys.stdout.buffer
        elif self.fd is not None:
            self._raw = os.fdopen(os.dup(self.fd), "wb")
        elif self.direct:
            self._raw = open(self.path, "wb")  # noqa: SIM115 - a device or a FIFO: nothing is created
        else:
            self._raw = open(self.make_temp(), "wb", opener=_without_truncation)  # noqa: SIM115
        sink = self._raw
        if self.background if background is None else background:
            from .background import BackgroundWrites

            sink = self._queued = BackgroundWrites(self._raw)
        if self.compress:
            # BGZF: a gzip file (multi-member) that htslib also reads by blocks; its fixed block
            # header names no file, so the temporary name never shows
            from .bgzf import BgzfWriter

            self.stream = BgzfWriter(sink, threads, self.level)
        else:
            self.stream = sink
        return self.stream

    def commit(self):
        """Flush and move the finished file to its final name."""
        if self.stream is not None:
            if self.stream is not self._raw:
                self.stream.close()
            if self._queued is not None:
                self._queued.close()  # the file's writes done (and their error raised)
            self._raw.flush()
            if not self.stdout:
                self._raw.close()
        if self.tmp_path is not None:
            with critical():  # renamed and recorded, or neither
                os.replace(self.tmp_path, self.final)
                self.tmp_path = None

    def discard(self, close: bool = True):
        """Remove the temporary file after an error (a direct output is left as it is).

        ``close=False`` (on a signal) leaves the streams open: another thread may still be
        writing to them, and the process ends at once.
        """
        with critical():
            if self.tmp_path is not None:
                try:
                    os.unlink(self.tmp_path)
                except FileNotFoundError:
                    pass
                self.tmp_path = None
        if self._queued is not None:
            self._queued.abandon()
        if not close:
            return
        try:
            if self.stream is not None and not self.stdout:
                self._raw.close()
        except (OSError, ValueError):
            pass


def _without_truncation(path: str, flags: int) -> int:
    """Opens the new (empty) temporary file as ``open(path, "wb")`` would, but without O_TRUNC: ext4 marks a
    file truncated to nothing for a flush of its delayed blocks when it is closed (``auto_da_alloc``),
    which made closing 700 MB of output take 0.1-0.3 s."""
    return os.open(path, flags & ~os.O_TRUNC)
