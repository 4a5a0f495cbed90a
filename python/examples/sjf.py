"""Shortest job first by an estimate of each job's duration, written in Python.

With the trace's own duration as the estimate it is the built-in `sjf` (an oracle). With a noisy
estimate (as users' time limits are: here the duration x a log-normal factor drawn once per job),
compare how much of its gain over FIFO it keeps (Philly-shaped durations span five orders of
magnitude, so even a rough estimate orders them well).

    PYTHONPATH=build/python /usr/bin/python3 python/examples/sjf.py [--noise 1.0]
"""
import argparse

import numpy as np

import clustersim

parser = argparse.ArgumentParser()
parser.add_argument("--noise", type=float, default=1.0, help="sigma of the estimate's log-normal error")
parser.add_argument("--jobs", type=int, default=10000)
args = parser.parse_args()
config = {
    "cluster": {"nodes": 16, "gpus_per_node": 8, "nodes_per_rack": 4},
    "workload": {"generator": "philly", "jobs": args.jobs, "load": 1.0, "seed": 5},
}


def sjf_by(estimate):
    """A decider: the waiting jobs by estimated duration, then submit time, then id."""
    def decide(obs):
        w = obs.waiting
        return w[np.lexsort((w, obs.waiting_submit, estimate[w]))]
    return decide


sim = clustersim.Simulation(config)
durations = sim.observe().job_duration.copy()  # every job's duration (the oracle)
noisy = durations * np.random.default_rng(0).lognormal(0.0, args.noise, len(durations))

for name, result in [
    ("FIFO (built-in)", clustersim.run(config, set={"scheduler.policy": "fifo"})),
    ("SJF (built-in, oracle)", clustersim.run(config, set={"scheduler.policy": "sjf"})),
    ("SJF by the duration (Python)", sim.run(sjf_by(durations))),
    (f"SJF by a noisy estimate, sigma {args.noise} (Python)", (sim.reset(), sim.run(sjf_by(noisy)))[1]),
]:
    print(f"{name:45s} mean JCT {result.metrics['jct_mean'] / 3600:7.3f} h")
