"""The report's failure-and-recovery part (issue 41's study, sweep/examples/reliability/): per
setting (a configuration: the combination of the axes that vary, e.g. checkpoint policy x hot
spares x lemon share), the means over its successful replicates of ETTR, of the GPU-hours lost
by kind (`gpu_hours_lost.*`) and of the interruptions by cause (`interruptions.<cause>`), from the
sweep's metrics; as tables and as three bar charts (ETTR, lost GPU-hours stacked by kind,
interruptions stacked by cause). Shown only where the failure classes interrupted something (the
metrics are 0 otherwise). by_setting() is pure pandas, so it is tested without drawing."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .results import Results
from .summary import TableSection, format_number, format_value

ETTR = [("ettr_mean", "ETTR, all jobs"), ("ettr_mean.size_over_512", "ETTR, jobs > 512 GPUs")]
LOST_KINDS = [("rollback", "rolled back"), ("restart", "restarting"), ("checkpoint", "saving"),
              ("waiting", "waiting")]
CAUSES = ["gpu", "gpu_memory", "nic", "host", "switch", "power", "software", "maintenance"]
SECTION = "Failures and recovery"


def _setting_axes(results: Results) -> list[str]:
    ok = results.ok
    return [axis for axis in results.axes if axis in ok.columns and ok[axis].nunique() > 1]


def by_setting(results: Results) -> pd.DataFrame | None:
    """One row per setting (in configuration order): `setting` (its varying axes' values, e.g.
    "checkpoint_policy=fixed, hot_spares=8"), `points`, and the replicate means of the ETTR
    metrics, `gpu_hours_lost.<kind>` and `interruptions.<cause>` the file has (a replicate
    without a value, NaN, is left out of its mean). None when nothing was interrupted."""
    ok = results.ok
    if "interruptions" not in ok.columns or not (ok["interruptions"].to_numpy(float) > 0).any():
        return None
    axes = _setting_axes(results)
    columns = [name for name, _ in ETTR] + [f"gpu_hours_lost.{kind}" for kind, _ in LOST_KINDS]
    columns += ["interruptions"] + [f"interruptions.{cause}" for cause in CAUSES]
    columns = [c for c in columns if c in ok.columns]
    rows = []
    for config_id, points in ok.groupby("config_id", sort=True):
        label = ", ".join(f"{axis.split('.')[-1]}={format_value(points[axis].iloc[0])}" for axis in axes)
        row = {"config_id": config_id, "setting": label or "all points", "points": len(points)}
        for column in columns:
            values = points[column].to_numpy(float)
            values = values[np.isfinite(values)]
            row[column] = values.mean() if values.size else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def sections(results: Results) -> list[TableSection]:
    """ETTR and GPU-hours lost by kind per setting; interruptions by cause per setting."""
    table = by_setting(results)
    if table is None:
        return []
    ettr = [(c, label) for c, label in ETTR if c in table.columns]
    kinds = [(f"gpu_hours_lost.{k}", f"GPU-h {label}") for k, label in LOST_KINDS
             if f"gpu_hours_lost.{k}" in table.columns]
    causes = [c for c in CAUSES if f"interruptions.{c}" in table.columns]

    def cells(row, names):
        return [format_number(row[name]) for name in names]  # NaN (no value): "-"

    first = TableSection(2, "ETTR and GPU-hours lost by kind, per setting (replicate means)",
                         ["setting", "points"] + [label for _, label in ettr + kinds],
                         [[row["setting"], str(row["points"])] + cells(row, [c for c, _ in ettr + kinds])
                          for _, row in table.iterrows()])
    second = TableSection(2, "Interruptions by cause, per setting (replicate means)",
                          ["setting", "all"] + causes,
                          [[row["setting"]] + cells(row, ["interruptions"] + [f"interruptions.{c}" for c in causes])
                           for _, row in table.iterrows()])
    return [first, second]


def plots(results: Results, folder: str) -> list:
    """The three bar charts (plots/reliability_*.png); none when nothing was interrupted."""
    table = by_setting(results)
    if table is None:
        return []
    from . import plots as drawing  # matplotlib only when drawing

    labels = list(table["setting"])
    y = np.arange(len(labels))
    height = 1.2 + 0.35 * len(labels)
    figures = []

    def chart(name, title, xlabel, stacks, caption):
        fig, axes = drawing.plt.subplots(figsize=(8, height))
        left = np.zeros(len(labels))
        for column, label in stacks:
            values = np.nan_to_num(table[column].to_numpy(float))
            axes.barh(y, values, left=left, label=label)
            left += values
        axes.set_yticks(y, labels)
        axes.invert_yaxis()
        axes.set_xlabel(xlabel)
        axes.set_title(title)
        if len(stacks) > 1:
            axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
        file = f"plots/{name}.png"
        drawing.save(fig, f"{folder}/{file}")
        drawing.plt.close(fig)
        figures.append(drawing.Plot(file, SECTION, title, caption, wide=True))

    ettr = [(c, label) for c, label in ETTR if c in table.columns]
    for column, label in ettr:
        chart("reliability_" + column.replace(".", "_"), f"{label} per setting", "effective training time ratio",
              [(column, label)], f"{label}: the mean over each setting's replicates of `{column}` "
              "(productive time / wall time since the first start).")
    kinds = [(f"gpu_hours_lost.{k}", label) for k, label in LOST_KINDS if f"gpu_hours_lost.{k}" in table.columns]
    if kinds:
        chart("reliability_lost_gpu_hours", "GPU-hours lost by kind per setting", "GPU-hours (replicate mean)",
              kinds, "GPU-hours lost by kind (`gpu_hours_lost.*`): progress rolled back, restart pauses "
              "(detection + rescheduling + restore), checkpoint stalls, and failed jobs' GPUs waiting for "
              "repair, free nodes or spares; stacked, replicate means.")
    causes = [(f"interruptions.{c}", c) for c in CAUSES if f"interruptions.{c}" in table.columns]
    if causes:
        chart("reliability_interruptions", "Interruptions by cause per setting", "interruptions (replicate mean)",
              causes, "Job interruptions by the failure class that caused them (`interruptions.<cause>`), "
              "stacked, replicate means.")
    return figures
