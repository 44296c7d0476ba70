"""Graph inputs: ``seqalign_cli.families.graph.chunks_gfa`` (GFA1 reading and graph preparation) and ``seqalign_cli.families.graph.chunks``.

The prepared graph is checked against a plain reference written here from the
specification (sets of edges, ``heapq`` for Kahn's order, strings for the
spelling, a brute-force slot simulation) on the real GFA files of
tests/data/graph and on random graphs; then orientation, forward-only, the
invariants of the arrays, every error (file and line named), gzip and stdin,
line order, and the read chunks.
"""

from __future__ import annotations

import gzip
import heapq
import io
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from seqalign_cli.errors import InputError, SeqalignError, UsageError
from seqalign_cli.io.encode import encode
from seqalign_cli.families.graph.chunks_gfa import Graph, load_graph
from seqalign_cli.families.graph.batch import GraphBatch, make_graph_batch
from seqalign_cli.families.graph.chunks import GraphChunk, graph_chunks
from seqalign_cli.families.graph.inputs import GraphInputs

DATA = Path(__file__).parent / "data" / "graph"
TINY = DATA / "tiny.gfa"
GA = DATA / "graphaligner.gfa"
X = DATA / "x.gfa"
MT = DATA / "MT.gfa"
ATGC = DATA / "atgc.gfa"
CACTUS = DATA / "cactus-BRCA2.gfa"
CACTUS_READS = DATA / "cactus-BRCA2.fastq"
ACYCLIC = [TINY, GA, X, CACTUS]

_RC = str.maketrans("ACGTUacgtu", "TGCAAtgcaa")  # U counts as T


def revcomp(s: str) -> str:
    return s.translate(_RC)[::-1]


def write(path: Path, text) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# ------------------------------------------------------------- the reference

class Ref:
    """The graph of a GFA text as the specification defines it, with plain Python structures."""

    def __init__(self, text: str, forward_only: bool = False):
        self.names, self.seqs, links = [], [], []
        for line in text.splitlines():
            f = line.rstrip("\r").split("\t")
            if f[0] == "S":
                self.names.append(f[1])
                self.seqs.append(f[2])
            elif f[0] == "L":
                links.append((f[1], f[2] == "-", f[3], f[4] == "-"))
        index = {n: k for k, n in enumerate(self.names)}
        nodes = [2 * s + r for s in range(len(self.names)) for r in (0, 1) if not (forward_only and r)]
        self.nodes = set(nodes)
        self.succ = {v: set() for v in nodes}
        for a, ra, b, rb in links:
            for u, w in ((2 * index[a] + ra, 2 * index[b] + rb), (2 * index[b] + 1 - rb, 2 * index[a] + 1 - ra)):
                if u in self.nodes and w in self.nodes:
                    self.succ[u].add(w)
        self.pred = {v: set() for v in nodes}
        for u, ws in self.succ.items():
            for w in ws:
                self.pred[w].add(u)
        indeg = {v: len(self.pred[v]) for v in nodes}
        ready = [v for v in nodes if not indeg[v]]
        heapq.heapify(ready)
        self.order = []
        while ready:
            v = heapq.heappop(ready)
            self.order.append(v)
            for w in self.succ[v]:
                indeg[w] -= 1
                if not indeg[w]:
                    heapq.heappush(ready, w)
        self.acyclic = len(self.order) == len(nodes)
        self.on_cycle = {v for v in nodes if self._returns(v)} if not self.acyclic else set()

    def _returns(self, v) -> bool:
        seen, stack = set(), list(self.succ[v])
        while stack:
            w = stack.pop()
            if w == v:
                return True
            if w not in seen:
                seen.add(w)
                stack.extend(self.succ[w])
        return False

    def node_seq(self, v) -> str:
        s = self.seqs[v >> 1]
        return revcomp(s) if v & 1 else s

    def spell(self):
        """Per base: letters, node, offset, preds (sorted lists), source, sink; node_first."""
        letters, node, offset, first = [], [], [], {}
        for v in self.order:
            first[v] = len(letters)
            for k, ch in enumerate(self.node_seq(v)):
                letters.append(ch)
                node.append(v)
                offset.append(k)
        last = {v: first[v] + len(self.seqs[v >> 1]) - 1 for v in self.order}
        preds, source, sink = [], [], []
        for b, (v, k) in enumerate(zip(node, offset)):
            preds.append([b - 1] if k else sorted(last[u] for u in self.pred[v]))
            source.append(k == 0 and not self.pred[v])
            sink.append(b == last[v] and not self.succ[v])
        return "".join(letters), node, offset, preds, source, sink, first


