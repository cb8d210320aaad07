#!/bin/bash
cd /work/main
for k in avx512 avx2; do
  cargo xtask compare --base 25f018d --runs 15 -- count 18 --threads 2 --kernel $k 2>&1 | tail -2 | head -1
  cargo xtask compare --base 25f018d --runs 5 -- count 19 --threads 2 --kernel $k 2>&1 | tail -2 | head -1
  cargo xtask compare --base 25f018d --runs 3 -- count 20 --threads 2 --kernel $k 2>&1 | tail -2 | head -1
done
for k in avx512 avx2; do
  cargo xtask compare --base 25f018d --runs 1 -- count 21 --threads 2 --kernel $k 2>&1 | tail -2 | head -1
done
echo finished
