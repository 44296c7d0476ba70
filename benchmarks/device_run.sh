#!/usr/bin/env bash
# One run on a GPU machine: install wheels from .whl/ (packages the machine lacks: pysam, pyfaidx and the
# test oracles parasail and biopython), report the GPU, run the GPU tests, then the kernel and
# end-to-end benchmarks (GASAL2 files copied to .carry/). Logs go to $OUT.
# Usage (on the GPU machine, repo root): bash benchmarks/device_run.sh [tests|suite|sweep|bench|e2e|host|search|multi|all]
# search: the search's GPU tests, then benchmarks/bench_search.py (SEARCH_ARGS, default --check 2 --command).
# host: the host path in one process against worker processes (--workers), one GPU: 10,000,000 GASAL2 pairs
# (TSV with CIGARs, score only), 1,000,000 (TSV, SAM, BAM; plain, gzip -1 and bgzip inputs), the mix of
# 16 bp-20 kb and 1,000,000 triplets of 150 bp (.carry/sars_20.fa needed); HOST_WORKERS: the worker counts
# after one process (default "4 8 16").
# suite: the whole GPU suite (pytest -m gpu) in five groups of files run side by side (about 3 minutes on an
# H100 where one after the other takes more than 9), a log a group and their last lines in suite.txt.
# TESTS, BENCH_ARGS, SWEEP_ARGS, E2E_ARGS and MULTI_COPIES pass arguments through.
# multi (a machine of several GPUs): the several-GPU tests, then one GPU against all of them end to end:
# 1,000,000 GASAL2 pairs (TSV with CIGARs, score only), MULTI_COPIES copies (default 500), the mix of lengths;
# the GASAL2 runs also as one process a GPU over parts of the input (e2e_gasal2.py's parts:0,1);
# then (multi, or multi-families alone) triplets of mixed lengths and reads on the simulated graph, one GPU against all.
set -uo pipefail
what=${1:-all}
OUT=${OUT:-/tmp/seqalign-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if [[ -d /tmp/site ]]; then  # installed by an earlier call on this machine
  export PYTHONPATH=/tmp/site:$PWD
elif ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site:$PWD || exit 1
else
  export PYTHONPATH=$PWD
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 -m seqalign_cli info 2>&1 | tee "$OUT/info.txt"
if [[ $what == tests || $what == all ]]; then
  python3 -m pytest -q -rf -p no:cacheprovider --maxfail 20 ${TESTS:-tests/test_cuda.py} 2>&1 | tee "$OUT/gpu_tests.txt"
fi
if [[ $what == suite ]]; then
  groups=("tests/test_cuda.py tests/test_gpu_host.py tests/test_cuda_oom.py"
          "tests/test_pairwise.py tests/test_api.py tests/test_strand.py"
          "tests/test_triplet.py tests/test_triplet_gpu_host.py tests/test_families.py"
          "tests/test_graph.py")
  rest=$(for g in "${groups[@]}"; do for f in $g; do printf -- "--ignore=%s " "$f"; done; done)
  k=0
  for files in "${groups[@]}" "tests $rest"; do
    k=$((k + 1))
    # shellcheck disable=SC2086  # the group's files are words
    python3 -m pytest -q -rf -p no:cacheprovider -m gpu $files > "$OUT/suite_$k.txt" 2>&1 &
  done
  wait
  for f in "$OUT"/suite_[0-9].txt; do echo "== $f"; tail -n 3 "$f"; done | tee "$OUT/suite.txt"
fi
if [[ $what == search ]]; then
  python3 -m pytest -q -rf -p no:cacheprovider -m gpu tests/test_search.py 2>&1 | tee "$OUT/search_tests.txt"
  python3 benchmarks/bench_search.py ${SEARCH_ARGS:---check 2 --command} 2>&1 | tee "$OUT/search_bench.txt"
fi
if [[ $what == sweep ]]; then
  python3 benchmarks/bench_gpu.py --sweep ${SWEEP_ARGS:-} 2>&1 | tee "$OUT/sweep.tsv"
fi
if [[ $what == bench || $what == all ]]; then
  python3 benchmarks/bench_gpu.py ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_gpu.txt"
fi
if [[ $what == e2e || $what == all ]]; then
  python3 benchmarks/e2e_gasal2.py .carry/query_batch.fasta.gz .carry/target_batch.fasta.gz ${E2E_ARGS:-} 2>&1 | tee "$OUT/e2e.txt"
fi
if [[ $what == host ]]; then
  gasal=(.carry/query_batch.fasta.gz .carry/target_batch.fasta.gz)
  python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --copies 500 --runs 2 --workers 1 ${HOST_WORKERS:-4 8 16} 2>&1 \
    | tee "$OUT/host_10m.txt"
  python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --copies 500 --runs 2 --score-only --workers 1 8 2>&1 \
    | tee "$OUT/host_10m_score.txt"
  python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --copies 50 --runs 3 --workers 1 8 --formats tsv,sam,bam 2>&1 \
    | tee "$OUT/host_1m.txt"
  for how in gzip bgzip; do
    python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --copies 50 --runs 2 --workers 1 8 --compress $how 2>&1 \
      | tee -a "$OUT/host_1m_compressed.txt"
  done
  (cd benchmarks && python3 e2e_mix.py --pairs 120000 --runs 2 --workers 1 0) 2>&1 | tee "$OUT/host_mix.txt"
  for w in 1 0; do
    python3 benchmarks/e2e_triplet.py .carry/sars_20.fa --triplets 1000000 --formats tsv --runs 2 --workers $w \
      2>&1 | tee -a "$OUT/host_triplet.txt"
  done
fi
if [[ $what == multi ]]; then
  python3 -m pytest -q -rf -p no:cacheprovider -k "several" ${TESTS:-tests/test_cuda.py tests/test_cuda_oom.py tests/test_triplet.py} \
    2>&1 | tee "$OUT/multi_tests.txt"
  gasal=(.carry/query_batch.fasta.gz .carry/target_batch.fasta.gz --devices 0 all parts:0,1)
  python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --runs 3 2>&1 | tee "$OUT/multi_e2e_1m.txt"
  python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --runs 3 --score-only 2>&1 | tee "$OUT/multi_e2e_1m_score.txt"
  python3 benchmarks/e2e_gasal2.py "${gasal[@]}" --runs 2 --copies "${MULTI_COPIES:-500}" 2>&1 | tee "$OUT/multi_e2e_10m.txt"
  (cd benchmarks && python3 e2e_mix.py --devices 0 all --runs 2) 2>&1 | tee "$OUT/multi_e2e_mix.txt"
fi
if [[ $what == multi || $what == multi-families ]]; then
  # triplets of mixed lengths (8-1,024 bp; MULTI_TRIPLETS, default 30,000, in MULTI_TRIPLET_FORMATS, default
  # tsv) and 10,000 reads of 150 bp on the simulated 5 Mbp graph, one GPU against all; .carry/sars_20.fa needed
  for dev in 0 all; do
    python3 benchmarks/e2e_triplet.py .carry/sars_20.fa --triplets "${MULTI_TRIPLETS:-30000}" --length 8-1024 \
      --formats "${MULTI_TRIPLET_FORMATS:-tsv}" --runs 2 --devices "$dev" --out "/tmp/triplet_$dev" 2>&1 \
      | tee -a "$OUT/multi_e2e_triplet.txt"
    python3 benchmarks/e2e_graph.py --devices "$dev" --skip-cactus --sim-cases short --reps 1 --sim-dir /tmp/sim \
      --out "/tmp/graph_$dev" 2>&1 | tail -n 12 | tee -a "$OUT/multi_e2e_graph.txt"
    grep -h "^seqalign" /tmp/graph_"$dev"/sim*.log | tee -a "$OUT/multi_e2e_graph.txt"
  done
  md5sum /tmp/triplet_*.* /tmp/graph_*/*.tsv | tee -a "$OUT/multi_e2e_triplet.txt"
fi
