"""Sweeping a Python policy: one process per (load, seed) point, the results in one table.

`clustersim sweep` runs its grid in C++ (MPI ranks x threads); a policy written in Python runs in
Python processes instead: here a process pool, one simulation per task (each process imports
clustersim once). On a cluster, the same function runs one point per task of a job array.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/sweep_policy.py [--processes 2]
"""
import argparse
import itertools
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

import clustersim

CONFIG = {
    "cluster": {"nodes": 16, "gpus_per_node": 8, "nodes_per_rack": 4},
    "workload": {"generator": "philly", "jobs": 3000},
}


def smallest_first(obs):
    """The policy under study: fewest GPUs first, then oldest."""
    w = obs.waiting
    return w[np.lexsort((w, obs.waiting_submit, obs.waiting_gpus))]


def point(load, seed):
    sim = clustersim.Simulation(CONFIG, set={"workload.load": load})
    sim.reset(seed=seed)  # as `clustersim sweep` seeds a point: the workload and the run
    mine = sim.run(smallest_first).metrics
    fifo = clustersim.run(CONFIG, set={"workload.load": load}, seed=seed).metrics
    return {"load": load, "seed": seed, "jct_mean": mine["jct_mean"], "fifo_jct_mean": fifo["jct_mean"],
            "gpu_util": mine["gpu_util"]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", default=None, help="write the table as CSV")
    args = parser.parse_args()
    grid = list(itertools.product([0.8, 1.0, 1.3], range(1, args.seeds + 1)))
    with ProcessPoolExecutor(args.processes) as pool:
        rows = list(pool.map(point, *zip(*grid)))
    table = pd.DataFrame(rows)
    summary = table.groupby("load")[["jct_mean", "fifo_jct_mean"]].mean() / 3600
    summary["speedup"] = summary["fifo_jct_mean"] / summary["jct_mean"]
    print(summary.round(3).to_string())
    if args.out:
        table.to_csv(args.out, index=False)
