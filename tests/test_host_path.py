"""The columnar host path: block reader, record blocks, pairing on blocks, bulk formatting.

The block reader is held to the reference line parser (``fastx_reference``)
on generated inputs full of corner cases (CRLF, blanks, spaces inside
sequences, multi-line FASTQ, quality lines starting with '@' or '+', bad
UTF-8 in names, every malformation), with normal and with tiny read sizes so
that records straddle every block boundary. The compiled TSV/PAF formatting
is held to the f-string rows the writers used to build.
"""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from seqalign_cli.errors import InputError
from seqalign_cli.families.pairwise.formats_paf import format_paf
from seqalign_cli.formatting import format_runs, put_int
from seqalign_cli.families.pairwise.formats import format_tsv
from seqalign_cli.io import fastx
from seqalign_cli.io.block import Record, RecordBlock
from seqalign_cli.io.encode import code_of, encode_all
from seqalign_cli.io.fastx import FastxReader
from seqalign_cli.families.pairwise.chunks import PairChunk, PairInputs, pair_chunks
from seqalign_cli.results import CIGAR_LETTERS
from seqalign_cli.families.pairwise.results import Alignments

from support.fastx_reference import ReferenceReader

# ------------------------------------------------------------ generators

LETTERS = b"ACGTacgtNnRYU"
NAME_BYTES = [b"r", b"read_", b"x", b"\xc3\xa9", b"\xff", b"chr1:1-9", b">", b"@", b"+", b"1"]
SPACES = [b" ", b"\t", b"\r", b"\x0b", b"\x0c"]


def _name(rng) -> bytes:
    if rng.random() < 0.01:
        return b""
    name = b"".join(rng.choice(NAME_BYTES) for _ in range(rng.randint(1, 4)))
    if rng.random() < 0.3:
        name += rng.choice([b" ", b"\t", b"  "]) + b"desc " + rng.choice(NAME_BYTES)
    if rng.random() < 0.05:
        name = rng.choice([b" ", b"\t"]) + name
    return name


def _seq(rng, n) -> bytes:
    return bytes(rng.choice(LETTERS) for _ in range(n))


def _eol(rng, crlf: bool) -> bytes:
    return b"\r\n" if crlf else b"\n"


def gen_fasta(rng) -> bytes:
    crlf = rng.random() < 0.2
    out = []
    if rng.random() < 0.2:
        out.append(b"\n" * rng.randint(1, 2))
    for _ in range(rng.randint(1, 12)):
        out.append(b">" + _name(rng) + _eol(rng, crlf))
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            line = _seq(rng, rng.randint(0, 30))
            if rng.random() < 0.15 and line:
                k = rng.randrange(len(line))
                line = line[:k] + rng.choice(SPACES) + line[k:]
            out.append(line + _eol(rng, crlf))
        if rng.random() < 0.1:
            out.append(b"\n")
    data = b"".join(out)
    if rng.random() < 0.2:
        data = data.rstrip(b"\r\n")
    return data


def gen_fastq(rng) -> bytes:
    crlf = rng.random() < 0.2
    out = []
    if rng.random() < 0.1:
        out.append(b"\n")
    for _ in range(rng.randint(1, 10)):
        n = rng.choice([0, 1, 5, 12, 30])
        seq = _seq(rng, n)
        qual = bytes(rng.choice(b"!#+@5?IJ") for _ in range(n))
        eol = _eol(rng, crlf)
        out.append(b"@" + _name(rng) + eol)
        if rng.random() < 0.15 and n > 1:  # multi-line sequence and quality
            k = rng.randint(1, n - 1)
            out.append(seq[:k] + eol + seq[k:] + eol + b"+" + eol + qual[:k] + eol + qual[k:] + eol)
        else:
            pad = rng.choice([b"", b"", b"", b" ", b"\t"])
            out.append(pad + seq + eol + b"+" + rng.choice([b"", b"r1 desc"]) + eol)
            if n or rng.random() < 0.5:
                out.append(qual + pad + eol)
        if rng.random() < 0.1:
            out.append(b"\n" + rng.choice([b"", b"  \n"]))
    data = b"".join(out)
    roll = rng.random()
    if roll < 0.04:  # a quality of the wrong length
        data = data.replace(b"\n+\n", b"\n+\nI", 1) if b"\n+\n" in data else data + b"@z\nAC\n+\nI\n"
    elif roll < 0.07:  # the input stops inside a record
        data = data[:rng.randrange(1, len(data))]
    elif roll < 0.1:  # a '+' line missing
        data = data.replace(b"+", b"", 1)
    elif roll < 0.12:
        data += b"junk\n"
    elif roll < 0.3:
        data = data.rstrip(b"\r\n")
    return data


