#!/bin/bash
# usage: n28.sh NAME... (binaries in /tmp/bis/bin)
for name in "$@"; do
  /usr/bin/time -v /tmp/bis/bin/$name estimate 28 --threads 2 --check 2 --profile --sample-time 10s --check-sample-time 2s --kernel avx2 --max-memory 18G --progress log --json > /tmp/pf/n28-$name.json 2> /tmp/pf/n28-$name.log
done
echo done > /tmp/pf/n28.done
