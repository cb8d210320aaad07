#!/usr/bin/env python3
"""Run a command, poll its /proc/PID/smaps, and print the mappings at its peak resident size."""
import os, signal, subprocess, sys, time, re
stop_after = float(os.environ.get('SMAPS_STOP_AFTER', 'inf'))
proc = subprocess.Popen(sys.argv[1:])
best, best_maps, best_at = 0, [], 0.0
start = time.time()
def read(pid):
    maps, cur = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split()
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                cur = {"range": parts[0], "size": hi - lo, "name": parts[5] if len(parts) > 5 else "", "rss": 0}
                maps.append(cur)
            elif line.startswith("Rss:"):
                cur["rss"] = int(line.split()[1]) * 1024
    return maps
while proc.poll() is None:
    try:
        maps = read(proc.pid)
    except (FileNotFoundError, ProcessLookupError, TypeError):
        break
    total = sum(m["rss"] for m in maps)
    if total > best:
        best, best_maps, best_at = total, maps, time.time() - start
    if time.time() - start > stop_after:
        proc.send_signal(signal.SIGINT)
        stop_after = float('inf')
    time.sleep(0.2)
proc.wait()
print(f"peak rss {best/2**30:.3f} GiB at {best_at:.1f} s", file=sys.stderr)
for m in sorted(best_maps, key=lambda m: -m["rss"])[:25]:
    print(f"{m['rss']/2**20:10.1f} MiB of {m['size']/2**20:10.1f} MiB {m['range']} {m['name']}", file=sys.stderr)
sys.exit(proc.returncode)
