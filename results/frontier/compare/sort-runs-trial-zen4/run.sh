#!/bin/bash
# The sort's runs chosen by a trial ("trial", this change) against four runs always ("s4",
# 13fb395), side by side, one a core, swapped every round (sim.sh); binaries in /tmp/bis/bin.
# Then whole counts of N = 20 by `cargo xtask-release compare --base 13fb395`.
set -e
d=$(dirname "$0")
EXTRA="--kernel avx512" bash $d/sim.sh 22 17/64 4 s4 trial | tee $d/n22-shard17of64-avx512.log
EXTRA="--kernel avx2" bash $d/sim.sh 22 17/64 3 s4 trial | tee $d/n22-shard17of64-avx2.log
EXTRA="--kernel avx512" bash $d/sim.sh 21 3/8 3 s4 trial | tee $d/n21-shard3of8-avx512.log
EXTRA="--kernel avx2" bash $d/sim.sh 21 3/8 2 s4 trial | tee $d/n21-shard3of8-avx2.log
