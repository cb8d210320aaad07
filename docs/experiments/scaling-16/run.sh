#!/bin/bash
# Core scaling of the join at N = 19 on the device machine's 16 cores, with binaries built
# on the 2-core machine from the same commit (the device has no Rust toolchain).
set -x
nproc; lscpu > "$OUT/lscpu.txt"
export GIT_DIR=$PWD/.device/git GIT_WORK_TREE=$PWD; git status --porcelain -- crates | head -3; git rev-parse HEAD
export NQUEENS_BINARY=$PWD/.device/nqueens
"$NQUEENS_BINARY" --version
./.device/xtask scaling --n 19 --methods join --threads 1,2,4,8,12,16 --runs 5 2>&1 | tee "$OUT/scaling.log"
cp results/scaling.json results/scaling.svg "$OUT/"
