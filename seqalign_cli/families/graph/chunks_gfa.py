"""GFA1 graphs read and prepared for read-to-graph alignment: the oriented DAG spelled base by base.

Reading: plain or gzip text (detected from the first bytes), '-' is stdin.
``S name seq`` lines give segments, ``L a oa b ob overlap`` lines links
(overlap ``0M`` or ``*``); H, P, W, C, comment, blank and unknown lines are
ignored and lines may come in any order. Segment letters are held to the
reads' rules (``validate``: IUPAC nucleotide codes and X). Every problem is a
one-line ``InputError`` naming the file and, where one is to blame, the line.

Segment names may not hold ``>`` or ``<`` (rGFA and GAF forbid them: a path
``>a>b`` written with such a name cannot be split again, in GAF as in the
TSV's path column) nor a control byte (0-31, 127: no output holds it); the
first segment in file order whose name or letters break a rule is named,
its name first. GFA2 is refused as such, on the first line that shows it (an
H line with ``VN:Z:2.x``; an E, G, O, U or F line, record types GFA1 does not
have; an ``S sid slen seq`` line: a third field of digits and a fourth),
rather than as a digit in a segment's sequence.

Preparation (``load_graph``):

* oriented nodes: node id = 2*segment + rev (rev 1: the reverse complement,
  A C G T <-> T G C A and U -> A, other letters unchanged, case kept); a link gives the
  edge (a,oa)->(b,ob) and its complement (b,!ob)->(a,!oa); with
  ``forward_only`` only the forward nodes and the edges between two of them;
* the nodes in topological order (Kahn, the smallest ready node id first);
  a cycle is an error naming the segment of the smallest node on a cycle
  and the line of a link on that cycle;
* the bases spelled node after node in that order (``Graph``): codes, the
  node and offset of each base, the predecessor bases as a CSR (ascending,
  every predecessor before its base), source and sink flags, and the row
  storage plan of the DP (``slot``, ``n_slots``): a row read by a later row
  other than the next one keeps a slot until its last reader; slots are
  given greedily in base order, the smallest free one first.

Lines are read in Python (one step per S or L line); everything per node,
edge or base is built with array operations and compiled loops (Kahn's
algorithm, the spelling, the slot plan), so that a graph of millions of
bases loads in seconds.
"""

from __future__ import annotations

import gzip
import sys
import zlib
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, UsageError
from ...io.encode import COMPLEMENT, encode_all
from ...io.validate import first_bad_nucleotide, letter_message, shown_char, shown_name
from ...jit import nb

__all__ = ["Graph", "GfaText", "build_graph", "load_graph", "parse_gfa"]

_JIT = dict(nogil=True, cache=True, boundscheck=False)
_COMPLEMENT = COMPLEMENT.tobytes()  # as a bytes.translate table
#: bases a graph may hold (base and predecessor indices are int32)
MAX_BASES = (1 << 31) - 2


@dataclass(eq=False)
class Graph:
    """An acyclic oriented sequence graph spelled base by base in topological order (n = ``n_bases``).

    Per base: ``codes`` (uint8, see ``encode``), ``node`` (int32, the
    oriented node id 2*segment + rev), ``offset`` (int32, in its node, in
    the node's orientation), ``source`` / ``sink`` (the first base of a node
    without incoming edges / the last base of a node without outgoing ones),
    ``slot`` (int32, -1 when the row needs none). Predecessor bases:
    ``pred[pred_off[v]:pred_off[v + 1]]`` (int64 offsets, int32 bases,
    ascending, all below v). Per segment (file order): ``names``,
    ``seg_len`` (int64); per oriented node: ``node_first`` (int64, its first
    base; -1 for a node not in the graph). ``path``: the file as messages
    name it.
    """

    codes: np.ndarray
    node: np.ndarray
    offset: np.ndarray
    pred_off: np.ndarray
    pred: np.ndarray
    source: np.ndarray
    sink: np.ndarray
    names: list[str]
    seg_len: np.ndarray
    node_first: np.ndarray
    path: str
    slot: np.ndarray
    n_slots: int
    forward_only: bool = False

    def __repr__(self) -> str:
        return (f"Graph({self.path!r}: {self.n_segments} segments, {self.n_bases} bases, "
                f"{self.n_slots} slots{', forward only' if self.forward_only else ''})")

    @property
    def n_bases(self) -> int:
        return len(self.codes)

    @property
    def n_segments(self) -> int:
        return len(self.names)

    @property
    def n_nodes(self) -> int:
        """Oriented nodes in the graph (both orientations of every segment, or the forward ones)."""
        return int(np.count_nonzero(self.node_first >= 0))

    def node_name(self, node: int) -> str:
        """``>name`` for a forward node, ``<name`` for a reverse-complement one."""
        return ("<" if node & 1 else ">") + self.names[node >> 1]

    def node_len(self, node: int) -> int:
        return int(self.seg_len[node >> 1])

    def preds(self, v: int) -> np.ndarray:
        """The predecessor bases of base ``v`` (ascending)."""
        return self.pred[self.pred_off[v]:self.pred_off[v + 1]]


