#!/bin/bash
cd /tmp/st
/usr/bin/time -v ./nq-count estimate 28 --threads 2 --max-memory 18G --check 2 --profile --sample-time 10s --kernel avx512 --progress log --json > n28-whole-count.json 2> n28-whole-count.log
echo done > n28-whole-count.done
