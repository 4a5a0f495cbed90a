"""`clustersim sweep GRID --dry-run --json` (sweep/README.md, "Sizing"): the estimate's structure
and how it moves with the layout and options, checked against the dry run's own listing and the
model's stated shape, never against timings (sweep/bench/memory_bench.sh measures it)."""
import json
import os

import pytest

from conftest import ROOT, run

GRID = "tests/slurm/data/grid.toml"  # 36 points, 6 configurations of 300,000 jobs each


def plan(clustersim, *flags, grid=GRID):
    status, out, stderr = run([clustersim, "sweep", os.path.join(ROOT, grid), "--dry-run", "--json", *flags], cwd=ROOT)
    assert status == 0, stderr
    return json.loads(out)


def test_structure(clustersim):
    estimate = plan(clustersim, "--ranks", "2", "--threads", "1")
    assert estimate["run"] == {"ranks": 2, "threads": 1, "save_jobs": False, "save_timeseries": False, "whole_run": False}
    status, listing, _ = run([clustersim, "sweep", os.path.join(ROOT, GRID), "--dry-run"], cwd=ROOT)
    rows = [line.split() for line in listing.splitlines() if line and not line.startswith("#")]
    assert estimate["points"] == estimate["grid_points"] == len(rows) == 36
    assert estimate["time"]["cost"] == pytest.approx(sum(float(row[-1]) for row in rows))
    assert estimate["time"]["cpu_seconds"] == pytest.approx(estimate["time"]["cost"] * estimate["time"]["seconds_per_cost_unit"])
    assert estimate["time"]["wall_seconds"] < estimate["time"]["wall_seconds_high"]
    assert estimate["disk"]["job_rows"] == 0 and estimate["out_problem"] == ""


def test_memory_grows_with_threads_not_ranks(clustersim):
    one, two = plan(clustersim, "--ranks", "1", "--threads", "1"), plan(clustersim, "--ranks", "1", "--threads", "2")
    # Every configuration has the same jobs and cluster: a second thread holds one more such point.
    assert two["memory"]["peak_rss_bytes_per_rank"] - one["memory"]["peak_rss_bytes_per_rank"] == pytest.approx(
        one["memory"]["point_peak_bytes"])
    assert plan(clustersim, "--ranks", "4", "--threads", "1")["memory"] == one["memory"]  # without rows
    assert two["time"]["wall_seconds"] < one["time"]["wall_seconds"]


def test_rows_add_memory_and_disk(clustersim):
    metrics = plan(clustersim, "--ranks", "2", "--threads", "1")
    jobs = plan(clustersim, "--ranks", "2", "--threads", "1", "--save-jobs")
    whole = plan(clustersim, "--ranks", "2", "--threads", "1", "--save-jobs", "--whole-run")
    assert 0 < jobs["disk"]["job_rows"] <= whole["disk"]["job_rows"] == 36 * 300000
    assert jobs["disk"]["final_bytes"] > metrics["disk"]["final_bytes"]
    assert jobs["disk"]["spool_peak_bytes"] > jobs["disk"]["final_bytes"]  # the spools beside it
    assert jobs["memory"]["peak_rss_bytes_per_rank"] > metrics["memory"]["peak_rss_bytes_per_rank"]
    # One rank builds the row tables alone: more memory than when another rank compresses them.
    alone = plan(clustersim, "--ranks", "1", "--threads", "1", "--save-jobs")
    assert alone["memory"]["peak_rss_bytes_per_rank"] > jobs["memory"]["peak_rss_bytes_per_rank"]


def test_a_shard_is_sized_alone(clustersim):
    whole, shard = plan(clustersim), plan(clustersim, "--shard", "0/3")
    assert shard["points"] == 12 and shard["grid_points"] == 36
    assert shard["time"]["cpu_seconds"] < whole["time"]["cpu_seconds"]


def test_the_text_line_and_an_unwritable_out(clustersim, tmp_path):
    status, _, stderr = run([clustersim, "sweep", os.path.join(ROOT, GRID), "--dry-run", "--ranks", "2", "--threads", "1"], cwd=ROOT)
    assert status == 0 and "# sizing (sweep/README.md, Sizing): 36 points" in stderr and "per rank" in stderr
    missing = str(tmp_path / "no" / "such" / "r.h5")
    estimate = plan(clustersim, "--out", missing)
    assert estimate["out"] == missing and "does not exist" in estimate["out_problem"] and missing in estimate["out_problem"]
    status, _, stderr = run([clustersim, "sweep", os.path.join(ROOT, GRID), "--json"], cwd=ROOT)
    assert status == 2 and "--json requires --dry-run" in stderr
