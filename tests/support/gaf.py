"""A strict GAF reader for tests, written from the format's definition, and a check of its columns against cg:Z.

A GAF line has 12 tab-separated mandatory columns, then optional SAM-style
tags:

 1 query name (string, no whitespace)   7 path length (int >= 0)
 2 query length (int >= 0)              8 path start (int, 0-based)
 3 query start (int, 0-based)           9 path end (int, open)
 4 query end (int, open)               10 residue matches (int >= 0)
 5 strand: '+' or '-' ('*' unaligned)  11 alignment block length (int >= 0)
 6 path: ``([<>][^<>]+)+`` or '*'      12 mapping quality (0..255, 255 missing)

with qstart <= qend <= qlen and pstart <= pend <= path length. Tags are
``TG:T:value`` with a two-character tag ``[A-Za-z][A-Za-z0-9]``, a type of
A (one printable character), i (a signed integer), f (a float) or Z
(printable text, spaces allowed), each tag at most once. An unaligned
record has path '*' and strand '*'.

``parse_gaf`` raises ``GafError`` naming the line for anything else;
``check_cigar`` checks that a record's columns agree with its ``cg:Z``
CIGAR (=, X, I, D): matches, block length, NM, the query span (= + X + I)
and the path span (= + X + D), and, given the segment lengths, the path
length and where the span may start and end on the first and last node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_INT = re.compile(r"[-+]?[0-9]+\Z")
_UINT = re.compile(r"[0-9]+\Z")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_NAME = re.compile(r"[^\s]+\Z")
_PATH = re.compile(r"(?:[<>][^<>\s]+)+\Z")
_STEP = re.compile(r"([<>])([^<>\s]+)")
_TAG = re.compile(r"([A-Za-z][A-Za-z0-9]):([AifZ]):(.*)\Z", re.S)
_CIGAR = re.compile(r"(?:[0-9]+[=XID])+\Z")
_CIGAR_RUN = re.compile(r"([0-9]+)([=XID])")


class GafError(ValueError):
    pass


@dataclass
class GafRecord:
    qname: str
    qlen: int
    qstart: int
    qend: int
    strand: str
    path: str
    plen: int
    pstart: int
    pend: int
    matches: int
    block: int
    mapq: int
    tags: dict = field(default_factory=dict)

    @property
    def aligned(self) -> bool:
        return self.path != "*"

    @property
    def steps(self) -> list[tuple[str, str]]:
        """The path as (orientation, segment name) steps; empty for '*'."""
        return _STEP.findall(self.path) if self.aligned else []


def _uint(text: str, what: str, line: int) -> int:
    if not _UINT.match(text):
        raise GafError(f"line {line}: {what} is not a non-negative integer: {text!r}")
    return int(text)


def _tag_value(kind: str, value: str, tag: str, line: int):
    if kind == "A":
        if len(value) != 1 or not ("!" <= value <= "~"):
            raise GafError(f"line {line}: tag {tag}:A needs one printable character, got {value!r}")
        return value
    if kind == "i":
        if not _INT.match(value):
            raise GafError(f"line {line}: tag {tag}:i is not an integer: {value!r}")
        return int(value)
    if kind == "f":
        if not _FLOAT.match(value):
            raise GafError(f"line {line}: tag {tag}:f is not a number: {value!r}")
        return float(value)
    if any(not (" " <= c <= "~") for c in value):
        raise GafError(f"line {line}: tag {tag}:Z holds a character that is not printable: {value!r}")
    return value


def parse_line(text: str, line: int = 1) -> GafRecord:
    """One GAF line (no newline) as a ``GafRecord``; ``GafError`` for anything the format does not allow."""
    f = text.split("\t")
    if len(f) < 12:
        raise GafError(f"line {line}: {len(f)} columns, GAF has 12 mandatory ones")
    if not _NAME.match(f[0]):
        raise GafError(f"line {line}: bad query name {f[0]!r}")
    qlen, qstart, qend = (_uint(f[i], w, line) for i, w in ((1, "query length"), (2, "query start"),
                                                             (3, "query end")))
    strand, path = f[4], f[5]
    plen, pstart, pend, matches, block, mapq = (
        _uint(f[i], w, line) for i, w in ((6, "path length"), (7, "path start"), (8, "path end"),
                                          (9, "residue matches"), (10, "block length"), (11, "mapping quality")))
    if path == "*":
        if strand != "*":
            raise GafError(f"line {line}: an unaligned record has strand '*', got {strand!r}")
    else:
        if strand not in ("+", "-"):
            raise GafError(f"line {line}: strand must be '+' or '-', got {strand!r}")
        if not _PATH.match(path):
            raise GafError(f"line {line}: bad path {path!r}")
    if not qstart <= qend <= qlen:
        raise GafError(f"line {line}: query span {qstart}-{qend} not within 0-{qlen}")
    if not pstart <= pend <= plen:
        raise GafError(f"line {line}: path span {pstart}-{pend} not within 0-{plen}")
    if mapq > 255:
        raise GafError(f"line {line}: mapping quality {mapq} above 255")
    if matches > block:
        raise GafError(f"line {line}: {matches} residue matches in a block of {block}")
    tags = {}
    for item in f[12:]:
        m = _TAG.match(item)
        if not m:
            raise GafError(f"line {line}: bad tag {item!r}")
        tag, kind, value = m.groups()
        if tag in tags:
            raise GafError(f"line {line}: tag {tag} twice")
        tags[tag] = (kind, _tag_value(kind, value, tag, line))
    return GafRecord(f[0], qlen, qstart, qend, strand, path, plen, pstart, pend, matches, block, mapq, tags)


def parse_gaf(text: str) -> list[GafRecord]:
    """Every line of a GAF text (each ending with a newline; no blank line, no header)."""
    if text and not text.endswith("\n"):
        raise GafError("the last line has no newline")
    return [parse_line(line, k + 1) for k, line in enumerate(text.split("\n")[:-1])]


def cigar_totals(cigar: str) -> dict[str, int]:
    """Bases of each op of an =XID CIGAR."""
    if not _CIGAR.match(cigar):
        raise GafError(f"bad =XID CIGAR {cigar!r}")
    totals = dict.fromkeys("=XID", 0)
    for n, op in _CIGAR_RUN.findall(cigar):
        totals[op] += int(n)
    return totals


def check_cigar(rec: GafRecord, seg_len: dict[str, int] | None = None) -> dict[str, int]:
    """Assert the columns of an aligned record agree with its cg:Z (and with ``seg_len``); returns the op totals."""
    assert rec.aligned, rec
    kind, cigar = rec.tags["cg"]
    assert kind == "Z"
    c = cigar_totals(cigar)
    assert rec.matches == c["="], (rec, c)
    assert rec.block == c["="] + c["X"] + c["I"] + c["D"], (rec, c)
    assert rec.tags["NM"] == ("i", c["X"] + c["I"] + c["D"]), (rec, c)
    assert rec.qend - rec.qstart == c["="] + c["X"] + c["I"], (rec, c)
    assert rec.pend - rec.pstart == c["="] + c["X"] + c["D"], (rec, c)
    if seg_len is not None:
        steps = rec.steps
        assert all(a != b for a, b in zip(steps, steps[1:])), rec  # one step per node visit
        lengths = [seg_len[name] for _, name in steps]
        assert rec.plen == sum(lengths), (rec, lengths)
        assert rec.pstart < lengths[0], (rec, lengths)  # the span starts on the first node
        assert rec.pend > rec.plen - lengths[-1], (rec, lengths)  # and ends on the last
    return c
