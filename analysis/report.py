"""`clustersim-analyze RESULTS.h5 --out DIR`: summary tables, plots and index.html in one folder.

Everything is checked (file, axis and metric names, baseline) before anything is written; the
report is then built in a hidden folder beside DIR and renamed into place, so a failure leaves
no half-written report and an earlier one stays intact.
"""
from __future__ import annotations

import html
import os
import shutil
import tempfile
from dataclasses import dataclass

import pandas as pd

from . import components, findings, fleet, reliability
from . import metrics as metric_table
from . import tables
from .results import MEASURED_JOBS, AnalysisError, Results, load
from .summary import (Baseline, TableSection, sections_markdown, default_series_axis, describe, is_numeric_axis,
                      parse_baseline, sections, steady_configs, summarize)

# A file that marks a folder as a report of this command: --overwrite replaces only such folders.
MARKER = ".clustersim-report"


@dataclass
class ReportOptions:
    results: str
    out: str | None = None
    overwrite: bool = False
    baseline: str | None = None  # VALUE of the series axis, or AXIS=VALUE
    series: str | None = None  # axis drawn as one line per value (default scheduler.policy)
    x: str | None = None  # axis on the x of metric plots and heatmap (default workload.load)
    y: str | None = None  # heatmap's other axis (default: the series axis)
    metric: str | None = None  # heatmap metric (default jct_mean)
    confidence: float = 0.95
    figure_formats: str = "pdf,svg"  # written besides PNG; "none" for PNG only


def figure_formats(text: str) -> tuple[str, ...]:
    """--figure-formats: a comma-separated list of pdf and svg, or none."""
    from .plots import EXTRA_FORMATS

    if text.strip().lower() == "none":
        return ()
    chosen = [f.strip().lower() for f in text.split(",") if f.strip()]
    unknown = [f for f in chosen if f not in EXTRA_FORMATS and f != "png"]
    if unknown or not chosen:
        raise AnalysisError(f"--figure-formats '{text}': formats are {', '.join(EXTRA_FORMATS)} (comma-separated; "
                            "PNG is always written) or none")
    return tuple(dict.fromkeys(f for f in chosen if f != "png"))


def default_out(results_path: str) -> str:
    stem = results_path[:-3] if results_path.endswith(".h5") else results_path
    return stem + "_report"


def default_x_axis(results: Results, series: str | None) -> str | None:
    varying = [a for a in results.axes if a != series and results.points[a].nunique() > 1]
    if "workload.load" in varying:
        return "workload.load"
    numeric = [a for a in varying if is_numeric_axis(results.points[a])]
    return (numeric or varying or [None])[0]


def check_output_folder(out: str, overwrite: bool) -> None:
    if os.path.lexists(out):
        if not overwrite:
            raise AnalysisError(f"{out}: already exists: pass --overwrite to replace it")
        if not os.path.isdir(out) or os.path.islink(out):
            raise AnalysisError(f"{out}: exists and is not a folder; refusing to replace it")
        if os.listdir(out) and not os.path.exists(os.path.join(out, MARKER)):
            raise AnalysisError(f"{out}: is a folder this command did not write; refusing to replace it")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise AnalysisError(f"{out}: the folder {parent} does not exist")


@dataclass
class Choices:
    series: str | None
    x: str | None
    y: str | None
    metric: str
    baseline: Baseline | None


def choose(results: Results, options: ReportOptions) -> Choices:
    """Checks every axis, metric and baseline named on the command line; picks the defaults."""
    series = results.check_axis(options.series, "--series") if options.series else default_series_axis(results)
    x = results.check_axis(options.x, "--x") if options.x else default_x_axis(results, series)
    if options.y:
        y = results.check_axis(options.y, "--y")
    else:
        others = [a for a in results.axes if a != x and results.points[a].nunique() > 1]
        y = series if series in others else (others or [None])[0]
    if x is not None and x == y:
        raise AnalysisError(f"--x and --y are both '{x}': the heatmap needs two different axes")
    if options.metric:
        metric = results.check_metric(options.metric, "--metric")
    else:
        metric = metric_table.headline(results.metrics)[0]
    baseline = parse_baseline(results, options.baseline, series) if options.baseline else None
    figure_formats(options.figure_formats)
    if not 0 < options.confidence < 1:
        raise AnalysisError(f"--confidence {options.confidence}: must be between 0 and 1 (e.g. 0.95)")
    return Choices(series, x, y, metric, baseline)


