#!/bin/bash
# Whole counts of the sort's passes (36a8459) on an AMD EPYC Zen 4, one after the other:
# N = 18 and 20 against b49f4ff, then N = 21 on both kernels and N = 22 on avx512 with
# this build alone.
set -x
cd "$(git rev-parse --show-toplevel)"
out=results/frontier/compare/sort-passes-zen4
cargo build --release -q
for kernel in avx512 avx2; do
  cargo xtask-release compare --base b49f4ff --runs 3 -- count 20 --threads 2 --kernel $kernel > $out/n20-$kernel.log 2>&1
  cargo xtask-release compare --base b49f4ff --runs 5 -- count 18 --threads 2 --kernel $kernel > $out/n18-$kernel.log 2>&1
done
for kernel in avx512 avx2; do
  /usr/bin/time -v target/release/nqueens count 21 --threads 2 --kernel $kernel --json > $out/n21-$kernel.json 2> $out/n21-$kernel.log
done
/usr/bin/time -v target/release/nqueens count 22 --threads 2 --kernel avx512 --json > $out/n22-avx512.json 2> $out/n22-avx512.log
/usr/bin/time -v target/release/nqueens count 22 --threads 2 --kernel avx2 --json > $out/n22-avx2.json 2> $out/n22-avx2.log
