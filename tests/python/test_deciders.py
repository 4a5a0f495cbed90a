"""A decider written in Python reproduces the built-in policy job by job: the twin of
tests/sim/simulation/simulation_test.cc's step-by-step FIFO, on a 10k-job Philly-shaped run."""
import json
import subprocess

import numpy as np
import pandas as pd
import pytest

import clustersim
from conftest import philly


def fifo(obs):
    """Waiting jobs by submit time, then id: started in that order where they fit."""
    waiting = obs.waiting
    return waiting[np.lexsort((waiting, obs.waiting_submit))]


def sjf(obs):
    """Shortest duration first (the built-in sjf's key: duration, then submit time, then id)."""
    waiting = obs.waiting
    return waiting[np.lexsort((waiting, obs.waiting_submit, obs.waiting_duration))]


@pytest.mark.parametrize("policy,decider", [("fifo", fifo), ("sjf", sjf)])
def test_a_python_decider_matches_the_built_in_policy_job_by_job(policy, decider):
    config = philly(10_000, policy=policy)
    built_in = clustersim.run(config)
    assert built_in.metrics["jobs"] == 10_000
    assert built_in.metrics["queue_mean"] > 0  # jobs did wait: the order mattered

    decisions = 0

    def counting(obs):
        nonlocal decisions
        decisions += 1
        return decider(obs)

    mine = clustersim.Simulation(config).run(counting)
    assert decisions > 10_000
    pd.testing.assert_frame_equal(mine.jobs, built_in.jobs, check_exact=True)
    assert mine.metrics == built_in.metrics


def test_fifo_and_sjf_differ_so_the_comparison_means_something():
    a = clustersim.run(philly(2000, policy="fifo")).jobs
    b = clustersim.run(philly(2000, policy="sjf")).jobs
    assert not a["start_time"].equals(b["start_time"])


def test_step_observe_apply_by_hand_equals_run():
    config = philly(1500, policy="fifo", seed=11)
    sim = clustersim.Simulation(config)
    while sim.step():
        started = sim.apply(fifo(sim.observe()))
        assert all(sim.observe().job_phase[started] != clustersim.PHASES.index("waiting"))
    by_hand = sim.result()
    pd.testing.assert_frame_equal(by_hand.jobs, clustersim.run(config).jobs, check_exact=True)


def test_reset_replays_and_a_seed_changes_the_generated_workload():
    config = philly(800, policy="fifo", seed=3)
    sim = clustersim.Simulation(config)
    first = sim.run(fifo)
    sim.reset()
    again = sim.run(fifo)
    pd.testing.assert_frame_equal(first.jobs, again.jobs, check_exact=True)
    sim.reset(seed=99)
    other = sim.run(fifo)
    assert not other.jobs["submit_time"].equals(first.jobs["submit_time"])
    # As a sweep seeds a point: the same as the built-in FIFO with that seed.
    sim.reset(seed=99)
    assert sim.run(fifo).metrics == other.metrics


def test_explicit_actions_start_stop_and_move_jobs():
    trace_config = {
        "cluster": {"nodes": 2, "gpus_per_node": 4},
        "workload": {"generator": "philly", "jobs": 30, "load": 0.5, "seed": 1, "max_gpus_per_job": 2},
        "metrics": {"steady_state": "off"},  # all 30 jobs measured
    }
    sim = clustersim.Simulation(trace_config)
    assert sim.step()
    obs = sim.observe()
    job = int(obs.waiting[0])
    gpus = int(obs.waiting_gpus[0])
    sim.apply([("start", job, [(0, gpus)])])
    obs = sim.observe()
    assert obs.job_phase[job] == clustersim.PHASES.index("running")
    assert list(obs.grant_node) == [0] and list(obs.grant_gpus) == [gpus]
    assert obs.node_free_gpus[0] == 4 - gpus
    sim.apply([("move", job, [(1, gpus)])])  # started this instant: it just starts there instead
    assert list(sim.observe().grant_node) == [1]
    assert sim.step() and sim.observe().job_phase[job] == clustersim.PHASES.index("running")
    sim.apply([("move", job, [(0, gpus)])])  # now a migration
    assert list(sim.observe().grant_node) == [0]
    sim.apply([("stop", job)])
    assert sim.observe().job_phase[job] == clustersim.PHASES.index("waiting")
    # The rest by FIFO to the end.
    result = sim.run(fifo)
    assert result.metrics["jobs"] == 30
    assert result.jobs["preemptions"][job] == 1
    assert result.jobs["migrations"][job] == 1


