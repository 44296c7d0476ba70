"""FASTA parsed in parts side by side (``fastx.PARSE_THREADS``) gives what one thread gives: the same blocks'
records, numbers and errors, whatever the part sizes, line lengths and line ends."""

from __future__ import annotations

import random

import pytest

from seqalign_cli.errors import InputError
from seqalign_cli.io import fastx


def _fasta(rng: random.Random, n: int) -> bytes:
    out = []
    for k in range(n):
        seq = "".join(rng.choice("ACGTN") for _ in range(rng.choice([0, 1, 7, 80, 150, 700])))
        width = rng.choice([10, 60, 80, 10**6])
        end = rng.choice(["\n", "\r\n"])
        lines = [seq[i:i + width] for i in range(0, len(seq), width)] or [""]
        out.append(f">r{k} some description{end}" + "".join(line + end for line in lines if line or k % 3))
    return "".join(out).encode()


def _read(path, threads: int, block: int):
    saved = fastx.PARSE_THREADS, fastx.MIN_BLOCK
    fastx.PARSE_THREADS, fastx.MIN_BLOCK = threads, block
    rows, error = [], None
    try:
        for b in fastx.FastxReader(str(path)).blocks():
            rows += [(r.name, r.seq, r.num) for r in b.records()]
    except InputError as exc:
        error = exc.format()
    finally:
        fastx.PARSE_THREADS, fastx.MIN_BLOCK = saved
    return rows, error


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block", [64, 1000, 1 << 14])
def test_parts_parse_as_one_thread(tmp_path, seed, block):
    rng = random.Random(seed)
    path = tmp_path / "in.fa"
    path.write_bytes(_fasta(rng, 300))
    want = _read(path, 1, 1 << 21)
    assert want[1] is None and len(want[0]) == 300
    for threads in (2, 3, 4):
        assert _read(path, threads, block) == want


@pytest.mark.parametrize("bad", [5, 150, 299])
def test_an_empty_name_in_a_later_part_ends_the_records_there(tmp_path, bad):
    rng = random.Random(bad)
    text = _fasta(rng, 300).split(b">")
    text[bad + 1] = text[bad + 1][text[bad + 1].index(b" some description") + 17:]
    path = tmp_path / "in.fa"
    path.write_bytes(b">".join(text))
    want = _read(path, 1, 1 << 21)
    assert want[1] is not None and f"record {bad + 1}" in want[1]
    for threads in (2, 4):
        got = _read(path, threads, 256)
        assert got == want and len(got[0]) == bad
