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


NO_VALUE = "no value"


def format_mean(value) -> str:
    """A configuration's mean: "no value" where no seed has one (a point that measured no job
    writes NaN for its JCT metrics)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NO_VALUE
    return format_number(value)


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
    found = _find_value(results, axis, text)
    if found is not None:
        return Baseline(axis, found, f"{axis}={format_value(found)}")
    if "=" not in spec:
        # The default axis is the first that varies in this file; in a partial file (a shard, a
        # sweep in progress) that may not be the axis the value belongs to: take the one that has it.
        others = [(a, v) for a in results.axes if a != axis for v in [_find_value(results, a, text)] if v is not None]
        if len(others) == 1:
            other, value = others[0]
            return Baseline(other, value, f"{other}={format_value(value)}")
        if len(others) > 1:
            names = ", ".join(a for a, _ in others)
            raise AnalysisError(f"--baseline '{spec}': axes {names} all have that value: say which (--baseline AXIS=VALUE)")
    have = ", ".join(format_value(v) for v in pd.unique(results.points[axis]))
    raise AnalysisError(f"--baseline '{spec}': axis {axis} has no value '{text}' (its values: {have})")


def _find_value(results: Results, axis: str, text: str):
    """The value of `axis` in the file written as `text`, or None."""
    for value in pd.unique(results.points[axis]):
        if format_value(value) == text or str(value) == text:
            return value
        try:
            if isinstance(value, (float, np.floating, int, np.integer)) and float(text) == float(value):
                return value
        except ValueError:
            pass
    return None


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


def pseudo_replicates(results: Results) -> set[int]:
    """Configurations whose (two or more) successful seeds gave identical results on every metric:
    not independent replicates (a fixed trace with nothing random). They get no interval."""
    pseudo = set()
    for cid, group in results.ok.groupby("config_id"):
        if len(group) >= 2 and all(stats.identical(group[m].to_numpy(float)) for m in results.metrics):
            pseudo.add(int(cid))
    return pseudo


def verdicts(results: Results) -> dict[int, str]:
    """config_id -> its seeds' steady-state verdicts ("5 steady", "2 steady, 3 overloaded"); empty
    where the file has no verdict or no seed was assessed."""
    flags = [f for f in metric_table.VERDICT_FLAGS if f in results.points.columns]
    if not flags:
        return {}
    words = {"steady_state": "steady", "window_overloaded": "overloaded", "window_too_short": "too short"}
    out = {}
    for cid, group in results.ok.groupby("config_id"):
        parts = [f"{int((group[f] != 0).sum())} {words[f]}" for f in flags if (group[f] != 0).any()]
        if parts and "window_too_short" in group and (group["window_too_short"] != 0).any() and "more_jobs" in group:
            parts[-1] += f" (run {group['more_jobs'].max():g}x more jobs)"
        out[int(cid)] = ", ".join(parts)
    return out


def steady_configs(results: Results) -> set[int]:
    """Configurations every successful seed of which was measured in steady state (or that the
    file does not judge: no verdict columns, or runs the rule did not assess)."""
    flags = [f for f in ("window_overloaded", "window_too_short") if f in results.points.columns]
    out = set()
    for cid, group in results.ok.groupby("config_id"):
        if not flags or all((group[f] == 0).all() for f in flags):
            out.add(int(cid))
    return out


def interval_of(values, meta, confidence: float, pseudo: bool) -> tuple[stats.Interval, str]:
    """The interval of one configuration's metric, and how it was made."""
    if pseudo:
        x = np.asarray(values, float)
        return stats.Interval(int(x.size), float(x[0]) if x.size else float("nan"), float("nan"),
                              float("nan"), 0.0), "none: identical seeds"
    if meta.flag:
        return stats.share_interval(values, confidence), "Wilson (share of seeds)"
    low, high = meta.bounds
    interval = stats.bounded_interval(values, confidence, low, high)
    if low is None and high is None:
        return interval, "t"
    clipped = (np.isfinite(interval.low) and low is not None and interval.low == low) or (
        np.isfinite(interval.high) and high is not None and interval.high == high)
    text = f"[{low:g}, {high:g}]" if high is not None else f">= {low:g}"
    return interval, f"t, within {text}" + (" (clipped)" if clipped else "")


