"""Per-configuration summary over seeds, and differences against a baseline configuration.

A configuration is one combination of axis values (`config_id`); its replicates (seeds) are the
sample. With `--baseline AXIS=VALUE`, each configuration is compared with the configuration that
has VALUE on AXIS and the same values on the other axes (axes zipped with AXIS, whose value
follows AXIS's, are left out of that match). With paired seeds (the sweep's default), replicate
r of both configurations ran the same workload, so the difference is taken per seed (paired
t-test); otherwise the two samples are compared with Welch's t-test.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import metrics as metric_table
from . import stats
from .results import AnalysisError, Results


def format_value(value) -> str:
    """An axis value as the grid file writes it: fifo, 0.7, 12, true."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def is_numeric_axis(column: pd.Series) -> bool:
    """Numbers (not booleans): plotted at their values, sorted; other axes are categories."""
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def format_number(value) -> str:
    """A table cell: enough digits to compare rows, no more."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    value = float(value)
    magnitude = abs(value)
    if magnitude >= 1e4:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:.1f}"
    if magnitude >= 0.01 or magnitude == 0:
        return f"{value:.3f}"
    return f"{value:.3g}"


def format_p(p) -> str:
    if p is None or not np.isfinite(p):
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


@dataclass(frozen=True)
class Baseline:
    axis: str
    value: object
    label: str  # "scheduler.policy=fifo"


def default_series_axis(results: Results) -> str | None:
    """The axis whose values are compared (one line per value in plots): the policy by default."""
    if "scheduler.policy" in results.axes:
        return "scheduler.policy"
    varying = [a for a in results.axes if results.points[a].nunique() > 1]
    return (varying or results.axes or [None])[0]


def parse_baseline(results: Results, spec: str, default_axis: str | None) -> Baseline:
    """`--baseline VALUE` (of the series axis) or `--baseline AXIS=VALUE`."""
    if "=" in spec:
        axis, text = spec.split("=", 1)
        results.check_axis(axis, "--baseline")
    else:
        if default_axis is None:
            raise AnalysisError(f"--baseline '{spec}': {results.path} has no axes to pick a baseline from")
        axis, text = default_axis, spec
    values = pd.unique(results.points[axis])
    for value in values:
        if format_value(value) == text or str(value) == text:
            return Baseline(axis, value, f"{axis}={format_value(value)}")
        try:
            if isinstance(value, (float, np.floating, int, np.integer)) and float(text) == float(value):
                return Baseline(axis, value, f"{axis}={format_value(value)}")
        except ValueError:
            pass
    have = ", ".join(format_value(v) for v in values)
    raise AnalysisError(f"--baseline '{spec}': axis {axis} has no value '{text}' (its values: {have})")


def tied_axes(configs: pd.DataFrame, axis: str, axes: list[str]) -> list[str]:
    """Axes whose value is fixed by `axis`'s value (zipped with it, or constant)."""
    grouped = configs.groupby(axis, sort=False)
    return [a for a in axes if a != axis and grouped[a].nunique().max() <= 1]


def baseline_configs(results: Results, baseline: Baseline) -> dict[int, int | None]:
    """config_id -> config_id of its baseline (None when the grid has no matching configuration)."""
    configs = results.configurations()
    tied = set(tied_axes(configs, baseline.axis, results.axes))
    match = [a for a in results.axes if a != baseline.axis and a not in tied]
    key = lambda row: tuple(row[a] for a in match)  # noqa: E731
    chosen = configs[configs[baseline.axis] == baseline.value]
    by_key = {key(row): int(row["config_id"]) for _, row in chosen.iterrows()}
    return {int(row["config_id"]): by_key.get(key(row)) for _, row in configs.iterrows()}


def _pairs(results: Results, a: pd.DataFrame, b: pd.DataFrame, metric: str):
    """(values of a, values of b, paired?) for two configurations' ok points."""
    if results.paired_seeds:
        merged = a[["replicate", "seed", metric]].merge(
            b[["replicate", "seed", metric]], on=["replicate", "seed"], suffixes=("_a", "_b")
        )
        if len(merged) > 0:
            return merged[f"{metric}_a"].to_numpy(float), merged[f"{metric}_b"].to_numpy(float), True
    return a[metric].to_numpy(float), b[metric].to_numpy(float), False


