"""Where N = 28's sampling error lies, from the timings files of the seed sweeps.

Run from the repository root: python3 results/frontier/seeds/residuals.py
(docs/measurements/plans.md, "N = 28's sampling error taken apart").

Each file's residuals are its timings' costs less their solutions at the file's cost per
solution (what spreads the ratio estimate). Printed per file: the distinct list tasks
drawn, the largest influence of one timing on the cost per solution, and the residuals'
variance left by a regression on the weights as well as the solutions, over the ratio's
(a piece's cost that does not follow its solutions would show there). Then, over all
files: the residuals' share by the timings' weighed solutions (fifths), and their
variance (each over its file's mean cost) within a list task and between the tasks.
Last, the same variance for whole row sets: the checked row sets of N = 28 in each plans
sweep of `results/plans.json` and `results/frontier/plans/sweep-*.json`, counted whole,
their residuals over their mean cost (were it far below a piece's, timing whole row sets
would narrow the seeds more than pieces).
"""

import glob
import json
import statistics
from collections import defaultdict

FILES = sorted(glob.glob("results/frontier/seeds/timings/n28-seed*-*.json"))


def ratio(timings):
    cost = sum(t["cost"] for t in timings)
    solutions = sum(t["solutions"] for t in timings)
    return cost / solutions


def regression_left(timings, per_solution):
    """Residual variance of cost on (weight, solutions), over the ratio's."""
    w = [t["weight"] for t in timings]
    s = [t["solutions"] for t in timings]
    y = [t["cost"] for t in timings]
    sww = sum(a * a for a in w)
    sss = sum(b * b for b in s)
    sws = sum(a * b for a, b in zip(w, s))
    swy = sum(a * c for a, c in zip(w, y))
    ssy = sum(b * c for b, c in zip(s, y))
    det = sww * sss - sws * sws
    a = (swy * sss - ssy * sws) / det
    b = (sww * ssy - sws * swy) / det
    left = [c - a * p - b * q for c, p, q in zip(y, w, s)]
    ratio_left = [c - per_solution * q for c, q in zip(y, s)]
    return statistics.pvariance(left) / statistics.pvariance(ratio_left)


def main():
    files = {path: json.load(open(path))["timings"] for path in FILES}
    print("| file | timings | list tasks drawn | largest one timing's influence | regression / ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for path, timings in files.items():
        per_solution = ratio(timings)
        cost = sum(t["cost"] for t in timings)
        solutions = sum(t["solutions"] for t in timings)
        influence = max(
            abs(per_solution / ((cost - t["cost"]) / (solutions - t["solutions"])) - 1)
            for t in timings
            if solutions > t["solutions"]
        )
        tasks = len({t["list_task"] for t in timings})
        left = regression_left(timings, per_solution)
        name = path.rsplit("/", 1)[1]
        print(f"| {name} | {len(timings)} | {tasks} | {influence:.3f} | {left:.2f} |")

    residuals, by_task = [], defaultdict(list)
    for timings in files.values():
        per_solution = ratio(timings)
        share = len(timings) / sum(t["solutions"] for t in timings)
        mean_cost = sum(t["cost"] for t in timings) / len(timings)
        for t in timings:
            left = (t["cost"] - per_solution * t["solutions"]) / mean_cost
            residuals.append((left, t["solutions"] * share))
            by_task[t["list_task"]].append(left)
    squares = sum(r * r for r, _ in residuals)
    residuals.sort(key=lambda r: r[1])
    fifth = len(residuals) // 5
    for at in range(5):
        part = residuals[at * fifth : (at + 1) * fifth if at < 4 else len(residuals)]
        held = sum(r * r for r, _ in part) / squares
        print(f"fifth {at + 1} by weighed solutions: {held:.3f} of the squared residuals")
    within = statistics.mean(statistics.variance(d) for d in by_task.values() if len(d) > 1)
    per_task = statistics.mean(len(d) for d in by_task.values())
    means = [statistics.mean(d) for d in by_task.values()]
    between = statistics.variance(means) - within / per_task
    total = statistics.pvariance([r for r, _ in residuals])
    print(
        f"{len(by_task)} list tasks, {per_task:.1f} timings each: residual variance {total:.3f} "
        f"(of the mean cost, squared), {within:.3f} within a task, {between:.3f} between tasks"
    )


def whole_row_sets():
    """The residual variance of N = 28's checked row sets, counted whole, per sweep."""
    paths = ["results/plans.json", *sorted(glob.glob("results/frontier/plans/sweep-*.json"))]
    files = [json.load(open(path)) for path in paths]
    plans = [plan for data in files for plan in data.get("plans", [data])]
    for plan in plans:
        for result in plan["results"]:
            check = result.get("check") or {}
            tasks = check.get("tasks") or []
            if result["n"] != 28 or not tasks:
                continue
            # Each row set weighed as a timing is, so that `ratio` serves both.
            timings = [
                {"cost": t["counted_s"] * t["weight"], "solutions": t["total"] * t["weight"]}
                for t in tasks
            ]
            per_solution = ratio(timings)
            mean_cost = statistics.mean(t["cost"] for t in timings)
            left = [(t["cost"] - per_solution * t["solutions"]) / mean_cost for t in timings]
            spread = [t["cost"] / t["solutions"] for t in timings]
            print(
                f"{plan['timestamp_utc']} {result['kernel']}: {len(tasks)} row sets whole, "
                f"residual variance {statistics.pvariance(left):.3f}, cost per solution "
                f"{max(spread) / min(spread):.1f} times from the cheapest to the dearest"
            )


main()
whole_row_sets()
