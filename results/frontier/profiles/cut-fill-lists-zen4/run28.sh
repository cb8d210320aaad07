#!/bin/bash
# $1: binary tag, $2: output name
cd /tmp/st
/usr/bin/time -v ./nq-$1 estimate 28 --threads 2 --check 2 --profile --sample-time 10s --kernel avx512 --progress log --json > $2.json 2> $2.log
echo done > $2.done
