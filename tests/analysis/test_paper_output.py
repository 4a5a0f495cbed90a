"""Paper-ready output: one time unit in every table and plot of a report, plots that would be flat
left out with a note, tables split to fit a page, every figure also as PDF and SVG, every table
also as LaTeX; and a point whose metric has no value (NaN) shown as "no value", not refused."""
import os
import re
import shutil

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis import tables
from analysis.summary import TableSection
from conftest import run

UNITS = {"seconds": ("s", 1.0), "minutes": ("min", 60.0), "hours": ("h", 3600.0), "days": ("days", 86400.0)}


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def report_unit(folder):
    """The unit the report's mean-JCT table states: (words, short name, seconds per unit)."""
    words = re.search(r"### jct_mean: mean JCT \((\w+)\)", read(os.path.join(folder, "summary.md"))).group(1)
    return (words,) + UNITS[words]


def test_one_time_unit_in_every_table_and_plot(report, sweep_file):
    folder, _ = report
    words, short, divisor = report_unit(folder)
    # Chosen for the typical mean JCT, as computed here from the file (not from the report).
    with h5py.File(sweep_file, "r") as f:
        points = pd.DataFrame({"config_id": f["points/config_id"][()], "jct_mean": f["points/jct_mean"][()]})
    typical = float(np.median(points.groupby("config_id")["jct_mean"].mean()))  # the configurations' median
    expected = next(name for name, (unit, seconds) in sorted(UNITS.items(), key=lambda u: -u[1][1])
                    if typical >= 2 * seconds)
    assert words == expected, (words, typical)
    markdown = read(os.path.join(folder, "summary.md"))
    # Every time-valued table says that unit; none says another.
    for metric in ["jct_mean", "jct_p99", "queue_mean", "makespan"]:
        assert f"### {metric}: " in markdown and re.search(rf"### {metric}: [^\n]*\({words}\)", markdown), metric
        assert f"{metric} ({short})" in markdown  # the overview's column header
    other = [w for w in UNITS if w != words]
    assert not re.search(r"### \w+: [^\n]*\((" + "|".join(other) + r")\)", markdown)
    # The overview's mean JCT of fifo at 0.6 is the seconds in summary.csv over the unit.
    summary = pd.read_csv(os.path.join(folder, "summary.csv"))
    row = summary[(summary["metric"] == "jct_mean") & (summary["scheduler.policy"] == "fifo")
                  & (summary["workload.load"] == 0.6)].iloc[0]
    overview = markdown.split("## Overview")[1].splitlines()
    header = [c.strip() for c in next(l for l in overview if l.startswith("| scheduler.policy")).strip("|").split("|")]
    line = next(l for l in overview if l.startswith("| fifo | 0.6 |"))
    cell = [c.strip() for c in line.strip("|").split("|")][header.index(f"jct_mean ({short})")]
    shown = float(cell.split()[0].replace(",", ""))
    assert shown == pytest.approx(row["mean"] / divisor, rel=2e-3)
    # The plots' time axes say the same unit (SVG keeps its text as text).
    plots = os.path.join(folder, "plots")
    assert f"mean JCT ({short})" in read(os.path.join(plots, "jct_mean_vs_workload.load.svg"))
    assert f"job completion time ({short}, log scale)" in read(os.path.join(plots, "jct_cdf.svg"))
    assert f"time since the measurement began ({short})" in read(os.path.join(plots, "timeseries_queue_length.svg"))
    assert f"mean JCT ({short})" in read(os.path.join(plots, "heatmap_jct_mean_workload.load_scheduler.policy.svg"))
    if words != "seconds":
        assert f"Times are in {words} in every table and plot" in read(os.path.join(folder, "index.html"))


