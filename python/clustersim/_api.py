"""Runs, results and the step interface (the C++ side is clustersim._core)."""
from __future__ import annotations

import importlib.util
import json
import math
import os
import sys

from . import _core


def _toml(value) -> str:
    """A Python value in TOML syntax (the value of a --set override)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "item"):  # a NumPy scalar
        return _toml(value.item())
    raise TypeError(f"set: a value of type {type(value).__name__} has no TOML form")


def _overrides(set_) -> list[str]:
    """`set` as "section.key=value" strings: a dict {key: value}, or such strings."""
    if set_ is None:
        return []
    if isinstance(set_, dict):
        return [f"{key}={_toml(value)}" for key, value in set_.items()]
    if isinstance(set_, str):
        return [set_]
    return [str(item) for item in set_]


def _config(config, set_):
    if isinstance(config, _core.Config):
        if set_:
            raise TypeError("set: give overrides with the config's path or dict, not a parsed config")
        return config
    return _core.parse_config(config, _overrides(set_))


class SteadyStateWarning(UserWarning):
    """A run measured under the steady-state rule was not steady (overloaded, or too short to
    tell): its metrics depend on how long it ran (`clustersim run` says so on stderr)."""


class MetricWarning(UserWarning):
    """A run's metric measures something else than the policy (a duration cap that binds the p99
    JCT, ...): `clustersim run` says so on stderr, and Result.warnings lists it."""


class Result:
    """A run's results: `metrics` (dict: the keys of `clustersim run --json`, in its order),
    `jobs` (pandas DataFrame: the columns of `clustersim run --jobs-out`, one row per job) and
    `verdict`: the steady-state verdict as `clustersim run` words it ("steady", "overloaded: ...",
    "too short: run N x more jobs: ..."; "" when the run was not assessed)."""

    def __init__(self, raw: dict):
        self.metrics: dict = dict(raw["metrics"])
        self.verdict: str = raw.get("verdict", "")
        # What the metrics measure that the reader should know (`clustersim run`'s warnings).
        self.warnings: list = list(raw.get("warnings", []))
        self._columns = raw["jobs"]
        self._jobs = None
        self.skipped_rows: int = raw.get("skipped_rows", 0)
        self.skip_reasons: list = raw.get("skip_reasons", [])

    @property
    def jobs(self):
        if self._jobs is None:
            import pandas as pd

            self._jobs = pd.DataFrame(dict(self._columns))
        return self._jobs

    @property
    def steady(self) -> bool | None:
        """True: measured in steady state; False: overloaded or too short; None: not assessed."""
        if not self.verdict:
            return None
        return self.verdict == "steady"

    def __repr__(self) -> str:
        m = self.metrics
        verdict = f", {self.verdict.split(':')[0]}" if self.verdict else ""
        return (f"<clustersim.Result: {m['jobs']} jobs, jct_mean {m['jct_mean']:.6g} s, gpu_util {m['gpu_util']:.4g}"
                f"{verdict}>")


def _warn_verdict(result: Result) -> Result:
    """Warns as `clustersim run` does when the measured jobs were not in steady state, and about
    what its metrics measure (MetricWarning)."""
    if result.warnings:
        import warnings

        for text in result.warnings:
            warnings.warn(f"clustersim: {text}", MetricWarning, stacklevel=3)
    if result.steady is False:
        import warnings

        m = result.metrics
        warnings.warn(f"clustersim: measured jobs {m.get('window_first', '?')}..{m.get('window_last', '?')} "
                      f"(steady-state rule; [metrics] steady_state = \"off\" measures every job): {result.verdict}",
                      SteadyStateWarning, stacklevel=3)
    return result


def run(config=None, set=None, *, seed: int | None = None) -> Result:  # noqa: A002 (the contract's name)
    """Runs `config` as `clustersim run` does: a TOML path, a dict in the TOML's shape, or None
    for the built-in example; `set`: overrides, {"section.key": value} or ["section.key=value"].
    `seed`: seeds the workload (if generated) and the run's randomness as a sweep seeds a point
    (as Simulation.reset(seed) does). Bad input raises clustersim.InputError with the command's
    FILE:LINE: field text."""
    raw = _core.run(_config(config, set), seed)
    if raw["skipped_rows"]:
        import warnings

        first = f" (first: {raw['skip_reasons'][0]})" if raw["skip_reasons"] else ""
        warnings.warn(f"clustersim: skipped {raw['skipped_rows']} malformed rows{first}", stacklevel=2)
    return _warn_verdict(Result(raw))


class Simulation(_core.Simulation):
    """A simulation you step and decide for. At each decision point (step() returns True),
    observe() gives the state as NumPy arrays (clustersim.observation_fields()) and apply(plan)
    changes it:

    - an order: a sequence or 1-D integer array of waiting job ids; each is started, in that
      order, where the configured allocation mechanism places it, if it can start now (the others
      wait; later ones may still start). Returns the ids started.
    - actions: a list of ("start", job), ("start", job, grants), ("stop", job),
      ("move", job, grants), ("resize", job, grants); grants are (node, gpus) pairs (the job's
      share of the node's cores and memory) or (node, gpus, cpus, mem_gb[, storage_mbps]). Each
      action is applied whole or raises clustersim.PlanError with the reason.

    run(decider) calls decider(observation) -> plan at every decision point to the end.

    Every config that runs in time steps: training, a mixed config (serving beside training:
    the serving side takes and gives back its GPUs while you decide for the training jobs) and
    a DAG config (serving alone: no training jobs, so nothing to start; the result is
    `clustersim run`'s, one row per task).
    """

    def __init__(self, config=None, set=None):  # noqa: A002
        super().__init__(_config(config, set))

    def run(self, decider) -> Result:
        return _warn_verdict(Result(super().run(decider)))

    def result(self) -> Result:
        return _warn_verdict(Result(super().result()))


def observation_fields():
    """The observation's fields: (name, kind, dtype, meaning). kind: "scalar"; "live view" (a
    read-only NumPy view of the simulator's table, following it as it runs: copy what you keep);
    "snapshot" (the state at observe(), made when first read: read it before the next step() or
    apply())."""
    return [tuple(f) for f in _core.observation_fields()]


def load_results(path, *, jobs: bool = True, timeseries: bool = True):
    """A `clustersim sweep` result file (or a running sweep's journal) as the analysis package's
    Results: .points, .jobs, .timeseries DataFrames (analysis/README.md)."""
    try:
        from . import _paths
    except ImportError:  # not from a build
        _paths = None
    analysis = _analysis(_paths.SOURCE_ROOT if _paths else None)
    command = None
    if _paths is not None and os.access(os.path.join(_paths.BIN_DIR, "clustersim"), os.X_OK):
        command = os.path.join(_paths.BIN_DIR, "clustersim")
    return analysis.load(os.fspath(path), jobs=jobs, timeseries=timeseries, clustersim=command)


def _analysis(root):
    """The checkout's analysis package (not another folder named analysis on sys.path)."""
    module = sys.modules.get("analysis")
    if module is not None and hasattr(module, "load"):
        return module
    if root is None or not os.path.isfile(os.path.join(root, "analysis", "__init__.py")):
        import analysis

        return analysis
    folder = os.path.join(root, "analysis")
    spec = importlib.util.spec_from_file_location("analysis", os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules["analysis"] = module
    spec.loader.exec_module(module)
    return module
