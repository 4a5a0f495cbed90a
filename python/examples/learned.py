"""A learned scheduler in NumPy alone: a linear scoring policy trained by the cross-entropy method
on clustersim.env, compared with FIFO on held-out seeds.

The agent sees the `window` oldest waiting jobs (features: GPUs, age and the job's duration, as
SJF knows it: "log_duration" is an oracle) and starts the one that fits with the highest score
features @ w. (With clustersim.env.DEFAULT_FEATURES alone, which hold no oracle, it finds
nothing better than FIFO here: the generator draws durations independently of GPUs and arrival.) Each candidate w is one environment of a VectorSchedulingEnv (stepped in C++
threads) on each training seed; the elite candidates' mean and spread become the next sampling
distribution. Fitness: minus the mean JCT. Then: mean JCT on held-out seeds vs the built-in FIFO.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/learned.py      # ~30 s on 2 cores
"""
import argparse
import time

import numpy as np

import clustersim
from clustersim.env import DEFAULT_FEATURES, VectorSchedulingEnv

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=15)
parser.add_argument("--population", type=int, default=24)
parser.add_argument("--elite", type=int, default=4)
parser.add_argument("--jobs", type=int, default=2000)
parser.add_argument("--load", type=float, default=1.5)
parser.add_argument("--train-seeds", type=int, default=3)
parser.add_argument("--test-seeds", type=int, default=10)
parser.add_argument("--window", type=int, default=256)
parser.add_argument("--features", default="gpus,log_gpus,age,log_age,log_duration",
                    help=f"per-job features (no oracle: {','.join(DEFAULT_FEATURES)})")
args = parser.parse_args()

# A small Philly-shaped workload: 8 nodes x 8 GPUs, offered 1.5x their capacity.
config = {
    "cluster": {"nodes": 8, "gpus_per_node": 8, "nodes_per_rack": 4},
    "workload": {"generator": "philly", "jobs": args.jobs, "load": args.load},
    "scheduler": {"policy": "fifo"},
}
features = args.features.split(",")
train_seeds = list(range(1, 1 + args.train_seeds))
test_seeds = list(range(1000, 1000 + args.test_seeds))


def mean_jcts(weights, seeds):
    """Runs each weight vector on each seed (one environment each): mean JCT per (w, seed)."""
    weights = np.asarray(weights, dtype=np.float32)
    pairs = [(w, s) for w in range(len(weights)) for s in seeds]
    env = VectorSchedulingEnv(config, num_envs=len(pairs), window=args.window, features=features)
    obs, _ = env.reset(seed=[s for _, s in pairs])
    per_env = weights[[w for w, _ in pairs]]
    jct = np.full(len(pairs), np.nan)
    while np.isnan(jct).any():
        scores = np.einsum("nkf,nf->nk", obs["jobs"], per_env)
        scores[~obs["action_mask"]] = -np.inf
        obs, _, _, _, info = env.step(scores.argmax(axis=1))
        for i in np.flatnonzero(info.get("_final_info", ())):
            if np.isnan(jct[i]):  # its first episode (it goes on with the next seed)
                jct[i] = info["final_info"][i]["metrics"]["jct_mean"]
    return jct.reshape(len(weights), len(seeds))


def fifo_jct(seed):
    return clustersim.run(config, seed=seed).metrics["jct_mean"]


rng = np.random.default_rng(0)
mean, spread = np.zeros(len(features)), np.ones(len(features))
started = time.perf_counter()
for iteration in range(args.iterations):
    candidates = mean + spread * rng.standard_normal((args.population, len(features)))
    fitness = -mean_jcts(candidates, train_seeds).mean(axis=1)
    elite = candidates[np.argsort(fitness)[-args.elite:]]
    mean, spread = elite.mean(axis=0), elite.std(axis=0) + 0.05
    print(f"iteration {iteration + 1:2d}: best mean JCT {-fitness.max() / 3600:6.3f} h, "
          f"elite mean {-np.sort(fitness)[-args.elite:].mean() / 3600:6.3f} h")
trained = time.perf_counter() - started
print("weights:", dict(zip(features, np.round(mean, 3))))
print(f"training: {args.iterations} iterations x {args.population} candidates x {len(train_seeds)} seeds "
      f"= {args.iterations * args.population * len(train_seeds)} episodes of {args.jobs} jobs in {trained:.1f} s")

learned = mean_jcts([mean], test_seeds)[0]
fifo = np.array([fifo_jct(s) for s in test_seeds])
wins = int((learned < fifo).sum())
print(f"held-out seeds {test_seeds[0]}..{test_seeds[-1]}: mean JCT learned {learned.mean() / 3600:.3f} h, "
      f"FIFO {fifo.mean() / 3600:.3f} h ({fifo.mean() / learned.mean():.2f}x; learned better on {wins} of "
      f"{len(test_seeds)} seeds)")
