#!/bin/bash
# time.sh N RUNS REV... : wall seconds of `count N --threads 2`, revs in turns.
n=$1; runs=$2; shift 2
for r in $(seq $runs); do
  for rev in "$@"; do
    s=$(date +%s.%N); /tmp/bis/bin/$rev count $n --threads 2 --json > /tmp/bis/out-$rev.json; e=$(date +%s.%N)
    echo "$rev n=$n run=$r $(echo "$e - $s" | bc) $(grep -o '"total":[0-9]*' /tmp/bis/out-$rev.json | head -1) $(grep -o '"kernel":"[a-z0-9]*"' /tmp/bis/out-$rev.json)"
  done
done
