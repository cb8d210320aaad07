#!/bin/bash
# Whole counts of the sample served in the list's order, backwards (b3e7f53), and the
# tail tables' halves built by the threads that need them (e6d36b3), against e24d54d on an
# AMD EPYC Zen 4, one after the other: odd boards, where the tail tables of several splits
# take turns in the cache (an even board has one split, built once). Each on one shard:
# run.sh here and ../tail-halves-zen4/run.sh.
set -x
cd "$(git rev-parse --show-toplevel)"
base=${BASE:-e24d54d}
out=${OUT:-results/frontier/compare/sample-order-zen4}
cargo build --release -q
for kernel in avx512 avx2; do
  cargo xtask-release compare --base $base --runs 5 -- count 19 --threads 2 --kernel $kernel > $out/n19-$kernel.log 2>&1
  cargo xtask-release compare --base $base --runs 1 -- count 21 --threads 2 --kernel $kernel > $out/n21-$kernel.log 2>&1
done