# ------------------------------------------------------------------ reading

def _read_bytes(path: str) -> bytes:
    """The whole text of a GFA file or stdin, gunzipped when it starts with the gzip magic."""
    shown = "<stdin>" if path == "-" else path
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise UsageError("no such file", path=path) from None
        except IsADirectoryError:
            raise UsageError("is a directory, expected a GFA file", path=path) from None
        except PermissionError:
            raise UsageError("permission denied", path=path) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except EOFError:
            raise InputError("truncated gzip file", path=shown) from None
        except (zlib.error, gzip.BadGzipFile) as exc:
            raise InputError(f"corrupt gzip data ({exc})", path=shown) from None
    return data


@dataclass(eq=False)
class GfaText:
    """What a GFA file says, before orientation: segments (file order) and links (file order)."""

    path: str
    names: list[bytes]
    seqs: list[bytes]
    seg_line: list[int]
    #: per link: the segment names, the orientations (0 '+', 1 '-') and the line
    link_a: list[bytes]
    link_ra: list[int]
    link_b: list[bytes]
    link_rb: list[int]
    link_line: list[int]


def _shown(b: bytes) -> str:
    """A name in a message: escaped where not printable (one line), shortened past 40 characters."""
    return shown_name(b.decode("utf-8", "replace"))


#: record types of GFA2 alone (edge, gap, ordered and unordered group, fragment)
_GFA2_TYPES = {b"E": "an E line (a GFA2 edge)", b"G": "a G line (a GFA2 gap)",
               b"O": "an O line (a GFA2 ordered group)", b"U": "a U line (a GFA2 unordered group)",
               b"F": "an F line (a GFA2 fragment)"}
_GFA2 = "GFA2 is not supported (GFA 1 only): "


def _gfa2_header(line: bytes) -> bytes | None:
    """The ``VN:Z:`` tag of an H line when it gives version 2 (``2``, ``2.0``, ...), else None."""
    for tag in line.split(b"\t")[1:]:
        if tag.startswith(b"VN:Z:") and (tag[5:] == b"2" or tag[5:].startswith(b"2.")):
            return tag
    return None


