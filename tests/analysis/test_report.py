"""The report of a real sweep: its table numbers against values computed here, independently,
from the HDF5 file with h5py, numpy and scipy; every plot produced and shown; index.html opened
in headless Chromium with every image loaded."""
import json
import math
import os
import re
import shutil
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis import load
from analysis.metrics import info as metric_info


def read_points(path):
    with h5py.File(path, "r") as f:
        points = pd.DataFrame({k: (d.asstr()[()] if d.dtype.kind == "O" else d[()]) for k, d in f["points"].items()})
        return points, json.loads(f.attrs["metrics"]), json.loads(f.attrs["axes"])


def t_interval(values):
    values = np.asarray(values, float)
    n = len(values)
    mean = values.mean()
    if values.std() == 0:
        return n, mean, mean, mean
    low, high = stats.t.interval(0.95, n - 1, loc=mean, scale=stats.sem(values))
    return n, mean, low, high


def close(a, b):
    if isinstance(b, float) and math.isnan(b):
        return math.isnan(a)
    return a == pytest.approx(b, rel=1e-9, abs=1e-9)


def test_summary_numbers_match_the_file(report, sweep_file):
    folder, stdout = report
    assert stdout.strip() == f"report: {os.path.join(folder, 'index.html')}"
    points, metrics, axes = read_points(sweep_file)
    assert axes == ["scheduler.policy", "workload.load"]
    assert (points["status"] == "ok").all()
    table = pd.read_csv(os.path.join(folder, "summary.csv"))
    # Every metric of the file, every configuration, and nothing else.
    assert set(table["metric"]) == set(metrics)
    assert len(table) == len(metrics) * 6

    checked = 0
    for (policy, load_value), group in points.groupby(["scheduler.policy", "workload.load"]):
        base = points[(points["scheduler.policy"] == "fifo") & (points["workload.load"] == load_value)]
        mine = group.sort_values("replicate")
        base = base.sort_values("replicate")
        assert (mine["seed"].to_numpy() == base["seed"].to_numpy()).all()  # paired seeds
        for metric in metrics:
            row = table[(table["scheduler.policy"] == policy) & (table["workload.load"] == load_value)
                        & (table["metric"] == metric)]
            assert len(row) == 1
            row = row.iloc[0]
            values = mine[metric].to_numpy(float)
            n, mean, low, high = t_interval(values)
            assert row["n"] == n == 3
            assert close(row["mean"], mean)
            meta = metric_info(metric)
            if row["identical_seeds"]:  # pseudo-replicates: no interval
                assert (values == values[0]).all() and math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])
            elif meta.flag:  # a 0/1 flag: the share of seeds, Wilson score interval
                share, z = np.mean(values != 0), stats.norm.ppf(0.975)
                centre = (share + z * z / (2 * n)) / (1 + z * z / n)
                half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
                assert close(row["mean"], share)
                assert close(row["ci_low"], max(0.0, centre - half)) and close(row["ci_high"], min(1.0, centre + half))
            else:  # Student t, kept within what the metric can be
                assert close(row["sd"], values.std(ddof=1))
                bottom, top = meta.bounds
                if np.isfinite(low):
                    low = max(low, bottom) if bottom is not None else low
                    high = min(high, top) if top is not None else high
                assert close(row["ci_low"], low) and close(row["ci_high"], high)
            if policy == "fifo":
                assert row["test"] == "baseline"
                continue
            a, b = values, base[metric].to_numpy(float)
            d = a - b
            assert row["test"] == "paired t"
            assert close(row["diff"], d.mean())
            if d.std() > 0:
                dlow, dhigh = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
                assert close(row["diff_ci_low"], dlow) and close(row["diff_ci_high"], dhigh)
                assert close(row["p"], stats.ttest_rel(a, b).pvalue)
            if (a > 0).all() and (b > 0).all():
                # The geometric mean of the per-seed ratios, its interval and p from the paired
                # t-test on their logs (so the interval excludes 1 exactly when p < 0.05).
                logs = np.log(a) - np.log(b)
                ratio = math.exp(logs.mean())
                assert close(row["ratio"], ratio)
                if logs.std() > 0:
                    low_log, high_log = stats.t.interval(0.95, len(logs) - 1, loc=logs.mean(), scale=stats.sem(logs))
                    assert close(row["ratio_ci_low"], math.exp(low_log))
                    assert close(row["ratio_ci_high"], math.exp(high_log))
                    assert close(row["ratio_p"], stats.ttest_1samp(logs, 0.0).pvalue)
                    assert (row["ratio_ci_low"] > 1 or row["ratio_ci_high"] < 1) == (row["ratio_p"] < 0.05)
                if metric == "jct_mean":  # lower is better: speedup = baseline / config
                    assert close(row["speedup"], 1 / ratio)
                    assert close(row["speedup_ci_low"], 1 / row["ratio_ci_high"])
                if metric == "gpu_util":  # higher is better: speedup = config / baseline
                    assert close(row["speedup"], ratio)
            else:
                assert math.isnan(row["ratio"])
            checked += 1
    assert checked == 4 * len(metrics)

    # The Markdown shows the same numbers: tiresias at load 0.9, mean JCT, in the report's one
    # time unit (its heading says which; summary.csv keeps seconds).
    markdown = open(os.path.join(folder, "summary.md"), encoding="utf-8").read()
    values = points[(points["scheduler.policy"] == "tiresias") & (points["workload.load"] == 0.9)]["jct_mean"]
    section = markdown.split("### jct_mean:")[1].split("###")[0]
    unit = re.match(r" mean JCT \((seconds|minutes|hours|days)\)", section).group(1)
    values = values / {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}[unit]
    n, mean, low, high = t_interval(values)
    line = next(l for l in section.splitlines() if l.startswith("| tiresias | 0.9 |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    # The columns by name: a verdict column sits after the axes where the file has verdicts.
    header = [c.strip() for c in next(l for l in section.splitlines() if l.startswith("| scheduler.policy"))
              .strip("|").split("|")]
    assert float(cells[header.index("mean")].replace(",", "")) == pytest.approx(mean, rel=1e-3)
    interval_cell = cells[header.index("mean") + 1]
    interval = [float(x.replace(",", "")) for x in re.findall(r"-?\d[\d,]*(?:\.\d+)?(?<!,)", interval_cell)]
    assert interval == pytest.approx([max(low, 0.0), high], rel=1e-3)  # a JCT is never below 0
    assert "## Speedup vs scheduler.policy=fifo" in markdown


def test_load_reads_every_table(sweep_file):
    results = load(sweep_file)
    with h5py.File(sweep_file, "r") as f:
        assert len(results.jobs) == f["jobs/point_id"].shape[0] > 0
        assert len(results.timeseries) == f["timeseries/time"].shape[0] > 0
        assert results.attrs["grid_sha256"] == f.attrs["grid_sha256"]
    assert results.complete and not results.from_journal
    assert list(results.points.columns[:4]) == ["point_id", "config_id", "replicate", "seed"]
    assert results.axes == ["scheduler.policy", "workload.load"]
    assert results.points["scheduler.policy"].tolist()[:3] == ["fifo"] * 3


def plots_in(folder, extension=".png"):
    return sorted(os.path.join("plots", name) for name in os.listdir(os.path.join(folder, "plots"))
                  if name.endswith(extension))


def test_every_plot_is_produced_and_shown(report):
    folder, _ = report
    files = plots_in(folder)
    for expected in ["plots/jct_cdf.png", "plots/jct_mean_vs_workload.load.png", "plots/gpu_util_vs_workload.load.png",
                     "plots/timeseries_gpu_allocation.png", "plots/timeseries_fragmented_gpus.png",
                     "plots/timeseries_queue_length.png", "plots/heatmap_jct_mean_workload.load_scheduler.policy.png"]:
        assert expected in files
    import matplotlib.image

    for name in files:
        path = os.path.join(folder, name)
        assert os.path.getsize(path) > 5000, name
        with open(path, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n", name
        height, width = matplotlib.image.imread(path).shape[:2]
        assert width >= 300 and height >= 200, name
    page = open(os.path.join(folder, "index.html"), encoding="utf-8").read()
    shown = sorted(re.findall(r'<img src="([^"]+)"', page))
    assert shown == files
    assert 'href="summary.md"' in page and 'href="summary.csv"' in page
    # Every figure also as PDF and SVG (for papers), and nothing else in plots/.
    assert [f[:-4] for f in plots_in(folder, ".pdf")] == [f[:-4] for f in files]
    assert [f[:-4] for f in plots_in(folder, ".svg")] == [f[:-4] for f in files]
    assert len(os.listdir(os.path.join(folder, "plots"))) == 3 * len(files)
    # Nothing else is left in the report folder (no temporary files).
    assert sorted(os.listdir(folder)) == [".clustersim-report", "index.html", "plots", "summary.csv", "summary.md",
                                          "tables"]


CHECK_SCRIPT = """<script>
window.addEventListener('load', function () {
  var rows = Array.prototype.map.call(document.images, function (img) {
    return img.getAttribute('src') + ' ' + img.complete + ' ' + img.naturalWidth + ' ' + img.naturalHeight;
  });
  var pre = document.createElement('pre');
  pre.id = 'image-check';
  pre.textContent = 'IMAGES\\n' + rows.join('\\n') + '\\nEND';
  document.body.appendChild(pre);
});
</script>"""


def test_index_html_loads_every_image_in_chromium(report, tmp_path):
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if chromium is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs Debian's chromium)")
    folder, _ = report
    page = open(os.path.join(folder, "index.html"), encoding="utf-8").read()
    # The same page plus a script that lists each image's state once the page has loaded; beside
    # index.html, so the relative image paths resolve the same way.
    check = os.path.join(folder, "chromium-check.html")
    with open(check, "w", encoding="utf-8") as handle:
        handle.write(page.replace("</body>", CHECK_SCRIPT + "</body>"))
    try:
        done = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000", "--dump-dom",
             "file://" + os.path.abspath(check)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.remove(check)
    assert done.returncode == 0, done.stderr[-2000:]
    match = re.search(r"IMAGES\n(.*?)\nEND", done.stdout, re.S)
    assert match, "the check script did not run: " + done.stdout[-1000:] + done.stderr[-1000:]
    rows = [line.split() for line in match.group(1).splitlines() if line.strip()]
    assert sorted(row[0] for row in rows) == plots_in(folder)
    for src, complete, width, height in rows:
        assert complete == "true" and int(width) > 0 and int(height) > 0, f"{src} did not load"
