"""The GPU search: the score pass's TCUPS, and the whole ``seqalign search`` command, on a database of real and
generated proteins.

Database (written once to ``--workdir``): the 2,989 public Swiss-Prot records of
``tests/data/protein/db.fa.gz``, then ``--records`` generated ones whose lengths are drawn from the public
records' lengths and whose residues are drawn independently from their composition (numpy's default
generator, seed 1): realistic lengths and letters, no real homology. Queries: the public queries of 100 to
1,000 residues (``tests/data/protein/queries.fa``), then public database records of 100 to 1,000 residues
(evenly spread), ``--queries`` in all.

Reports, one GPU:
* the score pass of each query (CUDA events around its launches, the database on the device): TCUPS
  (query residues x database residues / time) by query length, and of all the queries;
* ``--check N``: the first N queries' hits on the GPU against the CPU engine's (must be equal);
* ``--kernels N``: the first N queries' scores of every record, the column kernel's against the row kernel's;
* ``--command``: the whole command (``seqalign search Q DB -o hits.m8 --backend cuda``, top 10, BLAST
  tabular) timed from outside, and its ratio to the queries' score pass (side by side, and one at a time).

Usage: python benchmarks/bench_search.py [--records 500000] [--queries 100] [--rows 16] [--columns 1024]
                                        [--shapes G:C,...] [--check 2] [--command]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "tests" / "data" / "protein"
AMINO = "ARNDCQEGHILKMFPSTWYV"


def read_fasta(path) -> list[tuple[str, str]]:
    from seqalign_cli.io import alphabet
    from seqalign_cli.io.fastx import FastxReader

    alphabet.use("protein")  # the run's alphabet (the readers check letters in it)
    return [(r.name, r.seq.decode()) for r in FastxReader(str(path))]


def make_database(path: Path, records: int) -> None:
    real = read_fasta(DATA / "db.fa.gz")
    lengths = np.array([len(s) for _, s in real])
    letters = "".join(s for _, s in real)
    counts = np.array([letters.count(a) for a in AMINO], float)
    rng = np.random.default_rng(1)
    size = rng.choice(lengths, records)
    codes = rng.choice(np.frombuffer(AMINO.encode(), np.uint8), int(size.sum()), p=counts / counts.sum())
    text = codes.tobytes()
    with open(path, "wb") as fh:
        fh.write("".join(f">{name}\n{seq}\n" for name, seq in real).encode())
        start = 0
        parts = []
        for k, n in enumerate(size.tolist()):
            parts.append(b">g%d\n%s\n" % (k, text[start:start + n]))
            start += n
            if len(parts) == 65536:
                fh.write(b"".join(parts))
                parts = []
        fh.write(b"".join(parts))


def make_queries(path: Path, count: int) -> None:
    pick = [r for r in read_fasta(DATA / "queries.fa") if 100 <= len(r[1]) <= 1000]
    pool = [r for r in read_fasta(DATA / "db.fa.gz") if 100 <= len(r[1]) <= 1000]
    step = max(1, len(pool) // max(count - len(pick), 1))
    pick += pool[::step][:count - len(pick)]
    path.write_text("".join(f">{name}\n{seq}\n" for name, seq in pick[:count]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=500_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rows", type=int, default=None, help="query rows a lane (the kernel's R)")
    ap.add_argument("--groups", default=None, help="group sizes by record length, as LEN:G,LEN:G (the last G "
                    "for longer ones too), e.g. 1024:1,4096:8,0:32")
    ap.add_argument("--columns", type=int, default=None, help="the longest record the column kernel takes (0: "
                    "none, every record to the row kernel; default: gpu_columns.UP_TO)")
    ap.add_argument("--shapes", default=None, help="the column kernel's shapes, as G:C,G:C,... narrowest first "
                    "(default: gpu_columns.SHAPES)")
    ap.add_argument("--kernels", type=int, default=0, help="queries whose scores of every record by the column "
                    "kernel are compared with the row kernel's alone")
    ap.add_argument("--check", type=int, default=0, help="queries whose hits are compared with the CPU engine's")
    ap.add_argument("--command", action="store_true", help="time the whole command too")
    ap.add_argument("--workdir", default=os.environ.get("TMPDIR", "/tmp") + "/seqalign-search-bench")
    args = ap.parse_args()

    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    dbf, qf = work / f"db_{args.records}.fa", work / f"queries_{args.queries}.fa"
    if not dbf.exists():
        t0 = time.perf_counter()
        make_database(dbf, args.records)
        print(f"# database written: {dbf} ({dbf.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")
    make_queries(qf, args.queries)

    import cupy as cp

    from seqalign_cli import matrices
    from seqalign_cli.backends.cuda import device_name
    from seqalign_cli.families.search import gpu as gpu_search
    from seqalign_cli.config import AlignConfig, Scoring
    from seqalign_cli.io import alphabet
    from seqalign_cli.families.search.inputs import SearchInputs
    from seqalign_cli.families.search.chunks import search_chunks

    if args.rows:
        gpu_search.ROWS = args.rows
    if args.columns is not None:
        gpu_search.columns.UP_TO = args.columns
    if args.shapes:
        gpu_search.columns.SHAPES = tuple(tuple(int(x) for x in g.split(":")) for g in args.shapes.split(","))
    if args.groups:
        rows = [tuple(int(x) for x in g.split(":")) for g in args.groups.split(",")]
        gpu_search.GROUPS, gpu_search.LONG_GROUP = tuple(rows[:-1]), rows[-1][1]
    alphabet.use("protein")
    t0 = time.perf_counter()
    chunks = list(search_chunks(SearchInputs(str(qf), str(dbf), top=10), 1 << 40))
    batch = chunks[0].batch()
    db = batch.db
    residues = db.residues
    print(f"# {device_name(0)}; database {len(db):,} records, {residues:,} residues (read and encoded in "
          f"{time.perf_counter() - t0:.1f} s); {batch.size} queries of {int(batch.lengths.min())}-"
          f"{int(batch.lengths.max())} residues; BLOSUM62, gaps 11/1, local; ROWS {gpu_search.ROWS}, "
          f"groups {gpu_search.GROUPS} then {gpu_search.LONG_GROUP}; column kernel up to "
          f"{gpu_search.columns.UP_TO if gpu_search.columns.UP_TO is not None else 'its widest shape'}, "
          f"{len(gpu_search.columns.SHAPES)} shapes")
    if gpu_search.columns.UP_TO != 0:  # by length (records of int32 items go to the row kernel all the same)
        short = gpu_search.columns.shape_of(db.lengths, gpu_search.columns.UP_TO) >= 0
        print(f"# the column kernel's records: {int(short.sum()):,} of {len(db):,}, "
              f"{int(db.lengths[short].sum()) / residues:.1%} of the residues")
    cfg = AlignConfig(scoring=Scoring(gap_open=11, gap_extend=1, matrix=matrices.load("BLOSUM62"),
                                      alphabet="protein"), mode="local")
    engine = gpu_search.CudaSearch(0)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        t0 = time.perf_counter()
        engine.database(db)
        stream.synchronize()
        print(f"# database to the device: {time.perf_counter() - t0:.2f} s")
        d = engine.upload(batch, None, cfg, None)
        for k in range(min(2, batch.size)):  # compiles, plans
            engine.score_pass(batch, cfg, [k], d, stream)
        stream.synchronize()
        times = []
        for k in range(batch.size):
            start = stream.record()
            engine.score_pass(batch, cfg, [k], d, stream)
            end = stream.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
        start = stream.record()
        engine.score_pass(batch, cfg, np.arange(batch.size), d, stream)
        end = stream.record()
        end.synchronize()
        together = cp.cuda.get_elapsed_time(start, end) / 1e3
    qlen = batch.lengths.astype(np.int64)
    times = np.array(times)
    print("query_len\tqueries\tseconds\tTCUPS")
    for lo, hi in ((100, 250), (250, 500), (500, 750), (750, 1001)):
        sel = (qlen >= lo) & (qlen < hi)
        if sel.any():
            cells = float(qlen[sel].sum()) * residues
            print(f"{lo}-{hi - 1}\t{int(sel.sum())}\t{times[sel].sum():.4f}\t{cells / times[sel].sum() / 1e12:.3f}")
    cells = float(qlen.sum()) * residues
    print(f"all, one at a time\t{batch.size}\t{times.sum():.4f}\t{cells / times.sum() / 1e12:.3f}")
    print(f"all, side by side\t{batch.size}\t{together:.4f}\t{cells / together / 1e12:.3f}")

    if args.kernels:
        sub = np.arange(min(args.kernels, batch.size))
        scores, kept = [], gpu_search.columns.UP_TO
        for up_to in (kept, 0):
            gpu_search.columns.UP_TO = up_to
            d.score.fill(-1)
            with stream:
                engine.score_pass(batch, cfg, sub, d, stream)
            stream.synchronize()
            scores.append(cp.asnumpy(d.score[sub]))
        gpu_search.columns.UP_TO = kept
        differ = int((scores[0] != scores[1]).sum())
        print(f"# kernels: {len(sub)} queries x {len(db):,} records, the column kernel's scores "
              f"{'equal to' if not differ else f'DIFFERENT ({differ:,} cells) FROM'} the row kernel's")
        if differ:
            return 1

    if args.check:
        from seqalign_cli import families
        from seqalign_cli.backends import select_backend

        sub = batch.subset(np.arange(min(args.check, batch.size)))
        family = families.get("search")
        t0 = time.perf_counter()
        want = family.cpu_engine(os.cpu_count() or 1).align(sub, cfg)
        t_cpu = time.perf_counter() - t0
        got = select_backend(family, "cuda", os.cpu_count() or 1, lambda m: None, 0, align=cfg).align(sub, cfg)
        same = all(np.array_equal(getattr(got, f), getattr(want, f)) for f in ("query", "target", "rank", "score"))
        same = same and got.alignments.cigars() == want.alignments.cigars()
        print(f"# check: {sub.size} queries, {len(want.query)} hits, GPU {'equal to' if same else 'DIFFERENT FROM'} "
              f"the CPU engine's ({os.cpu_count()} threads, {t_cpu:.1f} s)")
        if not same:
            return 1

    if args.command:
        out = work / "hits.m8"
        cmd = [sys.executable, "-m", "seqalign_cli", "search", str(qf), str(dbf), "-o", str(out), "--backend", "cuda",
               "-t", str(os.cpu_count() or 1)]
        walls = []
        for _ in range(2):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True)
            walls.append(time.perf_counter() - t0)
            if proc.returncode:
                print(proc.stderr.decode(), file=sys.stderr)
                return 1
        print(f"# command: {' '.join(cmd[1:])}")
        print(f"# {proc.stderr.decode().strip().splitlines()[-1]}")
        print(f"command wall\t{min(walls):.2f} s (runs {', '.join(f'{w:.2f}' for w in walls)}); score pass "
              f"{together:.2f} s side by side, ratio {min(walls) / together:.2f}; {times.sum():.2f} s one at a time, "
              f"ratio {min(walls) / times.sum():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
