"""The Python API: pairs, triplets and reads against a graph aligned from Python, records back.

``align_pairs``, ``align_triplets`` and ``align_graph`` return lists of
records; ``iter_pairs``, ``iter_triplets`` and ``iter_graph`` take the same
arguments and yield the same records a batch at a time, for inputs too large
to hold as one list.

Inputs are file paths (``str`` or ``os.PathLike``: FASTA/FASTQ, plain or
gzip, read as the command line reads them) or sequences in memory: an
iterable (or a ``{name: sequence}`` mapping) of ``str`` or ``bytes``
sequences or ``(name, sequence)`` tuples; an unnamed sequence is named by its
0-based position in its input ("0", "1", ...). Where every input is a file,
the family's own reader reads them (``families``, the chunks of a run);
otherwise the records are checked by the readers' rules
(``io.validate.first_bad_letter``) and encoded by the one encoder through the
batch builders (``families.pairwise.batch.make_batch``, ``families.triplet.batch.make_triplets``,
``families.graph.batch.make_graph_batch``). Options are the command line's, by keyword,
with its defaults.

The backend is selected as for a run (``backends.select_backend``; what
``auto`` picked goes to the ``seqalign_cli`` logger). Each batch is begun
before the records of the previous one are made, so that a GPU aligns while
the host builds records. The engines finish their results
(``results.finish``); the records take the values a TSV row holds, the
alignment strings spelled by the results themselves (``cigars``,
``column_strings``, ``path_strings``): '*' is an empty alignment, and what a
score-only run does not compute is None.

Errors: a bad letter, unequal record counts or a malformed file raise
``InputError`` (a ``ValueError``); a missing file or an unusable backend
``UsageError``; option values out of range ``ValueError``; an input item of
the wrong type ``TypeError``.

This module imports nothing heavy: numpy, numba and the engines load when a
function is called.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from .config import GRAPH_MODES, MODES, TRIPLET_MODES, AlignConfig, Scoring
from .errors import InputError, UsageError

__all__ = ["GraphAlignment", "PairAlignment", "SearchHit", "TripletAlignment", "align_graph", "align_pairs",
           "align_triplets", "iter_graph", "iter_pairs", "iter_search", "iter_triplets", "search"]

#: the largest scoring value the command line takes
SCORE_MAX = 2**31 - 1
#: records checked per call of the letter check
_CHECK = 4096
_LETTERS_ONLY = re.compile(r"[A-Za-z]+")
_SEQUENCE = (str, bytes, bytearray, memoryview)


class PairAlignment(NamedTuple):
    """One pair, as a row of ``seqalign pair``'s TSV: spans 0-based half-open.

    ``cigar`` uses ``=``, ``X``, ``I`` (a query base only), ``D`` (a target
    base only), ``M`` for both with ``cigar_m``; '*' for an empty alignment.
    ``nm``: mismatches plus inserted and deleted bases. Score only:
    ``cigar`` and ``nm`` are None, and so are the starts the mode leaves free.
    """

    qname: str
    qlen: int
    qstart: int | None
    qend: int
    tname: str
    tlen: int
    tstart: int | None
    tend: int
    score: int
    cigar: str | None
    nm: int | None


class TripletAlignment(NamedTuple):
    """One triplet, as a row of ``seqalign triplet``'s TSV: spans over A, B and C, 0-based half-open.

    ``columns``: runs of the column kinds M a b c A B C ('*' for an empty
    alignment). Score only: ``columns`` is None, and so are the starts the
    mode leaves free (all but global).
    """

    name1: str
    name2: str
    name3: str
    len1: int
    len2: int
    len3: int
    score: int
    beg1: int | None
    end1: int
    beg2: int | None
    end2: int
    beg3: int | None
    end3: int
    columns: str | None


class GraphAlignment(NamedTuple):
    """One read against the graph, as a row of ``seqalign graph``'s TSV.

    ``start``/``end``: the read's aligned span; ``path``: the walk as
    ``>s1>s2<s3`` ('*' for an empty alignment), ``path_start``/``path_end``
    the span on it; ``cigar`` with ``=``, ``X``, ``I``, ``D``. Score only:
    ``path``, ``path_start``, ``path_end`` and ``cigar`` are None, and so is
    ``start`` where the mode leaves it free (local).
    """

    read: str
    length: int
    start: int | None
    end: int
    score: int
    path: str | None
    path_start: int | None
    path_end: int | None
    cigar: str | None


class SearchHit(NamedTuple):
    """One hit of ``search``, as a row of ``seqalign search``'s TSV: BLAST's twelve columns (spans 1-based
    inclusive), then the hit's rank among its query's (from 1), its score and CIGAR. ``evalue`` and
    ``bitscore`` are None where no published parameters exist for the scoring."""

    qname: str
    tname: str
    pident: float
    length: int
    mismatch: int
    gapopen: int
    qstart: int
    qend: int
    tstart: int
    tend: int
    evalue: float | None
    bitscore: float | None
    rank: int
    score: int
    cigar: str


@dataclass(frozen=True)
class _Run:
    """What a call computes and where: the alignment settings, the backend, threads and batch size."""

    align: AlignConfig
    backend: str = "auto"
    device: int | tuple[int, ...] | str = 0
    threads: int = 1
    batch_size: int = 16384

    def __post_init__(self):
        from .backends import BACKENDS

        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        for name in ("threads", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        device = self.device
        if device == "all":
            return
        devices = (device,) if isinstance(device, int) else tuple(device) if isinstance(device, (tuple, list)) else ()
        if not devices or not all(isinstance(d, int) and d >= 0 for d in devices) or len(set(devices)) < len(devices):
            raise ValueError(f"device must be a GPU number, a tuple of distinct ones or 'all', got {device!r}")


def _align_config(modes: tuple[str, ...], mode: str, scoring: Scoring, score_only: bool,
                  max_matrix_mb: int) -> AlignConfig:
    """The alignment settings of a call, held to the command line's ranges."""
    if mode not in modes:
        raise ValueError(f"mode must be one of {', '.join(modes)}, got {mode!r}")
    too_large = [v for v in scoring.as_list() if v > SCORE_MAX]
    if too_large:
        raise ValueError(f"scoring values go up to {SCORE_MAX:,}, got {too_large[0]!r}")
    if not isinstance(max_matrix_mb, int) or max_matrix_mb < 1:
        raise ValueError(f"max_matrix_mb must be a positive integer, got {max_matrix_mb!r}")
    return AlignConfig(scoring=scoring, mode=mode, traceback=not score_only,
                       matrix_budget=max_matrix_mb * 1024 * 1024)


