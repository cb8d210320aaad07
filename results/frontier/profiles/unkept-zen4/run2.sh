#!/bin/bash
# As run.sh, with "unkept2": the mark below which every page holds memory also moved up
# past a gap when a room is taken beyond it (its freed pages given memory too).
BIN=${BIN:-/tmp/bis/bin}
for round in 1 2 3; do
  for bin in memo unkept2; do
    /usr/bin/time -v $BIN/$bin estimate 26 --threads 2 --max-memory 1G --check 8 --profile \
      --sample-time 2s --kernel avx512 --json > n26-1g-$bin-r$round.json 2> n26-1g-$bin-r$round.err
    /usr/bin/time -v $BIN/$bin estimate 26 --threads 2 --check 8 --profile \
      --sample-time 2s --kernel avx512 --json > n26-def-$bin-r$round.json 2> n26-def-$bin-r$round.err
  done
done
/usr/bin/time -v timeout -s INT 200 $BIN/unkept2 count 28 --threads 2 -q \
  > n28-count-unkept2.out 2> n28-count-unkept2.err
