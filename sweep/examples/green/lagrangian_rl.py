"""A constrained learned policy for the green example (issue 42): each day, choose how capacity
meets supply (none / follow / defer), maximising the day's value (minus the jobs' delay: mean
JCT in hours) under a carbon budget (kg CO2e per day), with a Lagrangian multiplier.

The decision is one per day (a contextual bandit: one-step RL), taken from what a forecast of the
day gives: its mean grid carbon intensity, the intensity's spread, and its solar irradiance. The
policy is a softmax over the actions, linear in those features, trained by REINFORCE with a
baseline on the Lagrangian reward  -JCT_h - lambda x (carbon_kg - budget); lambda rises by dual
ascent while the budget is exceeded (lambda <- max(0, lambda + eta x (carbon - budget))). Each
(day, action) is one deterministic simulation (`clustersim.run`, the day's seed), computed once
and cached, so training draws from that table. Trained on 1-20 June 2023, compared with each
fixed heuristic on 21-30 June (held out): value (minus mean JCT) and constraint violation.

    PYTHONPATH=build/python /usr/bin/python3 sweep/examples/green/lagrangian_rl.py

Needs ../shared/traces/energy beside the checkout (numpy only; no torch).
"""
from __future__ import annotations

import argparse
import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ENERGY = os.path.normpath(os.path.join(HERE, "../../../../shared/traces/energy"))
CARBON = os.path.join(ENERGY, "electricitymaps_US-CAL-CISO_2023_hourly.csv")
SOLAR = os.path.join(ENERGY, "nsrdb_psm4_40.53N_108.54W_2023_30min.csv")
JUNE_1 = 151  # day of 2023 (0-based)

# The actions: overrides of the base config.
ACTIONS = {
    "none": {},
    "follow": {"supply.follow": True},
    "defer_6h": {"supply.defer": "lowest", "supply.defer_max_h": 6},
    "defer_12h": {"supply.defer": "lowest", "supply.defer_max_h": 12},
}


def base_config(day: int) -> dict:
    """4 nodes x 8 A100, ~a day of Philly-shaped jobs, 60 kW of solar, a 100 kWh battery, a
    16 kW grid cap; the traces start at `day` (of 2023)."""
    return {
        "cluster": {"nodes": 4, "gpus_per_node": 8, "gpu_type": "A100"},
        "workload": {"generator": "philly", "jobs": 100, "load": 0.6, "max_gpus_per_job": 8,
                     "max_duration_s": 43200, "arrival_pattern": "diurnal"},
        "scheduler": {"policy": "fifo", "backfill": True},
        "power": {"enabled": True},
        "supply": {"carbon_trace": CARBON, "solar_trace": SOLAR, "start_h": 24 * day,
                   "grid_cap_w": 16000, "solar_capacity_w": 60000, "battery_kwh": 100,
                   "battery_charge_w": 20000, "battery_discharge_w": 20000},
        "metrics": {"steady_state": "off"},
    }


def day_features(day: int) -> np.ndarray:
    """The forecast the policy sees: the day's mean carbon intensity (/ 300 g/kWh), its spread
    ((max - min) / mean) and its irradiance (mean GHI / 300 W/m2), plus a constant."""
    carbon = _column(CARBON, "Carbon Intensity gCO₂eq/kWh (direct)")[24 * day:24 * day + 24]
    ghi = _column(SOLAR, "ghi_w_m2")[48 * day:48 * day + 48]
    return np.array([carbon.mean() / 300.0, (carbon.max() - carbon.min()) / carbon.mean(),
                     ghi.mean() / 300.0, 1.0])


_columns: dict = {}


def _column(path: str, name: str) -> np.ndarray:
    if (path, name) not in _columns:
        with open(path, newline="", encoding="utf-8") as f:
            _columns[(path, name)] = np.array([float(row[name]) for row in csv.DictReader(f)])
    return _columns[(path, name)]