def parse_gfa(data: bytes, shown: str) -> GfaText:
    """The segments and links of GFA1 text ``data`` (every malformed S or L line an error naming it)."""
    names: list[bytes] = []
    seqs: list[bytes] = []
    seg_line: list[int] = []
    index: dict[bytes, int] = {}
    la: list[bytes] = []
    lra: list[int] = []
    lb: list[bytes] = []
    lrb: list[int] = []
    lline: list[int] = []
    orient = {b"+": 0, b"-": 1}

    def error(message, lineno):
        return InputError(message, path=shown, line=lineno)

    for lineno, line in enumerate(data.split(b"\n"), 1):
        kind = line[:1]
        if kind != b"S" and kind != b"L" and kind != b"H" and kind not in _GFA2_TYPES:
            continue
        if len(line) > 1 and line[1:2] != b"\t" and line[1:] != b"\r":
            continue  # another record type that starts with the same letter
        if line[-1:] == b"\r":
            line = line[:-1]
        if kind == b"H":
            tag = _gfa2_header(line)
            if tag is not None:
                raise error(f"{_GFA2}the header gives {_shown(tag)}", lineno)
            continue
        if kind in _GFA2_TYPES:
            raise error(_GFA2 + _GFA2_TYPES[kind], lineno)
        if kind == b"S":
            f = line.split(b"\t", 3)
            if len(f) < 3:
                raise error(f"malformed S line: expected S<TAB>name<TAB>sequence, found {len(f)} "
                            f"field{'s' if len(f) != 1 else ''}", lineno)
            if len(f) == 4 and f[2].isdigit():  # GFA1 letters are no digits: GFA2's S sid slen sequence
                raise error(f"{_GFA2}an S line with a length before its sequence "
                            f"(S<TAB>name<TAB>length<TAB>sequence)", lineno)
            if not f[1]:
                raise error("malformed S line: an empty segment name", lineno)
            name, seq = f[1], f[2]
            if seq == b"*":
                raise error(f"segment {_shown(name)} has no sequence ('*'); the graph needs the "
                            f"sequence of every segment", lineno)
            if not seq:
                raise error(f"segment {_shown(name)} has an empty sequence", lineno)
            if name in index:
                raise error(f"duplicate segment name {_shown(name)} (first on line "
                            f"{seg_line[index[name]]})", lineno)
            index[name] = len(names)
            names.append(name)
            seqs.append(seq)
            seg_line.append(lineno)
        else:
            f = line.split(b"\t", 6)
            if len(f) < 6:
                raise error(f"malformed L line: expected L<TAB>from<TAB>+/-<TAB>to<TAB>+/-<TAB>overlap, "
                            f"found {len(f)} field{'s' if len(f) != 1 else ''}", lineno)
            for name, o in ((f[1], f[2]), (f[3], f[4])):
                if o not in orient:
                    raise error(f"malformed L line: orientation {_shown(o)!r} of segment "
                                f"{_shown(name)} is not '+' or '-'", lineno)
                if not name:
                    raise error("malformed L line: an empty segment name", lineno)
            if f[5] != b"0M" and f[5] != b"*":
                raise error(f"overlap {_shown(f[5])!r} on the link {_shown(f[1])}{f[2].decode()} -> "
                            f"{_shown(f[3])}{f[4].decode()} is not supported: only 0M or * (links "
                            f"without overlap)", lineno)
            la.append(f[1])
            lra.append(orient[f[2]])
            lb.append(f[3])
            lrb.append(orient[f[4]])
            lline.append(lineno)
    if not names:
        raise InputError("no segments (no S line): an empty graph, or not GFA", path=shown)
    _check_segments(names, seqs, seg_line, shown)
    return GfaText(shown, names, seqs, seg_line, la, lra, lb, lrb, lline)


def _first_in(parts: list[bytes], i: int) -> tuple[int, int]:
    """(part index, 0-based position in it) of byte ``i`` of the concatenation of ``parts``."""
    ends = np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)))
    k = int(np.searchsorted(ends, i, "right"))
    return k, i - (int(ends[k - 1]) if k else 0)


def _name_message(name: bytes, c: int, position: int) -> str:
    """Why segment ``name`` is refused: byte ``c`` at 1-based ``position``, '>', '<' or a control byte."""
    if c in b"<>":
        return (f"segment name {_shown(name)} holds {chr(c)!r} at position {position}: paths write segments as "
                f">a<b (GAF, the TSV path column), so rGFA and GAF forbid '>' and '<' in names; rename the segment")
    return (f"segment name {_shown(name)} holds the control character {shown_char(c)} at position {position}: "
            f"no output format can hold it")


def _check_segments(names: list[bytes], seqs: list[bytes], seg_line: list[int], shown: str):
    """The first segment (file order) whose name or letters break a rule, its name first; all at once.

    Names: no '>' or '<', no control byte. Letters: as the FASTA/FASTQ reader
    checks reads (``validate``).
    """
    joined = np.frombuffer(b"".join(names), np.uint8)
    bad = (joined < 32) | (joined == 127) | (joined == ord("<")) | (joined == ord(">"))
    i_name = int(bad.argmax()) if bad.any() else -1
    letters = np.frombuffer(b"".join(seqs), np.uint8)
    i_letter = int(first_bad_nucleotide(letters))
    k_name, at_name = _first_in(names, i_name) if i_name >= 0 else (len(names), 0)
    k_letter, at_letter = _first_in(seqs, i_letter) if i_letter >= 0 else (len(seqs), 0)
    if k_name < len(names) and k_name <= k_letter:
        raise InputError(_name_message(names[k_name], int(joined[i_name]), at_name + 1), path=shown,
                         line=seg_line[k_name])
    if k_letter < len(seqs):
        message = letter_message(int(letters[i_letter]), at_letter + 1)
        raise InputError(f"segment {_shown(names[k_letter])}: {message}", path=shown, line=seg_line[k_letter])


