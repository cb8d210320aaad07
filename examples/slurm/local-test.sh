#!/bin/bash
# Runs the Slurm recipe on a throwaway one-node Slurm on this machine: munge and Slurm's
# daemons start with their configuration, state and logs in a temporary directory, the
# count of N = 12 goes in as a 4-shard job array plus the merge (submit.sh, with a
# NQUEENS_MAX_MEMORY the shards pass on), and the merged count must be the known one.
# Every daemon this starts is stopped on exit, whatever happens.
#
#   examples/slurm/local-test.sh [NQUEENS_BINARY]
#
# Without an argument it tests target/debug/nqueens, built with `cargo build` if missing.
# Debian's slurm-wlm and munge are installed with apt-get if missing (this needs root, as
# do the daemons).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/../..")
n=12 shards=4 expected="total=14200 unique=1787"

if [[ $# -ge 1 ]]; then
    nqueens=$(realpath "$1")
else
    nqueens=$root/target/debug/nqueens
    [[ -x $nqueens ]] || cargo build --quiet --manifest-path "$root/Cargo.toml" -p nqueens-cli
fi

if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
    echo "local-test: installing slurm-wlm and munge" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge > /dev/null
fi

tmp=$(mktemp -d /tmp/nqueens-slurm.XXXXXX)
pids=()
stop() {
    local status=$?
    # Only the daemons started here, by their process ids.
    for pid in "${pids[@]}"; do
        kill "$pid" 2> /dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2> /dev/null || true
    done
    if [[ $status -ne 0 ]]; then
        echo "local-test: FAILED; the daemons' logs:" >&2
        tail -n 20 "$tmp"/*.log >&2 || true
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap stop EXIT

# munge: its own key and socket, so no system-wide munge is needed or disturbed.
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge.key"
munged --foreground --force --key-file="$tmp/munge.key" --socket="$tmp/munge.socket" \
    --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" 2>> "$tmp/munged.log" &
pids+=($!)

# Ports nobody is likely to use, so a Slurm already on this machine is left alone.
port=$((20000 + RANDOM % 20000))
host=$(hostname -s)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/work"
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" << EOF
ClusterName=nqueens-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
EOF
for _ in $(seq 50); do
    [[ -S $tmp/munge.socket ]] && break
    sleep 0.1
done
# In the foreground, so that their process ids are known; they log to their files.
slurmctld -D -f "$SLURM_CONF" > /dev/null 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > /dev/null 2>&1 &
pids+=($!)

echo "local-test: waiting for the node"
for _ in $(seq 60); do
    state=$(sinfo -h -N -o %t 2> /dev/null || true)
    [[ $state == idle ]] && break
    sleep 1
done
[[ $state == idle ]] || { echo "local-test: the node never came up (state '$state')" >&2; exit 1; }

ids=$(NQUEENS=$nqueens NQUEENS_MAX_MEMORY=256M "$here/submit.sh" "$n" "$shards" 1 "$tmp/work")
read -r array merge <<< "$ids"
echo "local-test: submitted array job $array ($shards shards of N = $n) and merge job $merge"
for _ in $(seq 120); do
    [[ -z $(squeue -h -j "$array,$merge" 2> /dev/null) ]] && break
    sleep 1
done
squeue -h -j "$array,$merge" 2> /dev/null | grep -q . && { echo "local-test: jobs still queued after 2 minutes" >&2; exit 1; }

result=$(cat "$tmp/work/n$n.txt" 2> /dev/null || true)
echo "local-test: merged: $result"
if [[ $result != "N=$n $expected "* ]]; then
    echo "local-test: expected N=$n $expected" >&2
    cat "$tmp"/work/*.log >&2 || true
    exit 1
fi
echo "local-test: ok"
