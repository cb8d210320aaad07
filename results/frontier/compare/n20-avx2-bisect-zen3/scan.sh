#!/bin/bash
# scan.sh RUNS REV... : sim.sh 20 0/8 RUNS base REV for each REV, with the median ratio.
runs=$1; shift
for rev in "$@"; do
  ./sim.sh 20 0/8 $runs base $rev > /tmp/bis/sim-$rev.log
  echo "$rev median $(awk '{print $NF}' /tmp/bis/sim-$rev.log | sort -n | awk '{a[NR]=$1} END {print (a[int((NR+1)/2)]+a[int(NR/2)+1])/2}') mean $(awk '{s+=$NF} END {print s/NR}' /tmp/bis/sim-$rev.log)"
done
