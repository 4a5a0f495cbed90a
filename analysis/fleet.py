"""The fleet's tables (issue 44; sim/README.md, "Fleet"): routers side by side, from /jobs's
`cluster` column (the cluster a job ran on, by its index in the config's [[fleet.clusters]] order),
present only when a sweep ran fleet configs with --save-jobs. One row per configuration (the
grid's axes: router x load ...), seeds pooled over the measured, finished jobs of the successful
points: mean JCT and queueing delay in hours, and carbon (kgCO2e, mean over seeds of the jobs'
total) where the power meter added `carbon_kg`, and the rebalancer's moves between clusters (mean
over seeds of the jobs' `migrations_wan`: its on/off, `fleet.rebalance.enabled`, is an axis beside
the router's); then the same by cluster (the cluster a job finished on). Pure pandas, so that it
is tested without drawing."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .results import Results
from .summary import TableSection, format_number, format_value


def _fleet_jobs(results: Results) -> pd.DataFrame | None:
    """The measured jobs of fleet points (a finite `cluster`), with their point's axis values."""
    jobs = results.measured_jobs()
    if jobs is None or "cluster" not in jobs.columns:
        return None
    jobs = jobs[np.isfinite(jobs["cluster"].to_numpy(float))]
    if len(jobs) == 0:
        return None
    points = results.ok[["point_id", "config_id"] + list(results.axes)]
    jobs = jobs.merge(points, on="point_id")
    return jobs.assign(cluster=jobs["cluster"].astype(int))


def _cells(jobs: pd.DataFrame, seeds: int, carbon: bool, moves: bool) -> list[str]:
    row = [str(len(jobs)), format_number(jobs["jct"].mean() / 3600.0)]
    row.append(format_number(jobs["queue_delay"].mean() / 3600.0) if "queue_delay" in jobs.columns else "-")
    if carbon:
        row.append(format_number(jobs["carbon_kg"].sum() / max(seeds, 1)))
    if moves:
        row.append(format_number(jobs["migrations_wan"].sum() / max(seeds, 1)))
    return row


def sections(results: Results) -> list[TableSection]:
    """"Fleet: routers side by side" and "Fleet: by cluster", or nothing without fleet columns."""
    jobs = _fleet_jobs(results)
    if jobs is None:
        return []
    axes = list(results.axes)
    carbon = "carbon_kg" in jobs.columns and bool(np.isfinite(jobs["carbon_kg"].to_numpy(float)).any())
    # The rebalancer's moves (its on/off is an axis beside the router's: fleet.rebalance.enabled).
    moves = "migrations_wan" in jobs.columns
    measures = (["jobs", "JCT mean (h)", "queueing mean (h)"] + (["carbon (kgCO2e per run)"] if carbon else [])
                + (["moves between clusters per run"] if moves else []))
    clusters = sorted(jobs["cluster"].unique())
    overall, by_cluster = [], []
    for config_id, of_config in jobs.groupby("config_id", sort=True):
        cells = [format_value(of_config[a].iloc[0]) for a in axes]
        seeds = of_config["point_id"].nunique()
        overall.append(cells + _cells(of_config, seeds, carbon, moves)
                       + [format_number((of_config["cluster"] == c).mean()) for c in clusters])
        for c in clusters:
            of_cluster = of_config[of_config["cluster"] == c]
            if len(of_cluster):
                by_cluster.append(cells + [str(c)] + _cells(of_cluster, seeds, carbon, moves))
    return [
        TableSection(2, "Fleet: routers side by side (measured jobs, seeds pooled)",
                     axes + measures + [f"share on cluster {c}" for c in clusters], overall),
        TableSection(2, "Fleet: by cluster (index in [[fleet.clusters]] order)", axes + ["cluster"] + measures,
                     by_cluster),
    ]
