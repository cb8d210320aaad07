#!/bin/bash
# usage: n28.sh NAME... (binaries in /tmp/bis/bin)
for name in "$@"; do
  /usr/bin/time -v /tmp/bis/bin/$name estimate 28 --threads 2 --check 2 --profile --sample-time 10s --check-sample-time 2s --kernel avx2 --max-memory 18G --progress log --json > /tmp/pf/n28-$name.json 2> /tmp/pf/n28-$name.log
done
echo done > /tmp/pf/n28.done
# The pieces run (the landed build as "pf16", the default 1.5 GiB a thread, no --max-memory):
# /usr/bin/time -v /tmp/bis/bin/pf16 estimate 28 --threads 2 --check 2 --profile --sample-time 1s --check-sample-time 2s --kernel avx2 --progress log --json > n28-check2-pf16-pieces-s1.json 2> n28-check2-pf16-pieces-s1.log
