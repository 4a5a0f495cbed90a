"""Nothing is hard-coded to today's schema: zipped axes, and a metric the analysis has no name for."""
import json
import os
import shutil

import h5py
import numpy as np
import pytest
from scipy import stats

from analysis import load, metrics, plots
from analysis.summary import parse_baseline, summarize
from conftest import DATA, run_sweep


def test_baseline_along_a_zipped_axis(clustersim, tmp_path):
    path = run_sweep(clustersim, os.path.join(DATA, "zip_grid.toml"), str(tmp_path / "zip.h5"), ranks=1)
    results = load(path)
    baseline = parse_baseline(results, "scheduler.checkpoint_s=0", "scheduler.policy")
    table = summarize(results, 0.95, baseline)
    points = results.points
    for policy in ["las", "tiresias"]:
        costly = points[(points["scheduler.policy"] == policy) & (points["scheduler.checkpoint_s"] == 600)]
        free = points[(points["scheduler.policy"] == policy) & (points["scheduler.checkpoint_s"] == 0)]
        # restore_s follows checkpoint_s (zip), so the baseline of (600, 300) is (0, 0).
        assert set(costly["scheduler.restore_s"]) == {300} and set(free["scheduler.restore_s"]) == {0}
        row = table[(table["scheduler.policy"] == policy) & (table["scheduler.checkpoint_s"] == 600)
                    & (table["metric"] == "jct_mean")].iloc[0]
        assert row["baseline_config_id"] == free["config_id"].iloc[0]
        a = costly.sort_values("replicate")["jct_mean"].to_numpy()
        b = free.sort_values("replicate")["jct_mean"].to_numpy()
        assert row["test"] == "paired t"
        assert row["diff"] == pytest.approx(np.mean(a - b))
        assert row["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    # Plots along checkpoint_s do not split panels by the axis zipped with it.
    layout = plots.Layout(results, "scheduler.policy", "scheduler.checkpoint_s")
    assert layout.facet_axes == [] and layout.facets == [{}]


def test_a_bare_baseline_value_finds_its_axis(clustersim, tmp_path):
    """`--baseline VALUE` names a value of the series axis (the policy, else the first axis
    that varies); where that axis lacks it (a partial file in which another axis varies first),
    the one axis that has the value is taken, and a value on several axes must be qualified."""
    path = run_sweep(clustersim, os.path.join(DATA, "zip_grid.toml"), str(tmp_path / "zip.h5"), ranks=1)
    results = load(path)
    baseline = parse_baseline(results, "600", "scheduler.policy")
    assert (baseline.axis, baseline.value) == ("scheduler.checkpoint_s", 600)
    with pytest.raises(Exception, match="no value 'nonesuch'"):
        parse_baseline(results, "nonesuch", "scheduler.policy")
    with pytest.raises(Exception, match="all have that value"):
        parse_baseline(results, "0", "scheduler.policy")  # checkpoint_s and restore_s


def test_a_metric_the_analysis_does_not_know(sweep_file, tmp_path):
    path = str(tmp_path / "more_metrics.h5")
    shutil.copy(sweep_file, path)
    with h5py.File(path, "a") as f:
        names = json.loads(f.attrs["metrics"])
        widget = np.linspace(0.1, 0.9, f["points/point_id"].shape[0])
        f["points/widget_util"] = widget
        f.attrs["metrics"] = json.dumps(names + ["widget_util"])
    results = load(path)
    assert "widget_util" in results.metrics
    assert metrics.info("widget_util").unit == "fraction" and metrics.info("widget_util").better == "higher"
    table = summarize(results, 0.95)
    rows = table[table["metric"] == "widget_util"]
    assert len(rows) == 6
    for _, row in rows.iterrows():
        expected = results.points[results.points["config_id"] == row["config_id"]]["widget_util"].mean()
        assert row["mean"] == pytest.approx(expected)
    os.makedirs(tmp_path / "plots")
    layout = plots.Layout(results, "scheduler.policy", "workload.load")
    plot = plots.metric_vs_x(results, layout, table, "widget_util", "workload.load", str(tmp_path), 0.95)
    assert os.path.getsize(tmp_path / plot.file) > 5000
