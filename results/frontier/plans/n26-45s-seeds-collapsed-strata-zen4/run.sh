#!/bin/bash
# nq-old: ef05559; nq-new: the collapsed strata (next commit)
for s in 1 2 3 4 5 6 7 8 9 10; do
  for b in old new; do
    ./nq-$b estimate 26 --threads 2 --max-memory 18G --sample-time 45s --seed $s --json > n26-$b-s$s.json 2> n26-$b-s$s.err
  done
done
echo done > seeds.done
