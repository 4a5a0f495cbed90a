"""Tables of the per-job columns components add to /jobs (sweep/README.md, "Columns components
add"): ETTR by job size where the failure classes ran (`ettr`), energy and carbon per job where
the power meter ran (`energy_kwh`, `carbon_kg`). Each is one row per value of the report's series
axis (every point when there is none), over the measured, finished jobs of the successful points,
seeds pooled; a point whose components did not add the column has NaN there and is left out.
Pure pandas, so that they are tested without drawing."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .results import Results
from .summary import TableSection, format_number, format_value

# Job-size buckets (GPUs) of the ETTR table: single GPU, one node, a few racks, a pod, larger.
SIZE_BUCKETS = [("1 GPU", 1, 1), ("2-8", 2, 8), ("9-64", 9, 64), ("65-512", 65, 512), (">512", 513, np.inf)]


def _jobs_by_series(results: Results, series: str | None, column: str) -> pd.DataFrame | None:
    """The measured jobs with a value of `column`, with their point's series value (`_series`)."""
    jobs = results.measured_jobs()
    if jobs is None or column not in jobs.columns:
        return None
    jobs = jobs[np.isfinite(jobs[column].to_numpy(float))]
    if len(jobs) == 0:
        return None
    points = results.ok[["point_id"] + ([series] if series else [])]
    jobs = jobs.merge(points, on="point_id")
    return jobs.assign(_series=jobs[series].map(format_value) if series else "all points")


def _series_order(results: Results, series: str | None) -> list[str]:
    if not series:
        return ["all points"]
    return [format_value(v) for v in results.ok[series].drop_duplicates()]


def ettr_by_size(results: Results, series: str | None) -> TableSection | None:
    """Mean ETTR of the measured jobs by job-size bucket (GPUs), and each bucket's jobs."""
    jobs = _jobs_by_series(results, series, "ettr")
    if jobs is None or "num_gpus" not in jobs.columns:
        return None
    gpus = jobs["num_gpus"].to_numpy(float)
    bucket = np.full(len(jobs), "", dtype=object)
    for name, low, high in SIZE_BUCKETS:
        bucket[(gpus >= low) & (gpus <= high)] = name
    jobs = jobs.assign(_bucket=bucket)
    header = [series or "points"]
    for name, _, _ in SIZE_BUCKETS:
        header += [f"ETTR {name}", f"jobs {name}"]
    rows = []
    for value in _series_order(results, series):
        rows_of = jobs[jobs["_series"] == value]
        if len(rows_of) == 0:
            continue
        row = [value]
        for name, _, _ in SIZE_BUCKETS:
            cell = rows_of[rows_of["_bucket"] == name]["ettr"]
            row += [format_number(cell.mean()) if len(cell) else "-", str(len(cell))]
        rows.append(row)
    return TableSection(2, "ETTR by job size (GPUs)", header, rows) if rows else None


def energy_by_series(results: Results, series: str | None) -> TableSection | None:
    """Energy (and carbon, where the file has it) per measured job: mean, median and total."""
    jobs = _jobs_by_series(results, series, "energy_kwh")
    if jobs is None:
        return None
    carbon = "carbon_kg" in jobs.columns
    header = [series or "points", "jobs", "energy per job, mean (kWh)", "median (kWh)",
              "energy of the jobs, total (kWh)"]
    if carbon:
        header += ["carbon per job, mean (kgCO2e)"]
    rows = []
    for value in _series_order(results, series):
        rows_of = jobs[jobs["_series"] == value]
        if len(rows_of) == 0:
            continue
        energy = rows_of["energy_kwh"]
        row = [value, str(len(rows_of)), format_number(energy.mean()), format_number(energy.median()),
               format_number(energy.sum())]
        if carbon:
            row.append(format_number(rows_of["carbon_kg"].mean()))
        rows.append(row)
    return TableSection(2, "Energy per job", header, rows) if rows else None


def sections(results: Results, series: str | None) -> list[TableSection]:
    """The tables of this module that the file's columns allow, in report order."""
    return [s for s in (ettr_by_size(results, series), energy_by_series(results, series)) if s is not None]
