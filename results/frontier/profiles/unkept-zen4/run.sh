#!/bin/bash
# Freed pages past the arena's populated mark handed back: peaks and times against the
# binary before (57a78c9's engine, "memo"), taking turns. Binaries in $BIN: memo, unkept.
# Usage: BIN=/tmp/bis/bin bash run.sh (from this folder), nothing else running.
BIN=${BIN:-/tmp/bis/bin}
for round in 1 2; do
  for bin in memo unkept; do
    /usr/bin/time -v $BIN/$bin estimate 26 --threads 2 --max-memory 1G --check 8 --profile \
      --sample-time 2s --kernel avx512 --json > n26-1g-$bin-$round.json 2> n26-1g-$bin-$round.err
    /usr/bin/time -v $BIN/$bin estimate 26 --threads 2 --check 8 --profile \
      --sample-time 2s --kernel avx512 --json > n26-def-$bin-$round.json 2> n26-def-$bin-$round.err
  done
done
# A count of N = 28 in the default budget, stopped after 200 s (its first tasks are the
# sample's, in pieces).
for bin in memo unkept; do
  /usr/bin/time -v timeout -s INT 200 $BIN/$bin count 28 --threads 2 -q \
    > n28-count-$bin.out 2> n28-count-$bin.err
done
