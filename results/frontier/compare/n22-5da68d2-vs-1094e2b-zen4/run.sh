#!/bin/bash
# Issue 49's N = 22 and odd-board targets on an AMD EPYC Zen 4, both kernels, one after the other.
set -x
cd "$(git rev-parse --show-toplevel)"
out=results/frontier/compare/n22-5da68d2-vs-1094e2b-zen4
cargo build --release -q
for kernel in avx512 avx2; do
  cargo xtask-release compare --base 1094e2b --runs 1 -- count 22 --threads 2 --kernel $kernel > $out/n22-$kernel.log 2>&1
done
for kernel in avx512 avx2; do
  /usr/bin/time -v target/release/nqueens count 21 --threads 2 --kernel $kernel --json > $out/n21-$kernel.json 2> $out/n21-$kernel.log
done
