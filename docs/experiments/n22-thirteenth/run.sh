#!/bin/bash
# The thirteenth session's N = 22 counts: estimates first, then each kernel's count between N = 20 runs.
set -u
B=/tmp/n22run/nqueens
D=/tmp/n22run
cd $D
for k in avx512 avx2; do
  /usr/bin/time -f '%e s wall %U s user %M KB' -o $D/estimate-$k-time.txt $B estimate 22 --threads 2 --kernel $k --progress never > $D/estimate-$k.txt 2>&1
done
n20() { # kernel label
  for i in 1 2 3; do
    /usr/bin/time -f '%e s wall %U s user %M KB' $B count 20 --threads 2 --kernel $1 --progress never 2>&1 | tr '\n' ' ' >> $D/n20-$1-runs.txt; echo " ($2)" >> $D/n20-$1-runs.txt
  done
}
for k in avx512 avx2; do
  n20 $k before
  rm -f $D/n22-$k.ckpt
  /usr/bin/time -v -o $D/n22-$k-time.txt $B count 22 --threads 2 --kernel $k --checkpoint $D/n22-$k.ckpt --progress log --json > $D/n22-$k.json 2> $D/n22-$k-progress.log
  n20 $k after
done
echo done > $D/finished
