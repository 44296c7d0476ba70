"""The reference FASTA/FASTQ parser: the reader's semantics written plainly, record by record.

An oracle written apart from the reader (whole input in memory, no
compression, and no code shared with ``seqalign_cli.io.fastx``): the input is
cut into the lines a binary file yields, and an index walks that list.
Leading blank lines are skipped and the first other line picks the format.
FASTA is cut on newline + '>', a name is the header's first word, sequence
lines lose spaces, tabs, CRs and newlines. FASTQ: a header ('@' and a name),
the sequence lines up to the first line that starts with '+', then as many
quality lines as it takes to be at least as long as the sequence (fewer where
the input ends), and blank lines skipped between records. A record's
letters must then be IUPAC nucleotide codes or X (either case) and its
quality letters printable ASCII ('!' to '~'); the first record that breaks a
rule stops the reading (only the wording of the messages comes from
``seqalign_cli.io.validate``). With ``sam_names`` k, the names of records 1,
1 + k, 1 + 2k, ... must also be what SAM's QNAME holds (at most 254 bytes of
printable ASCII, not starting with '@'), checked before the letters. The
block reader must give the same records, numbers and error messages on every
input; ``rows`` holds the records read before an error.
"""

from __future__ import annotations

from seqalign_cli.errors import InputError
from seqalign_cli.io.validate import letter_message, record_label, sam_name_message, shown_char

#: the letters a sequence may hold
NUCLEOTIDES = set(b"ACGTUNRYSWKMBDHVXacgtunryswkmbdhvx")
#: the longest read name SAM holds, in bytes
QNAME_MAX = 254

Row = tuple[str, bytes, "bytes | None", int]


def _lines(data: bytes) -> list[bytes]:
    """Lines as a binary file iterates them (split on newline only, newline kept)."""
    pieces = data.split(b"\n")
    tail = pieces.pop()
    lines = [piece + b"\n" for piece in pieces]
    return lines + [tail] if tail else lines


def _blank(line: bytes) -> bool:
    return not line.strip()


def _shown(line: bytes) -> str:
    """How an unexpected line is quoted in an error: its first 20 bytes as ASCII."""
    return line[:20].decode("ascii", "replace").rstrip()


def _plus_at(lines: list[bytes], start: int) -> int | None:
    """Index of the first line at or after ``start`` that starts with '+'."""
    return next((k for k in range(start, len(lines)) if lines[k][:1] == b"+"), None)


def _quality_stop(lines: list[bytes], start: int, need: int) -> int:
    """End (exclusive) of the quality lines from ``start``: enough bytes for ``need``, or all."""
    if need <= 0:
        return start
    total = 0
    for k in range(start, len(lines)):
        total += len(lines[k].strip())
        if total >= need:
            return k + 1
    return len(lines)


def _joined(lines: list[bytes], start: int, stop: int) -> bytes:
    return b"".join(line.strip() for line in lines[start:stop])


class ReferenceReader:
    def __init__(self, data: bytes, path: str = "f", sam_names: int = 0):
        self.data = data
        self.path = path
        self.sam_names = sam_names
        self.count = 0
        #: the records read so far (all of them once ``records`` returns; those before its error)
        self.rows: list[Row] = []

    def _error(self, message: str, name: str | None = None) -> InputError:
        number = self.count + 1
        record = number if name is None else record_label(number, name)
        return InputError(message, path=self.path, record=record)

    def _check(self, name: str, seq: bytes, qual: bytes | None, fasta: bool):
        """The rules on the name, letters and qualities of the record just counted (``self.count``)."""
        raw = name.encode()
        for i, c in enumerate(raw):
            if c < 32 or c == 127:
                raise InputError(f"control character {shown_char(c)} at position {i + 1} of the record name: no "
                                 f"output format can hold it", path=self.path, record=record_label(self.count, name))
        if self.sam_names and (self.count - 1) % self.sam_names == 0:
            if len(name.encode()) > QNAME_MAX or name[:1] == "@" or any(not 33 <= ord(ch) <= 126 for ch in name):
                raise InputError(sam_name_message(name), path=self.path, record=record_label(self.count, name))
        for i, c in enumerate(seq):
            if c not in NUCLEOTIDES:
                raise InputError(letter_message(c, i + 1, fasta), path=self.path,
                                 record=record_label(self.count, name))
        for i, c in enumerate(qual or b""):
            if not 33 <= c <= 126:
                raise InputError(f"quality character {shown_char(c)} at position {i + 1} is not printable "
                                 f"ASCII ('!' to '~', 33 to 126)", path=self.path,
                                 record=record_label(self.count, name))

    def _name(self, header: bytes) -> str:
        words = header[1:].split()
        if words:
            return words[0].decode("utf-8", "replace")
        raise self._error("empty record name (a header line with no name)")

    def records(self) -> list[Row]:
        """(name, seq, qual, number) of every record; raises the reader's InputError."""
        lines = _lines(self.data)
        start = next((k for k, line in enumerate(lines) if not _blank(line)), None)
        if start is None:
            return []
        lead = lines[start][:1]
        if lead == b">":
            offset = sum(map(len, lines[:start]))
            return self._fasta(self.data[offset:])
        if lead == b"@":
            return self._fastq(lines, start)
        found = _shown(lines[start])
        raise self._error(f"expected a FASTA ('>') or FASTQ ('@') header, found {found!r}")

    def _fasta(self, text: bytes) -> list[Row]:
        """``text`` starts with '>'; every newline + '>' starts another record."""
        rows = self.rows
        for chunk in text[1:].split(b"\n>"):
            head, _, body = chunk.partition(b"\n")
            name = self._name(b">" + head)
            self.count += 1
            seq = body.translate(None, b" \t\r\n")
            self._check(name, seq, None, True)
            rows.append((name, seq, None, self.count))
        return rows

    def _fastq(self, lines: list[bytes], at: int) -> list[Row]:
        """Records from the header at ``lines[at]``; ``at`` moves past each record in turn."""
        rows = self.rows
        while at < len(lines):
            header = lines[at]
            if _blank(header):  # between records
                at += 1
                continue
            if header[:1] != b"@":
                found = _shown(header)
                raise self._error(f"expected a FASTQ header starting with '@', found {found!r}")
            name = self._name(header)
            plus = _plus_at(lines, at + 1)
            if plus is None:
                raise self._error("missing '+' line (truncated or not FASTQ)", name)
            seq = _joined(lines, at + 1, plus)
            at = _quality_stop(lines, plus + 1, len(seq))
            qual = _joined(lines, plus + 1, at)
            if len(qual) != len(seq):
                raise self._error(
                    f"quality length {len(qual)} differs from sequence length {len(seq)}", name)
            self.count += 1
            self._check(name, seq, qual, False)
            rows.append((name, seq, qual, self.count))
        return rows
