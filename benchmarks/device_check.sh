#!/usr/bin/env bash
# A short device check after a kernel or host-path change: end to end on the
# GASAL2 pairs (copied to .carry/), kernel GCUPS of every mode at two
# lengths, then the GPU tests named by TESTS_K (a pytest -k expression).
# Logs go to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/seqalign-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then  # packages the machine lacks, as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site:$PWD || exit 1
else
  export PYTHONPATH=$PWD
fi
timeout 200 python3 benchmarks/e2e_gasal2.py .carry/query_batch.fasta.gz .carry/target_batch.fasta.gz --runs "${E2E_RUNS:-2}" \
  2>&1 | tee "$OUT/e2e.txt"
timeout 150 python3 benchmarks/bench_gpu.py --lengths "${LENGTHS:-150,512}" --gaps affine --reps 3 --cells 4e9 \
  2>&1 | tee "$OUT/bench_gpu.txt"
if [[ -n ${TESTS_K:-} ]]; then
  timeout "${TESTS_TIMEOUT:-300}" python3 -m pytest -q -rf -p no:cacheprovider tests/test_cuda.py -k "$TESTS_K" \
    2>&1 | tee "$OUT/gpu_tests.txt" | tail -5
fi