# ------------------------------------------------------------------ inputs

def _is_path(x) -> bool:
    return isinstance(x, (str, os.PathLike))


def _path(x) -> str:
    """A file input as the readers take it; a missing name made of letters alone is probably a sequence."""
    path = os.fspath(x)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if isinstance(x, str) and path != "-" and not os.path.exists(path) and _LETTERS_ONLY.fullmatch(path):
        raise UsageError("no such file (a sequence is given inside a list: [sequence] or [(name, sequence)])",
                         path=path)
    return path


def _letters(seq) -> bytes:
    return seq.encode("utf-8") if isinstance(seq, str) else bytes(seq)


def _named(item, k: int, where: str) -> tuple[str, bytes, int]:
    """(name, letters, 1-based number) of input item ``k``: a sequence or a (name, sequence) tuple."""
    if isinstance(item, _SEQUENCE):
        return str(k), _letters(item), k + 1
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], _SEQUENCE):
        name = item[0]
        name = name.decode("utf-8", "replace") if isinstance(name, (bytes, bytearray)) else str(name)
        return name, _letters(item[1]), k + 1
    raise TypeError(f"{where}: item {k}: expected a sequence (str or bytes) or a (name, sequence) tuple, "
                    f"got {type(item).__name__}")


def _items(x, where: str) -> Iterable:
    if isinstance(x, Mapping):
        return x.items()
    if isinstance(x, _SEQUENCE) or not isinstance(x, Iterable):
        raise TypeError(f"{where}: expected a file path or an iterable of sequences, got {type(x).__name__}")
    return x


def _source(x, label: str) -> tuple[Iterator[tuple[str, bytes, int]], str]:
    """The records of one input, (name, letters, number) each, and how messages name it."""
    if _is_path(x):
        from .io.fastx import FastxReader, display_name

        path = _path(x)
        return ((r.name, r.seq, r.num) for r in FastxReader(path)), display_name(path)
    return (_named(item, k, label) for k, item in enumerate(_items(x, label))), label


