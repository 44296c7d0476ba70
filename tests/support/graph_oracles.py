"""Independent oracles for the ``graph`` family (a read against a directed acyclic sequence graph).

Nothing here reads GFA through ``seqalign_cli`` or runs a graph engine: the
oriented graph, the DP and the checks are written from the definitions of
the graph specification alone. The only engine used is the pairwise CPU
engine, by ``best_over_paths``, to score a read against each spelled path.

* ``parse_gfa`` / ``orient``: a minimal GFA1 reader (S and L lines) and the
  oriented graph: node id ``2 * segment + rev`` (segments in file order,
  ``rev`` 0 = ``>`` forward, 1 = ``<`` reverse complement), every L line an
  edge and its complement, nodes ordered by Kahn's algorithm taking the
  smallest ready node id first, bases spelled node after node;
* ``dp_graph``: the optimal score of the specification's recurrences over a
  base-level DAG (lists; small cases only);
* ``ref_align``: the same DP keeping every choice, walked back by the tie
  rules of the specification: the exact alignment an engine must report;
* ``enumerate_paths``: every source-to-sink walk of an oriented DAG, with the
  sequence it spells;
* ``best_over_paths``: the best pairwise score of the read against any
  source-to-sink path (global -> pair global, glocal -> pair glocal with the
  read as the query, local -> pair local): the score oracle that knows
  nothing of graph recurrences;
* ``rescore``: the score of a ``=``/``X``/``I``/``D`` CIGAR over a read span
  and the bases a path spells;
* ``check_alignment``: the invariants every reported alignment must hold;
* ``random_gfa`` / ``mutated_walk``: random small acyclic GFA texts and reads
  drawn from their walks;
* ``small_dag_rows`` / ``cactus_rows`` and small readers: the expected-score
  files of ``tests/data/graph`` (provenance in ``tests/data/README.md``).

Letters: A C G T (either case, U = T) are codes 0-3, anything else is N
(code 4). A pair with an N scores ``-n_penalty``; a match ``+match``; a
mismatch ``-mismatch``; a gap of length k costs ``gap_open + k * gap_extend``.
The reverse complement maps A C G T to T G C A and U (a T) to A (case kept)
and leaves any other letter as it is.
"""

from __future__ import annotations

import csv
import gzip
import heapq
import itertools
import re
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path

MODES = ("global", "glocal", "local")
NEG = float("-inf")
N_CODE = 4

GraphScoring = namedtuple("GraphScoring", "match mismatch gap_open gap_extend n_penalty")
GraphScoring.__doc__ = "A scoring scheme with the attributes of seqalign's Scoring (positive penalties)."
DEFAULT_SCORING = GraphScoring(match=2, mismatch=4, gap_open=4, gap_extend=2, n_penalty=1)

#: one alignment as the oracles and checks see it (``cigar`` '' when empty; ``end_base`` -1 when empty)
GraphRecord = namedtuple("GraphRecord", "score qstart qend path pstart pend cigar end_base")

_CODES = [N_CODE] * 256
for _i, _c in enumerate("ACGT"):
    _CODES[ord(_c)] = _i
    _CODES[ord(_c.lower())] = _i
_CODES[ord("U")] = _CODES[ord("u")] = 3

_COMPLEMENT = str.maketrans("ACGTUacgtu", "TGCAAtgcaa")


def encode(seq: str) -> list[int]:
    """The codes (0..4) of a sequence."""
    return [_CODES[ord(ch)] if ord(ch) < 256 else N_CODE for ch in seq]


def revcomp(seq: str) -> str:
    """Reverse complement (A C G T -> T G C A, U -> A, case kept, any other letter unchanged)."""
    return seq.translate(_COMPLEMENT)[::-1]


def vg_scoring(match: int, mismatch: int, gap_open: int, gap_extend: int, conv: str = "vg") -> GraphScoring:
    """Our scoring for another convention's parameters (N scores 0).

    ``vg``: a gap of length L costs O + (L-1) E, so our gap_open is O - E;
    ``ksw``: O + L E, the same as ours.
    """
    if conv == "vg":
        return GraphScoring(match, mismatch, gap_open - gap_extend, gap_extend, 0)
    if conv == "ksw":
        return GraphScoring(match, mismatch, gap_open, gap_extend, 0)
    raise ValueError(f"unknown gap convention {conv!r}")


