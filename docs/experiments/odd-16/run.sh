#!/bin/bash
# Checked tasks of odd and even boards side by side (issue 49's odd-board target) on the
# device machine's 16 cores, with a binary built on the 2-core machine from 5456c1b
# (the device has no Rust toolchain), carried in .device/.
set -x
binary=$PWD/.device/nqueens-5456c1b
nproc; lscpu > "$OUT/lscpu.txt"
"$binary" --version
for n in $([ "${WHOLE:-0}" = 1 ] || echo 21 22 23 24); do
  /usr/bin/time -v timeout 110 "$binary" estimate "$n" --threads 16 --check 16 --profile \
    --sample-time 5s --kernel avx512 --json --progress log \
    > "$OUT/n$n-16t-5456c1b.json" 2> "$OUT/n$n-16t-5456c1b.err"
  tail -3 "$OUT/n$n-16t-5456c1b.err"
done
# The checked tasks above are those of a 16-thread count's list, too fine to compare odd
# with even boards (N = 23's took 0.1 s in all); whole counts do.
if [ "${WHOLE:-0}" = 1 ]; then
  for run in "20 avx512" "21 avx512" "22 avx512" "20 avx2" "21 avx2"; do
    set -- $run
    /usr/bin/time -v timeout 200 "$binary" count "$1" --threads 16 --kernel "$2" --json \
      --progress never > "$OUT/count$1-16t-$2-5456c1b.json" 2> "$OUT/count$1-16t-$2-5456c1b.err"
    grep -E "Elapsed|User time" "$OUT/count$1-16t-$2-5456c1b.err"
  done
fi
