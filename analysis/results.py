"""Reading `clustersim sweep` result files into pandas (schema: sweep/README.md).

`load(path)` reads a finished file, a resumed one, and one whose sweep is still running or was
killed: then the results live only in the journal (PATH.journal), and `clustersim snapshot`
(the same C++ code that writes the final file) turns it into a temporary result file first. This
package never decodes the journal itself.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

import h5py
import numpy as np
import pandas as pd

# The newest result schema this package reads (root attribute `schema_version`).
SCHEMA_VERSION = 1
JOURNAL_SUFFIX = ".journal"


class AnalysisError(Exception):
    """Bad input, reported to the user as one line (the command exits with status 2)."""


@dataclass
class Results:
    path: str  # as the user named it
    points: pd.DataFrame  # /points: ids, one column per axis, status, metrics, provenance
    axes: list[str]  # axis columns (root attribute `axes`)
    metrics: list[str]  # metric columns (root attribute `metrics`)
    attrs: dict = field(default_factory=dict)  # root attributes (provenance)
    jobs: pd.DataFrame | None = None  # /jobs, when the sweep ran with --save-jobs
    timeseries: pd.DataFrame | None = None  # /timeseries, with --save-timeseries
    from_journal: bool = False  # read through `clustersim snapshot` (sweep running or killed)

    @property
    def ok(self) -> pd.DataFrame:
        """The points whose simulation succeeded (failed points carry zeros as metrics)."""
        return self.points[self.points["status"] == "ok"]

    @property
    def complete(self) -> bool:
        return bool(self.attrs.get("complete", 0))

    @property
    def paired_seeds(self) -> bool:
        return bool(self.attrs.get("paired_seeds", 0))

    @property
    def points_total(self) -> int:
        return int(self.attrs.get("points_total", len(self.points)))

    @property
    def shard(self) -> str:
        """"K/N" for a file of one shard of the grid (`clustersim sweep --shard K/N`), else ""."""
        return str(self.attrs.get("shard", "") or "")

    @property
    def shard_complete(self) -> bool:
        """A shard file holding every point of its shard (the grid's other points are elsewhere)."""
        return bool(self.shard) and len(self.points) == int(self.attrs.get("shard_points", -1))

    def configurations(self) -> pd.DataFrame:
        """One row per configuration (axis-value combination): config_id and the axis columns."""
        columns = ["config_id"] + self.axes
        return self.points[columns].drop_duplicates("config_id").sort_values("config_id")

    def measured_jobs(self) -> pd.DataFrame | None:
        """/jobs rows of the measured population of their point: the jobs at positions
        [window_first, window_last] (every row of a file without those columns), finished."""
        jobs = self.jobs
        if jobs is None:
            return None
        keep = np.ones(len(jobs), dtype=bool)
        if "rejected" in jobs.columns:
            keep &= ~jobs["rejected"].to_numpy(bool)
        if "finish_time" in jobs.columns:
            keep &= jobs["finish_time"].to_numpy(float) >= 0
        if {"window_first", "window_last"} <= set(self.points.columns) and "job_index" in jobs.columns:
            bounds = self.points.set_index("point_id")[["window_first", "window_last"]]
            first = bounds["window_first"].reindex(jobs["point_id"]).to_numpy()
            last = bounds["window_last"].reindex(jobs["point_id"]).to_numpy()
            index = jobs["job_index"].to_numpy()
            keep &= (index >= first) & (index <= last)
        return jobs if keep.all() else jobs[keep]

    def measured_samples(self) -> pd.DataFrame | None:
        """/timeseries rows within their point's measured time range [measure_start,
        measure_end], with `since_start` = time - measure_start (every row, since the first sample,
        for a file without those columns)."""
        series = self.timeseries
        if series is None:
            return None
        if {"measure_start", "measure_end"} <= set(self.points.columns) and "time" in series.columns:
            bounds = self.points.set_index("point_id")[["measure_start", "measure_end"]]
            start = bounds["measure_start"].reindex(series["point_id"]).to_numpy(float)
            end = bounds["measure_end"].reindex(series["point_id"]).to_numpy(float)
            time = series["time"].to_numpy(float)
            keep = (time >= start) & (time <= end)
            return series[keep].assign(since_start=(time - start)[keep])
        if "time" not in series.columns:
            return series
        first = series.groupby("point_id")["time"].transform("min")
        return series.assign(since_start=series["time"] - first)

    def check_axis(self, name: str, option: str = "axis") -> str:
        if name not in self.axes:
            have = ", ".join(self.axes) if self.axes else "none"
            raise AnalysisError(f"{option} '{name}': no such axis in {self.path} (its axes: {have})")
        return name

    def check_metric(self, name: str, option: str = "metric") -> str:
        if name not in self.metrics:
            raise AnalysisError(
                f"{option} '{name}': no such metric in {self.path} (its metrics: {', '.join(self.metrics)})"
            )
        return name


# What the report reads of /jobs: the measured, finished jobs' point_id and jct, read
# in blocks so that a sweep of millions of rows never sits whole in memory (load(jobs="measured")).
MEASURED_JOBS = "measured"
_BLOCK_ROWS = 1 << 21


def load(path, *, jobs: bool | str = True, timeseries: bool = True, clustersim: str | None = None) -> Results:
    """Reads a sweep's results: RESULTS.h5 (finished, resumed, or stopped by a signal), or the
    journal of a sweep still running or killed (RESULTS.h5 or RESULTS.h5.journal may be given).

    `jobs`: read /jobs (True), not (False), or "measured": only the finished jobs of each point's
    measured population, columns point_id and jct (what the report needs). `clustersim`:
    the command used for journals (default: $CLUSTERSIM, else `clustersim` on PATH, else this
    checkout's build/bin/clustersim). Raises AnalysisError with a one-line message for a missing
    file, a file that is not HDF5, an HDF5 file that is not a sweep result, a newer schema, or a
    damaged file (columns of different lengths, a wrong type, rows of points it does not hold).
    """
    path = os.fspath(path)
    if path.endswith(JOURNAL_SUFFIX):
        result_path, journal = path[: -len(JOURNAL_SUFFIX)], path
    else:
        result_path, journal = path, path + JOURNAL_SUFFIX
    if os.path.exists(journal):
        command = _find_clustersim(clustersim)
        if command is None and os.path.isfile(result_path):
            # A sweep stopped by a signal leaves both; without clustersim, its file still reads.
            return _read(result_path, path, jobs, timeseries)
        try:
            return _read_journal(journal, path, command, jobs, timeseries)
        except AnalysisError:
            # The sweep may have finished meanwhile: it writes RESULTS.h5, then deletes the journal.
            if os.path.exists(journal) or not os.path.isfile(result_path):
                raise
    if not os.path.exists(result_path):
        raise AnalysisError(f"{result_path}: no such file")
    return _read(result_path, path, jobs, timeseries)


def _find_clustersim(explicit: str | None) -> str | None:
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    checkout_build = os.path.join(checkout, "build", "bin", "clustersim")
    for candidate in (explicit, os.environ.get("CLUSTERSIM"), shutil.which("clustersim"), checkout_build):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _read_journal(journal: str, name: str, command: str | None, jobs: bool, timeseries: bool) -> Results:
    if command is None:
        raise AnalysisError(
            f"{journal}: reading a sweep in progress needs the clustersim command "
            "(set CLUSTERSIM=path/to/clustersim or put it on PATH)"
        )
    with tempfile.TemporaryDirectory(prefix="clustersim_snapshot_") as folder:
        snapshot = os.path.join(folder, "snapshot.h5")
        run = subprocess.run(
            [command, "snapshot", journal, "--out", snapshot, "--quiet"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        if run.returncode != 0:
            lines = [line for line in run.stderr.splitlines() if line.strip()]
            message = lines[-1] if lines else f"`{command} snapshot` failed with status {run.returncode}"
            raise AnalysisError(message.replace("clustersim snapshot: error: ", "", 1))
        results = _read(snapshot, name, jobs, timeseries)
    results.from_journal = True
    return results


def _attribute(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _table(group: h5py.Group, name: str, where: str, only: list[str] | None = None) -> pd.DataFrame:
    """A group of 1-D datasets as a table; a damaged one (datasets of different lengths, not 1-D,
    unreadable) is an AnalysisError naming the file and the dataset."""
    columns = {}
    length = None
    first = None
    for key, dataset in group.items():  # creation order: the schema's column order
        if not isinstance(dataset, h5py.Dataset):
            continue
        if dataset.ndim != 1:
            raise AnalysisError(f"{name}: damaged result file: /{where}/{key} is not a column (shape "
                                f"{dataset.shape})")
        if length is None:
            length, first = dataset.shape[0], key
        elif dataset.shape[0] != length:
            raise AnalysisError(f"{name}: damaged result file: /{where}/{key} has {dataset.shape[0]} rows, "
                                f"/{where}/{first} {length}")
        if only is not None and key not in only:
            continue  # its length is checked above, its values are not read
        try:
            if dataset.dtype.kind in "OS":
                columns[key] = dataset.asstr()[()]
            else:
                columns[key] = dataset[()]
        except (OSError, ValueError, TypeError) as error:
            raise AnalysisError(f"{name}: damaged result file: cannot read /{where}/{key} ({error})") from None
    return pd.DataFrame(columns)


# The columns components add that the report reads too, where /jobs has them (the tables of
# components.py, fleet.py and the slowdown CDF); num_gpus goes with ettr (ETTR by job size),
# queue_delay with cluster (a fleet's queueing by router and cluster).
_ADDED_JOB_COLUMNS = ("contention_slowdown", "ettr", "energy_kwh", "carbon_kg", "cluster")


def _measured_jobs(group: h5py.Group, name: str, points: pd.DataFrame) -> pd.DataFrame:
    """The measured, finished jobs of /jobs (point_id, jct, and the columns of
    _ADDED_JOB_COLUMNS it has), read block by block."""
    _table(group, name, "jobs", only=[])  # checks the columns' lengths, reads none
    for column in ("point_id", "jct"):
        if column not in group:
            raise AnalysisError(f"{name}: damaged result file: /jobs has no {column} column")
    added = [c for c in _ADDED_JOB_COLUMNS if c in group]
    if "ettr" in added and "num_gpus" in group:
        added.append("num_gpus")
    if "cluster" in added and "queue_delay" in group:  # a fleet's tables (fleet.py)
        added.append("queue_delay")
    rows = group["point_id"].shape[0]
    windows = {"window_first", "window_last"} <= set(points.columns) and "job_index" in group
    if windows:
        bounds = points.set_index("point_id")[["window_first", "window_last"]]
    kept = {"point_id": [], "jct": []} | {c: [] for c in added}
    for start in range(0, rows, _BLOCK_ROWS):
        block = slice(start, min(rows, start + _BLOCK_ROWS))
        try:
            point_id = group["point_id"][block]
            jct = group["jct"][block]
            keep = np.ones(point_id.shape[0], dtype=bool)
            if "rejected" in group:
                keep &= group["rejected"][block] == 0
            if "finish_time" in group:
                keep &= group["finish_time"][block] >= 0
            index = group["job_index"][block] if "job_index" in group else np.zeros(point_id.shape, np.int64)
            extra = {c: group[c][block] for c in added}
        except (OSError, ValueError, TypeError) as error:
            raise AnalysisError(f"{name}: damaged result file: cannot read /jobs ({error})") from None
        if windows:
            known = np.isin(point_id, bounds.index.to_numpy())
            if not known.all():
                raise AnalysisError(f"{name}: damaged result file: /jobs has rows of point "
                                    f"{int(point_id[~known][0])}, which /points does not hold")
            first = bounds["window_first"].reindex(point_id).to_numpy()
            last = bounds["window_last"].reindex(point_id).to_numpy()
            keep &= (index >= first) & (index <= last)
        kept["point_id"].append(point_id[keep].astype(np.int32 if rows and point_id.max(initial=0) < 2**31
                                                      else np.int64))
        kept["jct"].append(jct[keep].astype(float))
        for column, values in extra.items():
            kept[column].append(values[keep])
        del point_id, jct, keep, index, extra
    columns = {}
    for key in list(kept):
        parts = kept.pop(key)
        columns[key] = np.concatenate(parts) if parts else np.zeros(0)
        del parts
    return pd.DataFrame(columns, copy=False)


def _check_points(name: str, points: pd.DataFrame, axes: list[str], metrics: list[str], attrs: dict) -> None:
    """A hand-edited or damaged /points: wrong types, repeated or inconsistent ids."""
    def damaged(text):
        raise AnalysisError(f"{name}: damaged result file: {text}")

    for column in ["point_id", "config_id", "replicate"]:
        if not pd.api.types.is_integer_dtype(points[column]):
            damaged(f"/points/{column} holds {points[column].dtype} values, not integers")
    if not pd.api.types.is_object_dtype(points["status"]) or not all(isinstance(v, str) for v in points["status"]):
        damaged("/points/status holds no text")
    for metric in metrics:
        column = points[metric]
        if not (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)):
            damaged(f"/points/{metric} holds {column.dtype} values, not numbers")
        ok = points["status"] == "ok"
        # NaN is "no value" (e.g. a JCT percentile of a point that measured no job): shown as such,
        # left out of its metric's statistics. An infinity is no value any metric can take.
        bad = np.isinf(column[ok].to_numpy(float))
        if bad.any():
            row = points[ok][bad].iloc[0]
            damaged(f"/points/{metric} is {row[metric]} at point {int(row['point_id'])}, not a finite number "
                    "(NaN is read as no value; an infinity is not)")
    if points["point_id"].duplicated().any():
        damaged(f"point {int(points['point_id'][points['point_id'].duplicated()].iloc[0])} is listed twice in /points")
    total = attrs.get("points_total")
    if total is not None and len(points) and (points["point_id"].min() < 0 or points["point_id"].max() >= int(total)):
        damaged(f"/points holds point {int(points['point_id'].max())}, outside the grid's 0..{int(total) - 1}")
    replicates = attrs.get("replicates")
    if replicates is not None and len(points):
        expected = points["config_id"] * int(replicates) + points["replicate"]
        wrong = expected != points["point_id"]
        if wrong.any():
            row = points[wrong].iloc[0]
            damaged(f"point {int(row['point_id'])} has config_id {int(row['config_id'])} and replicate "
                    f"{int(row['replicate'])} (point_id = config_id x {int(replicates)} + replicate)")
    if axes:
        per_config = points.drop_duplicates(["config_id"] + axes).groupby("config_id").size()
        if (per_config > 1).any():
            damaged(f"configuration {int(per_config[per_config > 1].index[0])} has points with different axis values")


def _check_rows(name: str, rows: pd.DataFrame | None, where: str, point_ids) -> None:
    """Rows of /jobs or /timeseries must belong to points of the file."""
    if rows is None:
        return
    if "point_id" not in rows.columns:
        raise AnalysisError(f"{name}: damaged result file: /{where} has no point_id column")
    unknown = ~np.isin(rows["point_id"].to_numpy(), point_ids)
    if unknown.any():
        raise AnalysisError(f"{name}: damaged result file: /{where} has {int(unknown.sum())} rows of point "
                            f"{int(rows['point_id'].to_numpy()[unknown][0])}, which /points does not hold")


def _read(path: str, name: str, jobs: bool, timeseries: bool) -> Results:
    if os.path.isdir(path):
        raise AnalysisError(f"{name}: is a folder, not a result file")
    try:
        is_hdf5 = h5py.is_hdf5(path)
    except OSError as error:
        raise AnalysisError(f"{name}: cannot read ({error.strerror or error})") from None
    if not is_hdf5:
        raise AnalysisError(f"{name}: not an HDF5 file (expected the result file of `clustersim sweep`)")
    try:
        handle = h5py.File(path, "r")
    except OSError as error:
        raise AnalysisError(f"{name}: cannot open as HDF5 ({error})") from None
    with handle:
        attrs = {key: _attribute(value) for key, value in handle.attrs.items()}
        points_group = handle.get("points")
        if "schema_version" not in attrs or not isinstance(points_group, h5py.Group):
            raise AnalysisError(
                f"{name}: an HDF5 file, but not a clustersim sweep result (no schema_version attribute or /points "
                "group)"
            )
        version = attrs["schema_version"]
        # The writer stores an integer; anything else (text, a fraction) is a hand-edited or foreign file.
        if isinstance(version, bool) or not isinstance(version, int):
            shown = repr(version) if isinstance(version, str) else f"{version!r} ({type(version).__name__})"
            raise AnalysisError(
                f"{name}: damaged result file: the schema_version attribute is {shown[:60]}, not an integer "
                f"(this analysis reads versions up to {SCHEMA_VERSION})"
            )
        if version > SCHEMA_VERSION:
            raise AnalysisError(
                f"{name}: result schema version {version} is newer than this analysis reads (up to "
                f"{SCHEMA_VERSION}); use the clustersim-analyze of the clustersim that wrote it"
            )
        try:
            axes = list(json.loads(attrs["axes"]))
            metrics = list(json.loads(attrs["metrics"]))
        except (KeyError, TypeError, ValueError):
            raise AnalysisError(
                f"{name}: not a clustersim sweep result (no JSON `axes`/`metrics` attributes)") from None
        if not all(isinstance(a, str) for a in axes + metrics):
            raise AnalysisError(f"{name}: damaged result file: the `axes`/`metrics` attributes are not lists of names")
        points = _table(points_group, name, "points")
        for column in ["point_id", "config_id", "replicate", "seed", "status"] + axes + metrics:
            if column not in points.columns:
                raise AnalysisError(f"{name}: not a clustersim sweep result (/points has no column '{column}')")
        _check_points(name, points, axes, metrics, attrs)
        job_table = None
        if jobs and isinstance(handle.get("jobs"), h5py.Group):
            job_table = (_measured_jobs(handle["jobs"], name, points) if jobs == MEASURED_JOBS
                         else _table(handle["jobs"], name, "jobs"))
        series = (
            _table(handle["timeseries"], name, "timeseries")
            if timeseries and isinstance(handle.get("timeseries"), h5py.Group)
            else None
        )
    ids = points["point_id"].to_numpy()
    _check_rows(name, job_table, "jobs", ids)
    _check_rows(name, series, "timeseries", ids)
    return Results(name, points, axes, metrics, attrs, job_table, series)