def write_report(options: ReportOptions) -> tuple[str, Results]:
    # Only the measured jobs' JCTs of /jobs: a large sweep's rows are read block by block.
    results = load(options.results, jobs=MEASURED_JOBS)
    choices = choose(results, options)
    out = options.out or default_out(options.results)
    check_output_folder(out, options.overwrite)
    if len(results.ok) == 0:
        raise AnalysisError(
            f"{options.results}: no successful point to analyse ({len(results.points)} points, all failed)")

    parent = os.path.dirname(os.path.abspath(out))
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(out))}.tmp-", dir=parent)
    try:
        _build(results, options, choices, staging)
        _replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out, results


def write_folder(out: str, command: str, writers: dict) -> None:
    """Writes each file of `writers` (name -> function(path)) into a staging folder beside `out`, marks
    it as written by `clustersim-analyze COMMAND`, then moves it into place: all the files or none."""
    parent = os.path.dirname(os.path.abspath(out))
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(out))}.tmp-", dir=parent)
    try:
        for name, write in writers.items():
            write(os.path.join(staging, name))
        with open(os.path.join(staging, MARKER), "w", encoding="utf-8") as handle:
            handle.write(f"written by clustersim-analyze {command}; --overwrite may replace this folder\n")
        _replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_text(text: str):
    """A writer for write_folder: the file holds `text`."""
    def write(path: str) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return write


