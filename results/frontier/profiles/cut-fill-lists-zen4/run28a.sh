#!/bin/bash
cd /tmp/st
/usr/bin/time -v ./nq-count estimate 28 --threads 2 --check 2 --profile --sample-time 10s --kernel avx2 --progress log --json > n28-def-count-avx2.json 2> n28-def-count-avx2.log
echo done > n28-def-count-avx2.done
