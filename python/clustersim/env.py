"""Environments for learned schedulers, with Gymnasium's conventions and no Gymnasium dependency.

An episode is one simulation run. At each step the agent picks which of the `window` oldest
waiting jobs starts next (Discrete(window) action; the action mask says which can start now,
placed by the configured allocation mechanism); the environment then stays at the same instant
while a visible job can still start, and otherwise runs the simulation on to the next decision
point at which one can. The reward is what that time cost: by default minus the jobs in the
system x the hours that passed (an episode's return is minus the sum of JCTs, in hours).

Green datacenters ([power], [supply]): with [power] on, the observation has a "supply" array
(ENV_SUPPLY_FEATURES: solar and facility power, the grid's cap, the battery's charge, the grid's
carbon intensity, supply following's cap level; with forecast_h = H, then solar and carbon
intensity 1..H hours on, read from the traces). reward={"value": 1, "jct": 0.1} is the value of
the jobs finished within their deadline ([supply] job_values) minus a delay cost. wait_action=True
adds action `window` (always allowed): start nothing now and let the run go on to its next event.

    env = clustersim.env.SchedulingEnv("config.toml")
    obs, info = env.reset(seed=1)
    while True:
        action = int(np.flatnonzero(obs["action_mask"])[0])      # FIFO among the visible jobs
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    info["metrics"]["jct_mean"]

VectorSchedulingEnv steps N such simulations together in C++ threads (autoreset as Gymnasium's
vector environments do).
"""
from __future__ import annotations

import os

import numpy as np

from . import _core
from ._api import _config, _overrides

#: Per-job features (name, meaning) a window slot can carry; ENV_CLUSTER_FEATURES: the
#: cluster's ("cluster" observation); ENV_SUPPLY_FEATURES: the supply's ("supply", [power] on;
#: forecast pairs follow them).
ENV_FEATURES = [tuple(f) for f in _core.ENV_FEATURES]
ENV_CLUSTER_FEATURES = list(_core.ENV_CLUSTER_FEATURES)
ENV_SUPPLY_FEATURES = list(_core.ENV_SUPPLY_FEATURES)
#: What an agent sees of each job by default (no oracle: durations are not among them).
DEFAULT_FEATURES = ("gpus", "log_gpus", "age", "log_age", "attained")


class Box:
    """Real arrays of one shape and dtype (Gymnasium's Box)."""

    def __init__(self, low, high, shape, dtype):
        self.low, self.high, self.shape, self.dtype = low, high, tuple(shape), np.dtype(dtype)

    def __repr__(self):
        return f"Box({self.low}, {self.high}, {self.shape}, {self.dtype})"


class Discrete:
    """An integer in [0, n) (Gymnasium's Discrete)."""

    def __init__(self, n):
        self.n, self.shape, self.dtype = int(n), (), np.dtype(np.int64)

    def sample(self, mask=None, rng=None):
        rng = rng or np.random.default_rng()
        choices = np.arange(self.n) if mask is None else np.flatnonzero(mask)
        return int(rng.choice(choices)) if len(choices) else 0

    def __repr__(self):
        return f"Discrete({self.n})"


class MultiDiscrete:
    """One Discrete(n) per environment (a vector environment's action space)."""

    def __init__(self, n, count):
        self.nvec, self.shape, self.dtype = np.full(count, n, dtype=np.int64), (count,), np.dtype(np.int64)

    def __repr__(self):
        return f"MultiDiscrete({self.nvec.tolist()})"


class Dict(dict):
    """Named spaces (Gymnasium's Dict)."""

    @property
    def spaces(self):
        return self


def _reward_weights(reward) -> dict:
    if isinstance(reward, str):
        return {reward: 1.0}
    return {str(k): float(v) for k, v in dict(reward).items()}


def _episode_config(config, set_):
    """An episode is one whole run: unless `set` names metrics.steady_state, it is "off" (every
    job measured, no planned window), as a steady-state window cannot act on an episode."""
    if isinstance(config, _core.Config):
        return _config(config, set_)
    overrides = _overrides(set_)
    if not any(o.replace(" ", "").startswith("metrics.steady_state=") for o in overrides):
        overrides.append('metrics.steady_state="off"')
    return _config(config, overrides)