def _grouped(x, labels: tuple[str, ...]) -> Iterator[tuple]:
    """Units from one in-memory input whose items are tuples of len(labels) sequences (or named ones)."""
    k = len(labels)
    for n, item in enumerate(_items(x, labels[0])):
        if isinstance(item, _SEQUENCE) or not isinstance(item, (tuple, list)) or len(item) != k:
            raise TypeError(f"{labels[0]}: item {n}: expected a tuple of {k} sequences, got {item!r:.60}")
        yield tuple(_named(part, n, label) for part, label in zip(item, labels))


def _lockstep(sources: list[tuple[Iterator, str]]) -> Iterator[tuple]:
    """Units of the i-th record of every source; different record counts are an ``InputError``."""
    iters = [records for records, _ in sources]
    end = object()
    for k in itertools.count():
        unit = tuple(next(it, end) for it in iters)
        if all(r is end for r in unit):
            return
        if any(r is end for r in unit):
            counts = [k if r is end else k + 1 + sum(1 for _ in it) for r, it in zip(unit, iters)]
            raise InputError("unequal record counts: "
                             + ", ".join(f"{n} in {where}" for n, (_, where) in zip(counts, sources)))
        yield unit


def _checked(units: Iterable[tuple], wheres: tuple[str, ...]) -> Iterator[tuple]:
    """The units, once the letters of each of their records are known to be accepted (``io.validate``)."""
    import numpy as np

    from .io.validate import first_bad_letter, letter_message, record_label

    units = iter(units)
    while part := list(itertools.islice(units, _CHECK)):
        for s, where in enumerate(wheres):
            records = [unit[s] for unit in part]
            seq = np.frombuffer(b"".join(r[1] for r in records), np.uint8)
            i = int(first_bad_letter(seq))
            if i >= 0:
                ends = np.cumsum([len(r[1]) for r in records])
                k = int(np.searchsorted(ends, i, "right"))
                name, letters, num = records[k]
                raise InputError(letter_message(int(seq[i]), i - int(ends[k]) + len(letters) + 1),
                                 path=where, record=record_label(num, name))
        yield from part


def _batches(units: Iterator[tuple], size: int, build) -> Iterator[tuple]:
    """(names of each side, batch, None) for every ``size`` units; ``build(*letters of each side)`` makes the
    batch."""
    units = iter(units)
    while part := list(itertools.islice(units, size)):
        sides = range(len(part[0]))
        names = tuple([unit[s][0] for unit in part] for s in sides)
        yield names, build(*([unit[s][1] for unit in part] for s in sides)), None


# ------------------------------------------------------------------ records

def _known(values) -> list:
    """Integers as a list, a negative one (not computed) as None."""
    return [v if v >= 0 else None for v in values.tolist()]


def _pair_records(names, batch, res, cigar_m: bool) -> Iterator[PairAlignment]:
    n = res.size
    traced = res.traceback
    cigars = res.cigars(cigar_m) if traced else [None] * n
    nm = res.stats[:, 1:].sum(axis=1).tolist() if traced else [None] * n
    return map(PairAlignment._make, zip(
        names[0], batch.qlen.tolist(), _known(res.qstart), res.qend.tolist(),
        names[1], batch.tlen.tolist(), _known(res.tstart), res.tend.tolist(),
        res.score.tolist(), cigars, nm))


def _triplet_records(names, batch, res) -> Iterator[TripletAlignment]:
    lengths = batch.lengths
    columns = res.column_strings() if res.traceback else [None] * res.size
    spans = [part for s in range(3) for part in (_known(res.start[:, s]), res.end[:, s].tolist())]
    return map(TripletAlignment._make, zip(
        *names, *(lengths[:, s].tolist() for s in range(3)), res.score.tolist(), *spans, columns))


def _graph_records(names, batch, res) -> Iterator[GraphAlignment]:
    n = res.size
    if res.traceback:
        traced = (res.path_strings(batch.graph.names), res.pstart.tolist(), res.pend.tolist(), res.cigars())
    else:
        traced = ([None] * n,) * 4
    return map(GraphAlignment._make, zip(
        names[0], batch.lengths.tolist(), _known(res.qstart), res.qend.tolist(), res.score.tolist(), *traced))


# ------------------------------------------------------------------ running

_warmed = False


def _align(family_name: str, chunks: Iterator[tuple], run: _Run, records) -> Iterator:
    """The records of every chunk (names, batch, finish), in input order; each batch begun before the records
    of the one before are made."""
    global _warmed
    import logging

    from . import families
    from .backends import select_backend, warm_up

    family = families.get(family_name)
    if family.cuda is not None and run.backend != "cpu" and not _warmed:
        _warmed = True  # the driver starts once a process, beside the imports that follow
        warm_up(run.backend, run.device)
    backend = select_backend(family, run.backend, run.threads, logging.getLogger("seqalign_cli").info, run.device,
                             run.align)
    held = None
    for names, batch, finish in chunks:
        pending = backend.start(batch, run.align)
        if held is not None:
            yield from _made(held, records)
        held = (names, batch, finish, pending)
    if held is not None:
        yield from _made(held, records)


