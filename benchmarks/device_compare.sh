#!/usr/bin/env bash
# Speed and output of the working tree against an earlier tree, in one GPU run.
# BASE: a folder holding the earlier seqalign_cli/, kernels/ and benchmarks/
# (e.g. `git archive COMMIT seqalign_cli kernels benchmarks | tar -x -C .base`).
# End to end on the GASAL2 pairs (copied to .carry/) and kernel GCUPS, the two
# trees taking turns; the TSV outputs of both are compared byte for byte.
# Usage (on the GPU machine, repo root, wheels installed): bash benchmarks/device_compare.sh BASE
# E2E_RUNS, E2E_ROUNDS (default 2), E2E_ARGS (e.g. --score-only), LENGTHS, MODES pass settings through.
# Machines differ by up to a fifth and runs by a sixth: rounds that take turns in one run are what compares.
# Logs go to $OUT.
set -uo pipefail
base=$(cd "${1:?usage: device_compare.sh BASE}" && pwd)
OUT=${OUT:-/tmp/seqalign-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
site=${SITE:-/tmp/site}
for tree in "$base" "$PWD"; do  # first runs compile: one each, untimed
  (cd "$tree" && PYTHONPATH=$site:$tree timeout 120 python3 benchmarks/e2e_gasal2.py "$OLDPWD/.carry/query_batch.fasta.gz" \
    "$OLDPWD/.carry/target_batch.fasta.gz" --copies 1 --runs 1 --bytecode >/dev/null 2>&1)
done
for round in $(seq "${E2E_ROUNDS:-2}"); do
  for tree in "$base" "$PWD"; do
    name=$([[ $tree == "$PWD" ]] && echo new || echo base)
    echo "== e2e $name (round $round)"
    # shellcheck disable=SC2086  # E2E_ARGS are words
    (cd "$tree" && PYTHONPATH=$site:$tree timeout 150 python3 benchmarks/e2e_gasal2.py \
      "$OLDPWD/.carry/query_batch.fasta.gz" "$OLDPWD/.carry/target_batch.fasta.gz" --runs "${E2E_RUNS:-2}" \
      --out "/tmp/e2e_$name.tsv" ${E2E_ARGS:-})
  done
done 2>&1 | tee "$OUT/e2e_compare.txt"
cmp /tmp/e2e_base.tsv /tmp/e2e_new.tsv && echo "e2e outputs identical" | tee -a "$OUT/e2e_compare.txt"
for tree in "$base" "$PWD"; do
  name=$([[ $tree == "$PWD" ]] && echo new || echo base)
  echo "== bench_gpu $name"
  (cd "$tree" && PYTHONPATH=$site:$tree timeout 200 python3 benchmarks/bench_gpu.py --lengths "${LENGTHS:-150,512}" \
    --modes "${MODES:-global,local}" --gaps affine --reps 3 --cells 1e10)
done 2>&1 | tee "$OUT/bench_compare.txt"
