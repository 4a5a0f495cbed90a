"""The report's PNG plots (matplotlib, Agg backend: no display needed).

Every plot compares the values of a *series* axis (one line or colour each; the policy by default)
and draws one panel per combination of the other axes that vary (at most MAX_PANELS; the rest
are listed in a note). Values come from the summary table (metric plots) or from /jobs and
/timeseries, so a plot and its table never disagree.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import metrics as metric_table  # noqa: E402
from .results import Results  # noqa: E402
from .summary import format_value, is_numeric_axis, tied_axes  # noqa: E402

MAX_PANELS = 9
DPI = 100
CDF_POINTS = 2000  # an ECDF drawn through at most this many of its order statistics
TIME_BINS = 200  # a time series is averaged into this many bins (seeds and samples pooled)

# Axis paths with a unit or a friendlier name; other axes are labelled by their path, and a path
# ending in _s is in seconds.
_AXIS_LABELS = {
    "workload.load": "offered load (GPU demand / capacity), workload.load",
}

# Figures are written as PNG (the HTML page shows those) and, for papers, in the report's extra
# formats (--figure-formats, default PDF and SVG), without creation dates so that a report
# written twice is the same bytes.
EXTRA_FORMATS = ("pdf", "svg")
_formats: tuple[str, ...] = ("png",) + EXTRA_FORMATS
_METADATA = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}


def set_extra_formats(extra) -> None:
    global _formats
    _formats = ("png",) + tuple(extra)

# The report's one time unit (tables.choose_time_unit), set by the report before it draws: every
# plot then shows times in it, as the tables do. None: each plot picks a readable unit itself.
_time_unit: tuple[str, float] | None = None


def set_time_unit(name: str | None, divisor: float = 1.0) -> None:
    global _time_unit
    _time_unit = (name, divisor) if name else None


def _time_scale(values) -> tuple[str, float]:
    return _time_unit if _time_unit else metric_table.time_scale(values)


def _metric_label(metric: str, values) -> tuple[str, float]:
    """(axis label with unit, divisor) for a metric, times in the report's unit."""
    if metric_table.info(metric).unit == "s" and _time_unit:
        return f"{metric_table.info(metric).label} ({_time_unit[0]})", _time_unit[1]
    return metric_table.axis_label(metric, values)


def save(fig, path: str) -> None:
    """Writes the figure as PATH (a .png) and beside it in each extra format (.pdf, .svg)."""
    stem = path[: -len(".png")] if path.endswith(".png") else path
    # SVG text stays text (editable and searchable in a paper's figure), PDF fonts TrueType.
    with matplotlib.rc_context({"svg.fonttype": "none", "pdf.fonttype": 42}):
        for extension in _formats:
            fig.savefig(f"{stem}.{extension}", dpi=DPI, bbox_inches="tight", metadata=_METADATA.get(extension))


@dataclass(frozen=True)
class Plot:
    file: str  # relative to the report folder: plots/NAME.png
    section: str
    title: str
    caption: str
    wide: bool = False  # several panels side by side: shown at full page width


def axis_label(path: str) -> str:
    if path in _AXIS_LABELS:
        return _AXIS_LABELS[path]
    if path.endswith("_s"):
        return f"{path} (s)"
    return path


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _colors(values) -> dict:
    palette = plt.get_cmap("tab10" if len(values) <= 10 else "tab20").colors
    return {value: palette[i % len(palette)] for i, value in enumerate(values)}


