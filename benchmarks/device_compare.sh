#!/usr/bin/env bash
# Speed and output of the working tree against an earlier tree, in one GPU run.
# BASE: a folder holding the earlier seqalign_cli/ and kernels/
# (e.g. `git archive COMMIT seqalign_cli kernels | tar -x -C .base`).
# End to end on the GASAL2 pairs (copied to .carry/), the two trees taking turns (benchmarks/ab_trees.sh:
# ROUNDS, default 2, and RUNS, default "10m 10ms 1m 1msam", pass through; outputs compared), then kernel
# GCUPS of each (LENGTHS, MODES pass through).
# Usage (on the GPU machine, repo root): bash benchmarks/device_compare.sh BASE
# Machines differ by up to a fifth and runs by a sixth: rounds that take turns in one run are what compares.
# Logs go to $OUT.
set -uo pipefail
base=$(cd "${1:?usage: device_compare.sh BASE}" && pwd)
OUT=${OUT:-/tmp/seqalign-out}
mkdir -p "$OUT"
export OUT ROUNDS=${ROUNDS:-2} RUNS=${RUNS:-10m 10ms 1m 1msam}
bash benchmarks/ab_trees.sh base="$base" new=. 2>&1 | tee "$OUT/e2e_compare.txt"
site=${SITE:-/tmp/site}
for tree in "$base" "$PWD"; do
  name=$([[ $tree == "$PWD" ]] && echo new || echo base)
  echo "== bench_gpu $name"
  # the working tree's benchmark on each tree's package
  PYTHONPATH=$site:$tree timeout 200 python3 benchmarks/bench_gpu.py --lengths "${LENGTHS:-150,512}" \
    --modes "${MODES:-global,local}" --gaps affine --reps 3 --cells 1e10
done 2>&1 | tee "$OUT/bench_compare.txt"
