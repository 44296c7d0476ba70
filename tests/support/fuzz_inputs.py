"""Fuzzing the readers: generated inputs, and the check of one input against the reference readers.

Shared by ``tests/test_fuzz_readers.py`` (a few thousand inputs, fixed seeds)
and ``benchmarks/fuzz_readers.py`` (100,000 and more). A case is made by
``make_case(kind, seed, number)`` from a ``random.Random`` seeded by those
three alone, so that a seed and a case number reproduce it.

Inputs start from valid records (FASTA, FASTQ, GFA) and are mutated a few
times (bytes inserted, replaced or deleted from a set of interesting bytes,
spans duplicated, lines swapped, dropped or doubled, CRLF, blank lines,
truncation, a missing final newline, very long names; for GFA also tabs
turned into spaces, '*' sequences, bad overlaps, missing segments,
self-loops and reversed links), or are random bytes. The file holds them
plain, gzip-compressed, in several gzip members (as bgzip writes them), or
as a gzip stream cut short or with a byte changed. FASTA/FASTQ are read
with the reader's normal block sizes or tiny ones (records straddle every
block boundary), and sometimes with SAM's name rules.

``run_case`` reads the file with the reader under test and gives one of:

* ``EQUAL``: the reader gives the reference's records (FASTA/FASTQ:
  ``fastx_reference``; GFA: ``gfa_reference``, graph and all);
* ``ERROR``: the reader stops with the error the reference expects: an
  ``InputError`` whose message is one printable line naming the file and
  the record (FASTA/FASTQ: the reference's message, word for word) or the
  line (GFA: the line and the kind of fault);
* a failure, described in words: another exception, a different result,
  an error where the reference reads records, records where it finds an
  error, or a case slower than ``SLOW_S``.

A gzip stream the standard library cannot decompress must give an error;
a stream cut short must give, before it, records of the intact text in
order, and the intact text's own error if it is not the gzip one.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass

from seqalign_cli.errors import InputError
from seqalign_cli.io import fastx
from seqalign_cli.io.fastx import FastxReader
from seqalign_cli.families.graph.chunks_gfa import load_graph
from seqalign_cli.io.validate import letter_message
from support.fastx_reference import ReferenceReader
from support.gfa_reference import GfaFault, read_gfa
from support.graph_oracles import encode, slot_plan

EQUAL, ERROR = "equal", "error"
#: a case taking longer than this (seconds) is a failure: the readers are linear
SLOW_S = 5.0

# ------------------------------------------------------------------ interesting bytes

IUPAC = b"ACGTUNRYSWKMBDHVXacgtunryswkmbdhvx"
NOT_IUPAC = b"EFIJLOPQZefijlopqz"
DIGITS = b"0123456789"
CONTROL = b"\x00\x01\x07\x08\x0b\x0c\x1b\x1f\x7f"
HIGH = [b"\x80", b"\xff", b"\xfe", b"\xc3\xa9", b"\xe2\x80\xa8", b"\xef\xbb\xbf", b"\xc3"]
#: bytes and short strings that mean something to a FASTA/FASTQ or GFA reader
TOKENS = [b">", b"@", b"+", b"\r", b"\n", b"\t", b" ", b"*", b"-", b".", b"~", b"!", b"\r\n", b"\n\n",
          b"\n>", b"\n@", b"\n+\n", b"\n+", b">\n", b"@\n", b" \t ", b"\x0b", b"\x0c"] + HIGH
GFA_TOKENS = [b"S\t", b"L\t", b"\tS\t", b"\tL\t", b"0M", b"5M", b"*", b"+", b"-", b"\t+\t", b"\t-\t",
              b"H\tVN:Z:1.0\n", b"\nS\tx\tAC\n", b"\nL\t", b"\tID:Z:1"]


def _token(rng: random.Random, gfa: bool = False) -> bytes:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(TOKENS)
    if roll < 0.5:
        return bytes([rng.choice(IUPAC)])
    if roll < 0.6:
        return bytes([rng.choice(NOT_IUPAC)])
    if roll < 0.67:
        return bytes([rng.choice(DIGITS)])
    if roll < 0.75:
        return bytes([rng.choice(CONTROL)])
    if gfa and roll < 0.9:
        return rng.choice(GFA_TOKENS)
    return bytes([rng.randrange(256)])


# ------------------------------------------------------------------ valid records

NAME_PARTS = [b"r", b"read_1", b"x", b"chr1:1-9", b"SRR1.7/1", b"\xc3\xa9", b"\xff", b">", b"@", b"+", b"*",
              b"1", b"{a}", b"-"]


def _name(rng: random.Random) -> bytes:
    name = b"".join(rng.choice(NAME_PARTS) for _ in range(rng.randint(1, 3)))
    roll = rng.random()
    if roll < 0.02:
        name = b"n" * rng.choice([254, 255, 1000, 5000])
    elif roll < 0.25:
        name += rng.choice([b" ", b"\t", b"  "]) + b"desc " + rng.choice(NAME_PARTS)
    return name


def _letters(rng: random.Random, n: int) -> bytes:
    alphabet = b"ACGT" if rng.random() < 0.6 else IUPAC
    return bytes(rng.choice(alphabet) for _ in range(n))


def _length(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.1:
        return 0
    if roll < 0.97:
        return rng.randint(1, 40)
    return rng.randint(100, 3000)


def _wrapped(text: bytes, width: int) -> list[bytes]:
    return [text[k:k + width] for k in range(0, len(text), width)] or [b""]


def valid_fasta(rng: random.Random) -> bytes:
    eol = b"\r\n" if rng.random() < 0.15 else b"\n"
    out = [b"\n" * rng.randint(1, 2)] if rng.random() < 0.1 else []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 5, 8])):
        out.append(b">" + _name(rng) + eol)
        seq = _letters(rng, _length(rng))
        if seq or rng.random() < 0.5:
            out.extend(line + eol for line in _wrapped(seq, rng.choice([5, 17, 60, 80, 10_000])))
        if rng.random() < 0.1:
            out.append(eol)
    return b"".join(out)


def valid_fastq(rng: random.Random) -> bytes:
    eol = b"\r\n" if rng.random() < 0.15 else b"\n"
    out = [b"\n"] if rng.random() < 0.05 else []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 5, 8])):
        name = _name(rng)
        seq = _letters(rng, _length(rng))
        qual = bytes(rng.choice(b"!#+5?@IJ~" if rng.random() < 0.7 else range(33, 127)) for _ in seq)
        out.append(b"@" + name + eol)
        if seq and rng.random() < 0.15:  # multi-line sequence and quality
            out.extend(line + eol for line in _wrapped(seq, rng.randint(1, max(1, len(seq)))))
            out.append(b"+" + eol)
            out.extend(line + eol for line in _wrapped(qual, rng.randint(1, max(1, len(qual)))))
        else:
            out.append(seq + eol + b"+" + rng.choice([b"", b"", name]) + eol)
            if seq or rng.random() < 0.3:
                out.append(qual + eol)
        if rng.random() < 0.05:
            out.append(eol)
    return b"".join(out)


SEGMENT_NAMES = [b"s{}", b"{}", b"utig4-{}", b"chr1:{}", b"\xc3\xa9{}", b"a b{}", b"{}>x", b"*{}", b"+{}",
                 b"n{}\xff", b"x\x1b{}"]


def valid_gfa(rng: random.Random) -> bytes:
    n = rng.randint(1, 8)
    style = rng.choice(SEGMENT_NAMES[:4] if rng.random() < 0.7 else SEGMENT_NAMES)
    names = [style.replace(b"{}", str(k).encode()) for k in range(n)]
    lines = []
    for name in names:
        seq = _letters(rng, rng.randint(1, 12)) if rng.random() < 0.97 else _letters(rng, 500)
        tags = rng.choice([b"", b"", b"\tLN:i:" + str(len(seq)).encode(), b"\tSN:Z:chr1\tSO:i:0"])
        lines.append(b"S\t" + name + b"\t" + seq + tags)
    if rng.random() < 0.04:  # a segment without its sequence, as some assemblers write them
        lines[rng.randrange(n)] = b"S\t" + rng.choice(names) + b"\t*\tLN:i:5"
    inversions = rng.random() < 0.5
    for _ in range(rng.randint(0, 2 * n)):
        i, j = sorted(rng.sample(range(n), 2)) if n > 1 else (0, 0)
        oa = ob = b"+"
        if inversions and rng.random() < 0.4:
            oa, ob = rng.choice([b"+", b"-"]), rng.choice([b"+", b"-"])
        elif rng.random() < 0.3:  # the same link written from the other strand
            i, j, oa, ob = j, i, b"-", b"-"
        tags = rng.choice([b"", b"", b"\tID:Z:e1"])
        lines.append(b"L\t" + names[i] + b"\t" + oa + b"\t" + names[j] + b"\t" + ob + b"\t"
                     + rng.choice([b"0M", b"*"]) + tags)
    extras = [b"H\tVN:Z:1.0", b"P\tp1\t" + names[0] + b"+\t*", b"W\tsample\t0\tchr1\t0\t5\t>" + names[0],
              b"# a comment", b"", b"X\tunknown\tline", b"C\ta\t+\tb\t+\t0\t*", b"SX\tnot a segment"]
    lines.extend(rng.sample(extras, rng.randint(0, 3)))
    if rng.random() < 0.7:
        rng.shuffle(lines)
    eol = b"\r\n" if rng.random() < 0.15 else b"\n"
    return eol.join(lines) + (eol if rng.random() < 0.9 else b"")


def random_bytes(rng: random.Random, gfa: bool = False) -> bytes:
    n = rng.choice([0, 1, 2, 5, 20, 100, 400])
    if rng.random() < 0.5:
        data = bytes(rng.randrange(256) for _ in range(n))
    else:
        data = b"".join(_token(rng, gfa) for _ in range(n))
    if rng.random() < 0.5:
        data = rng.choice([b"S\t" if gfa else b">", b"L\t" if gfa else b"@", b"\x1f\x8b"]) + data
    return data


# ------------------------------------------------------------------ mutations

def mutate(rng: random.Random, data: bytes, gfa: bool = False) -> bytes:
    """``data`` with one random change."""
    n = len(data)
    pos = rng.randint(0, n)
    roll = rng.random()
    if roll < 0.22:
        return data[:pos] + _token(rng, gfa) + data[pos:]
    if roll < 0.38 and n:
        pos = min(pos, n - 1)
        return data[:pos] + _token(rng, gfa) + data[pos + 1:]
    if roll < 0.48 and n:
        return data[:pos] + data[pos + rng.randint(1, 8):]
    if roll < 0.52 and n:
        a = rng.randrange(n)
        piece = data[a:a + rng.randint(1, 40)]
        return data[:pos] + piece + data[pos:]
    if roll < 0.57 and n:
        return data[:rng.randrange(n)]
    if roll < 0.62:
        return data.rstrip(b"\r\n") if data.endswith(b"\n") else data + b"\n"
    if roll < 0.66:
        return data.replace(b"\n", b"\r\n") if rng.random() < 0.5 else data.replace(b"\r\n", b"\n")
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    if roll < 0.71:
        lines.insert(k, rng.choice([b"", b" ", b"\t", b"\r"]))
    elif roll < 0.75 and len(lines) > 1:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif roll < 0.79:
        del lines[k]
    elif roll < 0.83:
        lines.insert(k, lines[k])
    elif roll < 0.86:  # a very long name
        head = b"\t" if gfa else rng.choice([b">", b"@"])
        lines[k] = lines[k][:1] + head + b"n" * rng.choice([255, 1000, 20_000]) + lines[k][1:]
    elif gfa:
        lines[k] = _mutate_gfa_line(rng, lines[k], lines)
    else:  # a FASTQ record pasted into FASTA or the reverse, a quality line that looks like a header
        lines.insert(k, rng.choice([b"@r\nACGT\n+\nIIII", b">r\nACGT", b"+", b"@IIII", b"+r", b">"]))
    return b"\n".join(lines)


def _mutate_gfa_line(rng: random.Random, line: bytes, lines: list[bytes]) -> bytes:
    f = line.split(b"\t")
    names = [g.split(b"\t")[1] for g in lines if g.startswith(b"S\t") and g.count(b"\t") >= 2]
    roll = rng.random()
    if roll < 0.2:
        return line.replace(b"\t", rng.choice([b" ", b"  ", b"\t\t"]))
    if roll < 0.3 and f[0] == b"S" and len(f) > 2:
        f[2] = rng.choice([b"*", b"*", b"*", b"", b"", b"AC*", b"ACG-T", b"U" * rng.randint(1, 5)])
    elif roll < 0.4 and f[0] == b"L" and len(f) > 5:
        f[5] = rng.choice([b"5M", b"0M1I", b"", b"*", b"0m", b"0M "])
    elif roll < 0.5 and f[0] == b"L" and len(f) > 4:
        f[rng.choice([2, 4])] = rng.choice([b"+-", b"", b"x", b" +", b"-"])
    elif roll < 0.6 and f[0] == b"L" and len(f) > 3:
        f[rng.choice([1, 3])] = rng.choice([b"missing", b"", b"s99"])
    elif roll < 0.8 and names:  # a self-loop or a reversed link: cycles
        a, b = rng.choice(names), rng.choice(names)
        oa, ob = rng.choice([b"+", b"-"]), rng.choice([b"+", b"-"])
        return line + b"\nL\t" + a + b"\t" + oa + b"\t" + (a if rng.random() < 0.3 else b) + b"\t" + ob + b"\t0M"
    elif names:  # a second S line for a name
        return line + b"\nS\t" + rng.choice(names) + b"\tACGT"
    return b"\t".join(f)


# ------------------------------------------------------------------ cases

@dataclass
class Case:
    """One input and how it is read."""

    kind: str  # "fastx" or "gfa"
    seed: int
    number: int
    text: bytes  # the text, before any compression
    stored: bytes  # the file's bytes
    packing: str  # plain, gzip, bgzip, cut-gzip, bad-gzip
    #: FASTA/FASTQ: (READ_SIZE, MIN_BLOCK, SLOW_BLOCK) of the reader, and its SAM name rule (0: none)
    sizes: tuple = ()
    sam_names: int = 0
    #: GFA: the forward strand alone
    forward_only: bool = False

    def reproducer(self) -> str:
        stored = "" if self.stored == self.text else f"\nstored = {self.stored!r}"
        return (f"kind {self.kind} seed {self.seed} case {self.number}: packing {self.packing}, "
                f"sizes {self.sizes}, sam_names {self.sam_names}, forward_only {self.forward_only}\n"
                f"text = {self.text!r}{stored}")


SIZES = [None, (16, 5, 2), (1, 1, 1), (64, 17, 3), (3, 2, 4096)]


def _pack(rng: random.Random, text: bytes) -> tuple[bytes, str]:
    roll = rng.random()
    if roll < 0.7 or text[:2] == b"\x1f\x8b":
        return text, "plain"
    if roll < 0.8:
        return gzip.compress(text, mtime=0), "gzip"
    if roll < 0.9:  # members of a few bytes each, as bgzip writes blocks
        cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(1, 4))))
        pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
        return b"".join(gzip.compress(p, mtime=0) for p in pieces), "bgzip"
    packed = gzip.compress(text, mtime=0)
    if roll < 0.95:
        return packed[:rng.randrange(len(packed))], "cut-gzip"
    k = rng.randrange(len(packed))
    packed = packed[:k] + bytes([packed[k] ^ (1 << rng.randrange(8))]) + packed[k + 1:]
    return (packed + random_bytes(rng)[:8] if rng.random() < 0.3 else packed), "bad-gzip"


def make_case(kind: str, seed: int, number: int) -> Case:
    """Case ``number`` of ``kind`` ('fastx' or 'gfa') for ``seed``: the same bytes on every run."""
    rng = random.Random(f"{kind}/{seed}/{number}")
    gfa = kind == "gfa"
    if rng.random() < 0.1:
        text = random_bytes(rng, gfa)
    else:
        text = valid_gfa(rng) if gfa else (valid_fasta(rng) if rng.random() < 0.5 else valid_fastq(rng))
        for _ in range(rng.choice([0, 0, 1, 1, 1, 2, 3, 5])):
            text = mutate(rng, text, gfa)
    stored, packing = _pack(rng, text)
    if gfa:
        return Case(kind, seed, number, text, stored, packing, forward_only=rng.random() < 0.3)
    sam = rng.choice([0, 0, 0, 1, 2])
    return Case(kind, seed, number, text, stored, packing, rng.choice(SIZES) or (), sam)


# ------------------------------------------------------------------ running a case

class Failure(Exception):
    """The reader broke the property on a case (the message says how)."""


@contextmanager
def reader_sizes(sizes: tuple):
    """The FASTA/FASTQ reader with other block sizes for a while (``()``: its own)."""
    if not sizes:
        yield
        return
    saved = fastx.READ_SIZE, fastx.MIN_BLOCK, fastx.SLOW_BLOCK
    fastx.READ_SIZE, fastx.MIN_BLOCK, fastx.SLOW_BLOCK = sizes
    try:
        yield
    finally:
        fastx.READ_SIZE, fastx.MIN_BLOCK, fastx.SLOW_BLOCK = saved


def _clean(exc: InputError, path: str, where: str):
    """The error is one printable line starting with the file, naming ``where`` (a record or a line)."""
    text = exc.format()
    if not text.isprintable():
        raise Failure(f"error message is not one printable line: {text!r}")
    if exc.path != path or not text.startswith(f"{path}: "):
        raise Failure(f"error does not name the file first: {text!r}")
    if where == "record" and exc.record is None and "gzip" not in exc.message:
        raise Failure(f"error names no record: {text!r}")
    if where == "line" and exc.line is None and not re.match(r"no segments|truncated gzip|corrupt gzip|\d+ bases",
                                                            exc.message):
        raise Failure(f"error names no line: {text!r}")


def _reference_fastx(text: bytes, path: str, sam_names: int):
    ref = ReferenceReader(text, path, sam_names)
    try:
        ref.records()
    except InputError as exc:
        return ref.rows, exc.format()
    return ref.rows, None


def _check_block(block, reader: FastxReader, rows: list):
    """What every block promises: records, offsets from 0, qualities for FASTQ alone, numbers in file order."""
    n = len(block)
    if not n or block.seq_off[0] != 0 or block.name_off[0] != 0 or len(block.num) != n:
        raise Failure(f"a malformed block: {n} records, offsets from {block.seq_off[:1]}, {len(block.num)} numbers")
    if (block.qual is None) != reader.fasta or (block.qual is not None and len(block.qual) != len(block.seq)):
        raise Failure(f"block qualities {block.qual!r} in a {'FASTA' if reader.fasta else 'FASTQ'} input")
    if block.num.tolist() != list(range(len(rows) + 1, len(rows) + n + 1)):
        raise Failure(f"block numbers {block.num.tolist()} after {len(rows)} records")


def _read_fastx(case: Case, path: str):
    rows = []
    with reader_sizes(case.sizes):
        reader = FastxReader(path, case.sam_names)
        try:
            for block in reader.blocks():
                _check_block(block, reader, rows)
                rows.extend((rec.name, rec.seq, rec.qual, rec.num) for rec in block.records())
        except InputError as exc:
            _clean(exc, path, "record")
            return rows, exc
    if reader.count != len(rows):
        raise Failure(f"the reader counts {reader.count} records and gave {len(rows)}")
    return rows, None


def _gunzipped(stored: bytes) -> bytes | None:
    try:
        return gzip.decompress(stored)
    except Exception:  # noqa: BLE001 - any failure of the standard decoder: a broken stream
        return None


def check_fastx(case: Case, path: str) -> str:
    got, exc = _read_fastx(case, path)
    text = _gunzipped(case.stored) if case.stored[:2] == b"\x1f\x8b" else case.stored
    if text is None:
        # a broken gzip stream: an error, after records the intact text also gives (a cut stream: in order)
        if exc is None:
            raise Failure(f"{len(got)} records and no error from a broken gzip stream")
        if case.packing == "cut-gzip":
            want, want_error = _reference_fastx(case.text, path, case.sam_names)
            if got != want[:len(got)]:
                raise Failure(f"records before the error differ from the intact text's: {got!r} vs {want!r}")
            if "gzip" not in exc.message and exc.format() != want_error:
                raise Failure(f"error {exc.format()!r}, the intact text gives {want_error!r}")
        return ERROR
    want, want_error = _reference_fastx(text, path, case.sam_names)
    got_error = None if exc is None else exc.format()
    if got_error != want_error:
        raise Failure(f"error {got_error!r}, expected {want_error!r}")
    # before an error, the records of the blocks checked whole (those of the failing block are not given)
    if got != (want if want_error is None else want[:len(got)]):
        raise Failure(f"records differ:\n got  {got!r}\n want {want!r}")
    return EQUAL if want_error is None else ERROR


#: how each kind of GFA fault is worded (the start of the message, or a pattern in it)
GFA_WORDING = {
    "S fields": r"malformed S line: expected",
    "L fields": r"malformed L line: expected",
    "empty name": r"malformed [SL] line: an empty segment name",
    "no sequence": r"segment .* has no sequence \('\*'\)",
    "empty sequence": r"segment .* has an empty sequence",
    "duplicate": r"duplicate segment name .* \(first on line \d+\)",
    "orientation": r"malformed L line: orientation .* is not '\+' or '-'",
    "overlap": r"overlap .* is not supported: only 0M or \*",
    "no segments": r"no segments",
    "letter": r"segment .*: invalid sequence character",
    "missing": r"link to a missing segment ",
    "cycle": r"cycle through segment .*: the oriented graph must be acyclic",
    "gzip": r"(truncated gzip file|corrupt gzip data)",
    "gfa2": r"GFA2 is not supported \(GFA 1 only\): ",
    "name": r"segment name .* holds ",
}


def _shown_name(name: bytes) -> str:
    """A segment name as a message shows it: escaped where not printable, cut past 40 characters."""
    text = name.decode("utf-8", "replace")
    text = text if text.isprintable() else ascii(text)[1:-1]
    return text if len(text) <= 40 else text[:37] + "..."


def _check_gfa_error(exc: InputError, fault: GfaFault, path: str):
    _clean(exc, path, "line")
    kinds = [k for k in fault.kinds if re.match(GFA_WORDING[k], exc.message)]
    if not kinds:
        raise Failure(f"error {exc.format()!r}, expected one of {sorted(fault.kinds)} (line {fault.line})")
    if "cycle" in kinds:
        if exc.line not in fault.lines:
            raise Failure(f"error {exc.format()!r} names line {exc.line}; links on the cycle: {sorted(fault.lines)}")
        want = f"cycle through segment {_shown_name(fault.detail['cycle'])}:"
        if not exc.message.startswith(want):
            raise Failure(f"error {exc.format()!r}, expected {want!r}")
        return
    if exc.line != fault.line:
        raise Failure(f"error {exc.format()!r} names line {exc.line}, expected line {fault.line}")
    if "letter" in kinds:
        name, c, pos = fault.detail["letter"]
        want = f"segment {_shown_name(name)}: {letter_message(c, pos)}"
        if exc.message != want:
            raise Failure(f"error {exc.format()!r}, expected {want!r}")
    if "name" in kinds:
        name, c, pos = fault.detail["name"]
        if not exc.message.startswith(f"segment name {_shown_name(name)} holds ") or f" at position {pos}" \
                not in exc.message:
            raise Failure(f"error {exc.format()!r}, expected segment name {_shown_name(name)} at position {pos}")
    if "missing" in kinds and exc.message != f"link to a missing segment {_shown_name(fault.detail['missing'])} " \
                                              f"(no S line names it)":
        raise Failure(f"error {exc.format()!r} names another segment than {fault.detail['missing']!r}")


def _compare_graph(g, want):
    o = want.graph
    names = [n.decode("utf-8", "replace") for n in want.names]
    checks = [
        ("segment names", g.names, names),
        ("segment lengths", g.seg_len.tolist(), [len(s) for s in want.seqs]),
        ("base nodes", g.node.tolist(), o.base_node),
        ("base offsets", g.offset.tolist(), o.base_offset),
        ("codes", g.codes.tolist(), encode(o.bases)),
        ("predecessors", [g.preds(v).tolist() for v in range(g.n_bases)], o.preds),
        ("sources", g.source.tolist(), o.source),
        ("sinks", g.sink.tolist(), o.sink),
        ("slots", (g.slot.tolist(), g.n_slots), slot_plan(o.preds)),
    ]
    for what, got, expected in checks:
        if got != expected:
            if isinstance(got, list) and isinstance(expected, list):
                k = next((k for k, (x, y) in enumerate(zip(got, expected)) if x != y), min(len(got), len(expected)))
                raise Failure(f"graph {what} differ from item {k} on (of {len(got)} and {len(expected)}): "
                              f"{got[k:k + 8]!r} against {expected[k:k + 8]!r}")
            raise Failure(f"graph {what} differ: {got!r} against {expected!r}")


def check_gfa(case: Case, path: str) -> str:
    want = read_gfa(case.stored, case.forward_only)
    try:
        g = load_graph(path, case.forward_only)
    except InputError as exc:
        if not isinstance(want, GfaFault):
            raise Failure(f"error {exc.format()!r} on a valid graph") from None
        _check_gfa_error(exc, want, path)
        return ERROR
    if isinstance(want, GfaFault):
        raise Failure(f"graph read where the reference finds a fault {sorted(want.kinds)} (line {want.line})")
    _compare_graph(g, want)
    return EQUAL


def run_case(case: Case, folder) -> tuple[str, str | None]:
    """(EQUAL or ERROR, None), or ("failure", why) for ``case``, its file written in ``folder``."""
    path = str(folder / ("in.gfa" if case.kind == "gfa" else "in.fq"))
    # the one file rewritten in place: truncating it to nothing on open costs milliseconds on some disks
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        view = memoryview(case.stored)
        while view:
            view = view[os.write(fd, view):]
        os.ftruncate(fd, len(case.stored))
    finally:
        os.close(fd)
    start = time.perf_counter()
    try:
        outcome = check_gfa(case, path) if case.kind == "gfa" else check_fastx(case, path)
    except Failure as exc:
        return "failure", str(exc)
    except Exception:  # noqa: BLE001 - any other exception from a reader is what the fuzzer looks for
        return "failure", "exception other than InputError:\n" + traceback.format_exc(limit=-4)
    took = time.perf_counter() - start
    if took > SLOW_S:
        return "failure", f"took {took:.1f} s"
    return outcome, None


#: inputs that take every compiled path of the readers once (compiled or loaded before cases are timed)
WARM_UP = [
    ("fastx", b">r\xff d\nACGT\nAC\n>s\nNNNN\n", 0),
    ("fastx", b"@r\nACGT\n+\nIIII\n@s\nAC\nGT\n+\nII\nII\n", 1),
    ("fastx", b"@r\nACGT\n+\nIIII\n@s\nAC\nGT\n+\nII\nI\x01\n", 0),
    ("fastx", b"@r\nACGT\n+\nIIII\n@s\nAC\nGE\n+\nII\nII\n", 0),
    ("fastx", b">r\nACGT\n>s\nAJ\n", 2),
    ("gfa", b"S\ta\tACGT\nS\tb\tGG\nL\ta\t+\tb\t-\t0M\nL\ta\t+\ta\t-\t*\n", 0),
    ("gfa", b"S\ta\tACGT\nS\tb\tGG\nL\ta\t+\tb\t+\t0M\nL\tb\t+\ta\t+\t0M\n", 0),
    ("gfa", b"S\ta\tACGT\nS\tb\tGJ\n", 0),
]


def warm_up(folder) -> list[str]:
    """Read ``WARM_UP`` (plain and gzip, forward only or not), so that no timed case compiles; the failures."""
    failures = []
    for kind, text, sam in WARM_UP:
        for stored, packing in ((text, "plain"), (gzip.compress(text), "gzip")):
            for flag in (False, True):
                case = Case(kind, 0, 0, text, stored, packing, (16, 5, 2) if flag else (), sam, flag)
                outcome, why = run_case(case, folder)
                if why:
                    failures.append(f"{why}\n{case.reproducer()}")
    return failures


__all__ = ["Case", "EQUAL", "ERROR", "make_case", "run_case", "warm_up"]
