#!/bin/bash
# The tail tables' halves built by the threads that need them (e6d36b3) against
# b3e7f53 (one thread built both while the other waited), on an AMD EPYC Zen 4:
# N = 21's shard 3/8 on both threads, where its 19 builds are a larger share than in the
# whole count. Whole counts of this and b3e7f53 together: ../sample-order-zen4/whole.sh.
set -x
cd "$(git rev-parse --show-toplevel)"
base=${BASE:-b3e7f53}
out=${OUT:-results/frontier/compare/tail-halves-zen4}
for kernel in avx512 avx2; do
  cargo xtask-release compare --base $base --runs 5 -- count 21 --shard 3/8 --threads 2 --kernel $kernel > $out/n21-3of8-$kernel.log 2>&1
done
