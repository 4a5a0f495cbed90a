"""The report's opening: what the sweep found, one sentence per headline metric, and what the
reader must know before trusting a number (runs not in steady state, pseudo-replicates, the
sweep's own warnings).

Every sentence is read off the summary table (summary.csv): a speedup and its interval are the
table's, so the text, the tables and the lead figures never disagree.
"""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd

from . import metrics as metric_table
from .results import Results
from .summary import Baseline, format_p, format_value, pseudo_replicates, steady_configs, summarize, verdicts

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
    return text + ("; their numbers depend on how long the run went on: they are drawn hollow, and a configuration "
                   "with such a seed is never compared in the sentences below (named there, with its verdict).")


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


def _not_steady_text(results: Results, rows: pd.DataFrame, baseline: Baseline, verdict_of: dict[int, str]) -> str:
    """The configurations of `rows` (and their baselines) not in steady state, with their verdicts."""
    configs = results.configurations().set_index("config_id")
    steady = steady_configs(results)
    ids = sorted((set(rows["config_id"].astype(int)) | set(rows["baseline_config_id"].astype(int))) - {-1})
    return ", ".join(f"{format_value(configs.loc[cid, baseline.axis])} ({verdict_of.get(cid) or 'not steady'})"
                     for cid in ids if cid in configs.index and cid not in steady)


def _load_clause(results: Results, rows: pd.DataFrame, baseline: Baseline, skip: set[str], level: str,
                 verdict_of: dict[int, str]) -> str:
    """What the steady comparisons among `rows` say: the best (and the worst) configuration against
    the baseline, with its interval and p; or why there is none."""
    base = format_value(baseline.value)
    usable = rows[rows["pair_steady"].astype(bool)] if "pair_steady" in rows else rows
    if len(usable) == 0:
        which = _not_steady_text(results, rows, baseline, verdict_of)
        return f"no comparison with {base} is in steady state" + (f" (not steady: {which})" if which else "")
    best = usable.loc[usable["speedup"].idxmax()]
    worst = usable.loc[usable["speedup"].idxmin()]

    def clear(row) -> bool:
        return row["speedup_ci_low"] > 1 or row["speedup_ci_high"] < 1

    def said(row) -> str:
        better = row["speedup"] >= 1
        factor = row["speedup"] if better else 1 / row["speedup"]
        low, high = (row["speedup_ci_low"], row["speedup_ci_high"]) if better else (
            1 / row["speedup_ci_high"], 1 / row["speedup_ci_low"])
        return (f"{_config_text(row, results.axes, skip)} is {_times(factor)} {'better' if better else 'worse'} "
                f"than {base} ({level} CI {_times(low)}-{_times(high)}, {_p_text(row['ratio_p'])})")

    left_out = rows[~rows["config_id"].isin(usable["config_id"])]
    tail = ""
    if len(left_out):
        which = _not_steady_text(results, left_out, baseline, verdict_of)
        tail = f"; not compared, not in steady state: {which}" if which else ""
    if not clear(best) and not clear(worst):
        return f"no configuration differs clearly from {base} (every {level} interval includes 1){tail}"
    parts = []
    if clear(best) and best["speedup"] > 1:
        parts.append(said(best))
    if worst["config_id"] != best["config_id"] and clear(worst) and worst["speedup"] < 1:
        parts.append(said(worst))
    if not parts:
        parts.append(said(best))
    return "; ".join(parts) + tail


def metric_sentence(results: Results, table: pd.DataFrame, metric: str, x: str | None, baseline: Baseline,
                    steady: set[int], confidence: float, label: str | None = None) -> str | None:
    """One sentence for `metric`: at every value of x (each load), the best (and the worst)
    configuration against the baseline among the comparisons whose both sides are in steady state,
    with its interval and p; the others are named with their verdicts, never compared."""
    meta = metric_table.info(metric)
    rows = table[(table["metric"] == metric) & ~table["test"].isin(["baseline", "no baseline"])
                 & np.isfinite(table["speedup"])].copy()
    if len(rows) == 0:
        return None
    if "pair_steady" not in rows:
        rows["pair_steady"] = rows["config_id"].isin(steady) & rows["baseline_config_id"].isin(steady)
    verdict_of = verdicts(results)
    level = f"{confidence:.0%}"
    head = _upper(label or meta.label)
    if not rows["pair_steady"].astype(bool).any():
        which = _not_steady_text(results, rows, baseline, verdict_of)
        return (f"{head}: no comparison with {format_value(baseline.value)} is in steady state"
                + (f" (not steady: {which})." if which else "."))
    if x is None or x == baseline.axis:
        return f"{head}: {_load_clause(results, rows, baseline, set(), level, verdict_of)}."
    # The configuration is named by its value on the baseline's axis (the policy) and any other
    # axis but x (said once per clause).
    clauses = []
    for value, group in sorted(rows.groupby(x), key=lambda item: item[0]):
        clauses.append(f"at {x} = {format_value(value)}, "
                       + _load_clause(results, group, baseline, {x}, level, verdict_of))
    return f"{head}: " + "; ".join(clauses) + "."


