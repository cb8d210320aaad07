#!/bin/bash
# The sort's passes in functions of their own, two runs for short keys (1c90ffa) against
# b49f4ff, on an AMD EPYC Zen 4: each `cargo build --release` copied to /tmp/bis/bin/base
# (b49f4ff) and /tmp/bis/bin/runs (1c90ffa), shard counts on one thread side by side, one
# build a core, swapped every run (`../n20-avx2-bisect-zen3/sim.sh`).
d=$(dirname "$0")
sim=$d/../n20-avx2-bisect-zen3/sim.sh
for k in avx512 avx2; do
  EXTRA="--kernel $k" bash $sim 21 3/8 3 base runs > $d/n21-3of8-$k.log
  EXTRA="--kernel $k" bash $sim 22 17/64 3 base runs > $d/n22-17of64-$k.log
done
