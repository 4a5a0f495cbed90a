"""Per-job columns a component adds (RunResult::job_columns: the power meter's energy_kwh and
carbon_kg here; a rate model's iter_s, a mechanism's ettr) reach `Result.jobs` as they reach
`clustersim run --jobs-out`: same names, same values, job by job."""
import subprocess

import pandas as pd

import clustersim

CONFIG = """
[cluster]
nodes = 2
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 60
load = 0.5
seed = 4

[scheduler]
policy = "fifo"

[metrics]
steady_state = "off"

[power]
enabled = true
"""


def test_component_columns_match_the_cli(clustersim_command, tmp_path):
    path = tmp_path / "power.toml"
    path.write_text(CONFIG)
    csv = tmp_path / "jobs.csv"
    done = subprocess.run([clustersim_command, "run", str(path), "--json", "--jobs-out", str(csv)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cli = pd.read_csv(csv, float_precision="round_trip")  # pandas' fast parser is off by an ulp
    jobs = clustersim.run(str(path)).jobs
    for name in ("energy_kwh", "carbon_kg"):
        assert name in jobs.columns and name in cli.columns, name
        assert list(jobs.columns).index(name) > list(jobs.columns).index("status")
        assert (jobs[name].to_numpy() == cli[name].to_numpy()).all(), name  # 17 digits: exact
    assert (jobs["energy_kwh"] > 0).all()
    # Off: no such column.
    off = clustersim.run(str(path), set={"power.enabled": False}).jobs
    assert "energy_kwh" not in off.columns
