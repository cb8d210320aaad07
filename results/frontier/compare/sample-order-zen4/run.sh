#!/bin/bash
# The sample served in the list's order, backwards (b3e7f53), against e24d54d on an AMD
# EPYC Zen 4, side by side, one build a core, swapped every round
# (../n20-avx2-bisect-zen3/sim.sh): `cargo build --release` of each commit copied to
# /tmp/bis/bin/head (e24d54d) and /tmp/bis/bin/order. Whole counts: whole.sh.
set -e
d=$(dirname "$0")
sim=$d/../n20-avx2-bisect-zen3/sim.sh
for k in avx512 avx2; do
  EXTRA="--kernel $k" bash $sim 21 3/8 3 head order | tee $d/so-n21-$k.log
done