def _pair(a: int, b: int, sc) -> int:
    if a == N_CODE or b == N_CODE:
        return -sc.n_penalty
    return sc.match if a == b else -sc.mismatch


# ---------------------------------------------------------------- GFA and the oriented graph


class GfaError(ValueError):
    """A GFA text the oracle cannot orient (``line`` 1-based when one line is at fault, else None)."""

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


def parse_gfa(text: str):
    """(names, seqs, links, s_lines): segments in file order, links ``(a, rev_a, b, rev_b, line)``, S line numbers.

    Only S and L lines are read; tabs separate fields. The checks the
    specification asks of a reader are made here too (``GfaError`` with the
    line): ``*`` or empty sequence, duplicate segment, overlap other than
    ``0M``/``*``, link to a missing segment, no segment at all.
    """
    names, seqs, s_lines, index, raw_links = [], [], [], {}, []
    for ln, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\r").split("\t")
        if f[0] == "S":
            if len(f) < 3:
                raise GfaError("S line needs a name and a sequence", ln)
            if f[2] in ("*", ""):
                raise GfaError(f"segment {f[1]} has no sequence", ln)
            if f[1] in index:
                raise GfaError(f"duplicate segment {f[1]}", ln)
            index[f[1]] = len(names)
            names.append(f[1])
            seqs.append(f[2])
            s_lines.append(ln)
        elif f[0] == "L":
            if len(f) < 6 or f[2] not in "+-" or f[4] not in "+-" or not f[2] or not f[4]:
                raise GfaError("malformed L line", ln)
            if f[5] not in ("0M", "*"):
                raise GfaError(f"overlap {f[5]} is not supported", ln)
            raw_links.append((f[1], f[2] == "-", f[3], f[4] == "-", ln))
    if not names:
        raise GfaError("no segment")
    links = []
    for a, ra, b, rb, ln in raw_links:
        for s in (a, b):
            if s not in index:
                raise GfaError(f"link to missing segment {s}", ln)
        links.append((index[a], int(ra), index[b], int(rb), ln))
    return names, seqs, links, s_lines


def gfa_paths(text: str) -> dict:
    """The P lines of a GFA text: path name -> [(segment name, '+' or '-')]."""
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if f[0] == "P" and len(f) >= 3:
            out[f[1]] = [(step[:-1], step[-1]) for step in f[2].split(",") if step]
    return out


def spell_steps(text: str, steps) -> str:
    """The sequence a list of (segment, '+'/'-') steps spells."""
    names, seqs, _, _ = parse_gfa(text)
    seq = dict(zip(names, seqs))
    return "".join(seq[n] if o == "+" else revcomp(seq[n]) for n, o in steps)


@dataclass
class OrientedGraph:
    """The oriented graph of a GFA text, nodes in the specification's topological order, and its bases.

    ``order``: node ids in topological order; ``succ``/``pred``: node id -> set of node ids;
    ``bases``: the letters in order; ``base_node``/``base_offset``: node id and offset of each base;
    ``preds``: ascending predecessor bases of each base; ``source``/``sink``: per base (first base of a
    node without incoming edge / last base of a node without outgoing edge).
    """

    names: list
    seqs: list
    forward_only: bool
    order: list = field(default_factory=list)
    succ: dict = field(default_factory=dict)
    pred: dict = field(default_factory=dict)
    node_seq: dict = field(default_factory=dict)
    node_first: dict = field(default_factory=dict)
    bases: str = ""
    base_node: list = field(default_factory=list)
    base_offset: list = field(default_factory=list)
    preds: list = field(default_factory=list)
    source: list = field(default_factory=list)
    sink: list = field(default_factory=list)

    @property
    def n_bases(self) -> int:
        return len(self.bases)

    def node_name(self, node: int) -> str:
        return ("<" if node & 1 else ">") + self.names[node >> 1]

    def path_name(self, path) -> str:
        """``>s1>s2<s3`` ('*' for the empty path)."""
        return "".join(self.node_name(v) for v in path) or "*"

    def parse_path(self, text: str) -> list[int]:
        """Node ids of a ``>s1<s2`` path string ('*' -> [])."""
        if text == "*":
            return []
        index = {n: k for k, n in enumerate(self.names)}
        parts = re.findall(r"([<>])([^<>]+)", text)
        assert "".join(o + n for o, n in parts) == text, f"malformed path {text!r}"
        return [2 * index[n] + (o == "<") for o, n in parts]

    def spell(self, path) -> str:
        return "".join(self.node_seq[v] for v in path)

    def path_length(self, path) -> int:
        return sum(len(self.node_seq[v]) for v in path)

    def sources(self) -> list[int]:
        """Nodes without incoming edge, ascending."""
        return sorted(v for v in self.order if not self.pred[v])

    def sinks(self) -> list[int]:
        return sorted(v for v in self.order if not self.succ[v])


