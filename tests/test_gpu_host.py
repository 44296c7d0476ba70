"""Host-side helpers of the cuda backend that need no GPU: run slots and work splitting."""

import numpy as np

from seqalign_cli.backends.cuda.scheduler import split_by_cells
from seqalign_cli.families.pairwise import gpu_subwarp as subwarp
from seqalign_cli.backends.cuda.device import fitting_parts, run_slots, shape_groups
from seqalign_cli.families.pairwise.plan import border_offsets, pair_items, plan_pairs, route_pairs
from seqalign_cli.families.pairwise.gpu_warp import dir_words, rows_per_lane
from seqalign_cli.config import AlignConfig, Scoring
from support.fake_cupy import without_device


def test_run_slots_lists_each_pairs_slots_in_order():
    starts = np.array([0, 10, 4, 20])
    counts = np.array([2, 0, 3, 1])
    assert run_slots(starts, counts).tolist() == [0, 1, 4, 5, 6, 20]
    assert run_slots(starts[:0], counts[:0]).tolist() == []


def test_split_by_cells_covers_every_pair_once_and_balances():
    rng = np.random.default_rng(5)
    cells = rng.integers(1, 10_000, 1000)
    idx = np.arange(1000)
    pieces = split_by_cells(idx, cells, 8)
    joined = np.concatenate(pieces)
    assert sorted(joined.tolist()) == idx.tolist()
    loads = [cells[p].sum() for p in pieces]
    assert max(loads) < 2 * cells.sum() / len(pieces)
    # the largest pairs come first, so that they start early
    assert cells[pieces[0]].max() == cells.max()


def test_rows_per_lane_and_direction_words():
    q = np.array([1, 32, 33, 150, 256, 257, 10_000])
    R = rows_per_lane(q)
    assert R.tolist() == [1, 1, 2, 5, 8, 8, 8]
    t = np.full(len(q), 100)
    words = dir_words(q, t, R)
    stages = [1, 1, 1, 1, 1, 2, 40]
    assert words.tolist() == [s * (100 + 31) * 32 for s in stages]


