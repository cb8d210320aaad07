#!/bin/bash
# pair2.sh RUNS A B [A B ...]: sim.sh 20 0/8 RUNS A B for each pair, with the median ratio B/A.
runs=$1; shift
while [ $# -ge 2 ]; do
  a=$1; b=$2; shift 2
  ./sim.sh 20 0/8 $runs $a $b > /tmp/bis/sim-$a-$b.log
  echo "$b/$a median $(awk '{print $NF}' /tmp/bis/sim-$a-$b.log | sort -n | awk '{a[NR]=$1} END {print (a[int((NR+1)/2)]+a[int(NR/2)+1])/2}') mean $(awk '{s+=$NF} END {print s/NR}' /tmp/bis/sim-$a-$b.log)"
done