def _made(held: tuple, records) -> Iterator:
    """The records of a begun batch, once its results are in (and chosen by the chunk, as a run does)."""
    names, batch, finish, pending = held
    res = pending.result()
    return records(names, batch, res if finish is None else finish(res))


def _read(family_name: str, inputs, run: _Run, names) -> Iterator[tuple]:
    """(names, batch, the chunk's choice among its results or None) of every chunk the family's reader makes
    of files, as for a run."""
    from . import families

    for chunk in families.get(family_name).read(inputs, run.batch_size):
        yield names(chunk), chunk.batch(), chunk.finish


# ------------------------------------------------------------------ pairs

def iter_pairs(queries, targets=None, *, cross: bool = False, mode: str = "global", match: int = 2,
               mismatch: int = 4, gap_open: int = 4, gap_extend: int = 2, n_penalty: int = 1,
               score_only: bool = False, cigar_m: bool = False, max_matrix_mb: int = 256,
               backend: str = "auto", device=0, threads: int = 1,
               batch_size: int = 16384) -> Iterator[PairAlignment]:
    """Align pairs; yields a ``PairAlignment`` per pair, in input order.

    ``queries`` and ``targets``: the i-th query with the i-th target (different
    counts are an ``InputError``); ``cross=True``: every query against every
    target (query-major). ``targets`` left out: ``queries`` holds the pairs,
    in memory as (query, target) tuples, in a file as consecutive records (as
    ``--interleaved``). Options as ``seqalign pair``'s.
    """
    align = _align_config(MODES, mode, Scoring(match, mismatch, gap_open, gap_extend, n_penalty), score_only,
                          max_matrix_mb)
    run = _Run(align, backend, device, threads, batch_size)
    if cross and targets is None:
        raise ValueError("cross=True aligns every query against every target: give the targets")

    def records(names, batch, res):
        return _pair_records(names, batch, res, cigar_m)

    if _is_path(queries) and (targets is None or _is_path(targets)):
        from .families.pairwise.inputs import PairInputs

        pairing = "interleaved" if targets is None else "cross" if cross else "zip"
        inputs = PairInputs(_path(queries), None if targets is None else _path(targets), pairing)
        chunks = _read("pairwise", inputs, run, lambda chunk: (chunk.q.names_list(), chunk.t.names_list()))
    else:
        chunks = _batches(_pair_units(queries, targets, cross), batch_size, _make_pairs)
    return _align("pairwise", chunks, run, records)


def align_pairs(queries, targets=None, **options) -> list[PairAlignment]:
    """Align pairs: the records of ``iter_pairs`` (same arguments and options) as a list."""
    return list(iter_pairs(queries, targets, **options))


def _pair_units(queries, targets, cross: bool) -> Iterator[tuple]:
    labels = ("<queries>", "<targets>")
    if targets is None:
        return _checked(_grouped(queries, labels), labels)
    q, t = _source(queries, labels[0]), _source(targets, labels[1])
    if not cross:
        return _checked(_lockstep([q, t]), (q[1], t[1]))
    return _crossed(q, t)


def _crossed(q: tuple[Iterator, str], t: tuple[Iterator, str]) -> Iterator[tuple]:
    """Every query with every target, query-major; the targets held in memory."""
    held = [unit[0] for unit in _checked(((r,) for r in t[0]), (t[1],))]
    for (query,) in _checked(((r,) for r in q[0]), (q[1],)):
        for target in held:
            yield query, target


def _make_pairs(queries: list[bytes], targets: list[bytes]):
    from .families.pairwise.batch import make_batch

    return make_batch(queries, targets)


# ------------------------------------------------------------------ triplets

