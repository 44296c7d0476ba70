"""Database search on the GPU: the database on the device once, each query's score pass, the scheduler's hooks.

The first pass of a search (every query against every database record, score
only) runs here, in ``kernels/search.cu``; the second (each query's kept hits
aligned again with traceback, ``cpu.kept_hits``) is the CPU engine's,
so that the hits, their ranking and their alignments are the same on every
backend.

The database goes to each GPU once a run (``_DeviceDb``), in parts of at
most ``part_codes`` codes: all of them stay on the device when they fit in
``DB_SHARE`` of its free memory, else each batch of queries brings them
through one after another (the same scores either way). Each record goes
to a kernel and a group size by its length. Two records make a work item in
16-bit lanes where no value can pass ``INT16_LIMIT`` (``pack16``); those up
to ``gpu_columns.UP_TO`` residues (the widest shape's, 1,024) go to the
column kernel (the records in registers, the query streaming through the
lanes, a shape of lanes and columns by length). The others go to the row
kernel (the query's rows in registers, the record streaming), in groups by
length (``GROUPS``), one record a work item in int32 lanes where 16 bits do
not hold its values.
Work items of similar length run side by side in a warp, longest first.
These plans depend on the query only through its length class and are kept
on the device.

The kernels score local mode with substitution scores that fit the signed
byte profile; other searches go to the CPU engine (``HOOKS.on_gpu``, said
once on stderr).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.cuda.device import DeviceEngine, Job, copy_back, offsets
from ...backends.cuda.launch import THREADS, KernelArgs, flag
from ...backends.cuda.loader import module
from ...config import AlignConfig, Mode
from ...protocols import Hooks
from ..pairwise.cpu import CpuPairwise
from ..pairwise.plan import INT16_LIMIT
from . import gpu_columns as columns
from .cpu import kept_hits, substitution_array
from .results import SearchHits

KERNEL = "search.cu"
#: codes a profile row holds (the kernel's PROFILE_CODES): the protein alphabet's 27, then padding
PROFILE_CODES = 32
#: the profile's score of padding (rows past the query, codes past the alphabet): any negative value keeps a
#: padded cell from passing a real one
PAD_SCORE = -64
#: substitution scores the signed-byte profile holds
PROFILE_RANGE = (-127, 127)
#: query rows a lane holds in registers
ROWS = 16
#: (longest record, lanes a work item): the first row whose length covers a record gives its group; longer
#: records take whole warps (LONG_GROUP). Groups of 8 up to 4,096 residues: 2.61 TCUPS against 2.31 with one
#: thread a record up to 1,024 (H100: benchmarks/decisions/search_groups.md)
GROUPS = ((4096, 8),)
LONG_GROUP = 32
#: the largest gap_open + gap_extend of 16-bit lanes (minus infinity, NEG16, must stay far below every value)
PACK_GAP_LIMIT = 4096
#: the share of a GPU's free memory the database may hold for the whole run
DB_SHARE = 0.5


def gpu_fits(cfg: AlignConfig) -> bool:
    """Whether the kernels score this search: local mode, substitution scores within the byte profile."""
    if Mode.parse(cfg.mode) is not Mode.LOCAL:
        return False
    S = substitution_array(cfg.scoring)
    return PROFILE_RANGE[0] <= int(S.min()) and int(S.max()) <= PROFILE_RANGE[1]


def profile(query: np.ndarray, S: np.ndarray, tiles: int) -> np.ndarray:
    """The query profile (tiles, PROFILE_CODES, ROWS) int8: row t*ROWS + r's score against each code."""
    prof = np.full((tiles * ROWS, PROFILE_CODES), PAD_SCORE, np.int8)
    prof[:len(query), :S.shape[1]] = S[query]
    return np.ascontiguousarray(prof.reshape(tiles, ROWS, PROFILE_CODES).transpose(0, 2, 1))


def group_of(lengths: np.ndarray) -> np.ndarray:
    """The lanes of each record's work item (``GROUPS``)."""
    limits = np.array([g[0] for g in GROUPS], np.int64)
    sizes = np.array([g[1] for g in GROUPS] + [LONG_GROUP], np.int64)
    return sizes[np.searchsorted(limits, lengths, side="left")]


