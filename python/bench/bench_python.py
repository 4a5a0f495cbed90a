"""Benchmark of the Python interface (README.md, "Python"; the numbers in the closing note of
issue 23 come from it). Not a test: it prints timings.

1. Per-decision overhead of a Python decider: at a decision point with W waiting jobs (a full
   cluster, so nothing starts), one decision = observe() + reading the waiting jobs' ids, GPUs,
   submit times and ages + apply() of a no-op plan, or of an order over every waiting job (each is
   checked; none fits). W = 1,000 and 10,000.
2. A whole run: the 10k-job Philly-shaped FIFO run with a Python FIFO decider vs the built-in
   FIFO: (Python - built-in) / decision points.
3. Steps per second of 8 vectorised environments (one action per environment per step, a
   linear score's masked argmax in NumPy), with 1 thread and with the machine's cores: a small
   window (cheap steps) and the learned example's (window 256, load 1.5).

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_python.py
"""
import os
import time

import numpy as np

import clustersim
from clustersim.env import VectorSchedulingEnv


def best_of(repeats, fn, inner):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - start) / inner)
    return best


def decision_overhead(waiting):
    # One 8-GPU node held by an endless job; `waiting` 1-GPU jobs arrive at t = 1.
    import tempfile

    folder = tempfile.mkdtemp()
    trace = os.path.join(folder, "trace.csv")
    with open(trace, "w") as out:
        out.write("job_id,submit_time,num_gpus,duration\nbig,0,8,1e9\n")
        for i in range(waiting):
            out.write(f"j{i},1,1,100\n")
    sim = clustersim.Simulation({"cluster": {"nodes": 1, "gpus_per_node": 8}, "workload": {"trace": trace}})
    sim.step()
    sim.apply([0])
    sim.step()
    obs = sim.observe()
    assert len(obs.waiting) == waiting and obs.free_gpus == 0

    def noop():
        o = sim.observe()
        o.waiting, o.waiting_gpus, o.waiting_submit, o.waiting_age
        sim.apply(None)

    def order():
        o = sim.observe()
        sim.apply(o.waiting)

    inner = 2000 if waiting <= 1000 else 300
    return best_of(5, noop, inner) * 1e6, best_of(5, order, inner) * 1e6


def whole_run():
    config = {
        "cluster": {"nodes": 16, "gpus_per_node": 8, "nodes_per_rack": 4},
        "workload": {"generator": "philly", "jobs": 10000, "load": 1.0, "seed": 5},
        "scheduler": {"policy": "fifo"},
    }
    decisions = 0

    def fifo(obs):
        nonlocal decisions
        decisions += 1
        return obs.waiting[np.lexsort((obs.waiting, obs.waiting_submit))]

    built_in = min(_timed(lambda: clustersim.run(config)) for _ in range(3))
    python = min(_timed(lambda: clustersim.Simulation(config).run(fifo)) for _ in range(3))
    return built_in, python, decisions // 3


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def env_steps(num_envs, threads, window, load, steps=20000):
    config = {
        "cluster": {"nodes": 8, "gpus_per_node": 8, "nodes_per_rack": 4},
        "workload": {"generator": "philly", "jobs": 2000, "load": load},
    }
    env = VectorSchedulingEnv(config, num_envs=num_envs, window=window, threads=threads)
    obs, _ = env.reset(seed=0)
    w = np.ones(len(env.features), dtype=np.float32)
    start = time.perf_counter()
    for _ in range(steps // num_envs):
        scores = obs["jobs"] @ w
        scores[~obs["action_mask"]] = -np.inf
        obs, *_ = env.step(scores.argmax(axis=1))
    elapsed = time.perf_counter() - start
    return (steps // num_envs) * num_envs / elapsed


if __name__ == "__main__":
    for waiting in (1000, 10000):
        noop, order = decision_overhead(waiting)
        print(f"decision overhead, {waiting:5d} waiting: observe + read 4 fields + no-op apply {noop:7.1f} us; "
              f"observe + order of all waiting {order:7.1f} us")
    built_in, python, decisions = whole_run()
    print(f"10k-job FIFO run: built-in {built_in:.3f} s, Python decider {python:.3f} s, {decisions} decisions: "
          f"{(python - built_in) / decisions * 1e6:.1f} us per decision")
    cores = os.cpu_count() or 1
    for window, load in ((16, 1.0), (256, 1.5)):
        for threads in sorted({1, min(8, cores)}):
            rate = env_steps(8, threads, window, load)
            print(f"8 vectorised environments (window {window}, 2,000 jobs at load {load}), {threads} thread(s): "
                  f"{rate:,.0f} steps/s")
