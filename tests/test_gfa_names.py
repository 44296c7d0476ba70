"""Segment names a path cannot hold, and GFA2, refused by the GFA reader before any alignment.

A GAF path (and the TSV's path column) joins oriented segments as
``>a<b``: a name holding ``>`` or ``<`` makes a path no reader can split,
and a control byte (a NUL, an escape) no output can hold. GFA2 text is
named as GFA2 (by its header, its E, G, O, U and F lines, or its
``S sid slen sequence`` lines) rather than as a digit in a sequence.
Through the installed ``seqalign`` command, for every output of ``seqalign
graph``: exit 1, one stderr line naming the file, the line and the name,
nothing written; then the reader's rules one by one (``load_graph``), and
names with other punctuation aligned and written as they are.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from seqalign_cli.errors import InputError
from seqalign_cli.families.graph.chunks_gfa import load_graph

SEQALIGN = str(Path(sys.executable).with_name("seqalign"))
READS = b">r1\nACGTGGCC\n>r2\nGGCCTTAA\n"
KEEP = b"an output that must survive a failed run\n"

#: name -> (GFA bytes, line named, what the message holds besides)
REFUSED = {
    "greater-than": (b"H\tVN:Z:1.0\nS\ts1\tACGT\nS\ts>2\tGGCC\nL\ts1\t+\ts>2\t+\t0M\n", 3,
                     ("segment name s>2 holds '>' at position 2", "rename the segment")),
    "less-than after its link": (b"S\tchr1:5\tACGT\nL\tchr1:5\t+\t<x\t-\t0M\nS\t<x\tTTAA\n", 3,
                                 ("segment name <x holds '<' at position 1",)),
    "nul byte": (b"S\ta\x00b\tACGT\nS\tc\tGGCC\n", 1,
                 (r"segment name a\x00b holds the control character '\x00' (byte 0) at position 2",
                  "no output format can hold it")),
    "escape": (b"S\tok\tACGT\nS\tbad\x1b[1m\tGG\n", 2, (r"segment name bad\x1b[1m holds", "(byte 27)")),
    "gfa2 header": (b"H\tVN:Z:2.0\nS\ts1\t4\tACGT\nS\ts2\t4\tGGCC\nE\te1\ts1+\ts2+\t4$\t4$\t0\t0\t0M\n", 1,
                    ("GFA2 is not supported (GFA 1 only)", "VN:Z:2.0")),
    "gfa2 edge line": (b"S\ts1\tACGT\nS\ts2\tGGCC\nE\te1\ts1+\ts2+\t4$\t4$\t0\t0\t*\n", 3,
                       ("GFA2 is not supported (GFA 1 only)", "an E line")),
    "gfa2 segment with a length": (b"S\t1\t4\tACGT\nS\t2\t4\tGGCC\n", 1,
                                   ("GFA2 is not supported (GFA 1 only)", "length before its sequence")),
}
#: the outputs of ``seqalign graph``: (extra arguments, -o name or None for stdout)
OUTPUTS = {"gaf": ([], "out.gaf"), "tsv": ([], "out.tsv"), "score-only tsv": (["--score-only"], "out.tsv"),
           "stdout": ([], None)}
#: names with punctuation other than '>' and '<', and bytes outside ASCII: valid
PUNCTUATED = ["chr1:100-200", "utig4-7|x", "s+1", "*star", "a.b;c=1", "n\u00e9", "x,y", "[q]"]


def _seqalign(folder: Path, args: list, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([SEQALIGN, "graph", "-q", "--backend", "cpu", *args], cwd=folder, input=stdin,
                          capture_output=True, timeout=120)


def _refused_run(root: Path, case: str, output: str) -> dict:
    folder = root / f"{case}-{output}".replace(" ", "_")
    folder.mkdir()
    gfa, _, _ = REFUSED[case]
    (folder / "g.gfa").write_bytes(gfa)
    (folder / "r.fa").write_bytes(READS)
    extra, out = OUTPUTS[output]
    if out:
        (folder / out).write_bytes(KEEP)
    before = sorted(p.name for p in folder.iterdir())
    proc = _seqalign(folder, [*extra, "g.gfa", "r.fa"] + (["-o", out] if out else []))
    return dict(proc=proc, before=before, after=sorted(p.name for p in folder.iterdir()),
                kept=(folder / out).read_bytes() if out else KEEP)


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    root = tmp_path_factory.mktemp("gfa_names")
    with ThreadPoolExecutor(4) as pool:
        futures = {(c, o): pool.submit(_refused_run, root, c, o) for c in REFUSED for o in OUTPUTS}
    return {key: f.result() for key, f in futures.items()}


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("case", REFUSED)
def test_refused_for_every_output(refused, case, output):
    run = refused[(case, output)]
    proc = run["proc"]
    _, line, needles = REFUSED[case]
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert proc.stdout == b""
    assert err.endswith("\n") and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"seqalign: error: g.gfa: line {line}: "), err
    for needle in needles:
        assert needle in err, (needle, err)
    assert "invalid sequence character" not in err  # GFA2 lengths are no longer taken for letters
    assert run["after"] == run["before"] and run["kept"] == KEEP  # nothing written, nothing left


def test_refused_graph_on_stdin_and_gzip(tmp_path):
    gfa = REFUSED["greater-than"][0]
    (tmp_path / "r.fa").write_bytes(READS)
    (tmp_path / "g.gfa.gz").write_bytes(gzip.compress(gfa))
    piped = _seqalign(tmp_path, ["-", "r.fa", "-o", "a.gaf"], stdin=gfa)
    packed = _seqalign(tmp_path, ["g.gfa.gz", "r.fa", "-o", "b.gaf"])
    assert piped.returncode == packed.returncode == 1
    assert piped.stderr.decode().startswith("seqalign: error: <stdin>: line 3: segment name s>2 holds '>'")
    assert packed.stderr.decode().startswith("seqalign: error: g.gfa.gz: line 3: segment name s>2 holds '>'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.gfa.gz", "r.fa"]


def test_punctuated_names_align_and_are_written_as_they_are(tmp_path):
    # a chain: name k's segment, then name k+1's; the reads spell segments 0-1 and 2-3 forward
    seqs = ["AACG", "GTCA", "TTGC", "CAGA", "AAAC", "GTTT", "CCCA", "TGGG"]
    lines = [f"S\t{n}\t{s}" for n, s in zip(PUNCTUATED, seqs)]
    lines += [f"L\t{a}\t+\t{b}\t+\t0M" for a, b in zip(PUNCTUATED, PUNCTUATED[1:])]
    (tmp_path / "g.gfa").write_bytes(("H\tVN:Z:1.0\n" + "\n".join(lines) + "\n").encode())
    (tmp_path / "r.fa").write_bytes(b">r1\nAACGGTCA\n>r2\nTTGCCAGA\n")
    gaf = _seqalign(tmp_path, ["g.gfa", "r.fa", "-o", "out.gaf"])
    tsv = _seqalign(tmp_path, ["g.gfa", "r.fa", "-o", "out.tsv"])
    assert gaf.returncode == tsv.returncode == 0 and gaf.stderr == tsv.stderr == b""
    paths = {r: ">" + PUNCTUATED[k] + ">" + PUNCTUATED[k + 1] for r, k in (("r1", 0), ("r2", 2))}
    for line in (tmp_path / "out.gaf").read_text("utf-8").splitlines():
        f = line.split("\t")
        assert f[5] == paths[f[0]] and f[9] == "8"  # the path, and 8 matching bases
    rows = [line.split("\t") for line in (tmp_path / "out.tsv").read_text("utf-8").splitlines()[1:]]
    assert {f[0]: f[5] for f in rows} == paths


# ------------------------------------------------------------- the reader's rules, one by one

def _error(tmp_path: Path, text: bytes) -> InputError:
    path = tmp_path / "g.gfa"
    path.write_bytes(text)
    with pytest.raises(InputError) as exc:
        load_graph(str(path))
    assert exc.value.path == str(path) and exc.value.exit_code == 1
    return exc.value


@pytest.mark.parametrize("name, c, position", [
    (b">s1", ">", 1), (b"s1<", "<", 3), (b"a>b<c", ">", 2), (b"\x7fx", r"'\x7f' (byte 127)", 1),
    (b"x\ry", r"'\r' (byte 13)", 2), (b"n\xc3\xa9\x01", r"'\x01' (byte 1)", 4),
])
def test_each_forbidden_byte_is_named_with_its_position(tmp_path, name, c, position):
    err = _error(tmp_path, b"S\tfine\tAC\nS\t" + name + b"\tGG\n")
    assert err.line == 2 and f"at position {position}" in err.message
    assert (f"holds {c!r}" if len(c) == 1 else f"holds the control character {c}") in err.message
    assert err.format().isprintable()


def test_first_segment_in_file_order_is_named_name_before_letters(tmp_path):
    # a bad letter on an earlier segment comes first; on the same segment the name comes first
    assert _error(tmp_path, b"S\ta\tAJ\nS\tb>\tAC\n").message.startswith("segment a: invalid sequence character 'J'")
    err = _error(tmp_path, b"S\ta\tAC\nS\tb>\tAJ\nS\tc\tAJ\n")
    assert err.line == 2 and err.message.startswith("segment name b> holds '>'")
    err = _error(tmp_path, b"S\ta\tAC\nS\tb\tAJ\nS\tc>\tAC\n")
    assert err.line == 2 and "invalid sequence character 'J'" in err.message
    # a malformed line is met first, wherever it is; a missing segment only after the names
    assert "malformed L line" in _error(tmp_path, b"S\ta>\tAC\nL\ta>\t+\n").message
    err = _error(tmp_path, b"S\ta\tAC\nL\ta\t+\tb>\t+\t0M\nS\tb>\tGG\n")
    assert err.line == 3 and err.message.startswith("segment name b> holds '>'")


def test_a_long_name_is_shortened_but_the_position_given(tmp_path):
    name = b"n" * 60 + b">x"
    err = _error(tmp_path, b"S\t" + name + b"\tACGT\n")
    assert err.message.startswith("segment name " + "n" * 37 + "... holds '>' at position 61: ")
    assert "n" * 38 not in err.message and len(err.message) < 250


@pytest.mark.parametrize("kind, word", [("E", "an E line"), ("G", "a G line"), ("O", "an O line"),
                                        ("U", "a U line"), ("F", "an F line")])
def test_gfa2_record_types_are_refused(tmp_path, kind, word):
    for text in (f"S\ta\tAC\n{kind}\tx\ty\n", f"S\ta\tAC\r\n{kind}\r\n", f"S\ta\tAC\n{kind}\n"):
        err = _error(tmp_path, text.encode())
        assert err.line == 2 and err.message == f"GFA2 is not supported (GFA 1 only): {word} (a GFA2 " \
            + {"E": "edge", "G": "gap", "O": "ordered group", "U": "unordered group", "F": "fragment"}[kind] + ")"


@pytest.mark.parametrize("header", ["H\tVN:Z:2.0", "H\tVN:Z:2", "H\tTS:i:100\tVN:Z:2.0\r", "H\tVN:Z:2.1"])
def test_gfa2_headers_are_refused_before_any_segment(tmp_path, header):
    err = _error(tmp_path, f"# GFA2\n{header}\nS\ta\tAC\n".encode())
    assert err.line == 2 and err.message.startswith("GFA2 is not supported (GFA 1 only): the header gives VN:Z:2")


def test_gfa2_segment_with_a_star_sequence_is_gfa2_not_a_missing_sequence(tmp_path):
    err = _error(tmp_path, b"S\ta\tACGT\nS\tb\t12\t*\n")
    assert err.line == 2 and "GFA2 is not supported" in err.message


def test_gfa1_text_that_looks_close_is_still_read_as_gfa1(tmp_path):
    # headers of GFA 1.x, and record types GFA1 readers ignore (J: a GFA 1.2 jump, EX: not an E line)
    path = tmp_path / "g.gfa"
    path.write_bytes(b"H\tVN:Z:1.2\nS\ta\tACGT\tLN:i:4\nS\tb\tGG\nJ\ta\t+\tb\t+\t*\nEX\tnot GFA2\n"
                     b"L\ta\t+\tb\t+\t0M\n#E\tcomment\n")
    g = load_graph(str(path))
    assert g.names == ["a", "b"] and g.n_bases == 12
    # digits in a GFA1 sequence without a fourth field stay a letter error
    assert _error(tmp_path, b"S\ta\t12\n").message.startswith("segment a: invalid sequence character '1'")
