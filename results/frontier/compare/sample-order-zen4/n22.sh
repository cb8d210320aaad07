#!/bin/bash
# N = 22 whole on both kernels with this session's build (e6d36b3; even boards' work is
# as e24d54d's), for the odd boards' ratio: N = 21 per solution against N = 22, both
# counted on the same host the same day (whole.sh has N = 21).
set -x
cd "$(git rev-parse --show-toplevel)"
out=${OUT:-results/frontier/compare/sample-order-zen4}
cargo build --release -q
for kernel in avx512 avx2; do
  /usr/bin/time -v target/release/nqueens count 22 --threads 2 --kernel $kernel --json > $out/n22-$kernel.json 2> $out/n22-$kernel.log
done
