"""The steady-state verdict on the Python side: `Result.verdict` in `clustersim run`'s words, and a
SteadyStateWarning where the CLI says a run was not steady, for built-in policies and for a
Python decider alike (a decider's "too short" run must not sit silently beside "steady" ones)."""
import re
import subprocess
import warnings

import numpy as np
import pytest

import clustersim

# Few jobs under the steady-state rule: not steady (the warm-up alone needs more jobs than these).
SHORT = """
[cluster]
nodes = 4
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 300
load = 0.7
seed = 3

[scheduler]
policy = "fifo"

[metrics]
steady_state = "auto"
"""


def cli_verdict(command, path):
    done = subprocess.run([command, "run", str(path), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = next(l for l in done.stderr.splitlines() if l.startswith("clustersim: measured jobs "))
    return re.sub(r"^clustersim: measured jobs \d+\.\.\d+ of \d+ \(steady-state rule[^)]*\): ", "", line)


def test_run_shows_and_warns_the_cli_verdict(clustersim_command, tmp_path):
    path = tmp_path / "short.toml"
    path.write_text(SHORT)
    expected = cli_verdict(clustersim_command, path)
    assert expected.split(":")[0] in ("overloaded", "too short")  # as the CLI says it
    with pytest.warns(clustersim.SteadyStateWarning) as caught:
        result = clustersim.run(str(path))
    assert result.verdict == expected
    assert result.steady is False
    assert expected in str(caught[0].message)
    assert caught[0].filename == __file__  # pointed at the caller's line
    assert f", {expected.split(':')[0]}>" in repr(result)


def fifo(observation):
    order = np.lexsort((observation.waiting, observation.waiting_submit))
    return observation.waiting[order]


def test_a_python_decider_gets_the_same_verdict_and_warning(clustersim_command, tmp_path):
    path = tmp_path / "short.toml"
    path.write_text(SHORT)
    expected = cli_verdict(clustersim_command, path)
    sim = clustersim.Simulation(str(path))
    with pytest.warns(clustersim.SteadyStateWarning):
        result = sim.run(fifo)
    # FIFO from Python schedules as the built-in FIFO (test_deciders.py): the same verdict.
    assert result.verdict == expected and result.steady is False
    with pytest.warns(clustersim.SteadyStateWarning):
        assert sim.result().verdict == expected


def test_no_verdict_no_warning_when_the_rule_is_off(tmp_path):
    path = tmp_path / "off.toml"
    path.write_text(SHORT.replace('steady_state = "auto"', 'steady_state = "off"'))
    with warnings.catch_warnings():
        warnings.simplefilter("error", clustersim.SteadyStateWarning)
        result = clustersim.run(str(path))
    assert result.verdict == "" and result.steady is None