def test_flat_plots_are_left_out_with_a_note(report, sweep_file):
    folder, _ = report
    page = read(os.path.join(folder, "index.html"))
    with h5py.File(sweep_file, "r") as f:
        columns = {k: f["timeseries"][k][()] for k in f["timeseries"] if k not in ("point_id", "time")}
    flat = [k for k, v in columns.items() if np.all(v == v[0])]
    # The placement study's three columns are 0 in a time-driven run.
    assert {"alloc_ratio", "unallocated_share", "frag_rate"} <= set(flat)
    for column in flat:
        assert not os.path.exists(os.path.join(folder, "plots", f"timeseries_{column}.png")), column
        assert f"No time series of {column}: it is {columns[column][0]:g} in every sample" in page
    for column in set(columns) - set(flat) - {"busy_gpus", "idle_gpus"}:
        assert os.path.exists(os.path.join(folder, "plots", f"timeseries_{column}.png")), column


def test_figures_as_pdf_and_svg(report):
    folder, _ = report
    plots = os.path.join(folder, "plots")
    pngs = [name for name in os.listdir(plots) if name.endswith(".png")]
    assert pngs
    page = read(os.path.join(folder, "index.html"))
    for name in pngs:
        stem = name[:-4]
        with open(os.path.join(plots, stem + ".pdf"), "rb") as handle:
            assert handle.read(5) == b"%PDF-", stem
        svg = read(os.path.join(plots, stem + ".svg"))
        assert "<svg" in svg and "</svg>" in svg, stem
        assert f'href="plots/{stem}.pdf"' in page and f'href="plots/{stem}.svg"' in page


def test_figure_formats_option(analyze, sweep_file, tmp_path):
    # (--figure-formats none: test_no_value_is_shown_not_refused's report, PNG only.)
    status, _, stderr = run([analyze, sweep_file, "--out", str(tmp_path / "bad"), "--figure-formats", "eps"])
    assert status == 2 and "--figure-formats 'eps': formats are pdf, svg" in stderr
    assert not os.path.exists(tmp_path / "bad")


def latex_rows(text):
    body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [line for line in body.splitlines() if line.strip()]


def test_every_table_as_latex(report):
    folder, _ = report
    main = sorted(os.listdir(os.path.join(folder, "tables")))
    metrics = sorted(os.listdir(os.path.join(folder, "tables", "metrics")))
    assert "overview.tex" in main and "speedup_vs_scheduler_policy_fifo.tex" in main
    assert "jct_mean.tex" in metrics and "gpu_util.tex" in metrics
    for name in [os.path.join("tables", n) for n in main if n.endswith(".tex")] + \
            [os.path.join("tables", "metrics", n) for n in metrics]:
        text = read(os.path.join(folder, name))
        assert text.count("\\begin{table}") == 1 and text.count("\\end{table}") == 1, name
        assert text.count("\\begin{tabular}") == text.count("\\end{tabular}") >= 1, name
        # Every tabular: each row has as many cells as its column spec, and fits the page.
        for block in text.split("\\begin{tabular}")[1:]:
            spec = re.match(r"\{([lr]+)\}", block).group(1)
            header = block.split("\\toprule\n", 1)[1].split("\n", 1)[0]
            for row in [header] + latex_rows(block):
                assert row.endswith(" \\\\"), (name, row)
                cells = re.split(r"(?<!\\)&", row[: -len(" \\\\")])
                assert len(cells) == len(spec), (name, row)
                # No LaTeX special character left unescaped (& is the separator, \ starts a command).
                plain = re.sub(r"\\[a-zA-Z]+\{\}|\\[&%$#_{}]|\$\\[a-z]+\$", "", row[: -len(" \\\\")])
                assert not re.search(r"[%$#_{}~^]", plain), (name, row)
            width = max(sum(len(c) + 3 for c in re.split(r"(?<!\\)&", r)) for r in [header] + latex_rows(block))
            assert width <= 2 * tables.LATEX_CHARACTERS, (name, width)  # escapes lengthen the source
    # The overview's mean JCT column, as in summary.md.
    overview = read(os.path.join(folder, "tables", "overview.tex"))
    assert "jct\\_mean (" in overview and "$\\pm$" in overview and "\\caption{Overview" in overview


