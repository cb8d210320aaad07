#!/bin/bash
# Whole counts of the row set's cheaper work (run.sh) on an AMD EPYC Zen 4, one after the
# other: N = 18 and 20 against 39172b3, then N = 21 and 22 with this build alone.
BASE=39172b3 OUT=results/frontier/compare/row-set-work-zen4 \
  bash "$(dirname "$0")/../sort-runs-trial-zen4/whole.sh"
