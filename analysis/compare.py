"""`clustersim-analyze compare A.h5 B.h5`: the configurations both files hold, side by side.

Configurations are matched on the values of the axes both files have. For each configuration and
metric: the means of A and B, the difference B - A with its confidence interval, the ratio B / A,
and a p-value: a paired t-test where the two files ran the same seeds for that configuration
(same grid seed and replicates: the same workloads), Welch's t-test otherwise. p-values are also
Holm-adjusted within each metric, since a comparison of many configurations will find some
"significant" differences by chance.

Each side's steady-state verdict is a column; a configuration with a seed not in steady state
on either side is not compared (its numbers grow with the run's length): its difference is
kept in compare.csv (both_steady false) but left out of the Holm adjustment and never called
significant, and the Markdown says "not steady" instead.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import metrics as metric_table
from . import stats
from .results import AnalysisError, Results, load
from .summary import (NOT_STEADY, _interval_text, _markdown_table, format_number, format_p, format_value,
                      steady_configs, verdicts)


def _keys(results: Results, axes: list[str]) -> dict[tuple, int]:
    configs = results.configurations()
    keys: dict[tuple, int] = {}
    for _, row in configs.iterrows():
        key = tuple(format_value(row[a]) for a in axes)
        if key in keys:
            only = [a for a in results.axes if a not in axes]
            raise AnalysisError(
                f"{results.path}: several configurations share {dict(zip(axes, key))}: its axes "
                f"{', '.join(only)} are not in the other file, so they cannot be matched")
        keys[key] = int(row["config_id"])
    return keys


def _paired_values(a: pd.DataFrame, b: pd.DataFrame, metric: str):
    merged = a[["replicate", "seed", metric]].merge(b[["replicate", "seed", metric]], on=["replicate", "seed"],
                                                    suffixes=("_a", "_b"))
    if len(merged) >= 2 and len(merged) == min(len(a), len(b)):
        return merged[f"{metric}_a"].to_numpy(float), merged[f"{metric}_b"].to_numpy(float)
    return None


def compare(a: Results, b: Results, confidence: float = 0.95) -> tuple[pd.DataFrame, list[str], list[str]]:
    """(long table, common axes, notes). One row per matched configuration and common metric."""
    for results in (a, b):
        if len(results.ok) == 0:
            raise AnalysisError(
                f"{results.path}: no successful point to compare ({len(results.points)} points, all failed)")
    axes = [axis for axis in a.axes if axis in b.axes]
    notes = []
    for results, other in ((a, b), (b, a)):
        only = [axis for axis in results.axes if axis not in other.axes]
        if only:
            notes.append(f"Axes only in {results.path}: {', '.join(only)} (not used to match configurations).")
    keys_a, keys_b = _keys(a, axes), _keys(b, axes)
    matched = [key for key in keys_a if key in keys_b]
    if not matched:
        raise AnalysisError(
            f"{a.path} and {b.path} have no configuration in common (matched on {', '.join(axes) or 'no axes'})")
    for results, keys, other in ((a, keys_a, keys_b), (b, keys_b, keys_a)):
        missing = [key for key in keys if key not in other]
        if missing:
            notes.append(f"{len(missing)} configurations only in {results.path} are left out.")
    metrics = [m for m in metric_table.ordered(a.metrics) if m in b.metrics]
    for results, other in ((a, b), (b, a)):
        only = [m for m in results.metrics if m not in other.metrics]
        if only:
            notes.append(f"Metrics only in {results.path}: {', '.join(only)}.")
    ok_a = {cid: g for cid, g in a.ok.groupby("config_id")}
    ok_b = {cid: g for cid, g in b.ok.groupby("config_id")}
    empty = a.ok.iloc[0:0]
    verdicts_a, verdicts_b = verdicts(a), verdicts(b)
    steady_a, steady_b = steady_configs(a), steady_configs(b)
    rows = []
    for metric in metrics:
        for key in matched:
            pa, pb = ok_a.get(keys_a[key], empty), ok_b.get(keys_b[key], empty)
            pairs = _paired_values(pa, pb, metric) if len(pa) and len(pb) else None
            if pairs is not None:
                va, vb = pairs
                diff = stats.paired_difference(vb, va, confidence)
                ratio = stats.ratio_interval(vb, va, True, confidence)
            else:
                va, vb = pa[metric].to_numpy(float), pb[metric].to_numpy(float)
                diff = stats.welch_difference(vb, va, confidence)
                ratio = stats.ratio_interval(vb, va, False, confidence)
            row = dict(zip(axes, key))
            row.update(
                metric=metric, n_a=len(va), mean_a=float(np.mean(va)) if len(va) else np.nan,
                n_b=len(vb), mean_b=float(np.mean(vb)) if len(vb) else np.nan, test=diff.test,
                diff=diff.estimate, diff_ci_low=diff.low, diff_ci_high=diff.high, ratio=ratio.estimate,
                ratio_ci_low=ratio.low, ratio_ci_high=ratio.high, p=diff.p,
                verdict_a=verdicts_a.get(keys_a[key], ""), verdict_b=verdicts_b.get(keys_b[key], ""),
                both_steady=keys_a[key] in steady_a and keys_b[key] in steady_b,
            )
            rows.append(row)
    table = pd.DataFrame(rows)
    table["p_holm"] = np.nan
    for metric, group in table.groupby("metric", sort=False):
        group = group[group["both_steady"]]
        if len(group):
            table.loc[group.index, "p_holm"] = stats.holm(group["p"].to_numpy(float))
    alpha = 1 - confidence
    table["significant"] = (table["p"] < alpha) & table["both_steady"]
    return table, axes, notes


def to_markdown(a: Results, b: Results, table: pd.DataFrame, axes: list[str], notes: list[str],
                confidence: float, metrics: list[str] | None = None) -> str:
    alpha = 1 - confidence
    level = f"{confidence:.0%}"
    tests = sorted(set(table["test"]))
    parts = [
        f"# {b.path} vs {a.path}\n\n",
        f"A = {a.path}, B = {b.path}: {table[axes].drop_duplicates().shape[0] if axes else 1} configurations in common "
        f"(matched on {', '.join(axes) or 'no axes'}). Differences are B - A with {level} intervals; ratios B / A. "
        f"Tests: {', '.join(tests)} (paired where both ran the same seeds). 'significant' means p < {alpha:g} for that "
        "comparison alone; the Holm column adjusts for the number of configurations compared per metric.\n",
    ]
    parts += [f"\n{note}\n" for note in notes]
    judged = "verdict_a" in table and bool((table["verdict_a"] != "").any() or (table["verdict_b"] != "").any())
    if judged and not table["both_steady"].all():
        parts.append(f"\nConfigurations with a seed not in steady state in either file are not compared ('{NOT_STEADY}'; "
                     "compare.csv keeps their numbers with both_steady false, outside the Holm adjustment).\n")
    for metric in metrics or list(pd.unique(table["metric"])):
        meta = metric_table.info(metric)
        sub = table[table["metric"] == metric]
        header = axes + (["verdict A", "verdict B"] if judged else []) + [
            "n A", "mean A", "n B", "mean B", "B - A", f"{level} CI", "B / A", "p", "Holm p", "significant"]
        rows = []
        for _, r in sub.iterrows():
            row = [format_value(r[axis]) for axis in axes]
            if judged:
                row += [r["verdict_a"] or "-", r["verdict_b"] or "-"]
            row += [str(r["n_a"]), format_number(r["mean_a"]), str(r["n_b"]), format_number(r["mean_b"])]
            if judged and not r["both_steady"]:
                row += [NOT_STEADY, "", "", "", "", "no"]
            else:
                row += [format_number(r["diff"]), _interval_text(r["diff_ci_low"], r["diff_ci_high"]),
                        format_number(r["ratio"]), format_p(r["p"]), format_p(r["p_holm"]),
                        "yes" if r["significant"] else "no"]
            rows.append(row)
        parts.append(f"\n## {metric}: {meta.label} ({metric_table.unit_text(metric)})\n\n")
        parts.append(_markdown_table(header, rows))
    return "".join(parts)


def write_comparison(path_a: str, path_b: str, out: str | None, overwrite: bool,
                     confidence: float) -> tuple[str, str | None]:
    """Returns (markdown of the headline metrics, output folder or None)."""
    from .report import check_output_folder, write_folder, write_text

    if not 0 < confidence < 1:
        raise AnalysisError(f"--confidence {confidence}: must be between 0 and 1 (e.g. 0.95)")
    a, b = load(path_a, jobs=False, timeseries=False), load(path_b, jobs=False, timeseries=False)
    if out:
        check_output_folder(out, overwrite)
    table, axes, notes = compare(a, b, confidence)
    headline = [m for m in metric_table.headline(a.metrics) if m in set(table["metric"])]
    short = to_markdown(a, b, table, axes, notes, confidence, headline)
    if not out:
        return short, None
    write_folder(out, "compare", {
        "compare.csv": lambda path: table.to_csv(path, index=False),
        "compare.md": write_text(to_markdown(a, b, table, axes, notes, confidence)),
    })
    return short, out