def iter_triplets(a, b=None, c=None, *, mode: str = "global", match: int = 2, mismatch: int = 4,
                  gap_open: int = 0, gap_extend: int = 2, n_penalty: int = 1, score_only: bool = False,
                  max_matrix_mb: int = 256, backend: str = "auto", device=0, threads: int = 1,
                  batch_size: int = 16384) -> Iterator[TripletAlignment]:
    """Align triplets exactly (sum-of-pairs; ``gap_open`` > 0: quasi-natural affine gaps); yields a
    ``TripletAlignment`` per triplet, in order.

    ``a``, ``b``, ``c``: the i-th records of the three form triplet i
    (different counts are an ``InputError``). ``b`` and ``c`` left out: ``a``
    holds the triplets, in memory as 3-tuples, in a file as records 3t, 3t+1,
    3t+2 (as ``--interleaved``). Options as ``seqalign triplet``'s.
    """
    align = _align_config(TRIPLET_MODES, mode, Scoring(match, mismatch, gap_open, gap_extend, n_penalty),
                          score_only, max_matrix_mb)
    run = _Run(align, backend, device, threads, batch_size)
    if (b is None) != (c is None):
        raise TypeError("give b and c both, or neither (a then holds the triplets)")
    inputs = (a,) if b is None else (a, b, c)
    if all(map(_is_path, inputs)):
        from .families.triplet.inputs import TripletInputs

        chunks = _read("triplet", TripletInputs(tuple(map(_path, inputs)), b is None), run,
                       lambda chunk: tuple(block.names_list() for block in chunk.blocks))
    else:
        chunks = _batches(_triplet_units(inputs), batch_size, _make_triplets)
    return _align("triplet", chunks, run, _triplet_records)


def align_triplets(a, b=None, c=None, **options) -> list[TripletAlignment]:
    """Align triplets: the records of ``iter_triplets`` (same arguments and options) as a list."""
    return list(iter_triplets(a, b, c, **options))


def _triplet_units(inputs: tuple) -> Iterator[tuple]:
    labels = ("<a>", "<b>", "<c>")
    if len(inputs) == 1:
        return _checked(_grouped(inputs[0], labels), labels)
    sources = [_source(x, label) for x, label in zip(inputs, labels)]
    return _checked(_lockstep(sources), tuple(where for _, where in sources))


def _make_triplets(a: list[bytes], b: list[bytes], c: list[bytes]):
    from .families.triplet.batch import make_triplets

    return make_triplets(a, b, c)


# ------------------------------------------------------------------ graph

def iter_graph(graph, reads, *, mode: str = "glocal", match: int = 2, mismatch: int = 4, gap_open: int = 4,
               gap_extend: int = 2, n_penalty: int = 1, forward_only: bool = False, score_only: bool = False,
               max_matrix_mb: int = 256, backend: str = "auto", device=0, threads: int = 1,
               batch_size: int = 16384) -> Iterator[GraphAlignment]:
    """Align reads to a graph (every walk of its DAG); yields a ``GraphAlignment`` per read, in order.

    ``graph``: a GFA1 file (path), GFA1 text (``str`` holding a line break or
    a tab, or ``bytes``), or a graph already prepared by
    ``seqalign_cli.families.graph.chunks_gfa.load_graph`` (with the same ``forward_only``), which
    saves preparing it again for every call. Options as ``seqalign graph``'s.
    """
    align = _align_config(GRAPH_MODES, mode, Scoring(match, mismatch, gap_open, gap_extend, n_penalty),
                          score_only, max_matrix_mb)
    run = _Run(align, backend, device, threads, batch_size)
    text = isinstance(graph, (bytes, bytearray)) or isinstance(graph, str) and ("\n" in graph or "\t" in graph)
    if not text and _is_path(graph) and _is_path(reads):
        from .families.graph.inputs import GraphInputs

        chunks = _read("graph", GraphInputs(_path(graph), _path(reads), forward_only), run,
                       lambda chunk: (chunk.block.names_list(),))
    else:
        if not text and not _is_path(graph) and getattr(graph, "forward_only", forward_only) != forward_only:
            raise ValueError(f"the graph was prepared with forward_only={graph.forward_only}: prepare it again "
                             f"with forward_only={forward_only}, or pass its GFA")
        chunks = _graph_chunks(graph, text, forward_only, reads, batch_size)
    return _align("graph", chunks, run, _graph_records)


def align_graph(graph, reads, **options) -> list[GraphAlignment]:
    """Align reads to a graph: the records of ``iter_graph`` (same arguments and options) as a list."""
    return list(iter_graph(graph, reads, **options))


