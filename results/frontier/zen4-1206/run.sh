#!/bin/bash
# N = 21 and 22 counted whole on each kernel, and N = 26's checked row sets counted whole,
# with today's engine on one host, one job after the other with nothing else running:
# the denominators of issue 49's per-solution ratios beside N = 28 counted whole
# (profiles/whole-today-zen4/). $1: the nqueens binary.
# Run 2026-12-06 on an AMD EPYC Zen 4 (family 25 model 17) with 57a78c9's engine code.
b=$1
for k in avx512 avx2; do
  for n in 21 22; do
    rm -f "n$n-$k.ckpt"
    /usr/bin/time -v "$b" count "$n" --threads 2 --kernel "$k" --checkpoint "n$n-$k.ckpt" \
      --progress log --json > "n$n-$k.json" 2> "n$n-$k.log"
    rm -f "n$n-$k.ckpt"
  done
done
for k in avx512 avx2; do
  /usr/bin/time -v "$b" estimate 26 --threads 2 --max-memory 18G --check 8 --profile \
    --sample-time 2s --kernel "$k" --json > "n26-check8-whole-$k.json" 2> "n26-check8-whole-$k.log"
done