def summarize(results: Results, confidence: float = 0.95, baseline: Baseline | None = None,
              metrics: list[str] | None = None) -> pd.DataFrame:
    """Long table: one row per (configuration, metric); see analysis/README.md for the columns.
    `metrics`: only these (default: every metric of the file)."""
    configs = results.configurations()
    ok = results.ok
    by_config = {int(cid): group for cid, group in ok.groupby("config_id")}
    empty = ok.iloc[0:0]
    failed = results.points[results.points["status"] != "ok"].groupby("config_id").size()
    baseline_of = baseline_configs(results, baseline) if baseline else {}
    pseudo = pseudo_replicates(results)
    verdict_of = verdicts(results)
    steady = steady_configs(results)
    rows = []
    for metric in metric_table.ordered(metrics if metrics is not None else results.metrics):
        meta = metric_table.info(metric)
        for _, config in configs.iterrows():
            cid = int(config["config_id"])
            points = by_config.get(cid, empty)
            interval, how = interval_of(points[metric].to_numpy(float), meta, confidence, cid in pseudo)
            row = {axis: config[axis] for axis in results.axes}
            row.update(
                config_id=cid, metric=metric, n=interval.n, failed=int(failed.get(cid, 0)),
                mean=interval.estimate, sd=interval.sd, ci_low=interval.low, ci_high=interval.high,
            )
            if baseline:
                row.update(_versus(results, metric, meta, points, baseline_of.get(cid), cid, by_config, empty,
                                   confidence, pseudo))
                # A comparison is a steady one only when both sides are: an overloaded side's numbers
                # grow with the run's length, so its difference or speedup means nothing.
                base_id = baseline_of.get(cid)
                row["pair_steady"] = base_id is not None and cid in steady and base_id in steady
            row.update(interval=how, identical_seeds=cid in pseudo, verdict=verdict_of.get(cid, ""))
            rows.append(row)
    return pd.DataFrame(rows)


def _versus(results, metric, meta, points, base_id, cid, by_config, empty, confidence, pseudo) -> dict:
    nan = float("nan")
    out = dict(
        baseline_config_id=base_id if base_id is not None else -1, test="", n_diff=0, diff=nan,
        diff_ci_low=nan, diff_ci_high=nan, p=nan, ratio=nan, ratio_ci_low=nan, ratio_ci_high=nan,
        speedup=nan, speedup_ci_low=nan, speedup_ci_high=nan, ratio_test="", ratio_p=nan,
    )
    if base_id is None:
        out["test"] = "no baseline"
        return out
    if base_id == cid:
        out["test"] = "baseline"
        return out
    a, b, paired = _pairs(results, points, by_config.get(base_id, empty), metric)
    if cid in pseudo or base_id in pseudo:
        # Identical seeds on a side: its one value is the answer, with no spread to test.
        difference = float(np.mean(a) - np.mean(b)) if len(a) and len(b) else nan
        ratio = float(np.mean(a) / np.mean(b)) if len(a) and len(b) and np.mean(b) > 0 and np.mean(a) > 0 else nan
        out.update(test="identical seeds", n_diff=min(len(a), len(b)), diff=difference, ratio=ratio,
                   ratio_test="identical seeds")
    else:
        diff = stats.paired_difference(a, b, confidence) if paired else stats.welch_difference(a, b, confidence)
        ratio_ci = stats.log_ratio(a, b, paired, confidence)
        out.update(
            test=diff.test, n_diff=diff.n, diff=diff.estimate, diff_ci_low=diff.low, diff_ci_high=diff.high,
            p=diff.p, ratio=ratio_ci.estimate, ratio_ci_low=ratio_ci.low, ratio_ci_high=ratio_ci.high,
            ratio_test=ratio_ci.test, ratio_p=ratio_ci.p,
        )
    # Speedup: how many times better than the baseline (>1 is better), for metrics with a direction:
    # the ratio, or its inverse (an interval on the log scale inverts exactly).
    ratio, low, high = out["ratio"], out["ratio_ci_low"], out["ratio_ci_high"]
    if meta.better == "higher":
        out.update(speedup=ratio, speedup_ci_low=low, speedup_ci_high=high)
    elif meta.better == "lower" and ratio > 0:
        out.update(speedup=1 / ratio, speedup_ci_low=1 / high if high > 0 else nan,
                   speedup_ci_high=1 / low if low > 0 else nan)
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


