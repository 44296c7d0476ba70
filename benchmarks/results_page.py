"""The one page of current figures, benchmarks/RESULTS.md, built from the benchmark logs.

Every figure in the page's tables is read from a line of a log under benchmarks/logs/: ``SOURCES`` names,
for each measurement, its log, the parts of the log to read (``Block``: markers met in order), the pattern
of the lines that hold the figures, the command that made them, the tree (commit) and the date. The tables
are made from those lines; the prose around them is ``TEMPLATE``. A figure that no log holds (a few
given only in the text of the journal) stays in the prose, with its date and journal file. The history
behind every figure is in benchmarks/journal/, one file a date.

    python benchmarks/results_page.py            # print the page
    python benchmarks/results_page.py --write    # write benchmarks/RESULTS.md
    python benchmarks/results_page.py --check    # exit 1 where RESULTS.md is not the page

tests/test_results_page.py checks that the committed page is this script's output and that every log it
cites exists. A new measurement: add its log, a ``Source`` for it ahead of the older one (tables take the
first source that holds a figure), and write the page again.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOGS = HERE / "logs"
PAGE = HERE / "RESULTS.md"
MODES4 = ("global", "semi-global", "glocal", "local")
MODES3 = ("global", "semi-global", "local")


@dataclass(frozen=True)
class Block:
    """A part of a log: the lines after the markers (each found after the one before), up to the next
    line that starts with ``#`` or ``=`` (or holds ``until``) once a line of the pattern was read; with
    neither markers nor ``until``, the whole log. ``tag``: fields added to each of its lines."""

    markers: tuple = ()
    until: str = ""
    tag: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Source:
    """One measurement: where its figures are and how they were made."""

    log: str
    pattern: str
    command: str
    tree: str
    date: str
    blocks: tuple = (Block(),)


BENCH_GPU = r"^(?P<length>\d+)\t\d+\t(?P<mode>[a-z-]+)\taffine\t(?P<trace>yes|no)\t[\d.]+\t(?P<gcups>\d+)"
TRIP = r"(?P<length>\d+)\t\d+\t(?P<mode>[a-z-]+)\tlinear\t[\d.]+\t(?P<tcups>[\d.]+)$"
SUMMARY = (r"^summary: (?P<format>\w+) devices=(?P<devices>\S+)(?: workers=(?P<workers>\d+))? "
           r"(?P<wall>[\d.]+) s, (?P<rate>\d+) (?:pairs|triplets)/s")
GRAPH_E2E = (r"^\| (?P<data>[^|]+?) \| (?P<reads>[\d,]+) \| cuda \| (?P<output>[^|]+?) \| (?P<wall>[\d.]+) \| "
             r"[\d,]+ \| (?P<gcups>[\d.]+) \| [\d.]+ \| (?P<gpu_mib>[\d,]+) \|")
E2E_TRIPLET = "python benchmarks/e2e_triplet.py sars_20.fa --triplets 1000000 --devices 0 --bytecode"
GASAL2 = "python benchmarks/e2e_gasal2.py query_batch.fasta.gz target_batch.fasta.gz"
HOST = " (run by device_run.sh host)"

SOURCES = {
    # pairs, H100
    "pair-h100-kernel": Source(
        "2026-11-22_h100_families_bench_compare.txt", BENCH_GPU,
        "python benchmarks/bench_gpu.py --lengths 64,150,512,1024 --modes global,semi-global,glocal,local "
        "--gaps affine --reps 3 --cells 1e10", "as of ad2fd36", "2026-11-22",
        (Block(("== bench_gpu new",)),)),
    "pair-h100-long": Source(
        "2026-11-22_h100_final_bench_long.tsv", BENCH_GPU,
        "python benchmarks/bench_gpu.py --lengths 16384,65536 --modes global,semi-global,glocal,local "
        "--gaps affine --reps 3 --cells 4e10", "as of 1a7e06c", "2026-11-22"),
    "pair-h100-1m": Source(
        "2026-12-06_h100_host_1m.txt", SUMMARY,
        GASAL2 + " --copies 50 --runs 3 --workers 1 8 --formats tsv,sam,bam" + HOST, "as of b3d0046", "2026-12-06"),
    "pair-h100-10m": Source(
        "2026-12-06_h100_host_10m.txt", SUMMARY, GASAL2 + " --copies 500 --runs 2 --workers 1 4 8 16" + HOST,
        "as of b3d0046", "2026-12-06"),
    "pair-h100-10m-score": Source(
        "2026-12-06_h100_host_10m_score.txt", SUMMARY,
        GASAL2 + " --copies 500 --runs 2 --score-only --workers 1 8" + HOST, "as of b3d0046", "2026-12-06"),
    "pair-h100-packed": Source(
        "2026-12-06_h100_host_1m_compressed.txt", SUMMARY,
        GASAL2 + " --copies 50 --runs 2 --workers 1 8 --compress gzip|bgzip" + HOST, "as of b3d0046", "2026-12-06",
        (Block(("gzip: ",), "bgzip: ", {"input": "gzip -1"}), Block(("bgzip: ",), tag={"input": "BGZF"}))),
    "pair-h100-igzip": Source(
        "2026-12-06_h100_host_1m_compressed.txt",
        r"^(?P<how>gzip|bgzip): \S+/t\.fa\.gz decompressed by igzip alone \(one thread\) in (?P<secs>[\d.]+) s",
        GASAL2 + " --copies 50 --runs 2 --workers 1 8 --compress gzip" + HOST, "as of b3d0046", "2026-12-06"),
    "pair-h100-plan": Source(
        "2026-12-07_h100_host_plan_ahead_ab.txt",
        r"^(?P<run>10m|10ms|1m|1msam|1mb)_(?P<tree>base|mid|new) rc=0 wall (?P<wall>[\d.]+) s",
        "seqalign pair --backend cuda -t 16 Q T -o OUT, no --batch-size, on GASAL2's pairs x500 (10m: TSV with "
        "CIGARs, 10ms: score only) and x50 (1m: TSV, 1msam: SAM, 1mb: BAM), three trees in turns (base: chunks of "
        "16,384; mid: up to 65,536; new: and the plan made by the reader), rounds 2 and 3",
        "1d65211 and a4a5a24 against d21609f", "2026-12-07",
        tuple(Block((f"# round {r}",), tag={"round": str(r)}) for r in (2, 3))),
    "pair-h100-collect": Source(
        "2026-12-07_h100_collect_thread_ab.txt",
        r"^(?P<run>10m|10ms|1m|1msam|1mb)_(?P<tree>before|after) rc=0 wall (?P<wall>[\d.]+) s",
        "bash benchmarks/ab_trees.sh before=TREE after=TREE (seqalign pair --backend cuda -t 16 Q T -o OUT on "
        "GASAL2's pairs x500 and x50, as pair-h100-plan), the tree before (before: the plan ahead) and after (after: "
        "and the collecting thread) in turns, rounds 2 and 3",
        "8263b23 against 1d65211", "2026-12-07",
        tuple(Block((f"# round {r}",), tag={"round": str(r)}) for r in (2, 3))),
    "pair-h100-mix": Source(
        "2026-12-06_h100_host_mix.txt",
        r"^tsv devices=default workers=(?P<workers>\d+) run 2 \(warm caches\): (?P<wall>[\d.]+) s wall",
        "cd benchmarks && python e2e_mix.py --pairs 120000 --runs 2 --workers 1 0" + HOST, "as of b3d0046",
        "2026-12-06"),
    # pairs, H200
    "pair-h200-kernel": Source(
        "2026-11-21_h200_bench_gpu_v2.tsv", BENCH_GPU,
        'BENCH_ARGS="--reps 3 --cells 1e10" bash benchmarks/device_run.sh bench', "as of 6c8137b", "2026-11-21"),
    "pair-h200-1m": Source(
        "2026-11-28_h200x2_job_end_event_pairs_triplets.txt",
        r"^pairs (?P<what>cigar|score) B round \d: (?P<wall>[\d.]+) s wall",
        "seqalign pair --backend cuda -t 16 [--score-only] q.fa t.fa -o out.tsv (e2e_gasal2.py's 50 copies)",
        "as of 85f30ff", "2026-11-28"),
    "pair-h200-10m": Source(
        "2026-11-27_h200x2_gasal2_parts.txt", SUMMARY,
        "python benchmarks/e2e_gasal2.py query_batch.fasta.gz target_batch.fasta.gz --devices 0 all "
        "parts:0,1 --copies 500 --runs 2 [--score-only]", "as of 2da2434", "2026-11-27",
        (Block(("## multi_e2e_10m",), tag={"what": "cigar"}),
         Block(("## multi_e2e_10m_score",), tag={"what": "score"}))),
    "pair-h200-mix": Source(
        "2026-11-27_h200x2_whole_pair_batches.txt",
        r"^seqalign \S+: 480000 pairs, .*\((?P<gpus>GPU 0|GPUs 0,1): NVIDIA H200, 32 threads\), "
        r"(?P<wall>[\d.]+) s wall",
        "python benchmarks/piece_timeline.py -- pair --backend cuda -t 32 q.fa t.fa --devices 0|0,1 -o out.tsv "
        "(e2e_mix.write_pairs: 480,000 pairs of 16 bp-20 kb)", "as of 3a9ff1b", "2026-11-27",
        tuple(Block(("## Start 3", m)) for m in ("== mix one GPU", "== mix two r1", "== mix two r2"))),
    # pairs, CPU
    "pair-cpu": Source(
        "2026-11-21_cpu_bench.tsv",
        r"^(?P<mode>[a-z-]+)\t(?P<engine>\S+)\t[\d.]+\t(?P<gcups>[\d.]+)\t\d+$",
        "python benchmarks/bench_cpu.py --pairs 20000 --repeat 3 --modes global,semi-global,glocal,local",
        "as of 14a57da", "2026-11-21"),
    "pair-cpu-long": Source(
        "2026-11-23_cpu2_long_pairs_walk_parts.txt",
        r"^(?P<pair>\S+)\t\d+\t\d+\tglobal\t(?P<trace>yes|no)\t(?P<engine>\S+)\t(?P<secs>[\d.]+)\t"
        r"(?P<gcups>[\d.]+)\t(?P<speed>[\d.]+|-)$",
        "SEQALIGN_EDLIB_LONG=.../edlib_long/test_data python benchmarks/long_pairs_cpu.py --threads 1,2 "
        "--old-below 0 --repeat 3", "as of 7264c20", "2026-11-23"),
    # triplets, H100 (newest first: a table takes the first source that holds a figure)
    "trip-h100-ma": Source(
        "2026-11-28_h100_triplet_ma_cells_tried.txt", "^" + TRIP,
        "SEQALIGN_KERNEL_DEFINES=TRIPLET_OPT_MA=0 python benchmarks/bench_triplet.py --gpu "
        "--lengths 32,64,96,128,256,1024 --modes semi-global,local --reps 3", "b0aa4f1", "2026-11-28",
        (Block(("== TRIPLET_OPT_MA=0",)), Block(("== TRIPLET_OPT_MA=1", "== TRIPLET_OPT_MA=0")))),
    "trip-h100-r7": Source(
        "2026-11-28_h100_triplet_r7_plan.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 100,111,128,139,150 "
        "--modes global,semi-global,local --reps 3", "b0aa4f1", "2026-11-28"),
    "trip-h100-fence": Source(
        "2026-11-28_h100_triplet_offset_fence.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 16,32,64,128,150,256,512 --modes global --reps 3 "
        "(semi-global and local at 64-256 bp)", "45b1bce", "2026-11-28",
        (Block(("## new round 1",)), Block(("## new round 2",)), Block(("## new semi/local",)))),
    "trip-h100-fence-long": Source(
        "2026-11-28_h100_triplet_offset_fence_more.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 512,1024 --modes global,semi-global,local --reps 3",
        "45b1bce", "2026-11-28", (Block(("## 1024 and 512 new",)),)),
    "trip-h100-small": Source(
        "2026-11-28_h100_triplet_small_pointers.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 4,6,8,12 --modes global,semi-global,local --reps 5",
        "as of 48d88aa", "2026-11-28", (Block(("# the final small kernel",)),)),
    "trip-h100-trace-offset": Source(
        "2026-11-28_h100_triplet_trace_offset.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 64,128,150,256,512,1024 "
        "--modes global --reps 3", "as of 18b1af1", "2026-11-28",
        (Block(("== offset",)), Block(("== offset", "== offset")), Block(("== offset 512",)))),
    "trip-h100-trace-long": Source(
        "2026-11-28_h100_triplet_checkpoints_budget.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 512,1024 "
        "--modes global,semi-global,local --reps 3", "as of aa3e348", "2026-11-28"),
    "trip-h100-trace-prmt": Source(
        "2026-11-28_h100_triplet_trace_prmt.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 64,128,256 "
        "--modes global,semi-global,local --reps 3", "as of ab43b23", "2026-11-28",
        (Block(("== prmt",)), Block(("== prmt", "== prmt")))),
    "trip-h100-tsv": Source(
        "2026-11-28_h100_triplet_offset_fence_more.txt",
        r"^tsv devices=0 run [23]: (?P<wall>[\d.]+) s wall", E2E_TRIPLET + " --formats tsv --runs 3",
        "45b1bce", "2026-11-28"),
    "trip-h100-maf": Source(
        "2026-11-28_h100_triplet_checkpoints_budget.txt",
        r"^maf devices=0 run 2: (?P<wall>[\d.]+) s wall", E2E_TRIPLET + " --formats maf --runs 2",
        "as of aa3e348", "2026-11-28"),
    # triplets, H200
    "trip-h200-150": Source(
        "2026-11-28_h200_triplet_squares_choice_by_mode_tried.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 150,160,180 --modes global,semi-global,local "
        "--reps 3", "as of e60af9c", "2026-11-28",
        (Block(("== round 1",), "length\t"), Block(("== round 2",), "length\t"))),
    "trip-h200-best": Source(
        "2026-11-28_h200_triplet_best_above_tried.txt", "^A " + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 64,128,256,1024 --modes semi-global,local --reps 3",
        "as of 6c00996 (its rows A, the tree kept)", "2026-11-28",
        (Block(("== round 1 score",)), Block(("== round 2 score",)))),
    "trip-h200-global": Source(
        "2026-11-28_h200_triplet_semi_offset_copies_tried.txt", "^A " + TRIP,
        "python benchmarks/bench_triplet.py --gpu --lengths 64,128,150,256,1024 --modes global,semi-global "
        "--reps 3", "as of 6c00996 (its rows A, the tree kept)", "2026-11-28",
        (Block(("== round 1 score",)), Block(("== round 2 score",)))),
    "trip-h200-trace-best": Source(
        "2026-11-28_h200_triplet_best_above_tried.txt", "^A " + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 128 --modes global,semi-global,local "
        "--reps 3", "as of 6c00996 (its rows A, the tree kept)", "2026-11-28", (Block(("== traceback",)),)),
    "trip-h200-trace-first": Source(
        "2026-11-28_h200_triplet_first_cell.txt", "^B " + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 128,256 --modes semi-global,local "
        "--reps 3", "as of ff6c176", "2026-11-28",
        (Block(("== round 1 traceback",)), Block(("== round 2 traceback",)))),
    "trip-h200-trace-words": Source(
        "2026-11-28_h200_triplet_border_words.txt", "^B " + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 128,256 --modes global,local --reps 3",
        "as of de3d5f4", "2026-11-28",
        (Block(("== round 1 traceback",)), Block(("== round 2 traceback",)))),
    "trip-h200-trace-final": Source(
        "2026-11-28_h200x2_triplet_final_two_gpus.txt", "^" + TRIP,
        "python benchmarks/bench_triplet.py --gpu --traceback --lengths 128,256,1024 "
        "--modes global,semi-global,local --reps 3", "as of a80c29c", "2026-11-28",
        (Block(("== traceback, final tree",)),)),
    "trip-h200-e2e": Source(
        "2026-11-28_h200_job_end_event.txt", r"^(?P<format>tsv|maf) d2 round \d: (?P<wall>[\d.]+) s wall",
        "seqalign triplet --backend cuda -t 16 [--score-only] A B C -o out.maf|out.tsv "
        "(e2e_triplet.py's 1,000,000 windows of 150 bp)", "as of aadb0c2", "2026-11-28"),
    "trip-h200-two": Source(
        "2026-11-28_h200x2_job_end_event_pairs_triplets.txt",
        r"^triplets devices (?P<devices>0|all) round \d: (?P<wall>[\d.]+) s wall",
        "seqalign triplet --backend cuda --devices 0|all --score-only A B C -o out.tsv "
        "(1,000,000 triplets of 8-1,024 bp)", "as of 85f30ff", "2026-11-28"),
    # triplets, CPU
    "trip-cpu": Source(
        "2026-11-29_cpu2_triplet_antidiagonals.txt",
        r"^(?P<length>\d+)\t(?P<mode>[a-z-]+)\t(?P<trace>yes|no)\t[\d.]+\t(?P<gcups>[\d.]+)$",
        "python benchmarks/bench_triplet.py --lengths 64,128,256 --modes global,semi-global,local "
        "--cpu-triplets 12 --reps 5", "27dc43d", "2026-11-29",
        (Block(("== round 1, 27dc43d",)), Block(("== round 2, 27dc43d",)))),
    # graphs, H100
    "graph-h100-kernel": Source(
        "2026-11-23_h100_graph16_kernels.txt",
        r"^(?P<length>reads|\d+ bp) (?P<mode>glocal|local|global) width>=1 cells (?P<cells>16|32) "
        r"reads (?P<reads>\d+): [\d.]+ ms, (?P<gcups>[\d.]+) GCUPS",
        "python benchmarks/profile_graph.py --counts 1000,4224 --modes glocal,local,global --cells 16,32; "
        "--lengths 150,250,500,1000 --counts 2112 --modes glocal,local --cells 16,32", "as of 735a530",
        "2026-11-23"),
    "graph-h100-long": Source(
        "2026-11-24_h100_graph_pipeline.txt",
        r"^(?P<length>\d+) bp glocal width>=1 cells 16 pipeline (?P<pipe>on|off) reads (?P<reads>\d+): "
        r"[\d.]+ ms, (?P<gcups>[\d.]+) GCUPS",
        "python benchmarks/profile_graph.py --lengths 1000,2000,5000 --counts 64,256,1024 --cells 16 "
        "--pipeline on,off [--traceback]", "6ca53c6", "2026-11-24",
        (Block(("## the pipeline on and off, tree 6ca53c6",), "oriented bases", {"trace": "no"}),
         Block(("## the pipeline on and off, tree 6ca53c6", "oriented bases", "oriented bases"),
               tag={"trace": "yes"}))),
    "graph-h100-sim": Source(
        "2026-11-23_h100_graph16_e2e_sim.txt", GRAPH_E2E,
        "python benchmarks/e2e_graph.py -t 16 --reps 2 --skip-cactus --sim-cases short --mode glocal|local",
        "as of 6a438d0", "2026-11-23",
        (Block(("mode glocal;",), "GCUPS =", {"mode": "glocal"}),
         Block(("mode local;",), "GCUPS =", {"mode": "local"}))),
    "graph-h100-gaf": Source(
        "2026-11-24_h100_graph_trace_budgets.txt", GRAPH_E2E,
        "python benchmarks/e2e_graph.py -t 16 --reps 1 --skip-cactus --sim-cases long-gaf,short-gaf",
        "as of f45aea3", "2026-11-24",
        (Block(("## the share for reads of several stripes",), tag={"mode": "glocal"}),)),
    "graph-h100-long-tsv": Source(
        "2026-11-24_h100_graph_pipeline.txt", GRAPH_E2E,
        "python benchmarks/e2e_graph.py -t 16 --reps 1 --skip-cactus --sim-cases long,long-gaf", "6ca53c6",
        "2026-11-24", (Block(("## end to end",), tag={"mode": "glocal"}),)),
    "graph-h100-cactus": Source(
        "2026-11-23_h100_graph_e2e.txt", GRAPH_E2E, "python benchmarks/e2e_graph.py -t 16 --reps 2 --cpu-reads 64",
        "as of ed47233", "2026-11-23", (Block(tag={"mode": "glocal"}),)),
    # graphs, H200 and CPU
    "graph-h200": Source(
        "2026-11-27_h200x2_host_graph_triplets_300k.txt",
        r"^  cuda --devices (?P<devices>0|all) score only \(tsv\) run 1: (?P<wall>[\d.]+) s wall",
        "python benchmarks/e2e_graph.py --skip-cactus --sim-cases short --devices 0|all", "63163a2",
        "2026-11-27"),
    "graph-cpu": Source(
        "2026-11-23_cpu2_graph_global_walk.txt",
        r"^final +(?P<mode>global|glocal|local) +align (?P<a>[\d.]+) s / (?P<b>[\d.]+) s / (?P<c>[\d.]+) s",
        "python -m seqalign_cli graph --backend cpu -t 1 --mode MODE cactus-BRCA2.gfa <its first 64 reads> "
        "-o out.gaf", "as of 701e2ea", "2026-11-23"),
    # proteins, development machine
    "protein-cpu-striped": Source(
        "2026-12-07_cpu_protein_two_targets.txt",
        r"^engine=(?P<engine>\S+) mode=(?P<mode>[a-z-]+) seconds=[\d.]+ gcups=(?P<gcups>[\d.]+)$",
        "python benchmarks/bench_protein_cpu.py --modes local,global,semi-global,glocal --queries 3 --repeat 3 "
        "(two runs)", "a93e58f", "2026-12-07"),
    "protein-cpu-search": Source(
        "2026-12-07_cpu_search_int8.txt",
        r"^engine=(?P<engine>\S+) mode=(?P<mode>search) seconds=[\d.]+ gcups=(?P<gcups>[\d.]+)$",
        "python benchmarks/bench_protein_cpu.py --modes local --queries 20 --repeat 2 (two runs)", "6a94e24",
        "2026-12-07"),
    # proteins, one H100: the search's score pass and its whole command
    "protein-h100-search": Source(
        "2026-12-07_h100_search_columns_shapes.txt",
        r"^\[newC\] (?P<queries_by>[\w ,-]+)\t(?P<queries>\d+)\t(?P<secs>[\d.]+)\t(?P<tcups>[\d.]+)$",
        "python benchmarks/bench_search.py --columns 1024 --kernels 3 --check 2 (500,000 records, 168 M residues; "
        "100 queries of 103-1,000 aa)", "95b5abd", "2026-12-07"),
    "protein-h100-command": Source(
        "2026-12-07_h100_search_columns_shapes.txt",
        r"^command wall\t(?P<wall>[\d.]+) s \(runs (?P<runs>[\d., ]+)\); score pass (?P<score_pass>[\d.]+) s side by "
        r"side, ratio (?P<ratio>[\d.]+); (?P<one>[\d.]+) s one at a time, ratio (?P<ratio_one>[\d.]+)$",
        "seqalign search Q DB -o hits.m8 --backend cuda -t 16 (top 10 with alignments, three rounds; the ratio to "
        "the score pass above)", "95b5abd", "2026-12-07"),
    # the host's steps alone, development machine
    "host-io": Source(
        "2026-12-06_dev_host_io.txt", r"^(?P<step>[^:]+): (?P<secs>[\d.]+) s, (?P<mbs>\d+) MB/s$",
        "python benchmarks/host_io.py --copies 50", "as of 4c9bbe4", "2026-12-06"),
}


def read(source: Source) -> list[dict]:
    """The lines of ``source``'s blocks that match its pattern, as dicts of the pattern's groups."""
    lines = (LOGS / source.log).read_text().splitlines()
    rx = re.compile(source.pattern)
    out = []
    for block in source.blocks:
        i = 0
        for marker in block.markers:
            while i < len(lines) and marker not in lines[i]:
                i += 1
            if i == len(lines):
                raise ValueError(f"{source.log}: no line holds {marker!r}")
            i += 1
        found = 0
        for line in lines[i:]:
            match = rx.search(line)
            if match:
                out.append({**match.groupdict(), **block.tag})
                found += 1
            elif found and (block.markers or block.until):
                if line.startswith(("#", "=")) or (block.until and block.until in line):
                    break
        if not found:
            raise ValueError(f"{source.log}: no line of the pattern after {block.markers!r}")
    return out


class Data:
    """The sources' lines, and the look-ups the tables make in them."""

    def __init__(self, sources: dict[str, Source]):
        self.sources = sources
        self.lines = {key: read(src) for key, src in sources.items()}

    def find(self, key: str, **where) -> list[dict]:
        return [r for r in self.lines[key] if all(r.get(k) == str(v) for k, v in where.items())]

    def values(self, key: str, name: str, **where) -> list[str]:
        found = [r[name] for r in self.find(key, **where)]
        if not found:
            raise KeyError(f"{key}: no line with {where}")
        return found

    def span(self, key: str, name: str, **where) -> str:
        return span(self.values(key, name, **where))

    def first(self, keys, name: str, **where) -> tuple[str, str] | None:
        """The figure of the first source in ``keys`` that holds it, and that source."""
        for key in keys:
            if self.find(key, **where):
                return self.span(key, name, **where), key
        return None


