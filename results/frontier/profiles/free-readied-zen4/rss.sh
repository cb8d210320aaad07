#!/bin/bash
# usage: rss.sh out.log cmd...
out=$1; shift
"$@" > /dev/null 2> /tmp/m/rss-cmd.err &
pid=$!
start=$(date +%s.%N)
while kill -0 $pid 2>/dev/null; do
  r=$(grep VmRSS /proc/$pid/status 2>/dev/null | awk '{print $2}')
  echo "$(echo "$(date +%s.%N) - $start" | bc) $r" >> $out
  sleep 0.05
done
