#!/bin/bash
# sim.sh N SHARD RUNS A B : user seconds of `count N --shard SHARD --threads 1` for A and B
# run at the same time on cores 0 and 1, then swapped; prints B/A per run. EXTRA adds
# arguments to both (EXTRA="--kernel scalar").
n=$1; shard=$2; runs=$3; a=$4; b=$5
one() { /usr/bin/time -f "%U" -o /tmp/bis/t-$2.txt taskset -c $1 /tmp/bis/bin/$2 count $n --shard $shard --threads 1 $EXTRA > /dev/null 2>&1; }
for r in $(seq $runs); do
  if [ $((r % 2)) = 1 ]; then one 0 $a & one 1 $b & else one 1 $a & one 0 $b & fi
  wait
  ta=$(cat /tmp/bis/t-$a.txt); tb=$(cat /tmp/bis/t-$b.txt)
  echo "run=$r $a $ta $b $tb ratio $(echo "scale=3; $tb / $ta" | bc)"
done