USEFUL_UTIL = "useful_util"
USEFUL_UTIL_LABEL = ("useful GPU utilisation (gpu_util x goodput: GPU time held less preemption, mechanism "
                     "overheads and lost work; overheads are not counted as use)")


def useful_utilisation(results: Results) -> Results | None:
    """The results with a derived metric `useful_util` = gpu_util x goodput per point (None when
    the file lacks either): utilisation findings compare useful work, so a policy's preemption
    overheads are not counted in its favour."""
    if not {"gpu_util", "goodput"} <= set(results.metrics):
        return None
    points = results.points.copy()
    points[USEFUL_UTIL] = points["gpu_util"] * points["goodput"]
    return dataclasses.replace(results, points=points, metrics=list(results.metrics) + [USEFUL_UTIL])


def findings(results: Results, table: pd.DataFrame, x: str | None, baseline: Baseline | None,
             confidence: float) -> list[str]:
    steady = steady_configs(results)
    out = []
    sentence = steady_sentence(results, x)
    if sentence:
        out.append(sentence)
    if baseline is not None:
        for metric in FINDING_METRICS:
            if metric not in results.metrics:
                continue
            if metric == "gpu_util":
                useful = useful_utilisation(results)
                if useful is not None:
                    sub = summarize(useful, confidence, baseline, [USEFUL_UTIL])
                    sentence = metric_sentence(useful, sub, USEFUL_UTIL, x, baseline, steady, confidence,
                                               USEFUL_UTIL_LABEL)
                    if sentence:
                        out.append(sentence)
                    continue
            sentence = metric_sentence(results, table, metric, x, baseline, steady, confidence)
            if sentence:
                out.append(sentence)
    sentence = utilisation_sentence(results, steady)
    if sentence:
        out.append(sentence)
    sentence = effective_load_sentence(results)
    if sentence:
        out.append(sentence)
    return out


def effective_load_sentence(results: Results) -> str | None:
    """Where placement slowdowns and overheads push the load the cluster faces past its nominal
    value (steady_state.h: effective_load = nominal_load x work_inflation)."""
    ok = results.ok
    if not {"effective_load", "nominal_load"} <= set(ok.columns):
        return None
    rows = ok[ok["nominal_load"] > 0]
    if len(rows) == 0:
        return None
    over = rows[(rows["effective_load"] >= 1) & (rows["nominal_load"] < 1)]
    if len(over) == 0:
        return None
    return (f"Effective load: {len(over)} of {len(rows)} runs have a nominal load below 1 but an effective load "
            f"(nominal x work inflation from placement slowdowns and overheads) of 1 or more "
            f"(up to {over['effective_load'].max():.3f}): their queues cannot settle, whatever the nominal load says.")


def warnings(results: Results) -> list[str]:
    """What the reader must know: the sweep's warnings (settings that cannot act, dropped trace
    rows, runs too short before they ran), p99s that measure a duration cap, runs extended because
    they were too short, pseudo-replicates, failed points."""
    out = []
    try:
        out += [str(w) for w in json.loads(results.attrs.get("warnings", "[]") or "[]")]
    except (TypeError, ValueError):
        out.append("the file's `warnings` attribute is not a JSON list (ignored)")
    ok = results.ok
    if "jct_p99_cap_share" in ok and (ok["jct_p99_cap_share"] > 0).any():
        capped = ok[ok["jct_p99_cap_share"] > 0]
        out.append(f"In {len(capped)} of {len(ok)} runs the p99 JCT is the measured jobs' longest duration, which "
                   f"{100 * capped['jct_p99_cap_share'].min():.3g}-{100 * capped['jct_p99_cap_share'].max():.3g}% "
                   "of them have (a duration cap such as the generator's max_duration_s; column jct_p99_cap_share): "
                   "there the p99 measures the cap, not the policy; compare jct_p95 or queue_p99.")
    if "window_extension" in ok and (ok["window_extension"] > 1).any():
        extended = ok[ok["window_extension"] > 1]
        still = int((extended["window_too_short"] != 0).sum()) if "window_too_short" in extended else 0
        out.append(f"{len(extended)} of {len(ok)} runs were too short as planned and ran again with "
                   f"{extended['window_extension'].min():.3g}-{extended['window_extension'].max():.3g}x the planned "
                   "measured jobs ([metrics] extend_limit; column window_extension)"
                   + (f"; {still} of them still too short at the limit." if still else "."))
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
