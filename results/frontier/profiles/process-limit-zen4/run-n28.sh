#!/bin/bash
# N = 28's estimate with its two checked row sets, given 3 GiB for the process: the case
# that held 3.23 GiB when the limit was the join's room (docs/measurements/memory.md).
BIN=${BIN:-/tmp/bis/bin}
/usr/bin/time -v $BIN/reserve estimate 28 --threads 2 --max-memory 3G --check 2 --profile \
  --sample-time 10s --kernel avx512 --progress log --json > n28-est-3g.json 2> n28-est-3g.log
