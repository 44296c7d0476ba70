"""Compressed inputs: BGZF (bgzip) inflated block by block on threads (``io/bgzf.py``), gzip, bzip2 and xz
read as plain text, and one message a truncated or damaged file, naming its format; zstd named where
Python cannot read it."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pysam
import pytest

from seqalign_cli.errors import InputError
from seqalign_cli.io.bgzf import GROUP, BgzfInput
from seqalign_cli.io.fastx import FastxReader, open_binary

from support.clidata import GQ, GT


@pytest.fixture(scope="module")
def bgzipped(tmp_path_factory):
    """The 200 GASAL2 targets written 100 times (about 4.3 MB: many BGZF blocks, several groups), plain and bgzip."""
    folder = tmp_path_factory.mktemp("bgzf")
    plain = folder / "t.fa"
    plain.write_bytes(gzip.decompress(GT.read_bytes()) * 100)
    pysam.tabix_compress(str(plain), str(folder / "t.fa.gz"), force=True)
    return plain, folder / "t.fa.gz"


def test_bgzf_reads_as_plain(bgzipped):
    plain, packed = bgzipped
    stream = open_binary(str(packed))
    assert isinstance(stream.raw.inner, BgzfInput)
    data = stream.read()
    assert data == plain.read_bytes()
    assert len(data) > 3 * GROUP * 0xFF00  # several groups of blocks in flight


def test_bgzf_records_equal_plain(bgzipped):
    plain, packed = bgzipped
    a = [(r.name, r.seq) for r in FastxReader(str(plain))]
    b = [(r.name, r.seq) for r in FastxReader(str(packed))]
    assert a == b and len(a) == 20000


def test_truncated_and_damaged_bgzf(bgzipped, tmp_path):
    _, packed = bgzipped
    data = packed.read_bytes()
    (tmp_path / "cut.gz").write_bytes(data[:len(data) // 2])
    damaged = bytearray(data)
    damaged[len(data) // 3] ^= 0xFF
    (tmp_path / "bad.gz").write_bytes(bytes(damaged))
    with pytest.raises(InputError, match="truncated gzip file after [0-9]+ complete records"):
        for _ in FastxReader(str(tmp_path / "cut.gz")).blocks():
            pass
    with pytest.raises(InputError, match="corrupt gzip data"):
        for _ in FastxReader(str(tmp_path / "bad.gz")).blocks():
            pass


def test_plain_gzip_is_not_bgzf(tmp_path):
    (tmp_path / "q.fa.gz").write_bytes(GQ.read_bytes())
    stream = open_binary(str(tmp_path / "q.fa.gz"))
    assert not isinstance(stream.raw.inner, BgzfInput)
    assert stream.read() == gzip.decompress(GQ.read_bytes())


@pytest.mark.parametrize("fmt,pack", [("gzip", gzip.compress), ("bzip2", bz2.compress), ("xz", lzma.compress)])
def test_other_compressions(tmp_path, bgzipped, fmt, pack):
    plain, _ = bgzipped
    text = plain.read_bytes()
    data = pack(text)
    (tmp_path / "whole").write_bytes(data)
    assert open_binary(str(tmp_path / "whole")).read() == text
    (tmp_path / "cut").write_bytes(data[:len(data) // 2])
    with pytest.raises(InputError, match=f"cut: truncated {fmt} file after [0-9]+ complete records"):
        for _ in FastxReader(str(tmp_path / "cut")).blocks():
            pass
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0xFF
    (tmp_path / "bad").write_bytes(bytes(damaged))
    with pytest.raises(InputError) as exc:
        for _ in FastxReader(str(tmp_path / "bad")).blocks():
            pass
    assert f"bad: corrupt {fmt} data" in str(exc.value), str(exc.value)


def test_zstd_is_named(tmp_path):
    (tmp_path / "x.fa.zst").write_bytes(bytes.fromhex("28b52ffd") + b"\0" * 32)
    try:
        from compression import zstd  # noqa: F401
    except ImportError:
        try:
            import zstandard  # noqa: F401
        except ImportError:
            with pytest.raises(InputError, match="zstd-compressed input"):
                open_binary(str(tmp_path / "x.fa.zst"))
            return
    with pytest.raises(InputError, match="zstd"):
        for _ in FastxReader(str(tmp_path / "x.fa.zst")).blocks():
            pass