def successors(preds) -> list[set]:
    succ = [set() for _ in preds]
    for v, ps in enumerate(preds):
        for u in ps:
            succ[u].add(v)
    return succ


def greedy_slots(preds):
    """The slot plan by brute force: which rows need one, their last use, the slots greedily (smallest free)."""
    succ = successors(preds)
    n = len(preds)
    slot = [-1] * n
    last_use = {}
    owner: list[int] = []
    for u in range(n):
        if not any(s != u + 1 for s in succ[u]):
            continue
        last_use[u] = max(succ[u])
        free = [s for s, w in enumerate(owner) if last_use[w] < u]
        s = min(free) if free else len(owner)
        if s == len(owner):
            owner.append(u)
        owner[s] = u
        slot[u] = s
    return slot, len(owner), last_use


def check_against_ref(g: Graph, text: str, forward_only: bool):
    ref = Ref(text, forward_only)
    assert ref.acyclic
    letters, node, offset, preds, source, sink, first = ref.spell()
    assert g.n_bases == len(letters)
    assert g.names == ref.names
    assert g.seg_len.tolist() == [len(s) for s in ref.seqs]
    assert np.array_equal(g.codes, encode(letters))
    assert g.node.tolist() == node and g.offset.tolist() == offset
    assert g.source.tolist() == source and g.sink.tolist() == sink
    got = [g.pred[g.pred_off[v]:g.pred_off[v + 1]].tolist() for v in range(g.n_bases)]
    assert got == preds
    nf = [first.get(v, -1) for v in range(2 * len(ref.names))]
    assert g.node_first.tolist() == nf
    slot, n_slots, _ = greedy_slots(preds)
    assert g.slot.tolist() == slot and g.n_slots == n_slots


def check_invariants(g: Graph):
    n = g.n_bases
    assert g.codes.dtype == np.uint8 and g.node.dtype == np.int32 and g.offset.dtype == np.int32
    assert g.pred_off.dtype == np.int64 and g.pred.dtype == np.int32 and g.slot.dtype == np.int32
    assert g.source.dtype == np.bool_ and g.sink.dtype == np.bool_
    assert g.seg_len.dtype == np.int64 and g.node_first.dtype == np.int64
    for a in (g.codes, g.node, g.offset, g.source, g.sink, g.slot):
        assert len(a) == n
    assert len(g.pred_off) == n + 1 and g.pred_off[0] == 0 and g.pred_off[-1] == len(g.pred)
    counts = np.diff(g.pred_off)
    assert (counts >= 0).all()
    v = np.repeat(np.arange(n), counts)
    assert (g.pred < v).all() and (g.pred >= 0).all()  # topological
    same = v[1:] == v[:-1]
    assert (g.pred[1:][same] > g.pred[:-1][same]).all()  # ascending, no repeats
    inner = g.offset > 0
    assert (counts[inner] == 1).all() and (g.pred[g.pred_off[:-1][inner]] == np.flatnonzero(inner) - 1).all()
    # nodes are contiguous runs, offsets count up from 0, node_first points at offset 0
    present = np.flatnonzero(g.node_first >= 0)
    assert (g.node[g.node_first[present]] == present).all() and (g.offset[g.node_first[present]] == 0).all()
    assert np.array_equal(np.sort(g.node_first[present]), np.flatnonzero(g.offset == 0))
    assert (g.offset == np.arange(n) - g.node_first[g.node]).all()
    assert (g.seg_len[g.node >> 1] > g.offset).all()
    assert g.n_nodes == len(present) == len(np.unique(g.node))
    if g.forward_only:
        assert (g.node_first[1::2] == -1).all() and (g.node_first[0::2] >= 0).all()
        assert n == g.seg_len.sum()
    else:
        assert (g.node_first >= 0).all() and n == 2 * g.seg_len.sum()
    # source: the first base of a node without incoming edge; sink: the last base without outgoing edge
    first = g.offset == 0
    assert np.array_equal(g.source, first & (counts == 0))
    last = g.offset == g.seg_len[g.node >> 1] - 1
    has_succ = np.zeros(n, bool)
    has_succ[g.pred] = True
    has_succ[np.flatnonzero(inner) - 1] = True
    assert np.array_equal(g.sink, last & ~has_succ)
    assert g.source.any() and g.sink.any()