def number(text: str) -> float:
    return float(text.replace(",", ""))


def span(values: list[str]) -> str:
    """Values as measured: one, or the least and the largest."""
    ordered = sorted(set(values), key=number)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}-{ordered[-1]}"


def walls(values: list[str]) -> tuple[float, float]:
    return min(map(number, values)), max(map(number, values))


def per_second(records: int, values: list[str]) -> str:
    """Records a second over the walls (the fastest run's rate first)."""
    lo, hi = walls(values)
    fast, slow = round(records / lo), round(records / hi)
    return f"{fast:,}" if fast == slow else f"{slow:,}-{fast:,}"


def rate(d: Data, key: str, records: int, **where) -> str:
    """Records a second: the log's own figure where it gives one, else the records over the walls."""
    found = d.find(key, **where)
    if found and found[0].get("rate"):
        lo, hi = walls([r["rate"] for r in found])
        return f"{lo:,.0f}" if lo == hi else f"{lo:,.0f}-{hi:,.0f}"
    return per_second(records, d.values(key, "wall", **where))


def table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


class Legend:
    """The sources one table used, lettered in the order they first appear."""

    def __init__(self, data: Data):
        self.data = data
        self.keys: list[str] = []

    def mark(self, key: str) -> str:
        if key not in self.keys:
            self.keys.append(key)
        return "abcdefghijklmnopqrstuvwxyz"[self.keys.index(key)]

    def cell(self, keys, name, tagged=True, **where) -> str:
        got = self.data.first(keys, name, **where)
        if got is None:
            return "-"
        value, key = got
        letter = self.mark(key)
        return f"{value} ({letter})" if tagged else value

    def text(self) -> str:
        lines = []
        for key in self.keys:
            src = self.data.sources[key]
            letter = "abcdefghijklmnopqrstuvwxyz"[self.keys.index(key)]
            tree = src.tree if src.tree.startswith("as of") else f"tree {src.tree}"
            command, note = src.command, ""
            if command.endswith(")") and " (" in command:  # a closing remark, said outside the command
                cut = command.rindex(" (")
                command, note = command[:cut], command[cut:]
            lines.append(f"- ({letter}) {src.date}, {tree}: `{command}`{note}; "
                         f"log [`logs/{src.log}`](logs/{src.log})")
        return "\n".join(lines)