def test_subwarp_plan_covers_queries_with_little_waste():
    q = np.array([0, 1, 16, 17, 31, 64, 65, 100, 150, 151, 256, 320, 321, 500, 512, 513, 1000, 20_000])
    t = q + 50
    G, R = subwarp.plan_shapes(q, t)
    rows = G * R
    stages = (np.maximum(q, 1) + rows - 1) // rows
    # up to 512 bp one stage; longer queries whole warps, in stages
    assert (stages[q <= 512] == 1).all() and (G[q > 320] == 32).all()
    assert G[q == 1][0] == 1 and G[q == 150][0] == 8  # one thread for the shortest, subwarps for reads
    # groups never larger than needed: half the group would not cover the query
    small = (q > 80) & (q <= 320)
    assert ((G[small] // 2) * 20 < q[small]).all()
    words = subwarp.dir_words(q, t, G, R)
    assert (words == (q + rows - 1) // rows * (t + G - 1) * ((R + 7) // 8) * G).all()
    assert (words * 8 >= q * t).all()  # at least 4 bits a cell


def test_16bit_lanes_only_where_scores_fit():
    q = np.array([150, 3000, 4096, 20_000])
    t = np.array([250, 3000, 4096, 20_000])
    assert subwarp.fits16(Scoring(), q, t).tolist() == [True, True, True, False]
    assert not subwarp.fits16(Scoring(match=200), q, t).any()
    # without gap extension costs values stay small; columns past 16 bits still go to int32
    free = Scoring(gap_open=4, gap_extend=0)
    assert subwarp.fits16(free, np.array([10, 10]), np.array([65_535, 65_536])).tolist() == [True, False]
    # partners share a matrix: a pair that would push it past the bound goes alone
    qlen = np.array([150, 140, 3000, 20_000, 100])
    tlen = np.array([250, 240, 3000, 20_000, 90])
    items = pair_items(np.arange(5), qlen, tlen, Scoring())
    flat = sorted(x for x in items.ravel().tolist() if x >= 0)
    assert flat == [0, 1, 2, 3, 4]
    for a, b in items.tolist():
        if b >= 0:
            m, n = max(qlen[a], qlen[b]), max(tlen[a], tlen[b])
            assert subwarp.fits16(Scoring(), np.array([m]), np.array([n]))[0]
    # shared pairs (no scoring given): every pair keeps its neighbour, the last one alone
    assert pair_items(np.array([7, 3, 9, 1, 4]), qlen, tlen).tolist() == [[7, 3], [9, 1], [4, -1]]
    # pairs that share a group first, then the first and the second of those that could not, alone
    assert pair_items(np.array([2, 3, 0, 1, 4]), qlen, tlen, Scoring()).tolist() == [[0, 1], [4, -1], [2, -1],
                                                                                       [3, -1]]


def test_fitting_parts_keep_order_and_limit():
    rng = np.random.default_rng(9)
    sizes = rng.integers(1, 100, 500)
    sizes[17] = 1000  # alone over the limit
    sel = rng.permutation(500)
    parts = fitting_parts(sel, sizes, limit=300)
    assert np.concatenate(parts).tolist() == sel.tolist()
    for part in parts:
        assert sizes[part].sum() <= 300 or len(part) == 1
    # each part but the last is full: the next pair would not have fitted
    for part, nxt in zip(parts, parts[1:]):
        assert sizes[part].sum() + sizes[nxt[0]] > 300
    assert fitting_parts(sel[:0], sizes, 300) == []


def test_shape_groups_sort_each_shape_largest_first():
    """One sort for a batch gives what a loop over the shapes gave: shapes ascending, in each the items largest
    first (sizes within 1/1024 of an octave alike), ties in the order of the subset; keys of 16 bits or more."""
    rng = np.random.default_rng(11)
    subset = rng.permutation(3000)[:2000]
    for top in (7, 1 << 20):
        key = rng.integers(0, top, len(subset)) * 64 + 3
        cells = rng.integers(1, 20, 3000) * rng.choice([1, 1000, 1 << 41], 3000) + (rng.random(3000) < 0.3)
        rank = np.floor(np.log2(cells) * 1024)
        want = []
        for k in np.unique(key):
            sel = subset[key == k]
            want.append((int(k), sel[np.argsort(-rank[sel], kind="stable")].tolist()))
        assert [(k, items.tolist()) for k, items in shape_groups(subset, key, cells)] == want
        assert shape_groups(subset[:0], key[:0], cells) == []
    assert [len(items) for _, items in shape_groups(np.arange(5), np.zeros(5, np.int64), np.ones(5))] == [5]


def test_traceback_routes():
    from seqalign_cli.families.pairwise.gpu import DIRS_BYTES, FULL_PAIR_BYTES, planned_dir_words, routes

    q = np.array([150, 400, 600, 20_000, 100_000, 200])
    t = np.array([250, 9_000_000, 700, 20_000, 100_000, 3_000_000])
    cfg = AlignConfig(traceback=True, matrix_budget=64 * 1024 * 1024)
    route = routes(q, t, cfg)
    assert route.kernel == "subwarp"
    full, ckpt = route.gpu & ~route.checkpointed, route.checkpointed
    # within the budget: all codes at once; beyond it, several stages: checkpoints;
    # one stage beyond the budget: neither (the CPU engine)
    assert full.tolist() == [True, False, True, False, False, False]
    assert ckpt.tolist() == [False, False, False, True, True, False]
    assert (planned_dir_words(q, t)[full] * 4 <= cfg.matrix_budget).all()
    assert (subwarp.checkpoint_bytes(q, t)[ckpt] <= DIRS_BYTES).all()
    # a larger budget holds more pairs' codes whole, but never more than FULL_PAIR_BYTES of a pair that
    # checkpoints can take (launches of a few such pairs leave the device idle)
    big = routes(q, t, AlignConfig(traceback=True, matrix_budget=4 * 1024**3))
    assert (big.gpu & ~big.checkpointed).tolist() == [True, True, True, False, False, True]  # 400 rows: one stage
    assert big.checkpointed.tolist() == [False, False, False, True, True, False]
    q2, t2 = np.array([2_000, 4_000, 8_000]), np.array([2_000, 4_000, 8_000])
    two = routes(q2, t2, AlignConfig(traceback=True, matrix_budget=256 * 1024**2))
    codes = planned_dir_words(q2, t2) * 4
    assert two.checkpointed.tolist() == (codes > FULL_PAIR_BYTES).tolist() and two.gpu.all()
    assert two.checkpointed.any() and not two.checkpointed.all()
    # checkpoints (8 bytes a column per 512 rows) hold about 1/32 of the full codes (4 bits a cell)
    assert subwarp.checkpoint_bytes(q, t)[4] * 20 < planned_dir_words(q, t)[4] * 4
    # scoring values past the byte profile: the warp kernel, which has no checkpoints
    big = AlignConfig(scoring=Scoring(match=200), traceback=True, matrix_budget=64 * 1024 * 1024)
    assert routes(q, t, big).kernel == "warp" and not routes(q, t, big).checkpointed.any()
    # score-only pairs all go to a GPU while their scores fit int32 lanes
    assert routes(q, t, AlignConfig(traceback=False)).gpu.all()
    wide = routes(q, t, AlignConfig(scoring=Scoring(match=2000), traceback=False)).gpu
    assert wide.tolist() == [True, False, True, True, True, False]  # the CPU engine past the int32 bound


def test_shared_warps_one_per_stage_at_most():
    stages = np.array([1, 2, 3, 4, 7, 8, 200])
    warps = subwarp.shared_warps(stages)
    assert warps.tolist() == [1, 2, 2, 4, 4, 8, 8]
    assert (warps <= stages).all()


def test_packed_run_layout_keeps_room_for_the_cpu_pairs():
    """The layout a finished GPU job's runs are packed into (``RunStore.packed``; the gather itself,
    kernels/runs.cu, is tested on a GPU in test_cuda.py): exactly the runs in use of the GPU pairs, the
    whole room of the others, in record order; a CPU result written afterwards fits its room."""
    from seqalign_cli.families.pairwise.results import Alignments

    rng = np.random.default_rng(3)
    qlen = rng.integers(0, 40, 50)
    tlen = rng.integers(0, 40, 50)
    out = Alignments.allocate(qlen, tlen, True)
    cap = np.diff(np.append(out.cigar.off, len(out.cigar.op)))
    gpu = np.flatnonzero(rng.random(50) < 0.8)
    cpu = np.setdiff1d(np.arange(50), gpu)
    out.cigar.count[gpu] = rng.integers(0, cap + 1)[gpu]
    off, total = out.cigar.packed(gpu)
    room = np.diff(np.append(off, total))
    assert off[0] == 0 and (room[gpu] == out.cigar.count[gpu]).all() and (room[cpu] == cap[cpu]).all()
    # the GPU pairs' runs (here: their record number) in the new layout, then a CPU result beside them
    out.cigar.off, out.cigar.op, out.cigar.length = off, np.full(total, 9, np.uint8), np.zeros(total, np.int32)
    for k in gpu:
        out.cigar.length[off[k]:off[k] + out.cigar.count[k]] = k
    other = Alignments.allocate(qlen[cpu], tlen[cpu], True)
    other.cigar.count[:] = cap[cpu]
    other.cigar.op[:] = 2
    other.cigar.length[:] = -1
    out.take(cpu, other)
    for k in gpu:
        assert (out.cigar.runs(k)[1] == k).all()
    for k in cpu:
        ops, lens = out.cigar.runs(k)
        assert len(ops) == cap[k] and (ops == 2).all() and (lens == -1).all()


def test_runs_copied_back_ahead_land_in_their_records():
    """``fetch_runs`` with the host copy of every slot (``copy_runs_back``): a whole job takes the copy as
    its layout; a piece of a shared batch copies its records' slots alone and leaves the others'."""
    from seqalign_cli.backends.cuda.device import fetch_runs
    from seqalign_cli.results import RunStore

    rng = np.random.default_rng(4)
    cap = rng.integers(0, 12, 30)
    slots = int(cap.sum())
    host = {"run_op": rng.integers(0, 7, slots).astype(np.uint8),
            "run_len": rng.integers(1, 99, slots).astype(np.int32)}
    subset = np.flatnonzero(rng.random(30) < 0.6)
    for whole in (True, False):
        runs = RunStore.allocate(cap, 30)
        runs.op[:], runs.length[:] = 9, -1
        runs.count[subset] = rng.integers(0, cap + 1)[subset]
        fetch_runs(None, runs, None, None, None, subset, whole, host)
        for k in range(30):
            ops, lens = runs.runs(k)
            at = slice(runs.off[k], runs.off[k] + len(ops))
            if k in subset:
                assert ops.tolist() == host["run_op"][at].tolist() and lens.tolist() == host["run_len"][at].tolist()
        if whole:
            assert runs.op is host["run_op"] and runs.length is host["run_len"]
        else:  # the other records' slots untouched
            taken = np.zeros(slots, bool)
            for k in subset:
                taken[runs.off[k]:runs.off[k] + runs.count[k]] = True
            assert taken.any() and (runs.op[~taken] == 9).all() and (runs.length[~taken] == -1).all()


def test_shared16_bound():
    # the offsets of shared pairs: default and BWA-like scoring fit, in every mode; large values do not
    assert subwarp.shared16_fits(Scoring(), 0, 512)
    assert subwarp.shared16_fits(Scoring(match=1, mismatch=4, gap_open=6, gap_extend=1), 2, 512)
    assert subwarp.shared16_fits(Scoring(), 3, 512)
    assert not subwarp.shared16_fits(Scoring(match=15, mismatch=15, gap_open=0, gap_extend=5), 3, 512)
    assert not subwarp.shared16_fits(Scoring(match=10, mismatch=20, gap_open=30, gap_extend=5), 0, 512)


def test_plane_layout_words():
    # the 16-bit kernels' codes: the same words a step as nibbles, steps in whole chunks of 8
    q = np.array([1, 150, 160, 300, 513], np.int64)
    t = np.array([5, 150, 163, 290, 700], np.int64)
    G, R = subwarp.plan_shapes(q, t)
    nib = subwarp.dir_words(q, t, G, R)
    planes = subwarp.dir_words(q, t, G, R, True)
    per_step = nib // (t + G - 1)
    assert (planes >= nib).all()
    assert (planes == per_step * ((t + G - 1 + 7) // 8 * 8)).all()


def test_shared16_neighbour_bound():
    # the premise of shared16_fits, on full reference matrices: neighbouring H
    # differ by at most C, and E, F lie within C + gap_open + gap_extend below H
    import random

    from support.generators import mutate, random_dna
    from support.oracles import _matrices

    rng = random.Random(17)
    scorings = (Scoring(), Scoring(match=1, mismatch=4, gap_open=6, gap_extend=1),
                Scoring(match=5, mismatch=8, gap_open=10, gap_extend=5, n_penalty=3), Scoring(gap_open=0))
    for trial in range(24):
        q = random_dna(rng, rng.randint(1, 70))
        t = mutate(rng, q, 0.15) if trial % 3 else random_dna(rng, rng.randint(1, 90))
        if trial % 4 == 0:
            q = q[: len(q) // 2] + "NN" + q[len(q) // 2:]
        sc = scorings[trial % len(scorings)]
        C = sc.match + max(sc.mismatch, sc.n_penalty) + sc.gap_open + sc.gap_extend
        for mode in ("global", "semi-global", "glocal", "local"):
            H, m, n, E, F, _, _ = _matrices(q.encode(), t.encode(), sc, mode)
            for i in range(m + 1):
                for j in range(n + 1):
                    if i:
                        assert abs(H[i][j] - H[i - 1][j]) <= C, (mode, i, j)
                    if j:
                        assert abs(H[i][j] - H[i][j - 1]) <= C, (mode, i, j)
                    if i and j:
                        assert H[i][j] - C - sc.gap_open - sc.gap_extend <= E[i][j] <= H[i][j]
                        assert H[i][j] - C - sc.gap_open - sc.gap_extend <= F[i][j] <= H[i][j]


def test_the_cpu_engine_beside_a_gpu_is_made_once_at_its_first_align():
    from concurrent.futures import ThreadPoolExecutor

    from seqalign_cli.backends.cpu import LazyEngine
    from seqalign_cli.jit import thread_count

    made = []

    class Engine:
        def __init__(self, threads):
            made.append(threads)

        def align(self, batch, cfg):
            return batch, cfg

    class Family:
        cpu_engine = Engine

    lazy = LazyEngine(Family(), 10_000)
    assert made == [] and lazy.threads == thread_count(10_000) >= 1
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda k: lazy.align(k, "cfg"), range(64)))
    assert got == [(k, "cfg") for k in range(64)]
    assert made == [lazy.threads]  # one engine, made by whichever thread came first


def test_page_locked_code_buffers_and_how_they_are_known(monkeypatch):
    """The readers' code buffers are pinned up to PINNED_CODES_MAX (plain beyond), made in the run's GPU's
    context; ``is_pinned`` finds the pinned buffer behind numpy's memoryview and behind views cut from it."""
    import contextlib
    import sys
    import types

    from seqalign_cli.backends.cuda import device

    class PinnedMemoryPointer(bytearray):  # CuPy's pinned buffer, as numpy sees it: an object exporting a buffer
        pass

    contexts = []

    @contextlib.contextmanager
    def Device(k):
        contexts.append(k)
        yield

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=types.SimpleNamespace(
        PinnedMemoryPointer=PinnedMemoryPointer, Device=Device, alloc_pinned_memory=PinnedMemoryPointer)))
    monkeypatch.setattr(device, "PINNED_CODES_MAX", 1000)
    alloc = device.code_buffers(3)
    small, large = alloc(1000), alloc(1001)
    assert len(small) == 1000 and device.is_pinned(small) and contexts == [3]
    assert len(large) == 1001 and not device.is_pinned(large) and contexts == [3]
    assert len(small.base.base.obj) % 512 == 0  # a size class of the pinned pool
    arr = np.frombuffer(PinnedMemoryPointer(64), np.uint8, 40)
    assert device.is_pinned(arr) and device.is_pinned(arr[3:20])
    assert not device.is_pinned(arr[::2]) and not device.is_pinned(np.zeros(4, np.uint8))
    assert not device.is_pinned(np.frombuffer(bytearray(8), np.uint8))


def test_compiled_plan_equals_the_numpy_rules():
    """The batch plan (compiled, pairwise plan.py) against the rules as numpy states them: shapes, 16-bit lanes,
    direction words, shape keys, routes and border offsets, on random lengths of every plan row."""
    from seqalign_cli.families.pairwise.gpu import DIRS_BYTES, FULL_PAIR_BYTES, INT32_LIMIT, planned_dir_words

    rng = np.random.default_rng(23)
    n = 4000
    q = np.concatenate([rng.integers(0, 700, n // 2), rng.integers(0, 40_000, n // 4),
                        rng.integers(0, 400_000, n // 4)]).astype(np.int64)
    t = np.maximum(q + rng.integers(-300, 300, n), 0)
    t[::97] = rng.integers(60_000, 9_000_000, len(t[::97]))
    subset = np.sort(rng.permutation(n)[:3000])
    for sc in (Scoring(), Scoring(gap_open=4, gap_extend=0), Scoring(match=200), Scoring(match=3000)):
        for trace in (False, True):
            G, R, pack, words, key = plan_pairs(q, t, subset, sc, trace)
            g, r = subwarp.plan_shapes(q[subset], t[subset])
            assert (G[subset] == g).all() and (R[subset] == r).all()
            rest = np.setdiff1d(np.arange(n), subset)
            assert (G[rest] == 1).all() and (R[rest] == 1).all()
            assert (pack == subwarp.fits16(sc, q, t)).all()
            assert (key == ((G * 64 + R) * 2 + pack)[subset]).all()
            if trace:
                assert (words == subwarp.dir_words(q, t, G, R, pack)).all()
            else:
                assert words is None
            _, _, unpacked, _, _ = plan_pairs(q, t, subset, sc, trace, pack16=False)
            assert not unpacked.any()
            G, R, _, _, _ = plan_pairs(q, t, subset, sc, trace, shape=(4, 20))
            assert (G[subset] == 4).all() and (R[subset] == 20).all()
            for budget in (1 << 20, 64 << 20, 4 << 30):
                cfg = AlignConfig(scoring=sc, traceback=trace, matrix_budget=budget)
                gpu, ckpt = route_pairs(q, t, cfg, DIRS_BYTES, FULL_PAIR_BYTES, INT32_LIMIT)
                want = sc.score_bound(q, t) < INT32_LIMIT
                want_ckpt = np.zeros(n, bool)
                if trace:
                    codes = planned_dir_words(q, t) * 4
                    full = codes <= budget
                    want_ckpt = (q > 512) & (subwarp.checkpoint_bytes(q, t) <= DIRS_BYTES)
                    full &= ~(want_ckpt & (codes > FULL_PAIR_BYTES))
                    want_ckpt &= ~full
                    want &= full | want_ckpt
                assert (gpu == want).all() and (ckpt == want_ckpt).all()
                if trace and sc == Scoring():  # every route taken
                    assert want_ckpt.any() and (want & ~want_ckpt).any() and not want.all()
    # border offsets: the items needing more than one stage, back to back at their first pair
    items = pair_items(subset[:101], q, t)
    for slots in (1, 3, np.arange(1, len(items) + 1)):
        off, total = border_offsets(items, q, t, 320, n, slots)
        m = np.where(items[:, 1] >= 0, np.maximum(q[items[:, 0]], q[np.maximum(items[:, 1], 0)]), q[items[:, 0]])
        w = np.where(items[:, 1] >= 0, np.maximum(t[items[:, 0]], t[np.maximum(items[:, 1], 0)]), t[items[:, 0]])
        sizes = np.where(m > 320, np.broadcast_to(slots, len(items)) * 2 * (w + 1), 0)
        assert total == sizes.sum() > 0
        multi = m > 320
        assert (off[items[multi, 0]] == (np.cumsum(sizes) - sizes)[multi]).all()
    assert border_offsets(items, q, t, 10**9, n)[1] == 0


def test_side_by_side_forks_from_the_stream_and_joins_back():
    """``DeviceEngine.side_by_side``: each work queues on a side stream that starts after the job's stream so far,
    round robin over SIDE_STREAMS, the job's stream waits for every side stream used, and the side streams of a
    job's stream are made once; a single work runs on the job's stream itself."""
    from types import SimpleNamespace

    from seqalign_cli.backends.cuda import device
    from seqalign_cli.backends.cuda.device import DeviceEngine

    log = []
    current = []

    class Stream:
        made = 0

        def __init__(self, non_blocking=False):
            assert non_blocking
            Stream.made += 1
            self.ptr = Stream.made

        def record(self):
            log.append(("record", self.ptr))
            return ("event", self.ptr, len(log))

        def wait_event(self, event):
            log.append(("wait", self.ptr, event))

        def __enter__(self):
            current.append(self)

        def __exit__(self, *exc):
            current.pop()

    cp = SimpleNamespace(cuda=SimpleNamespace(Stream=Stream))
    engine = without_device(DeviceEngine, cp=cp)  # no device: cp stands in for cupy
    job = Stream(non_blocking=True)
    ran = []

    def work(k):  # notes its number and the stream current when it queues
        return lambda: ran.append((k, current[-1].ptr if current else job.ptr))

    engine.side_by_side(job, [work(0)])
    assert ran == [(0, job.ptr)] and log == []  # one work: on the job's stream, nothing forked
    ran.clear()
    works = [work(k) for k in range(device.SIDE_STREAMS + 2)]
    engine.side_by_side(job, works)
    sides = engine._sides[job.ptr]
    assert len(sides) == device.SIDE_STREAMS and job not in sides
    assert [k for k, _ in ran] == list(range(len(works)))
    assert [ptr for _, ptr in ran] == [sides[k % len(sides)].ptr for k in range(len(works))]
    start = ("event", job.ptr, 1)
    assert log[0] == ("record", job.ptr)
    assert log[1:1 + len(sides)] == [("wait", side.ptr, start) for side in sides]
    joins = log[1 + len(sides):]
    for n, side in enumerate(sides):  # each side recorded after its works were queued, the job's stream waits
        assert joins[2 * n] == ("record", side.ptr)
        assert joins[2 * n + 1][:2] == ("wait", job.ptr) and joins[2 * n + 1][2][1] == side.ptr
    log.clear()
    engine.side_by_side(job, works[:2])  # two works: two side streams, the same ones as before
    assert engine._sides[job.ptr] is sides and Stream.made == 1 + device.SIDE_STREAMS
    assert sum(1 for op in log if op[0] == "wait" and op[1] == job.ptr) == 2


def test_a_job_is_waited_for_by_its_own_end_event():
    """``DeviceEngine.submit`` records an event on the job's stream after the family's work, and ``collect`` waits
    for that event, not for the stream: with more batches in flight than streams, the stream already holds the
    work of a later job, which the collect must not wait for."""
    from contextlib import nullcontext
    from types import SimpleNamespace

    from seqalign_cli.backends.cuda import device
    from seqalign_cli.backends.cuda.device import DeviceEngine, Job

    log = []

    class Event:
        def __init__(self, stream, n):
            self.stream, self.n = stream, n

        def synchronize(self):
            log.append(("event", self.stream.ptr, self.n))

    class Stream:
        def __init__(self, ptr):
            self.ptr, self.queued = ptr, 0

        def record(self):
            return Event(self, self.queued)

        def synchronize(self):  # would wait for everything queued so far
            log.append(("stream", self.ptr, self.queued))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class Engine(DeviceEngine):
        def upload(self, batch, out, cfg, staged):
            return None

        def queue(self, batch, cfg, subset, out, d, stream, clock):
            stream.queued += 1  # the job's kernels
            return Job(batch, cfg, subset, out, d, stream, {})

        def results(self, job, clock, whole):
            log.append(("results", job.batch))

    streams = [Stream(k) for k in range(device.STREAMS)]
    cp = SimpleNamespace(cuda=SimpleNamespace(Device=lambda dev: nullcontext()))
    engine = without_device(Engine, cp=cp)  # no device: cp stands in for cupy, the streams are the fakes
    engine._streams = streams
    jobs = [engine.submit(k, None, np.arange(1), None) for k in range(device.STREAMS + 1)]
    assert jobs[0].stream is jobs[-1].stream  # the last job shares the first one's stream
    for job in jobs:
        assert job.done.stream is job.stream
    engine.collect(jobs[0])
    assert log == [("event", jobs[0].stream.ptr, 1), ("results", 0)]  # its own kernels, not the later job's
    assert jobs[0].stream.queued == 2 and jobs[-1].done.n == 2
    assert set(engine.seconds) >= {"wait", "results"}


def test_scratch_areas_are_kept_by_name_and_stream_and_grow():
    """``DeviceEngine.scratch``: one area a name and stream, reused while large enough, dropped by release."""
    from types import SimpleNamespace

    from seqalign_cli.backends.cuda.device import DeviceEngine

    made = []

    def empty(n, dtype):
        made.append(n)
        return np.empty(n, dtype)

    stream = SimpleNamespace(ptr=1)
    cp = SimpleNamespace(empty=empty, cuda=SimpleNamespace(get_current_stream=lambda: stream))
    engine = without_device(DeviceEngine, cp=cp)  # no device: cp stands in for cupy
    a = engine.scratch("dirs", 100)
    assert a.size == 100 and engine.scratch("dirs", 60).size == 60 and made == [100]
    assert np.shares_memory(a, engine.scratch("dirs", 80))
    engine.scratch("other", 10)  # another name: its own area
    stream.ptr = 2
    engine.scratch("dirs", 50)  # another stream: its own area
    assert made == [100, 10, 50]
    stream.ptr = 1
    assert engine.scratch("dirs", 150).size == 150 and made[-1] == 150  # grown
    assert engine.scratch("dirs", 0).size == 1
    engine.release()
    engine.scratch("dirs", 10)
    assert made[-1] == 10 and len(made) == 5