# ------------------------------------------------------------------ compiled loops

@nb.njit(**_JIT)
def _push(h, size, x):
    """Push ``x`` onto the min-heap ``h[:size]``; returns the new size."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if h[p] <= x:
            break
        h[i] = h[p]
        i = p
    h[i] = x
    return size + 1


@nb.njit(**_JIT)
def _pop(h, size):
    """The smallest item of the min-heap ``h[:size]`` and the new size."""
    top = h[0]
    size -= 1
    x = h[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and h[c + 1] < h[c]:
            c += 1
        if h[c] >= x:
            break
        h[i] = h[c]
        i = c
    if size > 0:
        h[i] = x
    return top, size


@nb.njit(**_JIT)
def _kahn(present, out_off, out_adj, indeg):
    """Topological order of the present nodes, the smallest ready id first; ``indeg`` is consumed.

    Returns the order (shorter than the present nodes when there is a cycle).
    """
    n = present.shape[0]
    heap = np.empty(n, np.int64)
    size = 0
    count = 0
    for v in range(n):
        if present[v]:
            count += 1
            if indeg[v] == 0:
                size = _push(heap, size, v)
    order = np.empty(count, np.int64)
    k = 0
    while size > 0:
        v, size = _pop(heap, size)
        order[k] = v
        k += 1
        for e in range(out_off[v], out_off[v + 1]):
            w = out_adj[e]
            indeg[w] -= 1
            if indeg[w] == 0:
                size = _push(heap, size, w)
    return order[:k]


@nb.njit(**_JIT)
def _transpose(n_nodes, eu, ev):
    """The in-edges of each node: (n_nodes+1,) offsets and the edge indices (ascending within a node)."""
    in_off = np.zeros(n_nodes + 1, np.int64)
    for e in range(ev.shape[0]):
        in_off[ev[e] + 1] += 1
    for v in range(n_nodes):
        in_off[v + 1] += in_off[v]
    fill = in_off[:-1].copy()
    in_edge = np.empty(ev.shape[0], np.int64)
    for e in range(ev.shape[0]):
        in_edge[fill[ev[e]]] = e
        fill[ev[e]] += 1
    return in_off, in_edge


@nb.njit(**_JIT)
def _spell(order, node_first, seg_off, seg_len, fw, rc, in_off, in_src, out_off, n, n_pred):
    """The per-base arrays: codes, node, offset, the predecessor CSR, source and sink flags."""
    codes = np.empty(n, np.uint8)
    node = np.empty(n, np.int32)
    offset = np.empty(n, np.int32)
    pred_off = np.empty(n + 1, np.int64)
    pred = np.empty(n_pred, np.int32)
    source = np.zeros(n, np.bool_)
    sink = np.zeros(n, np.bool_)
    pred_off[0] = 0
    p = 0
    for k in range(order.shape[0]):
        v = order[k]
        seg = v >> 1
        length = seg_len[seg]
        b = node_first[v]
        s0 = seg_off[seg]
        if v & 1:
            for i in range(length):
                codes[b + i] = rc[s0 + length - 1 - i]
        else:
            for i in range(length):
                codes[b + i] = fw[s0 + i]
        for i in range(length):
            node[b + i] = v
            offset[b + i] = i
        # the first base: the last bases of the predecessor nodes, ascending
        start = p
        for e in range(in_off[v], in_off[v + 1]):
            u = in_src[e]
            pred[p] = node_first[u] + seg_len[u >> 1] - 1
            p += 1
        if p - start > 16:
            pred[start:p] = np.sort(pred[start:p])
        else:
            for i in range(start + 1, p):
                x = pred[i]
                j = i
                while j > start and pred[j - 1] > x:
                    pred[j] = pred[j - 1]
                    j -= 1
                pred[j] = x
        pred_off[b + 1] = p
        source[b] = p == start
        for i in range(1, length):
            pred[p] = b + i - 1
            p += 1
            pred_off[b + i + 1] = p
        sink[b + length - 1] = out_off[v + 1] == out_off[v]
    return codes, node, offset, pred_off, pred, source, sink


@nb.njit(**_JIT)
def _plan_slots(order, node_first, seg_len, out_off, out_adj, n):
    """The row storage plan: ``slot`` (n,) int32 (-1: no slot) and the number of slots.

    Row u (the last base of a node) needs a slot when a successor is not u+1;
    it holds it until its largest successor. Rows take slots in base order,
    the smallest free one first; a slot is free again for row u once its
    owner's largest successor is below u.
    """
    slot = np.full(n, -1, np.int32)
    m = order.shape[0]
    active = np.empty(m, np.int64)  # (last use << 32) | slot
    free = np.empty(m, np.int64)
    na = 0
    nf = 0
    n_slots = 0
    for k in range(m):
        v = order[k]
        u = node_first[v] + seg_len[v >> 1] - 1
        last_use = -1
        need = False
        for e in range(out_off[v], out_off[v + 1]):
            f = node_first[out_adj[e]]
            if f != u + 1:
                need = True
            if f > last_use:
                last_use = f
        if not need:
            continue
        while na > 0 and (active[0] >> 32) < u:
            key, na = _pop(active, na)
            nf = _push(free, nf, key & 0xFFFFFFFF)
        if nf > 0:
            s, nf = _pop(free, nf)
        else:
            s = n_slots
            n_slots += 1
        slot[u] = s
        na = _push(active, na, (last_use << 32) | s)
    return slot, n_slots


@nb.njit(**_JIT)
def _components(alive, out_off, out_adj):
    """Strongly connected components of the subgraph of the ``alive`` nodes (iterative Tarjan); -1 elsewhere."""
    n = alive.shape[0]
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    comp = np.full(n, -1, np.int64)
    on_stack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    call = np.empty(n, np.int64)
    next_edge = np.empty(n, np.int64)
    sp = 0
    counter = 0
    n_comp = 0
    for s in range(n):
        if not alive[s] or index[s] >= 0:
            continue
        index[s] = counter
        low[s] = counter
        counter += 1
        stack[sp] = s
        sp += 1
        on_stack[s] = True
        call[0] = s
        next_edge[0] = out_off[s]
        depth = 1
        while depth > 0:
            v = call[depth - 1]
            e = next_edge[depth - 1]
            if e < out_off[v + 1]:
                next_edge[depth - 1] = e + 1
                w = out_adj[e]
                if not alive[w]:
                    continue
                if index[w] < 0:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    on_stack[w] = True
                    call[depth] = w
                    next_edge[depth] = out_off[w]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = False
                        comp[w] = n_comp
                        if w == v:
                            break
                    n_comp += 1
                depth -= 1
                if depth > 0:
                    p = call[depth - 1]
                    if low[v] < low[p]:
                        low[p] = low[v]
    return comp


# ------------------------------------------------------------------ preparation

def _cycle_error(text: GfaText, alive: np.ndarray, out_off, out_adj, in_off, in_edge, eu, eline) -> InputError:
    """The error for a cycle: the smallest oriented node on one, and the line of a link on that cycle.

    ``alive``: the nodes Kahn's algorithm could not place (every cycle lies among them).
    """
    comp = _components(alive, out_off, out_adj)
    size = np.bincount(comp[alive], minlength=int(comp.max()) + 1)
    on_cycle = alive & (size[np.maximum(comp, 0)] > 1)
    loops = eu[out_adj == eu]  # nodes with a self-loop (out_adj: the head of each edge, as eu its tail)
    on_cycle[loops] = True
    x = int(np.flatnonzero(on_cycle)[0])
    edges = in_edge[in_off[x]:in_off[x + 1]]
    inside = edges[comp[eu[edges]] == comp[x]]  # links into x from its own component: on a cycle
    line = int(eline[inside].min())
    name = _shown(text.names[x >> 1])
    return InputError(f"cycle through segment {name}: the oriented graph must be acyclic "
                      f"(a link on the cycle is on this line)", path=text.path, line=line)


def _segment_ids(text: GfaText) -> tuple[np.ndarray, np.ndarray]:
    """The segment index of both ends of every link; a missing segment is an error naming the link's line."""
    index = {name: k for k, name in enumerate(text.names)}
    ia = list(map(index.get, text.link_a))
    ib = list(map(index.get, text.link_b))
    if None in ia or None in ib:
        for k, (a, b) in enumerate(zip(ia, ib)):
            if a is None or b is None:
                missing = text.link_a[k] if a is None else text.link_b[k]
                raise InputError(f"link to a missing segment {_shown(missing)} (no S line names it)",
                                 path=text.path, line=text.link_line[k])
    return np.asarray(ia, np.int64), np.asarray(ib, np.int64)


