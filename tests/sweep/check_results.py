"""Reads sweep result files back with h5py + pandas (as a user would) and checks them.

usage: check_results.py schema FILE POINTS [--jobs] [--timeseries]
       check_results.py once FILE POINTS          every point_id 0..POINTS-1 exactly once
       check_results.py same FILE_A FILE_B        bit-identical metrics (rank/elapsed aside)
"""
import json
import sys

import h5py
import numpy as np
import pandas as pd


def load(path):
    with h5py.File(path, "r") as f:
        # The one-liner from sweep/README.md.
        df = pd.DataFrame({k: (d.asstr()[()] if d.dtype.kind == "O" else d[()]) for k, d in f["points"].items()})
        attrs = {k: f.attrs[k] for k in f.attrs}
        groups = set(f.keys())
    return df, attrs, groups


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check_once(df, points):
    ids = sorted(df["point_id"].tolist())
    if ids != list(range(points)):
        dupes = df["point_id"][df["point_id"].duplicated()].tolist()
        missing = sorted(set(range(points)) - set(ids))
        fail(f"point ids not exactly 0..{points - 1}: duplicates {dupes[:10]}, missing {missing[:10]}")


def main():
    mode = sys.argv[1]
    if mode == "schema":
        path, points = sys.argv[2], int(sys.argv[3])
        df, attrs, groups = load(path)
        check_once(df, points)
        for column in ["point_id", "config_id", "replicate", "seed", "status", "jobs", "jct_mean", "jct_p99",
                       "queue_mean", "makespan", "gpu_util", "preemptions", "events", "rank", "elapsed_s"]:
            if column not in df.columns:
                fail(f"column {column} missing; have {list(df.columns)}")
        for axis in json.loads(attrs["axes"]):
            if axis not in df.columns:
                fail(f"axis column {axis} missing")
        if list(df.columns[:4]) != ["point_id", "config_id", "replicate", "seed"]:
            fail(f"columns not in schema order: {list(df.columns)}")
        if df["status"].dtype != object or not (df["status"] == "ok").all():
            fail("status column is not all 'ok' strings")
        for name in ["schema_version", "software_version", "git_commit", "grid_text", "grid_sha256", "start_time",
                     "end_time", "ranks", "threads", "mpi_version", "hdf5_version", "tbb_version", "slurm_job_id",
                     "complete", "points_total"]:
            if name not in attrs:
                fail(f"root attribute {name} missing")
        if int(attrs["complete"]) != 1 or int(attrs["points_total"]) != points:
            fail("file not marked complete")
        if "--jobs" in sys.argv:
            with h5py.File(path, "r") as f:
                jobs = pd.DataFrame({k: d[()] for k, d in f["jobs"].items()})
            if set(jobs["point_id"]) != set(range(points)) or len(jobs) != int(df["jobs"].sum()):
                fail("jobs table does not cover every point's jobs")
        if "--timeseries" in sys.argv and "timeseries" not in groups:
            fail("timeseries group missing")
        print(f"schema ok: {len(df)} points, {len(df.columns)} columns, ranks={attrs['ranks']} threads={attrs['threads']}")
    elif mode == "once":
        df, _, _ = load(sys.argv[2])
        check_once(df, int(sys.argv[3]))
        print(f"once ok: {len(df)} points")
    elif mode == "same":
        a, _, _ = load(sys.argv[2])
        b, _, _ = load(sys.argv[3])
        a = a.sort_values("point_id").reset_index(drop=True).drop(columns=["rank", "elapsed_s"])
        b = b.sort_values("point_id").reset_index(drop=True).drop(columns=["rank", "elapsed_s"])
        if list(a.columns) != list(b.columns) or len(a) != len(b):
            fail("different shapes")
        for column in a.columns:
            x, y = a[column].to_numpy(), b[column].to_numpy()
            if x.dtype.kind == "f":
                same = np.array_equal(x.view(np.uint64), y.view(np.uint64))  # bit-identical, NaN included
            else:
                same = (x == y).all()
            if not same:
                fail(f"column {column} differs between {sys.argv[2]} and {sys.argv[3]}")
        print(f"same ok: {len(a)} points bit-identical")
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
