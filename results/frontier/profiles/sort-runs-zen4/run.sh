#!/bin/bash
# The sort's runs on an AMD EPYC Zen 4: throwaway builds of 13fb395 with `SORT_STREAMS`
# (crates/core/src/join/pair_count/bucket.rs) set to 1, 2 and 4, each `cargo build
# --release` copied to /tmp/bis/bin/sK, profiled on the same checked tasks in turns
# (N = 21 twice: the files hold the second round). n2?-13fb395.json: 13fb395 alone, first.
# Tables: `cargo xtask profile -- FILE...`.
d=$(dirname "$0")
for b in s4 s1 s2; do
  /tmp/bis/bin/$b estimate 22 --threads 2 --check 8 --profile --sample-time 2s --check-sample-time 2s --depth 8 --kernel avx512 --json > $d/n22-$b.json
done
for round in 1 2; do
  for b in s4 s1 s2; do
    /tmp/bis/bin/$b estimate 21 --threads 2 --check 8 --profile --sample-time 2s --check-sample-time 2s --depth 8 --kernel avx512 --json > $d/n21-$b.json
  done
done
