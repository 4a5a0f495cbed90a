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

    def configurations(self) -> pd.DataFrame:
        """One row per configuration (axis-value combination): config_id and the axis columns."""
        columns = ["config_id"] + self.axes
        return self.points[columns].drop_duplicates("config_id").sort_values("config_id")

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


def load(path, *, jobs: bool = True, timeseries: bool = True, clustersim: str | None = None) -> Results:
    """Reads a sweep's results: RESULTS.h5 (finished, resumed, or stopped by a signal), or the
    journal of a sweep still running or killed (RESULTS.h5 or RESULTS.h5.journal may be given).

    `clustersim`: the command used for journals (default: $CLUSTERSIM, else `clustersim` on PATH,
    else this checkout's build/bin/clustersim). Raises AnalysisError with a one-line message for a
    missing file, a file that is not HDF5, an HDF5 file that is not a sweep result, or a newer
    schema.
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


def _table(group: h5py.Group) -> pd.DataFrame:
    columns = {}
    for key, dataset in group.items():  # creation order: the schema's column order
        if not isinstance(dataset, h5py.Dataset) or dataset.ndim != 1:
            continue
        if dataset.dtype.kind in "OS":
            columns[key] = dataset.asstr()[()]
        else:
            columns[key] = dataset[()]
    return pd.DataFrame(columns)


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
        version = int(attrs["schema_version"])
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
        points = _table(points_group)
        for column in ["point_id", "config_id", "replicate", "seed", "status"] + axes + metrics:
            if column not in points.columns:
                raise AnalysisError(f"{name}: not a clustersim sweep result (/points has no column '{column}')")
        job_table = _table(handle["jobs"]) if jobs and isinstance(handle.get("jobs"), h5py.Group) else None
        series = (
            _table(handle["timeseries"])
            if timeseries and isinstance(handle.get("timeseries"), h5py.Group)
            else None
        )
    return Results(name, points, axes, metrics, attrs, job_table, series)