class VectorSchedulingEnv:
    """`num_envs` SchedulingEnv simulations stepped together in C++ threads.

    reset(seed) seeds environment i with seed + i, or with seed[i] given a list (its k-th next
    episode with that + k * num_envs): the workload (if generated) and the run's randomness, as a sweep's
    seed does. step(actions) takes one action per environment; an environment whose episode
    ends is reset at once (autoreset) and its last episode's metrics are in
    info["final_info"][i]["metrics"] (info["_final_info"][i] is True).
    """

    metadata = {"render_modes": []}

    def __init__(self, config=None, set=None, *, num_envs: int = 8, window: int = 16,  # noqa: A002
                 features=DEFAULT_FEATURES, reward="jct", max_steps: int = 0, threads: int | None = None,
                 autoreset: bool = True, wait_action: bool = False, forecast_h: int = 0):
        threads = threads or min(num_envs, os.cpu_count() or 1)
        self._batch = _core.EnvBatch(_episode_config(config, set), num_envs, window, list(features),
                                     _reward_weights(reward), max_steps, threads, autoreset,
                                     bool(wait_action), int(forecast_h))
        self.num_envs, self.window, self.features = num_envs, window, tuple(features)
        f, actions = len(self.features), self._batch.actions
        spaces = dict(
            jobs=Box(-np.inf, np.inf, (window, f), np.float32),
            cluster=Box(-np.inf, np.inf, (len(ENV_CLUSTER_FEATURES),), np.float32),
            action_mask=Box(0, 1, (actions,), np.bool_),
        )
        if self._batch.supply_width:
            spaces["supply"] = Box(-np.inf, np.inf, (self._batch.supply_width,), np.float32)
        self.single_observation_space = Dict(spaces)
        self.observation_space = Dict({k: Box(s.low, s.high, (num_envs,) + s.shape, s.dtype)
                                       for k, s in self.single_observation_space.items()})
        self.single_action_space = Discrete(actions)
        self.action_space = MultiDiscrete(actions, num_envs)
        self._next_seed = 0

    def _obs(self, raw):
        jobs, cluster, mask, time = raw[:4]
        obs = {"jobs": jobs, "cluster": cluster, "action_mask": mask}
        if len(raw) > 4:
            obs["supply"] = raw[4]
        return obs, {"action_mask": mask, "time": time}

    def reset(self, *, seed=None, options=None):
        """seed: an int (environment i runs seed + i) or one seed per environment; None: the
        seeds after the last reset's."""
        if seed is None:
            seed = self._next_seed
        seeds = [int(seed) + i for i in range(self.num_envs)] if np.ndim(seed) == 0 else [int(s) for s in seed]
        self._next_seed = max(seeds) + 1
        return self._obs(self._batch.reset(seeds))

    def step(self, actions):
        raw, rewards, terminated, truncated, finals = self._batch.step(np.asarray(actions, dtype=np.int64))
        obs, info = self._obs(raw)
        ended = np.array([f is not None for f in finals])
        if ended.any():
            info["final_info"] = np.array(finals, dtype=object)
            info["_final_info"] = ended
        return obs, rewards, terminated, truncated, info

    def close(self):
        self._batch = None


class SchedulingEnv:
    """One simulation as an environment (see the module's docstring).

    config, set: as clustersim.run. window: how many of the oldest waiting jobs the agent sees
    (the action picks one). features: per-job features (ENV_FEATURES; DEFAULT_FEATURES has no
    oracle). reward: "jct" (minus jobs in the system x hours), "slowdown" (minus the growth of the
    jobs' slowdowns), "utilization" (busy GPU fraction x hours), or a dict of weights of these.
    max_steps: truncate an episode after that many actions (0: never). reward "value" (with
    [supply] job_values): the value of jobs finished within their deadline. wait_action: action
    `window` starts nothing. forecast_h: hours of solar and carbon forecast in obs["supply"].
    """

    metadata = {"render_modes": []}

    def __init__(self, config=None, set=None, *, window: int = 16, features=DEFAULT_FEATURES,  # noqa: A002
                 reward="jct", max_steps: int = 0, wait_action: bool = False, forecast_h: int = 0):
        self._vector = VectorSchedulingEnv(config, set, num_envs=1, window=window, features=features,
                                           reward=reward, max_steps=max_steps, threads=1, autoreset=False,
                                           wait_action=wait_action, forecast_h=forecast_h)
        self.window, self.features = window, self._vector.features
        self.observation_space = self._vector.single_observation_space
        self.action_space = self._vector.single_action_space
        self._over = True

    @staticmethod
    def _first(obs, info):
        return {k: v[0] for k, v in obs.items()}, {"action_mask": info["action_mask"][0], "time": float(info["time"][0])}

    def reset(self, *, seed: int | None = None, options=None):
        self._over = False
        return self._first(*self._vector.reset(seed=seed, options=options))

    def step(self, action):
        if self._over:
            raise RuntimeError("step: the episode is over (reset() first)")
        obs, rewards, terminated, truncated, info = self._vector.step([int(action)])
        obs, one = self._first(obs, info)
        if "final_info" in info:
            self._over = True
            one.update(info["final_info"][0])
        return obs, float(rewards[0]), bool(terminated[0]), bool(truncated[0]), one

    def close(self):
        self._vector.close()
