"""What a run's metrics measure, on the Python side: where `clustersim run` warns that the p99 JCT
is a duration cap, `Result.warnings` holds the same text and run() raises a MetricWarning; the
metric behind it (jct_p99_cap_share) is in `metrics` whether or not rows were cut to the measured
jobs."""
import subprocess
import warnings

import pytest

import clustersim

# Jobs capped at one hour on a cluster far larger than they need: many jobs sit at the cap and
# none waits, so the p99 JCT is the cap.
CAPPED = """
[cluster]
nodes = 64
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 400
load = 0.1
max_duration_s = 3600
max_gpus_per_job = 8
seed = 5

[scheduler]
policy = "fifo"

[metrics]
steady_state = "off"
"""


def cli_warnings(command, path):
    done = subprocess.run([command, "run", str(path), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [line.removeprefix("clustersim: warning: ") for line in done.stderr.splitlines()
            if line.startswith("clustersim: warning: jct_p99")]


def test_a_capped_p99_is_warned_as_the_cli_warns(clustersim_command, tmp_path):
    path = tmp_path / "capped.toml"
    path.write_text(CAPPED)
    expected = cli_warnings(clustersim_command, path)
    assert len(expected) == 1 and "jct_p99 = 3600 s" in expected[0], expected
    with pytest.warns(clustersim.MetricWarning) as caught:
        result = clustersim.run(str(path))
    assert result.warnings == expected
    assert str(caught[0].message) == "clustersim: " + expected[0]
    # The share the text states is the metric's, counted here from the jobs' rows.
    jobs = result.jobs[result.jobs["status"] == "finished"]
    at_cap = float(((jobs["jct"] - 3600.0).abs() <= 1e-6).sum())  # none waited: JCT = duration (rounded)
    assert result.metrics["jct_p99"] == 3600.0
    assert result.metrics["jct_p99_cap_share"] == pytest.approx(at_cap / len(jobs), rel=1e-12)
    assert result.metrics["jct_p99_cap_share"] >= 0.01


def test_no_cap_no_warning(tmp_path):
    path = tmp_path / "uncapped.toml"
    path.write_text(CAPPED.replace("max_duration_s = 3600\n", ""))
    with warnings.catch_warnings():
        warnings.simplefilter("error", clustersim.MetricWarning)
        result = clustersim.run(str(path))
    assert result.warnings == [] and result.metrics["jct_p99_cap_share"] == 0.0


# An M/M/16 queue at load 0.7 with 400 jobs: too short as planned (sim/README.md, "Steady state").
SHORT = """
[cluster]
nodes = 2
gpus_per_node = 8

[workload]
generator = "philly"
durations = "exponential"
mean_duration_s = 3600
max_gpus_per_job = 1
load = 0.7
jobs = 400
seed = 3

[scheduler]
policy = "fifo"
"""


def test_an_extended_run_says_so_and_a_stepped_one_says_it_cannot(tmp_path):
    path = tmp_path / "short.toml"
    path.write_text(SHORT + "\n[metrics]\nextend_limit = 3\n")
    with pytest.warns(clustersim.MetricWarning) as caught:
        result = clustersim.run(str(path))
    assert result.metrics["window_extension"] == 3.0
    assert any("run again with 3x the planned measured jobs" in text for text in result.warnings), result.warnings
    assert any("extend_limit" in str(w.message) for w in caught)
    # The same run as configured, not extended: as planned, and nothing said of an extension.
    plain = tmp_path / "plain.toml"
    plain.write_text(SHORT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_planned = clustersim.run(str(plain))
    assert as_planned.metrics["window_extension"] == 1.0
    assert not any("extend_limit" in text for text in as_planned.warnings)
    assert result.metrics["window_last"] - result.metrics["window_first"] + 1 == \
        3 * (as_planned.metrics["window_last"] - as_planned.metrics["window_first"] + 1)
    # A stepped Simulation runs once: its result says the setting did not act.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stepped = clustersim.Simulation(str(path)).run(lambda observation: observation.waiting)
    assert stepped.metrics["window_extension"] == 1.0
    assert any("no effect on a stepped Simulation" in text for text in stepped.warnings), stepped.warnings
