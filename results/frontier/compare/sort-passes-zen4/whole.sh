#!/bin/bash
# Whole counts of the sort's passes (1c90ffa) on an AMD EPYC Zen 4, one after the other:
# N = 18 and 20 against b49f4ff, then N = 21 and 22 with this build alone, as the sort's
# trial was counted.
BASE=b49f4ff OUT=results/frontier/compare/sort-passes-zen4 \
  bash "$(dirname "$0")/../sort-runs-trial-zen4/whole.sh"
