#!/bin/bash
# N = 28's two checked row sets of seed 1 at the default budget, profiled.
# $1: the nqueens binary, $2: output name. The binaries measured (2026-12-06, AMD EPYC Zen 4):
#   base-pieces   main at 959ce39
#   kept-pieces   959ce39 with docs/experiments/kept-outer-sort.patch, its `reused` set
#                 wherever the kept list's name matches (`sorted_before.is_some()`): the
#                 kept sort's key is the one chosen at its first meeting
#   keyed-pieces  959ce39 with docs/experiments/kept-outer-sort.patch as stored
b=$1; o=$2
/usr/bin/time -v "$b" estimate 28 --threads 2 --check 2 --profile --sample-time 10s --kernel avx512 --progress log --json > "$o.json" 2> "$o.log"