def _replace(staging: str, out: str) -> None:
    if os.path.exists(out):
        old = staging + "-old"
        os.rename(out, old)
        os.rename(staging, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(staging, out)


def _build(results: Results, options: ReportOptions, choices: Choices, folder: str) -> None:
    from . import plots  # matplotlib: imported once the input is known to be good

    os.makedirs(os.path.join(folder, "plots"))
    os.makedirs(os.path.join(folder, "tables"))
    table = summarize(results, options.confidence, choices.baseline)
    table.to_csv(os.path.join(folder, "summary.csv"), index=False)  # seconds, full precision
    unit = tables.choose_time_unit(table, results.metrics)
    plots.set_time_unit(unit.name, unit.divisor)
    extra_formats = figure_formats(options.figure_formats)
    plots.set_extra_formats(extra_formats)
    shown = tables.in_unit(table, results.metrics, unit)
    table_sections = _page_sections(results, shown, options.confidence, choices.baseline, unit)
    table_sections += components.sections(results, choices.series)  # columns components add
    table_sections += fleet.sections(results)  # a fleet's routers and clusters (its /jobs columns)
    table_sections += reliability.sections(results)  # where failure classes interrupted jobs
    opening = findings.findings(results, table, choices.x, choices.baseline, options.confidence)
    cautions = findings.warnings(results)
    latex = _write_latex(results, table_sections, folder)
    extra = ""
    if opening:
        extra += "\n## Findings\n\n" + "".join(f"* {line}\n" for line in opening)
    if cautions:
        extra += "\n## Warnings\n\n" + "".join(f"* {line}\n" for line in cautions)
    with open(os.path.join(folder, "summary.md"), "w", encoding="utf-8") as handle:
        handle.write(f"# Summary of {results.path}\n" + extra + "\n"
                     + _intro(results, options, choices, unit) + "\n" + sections_markdown(table_sections))

    figures: list[plots.Plot] = []
    notes: list[str] = []
    everything = plots.Layout(results, choices.series)
    steady = steady_configs(results) if "steady_state" in results.points.columns else None
    # The lead figures: each headline metric relative to the baseline (paired per-seed ratios).
    if choices.x and choices.baseline:
        by_x = plots.Layout(results, choices.series, choices.x)
        for metric in findings.FINDING_METRICS:
            if metric in results.metrics:
                figure = plots.ratio_vs_x(results, by_x, table, metric, choices.x, folder, options.confidence,
                                          choices.baseline.label, steady)
                if figure:
                    figures.append(figure)
                else:
                    notes.append(f"No {metric} relative to the baseline: no configuration has a positive value "
                                 "on every seed on both sides.")
    cdf = plots.jct_cdf(results, everything, folder)
    if cdf:
        figures.append(cdf)
    else:
        notes.append("No JCT CDF: the file has no per-job table (run the sweep with --save-jobs).")
    slowdown = plots.slowdown_cdf(results, everything, folder)
    if slowdown:
        figures.append(slowdown)
    figures += reliability.plots(results, folder)
    if choices.x:
        by_x = plots.Layout(results, choices.series, choices.x)
        ok = results.ok
        for metric in metric_table.ordered(results.metrics):
            if metric_table.info(metric).diagnostic:
                continue
            values = ok[metric].dropna()
            if len(values) == 0:
                notes.append(f"No plot of {metric}: no point has a value.")
                continue
            if values.nunique() <= 1:
                notes.append(f"No plot of {metric}: it is {values.iloc[0]:g} at every point that has a value.")
                continue
            figures.append(plots.metric_vs_x(results, by_x, table, metric, choices.x, folder, options.confidence,
                                             steady))
    else:
        notes.append("No metric plots: the grid has no axis with more than one value besides the series.")
    series_plots, flat = plots.timeseries(results, everything, folder)
    figures += series_plots
    if not series_plots and not flat:
        notes.append("No time series: the file has no /timeseries table (run the sweep with --save-timeseries).")
    for column, value in flat:
        notes.append(f"No time series of {column}: it is {value:g} in every sample (nothing to draw).")
    if choices.x and choices.y:
        figures.append(plots.heatmap(results, table, choices.metric, choices.x, choices.y, folder))
    else:
        notes.append("No heatmap: it needs two axes with more than one value each (--x, --y).")

    page = _html(results, options, choices, unit, table_sections, latex, figures, notes, opening, cautions,
                 extra_formats)
    with open(os.path.join(folder, "index.html"), "w", encoding="utf-8") as handle:
        handle.write(page)
    with open(os.path.join(folder, MARKER), "w", encoding="utf-8") as handle:
        handle.write("written by clustersim-analyze; --overwrite may replace this folder\n")


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; }
td.axis, th.axis { text-align: left; }
.scroll { overflow-x: auto; }
figure { display: inline-block; margin: 0.5em 1em 1.5em 0; vertical-align: top; width: calc(50% - 1.5em); }
figure.wide { display: block; width: auto; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.85em; color: #555; max-width: 70ch; }
.note { color: #555; }
details { margin: 0.3em 0; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; }
ul.findings li { margin: 0.3em 0; max-width: 110ch; }
.warnings { background: #fff6e0; border: 1px solid #e8c060; padding: 0.2em 1em; margin: 1em 0; }
.warnings li { max-width: 110ch; }
"""

_PROVENANCE = ["grid_path", "grid_sha256", "points_done", "points_total", "complete", "replicates", "paired_seeds",
               "grid_seed", "software_version", "git_commit", "start_time", "end_time", "sessions", "ranks", "threads",
               "hostname", "slurm_job_id", "snapshot_time"]


def _table_html(section: TableSection, axis_columns: int) -> str:
    escape = html.escape
    head = "".join(f'<th class="axis">{escape(h)}</th>' if i < axis_columns else f"<th>{escape(h)}</th>"
                   for i, h in enumerate(section.header))
    body = "".join(
        "<tr>" + "".join(f'<td class="axis">{escape(c)}</td>' if i < axis_columns else f"<td>{escape(c)}</td>"
                         for i, c in enumerate(row)) + "</tr>"
        for row in section.rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _fitted_html(section: TableSection, axes: list[str]) -> str:
    """The table split by columns to fit the page (tables.fit), each part under its own caption."""
    parts = tables.fit(section, len(axes), tables.HTML_CHARACTERS)
    if len(parts) == 1:
        return _table_html(section, len(axes))
    return "".join(f'<p class="part">{html.escape(part.title[len(section.title):].strip())}</p>'
                   f"{_table_html(part, tables.key_columns(part, axes))}" for part in parts)


def _intro(results: Results, options: ReportOptions, choices: Choices, unit: tables.TimeUnit) -> str:
    text = describe(results, options.confidence, choices.baseline)
    if unit.divisor != 1.0:
        text += (f" Times are in {unit.words} in every table and plot of this report (summary.csv keeps "
                 "seconds).")
    return text + "\n"


def _page_sections(results: Results, shown: pd.DataFrame, confidence: float, baseline: Baseline | None,
                   unit: tables.TimeUnit) -> list[TableSection]:
    """summary.py's tables with times in the report's unit."""
    return [tables.relabel(section, results.metrics, unit)
            for section in sections(results, shown, confidence, baseline)]


def _write_latex(results: Results, table_sections: list[TableSection], folder: str) -> dict[int, str]:
    """A LaTeX file for every table: tables/NAME.tex for the main ones, tables/metrics/METRIC.tex
    for each metric's; index in table_sections -> its file (relative path)."""
    files = {}
    used: set[str] = set()
    os.makedirs(os.path.join(folder, "tables", "metrics"), exist_ok=True)
    for i, section in enumerate(table_sections):
        stem = tables.file_stem(section.title)
        name = f"tables/{stem}.tex" if section.level == 2 else f"tables/metrics/{stem}.tex"
        while name in used:  # two titles with the same leading words (not expected): keep both
            name = name[:-4] + "_.tex"
        used.add(name)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write(tables.to_latex(section, results.axes, stem))
        files[i] = name
    return files


def _html(results: Results, options: ReportOptions, choices: Choices, unit: tables.TimeUnit,
          table_sections: list[TableSection], latex: dict[int, str], figures: list, notes: list[str],
          opening: list[str], cautions: list[str], extra_formats: tuple[str, ...] = ()) -> str:
    escape = html.escape
    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>clustersim report: {escape(results.path)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>clustersim sweep report: {escape(os.path.basename(results.path))}</h1>",
    ]
    if opening:
        parts.append('<h2>Findings</h2><ul class="findings">'
                     + "".join(f"<li>{escape(line)}</li>" for line in opening) + "</ul>")
    if cautions:
        parts.append('<div class="warnings"><h2>Warnings</h2><ul>'
                     + "".join(f"<li>{escape(line)}</li>" for line in cautions) + "</ul></div>")
    parts += [
        f"<p>{escape(_intro(results, options, choices, unit))}</p>",
        '<p>Files: <a href="summary.md">summary.md</a> · <a href="summary.csv">summary.csv</a> '
        "(one row per configuration and metric, full precision, seconds) · every table as LaTeX in "
        '<a href="tables/">tables/</a> (booktabs) · every figure as '
        f'{escape(" and ".join(["PNG"] + [f.upper() for f in extra_formats]))} in <a href="plots/">plots/</a></p>',
    ]

    def latex_link(i: int) -> str:
        return f' <a class="tex" href="{escape(latex[i])}">LaTeX</a>' if i in latex else ""

    for i, section in enumerate(table_sections):
        if section.level == 2:
            parts.append(f"<h2>{escape(section.title)}</h2>{latex_link(i)}{_fitted_html(section, results.axes)}")
    current = None
    for figure in figures:
        if figure.section != current:
            parts.append(f"<h2>{escape(figure.section)}</h2>")
            current = figure.section
        stem = figure.file[: -len(".png")]
        links = " · ".join(f'<a href="{escape(stem)}.{f}">{f.upper()}</a>' for f in extra_formats)
        parts.append(
            f'<figure class="{"wide" if figure.wide else "half"}"><img src="{escape(figure.file)}" '
            f'alt="{escape(figure.title)}">'
            f"<figcaption>{escape(figure.caption)}{f' ({links})' if links else ''}</figcaption></figure>")
    if notes:
        parts.append("<h2>Not shown</h2><ul>" + "".join(f'<li class="note">{escape(n)}</li>' for n in notes) + "</ul>")
    parts.append("<h2>Every metric</h2>")
    for i, section in enumerate(table_sections):
        if section.level == 3:
            parts.append(f"<details><summary>{escape(section.title)}</summary>{latex_link(i)}"
                         f"{_fitted_html(section, results.axes)}</details>")
    rows = "".join(f'<tr><th class="axis">{escape(k)}</th><td class="axis">{escape(str(results.attrs[k]))}</td></tr>'
                   for k in _PROVENANCE if k in results.attrs)
    parts.append(f"<h2>Provenance</h2><table>{rows}</table>")
    if "grid_text" in results.attrs:
        grid_text = escape(str(results.attrs["grid_text"]))
        parts.append(f"<details><summary>Grid file</summary><pre>{grid_text}</pre></details>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
