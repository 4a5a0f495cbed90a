"""`clustersim-analyze fewest-servers RESULTS.h5 --target T`: the smallest cluster at which each
policy meets a latency objective (serving sweeps; see analysis/README.md).

The points are grouped by every axis other than the size axis (`--size-axis`, default
`cluster.nodes`) and the policy axis (`--by`, default `scheduler.task_placement`): for example one
group per arrival rate. Axes zipped with the size or policy axis (their value follows it) and
constant axes are not groups of their own. In each group, for each policy, the metric is averaged
over the successful replicates of each size, and the answer is the smallest size whose mean meets
the objective (`metric <= target`, or `metric >= target` with `--at-least`), or "none" with the
largest size's mean.

Left out of the means: failed points (status other than `ok`, whose metrics are 0), and, for a
metric averaged over completed queries (`metrics.PER_QUERY`), points that completed no query (their
0 is no latency). Both are counted in the notes.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import metrics as metric_table
from .results import AnalysisError, Results, load
from .summary import _markdown_table, format_number, format_value, is_numeric_axis, tied_axes

DEFAULT_METRIC = "query_latency_p99"
DEFAULT_SIZE_AXIS = "cluster.nodes"
DEFAULT_BY = "scheduler.task_placement"


@dataclass(frozen=True)
class Objective:
    metric: str
    target: float
    at_least: bool = False  # metric >= target (else metric <= target)

    @property
    def sign(self) -> str:
        return ">=" if self.at_least else "<="

    def text(self) -> str:
        unit = metric_table.info(self.metric).unit
        suffix = " s" if unit == "s" else ""
        return f"{self.metric} {self.sign} {self.target:g}{suffix}"

    def meets(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        return value >= self.target if self.at_least else value <= self.target


@dataclass
class Answer:
    group: tuple  # values of the group axes
    by: object  # the policy
    fewest: object | None  # smallest size meeting the objective; None: no size does
    value: float  # the mean there (or, for none, at the largest size with a mean)
    n: int  # replicates in that mean
    max_size: object | None  # the largest size with a successful point (None: no such size)
    ratio: float = float("nan")  # fewest / the best policy's fewest in the group

    def text(self) -> str:
        if self.fewest is not None:
            return format_value(self.fewest)
        if self.max_size is None:
            return "none (no successful point)"
        return f"none (max size {format_value(self.max_size)}: {format_number(self.value)})"


@dataclass
class FewestServers:
    results: Results
    objective: Objective
    size_axis: str
    by: str
    group_axes: list[str]  # the other axes that define a group
    sizes: list  # every size, ascending
    cells: pd.DataFrame  # one row per (group, by, size): n, failed, no_queries, mean, meets
    answers: list[Answer]
    notes: list[str] = field(default_factory=list)

    def groups(self) -> list[tuple]:
        return list(dict.fromkeys(answer.group for answer in self.answers))

    def group_label(self, group: tuple) -> str:
        return _label(self.group_axes, group)

    def size_text(self, size) -> str:
        if self.size_axis == DEFAULT_SIZE_AXIS:
            return f"{format_value(size)} server{'' if size == 1 else 's'}"
        return f"{self.size_axis}={format_value(size)}"

    def comparison(self, group: tuple) -> str:
        """One line: each policy's fewest size against the best one's."""
        answers = [a for a in self.answers if a.group == group]
        met = sorted((a for a in answers if a.fewest is not None), key=lambda a: a.fewest)
        missed = [a for a in answers if a.fewest is None]
        parts = []
        if met:
            best = met[0]
            parts.append(f"{format_value(best.by)} needs {self.size_text(best.fewest)}")
            parts += [f"{format_value(a.by)} {format_value(a.fewest)} ({a.ratio:.1f}x)" for a in met[1:]]
            parts += [f"{format_value(a.by)} none up to {format_value(a.max_size)}" if a.max_size is not None
                      else f"{format_value(a.by)} none (no successful point)" for a in missed]
            line = ", ".join(parts)
        else:
            largest = [a.max_size for a in missed if a.max_size is not None]
            line = (f"no {self.by} meets {self.objective.text()} at any size"
                    + (f" up to {format_value(max(largest))}" if largest else ""))
        label = self.group_label(group)
        return f"{label}: {line}" if label else line


def _keys(frame: pd.DataFrame, columns: list[str]) -> list[tuple]:
    """Row keys as tuples of Python scalars (the same for equal values in any frame)."""
    if len(frame) == 0:
        return []
    return list(zip(*(frame[column].tolist() for column in columns)))


def _reasons(failed: pd.DataFrame, limit: int = 3) -> str:
    counts = Counter(failed["status"].tolist()).most_common()
    text = "; ".join(f"{n} x {reason if len(reason) <= 120 else reason[:117] + '...'}" for reason, n in
                     counts[:limit])
    if len(counts) > limit:
        text += f"; {len(counts) - limit} other reasons"
    return text


def check_objective(results: Results, metric: str, target: float, at_least: bool) -> Objective:
    results.check_metric(metric, "--metric")
    if not math.isfinite(target):
        raise AnalysisError(f"--target {target}: must be a finite number")
    better = metric_table.info(metric).better
    if at_least and better == "lower":
        raise AnalysisError(f"--at-least: {metric} is better when lower; its objective is {metric} <= target "
                            "(leave out --at-least)")
    if not at_least and better == "higher":
        raise AnalysisError(f"--metric {metric} is better when higher: pass --at-least for the objective "
                            f"{metric} >= {target:g}")
    return Objective(metric, float(target), at_least)


def fewest_servers(results: Results, objective: Objective, size_axis: str = DEFAULT_SIZE_AXIS,
                   by: str = DEFAULT_BY) -> FewestServers:
    """The answer table of `clustersim-analyze fewest-servers` (module docstring)."""
    metric = objective.metric
    results.check_metric(metric, "--metric")
    results.check_axis(size_axis, "--size-axis")
    results.check_axis(by, "--by")
    if by == size_axis:
        raise AnalysisError(f"--by and --size-axis are the same axis ({by}): the sizes are compared per value of "
                            "another axis")
    points = results.points
    if len(points) == 0:
        raise AnalysisError(f"{results.path}: no points (the sweep wrote none yet)")
    if not is_numeric_axis(points[size_axis]):
        values = ", ".join(format_value(v) for v in pd.unique(points[size_axis])[:6])
        raise AnalysisError(f"--size-axis '{size_axis}': not a numeric axis (its values: {values}); pass the axis "
                            "that holds the cluster size")
    notes = []
    if results.shard_complete:
        notes.append(f"Shard {results.shard} of the grid: {len(points)} of {results.points_total} points "
                     "(`clustersim merge` joins the shards).")
    elif not results.complete:
        notes.append(f"The sweep is not finished: {len(points)} of {results.points_total} points.")

    configs = results.configurations()
    following = set(tied_axes(configs, size_axis, results.axes)) | set(tied_axes(configs, by, results.axes))
    varying = [a for a in results.axes if a not in (size_axis, by) and configs[a].nunique() > 1]
    group_axes = [a for a in varying if a not in following]
    zipped = [a for a in varying if a in following]
    if zipped:
        notes.append(f"Axes that follow --size-axis or --by (zipped with them) are not groups of their own: "
                     f"{', '.join(zipped)}.")
    key = group_axes + [by, size_axis]

    failed = points[points["status"] != "ok"]
    ok = results.ok
    if len(failed):
        notes.append(f"{len(failed)} of {len(points)} points failed (status other than ok) and are left out of the "
                     f"means: {_reasons(failed)}.")
    if len(ok) == 0:
        raise AnalysisError(f"{results.path}: no successful point ({len(points)} points, all failed)")
    idle = ok.iloc[0:0]
    if metric in metric_table.PER_QUERY and "queries" in results.metrics:
        idle = ok[ok["queries"] <= 0]
        ok = ok[ok["queries"] > 0]
        if len(ok) == 0:
            raise AnalysisError(
                f"{results.path}: no successful point completed a query (queries = 0 everywhere), so {metric} is "
                "undefined: a training sweep? fewest-servers reads serving (query DAG) sweeps")
        if len(idle):
            notes.append(f"Left out of the means: {len(idle)} successful point{'' if len(idle) == 1 else 's'} that "
                         f"completed no query (queries = 0); {metric} is 0 there, not a measurement.")
    if metric == "query_slo_attainment" and not (ok[metric] != 0).any():
        notes.append("query_slo_attainment is 0 at every point: was [metrics] query_slo_s set in the sweep's "
                     "configuration? (it is 0 when unset)")

    values = defaultdict(list)
    for k, value in zip(_keys(ok, key), ok[metric].astype(float).tolist()):
        values[k].append(value)
    failed_n = Counter(_keys(failed, key))
    idle_n = Counter(_keys(idle, key))
    every = list(dict.fromkeys(_keys(configs, key)))  # grid order
    sizes = sorted(set(k[-1] for k in every))
    by_values = list(dict.fromkeys(k[-2] for k in every))
    groups = list(dict.fromkeys(k[:-2] for k in every))

    present = set(every)
    answers = []
    means_of = {}  # (group, by value) -> [(size, mean, n)] for the sizes the grid has
    for group in groups:
        for value in by_values:
            means = [(size, float(np.mean(values[k])) if values.get(k) else float("nan"), len(values.get(k, [])))
                     for size in sizes for k in [group + (value, size)] if k in present]
            if not means:
                continue
            means_of[(group, value)] = means
            hit = next(((s, m, n) for s, m, n in means if n and objective.meets(m)), None)
            with_data = [(s, m, n) for s, m, n in means if n]
            largest = with_data[-1] if with_data else (None, float("nan"), 0)
            if hit:
                answers.append(Answer(group, value, hit[0], hit[1], hit[2], largest[0]))
            else:
                answers.append(Answer(group, value, None, largest[1], largest[2], largest[0]))
            if not hit:
                continue
            where = ", ".join(filter(None, [_label(group_axes, group), f"{by}={format_value(value)}"]))
            unknown = [s for s, m, n in means if n == 0 and s < hit[0]]
            worse = [(s, m) for s, m, n in means if n and s > hit[0] and not objective.meets(m)]
            if unknown:
                notes.append(f"{where}: no successful point at {size_axis} "
                             f"{', '.join(format_value(s) for s in unknown)}, so the fewest may be smaller than "
                             f"{format_value(hit[0])}.")
            if worse:
                notes.append(f"{where}: meets the objective at {format_value(hit[0])} but not at the larger "
                             + ", ".join(f"{format_value(s)} ({format_number(m)})" for s, m in worse) + ".")
    for group in groups:
        met = [a for a in answers if a.group == group and a.fewest is not None]
        best = min((a.fewest for a in met), default=None)
        for a in met:
            a.ratio = float(a.fewest) / float(best) if best else float("nan")

    rows = []
    for a in answers:
        for size, mean, n in means_of[(a.group, a.by)]:
            k = a.group + (a.by, size)
            rows.append(dict(zip(key, k), metric=metric, objective=f"{objective.sign} {objective.target!r}",
                             n=n, failed=failed_n.get(k, 0), no_queries=idle_n.get(k, 0), mean=mean,
                             meets=bool(n and objective.meets(mean)), fewest=a.fewest, ratio_to_best=a.ratio))
    cells = pd.DataFrame(rows)
    if all(isinstance(size, int) for size in sizes):
        cells["fewest"] = cells["fewest"].astype("Int64")  # 4, not 4.0; empty for none
    return FewestServers(results, objective, size_axis, by, group_axes, sizes, cells, answers, notes)


def _label(axes: list[str], group: tuple) -> str:
    return ", ".join(f"{axis}={format_value(value)}" for axis, value in zip(axes, group))


def to_markdown(found: FewestServers) -> str:
    objective, size_axis, by = found.objective, found.size_axis, found.by
    meta = metric_table.info(objective.metric)
    noun = "servers" if size_axis == DEFAULT_SIZE_AXIS else size_axis
    counts = found.cells["n"]
    most = int(counts.max()) if len(counts) else 0
    uniform = bool(len(counts)) and bool((counts[counts > 0] == most).all())
    replicates = (f"{most} replicates each" if uniform
                  else f"up to {most} replicates; cells with fewer say (n=K)")
    parts = [
        f"# Fewest {noun}: {objective.text()}\n\n",
        f"{found.results.path}: the smallest {size_axis} at which each {by} meets {objective.text()} "
        f"({meta.label}), judged on the mean over replicates ({replicates})"
        + (f", per {', '.join(found.group_axes)}" if found.group_axes else "") + ".\n",
    ]
    header = found.group_axes + [by, f"fewest {size_axis}", "n", metric_table.table_label(objective.metric),
                                 "vs best"]
    rows = []
    for a in found.answers:
        ratio = f"{a.ratio:.1f}x" if a.fewest is not None and math.isfinite(a.ratio) else "-"
        rows.append([format_value(v) for v in a.group] + [format_value(a.by), a.text(), str(a.n),
                                                          format_number(a.value) if a.n else "-", ratio])
    parts.append(f"\n## Fewest {size_axis} per {by}\n\n")
    parts.append(_markdown_table(header, rows))
    parts.append("\n" + "".join(f"* {found.comparison(group)}\n" for group in found.groups()))

    parts.append(f"\n## {metric_table.table_label(objective.metric)} per {size_axis} (mean over replicates; "
                 f"bold: the fewest meeting {objective.sign} {objective.target:g})\n\n")
    header = [by] + found.group_axes + [format_value(s) for s in found.sizes]
    columns = found.group_axes + [by, size_axis]
    cells = {(k[:-2], k[-2], k[-1]): r for k, r in zip(_keys(found.cells, columns),
                                                       found.cells.to_dict("records"))}
    rows = []
    for a in found.answers:
        row = [format_value(a.by)] + [format_value(v) for v in a.group]
        for size in found.sizes:
            cell = cells.get((a.group, a.by, size))
            if cell is None:
                row.append("")
                continue
            if cell["n"] == 0:
                row.append("failed" if cell["failed"] else "-")
                continue
            text = format_number(cell["mean"])
            if cell["n"] != most:
                text += f" (n={int(cell['n'])})"
            row.append(f"**{text}**" if a.fewest is not None and size == a.fewest else text)
        rows.append(row)
    parts.append(_markdown_table(header, rows))
    if found.notes:
        parts.append("\n## Notes\n\n" + "".join(f"* {note}\n" for note in found.notes))
    return "".join(parts)


def write_fewest_servers(path: str, metric: str, target: float, at_least: bool, size_axis: str, by: str,
                         out: str | None, overwrite: bool) -> tuple[str, str | None]:
    """Returns (the markdown printed, output folder or None). Everything is checked before writing."""
    from .report import check_output_folder, write_folder, write_text

    results = load(path, jobs=False, timeseries=False)
    objective = check_objective(results, metric, target, at_least)
    found = fewest_servers(results, objective, size_axis, by)
    if out:
        check_output_folder(out, overwrite)
    text = to_markdown(found)
    if not out:
        return text, None
    write_folder(out, "fewest-servers", {
        "fewest_servers.csv": lambda path: found.cells.to_csv(path, index=False),
        "fewest_servers.md": write_text(text),
    })
    return text, out
