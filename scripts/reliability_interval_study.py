#!/usr/bin/env python3
"""Best fixed checkpoint interval against the Young-Daly policy (issue 41).

Runs every point of a reliability grid (default sweep/examples/reliability/grid.toml, which
needs ../shared) with `clustersim run GRID --point N --json`, exactly as the sweep runs them,
and prints per configuration the mean ETTR over its replicates (paired seeds), then the
difference, in ETTR points, between the best fixed interval and the Young-Daly policy, both as
means and paired by seed (the same failure streams under both).

  /usr/bin/python3 scripts/reliability_interval_study.py [--grid GRID] [--binary CLUSTERSIM]
                                                         [--jobs 2]
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys


def list_points(binary, grid):
    out = subprocess.run([binary, "sweep", grid, "--dry-run"], check=True, capture_output=True,
                         text=True).stdout
    columns, points = None, []
    for line in out.splitlines():
        if line.startswith("# columns:"):
            columns = line.split(":", 1)[1].split()
        elif line and not line.startswith("#"):
            points.append(dict(zip(columns, line.split())))
    if columns is None:
        sys.exit("no point listing in the dry run of " + grid)
    return points


def run_point(binary, grid, point):
    out = subprocess.run([binary, "run", grid, "--point", point["point_id"], "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--grid", default=os.path.join(root, "sweep/examples/reliability/grid.toml"))
    parser.add_argument("--binary", default=os.environ.get(
        "CLUSTERSIM", os.path.join(root, "build/bin/clustersim")))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    points = list_points(args.binary, args.grid)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: run_point(args.binary, args.grid, p), points))

    # A configuration: its policy and interval; a replicate: its seed (paired across them).
    by_config = {}
    for point, metrics in zip(points, results):
        policy = point.get("mechanisms.checkpoint_policy", "fixed")
        interval = float(point.get("mechanisms.checkpoint_interval_s", "0"))
        key = ("young_daly", 0.0) if policy == "young_daly" else ("fixed", interval)
        by_config.setdefault(key, {})[int(point["replicate"])] = metrics

    def mean(values):
        return sum(values) / len(values)

    def stderr(values):
        if len(values) < 2:
            return float("nan")
        m = mean(values)
        return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1) / len(values))

    print(f"{'policy':>10} {'interval_s':>10} {'seeds':>5} {'ETTR':>8} {'+-':>7} "
          f"{'interruptions':>13} {'lost_rollback_gpu_h':>19}")
    for key in sorted(by_config, key=lambda k: (k[0] != "young_daly", k[1])):
        runs = by_config[key]
        ettr = [m["ettr_mean"] for m in runs.values()]
        print(f"{key[0]:>10} {key[1]:>10.0f} {len(ettr):>5} {mean(ettr):>8.4f} "
              f"{stderr(ettr):>7.4f} {mean([m['interruptions'] for m in runs.values()]):>13.1f} "
              f"{mean([m['gpu_hours_lost.rollback'] for m in runs.values()]):>19.0f}")
    young_daly = by_config.get(("young_daly", 0.0))
    fixed = {k: v for k, v in by_config.items() if k[0] == "fixed"}
    if not young_daly or not fixed:
        sys.exit("the grid needs the young_daly policy and fixed intervals")
    best = max(fixed, key=lambda k: mean([m["ettr_mean"] for m in fixed[k].values()]))
    paired = [fixed[best][r]["ettr_mean"] - young_daly[r]["ettr_mean"]
              for r in young_daly if r in fixed[best]]
    gap = 100 * (mean([m["ettr_mean"] for m in fixed[best].values()]) -
                 mean([m["ettr_mean"] for m in young_daly.values()]))
    print(f"best fixed interval {best[1]:.0f} s: ETTR - Young-Daly's = {gap:+.3f} points "
          f"(paired by seed: {100 * mean(paired):+.3f} +- {100 * stderr(paired):.3f}); "
          f"within 0.5 point: {'yes' if abs(gap) <= 0.5 else 'NO'}")


if __name__ == "__main__":
    main()
