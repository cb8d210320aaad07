#!/bin/bash
# Submits an nqueens count as a Slurm job array of SHARDS shards, each on CPUS cores, and a
# merge that runs once every shard has succeeded (--dependency=afterok on the array).
# Results go to DIR: n<N>-<I>.json per shard, n<N>.txt for the count.
#
#   examples/slurm/submit.sh N SHARDS [CPUS [DIR]]
#
# The nqueens on the PATH of the nodes runs, or the one named by NQUEENS; NQUEENS_MAX_MEMORY
# (say 18G) is each shard's --max-memory, as in the plan. Prints the job ids of the array
# and of the merge.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 4 ]]; then
    echo "usage: $0 N SHARDS [CPUS [DIR]]" >&2
    exit 2
fi
n=$1 shards=$2 cpus=${3:-1} dir=$(realpath "${4:-.}")
here=$(dirname "$(realpath "$0")")
export NQUEENS_N=$n NQUEENS_DIR=$dir

count=$(sbatch --parsable --array="0-$((shards - 1))" --cpus-per-task="$cpus" \
    --output="$dir/n$n-%a.log" --export=ALL "$here/count.sbatch")
merge=$(sbatch --parsable --dependency="afterok:$count" --kill-on-invalid-dep=yes \
    --output="$dir/n$n-merge.log" --export=ALL "$here/merge.sbatch")
echo "$count $merge"