def with_legend(legend: Legend, body: str) -> str:
    return body + "\n\n" + legend.text()


# ---- the tables ---------------------------------------------------------------------------------------------


def pair_h100_kernel(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for length in (64, 150, 512, 1024):
        cells = [f"{lg.cell(['pair-h100-kernel'], 'gcups', False, length=length, mode=m, trace='no')} / "
                 f"{lg.cell(['pair-h100-kernel'], 'gcups', False, length=length, mode=m, trace='yes')}"
                 for m in MODES4]
        rows.append([length, *cells])
    for length in (16384, 65536):
        rows.append([length, *(lg.cell(["pair-h100-long"], "gcups", False, length=length, mode=m, trace="no")
                               + " / -" for m in MODES4)])
    return with_legend(lg, table(["length (bp)", *MODES4], rows))


def pair_h100_e2e(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for label, key, where, records in (
        ("10,000,000 pairs, TSV with CIGARs, the command's own chunks", "pair-h100-collect",
         dict(run="10m", tree="after"), 10**7),
        ("10,000,000 pairs, score only, the command's own chunks", "pair-h100-collect",
         dict(run="10ms", tree="after"), 10**7),
        ("1,000,000 pairs, TSV with CIGARs, the command's own chunks", "pair-h100-collect",
         dict(run="1m", tree="after"), 10**6),
        ("1,000,000 pairs, BAM (level 1), the command's own chunks", "pair-h100-collect",
         dict(run="1mb", tree="after"), 10**6),
        ("1,000,000 pairs, TSV with CIGARs", "pair-h100-1m", dict(format="tsv"), 10**6),
        ("1,000,000 pairs, SAM", "pair-h100-1m", dict(format="sam"), 10**6),
        ("1,000,000 pairs, BAM (level 1)", "pair-h100-1m", dict(format="bam"), 10**6),
        ("1,000,000 pairs from `gzip -1` files, TSV", "pair-h100-packed", dict(input="gzip -1"), 10**6),
        ("1,000,000 pairs from BGZF files, TSV", "pair-h100-packed", dict(input="BGZF"), 10**6),
        ("120,000 pairs of 16 bp-20 kb, TSV with CIGARs", "pair-h100-mix", {}, 120000),
    ):
        one = d.values(key, "wall", **where) if key == "pair-h100-collect" else d.values(key, "wall", workers=1, **where)
        if key != "pair-h100-collect":
            where = dict(where, workers=1)
        rows.append([label, f"{span(one)} s", rate(d, key, records, **where), f"({lg.mark(key)})"])
    return with_legend(lg, table(["run (one H100, one process)", "wall", "records/s", "source"], rows))


def pair_h200(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for length in (150, 512, 1024, 4096, 16384):
        row = [length]
        for mode in ("global", "local"):
            score = lg.cell(["pair-h200-kernel"], "gcups", False, length=length, mode=mode, trace="no")
            trace = lg.cell(["pair-h200-kernel"], "gcups", False, length=length, mode=mode, trace="yes")
            row.append(f"{score} / {trace}")
        rows.append(row)
    return with_legend(lg, table(["length (bp)", "global", "local"], rows))


def pair_h200_e2e(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for what, label in (("cigar", "TSV with CIGARs"), ("score", "score only")):
        one = d.values("pair-h200-1m", "wall", what=what)
        rows.append([f"1,000,000 pairs, {label}", f"{span(one)} s", per_second(10**6, one), "-",
                     f"({lg.mark('pair-h200-1m')})"])
    for what, label in (("cigar", "TSV with CIGARs"), ("score", "score only")):
        one = d.values("pair-h200-10m", "wall", what=what, devices=0)
        two = d.values("pair-h200-10m", "wall", what=what, devices="all")
        rows.append([f"10,000,000 pairs, {label}", f"{span(one)} s",
                     rate(d, "pair-h200-10m", 10**7, what=what, devices=0),
                     f"{span(two)} s ({number(one[0]) / number(two[0]):.2f}x)", f"({lg.mark('pair-h200-10m')})"])
    one = d.values("pair-h200-mix", "wall", gpus="GPU 0")
    two = d.values("pair-h200-mix", "wall", gpus="GPUs 0,1")
    ratio = f"{number(one[0]) / walls(two)[1]:.2f}-{number(one[0]) / walls(two)[0]:.2f}x"
    rows.append(["480,000 pairs of 16 bp-20 kb, TSV with CIGARs (seqalign's own clock)", f"{span(one)} s",
                 per_second(480000, one), f"{span(two)} s ({ratio})", f"({lg.mark('pair-h200-mix')})"])
    return with_legend(lg, table(["run", "one H200", "records/s", "two H200", "source"], rows))


def pair_cpu(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for mode in MODES4:
        got = {r["engine"]: r["gcups"] for r in d.find("pair-cpu", mode=mode)}
        scan = next(v for k, v in got.items() if k.startswith("parasail") and "trace" not in k)
        trace = next(v for k, v in got.items() if k.startswith("parasail") and "trace" in k)
        rows.append([mode, got["seqalign-cpu"], scan, f"{number(got['seqalign-cpu']) / number(scan):.2f}x",
                     got["seqalign-cpu-trace"], trace,
                     f"{number(got['seqalign-cpu-trace']) / number(trace):.2f}x"])
    lg.mark("pair-cpu")
    body = table(["mode", "seqalign, score only", "parasail `*_scan_16`", "ratio", "seqalign, traceback",
                  "parasail `*_trace_scan_16`", "ratio"], rows)
    return with_legend(lg, body)


def pair_cpu_long(d: Data) -> str:
    lg = Legend(d)
    rows = []
    names = dict.fromkeys(r["pair"] for r in d.lines["pair-cpu-long"])
    for pair in names:
        row = [pair]
        for trace in ("no", "yes"):
            par = [r for r in d.find("pair-cpu-long", pair=pair, trace=trace) if r["engine"].startswith("parasail")]
            one = d.find("pair-cpu-long", pair=pair, trace=trace, engine="seqalign-t1")[0]
            two = d.find("pair-cpu-long", pair=pair, trace=trace, engine="seqalign-t2")[0]
            vs = f"{one['speed']}x" if par else "parasail: table too large"
            row += [f"{one['gcups']} ({vs})", f"{number(one['secs']) / number(two['secs']):.2f}x"]
        rows.append(row)
    lg.mark("pair-cpu-long")
    body = table(["pair", "score only, 1 thread: GCUPS (over parasail)", "2 threads over 1",
                  "traceback, 1 thread: GCUPS (over parasail)", "2 threads over 1"], rows)
    return with_legend(lg, body)


TRIP_H100_SCORE = ("trip-h100-ma", "trip-h100-r7", "trip-h100-fence", "trip-h100-fence-long", "trip-h100-small")
TRIP_H100_TRACE = ("trip-h100-trace-long", "trip-h100-trace-offset", "trip-h100-trace-prmt")
TRIP_H200_SCORE = ("trip-h200-150", "trip-h200-best", "trip-h200-global")
TRIP_H200_TRACE = ("trip-h200-trace-best", "trip-h200-trace-first", "trip-h200-trace-words", "trip-h200-trace-final")


def triplet_kernels(d: Data, score, trace, lengths) -> str:
    lg = Legend(d)
    rows = []
    for length in lengths:
        rows.append([length, *(lg.cell(score, "tcups", length=length, mode=m) for m in MODES3),
                     *(lg.cell(trace, "tcups", length=length, mode=m) for m in MODES3)])
    header = ["length (bp)", *(f"{m}, score only" for m in MODES3), *(f"{m}, traceback" for m in MODES3)]
    return with_legend(lg, table(header, rows))


def triplet_h100(d: Data) -> str:
    return triplet_kernels(d, TRIP_H100_SCORE, TRIP_H100_TRACE, (8, 32, 64, 128, 150, 256, 512, 1024))


def triplet_h200(d: Data) -> str:
    return triplet_kernels(d, TRIP_H200_SCORE, TRIP_H200_TRACE, (64, 128, 150, 256, 1024))


def triplet_e2e(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for label, key, where, records in (
        ("H100: 1,000,000 triplets of 150 bp, TSV (score only)", "trip-h100-tsv", {}, 10**6),
        ("H100: the same, MAF", "trip-h100-maf", {}, 10**6),
        ("H200: 1,000,000 triplets of 150 bp, TSV (score only)", "trip-h200-e2e", dict(format="tsv"), 10**6),
        ("H200: the same, MAF", "trip-h200-e2e", dict(format="maf"), 10**6),
        ("one H200: 1,000,000 triplets of 8-1,024 bp, TSV (score only)", "trip-h200-two", dict(devices=0), 10**6),
        ("two H200: the same", "trip-h200-two", dict(devices="all"), 10**6),
    ):
        one = d.values(key, "wall", **where)
        rows.append([label, f"{span(one)} s", per_second(records, one), f"({lg.mark(key)})"])
    return with_legend(lg, table(["run", "wall", "triplets/s", "source"], rows))


def triplet_cpu(d: Data) -> str:
    lg = Legend(d)
    rows = [[length, *(lg.cell(["trip-cpu"], "gcups", False, length=length, mode=m, trace=t)
                       for t in ("no", "yes") for m in MODES3)] for length in (64, 128, 256)]
    header = ["length (bp)", *(f"{m}, {t}" for t in ("score only", "traceback") for m in MODES3)]
    return with_legend(lg, table(header, rows))


def graph_h100(d: Data) -> str:
    lg = Legend(d)
    rows = []
    for label, length, reads in (("1,000 of 100 bp (its own reads)", "reads", 1000),
                                 ("4,224 of 100 bp (its own reads)", "reads", 4224),
                                 ("2,112 of 150 bp", "150 bp", 2112),
                                 ("2,112 of 500 bp", "500 bp", 2112),
                                 ("2,112 of 1,000 bp", "1000 bp", 2112)):
        cells = [lg.cell(["graph-h100-kernel"], "gcups", False, length=length, mode=m, cells=16, reads=reads)
                 for m in ("glocal", "local")]
        glob = lg.cell(["graph-h100-kernel"], "gcups", False, length=length, mode="global", cells=32, reads=reads)
        rows.append([label, *cells, glob])
    kernel = table(["reads on cactus-BRCA2 (170,188 oriented bases)", "glocal", "local",
                    "global (int32 cells)"], rows)
    rows = []
    for reads in (64, 256, 1024):
        row = [reads]
        for length in (1000, 2000, 5000):
            on = lg.cell(["graph-h100-long"], "gcups", False, length=length, pipe="on", reads=reads, trace="no")
            off = lg.cell(["graph-h100-long"], "gcups", False, length=length, pipe="off", reads=reads, trace="no")
            row.append(f"{on} / {off}")
        for length in (1000, 5000):
            on = lg.cell(["graph-h100-long"], "gcups", False, length=length, pipe="on", reads=reads, trace="yes")
            off = lg.cell(["graph-h100-long"], "gcups", False, length=length, pipe="off", reads=reads, trace="yes")
            row.append(f"{on} / {off}")
        rows.append(row)
    long = table(["reads", "1,000 bp", "2,000 bp", "5,000 bp", "1,000 bp, traceback", "5,000 bp, traceback"],
                 rows)
    return with_legend(lg, kernel + "\n\nLong reads, glocal, 16-bit cells, stripe pipeline / one warp a read "
                       "(the plan takes the pipeline below three quarters of the warps):\n\n" + long)


def graph_e2e(d: Data) -> str:
    lg = Legend(d)
    rows = []
    tsv, gaf = dict(output="score only (tsv)"), dict(output="gaf")
    for key, where in (("graph-h100-sim", dict(mode="glocal")), ("graph-h100-sim", dict(mode="local")),
                       ("graph-h100-gaf", dict(reads="10,000")), ("graph-h100-long-tsv", tsv),
                       ("graph-h100-gaf", dict(reads="100")), ("graph-h100-cactus", tsv),
                       ("graph-h100-cactus", gaf)):
        r = d.find(key, **where)[0]
        out = "TSV" if r["output"].startswith("score") else "GAF"
        rows.append([f"{r['data']}: {r['reads']} reads, {r['mode']}, {out}", f"{r['wall']} s",
                     f"{number(r['reads']) / number(r['wall']):,.0f}", r["gcups"], r["gpu_mib"],
                     f"({lg.mark(key)})"])
    one = d.values("graph-h200", "wall", devices=0)
    two = d.values("graph-h200", "wall", devices="all")
    lg.mark("graph-h200")
    rows.append(["H200: sim 5 Mbp, 10,000 reads of 150 bp, glocal, TSV; one GPU / two GPUs",
                 f"{span(one)} / {span(two)} s", f"{10000 / number(one[0]):,.0f} / {10000 / number(two[0]):,.0f}",
                 "-", "-", f"({lg.mark('graph-h200')})"])
    body = table(["run (H100 unless said)", "wall", "reads/s", "GCUPS (whole process)", "GPU MiB", "source"], rows)
    return with_legend(lg, body)


def graph_cpu(d: Data) -> str:
    lg = Legend(d)
    cells = 1.09e9
    rows = []
    for mode in ("glocal", "local", "global"):
        r = d.find("graph-cpu", mode=mode)[0]
        secs = [r["a"], r["b"], r["c"]]
        lo, hi = walls(secs)
        rows.append([mode, f"{span(secs)} s", f"{cells / hi / 1e9:.2f}-{cells / lo / 1e9:.2f}"])
    lg.mark("graph-cpu")
    return with_legend(lg, table(["mode", "align step, 3 runs", "GCUPS of the align step"], rows))


def protein_cpu(d: Data) -> str:
    """Each run's seqalign figure and parasail's fastest in the same run (the logs hold runs one after
    another: the k-th line of an engine is its k-th run's)."""
    lg = Legend(d)

    def row(label, key, mode, ours, peers, note=""):
        runs = {e: [r["gcups"] for r in d.find(key, mode=mode, engine=e)] for e in (ours, *peers)}
        best = [max((runs[p][k] for p in peers), key=number) for k in range(len(runs[ours]))]
        which = {p for k in range(len(best)) for p in peers if runs[p][k] == best[k]}
        ratios = [f"{number(a) / number(b):.2f}" for a, b in zip(runs[ours], best)]
        names = ", ".join(f"`{p[len('parasail-'):]}`" for p in sorted(which))
        peer = note or f"{span(best)} ({names})"
        return [f"{label} ({lg.mark(key)})", span(runs[ours]), peer, "" if note else span(ratios) + "x"]

    names = (("local", "sw"), ("global", "nw"), ("semi-global", "sg"), ("glocal", "sg_dx"))
    peers = {(mode, trace): tuple(f"parasail-{fn}_{trace}{kind}_profile_16" for kind in ("striped", "scan"))
             for mode, fn in names for trace in ("", "trace_")}
    rows = [row(f"{mode} pairs, score only", "protein-cpu-striped", mode, "seqalign-score", peers[mode, ""])
            for mode, _ in names]
    rows += [row(f"{mode} pairs, traceback", "protein-cpu-striped", mode, "seqalign-traceback",
                 peers[mode, "trace_"]) for mode, _ in names]
    rows.append(row("search, local, score pass", "protein-cpu-search", "search", "seqalign-search-striped",
                    peers["local", ""]))
    return with_legend(lg, table(["run", "seqalign", "parasail, its fastest", "over parasail"], rows))


def protein_h100(d: Data) -> str:
    """The search's score pass by query length, all queries, and the whole command."""
    lg = Legend(d)
    rows = [[f"{r['queries_by']}{'' if r['queries_by'].startswith('all') else ' aa'} ({lg.mark('protein-h100-search')})",
             r["queries"], r["secs"], r["tcups"]]
            for r in d.find("protein-h100-search")]
    c = d.find("protein-h100-command")[0]
    rows.append([f"the whole command, top 10 with alignments ({lg.mark('protein-h100-command')})", "100",
                 f"{c['wall']} (runs {c['runs']})", f"{c['ratio']}x the score pass ({c['ratio_one']}x one query at "
                 f"a time)"])
    return with_legend(lg, table(["queries", "count", "seconds", "TCUPS"], rows))


def host_path(d: Data) -> str:
    """The host-path targets of 2026-12-06, each checked against its figures."""
    lg = Legend(d)

    def wall(key, **where):
        lg.mark(key)
        return number(d.values(key, "wall", workers=1, **where)[0])

    tsv1, sam1, bam1 = (wall("pair-h100-1m", format=f) for f in ("tsv", "sam", "bam"))
    tsv10, score10 = wall("pair-h100-10m"), wall("pair-h100-10m-score")
    workers10 = ", ".join(f"{r['workers']}: {r['wall']} s" for r in d.find("pair-h100-10m") if r["workers"] != "1")
    score10_w = min(number(v) for v in d.values("pair-h100-10m-score", "wall", workers=8))
    gz, bgzf = wall("pair-h100-packed", input="gzip -1"), wall("pair-h100-packed", input="BGZF")
    igzip = number(d.values("pair-h100-igzip", "secs", how="gzip")[0])  # the log of "pair-h100-packed"

    def status(ok):
        return "met" if ok else "**not met**"

    def plan(run, tree="new"):
        return d.values("pair-h100-plan", "wall", run=run, tree=tree)

    def collect(run, tree="after"):
        return d.values("pair-h100-collect", "wall", run=run, tree=tree)

    now10, now_score = plan("10m") + collect("10m"), plan("10ms") + collect("10ms")
    rows = [
        ["10,000,000 pairs, TSV with CIGARs: at most 2.0 s",
         f"{span(collect('10m'))} s with the collecting thread ({lg.mark('pair-h100-collect')}; the tree before "
         f"{span(collect('10m', 'before'))} s); the plan ahead {span(plan('10m'))} s ({lg.mark('pair-h100-plan')}; "
         f"before {span(plan('10m', 'base'))} s); on 2026-12-06 {tsv10:.2f} s, workers {workers10}",
         status(min(map(number, now10)) <= 2.0)],
        ["10,000,000 pairs, score only: at most 1.5 s",
         f"{span(collect('10ms'))} s (the tree before {span(collect('10ms', 'before'))} s); the plan ahead "
         f"{span(plan('10ms'))} s; on 2026-12-06 {score10:.2f} s, {score10_w:.2f} s with 8 workers",
         status(min(map(number, now_score)) <= 1.5)],
        ["SAM at most 1.3x TSV (1,000,000 pairs)", f"{sam1 / tsv1:.2f}x ({sam1:.2f} s against {tsv1:.2f} s)",
         status(sam1 / tsv1 <= 1.3)],
        ["BAM at most 1.6x TSV", f"{bam1 / tsv1:.2f}x (level 1)", status(bam1 / tsv1 <= 1.6)],
        ["BGZF input at most 1.3x plain", f"{bgzf / tsv1:.2f}x", status(bgzf / tsv1 <= 1.3)],
        ["`gzip -1` input within 20 % of igzip alone",
         f"{gz:.2f} s against {igzip:.2f} s (the start alone is about 1 s)", status(gz <= 1.2 * igzip)],
        ["1,000,000 pairs at 0.8x GASAL2's wall", "GASAL2 not built on the machine", "not measured"],
        ["the mix and triplets no slower", "one process stays the default (workers only with `--workers N`)", "met"],
    ]
    return with_legend(lg, table(["target", "now", "status"], rows))


def host_io(d: Data) -> str:
    lg = Legend(d)
    rows = [[r["step"], f"{r['secs']} s", r["mbs"]] for r in d.lines["host-io"]]
    lg.mark("host-io")
    return with_legend(lg, table(["step (248 MB of FASTA; BGZF output: 108 MB of TSV)", "time", "MB/s"], rows))


def overview(d: Data) -> str:
    """The newest date of each family's and device's figures on this page."""
    groups = {
        ("pairs", "H100"): (["pair-h100-kernel", "pair-h100-long"], ["pair-h100-1m", "pair-h100-10m"]),
        ("pairs", "H200"): (["pair-h200-kernel"], ["pair-h200-1m", "pair-h200-10m", "pair-h200-mix"]),
        ("pairs", "CPU, 2 cores"): (["pair-cpu", "pair-cpu-long"], []),
        ("triplets", "H100"): (list(TRIP_H100_SCORE + TRIP_H100_TRACE), ["trip-h100-tsv", "trip-h100-maf"]),
        ("triplets", "H200"): (list(TRIP_H200_SCORE + TRIP_H200_TRACE), ["trip-h200-e2e", "trip-h200-two"]),
        ("triplets", "CPU, 2 cores"): (["trip-cpu"], []),
        ("graphs", "H100"): (["graph-h100-kernel", "graph-h100-long"],
                             ["graph-h100-sim", "graph-h100-gaf", "graph-h100-long-tsv", "graph-h100-cactus"]),
        ("graphs", "H200"): ([], ["graph-h200"]),
        ("graphs", "CPU, 2 cores"): (["graph-cpu"], []),
        ("proteins", "H100"): (["protein-h100-search"], ["protein-h100-command"]),
        ("proteins", "CPU, 2 cores"): (["protein-cpu-striped"], []),
    }

    def dates(keys):
        found = sorted({d.sources[k].date for k in keys})
        if not found:
            return "none"
        return found[-1] if len(found) == 1 else f"{found[0]} to {found[-1]}"

    rows = [[fam, dev, dates(k), dates(e)] for (fam, dev), (k, e) in groups.items()]
    return table(["family", "device", "kernel or engine figures", "end-to-end figures"], rows)


TABLES = {
    "overview": overview, "pair_h100_kernel": pair_h100_kernel, "pair_h100_e2e": pair_h100_e2e,
    "pair_h200": pair_h200, "pair_h200_e2e": pair_h200_e2e, "pair_cpu": pair_cpu, "pair_cpu_long": pair_cpu_long,
    "triplet_h100": triplet_h100, "triplet_h200": triplet_h200, "triplet_e2e": triplet_e2e,
    "triplet_cpu": triplet_cpu, "graph_h100": graph_h100, "graph_e2e": graph_e2e, "graph_cpu": graph_cpu,
    "host_path": host_path, "host_io": host_io, "protein_cpu": protein_cpu,
    "protein_h100": protein_h100,
}

TEMPLATE = """\
# seqalign: how fast it is now

This page is written by `python benchmarks/results_page.py --write` from the logs in [`logs/`](logs/):
edit the script, not the page (`tests/test_results_page.py` fails when they differ). How each figure came
to be, and what was measured and dropped on the way, is in the journal ([`journal/`](journal/README.md),
one file a date); why constants in the code have their values, in [`decisions/`](decisions/).

How to read it:
- GCUPS: 10^9 cells a second. Pairs count query x target cells, graphs read length x the oriented graph's
  bases (both strands), triplets n1·n2·n3 (TCUPS: 10^12). Kernel figures are device time (CUDA events) of
  the plan's launches, without planning or uploads; end-to-end figures are the wall of the whole command,
  interpreter start included, unless a table says otherwise.
- A range is the spread of the runs or rounds in the log. Every figure names its source under its table:
  date, tree, command and log. "tree X": the commit named with the measurement; "as of X": none was named,
  and X is the commit that added the log (the code measured is X's or its parent's).
- Machines: H100, one NVIDIA H100 80GB HBM3 and 16 CPU cores; H200, one NVIDIA H200 and 16 cores, or two on
  one host and 32 cores; CPU, a 2-core development machine: an Intel Xeon with AVX-512 (2026-11-21 and the
  graph engine's 16 reads side by side) or an AMD EPYC, Zen 4 (the other CPU figures). Machines of one kind
  differ by up to 20 % on the host side (journal, 2026-11-23): compare figures of one source only.

## At a glance: the date of the newest figures

{overview}

Where the newest figure is old or from another tree:
- the pair kernels were last timed on 2026-11-22 (H100); on an H200 only their first version was
  (2026-11-21, `pairwise_warp.cu`, since replaced by the subwarp kernels), so there is no current pair
  kernel figure on an H200;
- the graph kernels were last timed on 2026-11-23 and 2026-11-24, on an H100 only;
- the triplet kernels' last changes (2026-11-28: borders in 16-byte words, the end cell's scans, face masks)
  were timed on H200s only: the H100 triplet figures are of the trees before them;
- no peer tool ran beside seqalign in an end-to-end run: GASAL2's figure below is the speed issue's, and
  parasail ran beside the CPU engine's kernels only.

## Pairs (`seqalign pair`)

### H100

Kernel GCUPS, affine gaps (scoring 2/4/4/2), random related pairs, score only / with traceback (long
pairs with traceback take the checkpointed route, timed in the mix below):

{pair_h100_kernel}

End to end, the GASAL2 pairs (20,000 reads of 150 bp against windows of 152-277 bp, replicated), global, `-t 16`,
one process: the command's own chunks (`decisions/pair_chunk_size.md`), then 2026-12-06's `--batch-size 65536`:

{pair_h100_e2e}

GASAL2's own test program: 1.32-1.57 s for the same 1,000,000 pairs (H100; the speed issue's, never beside seqalign).

### H200

Kernel GCUPS of the first pair kernel (one warp a pair; superseded, not comparable with the H100 table),
global and local mode, affine, score only / with traceback:

{pair_h200}

End to end, the GASAL2 pairs as above; `-t 16` on one H200, `-t 32` on the two-GPU host:

{pair_h200_e2e}

### CPU (2 cores)

One thread, the same 20,000 GASAL2 pairs (723 M cells), scoring 2/4/4/2, best of 3, parasail 1.3.4 in the
same run, GCUPS (the Intel Xeon; not timed again since 2026-11-21):

{pair_cpu}

Single long pairs, global, one and two threads, parasail in the same run (its 16-bit scan, 32-bit where
16 bits saturate; the AMD EPYC):

{pair_cpu_long}

No end-to-end run of the CPU backend has a peer beside it. The newest: 200,000 GASAL2 pairs,
`seqalign pair --backend cpu -t 2`, TSV with CIGARs 3.19-3.88 s, score only 1.89-2.56 s (2026-11-23,
[`journal/2026-11-23.md`](journal/2026-11-23.md); no log).

## Triplets (`seqalign triplet`)

Kernel TCUPS, linear gaps (scoring 2/4/4/2), related triplets, the plan's shapes; traceback within the
command's budget of 256 MB a triplet (1,024 bp: 5 windows of slices from checkpoints). Each figure is the
newest that measured its length and mode on that device, lettered by source; "-": not measured on these
trees (older figures are in the journal).

### H100

{triplet_h100}

### H200

{triplet_h200}

Affine gaps (`--gap-open` > 0) run kernels of their own: 0.015-0.022 TCUPS at 32-256 bp on an H200, and
the CPU engine 0.08-0.19 GCUPS a thread score only (2026-11-27, [`journal/2026-11-27.md`](journal/2026-11-27.md)).

### End to end

Windows of the 20 SARS-CoV-2 genomes, bytecode written first (as an installer does), one GPU unless said:

{triplet_e2e}

Against the kernels alone (target: within 1.3x), from the journal: H100 TSV 1.50-1.57x, MAF 1.38x
(2026-11-28); H200 TSV 1.29-1.34x, MAF 1.30-1.38x on one host, 1.54-1.62x and 1.48-1.58x on another with a
slower processor (2026-11-28). Two GPUs: 1.95x in one run against the same day's one-GPU run (2026-11-28).
No peer ran beside seqalign: TrioSeq's 3.12 TCUPS (FP16, 8 bp, H100) is its paper's figure.

### CPU (2 cores, one thread)

The anti-diagonal engine, the AMD EPYC (noisy: single runs move by up to 40 %), GCUPS, two rounds:

{triplet_cpu}

## Graphs (`seqalign graph`)

### H100 kernels

GCUPS by device events; 16-bit cells in glocal and local mode, int32 cells in global mode on this graph:

{graph_h100}

### End to end

Glocal unless said; the simulated 5 Mbp graph (10,150,942 oriented bases) and cactus-BRCA2. The cactus runs
are of the int32 cells (2026-11-23); their wall is the process's start (the alignment takes 0.03-0.04 s).
No graph kernel was timed on an H200.

{graph_e2e}

### CPU (2 cores, one thread)

cactus-BRCA2, its first 64 reads (1.09e9 cells), GAF, the "align" step of the summary line, the AMD EPYC:

{graph_cpu}

Score only, 16 reads side by side: 4.0-4.6 GCUPS glocal on the Intel Xeon (2026-11-23,
[`journal/2026-11-23.md`](journal/2026-11-23.md); no log).

## Proteins (`pair --alphabet protein`, `search`)

The CPU engine, one thread, GCUPS (2 cores, shared: compare within a run) beside parasail 1.3.4's 16-bit
profile functions: the 500 public protein pairs (55-991 aa), BLOSUM62 11 + k, a profile a pair; the search's
score pass, all 20 public queries (144-5,478 aa) against the 2,989-record database:

{protein_cpu}

Every mode runs Farrar's striped layout in explicit vectors (`families/pairwise/cpu_striped.py`,
[`decisions/striped_width.md`](decisions/striped_width.md)); with traceback every column's H is kept and
walked back by the tie rule (`cpu_striped_trace.py`); `sg` and `sg_dx` stand beside semi-global and glocal.
The search's pass: int8 lanes, then wider the records reaching 127; 3 shortest queries 1.23x ([`2026-12-07`](journal/2026-12-07.md)).

On one H100, `seqalign search --backend cuda` (`kernels/search.cu`: [`decisions/search_groups.md`](decisions/search_groups.md),
[`decisions/search_loop.md`](decisions/search_loop.md), [`decisions/search_columns.md`](decisions/search_columns.md)),
its hits equal to the CPU engine's, short of the targets (6 TCUPS, CUDASW++4.0's published 5.71; the command
within 1.3x of its score pass):

{protein_h100}

## The host path (2026-12-06 and 2026-12-07, one H100)

The targets of [`journal/2026-12-06.md`](journal/2026-12-06.md) (workers, compressed inputs and outputs):

{host_path}

The host's steps alone, the 2-core development machine, 2 threads:

{host_io}

## How to reproduce

On a GPU machine, from the repository root: `bash benchmarks/device_run.sh MODE` (wheels from `.whl/`,
GASAL2's files and `sars_20.fa` from `.carry/`, logs to `$OUT`; its header lists the modes: the tests, the
whole GPU suite, the kernel and end-to-end benchmarks, the host path, the search, several GPUs).
`device_compare.sh BASE` times this tree against an earlier one in one run; `device_check.sh` is a short check.

| script | what it measures |
|---|---|
| `bench_cpu.py`, `long_pairs_cpu.py` | the CPU engine beside parasail on the same pairs; on single long pairs |
| `bench_protein_cpu.py`, `bench_search.py` | protein pairs and the search's pass on the CPU beside parasail; the GPU search |
| `bench_gpu.py` | pair kernel GCUPS by length, mode and gap model; `--sweep`: every kernel shape |
| `bench_triplet.py` | triplet cells a second of the CPU engine and, with `--gpu`, of the kernels |
| `check_graph.py`, `profile_graph.py` | the graph kernels against the CPU engine; their time by reads and width |
| `e2e_gasal2.py`, `e2e_mix.py` | end to end on the GASAL2 pairs; on a mix of 16 bp-20 kb; one GPU against several |
| `e2e_triplet.py`, `e2e_graph.py` | end to end on triplets of SARS-CoV-2 windows; on reads against graphs |
| `host_io.py`, `host_path.py`, `bench_writers.py` | the host's steps alone: decompressing, cutting, compressing; reading and formatting; the writers |
| `startup.py`, `first_run.py` | the start of a run; the first run after a fresh install |
| `profile_threads.py`, `profile_batch.py`, `piece_timeline.py`, `profile_kernel.py` | where a run's time goes: threads, one batch, GPU jobs, one kernel for `ncu` |
| `fuzz_readers.py`, `simulate_graph.py` | the readers on mutated inputs; a simulated pangenome graph and its reads |
| `results_page.py` | this page, from the logs |
"""


def page(sources: dict[str, Source] = SOURCES) -> str:
    data = Data(sources)
    text = TEMPLATE
    for name, make in TABLES.items():
        text = text.replace("{" + name + "}", make(data))
    if re.search(r"\{[a-z_0-9]+\}", text):
        raise ValueError("a table of the template has no maker: " + re.search(r"\{[a-z_0-9]+\}", text).group(0))
    return text


def cited_logs(text: str) -> list[str]:
    """Every ``logs/...`` file the page names."""
    return sorted(set(re.findall(r"\blogs/([\w.-]+\.(?:txt|tsv))", text)))


def main(argv: list[str]) -> int:
    text = page()
    if "--write" in argv:
        PAGE.write_text(text)
    elif "--check" in argv:
        if PAGE.read_text() != text:
            print("benchmarks/RESULTS.md is not the page: python benchmarks/results_page.py --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