def check_slots(g: Graph):
    """The storage plan: slots exactly where needed; no two rows live at once share one; optimal count."""
    n = g.n_bases
    counts = np.diff(g.pred_off)
    v = np.repeat(np.arange(n), counts)
    far = g.pred != v - 1  # rows read by a row other than the next one
    need = np.zeros(n, bool)
    need[g.pred[far]] = True
    last_use = np.full(n, -1, np.int64)
    np.maximum.at(last_use, g.pred, v)
    assert np.array_equal(g.slot >= 0, need)
    rows = np.flatnonzero(need)
    assert (g.slot[rows] < g.n_slots).all()
    # row w is live from w to last_use[w]; u may take w's slot only when last_use[w] < u
    by_slot: dict[int, list[int]] = {}
    for u in rows.tolist():
        by_slot.setdefault(int(g.slot[u]), []).append(u)
    for owners in by_slot.values():
        for w, u in zip(owners, owners[1:]):
            assert last_use[w] < u, f"rows {w} and {u} are live together in one slot"
    if len(rows) and len(rows) <= 3000:
        for i, w in enumerate(rows.tolist()):  # the brute force over every pair
            for u in rows[i + 1:].tolist():
                if u > last_use[w]:
                    continue
                assert g.slot[w] != g.slot[u]
    # greedy in start order on intervals is optimal: slots = the most rows live at one time
    live = np.zeros(n + 1, np.int64)
    np.add.at(live, rows, 1)
    np.add.at(live, last_use[rows] + 1, -1)
    assert g.n_slots == (int(np.cumsum(live).max()) if len(rows) else 0)
    assert set(by_slot) == set(range(g.n_slots))


# ------------------------------------------------------------- real files

@pytest.mark.parametrize("path", ACYCLIC, ids=lambda p: p.name)
@pytest.mark.parametrize("forward_only", [False, True])
def test_real_files_match_the_reference(path, forward_only):
    g = load_graph(str(path), forward_only)
    assert g.path == str(path) and g.forward_only == forward_only
    check_against_ref(g, path.read_text(), forward_only)
    check_invariants(g)
    check_slots(g)


def test_tiny_graph_facts():
    g = load_graph(str(TINY), forward_only=True)
    assert g.n_segments == 15 and g.n_bases == 55 and g.n_nodes == 15
    assert g.names[:3] == ["5", "7", "12"]
    assert g.node_name(0) == ">5" and g.node_name(1) == "<5" and g.node_name(2 * 4) == ">1"
    # segment 1 (index 4, CAAATAAG) is the only source, 15 (index 7) the only sink
    assert g.node[g.source].tolist() == [8] and g.node[g.sink].tolist() == [14]
    assert g.node_first[8] == 0
    full = load_graph(str(TINY))
    assert full.n_bases == 110 and full.n_nodes == 30
    # both orientations: >1 and <15 are sources, >15 and <1 are sinks
    assert sorted(full.node_name(int(v)) for v in full.node[full.source]) == ["<15", ">1"]
    assert sorted(full.node_name(int(v)) for v in full.node[full.sink]) == ["<1", ">15"]


def spelled(g: Graph, v: int) -> np.ndarray:
    a = g.node_first[v]
    return g.codes[a:a + g.seg_len[v >> 1]]


def embedded_paths(path: Path) -> dict[str, list[tuple[str, str]]]:
    out = {}
    for line in path.read_text().splitlines():
        f = line.split("\t")
        if f[0] == "P":
            out[f[1]] = [(s[:-1], s[-1]) for s in f[2].split(",") if s]
    return out


@pytest.mark.parametrize("forward_only", [False, True])
def test_embedded_paths_are_walks(forward_only):
    """Every P line of the real graphs is a walk of the oriented graph (cactus: also through '- -' links)."""
    for path in (TINY, X, CACTUS):
        g = load_graph(str(path), forward_only)
        index = {n: k for k, n in enumerate(g.names)}
        for steps in embedded_paths(path).values():
            nodes = [2 * index[n] + (o == "-") for n, o in steps]
            for u, w in zip(nodes, nodes[1:]):
                last = g.node_first[u] + g.seg_len[u >> 1] - 1
                assert last in g.preds(int(g.node_first[w])).tolist(), (path.name, g.node_name(u), g.node_name(w))


def test_cactus_links_given_in_reverse_count_in_forward_only():
    # "L 51 - 50 - 0M" is the link >50 -> >51 written from the other strand; path GI528476586 takes it
    g = load_graph(str(CACTUS), forward_only=True)
    index = {n: k for k, n in enumerate(g.names)}
    a, b = 2 * index["50"], 2 * index["51"]
    assert g.node_first[a] + g.seg_len[a >> 1] - 1 in g.preds(int(g.node_first[b])).tolist()


