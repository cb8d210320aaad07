#!/bin/bash
# N = 28's two checked row sets of seed 1 at the default budget (1.5 GiB a thread, 2
# threads), profiled. $1: the nqueens binary, $2: the kernel, $3: output name.
# The binaries measured (2026-12-06, AMD EPYC Zen 4): f14dd9d (main before the change;
# its engine code is 959ce39's) and 9ec4cc7 (threads count their share of the tail tables).
# s9ec-avx512 ran first, on a build of 9ec4cc7's code made before it was committed: its
# JSON names f14dd9d as its commit. Then, in this order: f14-avx512, s9ec-avx2, f14-avx2.
# n26-predict-*: `estimate 26 --threads 2 --sample-time 2s --kernel avx512 --json` under
# /usr/bin/time -v, with 9ec4cc7 and with 92e388b (the estimate's predicted peak).
b=$1; k=$2; o=$3
/usr/bin/time -v "$b" estimate 28 --threads 2 --check 2 --profile --sample-time 10s --kernel "$k" --progress log --json > "$o.json" 2> "$o.log"