def cycle_segments(text: str, forward_only: bool = False) -> set[str]:
    """Names of the segments with an oriented node on some cycle (empty when the oriented graph is acyclic)."""
    names, _, links, _ = parse_gfa(text)
    nodes, succ = _nodes_and_edges(len(names), links, forward_only)
    return {names[v >> 1] for v in _on_cycles(nodes, succ)}


def _on_cycles(nodes, succ) -> set[int]:
    """Nodes from which a walk of at least one edge comes back (small graphs: one search per node)."""
    out = set()
    for v in nodes:
        seen, stack = set(), list(succ[v])
        while stack:
            w = stack.pop()
            if w == v:
                out.add(v)
                break
            if w not in seen:
                seen.add(w)
                stack.extend(succ[w])
    return out


def _nodes_and_edges(n_segments: int, links, forward_only: bool):
    nodes = [2 * s + r for s in range(n_segments) for r in ((0,) if forward_only else (0, 1))]
    succ = {v: set() for v in nodes}
    for a, ra, b, rb, _ in links:
        for u, w in ((2 * a + ra, 2 * b + rb), (2 * b + (1 - rb), 2 * a + (1 - ra))):
            # forward only: an edge is kept when both of its ends are '>' nodes
            if u in succ and w in succ:
                succ[u].add(w)
    return nodes, succ


