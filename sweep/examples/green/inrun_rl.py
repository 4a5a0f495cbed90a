"""An in-run constrained-RL agent for the green example (issue 42): at every scheduling decision
of the step environment (`clustersim.env.SchedulingEnv`, `wait_action=True`, `forecast_h=4`) it
starts one of the visible jobs or waits, seeing the job window, the cluster and obs["supply"]
(solar, grid cap, battery, carbon intensity and facility power now, solar and carbon 1-4 h on).
It maximises the day's value (minus the mean JCT in hours: the env's "jct" reward / jobs) under a
carbon budget (kg CO2e per day, on the expected carbon of a day) with a PID-Lagrangian multiplier.

The environment's reward has no carbon term, so a step's carbon is derived from what it exposes:
the grid power implied by the supply observation (facility - solar, less what a charged battery
can give) x the carbon intensity, the mean of the step's two ends x the step's duration; each
episode's per-step estimates are then scaled to sum to the run's own `carbon_kg` (its metrics
at the end), so the constraint is on the simulator's carbon and the estimate only spreads it
over the steps.

Policy: a softmax over the allowed actions, linear in features: a job's score from its own
features (GPUs, age, ...), the wait action's from the context (carbon now and its forecast,
solar surplus now and ahead, battery, free GPUs, the oldest visible job's age). Waiting is not
allowed once a visible job has waited 12 h (the green example's defer_max_h), so no job is held
longer than the heuristic deferral may hold it; nor when no GPU is busy after the day's last
arrival (the environment would stall). Trained by REINFORCE with a baseline (the other rollouts
of the same day: their reward-to-go at the same time) and an entropy bonus on the Lagrangian
reward value - lambda x carbon, on 1-20 June 2023, the multiplier's error taken against FIFO-now's
carbon of the same days (a control variate); compared on 21-30 June (held out) with FIFO-now (never
wait), `follow`, carbon-aware deferral (`defer = "lowest"`, 12 h) and lagrangian_rl.py's per-day
policy; the learned policy sampled (4 rollouts a day) and its argmax ("greedy"). The budget is
lagrangian_rl.py's. Deterministic given --seed; numpy only; ~190 s of CPU.

    PYTHONPATH=build/python /usr/bin/python3 sweep/examples/green/inrun_rl.py

Needs ../shared/traces/energy beside the checkout.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WINDOW = 8  # visible jobs; action WINDOW waits
FORECAST_H = 4
DEFER_MAX_H = 12.0  # as the green example's carbon-aware deferral
BATTERY_DISCHARGE_KW = 20.0  # lagrangian_rl.base_config's battery_discharge_w
# obs["supply"] layout (clustersim.env.ENV_SUPPLY_FEATURES, then (solar, carbon) per forecast hour)
SOLAR, GRID_CAP, SOC, CARBON, FACILITY = 0, 1, 2, 3, 4
SUPPLY_NOW = 6
# obs["jobs"] columns (clustersim.env.DEFAULT_FEATURES)
JOB_GPUS, JOB_LOG_GPUS, JOB_AGE, JOB_LOG_AGE, JOB_ATTAINED = range(5)
JOB_DIM, CONTEXT_DIM = 4, 8


def _lagrangian_rl():
    """lagrangian_rl.py beside this file (its base config, days and per-day learner)."""
    spec = importlib.util.spec_from_file_location("lagrangian_rl", os.path.join(HERE, "lagrangian_rl.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def job_features(jobs: np.ndarray) -> np.ndarray:
    """Per visible job: GPUs (/ a node's), log2 GPUs / 3, age / 12 h, log age / 5."""
    return np.column_stack([jobs[:, JOB_GPUS], jobs[:, JOB_LOG_GPUS] / 3.0,
                            jobs[:, JOB_AGE] / DEFER_MAX_H, jobs[:, JOB_LOG_AGE] / 5.0])


def context_features(obs: dict) -> np.ndarray:
    """What the wait action's score sees: a constant; carbon now (/ 0.2 kg/kWh); the forecast's
    least carbon less now's; the solar surplus over the facility now (/ 20 kW) and the forecast's
    best solar less now's (/ 20 kW); the battery's charge; the free GPUs; the oldest visible
    job's age (/ 12 h)."""
    s, jobs = obs["supply"], obs["jobs"]
    solar_ahead = s[SUPPLY_NOW::2][:FORECAST_H]
    carbon_ahead = s[SUPPLY_NOW + 1::2][:FORECAST_H]
    return np.array([1.0, s[CARBON] / 0.2, (carbon_ahead.min() - s[CARBON]) / 0.2,
                     (s[SOLAR] - s[FACILITY]) / 20.0, (solar_ahead.max() - s[SOLAR]) / 20.0,
                     min(1.0, s[SOC]), obs["cluster"][0], jobs[:, JOB_AGE].max() / DEFER_MAX_H])


def allowed(obs: dict, time_s: float, last_arrival_s: float) -> np.ndarray:
    """The env's mask, with waiting taken away, when a job can start, once a visible job has
    waited DEFER_MAX_H, or when no GPU is busy and no job is still to arrive: such a wait has
    no next event and the environment stops ("simulation stalled")."""
    mask = np.asarray(obs["action_mask"], dtype=bool).copy()
    if mask[:WINDOW].any():
        idle = obs["cluster"][0] >= 1.0 and time_s >= last_arrival_s
        if idle or obs["jobs"][:, JOB_AGE].max() >= DEFER_MAX_H:
            mask[WINDOW] = False
    return mask


def action_features(obs: dict) -> np.ndarray:
    """One row per action: a job's features in the job part, the context in the wait row's."""
    phi = np.zeros((WINDOW + 1, JOB_DIM + CONTEXT_DIM))
    phi[:WINDOW, :JOB_DIM] = job_features(obs["jobs"])
    phi[WINDOW, JOB_DIM:] = context_features(obs)
    return phi


def probabilities(phi: np.ndarray, mask: np.ndarray, theta: np.ndarray) -> np.ndarray:
    logits = np.where(mask, phi @ theta, -np.inf)
    p = np.exp(logits - logits.max())
    return p / p.sum()


def initial_theta() -> np.ndarray:
    """Oldest job first (FIFO-like: +age) and waiting seldom (bias -2: p(wait) ~ 12% against one
    startable job), so training starts near FIFO-now and still tries waiting."""
    theta = np.zeros(JOB_DIM + CONTEXT_DIM)
    theta[2] = 2.0
    theta[JOB_DIM] = -2.0
    return theta


def grid_carbon_rate(supply: np.ndarray) -> float:
    """kg CO2e an hour the grid's draw implied by the supply observation: the facility's power
    not met by solar, less what a charged battery can give, x the grid's intensity."""
    deficit = max(0.0, float(supply[FACILITY] - supply[SOLAR]))
    if supply[SOC] > 0.0:
        deficit = max(0.0, deficit - BATTERY_DISCHARGE_KW)
    return deficit * float(supply[CARBON])


def rollout(env, seed: int, theta: np.ndarray, rng, *, greedy=False, policy=None):
    """One episode (a day). With `policy` (obs, mask -> action) a fixed rule acts; otherwise the
    softmax (sampled, or its argmax when greedy). Returns per-step times, value rewards
    (-JCT h / jobs), carbon (kg, scaled to the run's carbon_kg), score gradients, and the
    metrics."""
    obs, info = env.reset(seed=seed)
    times, values, rates, grads = [], [], [], []
    waits, entropy_grad = 0, 0.0
    while True:
        mask = allowed(obs, info["time"], env.last_arrival_s)
        if policy is not None:
            action = policy(obs, mask)
            grad = None
        else:
            phi = action_features(obs)
            p = probabilities(phi, mask, theta)
            action = int(p.argmax()) if greedy else int(rng.choice(len(p), p=p))
            mean_phi = p @ phi
            grad = phi[action] - mean_phi  # d log p(action) / d theta
            logp = np.log(p, where=p > 0, out=np.zeros_like(p))
            entropy_grad -= (p * logp) @ (phi - mean_phi)  # d entropy / d theta
        assert mask[action], "the policy took an action the mask forbids"
        rate_before, t0 = grid_carbon_rate(obs["supply"]), info["time"]
        obs, reward, terminated, truncated, info = env.step(action)
        times.append(t0)
        values.append(reward)
        dt_h = (info["time"] - t0) / 3600.0
        rates.append(0.5 * (rate_before + grid_carbon_rate(obs["supply"])) * dt_h)
        waits += action == WINDOW and mask[:WINDOW].any()  # a chosen wait, not a forced one
        grads.append(grad)
        if terminated or truncated:
            break
    metrics = info["metrics"]
    jobs = metrics["jobs"]
    rates = np.array(rates)
    carbon = rates * (metrics["carbon_kg"] / rates.sum()) if rates.sum() > 0 else rates
    metrics = dict(metrics, waits=waits, entropy_grad=entropy_grad)
    return np.array(times), np.array(values) / jobs, carbon, grads, metrics


def reward_to_go(rewards: np.ndarray) -> np.ndarray:
    return np.cumsum(rewards[::-1])[::-1]


def baselines(times_k, togo_k):
    """For each rollout of a day, at each of its steps: the mean over the day's other rollouts
    of their reward-to-go from the same time (a baseline independent of the rollout's actions)."""
    out = []
    for k, times in enumerate(times_k):
        others = [j for j in range(len(times_k)) if j != k]
        b = np.zeros(len(times))
        for j in others:
            idx = np.minimum(np.searchsorted(times_k[j], times), len(times_k[j]) - 1)
            b += togo_k[j][idx]
        out.append(b / max(1, len(others)))
    return out


class PIDLagrangian:
    """lambda = max(0, kp x error + integral), integral += ki x error, clipped at 0 (Stooke,
    Achiam, Abbeel 2020); error = the batch's estimate of a day's expected carbon - budget (kg).
    kp damps the oscillation plain dual ascent (kp = 0) shows."""

    def __init__(self, budget: float, kp: float, ki: float):
        self.budget, self.kp, self.ki, self.integral, self.value = budget, kp, ki, 0.0, 0.0

    def update(self, carbon_kg: float) -> float:
        error = carbon_kg - self.budget
        self.integral = max(0.0, self.integral + self.ki * error)
        self.value = max(0.0, self.kp * error + self.integral)
        return self.value


def train(envs, seeds, budget, *, iterations=200, days_per_batch=4, rollouts=4, lr=0.1,
          kp=0.1, ki=0.05, entropy=0.0, seed=0, reference=None, log=None):
    """REINFORCE (Adam steps) on value - lambda x carbon with the PID-Lagrangian multiplier.
    envs/seeds: the training days. reference: a fixed policy's carbon by day (kg), a control
    variate for the multiplier's error: a day's carbon depends far more on its workload (12-40 kg)
    than on the policy, so the batch's mean carbon less its days' reference plus the reference's
    mean over all days estimates E[carbon] with the same mean and much less noise than the
    batch's mean. entropy: the weight of the policy's entropy (summed over a day's steps) in the
    objective, which keeps the softmax from saturating. Returns theta, the multiplier and its
    history."""
    rng = np.random.default_rng(seed)
    theta = initial_theta()
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    lam = PIDLagrangian(budget, kp, ki)
    history = []
    for it in range(iterations):
        grad_sum, carbons, values, waits, count = np.zeros_like(theta), [], [], [], 0
        batch = rng.choice(len(envs), size=days_per_batch, replace=False)
        for d in batch:
            runs = [rollout(envs[d], seeds[d], theta, rng) for _ in range(rollouts)]
            togo = [reward_to_go(step_values - lam.value * step_carbon)
                    for _, step_values, step_carbon, _, _ in runs]
            base = baselines([r[0] for r in runs], togo)
            for (_, _, _, grads, metrics), g, b in zip(runs, togo, base):
                for grad, advantage in zip(grads, g - b):
                    grad_sum += advantage * grad
                grad_sum += entropy * metrics["entropy_grad"]
                count += 1
                carbons.append(metrics["carbon_kg"])
                values.append(-metrics["jct_mean"] / 3600.0)
                waits.append(metrics["waits"])
        grad = grad_sum / count
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        theta += lr * (m / (1 - 0.9 ** (it + 1))) / (np.sqrt(v / (1 - 0.999 ** (it + 1))) + 1e-8)
        expected = float(np.mean(carbons))
        if reference is not None:
            expected += float(np.mean(reference) - np.mean(np.asarray(reference)[batch]))
        lam.update(expected)
        history.append((expected, lam.value))
        if log and (it + 1) % 25 == 0:
            log(f"  iteration {it + 1}: value {np.mean(values):.2f} h, carbon {expected:.2f} kg/day, "
                f"chosen waits {np.mean(waits):.1f}/day, lambda {lam.value:.3f} h/kg")
    return theta, lam.value, history


def fifo_now(obs, mask):
    """Start the oldest startable visible job; wait only when none can start."""
    return int(np.flatnonzero(mask)[0])


def by_day(envs, seeds, theta, *, policy=None, greedy=False, samples=4, seed=1):
    """Value (-JCT h) and carbon (kg) by day; stochastic policies averaged over `samples`
    rollouts a day."""
    rng = np.random.default_rng(seed)
    reps = 1 if (policy is not None or greedy) else samples
    value, carbon = np.zeros(len(envs)), np.zeros(len(envs))
    for i, (env, s) in enumerate(zip(envs, seeds)):
        for _ in range(reps):
            metrics = rollout(env, s, theta, rng, greedy=greedy, policy=policy)[4]
            value[i] -= metrics["jct_mean"] / 3600.0 / reps
            carbon[i] += metrics["carbon_kg"] / reps
    return value, carbon


def evaluate(envs, seeds, theta, budget, **kwargs):
    """Mean value (-JCT h), carbon kg/day, violation (mean carbon over budget) and the share of
    days over it."""
    value, carbon = by_day(envs, seeds, theta, **kwargs)
    over = float((carbon > budget + 1e-9).mean())
    return value.mean(), carbon.mean(), max(0.0, carbon.mean() - budget), over


def make_envs(rl, days):
    """One environment a day, each knowing its workload's last arrival (see allowed())."""
    import clustersim
    from clustersim.env import SchedulingEnv

    envs = []
    for d in days:
        env = SchedulingEnv(rl.base_config(d), window=WINDOW, wait_action=True, forecast_h=FORECAST_H,
                            reward="jct")
        env.last_arrival_s = float(clustersim.run(rl.base_config(d), seed=d).jobs["submit_time"].max())
        envs.append(env)
    return envs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-days", type=int, default=20)
    parser.add_argument("--test-days", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rl = _lagrangian_rl()
    if not os.path.isdir(rl.ENERGY):
        print(f"skip: no {rl.ENERGY}")
        return 0
    import clustersim

    warnings.simplefilter("ignore", clustersim.MetricWarning)
    start = time.process_time()
    train_days = list(range(rl.JUNE_1, rl.JUNE_1 + args.train_days))
    test_days = list(range(rl.JUNE_1 + args.train_days, rl.JUNE_1 + args.train_days + args.test_days))
    # The heuristics (and the per-day learner's table) by day: none, follow, defer 6 h, defer 12 h.
    v_train, c_train = rl.outcomes(train_days)
    v_test, c_test = rl.outcomes(test_days)
    budget = 0.95 * float(c_train[:, 0].mean())  # as lagrangian_rl.py
    train_envs, test_envs = make_envs(rl, train_days), make_envs(rl, test_days)
    print(f"budget {budget:.2f} kg CO2e a day (expected); training on {len(train_days)} days")
    reference = by_day(train_envs, train_days, None, policy=fifo_now)[1]
    theta, lam, _ = train(train_envs, train_days, budget, iterations=args.iterations, seed=args.seed,
                          reference=reference, entropy=0.01, log=print)
    f_train = np.array([rl.day_features(d) for d in train_days])
    f_test = np.array([rl.day_features(d) for d in test_days])
    day_weights, _ = rl.train(f_train, v_train, c_train, budget)
    per_day = rl.policy(f_test, day_weights)
    print(f"lambda after training {lam:.3f} h/kg; theta {np.round(theta, 2).tolist()}")
    print(f"held-out days {test_days[0] - rl.JUNE_1 + 1}..{test_days[-1] - rl.JUNE_1 + 1} June:")
    print("  policy              value (-JCT h)  carbon kg/day  violation kg  days over")
    rows = []
    for a, name in [(0, "none (run)"), (1, "follow"), (3, "defer 12 h")]:
        rows.append((name, rl.evaluate(np.eye(4)[[a] * len(test_days)], v_test, c_test, budget)))
    rows.append(("per-day learned", rl.evaluate(per_day, v_test, c_test, budget)))
    rows.append(("FIFO-now (env)", evaluate(test_envs, test_days, theta, budget, policy=fifo_now)))
    rows.append(("in-run learned", evaluate(test_envs, test_days, theta, budget)))
    rows.append(("in-run greedy", evaluate(test_envs, test_days, theta, budget, greedy=True)))
    for name, (v, c, over, share) in rows:
        print(f"  {name:18s} {v:14.3f} {c:14.2f} {over:13.3f} {share:10.2f}")
    print("training days 1..20 June (where the budget binds):")
    for name, kwargs in [("FIFO-now (env)", {"policy": fifo_now}), ("in-run learned", {}),
                         ("in-run greedy", {"greedy": True})]:
        v, c, over, share = evaluate(train_envs, train_days, theta, budget, **kwargs)
        print(f"  {name:18s} {v:14.3f} {c:14.2f} {over:13.3f} {share:10.2f}")
    print(f"(training days: {np.mean(c_train[:, 0]):.2f} kg/day without a policy; "
          f"CPU {time.process_time() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