def reference(data: bytes, path: str):
    try:
        return ReferenceReader(data, path).records(), None
    except InputError as exc:
        return None, exc.format()


def actual(path: str):
    reader = FastxReader(path)
    try:
        return [(r.name, r.seq, r.qual, r.num) for r in reader], None
    except InputError as exc:
        return None, exc.format()


@pytest.fixture(params=["normal", "tiny"])
def read_sizes(request, monkeypatch):
    if request.param == "tiny":  # records straddle every block boundary
        monkeypatch.setattr(fastx, "READ_SIZE", 16)
        monkeypatch.setattr(fastx, "MIN_BLOCK", 5)
    return request.param


@pytest.mark.parametrize("kind", ["fasta", "fastq"])
def test_block_reader_equals_reference(tmp_path, read_sizes, kind):
    gen = gen_fasta if kind == "fasta" else gen_fastq
    rng = random.Random(f"{kind}-{read_sizes}")
    path = tmp_path / "in.txt"
    errors = 0
    for case in range(250):
        data = gen(rng)
        path.write_bytes(data)
        want = reference(data, str(path))
        got = actual(str(path))
        assert got == want, (case, data)
        errors += want[1] is not None
    assert errors > 5  # the generators do reach the error paths


def test_block_reader_gzip_and_blocks_are_consistent(tmp_path):
    rng = random.Random(7)
    data = b"".join(gen_fasta(rng).rstrip(b"\r\n") + b"\n" for _ in range(300))
    data = data[data.index(b">"):]
    path = tmp_path / "big.fa.gz"
    path.write_bytes(gzip.compress(data))
    want, err = reference(data, str(path))
    if err is None:
        reader = FastxReader(str(path))
        blocks = list(reader.blocks())
        assert all(len(b) for b in blocks)
        recs = [r for b in blocks for r in b.records()]
        assert [(r.name, r.seq, r.qual, r.num) for r in recs] == want
        assert reader.count == len(want)


def test_fastq_after_a_multiline_record_stays_exact(tmp_path):
    """The line parser takes over at the first record the fast path refuses; numbering goes on."""
    recs = [f"@r{i}\nACGT\n+\nIIII\n" for i in range(5)] + ["@m\nAC\nGT\n+\nII\nII\n"] + \
        [f"@s{i}\nA\n+\n@\n" for i in range(3)] + ["@bad\nACG\n+\nII\n"]
    path = tmp_path / "m.fq"
    path.write_text("".join(recs))
    with pytest.raises(InputError) as exc:
        list(FastxReader(str(path)))
    assert exc.value.format() == f"{path}: record 10 (bad): quality length 2 differs from sequence length 3"
    path.write_text("".join(recs[:-1]))
    got = [(r.name, r.seq, r.qual, r.num) for r in FastxReader(str(path))]
    assert got[5] == ("m", b"ACGT", b"IIII", 6) and got[-1] == ("s2", b"A", b"@", 9)


# ------------------------------------------------------------ encoding

#: the encoding written out letter by letter: A C G T/U (either case) -> 0 1 2 3, any other byte -> 4
_LUT = np.full(256, 4, np.uint8)
for _code, _letters in enumerate((b"Aa", b"Cc", b"Gg", b"TtUu")):
    _LUT[list(_letters)] = _code


