#!/bin/bash
# N = 28's two checked row sets of seed 1 counted whole (18 GB for 2 threads), profiled,
# with today's code, to set the pieces' cost beside whole counts of the same build.
# $1: the nqueens binary, $2: the kernel, $3: output name, $4: `pieces` for the default
# budget (1.5 GiB a thread, the large row set in pieces) instead of 18G.
# Measured 2026-12-06 on an AMD EPYC Zen 4 with a build of 57a78c9's engine code: whole
# with avx512, then avx2 (m57a-*), then, after ../../zen4-1206/run.sh, in pieces with
# avx512 and avx2 (m57a-pieces-*), as ../shared-tail-zen4/run.sh counts them.
b=$1; k=$2; o=$3
memory=(--max-memory 18G)
[ "$4" = pieces ] && memory=()
/usr/bin/time -v "$b" estimate 28 --threads 2 "${memory[@]}" --check 2 --profile --sample-time 10s --kernel "$k" --progress log --json > "$o.json" 2> "$o.log"
