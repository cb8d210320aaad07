#!/bin/bash
# N = 21's shard 3/8 on both threads, as a cluster's array job runs it: e24d54d
# (/tmp/bis/bin/head, see run.sh) against this build (target/release/nqueens), alternating,
# 3 rounds, wall seconds; then each once with `--progress log`, to see its early ETA.
set -e
cd "$(git rev-parse --show-toplevel)"
out=results/frontier/compare/sample-order-zen4
for round in 1 2 3; do
  for build in /tmp/bis/bin/head target/release/nqueens; do
    /usr/bin/time -f "round $round $build %e s" $build count 21 --shard 3/8 --threads 2 2>&1 >/dev/null | tail -1
  done
done | tee $out/shard-2-threads.log
/tmp/bis/bin/head count 21 --shard 3/8 --threads 2 --progress log > /dev/null 2> $out/shard-progress-e24d54d.log
target/release/nqueens count 21 --shard 3/8 --threads 2 --progress log > /dev/null 2> $out/shard-progress-e6d36b3.log