def test_a_mixed_config_steps_in_python_as_the_command_runs_it(tmp_path):
    """Training and serving on one cluster: the serving side (a mechanism: queries, its GPU pool,
    preemptions of training) joins a Simulation stepped from Python, which gives `clustersim
    run`'s training records and metrics (serving's included) job by job."""
    serving = tmp_path / "serving.toml"
    serving.write_text(
        "[cluster]\nnodes = 4\ngpus_per_node = 8\ngpu_mem_gb = 16\n\n"
        '[workload]\ngenerator = "query_dag"\nqueries = 1500\nqueries_per_s = 0.5\n'
        'arrival = "mmpp"\nburst_factor = 8\nburst_fraction = 0.1\nburst_mean_s = 60\nseed = 3\n\n'
        '[scheduler]\ntask_placement = "compass"\ncache = "compass"\n'
    )
    config = philly(400, policy="fifo", nodes=4, gpus_per_node=8)
    config["workload"].update(durations="exponential", mean_duration_s=1800, max_gpus_per_job=8)
    config["scheduler"].update(checkpoint_s=30, restore_s=30)
    config["serving"] = {"config": str(serving), "priority": True, "gpus": 2}
    built_in = clustersim.run(config)
    assert built_in.metrics["queries"] == 1500
    assert built_in.metrics["serving_preemptions"] > 0  # serving did take GPUs from training
    mine = clustersim.Simulation(config).run(fifo)
    pd.testing.assert_frame_equal(mine.jobs, built_in.jobs, check_exact=True)
    assert mine.metrics == built_in.metrics


def srtf(obs):
    """Shortest remaining time first (the built-in srtf's key: work left, then submit time, then
    id)."""
    waiting = obs.waiting
    return waiting[np.lexsort((waiting, obs.waiting_submit, obs.waiting_remaining))]


def test_preemption_runs_under_a_python_decider():
    """With scheduler.preemption on, preemption rounds (in scheduler.policy's order) stop running
    jobs under a Python decider too; an SRTF written in Python then gives the built-in SRTF's
    schedule job by job, preemptions included. Without the key the rounds stay the built-in
    decider's: the same Python decider is never interrupted."""
    config = philly(3000, policy="srtf", seed=7)
    config["scheduler"].update(preemption=True, lease_s=600, checkpoint_s=20, restore_s=30)
    built_in = clustersim.run(config)
    assert built_in.metrics["preemptions"] > 100  # the rounds stopped jobs: they mattered
    mine = clustersim.Simulation(config).run(srtf)
    pd.testing.assert_frame_equal(mine.jobs, built_in.jobs, check_exact=True)
    assert mine.metrics == built_in.metrics

    del config["scheduler"]["preemption"]
    unpreempted = clustersim.Simulation(config).run(srtf)
    assert unpreempted.metrics["preemptions"] == 0
    assert clustersim.run(config).metrics["preemptions"] > 0  # the built-in srtf's own default


