#!/bin/bash
# share.sh RUNS REV...: the sort's share of samples in `count 20 --shard 0/8 --threads 1` under perf, revs in turns.
runs=$1; shift
for r in $(seq $runs); do
  line="run=$r"
  for rev in "$@"; do
    perf record -q -F 1000 -e cpu-clock -o /tmp/bis/share.data /tmp/bis/bin/$rev count 20 --shard 0/8 --threads 1 > /dev/null 2>&1
    line="$line $rev $(perf report -q -n -i /tmp/bis/share.data --no-children --sort symbol 2>/dev/null | awk '{s+=$2} /sort_through_pext/ {t+=$2} /count_avx2/ {c+=$2} END {printf "%d sort %.3f count %.3f", s, t/s, c/s}')"
  done
  echo "$line"
done