def _overview_cell(row) -> str:
    """A headline cell: mean ± half-width, or [low, high] where the interval was clipped (it is
    then not symmetric), or the one value of identical seeds."""
    if not np.isfinite(row["mean"]):
        return NO_VALUE
    if row.get("identical_seeds", False):
        return f"{format_number(row['mean'])} (identical seeds)"
    if str(row.get("interval", "")).endswith("(clipped)") or str(row.get("interval", "")).startswith("Wilson"):
        return f"{format_number(row['mean'])} {_interval_text(row['ci_low'], row['ci_high'])}"
    return _plus_minus(row["mean"], row["ci_low"], row["ci_high"])


def describe(results: Results, confidence: float, baseline: Baseline | None) -> str:
    """The header paragraph: what was read and how it is summarized."""
    points = results.points
    configs = points["config_id"].nunique()
    failed = int((points["status"] != "ok").sum())
    replicates = results.attrs.get("replicates", "?")
    if results.complete:
        state = "complete"
    elif results.shard_complete:
        state = f"shard {results.shard} of the grid, complete: `clustersim merge` joins the shards"
    elif results.from_journal:
        state = "sweep not finished: read from its journal"
    else:
        state = "incomplete: the sweep stopped early"
    text = (
        f"{len(points)} of {results.points_total} points ({state}): {configs} configurations x "
        f"{replicates} seeds ({'paired' if results.paired_seeds else 'independent'} seeds), {failed} failed. "
        f"Means with {confidence:.0%} Student t-intervals over seeds, kept within what each metric can be "
        "(a utilisation in [0, 1], a time or count >= 0); 0/1 flags as the share of seeds with a Wilson "
        "interval (failed points left out)."
    )
    if baseline:
        method = "paired t-test on common seeds" if results.paired_seeds else "Welch's t-test"
        ratio = ("the geometric mean of the per-seed ratios, with the interval and p-value of the paired t-test "
                 "on their logs" if results.paired_seeds else "on the log scale (Welch's t-test on the logs)")
        text += (
            f" Differences against the baseline {baseline.label} (same values on the other axes; {method}); "
            f"ratios and speedups as {ratio}, so an interval excludes 1 exactly when that p is below "
            f"{1 - confidence:.2g}. p-values are per comparison, not corrected for multiple comparisons."
        )
    return text


# What a comparison cell says where a side is not in steady state.
NOT_STEADY = "not steady"