def test_code_of_matches_the_lut():
    every = np.arange(256, dtype=np.uint8)
    assert np.array_equal(encode_all(every), _LUT[every])
    assert all(code_of(np.uint8(c)) == _LUT[c] for c in range(256))


def test_chunk_batch_equals_make_batch():
    from seqalign_cli.families.pairwise.batch import make_batch
    from support.clidata import GQ, GT

    for chunk in pair_chunks(PairInputs(str(GQ), str(GT), "zip", None), 77):
        a = chunk.batch()
        b = make_batch([r.seq for r in chunk.queries], [r.seq for r in chunk.targets])
        for x, y in ((a.q_codes, b.q_codes), (a.q_off, b.q_off), (a.t_codes, b.t_codes), (a.t_off, b.t_off)):
            assert np.array_equal(x, y) and x.dtype == y.dtype


# ------------------------------------------------------------ record blocks

def _recs(n, fastq, rng, first=1):
    out = []
    for k in range(n):
        seq = _seq(rng, rng.randint(0, 9))
        out.append(Record(f"n{k}é", seq, bytes(len(seq) * b"I") if fastq else None, first + k))
    return out


@pytest.mark.parametrize("fastq", [False, True])
def test_record_block_slice_take_concat(fastq):
    rng = random.Random(3)
    recs = _recs(40, fastq, rng)
    block = RecordBlock.from_records(recs)
    assert block.records() == recs and len(block) == 40 and block.first == 1
    assert block.slice(5, 17).records() == recs[5:17]
    assert block.slice(40, 40).records() == [] and block.slice(0, 0).first == 0
    idx = np.array([3, 3, 0, 39, 12], np.int64)
    assert block.take(idx).records() == [recs[i] for i in idx]
    parts = [block.slice(0, 7), block.slice(7, 7), block.slice(7, 30), block.slice(30, 40)]
    whole = RecordBlock.concat(parts)
    assert whole.records() == recs
    assert whole.seq_off[0] == 0 and whole.name_off[0] == 0
    assert np.array_equal(whole.codes(), _LUT[whole.seq])
    part = whole.slice(7, 30)  # a slice of an encoded block keeps its part of the codes, not made again
    assert part.encoded is not None and np.shares_memory(part.codes(), whole.codes())
    assert np.array_equal(part.codes(), _LUT[part.seq])
    assert RecordBlock.concat([RecordBlock.empty(), block]).records() == recs


def test_a_pairing_stopped_early_ends_the_threads_that_read_ahead():
    """Each file of a lockstep pairing is read by two threads of its own; closing the chunks (a run's error,
    an API caller that stops) ends them, instead of leaving them waiting to hand over a chunk."""
    import threading
    import time

    from support.clidata import GQ, GT

    before = set(threading.enumerate())
    chunks = pair_chunks(PairInputs(str(GQ), str(GT), "zip", None), 5)
    first = next(chunks)
    assert len(first) == 5 and set(threading.enumerate()) - before  # at least the threads waiting to hand over
    chunks.close()
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(threading.enumerate()) - before


def test_codes_go_to_the_buffers_asked_for():
    """A GPU run asks for page-locked code buffers (``set_code_buffers``): a block's codes are made once, into one
    of them, with the same values as plain ones; None goes back to plain arrays."""
    from seqalign_cli.io.encode import set_code_buffers

    given = []

    def buffers(n):
        given.append(np.full(n + 3, 99, np.uint8)[:n])  # a view: something else than np.empty made it
        return given[-1]

    block = RecordBlock.from_records(_recs(30, False, random.Random(3)))
    try:
        set_code_buffers(buffers)
        codes = block.codes()
        assert codes is given[0] and block.codes() is codes and len(given) == 1
        assert np.array_equal(codes, _LUT[block.seq])
    finally:
        set_code_buffers(None)
    other = RecordBlock.from_records(_recs(5, False, random.Random(4)))
    assert other.codes().base is None and len(given) == 1


