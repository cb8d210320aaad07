#!/bin/bash
# Start-up of a count of N = 28 on 2 threads: a count refused for its memory
# (--max-memory 1 byte) does everything a count does before its first task, the memory
# check's probe included, and stops. The default kernel: avx512 on the Zen 4 measured.
# Each binary ($@) runs 5 times, taking turns.
# Measured 2026-12-06 on an AMD EPYC Zen 4: f14dd9d, 92e388b (threads count their share
# of the tail tables; the problem built once more for its threads) and the change that
# remembers the tail boards counted for a budget.
for run in 1 2 3 4 5; do
  for binary in "$@"; do
    /usr/bin/time -f "$(basename "$binary") run $run: %e s, %M KB" \
      "$binary" count 28 --threads 2 --max-memory 1 2>&1 >/dev/null | tail -1
  done
done
