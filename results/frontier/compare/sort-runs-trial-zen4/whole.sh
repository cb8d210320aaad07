#!/bin/bash
# Whole counts of the sort's trial (this commit) on an AMD EPYC Zen 4, one after the other:
# N = 18 and 20 against 13fb395 (four runs always), then N = 21 and 22 with this build alone.
# BASE and OUT name another base and folder (../sort-passes-zen4/whole.sh).
set -x
cd "$(git rev-parse --show-toplevel)"
base=${BASE:-13fb395}
out=${OUT:-results/frontier/compare/sort-runs-trial-zen4}
cargo build --release -q
for kernel in avx512 avx2; do
  cargo xtask-release compare --base $base --runs 3 -- count 20 --threads 2 --kernel $kernel > $out/n20-$kernel.log 2>&1
  cargo xtask-release compare --base $base --runs 5 -- count 18 --threads 2 --kernel $kernel > $out/n18-$kernel.log 2>&1
done
for kernel in avx512 avx2; do
  /usr/bin/time -v target/release/nqueens count 21 --threads 2 --kernel $kernel --json > $out/n21-$kernel.json 2> $out/n21-$kernel.log
done
/usr/bin/time -v target/release/nqueens count 22 --threads 2 --kernel avx512 --json > $out/n22-avx512.json 2> $out/n22-avx512.log
/usr/bin/time -v target/release/nqueens count 22 --threads 2 --kernel avx2 --json > $out/n22-avx2.json 2> $out/n22-avx2.log
