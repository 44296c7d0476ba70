"""The reference GFA reader: the README's graph rules written plainly, for any bytes (the fuzzer's oracle).

Written apart from ``seqalign_cli.families.graph.chunks_gfa``; the oriented graph comes from the
independent oracle ``graph_oracles.orient``. The text (gunzipped by the
standard library when it starts with the gzip magic) is cut on newline; one
CR before a newline is the CRLF line end. A line's record type is its text
before the first tab: S and L lines are read, every other line is ignored
(H, P, W, comments, blank and unknown lines, and a line whose fields are
separated by spaces, whose type is then not S or L), except what only GFA2
writes: an H line with a tag ``VN:Z:2`` or ``VN:Z:2.<anything>``, a line of
type E, G, O, U or F, an S line of four fields or more whose third is ASCII
digits (GFA2's ``S sid slen sequence``).

* S: at least 3 fields; a non-empty name not seen on an earlier S line, a
  sequence that is neither empty nor ``*``.
* L: at least 6 fields; non-empty names, orientations ``+`` or ``-``, overlap
  ``0M`` or ``*``.

Faults come in the order a reader meets them: (1) the first line that
breaks a line rule or shows GFA2 (every rule it breaks is listed: a reader
names one); (2) no segment at all; (3) the first segment, in file order,
whose name holds '>', '<' or a control byte (0-31, 127), the name's first
such byte, or else whose letters hold one that is not an IUPAC nucleotide
code or X (either case), its first (a name before the letters of the same
segment); (4) the first link, in file order, naming a segment no S line
gives; (5) a cycle of the oriented graph:
the segment of its smallest oriented node on a cycle, and the lines of the
links with an edge inside that node's strongly connected part (any of them
may be named). A valid text gives its segments and the oriented graph.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field

from support.graph_oracles import GfaError, orient

#: the letters a segment may hold
NUCLEOTIDES = set(b"ACGTUNRYSWKMBDHVXacgtunryswkmbdhvx")
#: the bytes a segment name may not hold: control bytes, and the path separators of GAF
NAME_FORBIDDEN = set(range(32)) | {127} | set(b"<>")
#: record types only GFA2 has
GFA2_TYPES = {b"E", b"G", b"O", b"U", b"F"}


@dataclass
class GfaFault:
    """Why a text is refused: the kinds of fault a reader may name (one of them), and where."""

    kinds: set
    line: int | None = None
    #: per kind, what the message must hold besides (a segment's name, the letter message)
    detail: dict = field(default_factory=dict)
    #: for a cycle: the lines a reader may name
    lines: set = field(default_factory=set)


@dataclass
class GfaGraph:
    """A valid text: segment names (bytes) and sequences in file order, and the oriented graph."""

    names: list
    seqs: list
    graph: object


def _line_faults(f: list[bytes], names: set) -> set:
    if f[0] == b"S":
        if len(f) < 3:
            return {"S fields"}
        faults = set()
        if not f[1]:
            faults.add("empty name")
        if f[2] == b"*":
            faults.add("no sequence")
        if not f[2]:
            faults.add("empty sequence")
        if f[1] in names:
            faults.add("duplicate")
        if len(f) >= 4 and f[2] and all(48 <= c <= 57 for c in f[2]):
            faults.add("gfa2")
        return faults
    if len(f) < 6:
        return {"L fields"}
    faults = set()
    if f[2] not in (b"+", b"-") or f[4] not in (b"+", b"-"):
        faults.add("orientation")
    if not f[1] or not f[3]:
        faults.add("empty name")
    if f[5] not in (b"0M", b"*"):
        faults.add("overlap")
    return faults


def _reach(succ: dict, start) -> set:
    seen, stack = set(), [start]
    while stack:
        v = stack.pop()
        for w in succ.get(v, ()):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


def read_gfa(data: bytes, forward_only: bool = False) -> GfaGraph | GfaFault:
    """What a reader must make of the file bytes ``data``: the graph, or the fault it must report."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, zlib.error, gzip.BadGzipFile):
            return GfaFault({"gzip"})
    names: list[bytes] = []
    seqs: list[bytes] = []
    seg_lines: list[int] = []
    links = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        f = line.split(b"\t")
        if f[0] in GFA2_TYPES:
            return GfaFault({"gfa2"}, number)
        if f[0] == b"H" and any(t.startswith(b"VN:Z:") and (t[5:] == b"2" or t[5:].startswith(b"2."))
                                for t in f[1:]):
            return GfaFault({"gfa2"}, number)
        if f[0] not in (b"S", b"L"):
            continue
        faults = _line_faults(f, set(names))
        if faults:
            return GfaFault(faults, number)
        if f[0] == b"S":
            names.append(f[1])
            seqs.append(f[2])
            seg_lines.append(number)
        else:
            links.append((f[1], f[2] == b"-", f[3], f[4] == b"-", number))
    if not names:
        return GfaFault({"no segments"})
    for name, seq, number in zip(names, seqs, seg_lines):
        bad = next((i for i, c in enumerate(name) if c in NAME_FORBIDDEN), None)
        if bad is not None:
            return GfaFault({"name"}, number, {"name": (name, name[bad], bad + 1)})
        bad = next((i for i, c in enumerate(seq) if c not in NUCLEOTIDES), None)
        if bad is not None:
            return GfaFault({"letter"}, number, {"letter": (name, seq[bad], bad + 1)})
    index = {name: k for k, name in enumerate(names)}
    for a, _, b, _, number in links:
        if a not in index or b not in index:
            return GfaFault({"missing"}, number, {"missing": a if a not in index else b})
    # the oracle reads a canonical text: segments renamed s0, s1, ... (its line splitting sees no odd byte)
    text = "".join(f"S\ts{k}\t{seq.decode()}\n" for k, seq in enumerate(seqs))
    text += "".join(f"L\ts{index[a]}\t{'-' if ra else '+'}\ts{index[b]}\t{'-' if rb else '+'}\t0M\n"
                    for a, ra, b, rb, _ in links)
    try:
        graph = orient(text, forward_only)
    except GfaError as exc:
        segment = int(str(exc).rsplit(" s", 1)[1])
        return _cycle_fault(names, links, index, segment, forward_only)
    return GfaGraph(names, seqs, graph)


def _cycle_fault(names, links, index, segment: int, forward_only: bool) -> GfaFault:
    """The fault of a cyclic graph whose smallest node on a cycle belongs to ``segment``."""
    edges = []  # (u, v, line)
    for a, ra, b, rb, number in links:
        ia, ib = index[a], index[b]
        for u, v in ((2 * ia + ra, 2 * ib + rb), (2 * ib + 1 - rb, 2 * ia + 1 - ra)):
            if not forward_only or (u % 2 == 0 and v % 2 == 0):
                edges.append((u, v, number))
    succ: dict = {}
    for u, v, _ in edges:
        succ.setdefault(u, set()).add(v)
    x = min(v for v in {u for u, _, _ in edges} if v in _reach(succ, v))
    assert x >> 1 == segment
    part = {v for v in _reach(succ, x) if x in _reach(succ, v)}
    lines = {number for u, v, number in edges if u in part and v in part}
    return GfaFault({"cycle"}, None, {"cycle": names[segment]}, lines)
