"""Fuzz the input readers: FASTA/FASTQ (``FastxReader``) and GFA (``load_graph``) on generated inputs, and
FASTA/FASTQ compressed as gzip, BGZF, bzip2, xz or zstd and then damaged.

Every plain case either parses to the reference readers' records (tests/support/fastx_reference.py,
tests/support/gfa_reference.py) or stops with the clean ``InputError`` they expect (see
tests/support/fuzz_inputs.py, shared with tests/test_fuzz_readers.py).

A compressed case (kinds gzip, bgzf, bzip2, xz, zstd; ``compressed``: all
five) packs records (valid ones mostly, a refused text now and then, 20-400
KB at times) in one or several members, blocks or streams (BGZF: blocks of
random sizes by ``writers.bgzf``, or htslib's through pysam), then damages
them: a byte changed in a unit's header, body or trailer (CRC, sizes), a
BGZF header field set (XLEN, the BC subfield, BSIZE), the file cut short,
trailing bytes (garbage, zeros, the start of another unit), a byte inserted
or deleted, a whole unit dropped or doubled; zstd is its magic number
before garbage where Python has no zstd decoder. The standard library's
decoder judges the result (``check_packed``): what it reads, the reader
must read to the same records; what it refuses, the reader refuses with one
line naming the file and 'corrupt <format> data' or 'truncated <format>
file' after records of the intact text (never other records, never an error
about letters or headers the intact text does not have), or reads as the
intact text. Every format is checksummed (xz with CRC32, CRC64 or SHA-256),
so damage inside the data cannot pass as other records.

Prints the counts (parsed equal, clean errors, failures) and the time; exits
1 on any failure, after printing a reproducer (seed, case number and the
input bytes) for the first failures. A case that runs past --hang seconds
stops the run at once (exit 3) with its reproducer.

    python benchmarks/fuzz_readers.py --cases 100000 --seed 1 --kind all
    python benchmarks/fuzz_readers.py --kind fastx --seed 1 --case 4711    # one case again, in full
    python benchmarks/fuzz_readers.py --kind compressed --cases 20000 --seed 3
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import io
import lzma
import os
import platform
import random
import re
import struct
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.fuzz_inputs import (EQUAL, ERROR, SIZES, SLOW_S, Failure, _check_block,  # noqa: E402
                                 _reference_fastx, make_case, mutate, reader_sizes, run_case, valid_fasta,
                                 valid_fastq, warm_up)

from seqalign_cli.errors import InputError  # noqa: E402
from seqalign_cli.io.fastx import FastxReader  # noqa: E402
from seqalign_cli.writers import bgzf as bgzf_out  # noqa: E402
from seqalign_cli.writers.bgzf import BLOCK  # noqa: E402

try:
    import pysam  # noqa: F401 - htslib's BGZF writer, where installed
    HAVE_PYSAM = True
except ImportError:
    HAVE_PYSAM = False

#: failures printed in full (the others are counted)
SHOWN = 5
#: the kinds of case: plain texts, then the compressed formats
PLAIN = ("fastx", "gfa")


def scratch() -> tempfile.TemporaryDirectory:
    """A folder for the case files, in memory where the system has one."""
    shm = "/dev/shm"
    where = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix="seqalign-fuzz-", dir=where)


class Watchdog(threading.Thread):
    """Ends the process (exit 3) with the reproducer of a case that runs longer than ``limit`` seconds."""

    def __init__(self, limit: float):
        super().__init__(daemon=True)
        self.limit = limit
        self.case = None
        self.since = 0.0

    def watch(self, case):
        self.case, self.since = case, time.monotonic()

    def run(self):
        while True:
            time.sleep(1.0)
            case = self.case
            if case is not None and time.monotonic() - self.since > self.limit:
                print(f"HANG: a case ran past {self.limit:.0f} s\n{case.reproducer()}", flush=True)
                os._exit(3)


# ------------------------------------------------------------------ compressed inputs

#: the compressed formats fuzzed, and the word the reader's messages give each (BGZF is gzip)
FORMATS = {"gzip": "gzip", "bgzf": "gzip", "bzip2": "bzip2", "xz": "xz", "zstd": "zstd"}
#: how a file's first bytes choose its reader (``fastx.open_source``'s rules): the word of the format
MAGIC = [(b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd")]
#: bytes of a unit's start and end that are its header and its trailer (checksums, sizes)
HEADER = {"gzip": 10, "bgzf": 18, "bzip2": 14, "xz": 12, "zstd": 6}
TRAILER = {"gzip": 8, "bgzf": 8, "bzip2": 10, "xz": 24, "zstd": 4}
#: xz integrity checks (CHECK_NONE left out: the data of such a stream is not checked at all)
XZ_CHECKS = [lzma.CHECK_CRC32, lzma.CHECK_CRC64, lzma.CHECK_SHA256]
_ACGT = bytes(b"ACGT"[k % 4] for k in range(256))
_QUALS = bytes(b"!#+5?@IJ~"[k % 9] for k in range(256))


def _zstd_compressor():
    try:
        from compression import zstd  # Python 3.14
        return zstd.compress
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        return None
    return zstandard.ZstdCompressor().compress


#: zstd's compressor where Python has one (then zstd inputs are read, else the reader names the format)
ZSTD = _zstd_compressor()


@dataclass
class Packed:
    """One compressed input: ``text`` packed as ``fmt`` in ``units`` (members, blocks, streams), then damaged."""

    fmt: str
    seed: int
    number: int
    text: bytes
    stored: bytes
    damage: list
    sizes: tuple = ()

    def reproducer(self) -> str:
        return (f"kind {self.fmt} seed {self.seed} case {self.number}: damage {self.damage}, sizes {self.sizes}\n"
                f"text = {_shortened(self.text)}\nstored = {_shortened(self.stored)}")


def _shortened(data: bytes, most: int = 1500) -> str:
    """``data`` as a literal, its middle left out past ``most`` bytes (the seed and number give it whole)."""
    if len(data) <= most:
        return repr(data)
    return f"{data[:most // 2]!r} + ... ({len(data)} bytes in all) ... + {data[-most // 2:]!r}"


def big_text(rng: random.Random) -> bytes:
    """Valid FASTA or FASTQ of 20 to 400 KB (several read steps of a decompressor, many BGZF blocks)."""
    fastq = rng.random() < 0.5
    out, size, want = [], 0, rng.choice([20_000, 60_000, 150_000, 400_000])
    while size < want:
        n = rng.choice([0, 50, 150, 1000, 5000])
        seq = rng.randbytes(n).translate(_ACGT)
        name = b"r%d" % len(out)
        rec = (b"@" + name + b"\n" + seq + b"\n+\n" + rng.randbytes(n).translate(_QUALS) + b"\n" if fastq
               else b">" + name + b"\n" + b"\n".join(seq[k:k + 80] for k in range(0, n, 80)) + b"\n")
        out.append(rec)
        size += len(rec)
    return b"".join(out)


def _pieces(rng: random.Random, text: bytes, most: int) -> list[bytes]:
    """``text`` cut at up to ``most - 1`` random places (pieces may be empty)."""
    cuts = sorted(rng.randint(0, len(text)) for _ in range(rng.randint(0, most - 1)))
    return [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]


def _bgzf_blocks(rng: random.Random, text: bytes) -> list[bytes]:
    """BGZF blocks of random sizes holding ``text`` (seqalign's own writer), most often with the EOF block."""
    size = max(rng.choice([1, 7, 100, 1000, 5000, BLOCK]), len(text) // 2000)  # 2,000 blocks at most
    blocks = [bgzf_out.compress_block(text[k:k + size], rng.choice([0, 1, 6, 9]))
              for k in range(0, len(text), size)]
    return blocks + ([bgzf_out.EOF] if rng.random() < 0.9 else [])


def _pysam_bgzf(text: bytes) -> list[bytes]:
    """``text`` as htslib writes it (one file, its blocks found by their sizes)."""
    import pysam

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.gz")
        with pysam.BGZFile(path, "wb") as out:
            out.write(text)
        data = Path(path).read_bytes()
    units, at = [], 0
    while at < len(data):
        size = struct.unpack_from("<H", data, at + 16)[0] + 1
        units.append(data[at:at + size])
        at += size
    return units


def _pack(rng: random.Random, fmt: str, text: bytes) -> tuple[list[bytes], bytes]:
    """``text`` compressed as ``fmt``: the units (members, blocks, streams) whose bytes follow each other, and
    the text they hold (``text``, or more where a unit was added)."""
    if fmt == "bgzf":
        if HAVE_PYSAM and rng.random() < 0.1:
            return _pysam_bgzf(text), text
        units = _bgzf_blocks(rng, text)
        if rng.random() < 0.1:  # a plain gzip member after the blocks, as cat a.fa.bgz b.fa.gz writes them
            tail = b">tail\nAC\n" if text.endswith(b"\n") and text[:1] == b">" else b""
            units.append(gzip.compress(tail, mtime=0))
            text += tail
        return units, text
    pieces = _pieces(rng, text, 4) if rng.random() < 0.25 else [text]  # concatenated members or streams
    if fmt == "gzip":
        return [gzip.compress(p, rng.choice([1, 6, 9]), mtime=0) for p in pieces], text
    if fmt == "bzip2":
        return [bz2.compress(p, rng.choice([1, 9])) for p in pieces], text
    if fmt == "xz":
        return [lzma.compress(p, check=rng.choice(XZ_CHECKS), preset=rng.choice([0, 6])) for p in pieces], text
    if ZSTD is not None and rng.random() < 0.7:
        return [ZSTD(p) for p in pieces], text
    return [b"\x28\xb5\x2f\xfd" + rng.randbytes(rng.choice([0, 1, 4, 20, 200]))], text


def _flip(rng: random.Random, data: bytes, at: int, how: str) -> bytes:
    at = max(0, min(at, len(data) - 1))
    if how == "flip":
        value = data[at] ^ (1 << rng.randrange(8))
    else:
        value = rng.choice([0, 0xFF, rng.randrange(256)])
    return data[:at] + bytes([value]) + data[at + 1:]


BGZF_FIELDS = {  # offset in a block's header: values that matter to a BGZF reader
    10: [0, 2, 4, 5, 6, 7, 8, 12, 0xFFFF],  # XLEN
    12: [int.from_bytes(b"BD", "little"), int.from_bytes(b"CB", "little"), 0],  # SI1 SI2
    14: [0, 1, 3, 4, 0xFFFF],  # SLEN
    16: [0, 1, 17, 18, 19, 25, 26, 27, 0xFFFF],  # BSIZE
}


def _damage_unit(rng: random.Random, fmt: str, unit: bytes) -> tuple[bytes, str]:
    """One unit with a byte changed in its header, body or trailer, or (BGZF) a header field set."""
    if not unit:
        return unit, "nothing"
    roll = rng.random()
    how = "flip" if rng.random() < 0.7 else "set"
    if fmt == "bgzf" and roll < 0.25 and len(unit) >= 18:
        at = rng.choice(list(BGZF_FIELDS))
        value = rng.choice(BGZF_FIELDS[at] + ([len(unit) - 2, len(unit)] if at == 16 else []))
        return unit[:at] + struct.pack("<H", value) + unit[at + 2:], f"field@{at}={value}"
    if roll < 0.4:
        at = rng.randrange(min(len(unit), HEADER[fmt]))
        return _flip(rng, unit, at, how), f"{how} header@{at}"
    if roll < 0.7:
        at = len(unit) - 1 - rng.randrange(min(len(unit), TRAILER[fmt]))
        return _flip(rng, unit, at, how), f"{how} trailer@{at}"
    at = rng.randrange(len(unit))
    return _flip(rng, unit, at, how), f"{how} body@{at}"


def _trailing(rng: random.Random, fmt: str, units: list[bytes]) -> bytes:
    roll = rng.random()
    if roll < 0.3:
        return rng.randbytes(rng.randint(1, 20))
    if roll < 0.5:
        return b"\x00" * rng.choice([1, 4, 8, 512])
    if roll < 0.75:  # the start of another unit's header (no data: the file ends inside that unit's header)
        head = (units[0] if units and units[0] else b"\x1f\x8b\x08\x04")[:HEADER[fmt]]
        return head[:rng.randint(1, len(head))]
    return next((m for m, w in MAGIC if w == FORMATS[fmt]), b"") + rng.randbytes(rng.randint(0, 30))


def damage(rng: random.Random, fmt: str, units: list[bytes]) -> tuple[bytes, list[str]]:
    """The stored bytes: ``units`` with none, one or two kinds of damage (their names listed)."""
    done = []
    roll = rng.random()
    if roll < 0.1:
        return b"".join(units), done
    if roll < 0.18 and len(units) > 1:  # a whole unit dropped or doubled: no checksum sees it, the data changes
        k = rng.randrange(len(units))
        if rng.random() < 0.5:
            return b"".join(units[:k] + units[k + 1:]), [f"unit {k} dropped"]
        return b"".join(units[:k + 1] + units[k:]), [f"unit {k} doubled"]
    units = list(units)
    for _ in range(1 if rng.random() < 0.8 else 2):
        roll = rng.random()
        if roll < 0.55 and units:
            k = rng.randrange(len(units))
            units[k], what = _damage_unit(rng, fmt, units[k])
            done.append(f"unit {k}: {what}")
        elif roll < 0.75:
            data = b"".join(units)
            cut = rng.randrange(len(data)) if data else 0
            units, what = [data[:cut]], f"cut at {cut} of {len(data)}"
            done.append(what)
        elif roll < 0.9:
            units.append(_trailing(rng, fmt, units))
            done.append(f"trailing {units[-1][:12]!r}")
        else:
            data = b"".join(units)
            at = rng.randint(0, len(data))
            if rng.random() < 0.5 or not data:
                units, what = [data[:at] + rng.randbytes(1) + data[at:]], f"byte inserted at {at}"
            else:
                at = min(at, len(data) - 1)
                units, what = [data[:at] + data[at + 1:]], f"byte deleted at {at}"
            done.append(what)
    return b"".join(units), done


def make_packed(fmt: str, seed: int, number: int) -> Packed:
    """Case ``number`` of the compressed format ``fmt`` for ``seed``: the same bytes on every run."""
    rng = random.Random(f"{fmt}/{seed}/{number}")
    roll = rng.random()
    if roll < 0.12:
        text = big_text(rng)
    else:
        text = valid_fasta(rng) if rng.random() < 0.5 else valid_fastq(rng)
        if roll > 0.85:  # a text the reader refuses: the damage must not hide its error behind another
            text = mutate(rng, text)
    units, text = _pack(rng, fmt, text)
    stored, done = damage(rng, fmt, units)
    return Packed(fmt, seed, number, text, stored, done, rng.choice(SIZES) or ())


def detected(stored: bytes) -> str | None:
    """The format the reader takes ``stored`` for (None: plain text)."""
    return next((word for magic, word in MAGIC if stored.startswith(magic)), None)


def _streams(factory, data: bytes) -> bytes:
    """Concatenated streams, each to its end, zero bytes allowed after each (as xz pads them); raises on anything
    else (``bz2.decompress`` and ``lzma.decompress`` drop a damaged stream after the first without a word)."""
    out = []
    while True:
        dec = factory()
        out.append(dec.decompress(data))
        if not dec.eof:
            raise EOFError("a stream cut short")
        data = dec.unused_data.lstrip(b"\0")
        if not data:
            return b"".join(out)


def decoded(word: str, stored: bytes) -> bytes | None:
    """What the standard library makes of ``stored`` in the format ``word``; None where it refuses it."""
    try:
        if word == "gzip":
            return gzip.decompress(stored)
        if word == "bzip2":
            return _streams(bz2.BZ2Decompressor, stored)
        if word == "xz":
            return _streams(lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ), stored)
    except Exception:  # noqa: BLE001 - any refusal of the standard decoder: a damaged stream
        return None
    return None


def decoded_before_damage(word: str, stored: bytes) -> bytes:
    """The data the standard library's streaming reader gives of ``stored`` before it fails (gzip, bzip2 and
    xz give a damaged part's data before its checksum shows the damage)."""
    opener = {"gzip": gzip.GzipFile, "bzip2": bz2.BZ2File, "xz": lzma.LZMAFile}[word]
    out = []
    try:
        with opener(fileobj=io.BytesIO(stored)) if word == "gzip" else opener(io.BytesIO(stored)) as f:
            while piece := f.read(1 << 12):
                out.append(piece)
    except Exception:  # noqa: BLE001 - the damage: what came before it is the answer
        pass
    return b"".join(out)


def _intact_records(case: Packed, word: str, path: str) -> int:
    """How many of the intact text's records must come out unchanged before an error: those wholly before
    the first byte the damage changes (after it, up to the checksum that catches it, records may be
    anything in gzip, bzip2 and xz; BGZF checks each block before giving its data)."""
    if case.fmt == "bgzf":
        return len(case.text) + 1  # all of them
    before = decoded_before_damage(word, case.stored)
    same = next((k for k, (a, b) in enumerate(zip(before, case.text)) if a != b), min(len(before), len(case.text)))
    rows, _ = _reference_fastx(case.text[:same], path, 0)
    return max(0, len(rows) - 1)  # the last may be cut by the damage


def _read_packed(case: Packed, path: str):
    """The records the reader gives (as the reference's rows), and its InputError or None."""
    rows = []
    with reader_sizes(case.sizes):
        reader = FastxReader(path)
        try:
            for block in reader.blocks():
                _check_block(block, reader, rows)
                rows.extend((rec.name, rec.seq, rec.qual, rec.num) for rec in block.records())
        except InputError as exc:
            text = exc.format()
            if not text.isprintable() or exc.path != path or not text.startswith(f"{path}: "):
                raise Failure(f"error is not one printable line naming the file first: {text!r}") from None
            return rows, exc
    return rows, None


def _same(got, exc, want, want_error) -> bool:
    """The reader's outcome is the reference's (before an error: the records of the blocks it checked whole)."""
    got_error = None if exc is None else exc.format()
    return got_error == want_error and got == (want if want_error is None else want[:len(got)])


def check_packed(case: Packed, path: str) -> str:
    """EQUAL or ERROR for the reader's outcome on ``case``; raises ``Failure`` otherwise.

    The standard library's decoder judges the stored bytes. Where it reads them, the reader must give what
    the reference gives for that text (a compressed error there is a false alarm). Where it refuses them,
    the reader gives either the records and error of the intact text, or one compressed error naming the
    format (corrupt or truncated), after records of the intact text in order: never other records, and
    never an error about the text (a letter, a header) that the intact text does not have. The count in
    the message is the count of records given.
    """
    got, exc = _read_packed(case, path)
    word = detected(case.stored)
    if word is None:  # no longer a compressed file (its magic number damaged): plain text
        want, want_error = _reference_fastx(case.stored, path, 0)
        if not _same(got, exc, want, want_error):
            raise Failure(f"read as plain text: {_outcome(got, exc)}, the reference: "
                          f"{len(want)} records, error {want_error!r}")
        return EQUAL if want_error is None else ERROR
    if word == "zstd" and ZSTD is None:
        if exc is None or got or not exc.message.startswith("zstd-compressed input"):
            raise Failure(f"zstd without a decoder: {_outcome(got, exc)}, expected the 'zstd-compressed input' error")
        return ERROR
    text = decoded(word, case.stored)
    if text is not None:
        want, want_error = _reference_fastx(text, path, 0)
        if _same(got, exc, want, want_error):
            return EQUAL if want_error is None else ERROR
        if exc is None or not _bsize_damaged(case):
            raise Failure(f"a stream the standard library reads: {_outcome(got, exc)}, the reference: "
                          f"{len(want)} records, error {want_error!r}")
        _check_damage_error(case, word, path, got, exc, want, want_error)
        return ERROR
    want, want_error = _reference_fastx(case.text, path, 0)
    if _same(got, exc, want, want_error):
        return EQUAL if want_error is None else ERROR
    if exc is None:
        raise Failure(f"a damaged {word} stream read without an error, and not as the intact text: "
                      f"{_outcome(got, exc)}, the intact text: {len(want)} records")
    _check_damage_error(case, word, path, got, exc, want, want_error)
    return ERROR


def _bsize_damaged(case: Packed) -> bool:
    """Whether the damage may have hit a BGZF block's size field (BSIZE, bytes 16-17 of its header): a file
    the gzip format still reads, whose BGZF blocks no longer hold together (htslib refuses it too)."""
    return case.fmt == "bgzf" and any(re.search(r"@1[67]\b", d) for d in case.damage)


def _check_damage_error(case: Packed, word: str, path: str, got: list, exc, want: list, want_error):
    """The reader's error on a damaged stream is one compressed error, after records of the intact text."""
    found = re.fullmatch(rf"(truncated {word} file|corrupt {word} data \(.*\)) after (\d+) complete records",
                         exc.message)
    if not found:
        raise Failure(f"a damaged {word} stream: error {exc.format()!r}, expected a 'corrupt {word}' or "
                      f"'truncated {word}' one (the intact text gives {want_error!r})")
    keep = min(len(got), _intact_records(case, word, path))
    if got[:keep] != want[:keep]:
        k = next(k for k, (a, b) in enumerate(zip(got, want + [None] * len(got))) if a != b)
        raise Failure(f"record {k + 1} before the error differs from the intact text's: {got[k]!r} against "
                      f"{want[k] if k < len(want) else None!r}")
    if int(found.group(2)) != len(got):
        raise Failure(f"error {exc.format()!r} after {len(got)} records given")


def _outcome(got: list, exc) -> str:
    return f"{len(got)} records, error {None if exc is None else exc.format()!r}"


def run_packed(case: Packed, folder) -> tuple[str, str | None]:
    """(EQUAL or ERROR, None), or ("failure", why) for the compressed ``case``, its file written in ``folder``."""
    path = str(folder / "in.packed")
    Path(path).write_bytes(case.stored)
    start = time.perf_counter()
    try:
        outcome = check_packed(case, path)
    except Failure as exc:
        return "failure", str(exc)
    except Exception:  # noqa: BLE001 - any other exception from the reader is what the fuzzer looks for
        return "failure", "exception other than InputError:\n" + traceback.format_exc(limit=-4)
    took = time.perf_counter() - start
    if took > SLOW_S:
        return "failure", f"took {took:.1f} s"
    return outcome, None


def make_any(kind: str, seed: int, number: int):
    return make_packed(kind, seed, number) if kind in FORMATS else make_case(kind, seed, number)


def run_any(case, folder) -> tuple[str, str | None]:
    return run_packed(case, folder) if isinstance(case, Packed) else run_case(case, folder)


def kinds_of(kind: str) -> list[str]:
    if kind == "all":
        return [*PLAIN, *FORMATS]
    return list(FORMATS) if kind == "compressed" else [kind]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000, help="cases in all (split evenly between the kinds)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", choices=[*PLAIN, *FORMATS, "compressed", "all"], default="all")
    ap.add_argument("--case", type=int, help="run this case number alone and print it in full")
    ap.add_argument("--hang", type=float, default=60.0, help="seconds after which a case counts as a hang")
    args = ap.parse_args(argv)
    kinds = kinds_of(args.kind)

    with scratch() as folder:
        folder = Path(folder)
        broken = warm_up(folder)  # compile (or load) the readers' compiled code before the clock starts
        if broken:
            print("FAILURE on a fixed warm-up input: " + "\n".join(broken))
            return 1
        if args.case is not None:
            for kind in kinds:
                case = make_any(kind, args.seed, args.case)
                outcome, why = run_any(case, folder)
                print(f"{case.reproducer()}\noutcome: {outcome}")
                if why:
                    print(why)
            return 0
        watchdog = Watchdog(args.hang)
        watchdog.start()
        counts = {(kind, outcome): 0 for kind in kinds for outcome in (EQUAL, ERROR, "failure")}
        shown = 0
        start = time.perf_counter()
        for k in range(args.cases):
            kind = kinds[k % len(kinds)]
            number = k // len(kinds)
            case = make_any(kind, args.seed, number)
            watchdog.watch(case)
            outcome, why = run_any(case, folder)
            counts[kind, outcome] += 1
            if why and shown < SHOWN:
                shown += 1
                print(f"FAILURE: {why}\nreproduce: python benchmarks/fuzz_readers.py --kind {kind} "
                      f"--seed {args.seed} --case {number}\n{case.reproducer()[:3000]}\n", flush=True)
        took = time.perf_counter() - start
        watchdog.watch(None)

    print(f"fuzz_readers: seed {args.seed}, {args.cases} cases, {took:.1f} s "
          f"({1e3 * took / max(1, args.cases):.2f} ms a case), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs")
    print("kind    cases  parsed equal  clean errors  failures")
    for kind in kinds:
        row = [counts[kind, o] for o in (EQUAL, ERROR, "failure")]
        print(f"{kind:6} {sum(row):7} {row[0]:13} {row[1]:13} {row[2]:9}")
    failures = sum(counts[kind, "failure"] for kind in kinds)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
