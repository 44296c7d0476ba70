"""The reference FASTA/FASTQ parser: the reader's semantics written plainly, record by record.

This is the line parser the block reader replaced (whole input in memory,
no compression): FASTA is cut on newline + '>', a name is the header's first
word, sequence lines lose spaces, tabs, CRs and newlines; FASTQ reads the
sequence lines up to the '+' line, then quality lines until they are as long,
and skips blank lines between records. The block reader must give the same
records, numbers and error messages on every input.
"""

from __future__ import annotations

from seqalign_cli.errors import InputError


def _lines(data: bytes) -> list[bytes]:
    """Lines as a binary file iterates them (split on newline only, newline kept)."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


class ReferenceReader:
    def __init__(self, data: bytes, path: str = "f"):
        self.data = data
        self.path = path
        self.count = 0

    def _error(self, message: str, name: str | None = None):
        record = self.count + 1 if name is None else f"{self.count + 1} ({name})"
        return InputError(message, path=self.path, record=record)

    def _name(self, header: bytes) -> str:
        parts = header[1:].split(None, 1)
        if not parts:
            raise self._error("empty record name (a header line with no name)")
        return parts[0].decode("utf-8", "replace")

    def records(self) -> list[tuple[str, bytes, bytes | None, int]]:
        """(name, seq, qual, number) of every record; raises the reader's InputError."""
        out: list = []
        lines = iter(_lines(self.data))
        first = b""
        at = 0
        for first in lines:
            at += len(first)
            if first.strip():
                break
        else:
            return out
        if first.startswith(b">"):
            chunk = self.data[at - len(first):]
            for rec in chunk[1:].split(b"\n>"):
                head, _, body = rec.partition(b"\n")
                name = self._name(b">" + head)
                self.count += 1
                out.append((name, body.translate(None, b" \t\r\n"), None, self.count))
            return out
        if not first.startswith(b"@"):
            shown = first[:20].decode("ascii", "replace").rstrip()
            raise self._error(f"expected a FASTA ('>') or FASTQ ('@') header, found {shown!r}")
        header = first
        while header is not None:
            if not header.startswith(b"@"):
                shown = header[:20].decode("ascii", "replace").rstrip()
                raise self._error(f"expected a FASTQ header starting with '@', found {shown!r}")
            name = self._name(header)
            seq_parts: list[bytes] = []
            for line in lines:
                if line.startswith(b"+"):
                    break
                seq_parts.append(line.strip())
            else:
                raise self._error("missing '+' line (truncated or not FASTQ)", name)
            seq = b"".join(seq_parts)
            qual_parts: list[bytes] = []
            got = 0
            while got < len(seq):
                line = next(lines, None)
                if line is None:
                    break
                part = line.strip()
                qual_parts.append(part)
                got += len(part)
            qual = b"".join(qual_parts)
            if len(qual) != len(seq):
                raise self._error(f"quality length {len(qual)} differs from sequence length {len(seq)}", name)
            self.count += 1
            out.append((name, seq, qual, self.count))
            header = None
            for line in lines:
                if line.strip():
                    header = line
                    break
        return out