def _pair_steady(row) -> bool:
    """Whether a summary row's comparison has both sides in steady state (rows of a table made
    before the column existed count as steady)."""
    value = row.get("pair_steady", True)
    return bool(value) if value == value else True  # NaN: no baseline comparison


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

    verdict_of = verdicts(results)
    rows = []
    for cid, cells in cells_of.items():
        sub = wide[wide["config_id"] == cid].set_index("metric")
        row = cells + [str(int(sub["n"].iloc[0])) if len(sub) else "0"]
        if verdict_of:
            row.append(verdict_of.get(cid, "") or "-")
        row += [_overview_cell(sub.loc[m]) for m in headline]
        rows.append(row)
    out.append(TableSection(2, f"Overview (mean ± {level} CI half-width)",
                            axes + ["n"] + (["verdict"] if verdict_of else [])
                            + [metric_table.table_label(m) for m in headline], rows))

    # A component's metrics together (the fabric's contention and link utilisation), where they say something.
    for title, group in metric_table.GROUPS.items():
        present = [m for m in group if m in results.metrics]
        values = table[table["metric"].isin(present)]["mean"]
        if not present or not (values.abs() > 0).any():
            continue
        rows = []
        for cid, cells in cells_of.items():
            sub = table[(table["config_id"] == cid) & table["metric"].isin(present)].set_index("metric")
            rows.append(cells + [_overview_cell(sub.loc[m]) if m in sub.index else "-" for m in present])
        out.append(TableSection(2, f"{title} (mean ± {level} CI half-width)",
                                axes + [metric_table.table_label(m) for m in present], rows))

    if baseline:
        directional = [m for m in headline if metric_table.info(m).better]
        rows = []
        for cid, cells in cells_of.items():
            sub = wide[wide["config_id"] == cid].set_index("metric")
            if sub["test"].iloc[0] in ("baseline", "no baseline"):
                continue
            row = list(cells)
            if verdict_of:
                row.append(verdict_of.get(cid, "") or "-")
            steady_pair = _pair_steady(sub.iloc[0])
            for m in directional:
                s = sub.loc[m]
                speedup = s["speedup"]
                if not steady_pair:
                    row.append(NOT_STEADY)
                    continue
                if not np.isfinite(speedup):
                    row.append("-")
                    continue
                p = f" p={format_p(s['ratio_p'])}" if np.isfinite(s["ratio_p"]) else ""
                row.append(f"{speedup:.3f} {_interval_text(s['speedup_ci_low'], s['speedup_ci_high'])}{p}".strip())
            rows.append(row)
        title = (f"Speedup vs {baseline.label} (x, above 1 is better; {level} CI and p of the paired t-test on "
                 "log ratios)")
        if verdict_of:
            title += (f"; '{NOT_STEADY}' where this configuration or its baseline has a seed not in steady state "
                      "(its numbers depend on the run's length: summary.csv keeps them, with pair_steady false)")
        out.append(TableSection(2, title, axes + (["verdict"] if verdict_of else [])
                                + [metric_table.info(m).label for m in directional], rows))

    for metric in metric_table.ordered(results.metrics):
        meta = metric_table.info(metric)
        unit = metric_table.unit_text(metric)
        header = axes + (["verdict"] if verdict_of else []) + ["n", "failed", "mean", f"{level} CI"]
        if baseline:
            header += [f"diff vs {baseline.label}", f"{level} CI", "p", "ratio", f"{level} CI", "p (log ratio)"]
        rows = []
        for _, r in table[table["metric"] == metric].iterrows():
            row = list(cells_of[int(r["config_id"])])
            if verdict_of:
                row.append(verdict_of.get(int(r["config_id"]), "") or "-")
            row += [str(int(r["n"])), str(int(r["failed"])), format_mean(r["mean"]),
                    _interval_text(r["ci_low"], r["ci_high"])]
            if r["identical_seeds"]:
                row[-1] = "none: identical seeds"
            if baseline:
                if r["test"] == "baseline":
                    row += ["(baseline)", "", "", "", "", ""]
                elif not _pair_steady(r):
                    row += [NOT_STEADY, "", "", "", "", ""]
                else:
                    row += [format_number(r["diff"]), _interval_text(r["diff_ci_low"], r["diff_ci_high"]),
                            format_p(r["p"]), format_number(r["ratio"]),
                            _interval_text(r["ratio_ci_low"], r["ratio_ci_high"]), format_p(r["ratio_p"])]
            rows.append(row)
        out.append(TableSection(3, f"{metric}: {meta.label} ({unit})", header, rows))
    return out


def sections_markdown(table_sections: list[TableSection]) -> str:
    """The sections as Markdown: the per-metric ones (level 3) under one "Every metric" heading."""
    parts = []
    every_metric = False
    for section in table_sections:
        if section.level == 3 and not every_metric:
            parts.append("\n## Every metric\n")
            every_metric = True
        parts.append(f"\n{'#' * section.level} {section.title}\n\n")
        parts.append(_markdown_table(section.header, section.rows))
    return "".join(parts)


def to_markdown(results: Results, table: pd.DataFrame, confidence: float, baseline: Baseline | None) -> str:
    return (f"# Summary of {results.path}\n\n" + describe(results, confidence, baseline) + "\n"
            + sections_markdown(sections(results, table, confidence, baseline)))
