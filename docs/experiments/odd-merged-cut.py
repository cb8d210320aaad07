"""How much of an odd board's merged west list each split keeps (docs/design-notes.md,
"Where the join's time goes", the cut of an odd board).

Run: python3 docs/experiments/odd-merged-cut.py [N] [ROW_SETS] [SEED]   (default 21 4 1)

For random west row sets R of (N - 1)/2 rows, it lists every placement of one queen per
row of R on the west columns 0 .. (N - 3)/2, free of attacks (the merged west list a cut
with the middle column in the east half would build), and for each row m outside R the
share of them that the middle column's queen at (m, (N - 1)/2) attacks none of (the west
list of split m, as the join builds it). Pure Python, no engine: seconds at N = 21.
"""

import random
import sys


def placements(n, half, rows):
    """Every placement of one queen per row of `rows` on columns 0 .. half - 1."""
    found = []

    def place(at, columns, rising, falling, cells):
        if at == len(rows):
            found.append(tuple(cells))
            return
        row = rows[at]
        for column in range(half):
            if columns >> column & 1 or rising >> (row + column) & 1:
                continue
            if falling >> (row - column + n) & 1:
                continue
            cells.append((row, column))
            place(
                at + 1,
                columns | 1 << column,
                rising | 1 << (row + column),
                falling | 1 << (row - column + n),
                cells,
            )
            cells.pop()

    place(0, 0, 0, 0, [])
    return found


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    row_sets = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    half = (n - 1) // 2
    middle = half
    for _ in range(row_sets):
        rows = sorted(random.sample(range(n), half))
        boards = placements(n, half, rows)
        kept = []
        for m in (row for row in range(n) if row not in rows):
            left = sum(all(abs(r - m) != middle - c for r, c in board) for board in boards)
            kept.append(left / len(boards))
        shares = " ".join(f"{share:.2f}" for share in kept)
        print(
            f"R = {rows}: {len(boards)} west boards merged; a split keeps "
            f"{sum(kept) / len(kept):.3f} on average (by row m: {shares})"
        )


main()
