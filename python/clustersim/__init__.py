"""clustersim for Python: runs and their results, a simulation stepped by a Python decider, and
an environment for learned schedulers (README.md, "Python").

    import clustersim
    result = clustersim.run("config.toml", set={"scheduler.policy": "sjf"})
    result.metrics["jct_mean"], result.jobs            # the --json keys, the --jobs-out columns

    sim = clustersim.Simulation("config.toml")
    result = sim.run(lambda obs: obs.waiting[np.lexsort((obs.waiting, obs.waiting_submit))])  # FIFO
"""
from ._core import PHASES, InputError, Observation, PlanError
from ._api import MetricWarning, Result, Simulation, SteadyStateWarning, load_results, observation_fields, run
from . import env

__all__ = [
    "PHASES",
    "InputError",
    "Observation",
    "PlanError",
    "Result",
    "Simulation",
    "SteadyStateWarning",
    "MetricWarning",
    "env",
    "load_results",
    "observation_fields",
    "run",
]