def test_graphaligner_bubble():
    g = load_graph(str(GA), forward_only=True)
    assert g.n_bases == 44 + 1 + 1 + 42
    # the bubble: the first base of >4 has the two single bases >2 and >3 as predecessors
    first4 = int(g.node_first[6])
    assert g.preds(first4).tolist() == sorted([int(g.node_first[2]), int(g.node_first[4])])
    assert g.n_slots == 2 and (g.slot >= 0).sum() == 2


# ------------------------------------------------------------- orientation

def test_reverse_complement_spelling_and_complement_edges(tmp_path):
    f = write(tmp_path / "o.gfa", "S\ta\tACGTNRUacgt\nS\tb\tggc\nL\ta\t+\tb\t-\t0M\n")
    g = load_graph(str(f))
    # U (a T) complements to A (code 0); other letters map to themselves, case kept: R stays R (code 4)
    assert spelled(g, 1).tolist() == encode(revcomp("ACGTNRUacgt")).tolist() == [0, 1, 2, 3, 0, 4, 4, 0, 1, 2, 3]
    assert revcomp("ggc") == "gcc" and spelled(g, 3).tolist() == encode("gcc").tolist()
    assert g.node_name(1) == "<a" and g.node_name(3) == "<b"
    # the link >a -> <b and its complement >b -> <a
    last = {v: int(g.node_first[v] + g.seg_len[v >> 1] - 1) for v in range(4)}
    assert g.preds(int(g.node_first[3])).tolist() == [last[0]]
    assert g.preds(int(g.node_first[1])).tolist() == [last[2]]
    assert g.node[g.source].tolist() == [0, 2] and sorted(g.node[g.sink].tolist()) == [1, 3]
    # forward only: the link has a '-' end: no edge
    h = load_graph(str(f), forward_only=True)
    assert h.n_bases == 14 and h.pred_off[-1] == 14 - 2 and h.n_slots == 0
    assert h.node[h.source].tolist() == [0, 2] and h.node[h.sink].tolist() == [0, 2]


def test_link_and_its_complement_are_one_edge(tmp_path):
    one = write(tmp_path / "one.gfa", "S\ta\tAC\nS\tb\tGT\nL\ta\t+\tb\t+\t0M\n")
    both = write(tmp_path / "both.gfa", "S\ta\tAC\nS\tb\tGT\nL\ta\t+\tb\t+\t0M\nL\tb\t-\ta\t-\t*\n"
                                        "L\ta\t+\tb\t+\t0M\n")
    for fo in (False, True):
        g, h = load_graph(str(one), fo), load_graph(str(both), fo)
        assert g.pred.tolist() == h.pred.tolist() and g.pred_off.tolist() == h.pred_off.tolist()
    # "b - a -" alone is the forward link >a -> >b too
    rev = write(tmp_path / "rev.gfa", "S\ta\tAC\nS\tb\tGT\nL\tb\t-\ta\t-\t0M\n")
    g = load_graph(str(rev), forward_only=True)
    assert g.preds(2).tolist() == [1] and g.node[g.source].tolist() == [0]


def test_hairpin_is_acyclic(tmp_path):
    # >a -> <a (and its complement, the same edge) is not a cycle
    f = write(tmp_path / "h.gfa", "S\ta\tACG\nL\ta\t+\ta\t-\t0M\n")
    g = load_graph(str(f))
    assert g.node.tolist() == [0, 0, 0, 1, 1, 1] and g.preds(3).tolist() == [2]
    assert g.codes.tolist() == encode("ACGCGT").tolist()


def test_topological_order_takes_the_smallest_ready_node(tmp_path):
    # segments c b a in file order (ids 0 1 2); links >a -> >c, >b -> >c
    f = write(tmp_path / "t.gfa", "S\tc\tC\nS\tb\tG\nS\ta\tT\nL\ta\t+\tc\t+\t0M\nL\tb\t+\tc\t+\t0M\n")
    g = load_graph(str(f), forward_only=True)
    assert g.node.tolist() == [2, 4, 0]  # >b (2) and >a (4) ready first, smallest first
    g = load_graph(str(f))
    # both orientations: ready at first: <c (1), >b (2), >a (4); <c frees <b (3) and <a (5),
    # then >c (0) is ready once >b and >a are placed, and comes before <a
    assert g.node.tolist() == [1, 2, 3, 4, 0, 5]