def pack16(lengths: np.ndarray, qlen: int, largest: int, gap_oe: int) -> np.ndarray:
    """Records whose every value against a query of ``qlen`` stays within 16-bit lanes: no local score
    passes ``largest`` (the best substitution score) times the shorter length."""
    if gap_oe > PACK_GAP_LIMIT:
        return np.zeros(len(lengths), bool)
    return max(largest, 0) * np.minimum(lengths, qlen) < INT16_LIMIT


@dataclass
class SearchArgs(KernelArgs):
    """The arguments of ``search_local`` (its header in kernels/search.cu says what each holds)."""

    KERNEL = KERNEL
    NAME = "search_local"

    db: object
    db_off: object
    db_len: object
    items: object
    nitems: np.int32
    profile: object
    tiles: np.int32
    gap_oe: np.int32
    gap_e: np.int32
    border: object
    border_off: object
    score: object


@dataclass
class _Launch:
    """The work items of one kernel variant over a database part, on the device."""

    G: int
    pack: bool
    items: object  # int32 (n, 2)
    nitems: int
    border_off: object  # int64 per layout group of 32 / G items (the row kernel)
    border_len: int  # uint2 cells of the border scratch
    C: int = 0  # the column kernel's columns a lane (gpu_columns.SHAPES); 0: the row kernel


