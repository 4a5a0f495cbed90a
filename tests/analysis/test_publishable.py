"""Issue 28: one measured population in plots and tables, intervals within a metric's range,
ratio intervals that agree with their test, pseudo-replicates found and said."""
import math

import numpy as np
import pandas as pd
import pytest

from analysis import findings, metrics, plots, stats
from analysis.results import MEASURED_JOBS, Results, load
from analysis.summary import parse_baseline, pseudo_replicates, summarize


def test_cdf_median_is_the_tables_p50(sweep_file):
    """The JCT CDF draws the jobs whose median the table reports as jct_p50: per point, the
    median of the CDF's jobs is that point's jct_p50 (linear interpolation, as the simulator)."""
    results = load(sweep_file)
    layout = plots.Layout(results, "scheduler.policy")
    lines = plots.cdf_samples(results, layout)
    assert lines
    jobs = results.measured_jobs()
    checked = 0
    for _, point in results.ok.iterrows():
        jct = jobs.loc[jobs["point_id"] == point["point_id"], "jct"].to_numpy(float)
        if jct.size == 0:
            continue
        assert np.quantile(jct, 0.5) == pytest.approx(point["jct_p50"], rel=1e-9, abs=1e-6)
        if "jct_mean" in point:
            assert np.mean(jct) == pytest.approx(point["jct_mean"], rel=1e-9, abs=1e-6)
        checked += 1
    assert checked == len(results.ok)
    # Each line pools exactly its points' measured jobs (no job outside the window).
    for facet, value, jct in lines:
        rows = layout.select(results.ok, facet)
        rows = rows[rows["scheduler.policy"] == value]
        expected = jobs.loc[jobs["point_id"].isin(rows["point_id"]), "jct"].to_numpy(float)
        assert np.array_equal(np.sort(expected), jct)
    # The block-by-block reader of the report keeps the same rows.
    lean = load(sweep_file, jobs=MEASURED_JOBS, timeseries=False)
    assert len(lean.jobs) == len(jobs)
    assert np.array_equal(np.sort(lean.jobs["jct"].to_numpy(float)), np.sort(jobs["jct"].to_numpy(float)))


def test_no_interval_outside_a_metrics_range(report):
    folder, _ = report
    table = pd.read_csv(f"{folder}/summary.csv")
    assert len(table) > 0
    checked = 0
    for _, row in table.iterrows():
        low_bound, high_bound = metrics.info(row["metric"]).bounds
        for column in ("mean", "ci_low", "ci_high"):
            value = row[column]
            if not np.isfinite(value):
                continue
            if low_bound is not None:
                assert value >= low_bound, (row["metric"], column, value)
            if high_bound is not None:
                assert value <= high_bound, (row["metric"], column, value)
            checked += 1
    assert checked > 0


def test_bounded_and_share_intervals():
    # A utilisation near 1 with spread: the t-interval passes 1, the bounded one stops there.
    values = [0.97, 0.999, 0.93]
    raw = stats.mean_interval(values)
    bounded = stats.bounded_interval(values, 0.95, 0.0, 1.0)
    assert raw.high > 1 and bounded.high == 1.0 and bounded.low == raw.low
    assert bounded.estimate == raw.estimate
    # A 0/1 flag: a share of seeds, its Wilson interval inside [0, 1] even at 0 and 1.
    for flags in ([0, 0, 0], [1, 1, 1, 1, 1], [0, 1], [1, 0, 0, 1, 1]):
        share = stats.share_interval(flags)
        assert share.estimate == pytest.approx(np.mean(flags))
        assert 0.0 <= share.low <= share.estimate <= share.high <= 1.0


def test_log_ratio_interval_agrees_with_its_test():
    """The ratio's interval excludes 1 exactly when the paired t-test on the log ratios gives
    p < 0.05, on many random designs (the delta method's interval did not)."""
    rng = np.random.default_rng(28)
    seen = {True: 0, False: 0}
    for _ in range(400):
        n = int(rng.integers(2, 7))
        b = rng.lognormal(3.0, 0.5, n)
        a = b * rng.lognormal(rng.normal(0, 0.2), rng.uniform(0.01, 0.5), n)
        ratio = stats.log_ratio(a, b, paired=True)
        assert ratio.estimate == pytest.approx(math.exp(np.mean(np.log(a / b))))
        excludes = ratio.low > 1 or ratio.high < 1
        assert ratio.low <= ratio.estimate <= ratio.high
        assert excludes == (ratio.p < 0.05), (a, b, ratio)
        seen[excludes] += 1
    assert seen[True] > 20 and seen[False] > 20  # both cases happened
    assert math.isnan(stats.log_ratio([1.0, -1.0], [1.0, 1.0], paired=True).estimate)


def _results(values_by_config: dict[str, list[float]], warnings: str = "[]") -> Results:
    """A small in-memory sweep result: one axis (policy), paired seeds, metrics jct_mean and
    gpu_util (gpu_util = jct_mean / 1000)."""
    rows = []
    point = 0
    for cid, (policy, values) in enumerate(values_by_config.items()):
        for seed, value in enumerate(values):
            rows.append({"point_id": point, "config_id": cid, "seed": 100 + seed, "replicate": seed, "status": "ok",
                         "scheduler.policy": policy, "jct_mean": value, "gpu_util": value / 1000})
            point += 1
    points = pd.DataFrame(rows)
    attrs = {"points_total": len(rows), "paired_seeds": True, "replicates": 3, "warnings": warnings}
    return Results("made.h5", points, ["scheduler.policy"], ["jct_mean", "gpu_util"], attrs, None, None)