def outcomes(days) -> tuple[np.ndarray, np.ndarray]:
    """(value, carbon) by day and action: value = -mean JCT (h), carbon in kg."""
    import warnings

    import clustersim

    # The runs' notes on what jct_p99 measures are beside the point here.
    warnings.simplefilter("ignore", clustersim.MetricWarning)
    value = np.zeros((len(days), len(ACTIONS)))
    carbon = np.zeros_like(value)
    for i, day in enumerate(days):
        for a, overrides in enumerate(ACTIONS.values()):
            m = clustersim.run(base_config(day), set=overrides, seed=day).metrics
            value[i, a] = -m["jct_mean"] / 3600.0
            carbon[i, a] = m["carbon_kg"]
    return value, carbon


def policy(features, weights):
    """The softmax policy's action probabilities, by day."""
    logits = features @ weights
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def train(features, value, carbon, budget, *, epochs=3000, batch=16, lr=0.1, lr_lambda=0.05,
          seed=0):
    """REINFORCE on the Lagrangian reward value - lambda x (carbon - budget), a batch of days at
    a time, with dual ascent on lambda against the batch's mean carbon (the constraint is on the
    expected carbon of a day: E[carbon] <= budget). Returns the weights and the final lambda."""
    rng = np.random.default_rng(seed)
    days, actions = value.shape
    weights = np.zeros((features.shape[1], actions))
    lam = 0.0
    for _ in range(epochs):
        d = rng.integers(days, size=batch)
        p = policy(features[d], weights)
        a = np.array([rng.choice(actions, p=row) for row in p])
        reward = value[d, a] - lam * (carbon[d, a] - budget)
        advantage = reward - reward.mean()
        grad = -p
        grad[np.arange(batch), a] += 1.0
        weights += lr * features[d].T @ (advantage[:, None] * grad) / batch
        lam = max(0.0, lam + lr_lambda * (carbon[d, a].mean() - budget))
    return weights, lam


def evaluate(probabilities, value, carbon, budget):
    """For a policy's action probabilities by day: the mean value and carbon a day, the
    violation (mean carbon over the budget, kg) and the share of days expected over it."""
    v = (probabilities * value).sum(axis=1)
    c = (probabilities * carbon).sum(axis=1)
    return v.mean(), c.mean(), max(0.0, c.mean() - budget), float((c > budget + 1e-9).mean())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-days", type=int, default=20)
    parser.add_argument("--test-days", type=int, default=10)
    args = parser.parse_args()
    if not os.path.isdir(ENERGY):
        print(f"skip: no {ENERGY}")
        return 0
    train_days = list(range(JUNE_1, JUNE_1 + args.train_days))
    test_days = list(range(JUNE_1 + args.train_days, JUNE_1 + args.train_days + args.test_days))
    v_train, c_train = outcomes(train_days)
    v_test, c_test = outcomes(test_days)
    f_train = np.array([day_features(d) for d in train_days])
    f_test = np.array([day_features(d) for d in test_days])
    # The budget: 95% of the mean carbon of a training day without a policy.
    budget = 0.95 * float(c_train[:, 0].mean())
    weights, lam = train(f_train, v_train, c_train, budget)
    names = list(ACTIONS)
    eye = np.eye(len(names))
    learned = policy(f_test, weights)
    print(f"budget {budget:.2f} kg CO2e a day (expected); lambda after training {lam:.3f} h/kg")
    print(f"held-out days {test_days[0] - JUNE_1 + 1}..{test_days[-1] - JUNE_1 + 1} June:")
    print("  policy        value (-JCT h)  carbon kg/day  violation kg  days over")
    rows = [(name, np.tile(eye[a], (len(test_days), 1))) for a, name in enumerate(names)]
    rows.append(("learned", learned))
    rows.append(("learned/argmax", eye[learned.argmax(axis=1)]))
    for name, probabilities in rows:
        v, c, over, share = evaluate(probabilities, v_test, c_test, budget)
        print(f"  {name:14s} {v:14.3f} {c:14.2f} {over:13.3f} {share:10.2f}")
    print("learned probabilities (mean over held-out days):",
          dict(zip(names, np.round(learned.mean(axis=0), 3))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