# ------------------------------------------------------------- random graphs

def random_gfa(rng: random.Random, n: int, p: float, inversions: bool, extra: int = 0) -> str:
    """Segments with links forward in a hidden order ('+ +'), some with '-' ends, ``extra`` links at random."""
    names = [f"s{k}" for k in rng.sample(range(10 * n), n)]
    lines = [f"S\t{name}\t{''.join(rng.choice('ACGTN') for _ in range(rng.randint(1, 5)))}" for name in names]
    rank = list(range(n))
    rng.shuffle(rank)  # a hidden order: links go forward in it (for '+ +')
    for i in range(n):
        for j in range(n):
            if i != j and rank[i] < rank[j] and rng.random() < p:
                oa = ob = "+"
                if inversions and rng.random() < 0.3:
                    oa, ob = rng.choice("+-"), rng.choice("+-")
                lines.append(f"L\t{names[i]}\t{oa}\t{names[j]}\t{ob}\t{rng.choice(['0M', '*'])}")
    for _ in range(extra):
        lines.append(f"L\t{rng.choice(names)}\t{rng.choice('+-')}\t{rng.choice(names)}\t{rng.choice('+-')}\t0M")
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"


def test_random_graphs_match_the_reference(tmp_path):
    rng = random.Random(20250611)
    seen_cycles = seen_dags = 0
    for t in range(150):
        text = random_gfa(rng, rng.randint(1, 9), rng.choice([0.1, 0.3, 0.6]), inversions=t % 3 != 0,
                          extra=2 if t % 4 == 1 else 0)
        f = write(tmp_path / f"r{t}.gfa", text)
        for fo in (False, True):
            ref = Ref(text, fo)
            if ref.acyclic:
                seen_dags += 1
                g = load_graph(str(f), fo)
                check_against_ref(g, text, fo)
                check_invariants(g)
                check_slots(g)
            else:
                seen_cycles += 1
                with pytest.raises(InputError) as exc:
                    load_graph(str(f), fo)
                smallest = min(ref.on_cycle)
                assert exc.value.message.startswith(f"cycle through segment {ref.names[smallest >> 1]}:")
                # the line named holds a link whose edge (or complement) joins two nodes of the cycle's part
                line = text.splitlines()[exc.value.line - 1].split("\t")
                assert line[0] == "L" and {line[1], line[3]} <= {ref.names[v >> 1] for v in ref.on_cycle}
    assert seen_cycles > 15 and seen_dags > 100, (seen_cycles, seen_dags)


def test_large_graph_loads_fast(tmp_path):
    """200k segments, 2 Mbp (4M oriented bases): arrays built in bulk, no per-base Python step."""
    rng = np.random.default_rng(7)
    n = 200_000
    letters = np.frombuffer(b"ACGT", np.uint8)[rng.integers(0, 4, 10 * n)].tobytes().decode()
    seg = [f"S\tn{k}\t{letters[10 * k:10 * k + 10]}" for k in range(n)]
    links = [f"L\tn{k}\t+\tn{k + 1}\t+\t0M" for k in range(n - 1)]
    links += [f"L\tn{k}\t+\tn{k + 2}\t+\t0M" for k in range(0, n - 2, 3)]
    f = write(tmp_path / "big.gfa", "\n".join(seg + links) + "\n")
    load_graph(str(write(tmp_path / "small.gfa", "S\ta\tA\n")))  # compiled code loaded
    start = time.perf_counter()
    g = load_graph(str(f))
    took = time.perf_counter() - start
    assert g.n_bases == 2 * 10 * n and g.n_slots == 1
    assert took < 20, f"{took:.1f} s"
    check_invariants(g)
    check_slots(g)


# ------------------------------------------------------------- line order, formats

