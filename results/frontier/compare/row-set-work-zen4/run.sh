#!/bin/bash
# The row set's own work made cheaper (305d47d, ed5d22d, 4138965: the key's crowding in
# byte counters, each run's tail group prefetched, empty stretches not written) against
# 39172b3, on an AMD EPYC Zen 4, side by side, one build a core, swapped every round
# (../n20-avx2-bisect-zen3/sim.sh). Each binary is `cargo build --release` of its commit,
# copied to /tmp/bis/bin/base (39172b3) and /tmp/bis/bin/rows. Whole counts: whole.sh.
set -e
d=$(dirname "$0")
sim=$d/../n20-avx2-bisect-zen3/sim.sh
for k in avx512 avx2; do
  EXTRA="--kernel $k" bash $sim 21 3/8 3 base rows | tee $d/n21-3of8-$k.log
  EXTRA="--kernel $k" bash $sim 22 17/64 3 base rows | tee $d/n22-17of64-$k.log
done
