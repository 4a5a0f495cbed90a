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
