#!/usr/bin/env python3
"""The steady-state verdict's false-alarm rates on M/M/c queues (sim/README.md, "Steady state").

Runs a `clustersim sweep` of FIFO on one-GPU jobs with Poisson arrivals and exponential durations
of mean 1 h (an M/M/c queue: c = --gpus) at each --loads value over --seeds seeds, each run
measured by the default steady-state rule, and prints per load how many runs were called steady,
too short and overloaded. Below load 1 every "overloaded" is a false alarm (an M/M/c queue at
rho < 1 has a steady state); "too short" is the rule asking for a longer run. Above 1 every
"steady" is a miss.

    scripts/steady_state_false_alarms.py [--clustersim build/bin/clustersim] [--gpus 16]
        [--loads 0.7,0.9,0.95] [--seeds 100] [--ranks 2] [--out DIR] [--extend-limit X]
        [--arrival-pattern diurnal]

--extend-limit X sets [metrics] extend_limit: a run too short is run again with more jobs, up to
X times the plan's (the table then also gives the runs extended and their mean extension).
--arrival-pattern diurnal: arrivals at the generator's daily and weekly rates (no longer M/M/c:
below load 1 a steady state still exists over whole cycles, so "overloaded" is still a false alarm).

Deterministic: the sweep derives each run's seed from the grid's seed (1) and its replicate.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

GRID = """# M/M/{gpus} (steady_state_false_alarms.py)
[cluster]
[[cluster.node_group]]
nodes = {nodes}
gpus_per_node = {per_node}

[workload]
generator = "philly"
durations = "exponential"
mean_duration_s = 3600
max_gpus_per_job = 1
{pattern}
[scheduler]
policy = "fifo"

{metrics}
[sweep]
"workload.load" = [{loads}]
seeds = {seeds}
seed = 1
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--clustersim", default=os.path.join(here, "build", "bin", "clustersim"))
    parser.add_argument("--gpus", type=int, default=16)
    parser.add_argument("--loads", default="0.7,0.9,0.95")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--out", help="keep the grid and the result file here")
    parser.add_argument("--arrival-pattern", choices=["flat", "diurnal"], default="flat")
    parser.add_argument("--extend-limit", type=float, default=1.0,
                        help="[metrics] extend_limit (default 1: too-short runs are not extended)")
    args = parser.parse_args()
    loads = [float(v) for v in args.loads.split(",")]
    per_node = 8 if args.gpus % 8 == 0 else args.gpus
    folder = args.out or tempfile.mkdtemp(prefix="false_alarms.")
    os.makedirs(folder, exist_ok=True)
    grid = os.path.join(folder, "mmc.toml")
    with open(grid, "w", encoding="utf-8") as handle:
        handle.write(GRID.format(gpus=args.gpus, nodes=args.gpus // per_node, per_node=per_node,
                                 loads=", ".join(f"{v:g}" for v in loads), seeds=args.seeds,
                                 pattern=f'arrival_pattern = "{args.arrival_pattern}"\n'
                                 if args.arrival_pattern != "flat" else "",
                                 metrics=f"[metrics]\nextend_limit = {args.extend_limit:g}\n"
                                 if args.extend_limit > 1 else ""))
    result = os.path.join(folder, "mmc.h5")
    command = [args.clustersim, "sweep", grid, "--out", result, "--quiet", "--overwrite"]
    if args.ranks > 1 and shutil.which("mpirun"):
        command = ["mpirun", "-np", str(args.ranks), "--oversubscribe"] + command
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(command, check=True, env=env)

    sys.path.insert(0, here)
    import numpy as np
    from analysis.results import load as load_results

    points = load_results(result, jobs=False, timeseries=False).ok
    load = points["workload.load"].to_numpy(float)
    flags = {name: points[name].to_numpy() for name in ("steady_state", "window_too_short", "window_overloaded")}
    extension = points["window_extension"].to_numpy(float) if "window_extension" in points else None
    extended = args.extend_limit > 1 and extension is not None
    print(f"M/M/{args.gpus}{' (diurnal arrivals)' if args.arrival_pattern != 'flat' else ''}, FIFO, "
          "exponential durations (mean 1 h), default steady-state rule"
          f"{f', extend_limit {args.extend_limit:g}' if extended else ''}, {args.seeds} seeds per load:")
    print(f"{'load':>6} {'runs':>5} {'steady':>7} {'too short':>10} {'overloaded':>11}"
          + (f" {'extended':>9} {'mean x':>7}" if extended else ""))
    summary = []
    for value in loads:
        at = np.isclose(load, value)
        counts = {k: int((v[at] != 0).sum()) for k, v in flags.items()}
        line = (f"{value:>6g} {int(at.sum()):>5} {counts['steady_state']:>7} {counts['window_too_short']:>10} "
                f"{counts['window_overloaded']:>11}")
        if extended:
            counts["extended"] = int((extension[at] > 1).sum())
            counts["mean_extension"] = float(extension[at].mean())
            line += f" {counts['extended']:>9} {counts['mean_extension']:>7.2f}"
        print(line)
        summary.append({"load": value, "runs": int(at.sum()), **counts})
    print(json.dumps(summary))
    if not args.out:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
