#!/usr/bin/env bash
# N = 22's plan checked by 8 tasks on 2 threads while the machine slows on purpose: from
# HOG_AT seconds on (about the check's second half), a busy loop takes a share of the two
# cores until the estimate ends. Without HOG_AT the machine is left quiet.
#   results/frontier/plans/check-under-load/run.sh target/release/nqueens OUT.json [HOG_AT]
# The files here: `units-*` with SAMPLE="--sample units", `default-*` without it.
set -euo pipefail
nqueens=$1 out=$2 hog_at=${3:-}
# shellcheck disable=SC2086 # SAMPLE is a list of words
"$nqueens" estimate 22 --threads 2 --check 8 ${SAMPLE:-} --sample-time 10s \
    --check-sample-time 10s --json > "$out" &
estimate=$!
if [ -n "$hog_at" ]; then
    sleep "$hog_at"
    (while :; do :; done) &
    hog=$!
    trap 'kill $hog' EXIT
fi
wait $estimate