def _items(recs: np.ndarray, pack: bool) -> np.ndarray:
    """Work items of records ``recs`` (longest first): neighbours two by two when ``pack``, else alone."""
    if pack:
        items = np.full((-(-len(recs) // 2), 2), -1, np.int32)
        items.reshape(-1)[:len(recs)] = recs
        return items
    return np.stack([recs, np.full(len(recs), -1)], axis=1).astype(np.int32)


def _launch(cp, G: int, pack: bool, recs: np.ndarray, lengths: np.ndarray) -> _Launch:
    """The row kernel's work items of records ``recs`` (``_items``) and the border's layout (each group of
    32 / G items side by side, as long as its longest)."""
    items = _items(recs, pack)
    n = np.maximum(lengths[items[:, 0]], np.where(items[:, 1] >= 0, lengths[items[:, 1]], 0))
    per = 32 // G
    groups = -(-len(items) // per)
    longest = np.zeros(groups * per, np.int64)
    longest[:len(n)] = n
    size = longest.reshape(groups, per).max(axis=1) * per
    return _Launch(G, pack, cp.asarray(items), len(items), cp.asarray(offsets(size)), int(size.sum()))


def _column_launch(cp, G: int, C: int, recs: np.ndarray) -> _Launch:
    """The column kernel's work items of records ``recs`` (longest first), two by two (no border)."""
    items = _items(recs, True)
    return _Launch(G, True, cp.asarray(items), len(items), None, 0, C)


class _Part:
    """Records [first, last) of the database on the device, and the plans of the queries seen so far."""

    def __init__(self, cp, db, first: int, last: int):
        self.first, self.last = first, last
        lo, hi = int(db.offs[first]), int(db.offs[last])
        self.lengths = db.lengths[first:last].astype(np.int64)
        self.codes = cp.asarray(db.codes[lo:hi] if hi > lo else np.zeros(1, np.uint8))
        self.off = cp.asarray(db.offs[first:last] - lo)
        self.len = cp.asarray(self.lengths.astype(np.int32))
        self.order = np.argsort(-self.lengths, kind="stable")  # longest first, ties in file order
        self.plans: dict = {}
        cp.cuda.get_current_stream().synchronize()  # copied before any stream's kernels read them

    def launches(self, cp, qlen: int, largest: int, gap_oe: int, up_to: int | None) -> list[_Launch]:
        """The launches of a query of ``qlen`` (kept by its length class): the records of 16-bit items up to
        ``up_to`` residues (``gpu_columns.UP_TO``; 0: none) to the column kernel, the others to the row kernel."""
        key = (qlen if max(largest, 0) * qlen >= INT16_LIMIT else -1, up_to)
        if key not in self.plans:
            lengths = self.lengths[self.order]
            pack = pack16(lengths, qlen, largest, gap_oe)
            shape = np.where(pack, columns.shape_of(lengths, up_to), -1)
            plan = [_column_launch(cp, G, C, self.order[shape == k])
                    for k, (G, C) in enumerate(columns.SHAPES) if (shape == k).any()]
            rows = shape < 0
            group = group_of(lengths)
            plan += [_launch(cp, int(G), p, self.order[rows & (group == G) & (pack == p)], self.lengths)
                     for G in np.unique(group) for p in (True, False) if (rows & (group == G) & (pack == p)).any()]
            self.plans[key] = plan
            cp.cuda.get_current_stream().synchronize()  # kept for later batches, on other streams
        return self.plans[key]


class _DeviceDb:
    """A database on one device: its parts, kept while they fit (see the module's docstring)."""

    def __init__(self, cp, db, part_codes: int):
        self.db = db
        cuts = [0]
        ends = db.offs[1:]
        while cuts[-1] < len(db):
            limit = int(db.offs[cuts[-1]]) + part_codes
            cuts.append(max(cuts[-1] + 1, int(np.searchsorted(ends, limit, side="right"))))
        self.bounds = list(zip(cuts[:-1], cuts[1:]))
        free, _ = cp.cuda.runtime.memGetInfo()
        self.resident = len(db.codes) * 1.5 + 16 * len(db) <= DB_SHARE * free
        self.parts = [_Part(cp, db, a, b) for a, b in self.bounds] if self.resident else None

    def each(self, cp):
        """The parts, one after another (brought to the device in turn when they are not kept)."""
        if self.parts is not None:
            yield from self.parts
            return
        for a, b in self.bounds:
            yield _Part(cp, self.db, a, b)


@dataclass
class _DeviceBatch:
    score: object  # int32 (queries, records)


class CudaSearch(DeviceEngine):
    """The score pass of a search on one device, then the kept hits' traceback (``kept_hits``)."""

    #: codes of a database part (the kernels index within a part in int64, parts bound the plans' memory)
    part_codes = 1 << 30

    def __init__(self, device: int = 0):
        super().__init__(device)
        self._db: _DeviceDb | None = None
        self._tracer: CpuPairwise | None = None
        self._pairs: tuple = (None, None)  # the last scoring's column table (pair_table)

    def database(self, db) -> _DeviceDb:
        if self._db is None or self._db.db is not db:
            self._db = None  # the last run's parts go first
            self._db = _DeviceDb(self.cp, db, self.part_codes)
        return self._db

    def upload(self, batch, out, cfg, staged) -> _DeviceBatch:
        self.database(batch.db)
        return _DeviceBatch(self.cp.zeros((batch.size, len(batch.db)), np.int32))

    def queue(self, batch, cfg, subset, out, d, stream, clock) -> Job:
        self.score_pass(batch, cfg, subset, d, stream)
        host = {"score": copy_back(d.score, d.score.shape, stream)}
        clock("kernels")
        return Job(batch, cfg, subset, out, d, stream, host)

    def score_pass(self, batch, cfg, subset, d: _DeviceBatch, stream):
        """Queue the first pass of the queries ``subset`` on ``stream``: their scores into ``d.score``
        (a query's launches, and the queries', side by side)."""
        cp = self.cp
        sc = cfg.scoring
        S = substitution_array(sc)
        largest, gap_oe = int(S.max()), sc.gap_open + sc.gap_extend
        offs = np.require(batch.offs, np.int64, "CW")
        pairs = self.pair_table(S) if columns.UP_TO != 0 else None  # the column kernel's table, where it runs
        profiles: dict = {}  # (query, tiles): its profile on the device
        classes: dict = {}  # query: its class codes on the device (the column kernel)
        for part in self.database(batch.db).each(cp):
            works = []
            for k in np.asarray(subset).tolist():
                q = batch.codes[offs[k]:offs[k + 1]]
                row = d.score[k, part.first:]
                for launch in part.launches(cp, len(q), largest, gap_oe, columns.UP_TO if pairs else 0):
                    if launch.C:
                        if k not in classes:
                            classes[k] = cp.asarray(pairs[0].lut[q] if len(q) else np.zeros(1, np.uint8))
                        works.append(self._columns(part, launch, classes[k], len(q), pairs, sc, row))
                        continue
                    tiles = -(-max(len(q), 1) // (ROWS * launch.G)) * launch.G
                    if (k, tiles) not in profiles:
                        profiles[k, tiles] = cp.asarray(profile(q, S, tiles))
                    works.append(self._work(part, launch, profiles[k, tiles], tiles, sc, row))
            self.side_by_side(stream, works)

    def pair_table(self, S: np.ndarray):
        """The column kernel's table of ``S`` (``gpu_columns.PairTable``) and its device copies (table, lut);
        None where the table is too large for shared memory."""
        key = S.tobytes()
        if self._pairs[0] != key:
            pt = columns.pair_table(S, PAD_SCORE)
            fits = pt.nbytes <= columns.TABLE_BYTES
            self._pairs = (key, (pt, self.cp.asarray(pt.table), self.cp.asarray(pt.lut)) if fits else None)
        return self._pairs[1]

    def _columns(self, part: _Part, launch: _Launch, query, qlen: int, pairs, sc, row):
        """A callable queueing one launch of the column kernel on the current stream."""
        pt, table, lut = pairs
        fn = module(KERNEL, (name := columns.kernel_name(launch.G, launch.C),), self.device).get_function(name)
        if fn.max_dynamic_shared_size_bytes < pt.nbytes:
            fn.max_dynamic_shared_size_bytes = pt.nbytes
        grid = -(-launch.nitems * launch.G // columns.THREADS)
        args = columns.ColumnArgs(part.codes, part.off, part.len, launch.items, np.int32(launch.nitems), query,
                                  np.int32(qlen), table, lut, np.int32(pt.D), np.int32(sc.gap_open + sc.gap_extend),
                                  np.int32(sc.gap_extend), row)
        return lambda: fn((grid,), (columns.THREADS,), args.values(), shared_mem=pt.nbytes)

    def _work(self, part: _Part, launch: _Launch, prof, tiles: int, sc, row):
        """A callable queueing one launch on the current stream (its border scratch is the stream's)."""
        fn = module(KERNEL, (name := kernel_name(launch.G, launch.pack),),
                    self.device).get_function(name)
        grid = -(-launch.nitems * launch.G // THREADS)

        def run():
            border = self.scratch(f"border{launch.G}", 8 * launch.border_len if tiles > launch.G else 8)
            args = SearchArgs(part.codes, part.off, part.len, launch.items, np.int32(launch.nitems), prof,
                              np.int32(tiles), np.int32(sc.gap_open + sc.gap_extend), np.int32(sc.gap_extend), border,
                              launch.border_off, row)
            fn((grid,), (THREADS,), args.values())
        return run

    def results(self, job: Job, clock, whole: bool):
        score = job.host["score"][job.subset].astype(np.int64)
        batch = job.batch if len(job.subset) == job.batch.size else job.batch.subset(job.subset)
        if self._tracer is None:
            self._tracer = CpuPairwise(self.threads)
        hits = kept_hits(batch, job.cfg, score, score == 0, self._tracer)  # local: empty exactly at 0
        job.out.take(job.subset, hits)


class SearchHooks(Hooks):
    """What the GPU scheduler asks of the search family."""

    @staticmethod
    def on_gpu(batch, cfg: AlignConfig) -> np.ndarray:
        return np.full(batch.size, gpu_fits(cfg), bool)

    @staticmethod
    def allocate(batch, cfg: AlignConfig) -> SearchHits:
        return SearchHits.gather(cfg.traceback)

    @staticmethod
    def cpu_note(batch, cfg: AlignConfig, idx) -> str:
        return ("search: the CPU engine scores this run (the GPU kernels score local mode, with substitution "
                "scores from -127 to 127)")


HOOKS = SearchHooks()


def kernel_name(G: int, pack: bool) -> str:
    """The kernel of groups of G lanes, 16-bit (``pack``) or int32 lanes."""
    return f"search_local<{int(G)}, {ROWS}, {flag(pack)}>"


def compile_checks() -> dict[str, tuple[str, ...]]:
    """The variants ``seqalign info`` and the build check compile (backends/cuda/variants.py): every group size,
    16-bit and int32 lanes."""
    groups = [g for _, g in GROUPS] + [LONG_GROUP]
    return {KERNEL: tuple(kernel_name(g, p) for g in groups for p in (True, False))
            + tuple(columns.kernel_name(g, c) for g, c in columns.SHAPES)}
