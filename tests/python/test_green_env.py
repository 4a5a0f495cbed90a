"""clustersim.env with [power] and [supply]: the supply observation (with a forecast from the
traces), the wait action and a value reward, on a hand-computed run (< 0.1 s)."""
import math

import numpy as np
import pytest

from clustersim.env import ENV_SUPPLY_FEATURES, SchedulingEnv


def green_config(tmp_path):
    """One node of 2 A100s (idle 60 W, peak 400 W), base 100 W, PUE 1: the idle facility draws
    100 + 2 x 60 = 220 W, each busy GPU 340 W more. a and b (1 GPU, 1 h) arrive at 0, c at 100 s.
    Values: a 5 (deadline 2 h), b 1 (none), c 2 (deadline 1 h)."""
    trace = tmp_path / "trace.csv"
    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,1,3600\nb,0,1,3600\nc,100,1,3600\n")
    values = tmp_path / "values.csv"
    values.write_text("job_id,value,deadline_s\na,5,7200\nb,1,0\nc,2,3600\n")
    return {
        "cluster": {"nodes": 1, "gpus_per_node": 2, "gpu_type": "A100"},
        "workload": {"trace": str(trace)},
        "power": {"enabled": True, "node_base_w": 100.0, "pue": 1.0, "intensity": 1.0},
        "supply": {"carbon_g_per_kwh": 300.0, "grid_cap_w": 5000.0, "job_values": str(values)},
        "metrics": {"sample_interval_s": 0},  # no sampling ticks: the run ends at its last finish
    }


def test_supply_observation_wait_action_and_value_reward(tmp_path):
    env = SchedulingEnv(green_config(tmp_path), window=4, wait_action=True, forecast_h=2,
                        reward={"value": 1.0, "jct": 0.0})
    assert env.action_space.n == 5 and env.observation_space["action_mask"].shape == (5,)
    assert env.observation_space["supply"].shape == (len(ENV_SUPPLY_FEATURES) + 4,)
    obs, info = env.reset(seed=1)
    # No solar; grid cap 5 kW; no battery; 0.3 kg/kWh; the idle facility 0.22 kW; uncapped;
    # the forecast (solar, carbon) at +1 h and +2 h: constant.
    np.testing.assert_allclose(obs["supply"], [0, 5, 0, 0.3, 0.22, 1, 0, 0.3, 0, 0.3], rtol=1e-6)
    assert obs["action_mask"][4] and info["time"] == 0.0
    # Wait: nothing starts; the run goes on to c's arrival at 100 s.
    obs, reward, terminated, _, info = env.step(4)
    assert info["time"] == 100.0 and reward == 0.0 and not terminated
    assert math.isclose(obs["supply"][4], 0.22, rel_tol=1e-6)
    # Start the two oldest (a, b): the facility draws 0.22 + 2 x 0.34 = 0.9 kW.
    obs, reward, *_ = env.step(0)
    obs, reward, _, _, info = env.step(0)
    # a and b finish at 3700 s, in time: value 5 + 1; c starts then and finishes at 7300 s,
    # 7200 s after its arrival, past its 1 h deadline: no value.
    assert info["time"] == 3700.0 and reward == 6.0
    obs, reward, terminated, _, info = env.step(0)
    assert terminated and reward == 0.0 and info["time"] == 7300.0
    assert info["metrics"]["value_obtained"] == 6.0 and info["metrics"]["deadline_misses"] == 1
    # The facility's energy, metered from the first start: 0.9 kW for 3600 s, 0.56 kW for 3600 s.
    kwh = (900 * 3600 + 560 * 3600) / 3.6e6
    assert math.isclose(info["metrics"]["energy_kwh"], kwh, rel_tol=1e-12)


def test_without_power_nothing_changes_and_a_value_reward_needs_values(tmp_path):
    config = green_config(tmp_path)
    del config["power"], config["supply"]
    env = SchedulingEnv(config, window=4)
    obs, _ = env.reset(seed=1)
    assert "supply" not in obs and env.action_space.n == 4
    with pytest.raises(ValueError, match="forecast_h"):
        SchedulingEnv(config, window=4, forecast_h=1)
    with pytest.raises(ValueError, match="job_values"):
        SchedulingEnv(config, window=4, reward="value")