def test_pair_chunk_lists_and_batch():
    rng = random.Random(5)
    q = RecordBlock.from_records(_recs(6, True, rng))
    t = RecordBlock.from_records(_recs(6, False, rng))
    chunk = PairChunk(q, t)
    assert len(chunk) == 6 and chunk.queries == q.records() and chunk.targets == t.records()
    batch = chunk.batch()
    assert batch.size == 6 and np.array_equal(batch.qlen, q.lengths) and np.array_equal(batch.tlen, t.lengths)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 12, 100])
def test_cross_and_interleaved_chunks(tmp_path, size):
    rng = random.Random(size)
    q = tmp_path / "q.fq"
    q.write_bytes(b"".join(b"@q%d\n%s\n+\n%s\n" % (i, s, b"I" * len(s))
                           for i, s in enumerate(_seq(rng, rng.randint(0, 6)) for _ in range(5))))
    t = tmp_path / "t.fa"
    t.write_bytes(b"".join(b">t%d\n%s\n" % (i, _seq(rng, 4)) for i in range(3)))
    qr, tr = list(FastxReader(str(q))), list(FastxReader(str(t)))
    chunks = list(pair_chunks(PairInputs(str(q), str(t), "cross", None), size))
    whole = max(1, size // 3) * 3  # whole queries a chunk, each with its 3 targets
    assert all(len(c) == whole for c in chunks[:-1]) and 0 < len(chunks[-1]) <= whole
    got = [(a, b) for c in chunks for a, b in zip(c.queries, c.targets)]
    assert got == [(a, b) for a in qr for b in tr]
    inter = tmp_path / "i.fa"
    inter.write_bytes(b"".join(b">%d\nAC\n" % i for i in range(10)))
    got = [(a.name, b.name) for c in pair_chunks(PairInputs(str(inter), None, "interleaved", None), size)
           for a, b in zip(c.queries, c.targets)]
    assert got == [(str(i), str(i + 1)) for i in range(0, 10, 2)]


# ------------------------------------------------------------ formatting

@pytest.mark.parametrize("value", [0, 1, 9, 10, 11, 99, 100, -1, -9, -10, -11, -100, 123456789,
                                   2**31 - 1, -2**31, 2**53, 2**63 - 1, -2**63])
def test_put_int(value):
    buf = np.zeros(32, np.uint8)
    end = put_int(buf, 3, value)
    assert buf[3:end].tobytes() == str(value).encode()


def _fake(rng, qlen, tlen, traceback):
    res = Alignments.allocate(qlen, tlen, traceback)
    n = len(qlen)
    for arr in (res.score, res.qstart, res.qend, res.tstart, res.tend):
        arr[:] = [rng.randint(-5000, 5000) for _ in range(n)]
    res.stats[:] = np.array([[rng.randint(0, 300) for _ in range(4)] for _ in range(n)])
    if traceback:
        for k in range(n):
            cap = int(2 * min(qlen[k], tlen[k]) + 2)
            nr = rng.choice([0, 1, 2, min(cap, 7), cap])
            res.cigar.count[k] = nr
            s = res.cigar.off[k]
            res.cigar.op[s:s + nr] = [rng.randrange(4) for _ in range(nr)]
            res.cigar.length[s:s + nr] = [rng.choice([1, 9, 10, 150, 99999, 2**31 - 1]) for _ in range(nr)]
    return res


def _old_cigars(res, merge_m):
    out = []
    for k in range(res.size):
        ops, lens = res.cigar.runs(k)
        parts = []
        for op, n in zip(ops.tolist(), lens.tolist()):
            letter = "M" if merge_m and op <= 1 else "=XID"[op]
            if parts and parts[-1][0] == letter == "M":
                parts[-1][1] += n
            else:
                parts.append([letter, n])
        out.append("".join(f"{n}{c}" for c, n in parts) if res.traceback else "")
    return out


def _old_tsv(qs, ts, res, merge_m):
    cig = [c or "*" for c in _old_cigars(res, merge_m)]
    nm = (res.stats[:, 1] + res.stats[:, 2] + res.stats[:, 3]).tolist()
    return "".join(f"{q.name}\t{len(q.seq)}\t{res.qstart[k]}\t{res.qend[k]}\t{t.name}\t{len(t.seq)}\t"
                   f"{res.tstart[k]}\t{res.tend[k]}\t{res.score[k]}\t{cig[k]}\t{nm[k]}\n"
                   for k, (q, t) in enumerate(zip(qs, ts))).encode()


def _old_paf(qs, ts, res, merge_m):
    cig = _old_cigars(res, merge_m)
    rows = []
    for k, (q, t) in enumerate(zip(qs, ts)):
        score = int(res.score[k])
        if res.cigar.count[k] == 0:
            rows.append(f"{q.name}\t{len(q.seq)}\t0\t0\t*\t{t.name}\t{len(t.seq)}\t0\t0\t0\t0\t0\tAS:i:{score}\n")
            continue
        m, x, i, d = (int(v) for v in res.stats[k])
        rows.append(f"{q.name}\t{len(q.seq)}\t{res.qstart[k]}\t{res.qend[k]}\t+\t{t.name}\t{len(t.seq)}\t"
                    f"{res.tstart[k]}\t{res.tend[k]}\t{m}\t{m + x + i + d}\t255\tcg:Z:{cig[k]}\tAS:i:{score}\t"
                    f"NM:i:{x + i + d}\n")
    return "".join(rows).encode()


@pytest.mark.parametrize("traceback", [True, False])
@pytest.mark.parametrize("merge_m", [False, True])
def test_bulk_rows_equal_fstring_rows(traceback, merge_m):
    rng = random.Random(11)
    qs, ts = _recs(60, False, rng), _recs(60, False, rng)
    q, t = RecordBlock.from_records(qs), RecordBlock.from_records(ts)
    res = _fake(rng, q.lengths, t.lengths, traceback)
    views = (q.view(), t.view(), res.view(), res.cigar.view(), CIGAR_LETTERS, merge_m)
    rows = format_tsv(*views)
    assert rows.tobytes() == _old_tsv(qs, ts, res, merge_m)
    if traceback:
        paf = format_paf(*views)
        assert paf.tobytes() == _old_paf(qs, ts, res, merge_m)
        buf, offs = format_runs(res.cigar.view(), CIGAR_LETTERS, merge_m)
        text = buf.tobytes().decode()
        assert [text[offs[k]:offs[k + 1]] for k in range(res.size)] == _old_cigars(res, merge_m)


# ------------------------------------------------------------ start-up


def test_numba_start_leaves_scipy_coverage_and_yaml_alone(tmp_path):
    """Compiling host code imports neither SciPy (numba's BLAS probe), coverage (numba's line reports) nor
    PyYAML (numba's settings file, absent), and all three stay importable."""
    names = ("scipy", "coverage", "yaml")
    for name in names:
        (tmp_path / "lib" / name).mkdir(parents=True)
        (tmp_path / "lib" / name / "__init__.py").write_text("MARK = 'stand-in'\n")
    code = (
        "import sys\n"
        "from seqalign_cli.jit import nb\n"
        "import seqalign_cli.runner\n"
        "f = nb.njit(lambda x: x + 1)\n"
        "assert f(1) == 2\n"
        f"assert not {{n for n in {names!r} if n in sys.modules}}, 'numba imported them'\n"
        "import scipy, coverage, yaml\n"
        "assert scipy.MARK == coverage.MARK == yaml.MARK == 'stand-in'\n"
    )
    lib = str(tmp_path / "lib")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([lib, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_numba_settings_file_still_read(tmp_path):
    """With numba's settings file in the working folder, PyYAML is imported and the file's settings hold."""
    pytest.importorskip("yaml")
    (tmp_path / ".numba_config.yaml").write_text("opt: '2'\n")
    code = (
        "import sys\n"
        "from seqalign_cli.jit import nb\n"
        "from numba.core import config\n"
        "assert 'yaml' in sys.modules\n"
        "assert config.OPT == 2, config.OPT\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
