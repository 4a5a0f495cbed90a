"""The report's opening: what the sweep found, one sentence per headline metric, and what the
reader must know before trusting a number (runs not in steady state, pseudo-replicates, the
sweep's own warnings).

Every sentence is read off the summary table (summary.csv): a speedup and its interval are the
table's, so the text, the tables and the lead figures never disagree.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from . import metrics as metric_table
from .results import Results
from .summary import Baseline, format_p, format_value, pseudo_replicates, steady_configs

# The headline metrics a sentence is written for (with a better direction).
FINDING_METRICS = ["jct_mean", "jct_p99", "queue_mean", "gpu_util"]


def _upper(text: str) -> str:
    """The first letter in capitals, the rest as written ("Mean JCT", not "Mean jct")."""
    return text[:1].upper() + text[1:]


def _p_text(p: float) -> str:
    text = format_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _times(value: float) -> str:
    return f"{value:.2f}x"


def _config_text(row: pd.Series, axes: list[str], skip: set[str]) -> str:
    parts = [f"{format_value(row[a])}" if a == "scheduler.policy" else f"{a}={format_value(row[a])}"
             for a in axes if a not in skip]
    return " ".join(parts) if parts else "it"


def steady_sentence(results: Results, x: str | None) -> str | None:
    """How many runs were measured in steady state, and where the others are."""
    ok = results.ok
    flags = [f for f in metric_table.VERDICT_FLAGS if f in ok.columns]
    if not flags or not (ok[flags] != 0).any().any():
        return None
    steady = int((ok["steady_state"] != 0).sum()) if "steady_state" in ok else 0
    text = f"Steady state: {steady} of {len(ok)} runs were measured in steady state"
    for flag, word in (("window_overloaded", "overloaded"), ("window_too_short", "too short")):
        if flag not in ok or not (ok[flag] != 0).any():
            continue
        count = int((ok[flag] != 0).sum())
        where = ""
        if x is not None:
            by_x = ok.groupby(x)[flag].agg(lambda s: int((s != 0).sum()))
            total = ok.groupby(x).size()
            places = [f"{'all' if by_x[v] == total[v] else by_x[v]} at {format_value(v)}"
                      for v in by_x.index if by_x[v] > 0]
            where = f" ({x}: {', '.join(places)})"
        extra = ""
        if flag == "window_too_short" and "more_jobs" in ok:
            extra = f", up to {ok['more_jobs'].max():g}x more jobs needed"
        text += f", {count} {word}{where}{extra}"
    return text + ("; their numbers depend on how long the run went on: they are drawn hollow and left out of "
                   "the sentences below.")


def utilisation_sentence(results: Results, steady: set[int]) -> str | None:
    ok = results.ok
    if not {"gpu_util", "offered_load"} <= set(ok.columns):
        return None
    rows = ok[ok["config_id"].isin(steady) & (ok["offered_load"] > 0)]
    if len(rows) == 0:
        return None
    ratio = (rows["gpu_util"] / rows["offered_load"]).to_numpy(float)
    return (f"GPU utilisation follows the offered load of the measured jobs: gpu_util / offered_load is "
            f"{np.mean(ratio):.3f} on average over the {len(rows)} steady runs (from {ratio.min():.3f} to "
            f"{ratio.max():.3f}; above 1 where jobs spread over nodes run slower or pay for preemption).")


def metric_sentence(results: Results, table: pd.DataFrame, metric: str, x: str | None, baseline: Baseline,
                    steady: set[int], confidence: float) -> str | None:
    """One sentence for `metric`: at the highest x where every comparison is steady, the best (and
    the worst) configuration against the baseline, with its interval and p."""
    meta = metric_table.info(metric)
    rows = table[(table["metric"] == metric) & ~table["test"].isin(["baseline", "no baseline"])
                 & np.isfinite(table["speedup"])]
    if len(rows) == 0:
        return None
    usable = rows[rows["config_id"].isin(steady) & rows["baseline_config_id"].isin(steady)]
    if len(usable) == 0:
        return f"{_upper(meta.label)}: no comparison with {baseline.label} is in steady state."
    where = ""
    if x is not None and x != baseline.axis:
        complete = [v for v, group in rows.groupby(x) if group["config_id"].isin(usable["config_id"]).all()]
        candidates = sorted(complete or pd.unique(usable[x]))
        chosen = candidates[-1]
        usable = usable[usable[x] == chosen]
        where = f"at {x} = {format_value(chosen)}"
        where += (" (the highest where every run is in steady state)" if complete and len(candidates) > 1
                  else "")
    # The configuration is named by its value on the baseline's axis (the policy) and any other
    # axis but x (said once in `where`).
    skip = {x} if x else set()
    best = usable.loc[usable["speedup"].idxmax()]
    worst = usable.loc[usable["speedup"].idxmin()]
    level = f"{confidence:.0%}"
    base = format_value(baseline.value)

    def clear(row) -> bool:
        return row["speedup_ci_low"] > 1 or row["speedup_ci_high"] < 1

    def said(row) -> str:
        better = row["speedup"] >= 1
        factor = row["speedup"] if better else 1 / row["speedup"]
        low, high = (row["speedup_ci_low"], row["speedup_ci_high"]) if better else (
            1 / row["speedup_ci_high"], 1 / row["speedup_ci_low"])
        return (f"{_config_text(row, results.axes, skip)} is {_times(factor)} {'better' if better else 'worse'} "
                f"than {base} ({level} CI {_times(low)}-{_times(high)}, {_p_text(row['ratio_p'])})")

    head = f"{_upper(meta.label)}{(' ' + where) if where else ''}: "
    if not clear(best) and not clear(worst):
        return head + f"no configuration differs clearly from {base} (every {level} interval includes 1)."
    parts = []
    if clear(best) and best["speedup"] > 1:
        parts.append(said(best))
    if worst["config_id"] != best["config_id"] and clear(worst) and worst["speedup"] < 1:
        parts.append(said(worst))
    if not parts:
        parts.append(said(best))
    return head + "; ".join(parts) + "."


def findings(results: Results, table: pd.DataFrame, x: str | None, baseline: Baseline | None,
             confidence: float) -> list[str]:
    steady = steady_configs(results)
    out = []
    sentence = steady_sentence(results, x)
    if sentence:
        out.append(sentence)
    if baseline is not None:
        for metric in FINDING_METRICS:
            if metric in results.metrics:
                sentence = metric_sentence(results, table, metric, x, baseline, steady, confidence)
                if sentence:
                    out.append(sentence)
    sentence = utilisation_sentence(results, steady)
    if sentence:
        out.append(sentence)
    return out


def warnings(results: Results) -> list[str]:
    """What the reader must know: the sweep's warnings (settings that cannot act, dropped trace
    rows, runs too short before they ran), pseudo-replicates, failed points."""
    out = []
    try:
        out += [str(w) for w in json.loads(results.attrs.get("warnings", "[]") or "[]")]
    except (TypeError, ValueError):
        out.append("the file's `warnings` attribute is not a JSON list (ignored)")
    pseudo = pseudo_replicates(results)
    if pseudo:
        configs = results.configurations().set_index("config_id")
        example = configs.loc[sorted(pseudo)[0]]
        out.append(f"{len(pseudo)} configurations gave identical results on every seed (e.g. "
                   + ", ".join(f"{a}={format_value(example[a])}" for a in results.axes)
                   + "): their seeds are not independent replicates (a fixed trace with nothing random), so they "
                   "are shown without intervals or tests.")
    failed = int((results.points["status"] != "ok").sum())
    if failed:
        out.append(f"{failed} points failed (status column of /points) and are left out.")
    return out
