"""The most a per-solution weight that uses the transposes could save in the join's pair
count, from the sizes that pair-count-sizes.patch prints (see README.md beside this file).

A pair test is one stored group of lanes against one query, so a weight decided per pair
skips a test only when every lane of the group fails for that query. With the stored
bucket's lanes sorted by the weight's statistic and cut into G groups, at most (G - 1) / 2G
of the tests are skipped, (G - 1) / 2G are doubled and 1 / G are mixed (masked, not
skipped). The script weighs that bound by each row set's pairs (stored x queries).
"""
import statistics
import sys


def tests_left(groups_per_bucket):
    g = max(groups_per_bucket, 1.0)
    return (g + 1) / (2 * g)


rows = [list(map(int, line.split()[1:])) for line in open(sys.argv[1]) if line.startswith("STAT")]
work = sum(s * q for s, q, _, _ in rows)
if not rows:
    sys.exit("no row set's pair count chose a bucket key")
smaller = sum(s * q * tests_left(s / (512 * 2**k)) for s, q, k, _ in rows) / work
larger = sum(s * q * tests_left(q / (512 * 2**k)) for s, q, k, _ in rows) / work
by_work = sorted(rows, key=lambda r: r[0] * r[1])
running = 0
for row in by_work:
    running += row[0] * row[1]
    if running > work / 2:
        break
print(f"row sets sampled: {len(rows)}")
print(f"median by work: stored {row[0]}, queries {row[1]}, key bits {row[2]}")
print(f"mean key bits: {statistics.mean(k for _, _, k, _ in rows):.2f}")
in_one = sum(s * q for s, q, k, _ in rows if s < 2 * 512 * 2**k) / work
print(f"work whose stored buckets hold under 2 groups: {in_one:.2f}")
print(f"tests left at best, smaller list stored: {smaller:.3f}")
print(f"tests left at best, larger list stored: {larger:.3f}")
