#!/bin/bash
# The sort's runs chosen by a trial ("trial": 056ef9c's code, the trial then made at the
# first sort rather than when the join is made) against four runs always ("s4": 13fb395),
# side by side, one a core, swapped every round (../n20-avx2-bisect-zen3/sim.sh). Each binary is
# `cargo build --release` of its code, copied to /tmp/bis/bin/NAME. Whole counts: whole.sh.
set -e
d=$(dirname "$0")
EXTRA="--kernel avx512" bash $d/../n20-avx2-bisect-zen3/sim.sh 22 17/64 4 s4 trial | tee $d/n22-shard17of64-avx512.log
EXTRA="--kernel avx2" bash $d/../n20-avx2-bisect-zen3/sim.sh 22 17/64 3 s4 trial | tee $d/n22-shard17of64-avx2.log
EXTRA="--kernel avx512" bash $d/../n20-avx2-bisect-zen3/sim.sh 21 3/8 3 s4 trial | tee $d/n21-shard3of8-avx512.log
EXTRA="--kernel avx2" bash $d/../n20-avx2-bisect-zen3/sim.sh 21 3/8 2 s4 trial | tee $d/n21-shard3of8-avx2.log
