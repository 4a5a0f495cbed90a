"""Smoke test of sweep/examples/green/inrun_rl.py (the in-run constrained agent), on a
hand-computed three-job run (no ../shared, < 1 s): the PID multiplier's arithmetic, the mask the
agent acts under, that every action it takes is allowed, that a day's per-step carbon adds up to
the run's carbon_kg, and that a budget every run breaks raises the multiplier."""
import importlib.util
import math
import os

import numpy as np

from clustersim.env import SchedulingEnv

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _example():
    path = os.path.join(ROOT, "sweep", "examples", "green", "inrun_rl.py")
    spec = importlib.util.spec_from_file_location("inrun_rl", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(rl, tmp_path):
    """test_green_env.py's run: 1 node of 2 A100s (idle facility 220 W, each busy GPU 340 W
    more), PUE 1, a constant 300 g/kWh, no solar; jobs a, b (1 GPU, 1 h) at 0, c at 100 s."""
    trace = tmp_path / "trace.csv"
    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,1,3600\nb,0,1,3600\nc,100,1,3600\n")
    config = {
        "cluster": {"nodes": 1, "gpus_per_node": 2, "gpu_type": "A100"},
        "workload": {"trace": str(trace)},
        "power": {"enabled": True, "node_base_w": 100.0, "pue": 1.0, "intensity": 1.0},
        "supply": {"carbon_g_per_kwh": 300.0, "grid_cap_w": 5000.0},
        "metrics": {"sample_interval_s": 0},
    }
    env = SchedulingEnv(config, window=rl.WINDOW, wait_action=True, forecast_h=rl.FORECAST_H, reward="jct")
    env.last_arrival_s = 100.0
    return env


def test_pid_multiplier_hand_computed():
    rl = _example()
    lam = rl.PIDLagrangian(budget=10.0, kp=0.1, ki=0.05)
    # Over by 2: integral 0.05 x 2 = 0.1, lambda 0.1 x 2 + 0.1 = 0.3.
    assert math.isclose(lam.update(12.0), 0.3)
    # Under by 2: the integral falls back to 0 and the proportional term is negative: 0.
    assert lam.update(8.0) == 0.0 and lam.integral == 0.0


def test_mask_allows_waiting_only_within_the_slack():
    rl = _example()
    jobs = np.zeros((rl.WINDOW, 5), dtype=np.float32)
    mask = np.zeros(rl.WINDOW + 1, dtype=bool)
    mask[[0, rl.WINDOW]] = True
    obs = {"jobs": jobs, "action_mask": mask, "cluster": np.array([0.5, 0.1, 0.0])}
    assert rl.allowed(obs, 0.0, 100.0)[rl.WINDOW]
    jobs[0, rl.JOB_AGE] = rl.DEFER_MAX_H  # waited 12 h: it must start
    assert not rl.allowed(obs, 0.0, 100.0)[rl.WINDOW]
    jobs[0, rl.JOB_AGE] = 0.0
    obs["cluster"][0] = 1.0  # nothing runs and nothing is to arrive: a wait would never end
    assert not rl.allowed(obs, 200.0, 100.0)[rl.WINDOW] and rl.allowed(obs, 50.0, 100.0)[rl.WINDOW]
    mask[0] = False  # nothing can start: waiting stays
    assert rl.allowed(obs, 200.0, 100.0)[rl.WINDOW]


def test_carbon_adds_up_and_an_unmeetable_budget_raises_lambda(tmp_path):
    rl = _example()
    env = _env(rl, tmp_path)
    # FIFO-now: a and b run 0..3600 (0.9 kW), c 3600..7200 (0.56 kW), all from the grid at
    # 0.3 kg/kWh: (0.9 + 0.56) x 0.3 = 0.438 kg, spread over the steps.
    times, values, carbon, _, metrics = rl.rollout(env, 1, None, None, policy=rl.fifo_now)
    assert math.isclose(metrics["carbon_kg"], 0.438, rel_tol=1e-9)
    assert math.isclose(carbon.sum(), 0.438, rel_tol=1e-9) and (carbon >= 0).all()
    assert math.isclose(values.sum(), -metrics["jct_mean"] / 3600.0, rel_tol=1e-9)
    # Training: rollout() asserts that every sampled action is allowed by the mask; a budget
    # of 0 kg is broken by every run, so the multiplier rises at every iteration.
    theta, lam, history = rl.train([env], [1], budget=0.0, iterations=3, days_per_batch=1, rollouts=2,
                                  entropy=0.01)
    assert np.all(np.isfinite(theta))
    lambdas = [h[1] for h in history]
    assert lambdas[0] > 0.0 and lambdas[0] < lambdas[1] < lambdas[2] == lam
