#!/usr/bin/env bash
# Trees of seqalign in turns on one GPU machine, end to end on the GASAL2 pairs: the way to compare a change
# with the tree before it (the same machine, the same files, rounds in turns).
#
# Usage (repository root, GASAL2's query_batch.fasta.gz and target_batch.fasta.gz in DATA, default .carry):
#   git archive REV seqalign_cli kernels | tar -x -C trees/before     # once a tree, where git is at hand
#   bash benchmarks/ab_trees.sh before=trees/before after=.           # LABEL=DIR ..., DIR holding seqalign_cli/
# ROUNDS (default 3) rounds of RUNS (default "10m 10ms 1m 1msam 1mb": 10,000,000 pairs, TSV with CIGARs and
# score only; 1,000,000 pairs, TSV, SAM and BAM), each tree in turn, after one warm-up run a tree (kernels
# and caches). Every line: LABEL_RUN, the exit status, the whole command's wall, then seqalign's summary.
# The outputs of the first tree and the last are compared at the end (TSV byte for byte, SAM without @PG).
# Logs to $OUT (ab.txt); wheels from .whl/ as device_run.sh installs them. BACKEND (default cuda): cpu tries
# the script on a machine without a GPU.
set -uo pipefail
OUT=${OUT:-/tmp/seqalign-out}; DATA=${DATA:-.carry}; ROUNDS=${ROUNDS:-3}; RUNS=${RUNS:-10m 10ms 1m 1msam 1mb}
BACKEND=${BACKEND:-cuda}
mkdir -p "$OUT"
ROOT=$PWD
if [[ ! -d /tmp/site ]] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONUNBUFFERED=1
labels=(); dirs=()
for spec in "$@"; do labels+=("${spec%%=*}"); dirs+=("$(cd "${spec#*=}" && pwd)"); done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu.txt"
mkdir -p /tmp/ab && python3 - "$DATA" $RUNS <<'PY'
import gzip, os, sys
sizes = {run[:run.index("m") + 1] for run in sys.argv[2:]}  # the replicated sets the runs read
for n in ("query", "target"):
    data = gzip.open(os.path.join(sys.argv[1], f"{n}_batch.fasta.gz")).read()
    for copies, tag in ((500, "10m"), (50, "1m")):
        path = f"/tmp/ab/{n}_{tag}.fa"
        if tag not in sizes:
            continue
        if not os.path.exists(path):
            with open(path, "wb") as f:
                for _ in range(copies):
                    f.write(data)
PY
one() {  # TREE LABEL RUN
  local tree=$1 label=$2 run=$3 size=${3%%[a-z]*} args=()
  case $run in
    *ms) args=(--score-only -o /tmp/ab/o_$label.tsv) ;;
    *sam) args=(-o /tmp/ab/o_$label.sam) ;;
    *b) args=(-o /tmp/ab/o_$label.bam) ;;
    *) args=(-o /tmp/ab/o_$label.tsv) ;;
  esac
  rm -f /tmp/ab/o_$label.*
  local t0=$EPOCHREALTIME
  (cd /tmp && PYTHONPATH=/tmp/site:$tree python3 -m seqalign_cli pair --backend "$BACKEND" -t "$(nproc)" \
    /tmp/ab/query_${size}m.fa /tmp/ab/target_${size}m.fa "${args[@]}" 2>/tmp/ab/err_$label.txt)
  local rc=$? t1=$EPOCHREALTIME
  printf "%s rc=%s wall %.2f s | %s\n" "$label" $rc "$(awk "BEGIN{print $t1 - $t0}")" \
    "$(tail -n 1 /tmp/ab/err_$label.txt | cut -c1-330)"
}
warm=${RUNS%% *}
for k in "${!dirs[@]}"; do one "${dirs[$k]}" "warm_${labels[$k]}" "$warm"; done > "$OUT/warm.txt"
for round in $(seq "$ROUNDS"); do
  echo "# round $round"
  for run in $RUNS; do
    for k in "${!dirs[@]}"; do one "${dirs[$k]}" "${run}_${labels[$k]}" "$run"; done
  done
done | tee "$OUT/ab.txt"
first=${labels[0]}; last=${labels[-1]}
for run in $RUNS; do
  a=(/tmp/ab/o_${run}_$first.*); b=(/tmp/ab/o_${run}_$last.*)
  case ${a[0]} in
    *.tsv) cmp -s "${a[0]}" "${b[0]}" && echo "$run: identical" || echo "$run: DIFFERENT" ;;
    *.sam) diff -q <(grep -v '^@PG' "${a[0]}") <(grep -v '^@PG' "${b[0]}") >/dev/null \
             && echo "$run: identical" || echo "$run: DIFFERENT" ;;
    *) echo "$run: not compared (BAM)" ;;
  esac
done | tee -a "$OUT/ab.txt"
