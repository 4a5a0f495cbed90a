"""clustersim.env: Gymnasium's conventions without Gymnasium; the environment is the simulation
(picking the oldest job that fits, with a window as deep as the queue, is the built-in FIFO)."""
import math

import numpy as np
import pytest

import clustersim
from clustersim.env import SchedulingEnv, VectorSchedulingEnv
from conftest import philly


def oldest_that_fits(mask):
    return int(np.flatnonzero(mask)[0])


def test_a_fifo_agent_with_a_deep_window_is_the_built_in_fifo():
    config = philly(1500, seed=4)
    env = SchedulingEnv(config, window=2048)
    obs, info = env.reset(seed=17)
    assert obs["jobs"].shape == env.observation_space["jobs"].shape == (2048, len(env.features))
    assert obs["jobs"].dtype == np.float32 and obs["action_mask"].dtype == np.bool_
    total, steps = 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = env.step(oldest_that_fits(obs["action_mask"]))
        total += reward
        steps += 1
        if terminated or truncated:
            break
    assert terminated and not truncated and steps == 1500
    sim = clustersim.Simulation(config)
    sim.reset(seed=17)
    expected = sim.run(lambda o: o.waiting[np.lexsort((o.waiting, o.waiting_submit))])
    assert info["metrics"] == expected.metrics
    # The return is minus the sum of JCTs (hours).
    assert math.isclose(total, -expected.jobs["jct"].sum() / 3600.0, rel_tol=1e-9)
    with pytest.raises(RuntimeError, match="over"):
        env.step(0)


def test_the_mask_and_invalid_actions():
    env = SchedulingEnv(philly(300, seed=1, nodes=4), window=8)
    obs, info = env.reset(seed=3)
    assert obs["action_mask"].any()
    np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
    blocked = np.flatnonzero(~obs["action_mask"])
    with pytest.raises(ValueError, match="not allowed"):
        env.step(int(blocked[0]) if len(blocked) else 8)
    assert env.action_space.n == 8
    rng = np.random.default_rng(0)
    a = env.action_space.sample(mask=obs["action_mask"], rng=rng)
    assert obs["action_mask"][a]


def test_vector_envs_are_deterministic_whatever_the_threads():
    def returns(threads):
        env = VectorSchedulingEnv(philly(400, nodes=4), num_envs=4, window=8, threads=threads,
                                  reward={"jct": 1.0, "utilization": 0.5})
        obs, _ = env.reset(seed=10)
        totals, finals = np.zeros(4), [None] * 4
        rng = np.random.default_rng(1)
        while any(f is None for f in finals):
            actions = [rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]]
            obs, rewards, terminated, truncated, info = env.step(actions)
            for i in range(4):
                if finals[i] is None:
                    totals[i] += rewards[i]
            for i in np.flatnonzero(info.get("_final_info", np.zeros(4, bool))):
                if finals[i] is None:
                    finals[i] = info["final_info"][i]["metrics"]["jct_mean"]
        return totals, finals

    one, two = returns(1), returns(2)
    np.testing.assert_array_equal(one[0], two[0])
    assert one[1] == two[1]
    assert len(set(one[1])) == 4  # four seeds, four different runs


def test_an_error_in_a_threaded_step_is_a_python_exception():
    # An invalid action (or an impossible workload) raised on a worker thread comes back to the
    # caller as the exception, not as a crash of the process.
    env = VectorSchedulingEnv(philly(300, nodes=4), num_envs=4, window=8, threads=2)
    env.reset(seed=5)
    with pytest.raises(ValueError, match="not allowed"):
        env.step([10**6] * 4)
    impossible = VectorSchedulingEnv(philly(300, nodes=1), num_envs=4, window=8, threads=2)
    with pytest.raises(clustersim.InputError, match="can never run"):
        impossible.reset(seed=5)


def test_truncation_and_bad_options():
    env = SchedulingEnv(philly(300, seed=2), window=4, max_steps=10)
    obs, _ = env.reset(seed=0)
    for step in range(10):
        obs, reward, terminated, truncated, info = env.step(oldest_that_fits(obs["action_mask"]))
    assert truncated and not terminated
    with pytest.raises(ValueError, match="unknown feature"):
        SchedulingEnv(philly(10), features=["gpus", "colour"])
    with pytest.raises(ValueError, match="reward"):
        SchedulingEnv(philly(10), reward="happiness")


def test_a_dag_config_is_refused_with_its_reason(tmp_path):
    """A DAG config has no training jobs to start: the environment refuses it with a message that
    says so (the episode's metrics.steady_state override is refused for a DAG workload when the
    config is read; env.cc's own refusal guards a config that reaches it otherwise)."""
    config = tmp_path / "serving.toml"
    config.write_text(
        "[cluster]\nnodes = 2\ngpus_per_node = 2\ngpu_mem_gb = 16\n\n"
        '[workload]\ngenerator = "query_dag"\nqueries = 20\nqueries_per_s = 1\nseed = 1\n'
    )
    with pytest.raises(clustersim.InputError, match="DAG workload"):
        SchedulingEnv(str(config), window=4).reset(seed=0)