def summarize(results: Results, confidence: float = 0.95, baseline: Baseline | None = None) -> pd.DataFrame:
    """Long table: one row per (configuration, metric); see analysis/README.md for the columns."""
    configs = results.configurations()
    ok = results.ok
    by_config = {int(cid): group for cid, group in ok.groupby("config_id")}
    empty = ok.iloc[0:0]
    failed = results.points[results.points["status"] != "ok"].groupby("config_id").size()
    baseline_of = baseline_configs(results, baseline) if baseline else {}
    rows = []
    for metric in metric_table.ordered(results.metrics):
        meta = metric_table.info(metric)
        for _, config in configs.iterrows():
            cid = int(config["config_id"])
            points = by_config.get(cid, empty)
            interval = stats.mean_interval(points[metric].to_numpy(float), confidence)
            row = {axis: config[axis] for axis in results.axes}
            row.update(
                config_id=cid, metric=metric, n=interval.n, failed=int(failed.get(cid, 0)),
                mean=interval.estimate, sd=interval.sd, ci_low=interval.low, ci_high=interval.high,
            )
            if baseline:
                row.update(_versus(results, metric, meta, points, baseline_of.get(cid), cid, by_config, empty,
                                   confidence))
            rows.append(row)
    return pd.DataFrame(rows)


def _versus(results, metric, meta, points, base_id, cid, by_config, empty, confidence) -> dict:
    nan = float("nan")
    out = dict(
        baseline_config_id=base_id if base_id is not None else -1, test="", n_diff=0, diff=nan,
        diff_ci_low=nan, diff_ci_high=nan, p=nan, ratio=nan, ratio_ci_low=nan, ratio_ci_high=nan,
        speedup=nan, speedup_ci_low=nan, speedup_ci_high=nan,
    )
    if base_id is None:
        out["test"] = "no baseline"
        return out
    if base_id == cid:
        out["test"] = "baseline"
        return out
    a, b, paired = _pairs(results, points, by_config.get(base_id, empty), metric)
    diff = stats.paired_difference(a, b, confidence) if paired else stats.welch_difference(a, b, confidence)
    ratio = stats.ratio_interval(a, b, paired, confidence)
    out.update(
        test=diff.test, n_diff=diff.n, diff=diff.estimate, diff_ci_low=diff.low, diff_ci_high=diff.high,
        p=diff.p, ratio=ratio.estimate, ratio_ci_low=ratio.low, ratio_ci_high=ratio.high,
    )
    # Speedup: how many times better than the baseline (>1 is better), for metrics with a direction.
    if meta.better == "higher":
        out.update(speedup=ratio.estimate, speedup_ci_low=ratio.low, speedup_ci_high=ratio.high)
    elif meta.better == "lower" and ratio.estimate > 0:
        low = 1 / ratio.high if ratio.high > 0 else nan
        high = 1 / ratio.low if ratio.low > 0 else float("inf")
        out.update(speedup=1 / ratio.estimate, speedup_ci_low=low, speedup_ci_high=high)
    return out


# ---------------------------------------------------------------------------------------------
# Markdown


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _bound(value) -> str:
    return ("∞" if value > 0 else "-∞") if np.isinf(value) else format_number(value)


def _interval_text(low, high) -> str:
    # An infinite bound is a real answer (a speedup whose ratio interval reaches 0); NaN is "none".
    if np.isnan(low) or np.isnan(high):
        return "-"
    return f"[{_bound(low)}, {_bound(high)}]"


def _plus_minus(mean, low, high) -> str:
    if not np.isfinite(high):
        return format_number(mean)
    return f"{format_number(mean)} ± {format_number((high - low) / 2)}"