def test_latex_escape():
    text = "a_b & 50% $5 #1 {x} ~ ^ \\ <> | ± ∞ ≤ ≥"
    escaped = tables.latex_escape(text)
    assert escaped == ("a\\_b \\& 50\\% \\$5 \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{} "
                       "\\textless{}\\textgreater{} \\textbar{} $\\pm$ $\\infty$ $\\leq$ $\\geq$")


def test_fit_splits_wide_tables_by_columns():
    rows = [["fifo", "16", "0.5", f"{i}.000 ± 1.000", "x" * 30, "y" * 30, "z" * 30] for i in range(3)]
    rows[1][0] = "las"
    section = TableSection(2, "Overview", ["scheduler.policy", "cluster.nodes", "workload.load", "a", "b", "c", "d"],
                           rows)
    parts = tables.fit(section, 3, 80)
    assert len(parts) > 1
    # cluster.nodes holds one value in every row: said once in the title, not repeated.
    assert all(p.title.startswith("Overview [cluster.nodes=16, workload.load=0.5] (part ") for p in parts)
    assert [p.header[0] for p in parts] == ["scheduler.policy"] * len(parts)
    assert sorted(h for p in parts for h in p.header[1:]) == ["a", "b", "c", "d"]
    for part in parts:
        assert sum(max(len(c) for c in column) + 3 for column in zip(part.header, *part.rows)) <= 80
        assert [r[0] for r in part.rows] == ["fifo", "las", "fifo"]
    # A table that fits is left whole, its constant axes included.
    assert tables.fit(section, 3, 1000) == [section]


def test_no_value_is_shown_not_refused(analyze, sweep_file, tmp_path):
    """A point that measured no job writes NaN for its JCT percentiles: the report says "no value"
    where no seed of a configuration has one, and averages the seeds that do elsewhere."""
    path = tmp_path / "nan.h5"
    shutil.copy(sweep_file, path)
    with h5py.File(path, "a") as f:
        policy = f["points/scheduler.policy"].asstr()[()]
        load = f["points/workload.load"][()]
        p99 = f["points/jct_p99"][()]
        every = (policy == "srtf") & (load == 0.9)  # all seeds of a configuration
        one = np.flatnonzero((policy == "tiresias") & (load == 0.6))[0]
        kept = p99[(policy == "tiresias") & (load == 0.6)]
        p99[every] = np.nan
        p99[one] = np.nan
        f["points/jct_p99"][...] = p99
    out = tmp_path / "r"
    status, stdout, stderr = run([analyze, str(path), "--out", str(out), "--baseline", "fifo", "--figure-formats", "none"])
    assert status == 0, stderr
    names = os.listdir(out / "plots")  # --figure-formats none: PNG only
    assert names and all(name.endswith(".png") for name in names)
    summary = pd.read_csv(out / "summary.csv")
    rows = summary[summary["metric"] == "jct_p99"].set_index(["scheduler.policy", "workload.load"])
    assert rows.loc[("srtf", 0.9), "n"] == 0 and np.isnan(rows.loc[("srtf", 0.9), "mean"])
    assert rows.loc[("tiresias", 0.6), "n"] == 2
    assert rows.loc[("tiresias", 0.6), "mean"] == pytest.approx(np.mean(kept[1:]), rel=1e-12)
    markdown = read(out / "summary.md")
    section = markdown.split("### jct_p99:")[1].split("###")[0]
    line = next(l for l in section.splitlines() if l.startswith("| srtf | 0.9 |"))
    assert "| no value |" in line
    overview = markdown.split("## Overview")[1].split("\n## ")[0]
    assert "no value" in next(l for l in overview.splitlines() if l.startswith("| srtf | 0.9 |"))
    # An infinity is still refused, naming the metric and the point.
    with h5py.File(path, "a") as f:
        p99 = f["points/jct_p99"][()]
        p99[0] = np.inf
        f["points/jct_p99"][...] = p99
    status, _, stderr = run([analyze, str(path), "--out", str(tmp_path / "r2")])
    assert status == 2 and "/points/jct_p99 is inf at point 0, not a finite number" in stderr
    assert not os.path.exists(tmp_path / "r2")
