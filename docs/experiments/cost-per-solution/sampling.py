"""The sampling error of an estimate's two predictions, by its cost per solution and by its
time alone, from `nqueens estimate N --json` files.

The printed intervals hold the sampling error and, beside it, a run-to-run noise and a
residual of 6% each (relative standard deviations, crates/plan/src/descent.rs and
sample.rs); this takes those out again, so that the two predictions' sampling errors can
be compared.

    python3 docs/experiments/cost-per-solution/sampling.py results/frontier/ratio/*.json
"""

import json
import math
import sys

WIDTH = 1.96
NOISE = math.hypot(0.06, 0.06)


def sampling(expected, high):
    margin = (high - expected) / expected
    return math.sqrt(max(margin * margin - (WIDTH * NOISE) ** 2, 0.0))


print("| N | timed | sample | by cost per solution | by time alone | draws for one error |")
print("| ---: | --- | ---: | --- | --- | ---: |")
for path in sys.argv[1:]:
    with open(path) as f:
        e = json.load(f)
    ratio = sampling(e["core_hours"], e["core_hours_high"])
    alone = sampling(e["core_hours_by_time_alone"], e["core_hours_by_time_alone_high"])
    print(
        f"| {e['n']} | {e['sampled_count']:,} {e['sampled']} | {e['sample_s']:.0f} s "
        f"| ±{100 * ratio:.1f}% ({e['core_ns_per_solution']:.2f} core-ns/solution) "
        f"| ±{100 * alone:.1f}% | {(alone / ratio) ** 2:.1f} times fewer |"
    )