def describe(results: Results, confidence: float, baseline: Baseline | None) -> str:
    """The header paragraph: what was read and how it is summarized."""
    points = results.points
    configs = points["config_id"].nunique()
    failed = int((points["status"] != "ok").sum())
    replicates = results.attrs.get("replicates", "?")
    if results.complete:
        state = "complete"
    elif results.from_journal:
        state = "sweep not finished: read from its journal"
    else:
        state = "incomplete: the sweep stopped early"
    text = (
        f"{len(points)} of {results.points_total} points ({state}): {configs} configurations x "
        f"{replicates} seeds ({'paired' if results.paired_seeds else 'independent'} seeds), {failed} failed. "
        f"Means with {confidence:.0%} Student t-intervals over seeds (failed points left out)."
    )
    if baseline:
        method = "paired t-test on common seeds" if results.paired_seeds else "Welch's t-test"
        text += (
            f" Differences and ratios against the baseline {baseline.label} (same values on the other axes; "
            f"{method}; ratio intervals by the delta method). p-values are per comparison, not corrected for "
            "multiple comparisons."
        )
    return text


@dataclass
class TableSection:
    level: int  # heading level: 2 for the main tables, 3 for each metric
    title: str
    header: list[str]
    rows: list[list[str]]


def sections(results: Results, table: pd.DataFrame, confidence: float, baseline: Baseline | None) -> list[TableSection]:
    """The summary's tables as text cells, rendered as Markdown (summary.md) and HTML alike."""
    axes = results.axes
    level = f"{confidence:.0%}"
    headline = metric_table.headline(results.metrics)
    wide = table[table["metric"].isin(headline)]
    configs = results.configurations()
    cells_of = {int(row["config_id"]): [format_value(row[a]) for a in axes] for _, row in configs.iterrows()}
    out = []

    rows = []
    for cid, cells in cells_of.items():
        sub = wide[wide["config_id"] == cid].set_index("metric")
        row = cells + [str(int(sub["n"].iloc[0])) if len(sub) else "0"]
        row += [_plus_minus(*sub.loc[m, ["mean", "ci_low", "ci_high"]]) for m in headline]
        rows.append(row)
    out.append(TableSection(2, f"Overview (mean ± {level} CI half-width)",
                            axes + ["n"] + [metric_table.table_label(m) for m in headline], rows))

    if baseline:
        directional = [m for m in headline if metric_table.info(m).better]
        rows = []
        for cid, cells in cells_of.items():
            sub = wide[wide["config_id"] == cid].set_index("metric")
            if sub["test"].iloc[0] in ("baseline", "no baseline"):
                continue
            row = list(cells)
            for m in directional:
                s = sub.loc[m]
                speedup = s["speedup"]
                row.append("-" if not np.isfinite(speedup) else
                           f"{speedup:.3f} {_interval_text(s['speedup_ci_low'], s['speedup_ci_high'])}")
            rows.append(row)
        out.append(TableSection(2, f"Speedup vs {baseline.label} (x, above 1 is better; {level} CI)",
                                axes + [metric_table.info(m).label for m in directional], rows))

    for metric in metric_table.ordered(results.metrics):
        meta = metric_table.info(metric)
        unit = metric_table.unit_text(metric)
        header = axes + ["n", "failed", "mean", f"{level} CI"]
        if baseline:
            header += [f"diff vs {baseline.label}", f"{level} CI", "p", "ratio", f"{level} CI"]
        rows = []
        for _, r in table[table["metric"] == metric].iterrows():
            row = list(cells_of[int(r["config_id"])])
            row += [str(int(r["n"])), str(int(r["failed"])), format_number(r["mean"]),
                    _interval_text(r["ci_low"], r["ci_high"])]
            if baseline:
                if r["test"] == "baseline":
                    row += ["(baseline)", "", "", "", ""]
                else:
                    row += [format_number(r["diff"]), _interval_text(r["diff_ci_low"], r["diff_ci_high"]),
                            format_p(r["p"]), format_number(r["ratio"]),
                            _interval_text(r["ratio_ci_low"], r["ratio_ci_high"])]
            rows.append(row)
        out.append(TableSection(3, f"{metric}: {meta.label} ({unit})", header, rows))
    return out


def to_markdown(results: Results, table: pd.DataFrame, confidence: float, baseline: Baseline | None) -> str:
    parts = [f"# Summary of {results.path}\n\n", describe(results, confidence, baseline) + "\n"]
    every_metric = False
    for section in sections(results, table, confidence, baseline):
        if section.level == 3 and not every_metric:
            parts.append("\n## Every metric\n")
            every_metric = True
        parts.append(f"\n{'#' * section.level} {section.title}\n\n")
        parts.append(_markdown_table(section.header, section.rows))
    return "".join(parts)