class Layout:
    """Series values, facet combinations and colours shared by every plot of a report."""

    def __init__(self, results: Results, series: str | None, x: str | None = None):
        """`x`: the axis drawn along the x of each panel; it and the axes zipped with it are not facets."""
        configs = results.configurations()
        self.series = series
        self.series_values = list(pd.unique(configs[series])) if series else [None]
        self.colors = _colors(self.series_values)
        along_x = {x, *tied_axes(configs, x, results.axes)} if x else set()
        self.facet_axes = [
            a for a in results.axes if a != series and a not in along_x and configs[a].nunique() > 1
        ]
        combos = configs[self.facet_axes].drop_duplicates() if self.facet_axes else pd.DataFrame([{}])
        self.facets = [dict(row) for _, row in combos.iterrows()]
        self.dropped = max(0, len(self.facets) - MAX_PANELS)
        self.facets = self.facets[:MAX_PANELS]

    def facet_title(self, facet: dict) -> str:
        parts = [f"{a}={format_value(v)}" for a, v in facet.items()]
        return ", ".join(parts) if sum(len(p) for p in parts) <= 45 else "\n".join(parts)

    def select(self, frame: pd.DataFrame, facet: dict) -> pd.DataFrame:
        mask = np.ones(len(frame), dtype=bool)
        for axis, value in facet.items():
            mask &= (frame[axis] == value).to_numpy()
        return frame[mask]

    def series_rows(self, frame: pd.DataFrame):
        for value in self.series_values:
            rows = frame if self.series is None else frame[frame[self.series] == value]
            yield value, rows

    def series_label(self, value) -> str:
        return "all" if self.series is None else format_value(value)

    def figure(self, panel_width=5.2, panel_height=3.6):
        count = len(self.facets)
        columns = min(3, count)
        rows = math.ceil(count / columns)
        fig, grid = plt.subplots(
            rows, columns, figsize=(panel_width * columns + 1.8, panel_height * rows + 0.6), squeeze=False,
            layout="constrained",
        )
        for extra in grid.flat[count:]:
            extra.set_visible(False)
        return fig, list(grid.flat[:count])

    def finish(self, fig, axes_list, title: str, path: str):
        for axes, facet in zip(axes_list, self.facets):
            if facet:
                axes.set_title(self.facet_title(facet), fontsize=10)
            axes.grid(True, alpha=0.3)
        handles, labels = [], []
        for axes in axes_list:
            for handle, label in zip(*axes.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        if handles and not (self.series is None and len(handles) == 1):
            fig.legend(handles, labels, title=self.series, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        fig.suptitle(title, fontsize=12)
        save(fig, path)
        plt.close(fig)

    def note(self) -> str:
        if not self.dropped:
            return ""
        return (f" Only the first {MAX_PANELS} combinations of {', '.join(self.facet_axes)} are drawn "
                f"({self.dropped} more in the tables).")


def cdf_samples(results: Results, layout: Layout, column: str = "jct") -> list[tuple[dict, object, np.ndarray]]:
    """What the JCT CDF draws: (facet, series value, sorted JCTs in seconds) per line, from the
    measured jobs of every successful point (the population of jct_p50 and the other JCT metrics),
    seeds pooled. Another /jobs `column` gives its values the same way, less its NaNs (jobs of
    points whose components did not add it)."""
    jobs = results.measured_jobs()
    if jobs is None or column not in jobs.columns or len(jobs) == 0:
        return []
    if column != "jct":
        jobs = jobs[np.isfinite(jobs[column].to_numpy(float))]
        if len(jobs) == 0:
            return []
    # Rows grouped by point (no merge of millions of rows with the axes): each line gathers the
    # rows of its points.
    point_id = jobs["point_id"].to_numpy()
    jct_all = jobs[column].to_numpy(float)
    # /jobs is in point_id order as written; sorted again only when it is not.
    if not np.all(point_id[1:] >= point_id[:-1]):
        order = np.argsort(point_id, kind="stable")
        point_id, jct_all = point_id[order], jct_all[order]
    starts = np.concatenate([[0], np.flatnonzero(point_id[1:] != point_id[:-1]) + 1])
    ends = np.concatenate([starts[1:], [point_id.size]])
    where = {int(point_id[s]): (int(s), int(e - s)) for s, e in zip(starts, ends)}
    ok = results.ok
    lines = []
    for facet in layout.facets:
        rows = layout.select(ok, facet)
        for value, series_rows in layout.series_rows(rows):
            parts = [jct_all[where[p][0]:where[p][0] + where[p][1]]
                     for p in series_rows["point_id"].astype(int) if p in where]
            jct = np.sort(np.concatenate(parts)) if parts else np.zeros(0)
            if jct.size:
                lines.append((facet, value, jct))
    return lines


def jct_cdf(results: Results, layout: Layout, folder: str) -> Plot | None:
    lines = cdf_samples(results, layout)
    if not lines:
        return None
    unit, divisor = _time_scale(np.concatenate([jct for _, _, jct in lines]))
    fig, panels = layout.figure()
    for axes, facet in zip(panels, layout.facets):
        for line_facet, value, jct in lines:
            if line_facet != facet:
                continue
            shown = jct / divisor
            shown = shown[shown > 0]  # a log axis: a JCT of 0 cannot be drawn (it still counts below)
            if shown.size == 0:
                continue
            first = jct.size - shown.size
            ranks = np.unique(np.linspace(0, shown.size - 1, min(shown.size, CDF_POINTS)).astype(int))
            axes.step(shown[ranks], (first + ranks + 1) / jct.size, where="post", color=layout.colors[value],
                      label=layout.series_label(value), linewidth=1.4)
        axes.set_xscale("log")
        axes.set_xlabel(f"job completion time ({unit}, log scale)")
        axes.set_ylabel("fraction of jobs with JCT ≤ x")
        axes.set_ylim(0, 1.02)
        axes.axhline(0.5, color="0.6", linewidth=0.6, linestyle=":")
    name = "plots/jct_cdf.png"
    layout.finish(fig, panels, "JCT distribution (measured jobs, seeds pooled)", f"{folder}/{name}")
    return Plot(name, "Job completion time", "JCT CDF",
                "Empirical CDF of the job completion time of the measured jobs (each run's steady-state window, "
                "the population of jct_p50 and the other JCT metrics), seeds pooled; the dotted line is the "
                "median." + layout.note(),
                wide=len(layout.facets) > 1)


def slowdown_cdf(results: Results, layout: Layout, folder: str) -> Plot | None:
    """The CDF of the LLM jobs' contention slowdown (/jobs column contention_slowdown: iteration
    time as run over alone on the same GPUs), where the file has it."""
    lines = cdf_samples(results, layout, "contention_slowdown")
    if not lines:
        return None
    fig, panels = layout.figure()
    for axes, facet in zip(panels, layout.facets):
        for line_facet, value, slowdown in lines:
            if line_facet != facet:
                continue
            ranks = np.unique(np.linspace(0, slowdown.size - 1, min(slowdown.size, CDF_POINTS)).astype(int))
            axes.step(slowdown[ranks], (ranks + 1) / slowdown.size, where="post", color=layout.colors[value],
                      label=layout.series_label(value), linewidth=1.4)
        axes.set_xlabel("contention slowdown (iteration time shared / alone)")
        axes.set_ylabel("fraction of LLM jobs with slowdown ≤ x")
        axes.set_ylim(0, 1.02)
    name = "plots/contention_slowdown_cdf.png"
    layout.finish(fig, panels, "Contention slowdown (measured LLM jobs, seeds pooled)", f"{folder}/{name}")
    return Plot(name, "Job completion time", "Contention slowdown CDF",
                "Empirical CDF of the LLM jobs' contention slowdown (mean iteration time as run, links shared "
                "with other jobs, over the time alone on the same GPUs; 1: no contention), measured jobs, seeds "
                "pooled." + layout.note(), wide=len(layout.facets) > 1)


def _seed_counts(rows: pd.DataFrame) -> str:
    low, high = int(rows["n"].min()), int(rows["n"].max())
    return str(low) if low == high else f"{low}-{high}"


def _positions(line: pd.DataFrame, x: str, numeric: bool, categories: list, offset: float):
    """The line's rows in x order and where they are drawn (nudged by `offset` so that error bars
    of several series at one x stay apart)."""
    if numeric:
        line = line.sort_values(x)
        return line, line[x].to_numpy(float) + offset
    position = np.array([categories.index(v) for v in line[x]], dtype=float)
    order = np.argsort(position)
    return line.iloc[order], position[order] + offset


def _draw_points(axes, position, values, low, high, color, label, steady_mask):
    """A line through the means, an error bar per point, hollow markers where not every seed was
    measured in steady state."""
    axes.plot(position, values, color=color, linewidth=1.3, label=label)
    finite = np.isfinite(low) & np.isfinite(high)
    if finite.any():
        axes.errorbar(position[finite], values[finite],
                      # Rounding may put a bound a hair inside the mean (a Wilson bound at a share of 0).
                      yerr=[np.maximum(values[finite] - low[finite], 0.0),
                            np.maximum(high[finite] - values[finite], 0.0)],
                      fmt="none", ecolor=color, elinewidth=1.2, capsize=3)
    axes.plot(position[steady_mask], values[steady_mask], "o", color=color, markersize=5)
    axes.plot(position[~steady_mask], values[~steady_mask], "o", markerfacecolor="white", markeredgecolor=color,
              markersize=5)


def _x_offsets(layout: Layout, numeric: bool, span: float) -> dict:
    count = len(layout.series_values)
    step = (0.012 * span if numeric else 0.06) if count > 1 else 0.0
    return {value: (i - (count - 1) / 2) * step for i, value in enumerate(layout.series_values)}


def _draw_series(axes, layout: Layout, rows: pd.DataFrame, x: str, numeric: bool, categories: list, offsets: dict,
                 steady: set[int] | None, columns: tuple[str, str, str], divisor: float = 1.0) -> None:
    """One error-bar series per layout series: the (value, low, high) columns of `rows` against x,
    nudged apart along x; hollow markers where a configuration was not steady at every seed."""
    value_column, low_column, high_column = columns
    for value, line in layout.series_rows(rows):
        if len(line) == 0:
            continue
        line, position = _positions(line, x, numeric, categories, offsets[value])
        mask = np.array([steady is None or int(c) in steady for c in line["config_id"]], dtype=bool)
        _draw_points(axes, position, line[value_column].to_numpy(float) / divisor,
                     line[low_column].to_numpy(float) / divisor, line[high_column].to_numpy(float) / divisor,
                     layout.colors[value], layout.series_label(value), mask)


def metric_vs_x(results: Results, layout: Layout, table: pd.DataFrame, metric: str, x: str, folder: str,
                confidence: float, steady: set[int] | None = None) -> Plot:
    rows = table[(table["metric"] == metric) & (table["n"] > 0)]
    numeric = is_numeric_axis(results.points[x])
    categories = list(pd.unique(results.configurations()[x]))
    label, divisor = _metric_label(metric, rows["mean"])
    meta = metric_table.info(metric)
    span = float(np.ptp(results.points[x].to_numpy(float))) if numeric and len(rows) else 1.0
    offsets = _x_offsets(layout, numeric, span)
    fig, panels = layout.figure()
    for axes, facet in zip(panels, layout.facets):
        sub = layout.select(rows, facet)
        _draw_series(axes, layout, sub, x, numeric, categories, offsets, steady, ("mean", "ci_low", "ci_high"),
                     divisor)
        low_bound, high_bound = meta.bounds
        if high_bound is not None:
            axes.set_ylim(-0.03, 1.03)
        elif low_bound is not None:
            axes.set_ylim(bottom=0)
        if not numeric:
            axes.set_xticks(range(len(categories)), [format_value(c) for c in categories], rotation=30, ha="right")
        axes.set_xlabel(axis_label(x))
        axes.set_ylabel(label)
    name = f"plots/{_safe(metric)}_vs_{_safe(x)}.png"
    title = f"{meta.label} vs {x}"
    what = (f"share of seeds with the flag set, with its {confidence:.0%} Wilson interval" if meta.flag else
            f"mean over seeds with its {confidence:.0%} t-interval (within the metric's possible values)")
    layout.finish(fig, panels, f"{title} ({'share' if meta.flag else 'mean'}, {confidence:.0%} CI over seeds)",
                  f"{folder}/{name}")
    hollow = " Hollow markers: not every seed was measured in steady state." if steady is not None else ""
    return Plot(name, "Metrics", title,
                f"{metric}: {what} as an error bar (seeds per point: {_seed_counts(rows)})." + hollow + layout.note(),
                wide=len(layout.facets) > 1)


def ratio_vs_x(results: Results, layout: Layout, table: pd.DataFrame, metric: str, x: str, folder: str,
               confidence: float, baseline_label: str, steady: set[int] | None = None) -> Plot | None:
    """The lead figure of a metric: how many times better than the baseline each configuration is
    (paired per-seed ratios, geometric mean and the interval of the paired t-test on their logs),
    against x, on a log scale with 1 marked."""
    rows = table[(table["metric"] == metric) & np.isfinite(table["speedup"])]
    if len(rows) == 0:
        return None
    numeric = is_numeric_axis(results.points[x])
    categories = list(pd.unique(results.configurations()[x]))
    span = float(np.ptp(results.points[x].to_numpy(float))) if numeric else 1.0
    offsets = _x_offsets(layout, numeric, span)
    meta = metric_table.info(metric)
    fig, panels = layout.figure()
    for axes, facet in zip(panels, layout.facets):
        sub = layout.select(rows, facet)
        _draw_series(axes, layout, sub, x, numeric, categories, offsets, steady,
                     ("speedup", "speedup_ci_low", "speedup_ci_high"))
        axes.axhline(1.0, color="0.4", linewidth=0.9, linestyle="--")
        axes.set_yscale("log")
        axes.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
        axes.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}x" if round(v, 6) in (0.5, 0.7, 1.5, 2, 3, 5) else ""))
        if not numeric:
            axes.set_xticks(range(len(categories)), [format_value(c) for c in categories], rotation=30, ha="right")
        axes.set_xlabel(axis_label(x))
        axes.set_ylabel(f"{meta.label}: x better than {baseline_label.split('=')[-1]}")
    name = f"plots/vs_baseline_{_safe(metric)}_vs_{_safe(x)}.png"
    title = f"{meta.label} relative to {baseline_label}"
    layout.finish(fig, panels, f"{title} (above 1 is better; {confidence:.0%} CI of the paired per-seed ratios)",
                  f"{folder}/{name}")
    hollow = " Hollow markers: not every seed was measured in steady state." if steady is not None else ""
    return Plot(name, "Relative to the baseline", title,
                f"{metric}: {'baseline / configuration' if meta.better == 'lower' else 'configuration / baseline'} "
                f"per seed (the same generated workload on both sides), its geometric mean and the {confidence:.0%} "
                "interval of the paired t-test on the log ratios (it excludes 1 exactly when the test's p is below "
                f"{1 - confidence:.2g}); configurations where a seed has no positive value are left out." + hollow
                + layout.note(), wide=len(layout.facets) > 1)


def _timeseries_quantities(series: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(column or derived name, y label, title) for every plottable time-series column."""
    quantities = []
    if {"busy_gpus", "idle_gpus"} <= set(series.columns):
        quantities.append(("gpu_allocation", "allocated GPUs (fraction of all GPUs, 0-1)", "GPU allocation"))
    known = {
        "fragmented_gpus": ("fragmented GPUs", "Fragmentation (idle GPUs the queue head cannot use)"),
        "queue_length": ("waiting jobs", "Queue length"),
        "running_jobs": ("running jobs", "Running jobs"),
        # Columns components add (sweep/README.md, "Columns components add").
        "leaf_uplink_util": ("leaf uplink utilisation (0-1)", "Link utilisation, leaf uplinks"),
        "spine_uplink_util": ("spine uplink utilisation (0-1)", "Link utilisation, spine uplinks"),
        "power_w": ("facility power (W)", "Power"),
        "solar_w": ("solar output (W)", "Solar output"),
        "grid_w": ("grid draw (W)", "Grid draw"),
        "battery_kwh": ("battery charge (kWh)", "Battery charge"),
    }
    for column in series.columns:
        if column in ("point_id", "time", "since_start", "busy_gpus", "idle_gpus") or not is_numeric_axis(series[column]):
            continue
        label, title = known.get(column, (column.replace("_", " "), column.replace("_", " ")))
        quantities.append((column, label, title))
    return quantities


def timeseries(results: Results, layout: Layout, folder: str) -> tuple[list[Plot], list[tuple[str, float]]]:
    """The time-series plots, and (column, value) for each quantity left out because it holds
    one value in every sample (e.g. the placement study's columns, 0 in time)."""
    series = results.measured_samples()
    if series is None or len(series) == 0 or "time" not in series.columns:
        return [], []
    columns = ["point_id"] + ([layout.series] if layout.series else []) + layout.facet_axes
    samples = series.merge(results.ok[columns], on="point_id")
    if len(samples) == 0:
        return [], []
    if {"busy_gpus", "idle_gpus"} <= set(samples.columns):
        total = (samples["busy_gpus"] + samples["idle_gpus"]).to_numpy(float)
        allocated = np.where(total > 0, samples["busy_gpus"] / np.maximum(total, 1), np.nan)
        samples = samples.assign(gpu_allocation=allocated)
    # Each run's measured time range, from its start: the runs of one configuration line up.
    time = samples["since_start"].to_numpy(float)
    unit, divisor = _time_scale([time.max()])
    if time.max() > time.min():
        edges = np.linspace(time.min(), time.max(), TIME_BINS + 1)
    else:
        edges = np.array([time.min(), time.min() + 1])
    bin_unit, bin_divisor = _time_scale([edges[1] - edges[0]])
    width = (edges[1] - edges[0]) / bin_divisor
    samples = samples.assign(_bin=np.clip(np.searchsorted(edges, time, side="right") - 1, 0, len(edges) - 2))
    centers = (edges[:-1] + edges[1:]) / 2 / divisor
    plots = []
    flat = []
    quantities = _timeseries_quantities(series)  # the file's columns, not the axes merged in above
    for column, label, title in quantities:
        values = samples[column].dropna()
        if len(values) and values.nunique() <= 1:
            flat.append((column, float(values.iloc[0])))
            continue
        fig, panels = layout.figure(panel_height=3.2)
        for axes, facet in zip(panels, layout.facets):
            rows = layout.select(samples, facet)
            for value, series_rows in layout.series_rows(rows):
                means = series_rows.groupby("_bin")[column].mean()
                if len(means) == 0:
                    continue
                axes.plot(centers[means.index.to_numpy()], means.to_numpy(float), color=layout.colors[value],
                          label=layout.series_label(value), linewidth=1.1)
            axes.set_xlabel(f"time since the measurement began ({unit})")
            axes.set_ylabel(label)
            if column == "gpu_allocation":
                axes.set_ylim(-0.02, 1.02)
        name = f"plots/timeseries_{_safe(column)}.png"
        layout.finish(fig, panels, f"{title} over the measured time (mean over seeds per {width:.3g}-{bin_unit} bin)",
                      f"{folder}/{name}")
        plots.append(Plot(name, "Time series", f"{title} over time",
                          "Sampled cluster state over each run's measured time range (its steady-state window, "
                          "warm-up and drain left out), from its start, averaged over seeds and over "
                          f"{TIME_BINS} time bins." + layout.note(), wide=len(layout.facets) > 1))
    return plots, flat


def heatmap(results: Results, table: pd.DataFrame, metric: str, x: str, y: str, folder: str) -> Plot:
    rows = table[(table["metric"] == metric) & (table["n"] > 0)]
    configs = results.configurations()
    fixed = {x, y, *tied_axes(configs, x, results.axes), *tied_axes(configs, y, results.axes)}
    averaged = [a for a in results.axes if a not in fixed and configs[a].nunique() > 1]
    # Configurations differing only in the averaged axes are pooled with equal weight.
    grid = rows.groupby([y, x], sort=False)["mean"].mean().unstack(x)
    x_values = sorted(pd.unique(configs[x])) if is_numeric_axis(configs[x]) else list(pd.unique(configs[x]))
    y_values = list(pd.unique(configs[y]))
    grid = grid.reindex(index=y_values, columns=x_values)
    label, divisor = _metric_label(metric, grid.to_numpy(float).ravel())
    values = grid.to_numpy(float) / divisor
    fig, axes = plt.subplots(figsize=(max(5.0, 1.1 * len(x_values) + 3), max(3.2, 0.5 * len(y_values) + 1.8)),
                             layout="constrained")
    image = axes.imshow(np.ma.masked_invalid(values), aspect="auto", cmap="viridis")
    axes.set_xticks(range(len(x_values)), [format_value(v) for v in x_values], rotation=30 if len(x_values) > 6 else 0)
    axes.set_yticks(range(len(y_values)), [format_value(v) for v in y_values])
    axes.set_xlabel(axis_label(x))
    axes.set_ylabel(axis_label(y))
    fig.colorbar(image, ax=axes, label=label)
    if values.size <= 144:
        finite = values[np.isfinite(values)]
        middle = (finite.min() + finite.max()) / 2 if finite.size else 0
        for (i, j), value in np.ndenumerate(values):
            if np.isfinite(value):
                axes.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=8,
                          color="black" if value > middle else "white")
    title = f"{metric_table.info(metric).label} over {x} and {y}"
    over = f"\n(mean over seeds and over {', '.join(averaged)})" if averaged else "\n(mean over seeds)"
    axes.set_title(title + over, fontsize=11)
    name = f"plots/heatmap_{_safe(metric)}_{_safe(x)}_{_safe(y)}.png"
    save(fig, f"{folder}/{name}")
    plt.close(fig)
    caption = f"Mean of {metric} over seeds" + (f", averaged over {', '.join(averaged)}." if averaged else ".")
    return Plot(name, "Heatmap", title, caption)