def _graph_chunks(graph, text: bool, forward_only: bool, reads, size: int) -> Iterator[tuple]:
    """(names, batch) of the reads against the graph, which is prepared first (when not already)."""
    from .families.graph.chunks_gfa import Graph, build_graph, load_graph, parse_gfa
    from .families.graph.batch import make_graph_batch

    if text:
        graph = build_graph(parse_gfa(_letters(graph), "<graph>"), forward_only)
    elif _is_path(graph):
        graph = load_graph(_path(graph), forward_only)
    elif not isinstance(graph, Graph):
        raise TypeError(f"graph: expected a GFA path, GFA text or a prepared graph, got {type(graph).__name__}")
    records, where = _source(reads, "<reads>")
    units = _checked(((r,) for r in records), (where,))
    yield from _batches(units, size, lambda seqs: make_graph_batch(graph, seqs))


# ------------------------------------------------------------------ database search

def iter_search(queries, database, *, top: int = 10, min_score: int | None = None, evalue: float | None = None,
                mode: str = "local", alphabet: str = "protein", matrix: str | None = None,
                gap_open: int | None = None, gap_extend: int | None = None, match: int = 2, mismatch: int = 4,
                n_penalty: int = 1, backend: str = "auto", device=0, threads: int = 1,
                batch_size: int = 16384) -> Iterator[SearchHit]:
    """Search each query against every record of a database; yields each query's hits (``SearchHit``), best
    first, queries in input order (a query without hits yields nothing).

    ``queries`` and ``database``: FASTA/FASTQ files (paths, plain or gzip).
    Options as ``seqalign search``'s: proteins by default, scored by
    ``matrix`` (BLOSUM62 unless given) with BLAST's gap costs for it unless
    ``gap_open``/``gap_extend`` are given; ``alphabet="dna"`` with ``match``
    and ``mismatch``, or a ``matrix``. The alphabet is the process's while
    the hits are made: searches of two alphabets should not be interleaved.
    """
    from . import matrices
    from .io import alphabet as letters
    from .families.search.inputs import SearchInputs
    from .matrices import statistics

    if not (_is_path(queries) and _is_path(database)):
        raise TypeError("search: queries and database are FASTA/FASTQ file paths")
    if alphabet not in letters.ALPHABETS:
        raise ValueError(f"alphabet must be one of {', '.join(letters.ALPHABETS)}, got {alphabet!r}")
    if not isinstance(top, int) or top < 1:
        raise ValueError(f"top must be a positive integer, got {top!r}")
    gaps = {n: v for n, v in (("gap_open", gap_open), ("gap_extend", gap_extend)) if v is not None}
    scoring = Scoring(match, mismatch, n_penalty=n_penalty, **gaps)
    try:
        scoring = matrices.with_matrix(scoring, alphabet, matrix, set(gaps))
    except UsageError as exc:
        raise ValueError(str(exc)) from None
    align = _align_config(MODES, mode, scoring, False, 256)
    if evalue is not None and statistics.params(scoring, mode) is None:
        raise ValueError(f"evalue: {statistics.why_none(scoring, mode)}")
    run = _Run(align, backend, device, threads, batch_size)
    inputs = SearchInputs(_path(queries), _path(database), top, min_score, evalue)
    return _in_alphabet(alphabet, _align("search", _read("search", inputs, run, _search_names), run,
                                         _search_records))


def search(queries, database, **options) -> list[SearchHit]:
    """Search queries against a database: the hits of ``iter_search`` (same arguments and options) as a list."""
    return list(iter_search(queries, database, **options))


def _in_alphabet(name: str, records: Iterator) -> Iterator:
    """``records`` made with ``name`` as the process's alphabet (the readers encode in it), restored after."""
    from .io import alphabet as letters

    before = letters.current()
    letters.use(name)
    try:
        yield from records
    finally:
        letters.use(before)


def _search_names(chunk) -> tuple[list[str], list[str]]:
    return chunk.block.names_list(), chunk.db.names


def _search_records(names, batch, res) -> Iterator[SearchHit]:
    import math

    from .families.pairwise.formats_blast import counts

    qnames, dbnames = names
    rec = res.alignments
    known = lambda values: [None if math.isnan(v) else v for v in values.tolist()]  # noqa: E731
    return map(SearchHit._make, zip(
        [qnames[q] for q in res.query.tolist()], [dbnames[t] for t in res.target.tolist()],
        *(column.tolist() for column in counts(rec)), (rec.qstart + 1).tolist(), rec.qend.tolist(),
        (rec.tstart + 1).tolist(), rec.tend.tolist(), known(res.evalue), known(res.bits), res.rank.tolist(),
        rec.score.tolist(), rec.cigars()))
