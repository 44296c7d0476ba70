"""The output file: written under a temporary name and renamed at the end.

Nothing half-written is ever left under the final name: on error the
temporary file is removed. ``-`` writes to stdout; a ``.gz`` name is gzipped
(text formats only; BAM is compressed by itself).
"""

from __future__ import annotations

import gzip
import os
import sys
import tempfile

from ..errors import UsageError


class OutputFile:
    def __init__(self, path: str, compress: bool | None = None):
        self.path = path
        self.stdout = path == "-"
        self.compress = path.endswith(".gz") if compress is None else compress
        self.tmp_path: str | None = None
        self._raw = None
        self.stream = None
        if not self.stdout:
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                raise UsageError("output directory does not exist", path=path)
            if os.path.isdir(path):
                raise UsageError("is a directory, expected an output file name", path=path)

    def make_temp(self) -> str:
        """Create the temporary file beside the final one and return its path."""
        if self.tmp_path is None:
            folder = os.path.dirname(os.path.abspath(self.path))
            base = os.path.basename(self.path)
            try:
                fd, self.tmp_path = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
            except PermissionError:
                raise UsageError("output directory is not writable", path=self.path) from None
            os.close(fd)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.tmp_path, 0o666 & ~umask)
        return self.tmp_path

    def open(self):
        """A binary stream to write to (gzip-wrapped for .gz names)."""
        if self.stdout:
            self._raw = sys.stdout.buffer
        else:
            self._raw = open(self.make_temp(), "wb")  # noqa: SIM115
        self.stream = gzip.GzipFile(fileobj=self._raw, mode="wb") if self.compress else self._raw
        return self.stream

    def commit(self):
        """Flush and move the finished file to its final name."""
        if self.stream is not None:
            if self.stream is not self._raw:
                self.stream.close()
            self._raw.flush()
            if not self.stdout:
                self._raw.close()
        if self.tmp_path is not None:
            os.replace(self.tmp_path, self.path)
            self.tmp_path = None

    def discard(self):
        """Remove the temporary file after an error."""
        try:
            if self.stream is not None and not self.stdout:
                self._raw.close()
        except OSError:
            pass
        if self.tmp_path is not None and os.path.exists(self.tmp_path):
            os.unlink(self.tmp_path)
        self.tmp_path = None