def test_line_order_does_not_matter(tmp_path):
    lines = CACTUS.read_text().splitlines()
    s_lines = [x for x in lines if x.startswith("S\t")]
    others = [x for x in lines if not x.startswith("S\t")]
    rng = random.Random(3)
    # L lines anywhere (S lines in their order): the same arrays
    mixed = others[:]
    rng.shuffle(mixed)
    merged = []
    for x in s_lines:
        merged.append(x)
        if mixed and rng.random() < 0.5:
            merged.append(mixed.pop())
    merged += mixed
    f = write(tmp_path / "m.gfa", "\n".join(merged) + "\n")
    a, b = load_graph(str(CACTUS)), load_graph(str(f))
    for name in ("codes", "node", "offset", "pred_off", "pred", "source", "sink", "node_first", "slot"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    # S lines shuffled too: the same graph up to segment numbering
    every = lines[:]
    rng.shuffle(every)
    h = write(tmp_path / "s.gfa", "\n".join(every) + "\n")
    for fo in (False, True):
        a, c = load_graph(str(CACTUS), fo), load_graph(str(h), fo)
        assert a.n_bases == c.n_bases and sorted(a.names) == sorted(c.names)
        assert named_graph(a) == named_graph(c)


def named_graph(g: Graph):
    """The graph by node names: node -> spelled codes, the edge set, source and sink nodes."""
    nodes = {g.node_name(v): spelled(g, v).tobytes() for v in np.flatnonzero(g.node_first >= 0)}
    edges = set()
    for b in np.flatnonzero(g.offset == 0):
        for p in g.preds(int(b)).tolist():
            edges.add((g.node_name(int(g.node[p])), g.node_name(int(g.node[b]))))
    return nodes, edges, {g.node_name(int(v)) for v in g.node[g.source]}, {g.node_name(int(v)) for v in g.node[g.sink]}


def test_ignored_lines_tags_and_crlf(tmp_path):
    text = ("H\tVN:Z:1.0\n# a comment\n\nS\ta\tACG\tLN:i:3\tRC:i:5\nP\tp\ta+,b+\t*\n"
            "W\tsample\t1\tchr\t0\t6\t>a>b\nC\ta\t+\tb\t+\t0\t0M\nX\tunknown\nSX\tnot an S line\n"
            "L\ta\t+\tb\t+\t0M\tSR:i:0\n   \nS\tb\tTTT\n")
    plain = load_graph(str(write(tmp_path / "p.gfa", text)))
    crlf = load_graph(str(write(tmp_path / "c.gfa", text.replace("\n", "\r\n"))))
    bare = load_graph(str(write(tmp_path / "b.gfa", "S\ta\tACG\nS\tb\tTTT\nL\ta\t+\tb\t+\t0M")))  # no final newline
    for g in (plain, crlf, bare):
        assert g.names == ["a", "b"] and g.n_bases == 12
        assert g.codes.tolist() == encode("ACGTTTAAACGT").tolist()
        assert g.pred_off.tolist() == plain.pred_off.tolist() and g.pred.tolist() == plain.pred.tolist()


def test_gzip_and_stdin(tmp_path, monkeypatch):
    data = TINY.read_bytes()
    ref = load_graph(str(TINY))
    gz = load_graph(str(write(tmp_path / "t.gfa.gz", gzip.compress(data))))
    assert np.array_equal(gz.codes, ref.codes) and np.array_equal(gz.pred, ref.pred)
    bgz = load_graph(str(write(tmp_path / "t2.gfa", gzip.compress(data[:200]) + gzip.compress(data[200:]))))
    assert np.array_equal(bgz.pred_off, ref.pred_off)  # several members (bgzip) and no .gz suffix
    for payload in (data, gzip.compress(data)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload)))
        g = load_graph("-")
        assert g.path == "<stdin>" and np.array_equal(g.codes, ref.codes)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"S\ta\t*\n")))
    with pytest.raises(InputError) as exc:
        load_graph("-")
    assert str(exc.value).startswith("<stdin>: line 1: segment a has no sequence")


