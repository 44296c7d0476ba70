"""Cutting input files into pieces of whole records (``io/cut.py``), against a plain-Python count of records.

Each case cuts a file (plain: mapped byte ranges; gzip: memory files) into
pieces of k records and checks that the pieces, laid end to end, are the
file's text, that each starts at a record and holds k records (the last
what is left), and that skipping and limiting (``--shard``) take the right
records.
"""

from __future__ import annotations

import gzip
import os
import random

import pytest

from seqalign_cli.io.cut import FileCutter


def fasta(n: int, rng: random.Random) -> bytes:
    out = []
    for k in range(n):
        seq = "".join(rng.choice("ACGT") for _ in range(rng.randint(0, 150)))
        lines = [seq[i:i + 60] for i in range(0, len(seq), 60)] or [""]
        name = f"r{k} desc>with>angles" if k % 7 == 0 else f"r{k}"
        out.append(f">{name}\n" + "\n".join(lines) + "\n")
    return "".join(out).encode()


def fastq(n: int, rng: random.Random) -> bytes:
    out = []
    for k in range(n):
        seq = "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 80)))
        qual = "".join(rng.choice("@I#>+") for _ in seq)  # qualities starting with '@' or '>' too
        out.append(f"@q{k}\n{seq}\n+\n{qual}\n")
    return "".join(out).encode()


def starts(text: bytes, kind: str) -> list[int]:
    """Byte offsets of the records (a plain parser: FASTA headers at line starts, FASTQ four lines a record)."""
    lines = text.split(b"\n")
    offs, at = [], 0
    for i, line in enumerate(lines):
        if (kind == "fa" and line.startswith(b">")) or (kind == "fq" and i % 4 == 0 and line):
            offs.append(at)
        at += len(line) + 1
    return offs


def read(piece) -> bytes:
    if piece.fd >= 0:
        os.lseek(piece.fd, 0, os.SEEK_SET)
        return os.read(piece.fd, 1 << 30)
    with open(piece.path, "rb") as fh:
        fh.seek(piece.offset)
        return fh.read(piece.length)


@pytest.mark.parametrize("kind", ["fa", "fq"])
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("size,per,skip,limit", [(7, 1, 0, None), (3, 2, 0, None), (50, 1, 0, None),
                                                 (4, 1, 10, 25), (5, 1, 95, None), (1000, 1, 0, None)])
def test_pieces_are_whole_records(tmp_path, kind, packed, size, per, skip, limit):
    rng = random.Random(size * 31 + skip)
    text = fasta(100, rng) if kind == "fa" else fastq(100, rng)
    path = tmp_path / f"in.{kind}"
    path.write_bytes(gzip.compress(text) if packed else text)
    offs = starts(text, kind) + [len(text)]
    first = skip
    end = 100 if limit is None else skip + limit
    got = []
    for piece in FileCutter(str(path), size, per, skip, limit):
        assert (piece.fd >= 0) == packed
        assert piece.first == first and piece.records == min(size * per, end - first)
        data = read(piece)
        assert data == text[offs[first]:offs[first + piece.records]]
        got.append(data)
        first += piece.records
        piece.close()
    assert first == end
    assert b"".join(got) == text[offs[skip]:offs[end]]


def test_not_fastx_is_one_piece(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"hello\nworld\n")
    pieces = list(FileCutter(str(path), 10))
    assert len(pieces) == 1 and pieces[0].records == 0 and read(pieces[0]) == b"hello\nworld\n"
