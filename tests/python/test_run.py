"""clustersim.run: the metrics of `clustersim run --json` and the rows of --jobs-out, from a TOML
path or a dict, with --set-style overrides."""
import json
import subprocess

import numpy as np
import pandas as pd

import clustersim
from conftest import philly

CONFIG = """
[cluster]
nodes = 8
gpus_per_node = 8
cpus_per_node = 64
mem_gb_per_node = 512
nodes_per_rack = 4

[workload]
generator = "philly"
jobs = 1500
load = 1.1
seed = 7

[scheduler]
policy = "tiresias"
checkpoint_s = 30
restore_s = 30
"""


def cli(command, *args):
    done = subprocess.run([command, "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    return done.returncode, done.stdout, done.stderr


def read_jobs_csv(path):
    # Ids, models and VCs are text ("" stays ""); everything else as the CSV reader types it.
    text = {"job_id": str, "model": str, "vc": str, "status": str}
    return pd.read_csv(path, dtype=text, keep_default_na=False, float_precision="round_trip",
                       na_values={c: [""] for c in pd.read_csv(path, nrows=0).columns if c not in text})


def test_run_gives_the_json_metrics_and_jobs_out_rows_of_the_command(tmp_path, clustersim_command):
    config = tmp_path / "run.toml"
    config.write_text(CONFIG)
    jobs_out = tmp_path / "jobs.csv"
    status, stdout, stderr = cli(clustersim_command, str(config), "--json", "--jobs-out", str(jobs_out),
                                 "--set", "scheduler.lease_s=600")
    assert status == 0, stderr
    expected = json.loads(stdout)

    result = clustersim.run(config, set={"scheduler.lease_s": 600})
    assert list(result.metrics) == list(expected)  # the same keys, in the same order
    assert result.metrics == expected  # every value, bit for bit (JSON keeps full precision)
    assert result.metrics["preemptions"] > 0  # tiresias with a lease: the run did preempt

    csv = read_jobs_csv(jobs_out)
    assert list(result.jobs.columns) == list(csv.columns)
    # Every value, bit for bit (a CSV reader types a column of whole numbers as integers; the
    # DataFrame types each column as its field: counts int64, times and GPU-seconds float64).
    pd.testing.assert_frame_equal(result.jobs, csv, check_exact=True, check_dtype=False)
    kinds = {column: result.jobs[column].dtype.kind for column in result.jobs.columns}
    assert kinds["job_id"] == kinds["model"] == kinds["status"] == "O"
    assert kinds["preemptions"] == kinds["nodes"] == "i"
    assert kinds["submit_time"] == kinds["jct"] == kinds["overhead_gpu_seconds"] == "f"


def test_a_dict_config_and_a_set_list_equal_the_toml_file(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text(CONFIG)
    # Every job measured (steady_state "off"): the jobs count shows the override took effect.
    from_file = clustersim.run(str(path), set=["workload.jobs=800", "scheduler.policy=\"las\"",
                                               "metrics.steady_state=off"])
    as_dict = {
        "cluster": {"nodes": 8, "gpus_per_node": 8, "cpus_per_node": 64, "mem_gb_per_node": 512,
                    "nodes_per_rack": 4},
        "workload": {"generator": "philly", "jobs": 1500, "load": 1.1, "seed": 7},
        "scheduler": {"policy": "tiresias", "checkpoint_s": 30, "restore_s": 30},
    }
    from_dict = clustersim.run(as_dict, set={"workload.jobs": 800, "scheduler.policy": "las",
                                             "metrics.steady_state": "off"})
    assert from_dict.metrics == from_file.metrics
    assert from_dict.metrics["jobs"] == 800
    pd.testing.assert_frame_equal(from_dict.jobs, from_file.jobs, check_exact=True)


def test_unfinished_and_rejected_jobs_have_blank_fields_as_in_the_csv(tmp_path, clustersim_command):
    # A job too big for the cluster, rejected rather than an error: its finish-only fields are NaN.
    trace = tmp_path / "trace.csv"
    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,2,100\nb,5,64,100\nc,10,1,50\n")
    config = tmp_path / "run.toml"
    config.write_text(f'[cluster]\nnodes = 1\ngpus_per_node = 4\n[workload]\ntrace = "{trace}"\n'
                      '[scheduler]\nreject_impossible = true\n')
    jobs_out = tmp_path / "jobs.csv"
    status, stdout, stderr = cli(clustersim_command, str(config), "--json", "--jobs-out", str(jobs_out))
    assert status == 0, stderr
    result = clustersim.run(str(config))
    assert result.metrics == json.loads(stdout)
    assert list(result.jobs["status"]) == ["finished", "rejected", "finished"]
    assert np.isnan(result.jobs["jct"][1]) and np.isnan(result.jobs["start_time"][1])
    pd.testing.assert_frame_equal(result.jobs, read_jobs_csv(jobs_out), check_exact=True, check_dtype=False)


def test_the_built_in_example_runs_with_no_config():
    result = clustersim.run(set={"workload.jobs": 300})
    # The built-in example measures in steady state: its rows are the measured jobs.
    assert 0 < result.metrics["jobs"] == len(result.jobs) <= 300
    assert result.metrics["window_last"] - result.metrics["window_first"] + 1 == len(result.jobs)


def test_philly_helper_config_runs():
    assert clustersim.run(philly(200)).metrics["jobs"] == 200