def test_pseudo_replicates_are_found_and_said():
    results = _results({"fifo": [500.0, 500.0, 500.0], "las": [400.0, 410.0, 390.0]})
    assert pseudo_replicates(results) == {0}
    table = summarize(results, 0.95, parse_baseline(results, "fifo", "scheduler.policy"))
    fifo = table[(table["scheduler.policy"] == "fifo") & (table["metric"] == "jct_mean")].iloc[0]
    assert bool(fifo["identical_seeds"]) and fifo["interval"] == "none: identical seeds"
    assert math.isnan(fifo["ci_low"]) and math.isnan(fifo["ci_high"])
    las = table[(table["scheduler.policy"] == "las") & (table["metric"] == "jct_mean")].iloc[0]
    assert not bool(las["identical_seeds"]) and np.isfinite(las["ci_low"])
    # Against an identical-seed baseline: no test, no p of 0 from zero spread.
    assert las["test"] == "identical seeds" and math.isnan(las["p"])
    said = findings.warnings(results)
    assert any("identical results on every seed" in line and "scheduler.policy=fifo" in line for line in said)
    # Independent seeds: no such warning.
    assert not any("identical" in line for line in findings.warnings(_results({"fifo": [1.0, 2.0]})))


def test_the_sweeps_warnings_reach_the_report():
    text = "[workload] arrival_jitter_s = 0 with a fixed trace: cannot act"
    import json
    said = findings.warnings(_results({"fifo": [1.0, 2.0]}, json.dumps([text])))
    assert said == [text]


def test_a_p99_that_is_a_duration_cap_is_said():
    results = _results({"fifo": [1.0, 2.0], "las": [1.0, 3.0]})
    assert not any("duration cap" in line for line in findings.warnings(results))
    results.points["jct_p99_cap_share"] = [0.0, 0.02, 0.05, 0.0]  # two of four runs capped
    said = [line for line in findings.warnings(results) if "duration cap" in line]
    assert len(said) == 1 and said[0].startswith("In 2 of 4 runs the p99 JCT") and "2-5%" in said[0], said


def test_runs_extended_because_too_short_are_said():
    results = _results({"fifo": [1.0, 2.0], "las": [1.0, 3.0]})
    results.points["window_extension"] = [1.0, 1.0, 1.0, 1.0]
    assert not any("extend_limit" in line for line in findings.warnings(results))
    results.points["window_extension"] = [1.0, 1.5, 3.0, 1.0]
    results.points["window_too_short"] = [0, 0, 1, 0]
    said = [line for line in findings.warnings(results) if "extend_limit" in line]
    assert len(said) == 1 and said[0].startswith("2 of 4 runs were too short as planned") and "1.5-3x" in said[0], said
    assert "1 of them still too short at the limit" in said[0], said


NO_EFFECT_GRID = """\
[cluster]
nodes = 4
gpus_per_node = 8
nodes_per_rack = 2

[workload]
generator = "philly"
jobs = 200

[scheduler]
placement = "consolidate"
locality = "any"

[mechanisms]
migration = "on_demand"

[sweep]
"scheduler.policy" = ["fifo", "las"]
seeds = 2
seed = 3
"""


def test_a_setting_that_cannot_act_is_said(clustersim, analyze, tmp_path):
    """migration = "on_demand" with locality = "any" and no placement penalty never moves a job:
    `clustersim run` says so naming the key, the sweep keeps it in the file, the report shows it."""
    from conftest import run, run_sweep

    grid = tmp_path / "grid.toml"
    grid.write_text(NO_EFFECT_GRID)
    config = tmp_path / "run.toml"
    config.write_text(NO_EFFECT_GRID.split("[sweep]")[0])
    status, _, stderr = run([clustersim, "run", str(config), "--json"])
    assert status == 0, stderr
    assert "warning: mechanisms.migration \"on_demand\" cannot act" in stderr, stderr
    out = run_sweep(clustersim, str(grid), str(tmp_path / "results.h5"))
    said = load(out, jobs=False, timeseries=False).attrs.get("warnings", "")
    assert "mechanisms.migration" in said and "cannot act" in said
    folder = tmp_path / "report"
    status, _, stderr = run([analyze, out, "--out", str(folder), "--baseline", "fifo", "--figure-formats", "none"])
    assert status == 0, stderr
    page = (folder / "index.html").read_text()
    assert "Warnings" in page and "mechanisms.migration" in page and "cannot act" in page
    # Without the setting: no warning.
    quiet = tmp_path / "quiet.toml"
    quiet.write_text(config.read_text().replace('migration = "on_demand"', 'migration = "off"'))
    status, _, stderr = run([clustersim, "run", str(quiet), "--json"])
    assert status == 0 and "cannot act" not in stderr, stderr