def orient(text: str, forward_only: bool = False) -> OrientedGraph:
    """The oriented graph of a GFA text (``GfaError`` on a bad text or a cycle)."""
    names, seqs, links, _ = parse_gfa(text)
    nodes, succ = _nodes_and_edges(len(names), links, forward_only)
    pred = {v: set() for v in nodes}
    for u in nodes:
        for w in succ[u]:
            pred[w].add(u)
    indeg = {v: len(pred[v]) for v in nodes}
    ready = [v for v in nodes if indeg[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for w in succ[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                heapq.heappush(ready, w)
    if len(order) != len(nodes):
        left = [v for v in nodes if indeg[v] > 0]
        on = sorted(_on_cycles(left, {v: {w for w in succ[v] if indeg[w] > 0} for v in left}))
        raise GfaError(f"cycle through segment {names[on[0] >> 1]}")
    g = OrientedGraph(names, seqs, forward_only, order=order, succ=succ, pred=pred)
    letters = []
    for v in order:
        seq = seqs[v >> 1]
        g.node_seq[v] = revcomp(seq) if v & 1 else seq
        g.node_first[v] = len(letters)
        for k, ch in enumerate(g.node_seq[v]):
            letters.append(ch)
            g.base_node.append(v)
            g.base_offset.append(k)
    g.bases = "".join(letters)
    for b in range(len(letters)):
        v, k = g.base_node[b], g.base_offset[b]
        if k:
            g.preds.append([b - 1])
        else:
            g.preds.append(sorted(g.node_first[u] + len(g.node_seq[u]) - 1 for u in pred[v]))
        g.source.append(k == 0 and not pred[v])
        g.sink.append(k == len(g.node_seq[v]) - 1 and not succ[v])
    return g


def slot_plan(preds) -> tuple[list[int], int]:
    """(slot of each base, number of slots) of the specification's row storage plan.

    Row u needs a slot when it has a successor other than u + 1; its last
    use is its largest successor. Slots are handed out in base order, the
    smallest free one first; the slot of row w is free again for row u when
    w's last use is below u. -1 for a row that needs none.
    """
    n = len(preds)
    last = [-1] * n
    needs = [False] * n
    for v in range(n):
        for u in preds[v]:
            last[u] = max(last[u], v)
            if v != u + 1:
                needs[u] = True
    slots, owner, free_from = [-1] * n, {}, []
    used = 0
    for u in range(n):
        for s, w in list(owner.items()):
            if last[w] < u:
                del owner[s]
                heapq.heappush(free_from, s)
        if needs[u]:
            if free_from:
                s = heapq.heappop(free_from)
            else:
                s, used = used, used + 1
            owner[s] = u
            slots[u] = s
    return slots, used


# ---------------------------------------------------------------- the DP


def _fill(read: str, bases, preds, sources, sc, mode: str, keep: bool):
    """Rows of H/E/F (and, with ``keep``, every choice) for each base in order; the S row."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    r = encode(read)
    g = encode(bases) if isinstance(bases, str) else [encode(x)[0] if isinstance(x, str) else x for x in bases]
    m, n = len(r), len(g)
    go, ge = sc.gap_open, sc.gap_extend
    HS = [0] + [0 if mode == "local" else -(go + j * ge) for j in range(1, m + 1)]
    ES = [NEG] * (m + 1)
    H, E, F = [None] * n, [None] * n, [None] * n
    rec = [None] * n
    for v in range(n):
        start = sources[v] if mode == "global" else True
        plist = (["S"] if start else []) + sorted(preds[v])
        assert all(p == "S" or p < v for p in plist), f"base {v}: a predecessor does not come first"
        PH, PE = [NEG] * (m + 1), [NEG] * (m + 1)
        aH, aE = [None] * (m + 1), [None] * (m + 1)
        for p in plist:
            hrow, erow = (HS, ES) if p == "S" else (H[p], E[p])
            for j in range(m + 1):
                if aH[j] is None or hrow[j] > PH[j]:
                    PH[j], aH[j] = hrow[j], p
                if aE[j] is None or erow[j] > PE[j]:
                    PE[j], aE[j] = erow[j], p
        Ev, Eo = [0] * (m + 1), [False] * (m + 1)
        for j in range(m + 1):
            op, ex = PH[j] - go - ge, PE[j] - ge
            Ev[j], Eo[j] = (op, True) if op >= ex else (ex, False)
        Hv, Fv, Fo, src = [Ev[0]] + [0] * m, [NEG] + [0] * m, [False] * (m + 1), ["E"] + [None] * m
        for j in range(1, m + 1):
            op, ex = Hv[j - 1] - go - ge, Fv[j - 1] - ge
            Fv[j], Fo[j] = (op, True) if op >= ex else (ex, False)
            best, how = PH[j - 1] + _pair(g[v], r[j - 1], sc), "D"
            if Fv[j] > best:
                best, how = Fv[j], "F"
            if Ev[j] > best:
                best, how = Ev[j], "E"
            Hv[j], src[j] = best, how
        H[v], E[v], F[v] = Hv, Ev, Fv
        if keep:
            rec[v] = (aH, aE, Eo, Fo, src)
    return H, HS, rec, r, g


def _end(H, HS, sinks, m: int, mode: str):
    """(score, end base or None for the empty alignment, end column)."""
    n = len(H)
    if mode == "local":
        best, bv, bj = NEG, None, 0
        for v in range(n):
            for j in range(1, m + 1):
                if H[v][j] > best:
                    best, bv, bj = H[v][j], v, j
        if best <= 0:
            return 0, None, 0
        return best, bv, bj
    best, bv = NEG, None
    for v in range(n):
        if (mode == "glocal" or sinks[v]) and H[v][m] > best:
            best, bv = H[v][m], v
    if mode == "glocal" and HS[m] > best:
        return HS[m], None, m
    assert bv is not None, "global mode: no sink base"
    return best, bv, m


def dp_graph(read: str, bases, preds, sources, sinks, scoring, mode: str) -> int:
    """The optimal score of ``read`` against the base-level DAG (the specification's recurrences).

    ``bases``: the letters (a str, or letters/codes) in an order where every
    predecessor comes first; ``preds[v]``: predecessor bases of v;
    ``sources``/``sinks``: per base, whether a global alignment may start /
    end there. Plain Python: keep reads and graphs small.
    """
    H, HS, _, r, _ = _fill(read, bases, preds, sources, scoring, mode, keep=False)
    score = _end(H, HS, sinks, len(r), mode)[0]
    assert score != NEG
    return int(score)


def dp_graph_gfa(read: str, text: str, scoring, mode: str, forward_only: bool = False) -> int:
    """``dp_graph`` on a GFA text's oriented graph."""
    g = orient(text, forward_only)
    return dp_graph(read, g.bases, g.preds, g.source, g.sink, scoring, mode)


def runs(ops) -> str:
    """Run-length string of a sequence of op letters ('' when empty)."""
    return "".join(f"{len(list(grp))}{op}" for op, grp in itertools.groupby(ops))


def ref_align(read: str, g: OrientedGraph, scoring, mode: str) -> GraphRecord:
    """The alignment the specification's tie rules pick (the walk from the end cell), as a ``GraphRecord``.

    Empty alignments (local score 0, glocal empty path) have path [], spans 0,
    cigar '' and end_base -1.
    """
    H, HS, rec, r, codes = _fill(read, g.bases, g.preds, g.source, scoring, mode, keep=True)
    m = len(r)
    score, v, j = _end(H, HS, g.sink, m, mode)
    if v is None:
        return GraphRecord(int(score), 0, 0, [], 0, 0, "", -1)
    end_base, qend = v, j
    ops, consumed = [], []
    state = "H"
    while True:
        aH, aE, Eo, Fo, src = rec[v]
        if state == "H" and src[j] == "D":
            ops.append("=" if codes[v] == r[j - 1] < N_CODE else "X")
            consumed.append(v)
            v, j = aH[j - 1], j - 1
        elif state == "F" or (state == "H" and src[j] == "F"):
            ops.append("I")
            state = "H" if Fo[j] else "F"
            j -= 1
        else:  # E, from H or in the E state
            ops.append("D")
            consumed.append(v)
            v, state = (aH[j], "H") if Eo[j] else (aE[j], "E")
        if v == "S":
            assert state == "H", "the walk reached the start row outside H"
            if mode == "local":
                qstart = j
            else:
                ops += ["I"] * j
                qstart = 0
            break
    ops.reverse()
    consumed.reverse()
    path = [node for node, _ in itertools.groupby(g.base_node[b] for b in consumed)]
    first, last = consumed[0], consumed[-1]
    pstart = g.base_offset[first]
    pend = sum(len(g.node_seq[x]) for x in path[:-1]) + g.base_offset[last] + 1
    return GraphRecord(int(score), qstart, qend, path, pstart, pend, runs(ops), end_base)


# ---------------------------------------------------------------- paths


def enumerate_paths(g: OrientedGraph, limit: int = 200_000):
    """Every source-to-sink walk of the oriented DAG as (node ids, spelled sequence), sources ascending.

    Raises ``ValueError`` past ``limit`` walks (small graphs only).
    """
    out = []

    def walk(path):
        if len(out) > limit:
            raise ValueError(f"more than {limit} source-to-sink paths")
        v = path[-1]
        if not g.succ[v]:
            out.append((list(path), g.spell(path)))
            return
        for w in sorted(g.succ[v]):
            path.append(w)
            walk(path)
            path.pop()

    for s in g.sources():
        walk([s])
    return out


def count_paths(g: OrientedGraph) -> int:
    """Number of source-to-sink walks (without listing them)."""
    ways = {}
    for v in reversed(g.order):
        ways[v] = 1 if not g.succ[v] else sum(ways[w] for w in g.succ[v])
    return sum(ways[s] for s in g.sources())


_PAIR_MODE = {"global": "global", "glocal": "glocal", "local": "local", "semi-global": "semi-global"}


def pair_scores(reads, targets, scoring, mode: str):
    """Pairwise scores of read k against target k by ``seqalign pair``'s CPU engine (read = query)."""
    from seqalign_cli.families.pairwise.cpu import CpuPairwise
    from seqalign_cli.config import AlignConfig, Scoring
    from seqalign_cli.families.pairwise.batch import make_batch

    sc = Scoring(match=scoring.match, mismatch=scoring.mismatch, gap_open=scoring.gap_open,
                 gap_extend=scoring.gap_extend, n_penalty=scoring.n_penalty)
    batch = make_batch([x.encode() for x in reads], [t.encode() for t in targets])
    res = CpuPairwise(2).align(batch, AlignConfig(scoring=sc, mode=_PAIR_MODE[mode], traceback=False))
    return [int(x) for x in res.score]


def best_over_paths(read: str, gfa_text: str, scoring, mode: str, forward_only: bool = False,
                    with_path: bool = False):
    """The best pairwise score of ``read`` against any source-to-sink path of the GFA's oriented DAG.

    global -> pair global, glocal -> pair glocal (the read end to end, the
    path's ends free), local -> pair local. ``with_path``: (score, the first
    best path's node ids).
    """
    g = orient(gfa_text, forward_only) if isinstance(gfa_text, str) else gfa_text
    paths = enumerate_paths(g)
    scores = pair_scores([read] * len(paths), [s for _, s in paths], scoring, mode)
    best = max(scores)
    if with_path:
        return best, paths[scores.index(best)][0]
    return best


# ---------------------------------------------------------------- rescoring and invariants

_CIGAR = re.compile(r"(\d+)([=XID])")


def parse_cigar(cigar: str):
    """[(length, op)] of a =/X/I/D CIGAR ('*' or '' -> []); AssertionError when malformed."""
    if cigar in ("*", ""):
        return []
    out, pos = [], 0
    for mt in _CIGAR.finditer(cigar):
        assert mt.start() == pos and int(mt.group(1)) > 0, f"malformed CIGAR {cigar!r}"
        out.append((int(mt.group(1)), mt.group(2)))
        pos = mt.end()
    assert pos == len(cigar), f"malformed CIGAR {cigar!r}"
    for (_, a), (_, b) in zip(out, out[1:]):
        assert a != b, f"adjacent {a} runs in {cigar!r}"
    return out


def cigar_counts(cigar: str) -> dict:
    """Bases of each op of a CIGAR."""
    c = dict.fromkeys("=XID", 0)
    for ln, op in parse_cigar(cigar):
        c[op] += ln
    return c


def rescore(read: str, segment: str, cigar: str, scoring) -> int:
    """The score of ``cigar`` aligning ``read`` (exactly the read span) to ``segment`` (exactly the path span).

    ``=`` must pair two equal letters of ACGT (case-insensitive, U = T), ``X``
    anything else (N included); ``I`` is read only, ``D`` path only; each I or
    D run of length k costs ``gap_open + k * gap_extend``. AssertionError when
    the CIGAR does not cover both exactly.
    """
    r, t = encode(read), encode(segment)
    i = j = score = 0
    for ln, op in parse_cigar(cigar):
        if op in "=X":
            assert i + ln <= len(r) and j + ln <= len(t), f"{cigar!r} runs past its spans"
            for k in range(ln):
                a, b = r[i + k], t[j + k]
                same = a == b < N_CODE
                assert same == (op == "="), \
                    f"{op!r} at read {i + k} / path {j + k} pairs {read[i + k]}/{segment[j + k]}"
                score += _pair(a, b, scoring)
            i += ln
            j += ln
        elif op == "I":
            assert i + ln <= len(r), f"{cigar!r} runs past the read span"
            score -= scoring.gap_open + ln * scoring.gap_extend
            i += ln
        else:
            assert j + ln <= len(t), f"{cigar!r} runs past the path span"
            score -= scoring.gap_open + ln * scoring.gap_extend
            j += ln
    assert (i, j) == (len(r), len(t)), f"{cigar!r} covers read {i}/{len(r)}, path {j}/{len(t)}"
    return score


def check_alignment(read: str, g: OrientedGraph, rec, scoring, mode: str):
    """AssertionError unless ``rec`` (a ``GraphRecord``-like tuple; cigar '' or '*' when empty) is a valid alignment.

    * empty (no path): spans 0, no CIGAR; local score 0; glocal score of the
      read all inserted; never in global mode;
    * the path is a walk of the oriented DAG (consecutive nodes linked);
    * pstart lies in the first node, pend - 1 in the last one;
    * global: source to sink, whole path, whole read; glocal: whole read;
    * the read span and the path span agree with the CIGAR's lengths, and the
      CIGAR rescored over them gives the score;
    * local: the alignment starts and ends with a match and scores > 0.
    """
    score, qstart, qend, path, pstart, pend, cigar = rec[:7]
    m = len(read)
    path = list(path)
    if not path:
        assert mode != "global", "global alignment without a path"
        assert (qstart, qend, pstart, pend) == (0, 0, 0, 0) and cigar in ("", "*"), rec
        if mode == "local":
            assert score == 0, rec
        else:
            assert score == -(scoring.gap_open + m * scoring.gap_extend) if m else score == 0, rec
        return
    for v in path:
        assert v in g.node_seq, f"node {v} is not in the graph"
    for u, w in zip(path, path[1:]):
        assert w in g.succ[u], f"no edge {g.node_name(u)} -> {g.node_name(w)} in path {g.path_name(path)}"
    length = g.path_length(path)
    before_last = length - len(g.node_seq[path[-1]])
    assert 0 <= pstart < len(g.node_seq[path[0]]), f"pstart {pstart} outside the first node"
    assert before_last < pend <= length, f"pend {pend} outside the last node ({before_last}, {length}]"
    assert 0 <= qstart <= qend <= m, rec
    if mode == "global":
        assert not g.pred[path[0]] and not g.succ[path[-1]], f"global path {g.path_name(path)} is not source to sink"
        assert (pstart, pend) == (0, length), rec
    if mode != "local":
        assert (qstart, qend) == (0, m), rec
    c = cigar_counts(cigar)
    assert qend - qstart == c["="] + c["X"] + c["I"], f"read span {qstart}-{qend} vs {cigar}"
    assert pend - pstart == c["="] + c["X"] + c["D"], f"path span {pstart}-{pend} vs {cigar}"
    got = rescore(read[qstart:qend], g.spell(path)[pstart:pend], cigar, scoring)
    assert got == score, f"CIGAR {cigar} rescores to {got}, reported {score}"
    if mode == "local":
        runs_ = parse_cigar(cigar)
        assert score > 0 and runs_[0][1] == "=" and runs_[-1][1] == "=", rec


# ---------------------------------------------------------------- random graphs and reads


def random_seq(rng, n: int, alphabet: str = "ACGT") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def random_gfa(rng, n_segments: int, max_len: int = 6, p_edge: float = 0.35, inversions: bool = True,
               alphabet: str = "ACGT", extras: bool = True, minus_minus: bool = True) -> str:
    """A random GFA text whose oriented graph is acyclic (both orientations, and forward only).

    Segments get shuffled names and lengths 1..max_len; links run from an
    earlier to a later segment of a hidden order, as ``+ +`` or (when
    ``minus_minus``) the equivalent ``- -`` written from the other end, and
    with ``inversions`` some join opposite strands (``+ -``, ``- +``). Lines
    are shuffled; with ``extras``, H, P, comment and blank lines and ``*``
    overlaps are mixed in. Texts with a cycle are drawn again.
    """
    while True:
        names = [f"s{k}" for k in rng.sample(range(1, 10 * n_segments + 1), n_segments)]
        seqs = [random_seq(rng, rng.randint(1, max_len), alphabet) for _ in range(n_segments)]
        lines = [f"S\t{nm}\t{sq}" for nm, sq in zip(names, seqs)]
        links = []
        for a in range(n_segments):
            for b in range(a + 1, n_segments):
                if rng.random() < p_edge / (1 + 0.3 * (b - a - 1)):
                    ov = "*" if extras and rng.random() < 0.2 else "0M"
                    kind = rng.random()
                    if inversions and kind < 0.12:
                        links.append(f"L\t{names[a]}\t+\t{names[b]}\t-\t{ov}")
                    elif inversions and kind < 0.24:
                        links.append(f"L\t{names[a]}\t-\t{names[b]}\t+\t{ov}")
                    elif minus_minus and kind < 0.45:
                        links.append(f"L\t{names[b]}\t-\t{names[a]}\t-\t{ov}")
                    else:
                        links.append(f"L\t{names[a]}\t+\t{names[b]}\t+\t{ov}")
        if links and rng.random() < 0.1:
            links.append(rng.choice(links))  # a repeated link
        body = lines + links
        rng.shuffle(body)
        if extras:
            body.insert(0, "H\tVN:Z:1.0")
            if rng.random() < 0.3:
                body.insert(rng.randrange(len(body) + 1), "# a comment line")
            if rng.random() < 0.3:
                body.insert(rng.randrange(len(body) + 1), "")
            if rng.random() < 0.3:
                body.append(f"P\tp1\t{names[0]}+\t*")
        text = "\n".join(body) + "\n"
        try:
            orient(text, False)
            orient(text, True)
        except GfaError:
            continue
        return text


def random_walk(rng, g: OrientedGraph) -> list[int]:
    """A random source-to-sink walk."""
    path = [rng.choice(g.sources())]
    while g.succ[path[-1]]:
        path.append(rng.choice(sorted(g.succ[path[-1]])))
    return path


def mutate(rng, seq: str, rate: float, alphabet: str = "ACGT") -> str:
    """A copy of ``seq`` with substitutions, insertions and deletions at about ``rate``."""
    out = []
    for ch in seq:
        x = rng.random()
        if x < rate / 3:
            continue
        out.append(rng.choice(alphabet) if x < 2 * rate / 3 else ch)
        if x > 1 - rate / 3:
            out.append(rng.choice(alphabet))
    return "".join(out)


def mutated_walk(rng, g: OrientedGraph, rate: float = 0.15, trim: bool = True) -> str:
    """A read from a random walk: mutated, and (with ``trim``) often cut at both ends."""
    seq = g.spell(random_walk(rng, g))
    if trim and seq and rng.random() < 0.6:
        a = rng.randrange(len(seq))
        b = rng.randrange(a, len(seq)) + 1
        seq = seq[a:b]
    return mutate(rng, seq, rate)


# ---------------------------------------------------------------- data files

GRAPH_DATA = Path(__file__).resolve().parent.parent / "data" / "graph"

#: graph column of small_dag_expected.tsv -> (GFA file under tests/data/graph, read name in small_dag_reads.fa)
SMALL_DAG_FILES = {
    "113968116:113968146.gfa": ("113968116-113968146.gfa", "113968116-113968146"),
    "155227783-155227803.gfa": ("155227783-155227803.gfa", "155227783-155227803"),
    "280136066-280136088.gfa": ("280136066-280136088.gfa", "280136066-280136088"),
    "70211809-70211845.gfa": ("70211809-70211845.gfa", "70211809-70211845"),
    "59867692-59867698.gfa": ("59867692-59867698.gfa", "59867692-59867698"),
    "f.gfa": ("f.gfa", "f"),
    "tiny.gfa": ("tiny.gfa", "tiny"),
    "graph.gfa": ("graphaligner.gfa", "graphaligner"),
}
#: the file's mode names -> ours (its "semiglobal" is our glocal: the read end to end, the path's ends free)
EXPECTED_MODE = {"global": "global", "semiglobal": "glocal", "local": "local"}


def read_text(path) -> str:
    """A small text file, plain or gzip."""
    raw = Path(path).read_bytes()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def read_fastx(path) -> dict:
    """name -> sequence of a small FASTA or FASTQ file (plain or gzip; 4-line FASTQ)."""
    lines = read_text(path).splitlines()
    if lines and lines[0].startswith("@"):
        return {lines[i][1:].split()[0]: lines[i + 1] for i in range(0, len(lines), 4)}
    out, name = {}, None
    for line in lines:
        if line.startswith(">"):
            name = line[1:].split()[0]
            out[name] = ""
        elif name is not None:
            out[name] += line.strip()
    return out


def small_dag_rows() -> list[dict]:
    """The rows of small_dag_expected.tsv with the full read, our scoring and mode, and the GFA path.

    Keys: graph (as in the file), gfa (Path), name (read name), read, prefix
    (the file's cut read), score, mode (ours), their_mode, paths (number of
    source-to-sink paths), best (segment names of the best path), scoring.
    """
    reads = read_fastx(GRAPH_DATA / "small_dag_reads.fa")
    rows = []
    with open(GRAPH_DATA / "small_dag_expected.tsv") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            graph, read, score, mode, params, paths, best = line.rstrip("\n").split("\t")
            p = dict(x.split("=") for x in params.split())
            gfa, name = SMALL_DAG_FILES[graph]
            rows.append(dict(graph=graph, gfa=GRAPH_DATA / gfa, name=name, read=reads[name],
                             prefix=read.rstrip("."), score=int(score), mode=EXPECTED_MODE[mode],
                             their_mode=mode, paths=int(paths.split("=")[1]), best=best.split("=")[1].split(","),
                             scoring=vg_scoring(int(p["M"]), int(p["X"]), int(p["O"]), int(p["E"]), p["conv"])))
    return rows


def row_is_available(row) -> bool:
    """False for the rows of a different ``graph.gfa`` (segments seq1..seq3) whose graph and read are not here."""
    return set(row["best"]) <= set(parse_gfa(read_text(row["gfa"]))[0])


def cactus_rows() -> list[dict]:
    """The rows of cactus-BRCA2_reads_vs_paths_m1_x4_o6_e1_vg.tsv (read, len, local_lb, semiglobal_lb, ...)."""
    with open(GRAPH_DATA / "cactus-BRCA2_reads_vs_paths_m1_x4_o6_e1_vg.tsv") as fh:
        lines = [line for line in fh if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))