def build_graph(text: GfaText, forward_only: bool = False) -> Graph:
    """The oriented DAG of ``text``, spelled base by base (see the module notes)."""
    n_seg = len(text.names)
    n_nodes = 2 * n_seg
    ia, ib = _segment_ids(text)
    ra = np.asarray(text.link_ra, np.int64)
    rb = np.asarray(text.link_rb, np.int64)
    lines = np.asarray(text.link_line, np.int64)

    # edges: each link and its complement; deduplicated, each with the first line that gives it
    eu = np.concatenate([2 * ia + ra, 2 * ib + (1 - rb)])
    ev = np.concatenate([2 * ib + rb, 2 * ia + (1 - ra)])
    eline = np.concatenate([lines, lines])
    present = np.ones(n_nodes, bool)
    if forward_only:
        present[1::2] = False
        keep = ((eu & 1) == 0) & ((ev & 1) == 0)
        eu, ev, eline = eu[keep], ev[keep], eline[keep]
    key = eu * n_nodes + ev
    o = np.argsort(key)
    key = key[o]
    first = np.ones(len(o), bool)
    first[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(first)
    eline = np.minimum.reduceat(eline[o], starts) if len(o) else eline
    o = o[starts]
    eu, ev = eu[o], ev[o]  # sorted by (u, v)

    out_off = np.zeros(n_nodes + 1, np.int64)
    np.cumsum(np.bincount(eu, minlength=n_nodes), out=out_off[1:])
    in_off, in_edge = _transpose(n_nodes, eu, ev)
    in_src = eu[in_edge]
    indeg = np.diff(in_off)
    order = _kahn(present, out_off, ev, indeg.copy())
    if len(order) < int(present.sum()):
        alive = present.copy()
        alive[order] = False
        raise _cycle_error(text, alive, out_off, ev, in_off, in_edge, eu, eline)

    seg_len = np.fromiter(map(len, text.seqs), np.int64, n_seg)
    seg_off = np.zeros(n_seg + 1, np.int64)
    np.cumsum(seg_len, out=seg_off[1:])
    lens = seg_len[order >> 1]
    n = int(lens.sum())
    if n > MAX_BASES:
        raise InputError(f"{n} bases in the oriented graph: more than {MAX_BASES} are not supported",
                         path=text.path)
    node_first = np.full(n_nodes, -1, np.int64)
    node_first[order[1:]] = np.cumsum(lens[:-1])
    node_first[order[0]] = 0

    letters = b"".join(text.seqs)
    fw = encode_all(np.frombuffer(letters, np.uint8))
    rc = fw if forward_only else encode_all(np.frombuffer(letters.translate(_COMPLEMENT), np.uint8))
    codes, node, offset, pred_off, pred, source, sink = _spell(
        order, node_first, seg_off, seg_len, fw, rc, in_off, in_src, out_off, n, n - len(order) + len(eu))
    slot, n_slots = _plan_slots(order, node_first, seg_len, out_off, ev, n)

    return Graph(codes=codes, node=node, offset=offset, pred_off=pred_off, pred=pred, source=source,
                 sink=sink, names=[s.decode("utf-8", "replace") for s in text.names], seg_len=seg_len,
                 node_first=node_first, path=text.path, slot=slot, n_slots=int(n_slots),
                 forward_only=forward_only)


def load_graph(path: str, forward_only: bool = False) -> Graph:
    """The GFA1 graph at ``path`` ('-': stdin), prepared for alignment (see ``Graph``)."""
    shown = "<stdin>" if path == "-" else path
    return build_graph(parse_gfa(_read_bytes(path), shown), forward_only)