def test_gzip_damage_is_an_input_error(tmp_path):
    z = gzip.compress(TINY.read_bytes())
    with pytest.raises(InputError, match="truncated gzip"):
        load_graph(str(write(tmp_path / "cut.gfa.gz", z[:len(z) // 2])))
    bad = bytearray(z)
    bad[20:40] = bytes(20)
    with pytest.raises(InputError, match="gzip"):
        load_graph(str(write(tmp_path / "bad.gfa.gz", bytes(bad))))


def test_missing_file_and_directory_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        load_graph(str(tmp_path / "nope.gfa"))
    with pytest.raises(UsageError, match="directory"):
        load_graph(str(tmp_path))


# ------------------------------------------------------------- errors

ERRORS = [
    ("S\ta\tAC\nS\tb\t*\n", 2, ["segment b has no sequence ('*')"]),
    ("S\ta\tAC\nS\tb\t\n", 2, ["segment b has an empty sequence"]),
    ("S\ta\tAC\nS\tb\n", 2, ["malformed S line", "2 fields"]),
    ("S\n", 1, ["malformed S line", "1 field"]),
    ("S\t\tACGT\n", 1, ["malformed S line", "empty segment name"]),
    ("S\ta\tAC\nH\tVN:Z:1.0\nS\ta\tGG\n", 3, ["duplicate segment name a (first on line 1)"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t+\t5M\n", 3, ["overlap '5M'", "only 0M or *"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t+\t0M1I\n", 3, ["overlap '0M1I'"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t+\n", 3, ["malformed L line", "5 fields"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\tx\tb\t+\t0M\n", 3, ["malformed L line", "orientation 'x' of segment a"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t\t0M\n", 3, ["malformed L line", "orientation '' of segment b"]),
    ("S\ta\tAC\nL\ta\t+\tc\t+\t0M\nS\tb\tGG\n", 2, ["link to a missing segment c"]),
    ("L\tq\t+\ta\t+\t0M\nS\ta\tAC\n", 1, ["link to a missing segment q"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t+\t0M\nL\ta\t+\ta\t+\t0M\n", 4, ["cycle through segment a:"]),
    ("S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t-\t0M\nL\tb\t-\ta\t+\t0M\n", 4, ["cycle through segment a:"]),
    ("S\tz\tA\nS\tb\tGG\nS\ta\tAC\nL\ta\t+\tb\t+\t0M\nL\tb\t+\ta\t+\t0M\n", 4, ["cycle through segment b:"]),
]


@pytest.mark.parametrize("text, line, needles", ERRORS)
def test_errors_name_file_and_line(tmp_path, text, line, needles):
    f = write(tmp_path / "bad.gfa", text)
    with pytest.raises(InputError) as exc:
        load_graph(str(f))
    err = exc.value
    assert err.exit_code == 1 and err.path == str(f) and err.line == line
    msg = str(err)
    assert msg == err.format() and msg.startswith(f"{f}: line {line}: ") and "\n" not in msg
    for needle in needles:
        assert needle in msg


def test_inversion_loop_is_no_cycle_forward_only(tmp_path):
    f = write(tmp_path / "inv.gfa", "S\ta\tAC\nS\tb\tGG\nL\ta\t+\tb\t-\t0M\nL\tb\t-\ta\t+\t0M\n")
    with pytest.raises(InputError, match="cycle through segment a"):
        load_graph(str(f))
    g = load_graph(str(f), forward_only=True)
    assert g.n_bases == 4 and g.pred_off[-1] == 2


@pytest.mark.parametrize("forward_only", [False, True])
def test_minigraph_mt_is_rejected(forward_only):
    # MTh4001 has a self-loop (line 11: "L MTh4001 + MTh4001 + 0M")
    with pytest.raises(InputError) as exc:
        load_graph(str(MT), forward_only)
    assert str(exc.value) == (f"{MT}: line 11: cycle through segment MTh4001: the oriented graph must be "
                              f"acyclic (a link on the cycle is on this line)")


def test_vg_atgc_cycle():
    with pytest.raises(InputError) as exc:
        load_graph(str(ATGC))
    assert exc.value.message.startswith("cycle through segment 2:")
    assert ATGC.read_text().splitlines()[exc.value.line - 1].startswith("L\t")


@pytest.mark.parametrize("text", ["", "\n\n", "H\tVN:Z:1.0\n# nothing\n", ">read\nACGT\n"])
def test_empty_graph(tmp_path, text):
    f = write(tmp_path / "e.gfa", text)
    with pytest.raises(InputError) as exc:
        load_graph(str(f))
    assert exc.value.line is None and str(exc.value).startswith(f"{f}: no segments (no S line)")


def test_error_line_rendering():
    assert InputError("m", path="f", line=3).format() == "f: line 3: m"
    assert InputError("m", line=3).format() == "line 3: m"
    assert InputError("m", path="f", line=3, record=2).format() == "f: line 3: record 2: m"
    # what existed before is unchanged
    assert InputError("m", path="f", record="1 (r)").format() == "f: record 1 (r): m"
    assert UsageError("m").format() == "m" and UsageError("m").exit_code == 2
    err = SeqalignError("m", path="f")
    assert err.line is None and str(err) == "f: m"


# ------------------------------------------------------------- inputs and chunks

def test_graph_inputs_is_light():
    assert GraphInputs("g.gfa", "r.fq") == GraphInputs("g.gfa", "r.fq", False)
    assert GraphInputs("g.gfa", "r.fq", forward_only=True).forward_only
    assert GraphInputs("g.gfa", "r.fq").files == ("g.gfa", "r.fq")
    code = "import sys, seqalign_cli.families.graph.inputs as m; m.GraphInputs('a', 'b'); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def read_records(path: Path) -> list[tuple[str, str]]:
    lines = path.read_text().splitlines()
    return [(lines[i][1:].split()[0], lines[i + 1]) for i in range(0, len(lines), 4)]


@pytest.mark.parametrize("size", [1, 7, 256, 5000])
def test_chunks_in_input_order(size):
    recs = read_records(CACTUS_READS)
    assert len(recs) == 1000
    chunks = list(graph_chunks(GraphInputs(str(CACTUS), str(CACTUS_READS)), size))
    assert all(isinstance(c, GraphChunk) for c in chunks)
    assert [len(c) for c in chunks[:-1]] == [size] * (len(chunks) - 1) and 0 < len(chunks[-1]) <= size
    graph = chunks[0].graph
    assert all(c.graph is graph for c in chunks)  # loaded once
    assert not graph.forward_only and graph.n_bases == 2 * graph.seg_len.sum()
    names = [n for c in chunks for n in c.block.names_list()]
    assert names == [n for n, _ in recs]
    k = 0
    for c in chunks:
        batch = c.batch()
        assert isinstance(batch, GraphBatch) and batch.graph is graph and batch.size == len(c)
        assert batch.lengths.dtype == np.int64
        for j in range(batch.size):
            assert batch.seq(j).tolist() == encode(recs[k][1]).tolist()
            k += 1
        assert batch.cells_each().tolist() == [len(recs[i][1]) * graph.n_bases for i in range(k - batch.size, k)]
        assert batch.cells() == int(batch.lengths.sum()) * graph.n_bases
    assert k == 1000


def test_batch_subset_keeps_the_graph():
    g = load_graph(str(GA), forward_only=True)
    batch = make_graph_batch(g, [b"ACGT", b"", b"GGNNA", b"T"])
    assert batch.size == 4 and batch.lengths.tolist() == [4, 0, 5, 1]
    assert batch.cells_each().tolist() == [4 * 88, 0, 5 * 88, 88] and batch.cells() == 10 * 88
    sub = batch.subset(np.array([2, 0, 1]))
    assert sub.graph is g and sub.size == 3 and sub.lengths.tolist() == [5, 4, 0]
    assert sub.seq(0).tolist() == [2, 2, 4, 4, 0] and sub.seq(2).tolist() == []
    empty = batch.subset(np.array([], np.int64))
    assert empty.size == 0 and empty.graph is g and empty.cells() == 0


def test_chunks_forward_only_and_zero_length_reads(tmp_path):
    reads = write(tmp_path / "r.fa", ">e\n>a\nACGT\n>z\n")
    chunks = list(graph_chunks(GraphInputs(str(GA), str(reads), forward_only=True), 2))
    assert [c.block.names_list() for c in chunks] == [["e", "a"], ["z"]]
    assert chunks[0].graph.forward_only and chunks[0].graph.n_bases == 88
    assert chunks[0].batch().lengths.tolist() == [0, 4] and chunks[1].batch().cells() == 0


def test_chunks_from_stdin(tmp_path, monkeypatch):
    reads = write(tmp_path / "r.fa", ">a\nACGT\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(GA.read_bytes()))))
    [chunk] = graph_chunks(GraphInputs("-", str(reads)), 10)
    assert chunk.graph.path == "<stdin>" and chunk.graph.n_bases == 176
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b">r\nAC\n>s\nG\n")))
    [chunk] = graph_chunks(GraphInputs(str(GA), "-"), 10)
    assert chunk.block.names_list() == ["r", "s"]


def test_both_inputs_on_stdin_is_a_usage_error():
    with pytest.raises(UsageError, match="both"):
        graph_chunks(GraphInputs("-", "-"), 10)


def test_empty_reads_and_bad_graph(tmp_path, capsys):
    empty = write(tmp_path / "empty.fa", "")
    assert list(graph_chunks(GraphInputs(str(GA), str(empty)), 10)) == []  # no reads: no chunk, one warning
    assert capsys.readouterr().err == f"seqalign: warning: {empty}: no records (empty input): nothing to align, " \
                                      f"the output holds no records\n"
    # the graph is loaded (and checked) before any read
    bad = write(tmp_path / "bad.gfa", "S\ta\t*\n")
    with pytest.raises(InputError, match="line 1: segment a has no sequence"):
        next(iter(graph_chunks(GraphInputs(str(bad), str(CACTUS_READS)), 10)))
