"""clustersim.load_results gives the analysis package's DataFrames of a sweep's result file."""
import os
import subprocess
import sys

import pandas as pd

import clustersim
from conftest import ROOT

GRID = """
[cluster]
nodes = 4
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 200

[metrics]
steady_state = "off"  # every job's row: 200 per point

[sweep]
"scheduler.policy" = ["fifo", "sjf"]
seeds = 2
"""


def test_load_results_reads_a_sweep_as_the_analysis_package_does(tmp_path, clustersim_command):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    out = tmp_path / "results.h5"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run([clustersim_command, "sweep", str(grid), "--out", str(out), "--quiet", "--save-jobs"],
                   check=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    results = clustersim.load_results(out)
    assert len(results.points) == 4 and set(results.points["scheduler.policy"]) == {"fifo", "sjf"}
    assert results.jobs is not None and len(results.jobs) == 4 * 200
    sys.path.append(ROOT)
    import analysis

    pd.testing.assert_frame_equal(results.points, analysis.load(str(out)).points)
    # A point's metrics are a run's: the same as clustersim.run with the point's seed.
    point = results.points.iloc[0]
    config = {"cluster": {"nodes": 4, "gpus_per_node": 8},
              "workload": {"generator": "philly", "jobs": 200},
              "scheduler": {"policy": point["scheduler.policy"]}, "metrics": {"steady_state": "off"}}
    assert clustersim.run(config, seed=int(point["seed"])).metrics["jct_mean"] == point["jct_mean"]