def test_a_dag_config_steps_in_python_as_the_command_runs_it(tmp_path, clustersim_command):
    """Serving alone (a DAG config: queries of model tasks, no training jobs) runs on a
    Simulation stepped from Python: serving's timers make the decision points, there is nothing
    for a decider to start, and the result is `clustersim run`'s, one row per task and every
    metric, bit for bit; reset() replays it."""
    config = tmp_path / "serving.toml"
    config.write_text(
        "[cluster]\nnodes = 3\ngpus_per_node = 2\ngpu_mem_gb = 16\n\n"
        '[workload]\ngenerator = "query_dag"\nqueries = 600\nqueries_per_s = 2\n'
        'arrival = "mmpp"\nburst_factor = 8\nburst_fraction = 0.1\nburst_mean_s = 60\nseed = 9\n\n'
        '[scheduler]\ntask_placement = "heft"\ncache = "compass"\n\n[metrics]\nquery_slo_s = 3\n'
    )
    built_in = clustersim.run(config)
    assert built_in.metrics["queries"] == 600
    assert built_in.metrics["jobs"] == len(built_in.jobs) > 600  # a row per task

    # The command line agrees with clustersim.run (its --json and --jobs-out, full precision).
    jobs_out = tmp_path / "jobs.csv"
    done = subprocess.run([clustersim_command, "run", str(config), "--json", "--jobs-out", str(jobs_out)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert built_in.metrics == json.loads(done.stdout)
    text = {"job_id": str, "model": str, "vc": str, "status": str}
    csv = pd.read_csv(jobs_out, dtype=text, keep_default_na=False, float_precision="round_trip")
    pd.testing.assert_frame_equal(built_in.jobs, csv, check_exact=True, check_dtype=False)

    sim = clustersim.Simulation(config)
    for replay in range(2):
        points = 0
        while sim.step():
            points += 1
            assert len(sim.observe().waiting) == 0  # no training job to start
        assert points > 600  # at least one per query arrival
        mine = sim.result()
        pd.testing.assert_frame_equal(mine.jobs, built_in.jobs, check_exact=True)
        assert mine.metrics == built_in.metrics
        sim.reset()
    # With a decider (it is never asked to start anything), the same.
    mine = sim.run(fifo)
    pd.testing.assert_frame_equal(mine.jobs, built_in.jobs, check_exact=True)
    assert mine.metrics == built_in.metrics


def fleet_config(jobs, router="least_loaded"):
    """Two clusters in two regions (64 and 32 GPUs) under `router`, the Philly-shaped workload's
    load on all 96 GPUs."""
    config = philly(jobs, policy="fifo")
    del config["cluster"]
    config["fleet"] = {
        "router": router,
        "regions": [{"name": "us", "carbon_g_per_kwh": 250}, {"name": "eu", "carbon_g_per_kwh": 350}],
        "clusters": [
            {"name": "west", "region": "us", "nodes": 8, "gpus_per_node": 8, "nodes_per_rack": 4},
            {"name": "east", "region": "eu", "nodes": 4, "gpus_per_node": 8, "nodes_per_rack": 4},
        ],
        "links": [{"from": "us", "to": "eu", "bandwidth_gbps": 10, "latency_ms": 80}],
    }
    return config


def test_a_fleet_steps_in_python_as_the_command_runs_it():
    """A fleet is one simulation: a Python FIFO over all its waiting jobs gives clustersim.run's
    records, job columns (cluster, migrations_wan) and metrics (the clusters' included), and the
    observation says which cluster each node and each routed job belongs to."""
    config = fleet_config(1500)
    built_in = clustersim.run(config)
    assert built_in.metrics["queue_mean"] > 0  # jobs did wait
    assert 0 < built_in.metrics["east.routed"] < 1500  # both clusters took jobs
    sim = clustersim.Simulation(config)
    assert sim.cluster_names == ["west", "east"]
    checked = 0
    while sim.step():
        obs = sim.observe()
        if checked < 50:  # each running job holds nodes of the cluster it was routed to only
            node_cluster = obs.node_cluster
            assert list(node_cluster) == [0] * 8 + [1] * 4
            for job, node in zip(obs.grant_job, obs.grant_node):
                assert obs.job_cluster[job] == node_cluster[node]
            arrived = obs.job_phase != clustersim.PHASES.index("pending")
            assert (obs.job_cluster[~arrived] == -1).all()
            assert set(obs.job_cluster[arrived]) <= {0, 1}
            checked += 1
        sim.apply(fifo(obs))
    mine = sim.result()
    pd.testing.assert_frame_equal(mine.jobs, built_in.jobs, check_exact=True)
    assert mine.metrics == built_in.metrics
    assert list(mine.jobs["cluster"].unique()) != [0.0]


def test_a_one_cluster_fleet_is_refused_for_stepping_with_the_reason():
    config = fleet_config(10)
    config["fleet"]["clusters"].pop()
    with pytest.raises(clustersim.InputError, match="one cluster"):
        clustersim.Simulation(config)


def test_a_fleet_with_the_rebalancer_is_refused_for_stepping():
    """The rebalancer is a decision mechanism of the built-in decider: a Python decider would
    silently run without it."""
    config = fleet_config(10)
    config["fleet"]["rebalance"] = {"enabled": True}
    with pytest.raises(clustersim.InputError, match="rebalancer"):
        clustersim.Simulation(config)
