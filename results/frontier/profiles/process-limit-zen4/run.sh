#!/bin/bash
# --max-memory as a bound on the whole process: peaks (time -v's maximum resident size, and
# the mappings at the peak from smaps_peak.py) of counts and estimates given a limit.
# Binary in $BIN/reserve (this change); nothing else running. Run from this folder.
BIN=${BIN:-/tmp/bis/bin}
SMAPS=../outer-sort-zen4/smaps_peak.py
SMAPS_STOP_AFTER=200 /usr/bin/time -v python3 $SMAPS $BIN/reserve count 28 --threads 2 \
  --max-memory 3G -q > n28-count-3g.out 2> n28-count-3g.err
for limit in 1G 3G; do
  /usr/bin/time -v python3 $SMAPS $BIN/reserve estimate 26 --threads 2 --max-memory $limit \
    --check 8 --profile --sample-time 2s --kernel avx512 --json > n26-est-$limit.json 2> n26-est-$limit.err
done
/usr/bin/time -v $BIN/reserve count 22 --threads 2 --max-memory 512M --json \
  > n22-count-512m.json 2> n22-count-512m.err
