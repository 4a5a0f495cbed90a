"""Reads sweep result files back with h5py + pandas (as a user would) and checks them.

usage: check_results.py schema FILE POINTS [--jobs] [--timeseries]
       check_results.py once FILE POINTS          every point_id 0..POINTS-1 exactly once
       check_results.py same FILE_A FILE_B        bit-identical metrics (rank/elapsed aside)
       check_results.py identical FILE_A FILE_B   same content: every group, dataset (dtype, order,
                                                  bits) and root attribute but the provenance ones
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


# What may differ between two runs of one grid (sweep/README.md, "Merging shards"): where and when
# they ran. Everything else must be identical, whatever the ranks, threads, shards or sessions.
PROVENANCE_COLUMNS = {"points/rank", "points/elapsed_s", "points/session"}
PROVENANCE_ATTRIBUTES = {"start_time", "session_start_time", "end_time", "sessions", "ranks", "threads",
                         "threads_per_rank", "hostname", "slurm_job_id", "command_line", "grid_path",
                         "grid_path_absolute", "working_directory",
                         "mpi_version", "hdf5_version", "tbb_version", "merged_from", "session_builds"}


def same_values(x, y):
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        return np.array_equal(x.view(np.uint64 if x.dtype.itemsize == 8 else np.uint32),
                              y.view(np.uint64 if y.dtype.itemsize == 8 else np.uint32))
    return bool((x == y).all()) if x.size else True


def check_identical(path_a, path_b):
    with h5py.File(path_a, "r") as a, h5py.File(path_b, "r") as b:
        if list(a.keys()) != list(b.keys()):
            fail(f"groups differ: {list(a.keys())} vs {list(b.keys())}")
        compared = 0
        for group in a.keys():
            if list(a[group].keys()) != list(b[group].keys()):
                fail(f"/{group} columns differ (or their order): {list(a[group].keys())} vs {list(b[group].keys())}")
            for column in a[group].keys():
                name = f"{group}/{column}"
                x, y = a[name], b[name]
                if x.dtype != y.dtype or x.shape != y.shape:
                    fail(f"{name}: dtype/shape {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
                if name in PROVENANCE_COLUMNS:
                    continue
                if x.dtype.kind == "O":
                    same = list(x.asstr()[()]) == list(y.asstr()[()])
                else:
                    same = same_values(x[()], y[()])
                if not same:
                    fail(f"{name} differs between {path_a} and {path_b}")
                if dict(x.attrs) != dict(y.attrs):
                    fail(f"{name}: attributes differ")
                compared += 1
        keys_a = set(a.attrs) - PROVENANCE_ATTRIBUTES
        keys_b = set(b.attrs) - PROVENANCE_ATTRIBUTES
        if keys_a != keys_b:
            fail(f"root attributes differ: only in {path_a}: {sorted(keys_a - keys_b)}, only in {path_b}: {sorted(keys_b - keys_a)}")
        for key in sorted(keys_a):
            x, y = a.attrs[key], b.attrs[key]
            if type(x) != type(y) or not np.array_equal(np.asarray(x), np.asarray(y)):
                fail(f"root attribute {key} differs: {x!r} vs {y!r}")
        differing = sorted(k for k in PROVENANCE_ATTRIBUTES & set(a.attrs) & set(b.attrs)
                           if not np.array_equal(np.asarray(a.attrs[k]), np.asarray(b.attrs[k])))
        print(f"identical ok: {compared} datasets and {len(keys_a)} root attributes equal "
              f"(provenance that differs: {', '.join(differing) or 'none'})")


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
                     "grid_path", "grid_path_absolute", "working_directory", "complete", "points_total"]:
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
        a = a.sort_values("point_id").reset_index(drop=True).drop(columns=["rank", "elapsed_s", "session"], errors="ignore")
        b = b.sort_values("point_id").reset_index(drop=True).drop(columns=["rank", "elapsed_s", "session"], errors="ignore")
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
    elif mode == "point":
        # `clustersim run GRID --point N --json` (file argv[4]) gives point N's row of the sweep's
        # /points (argv[2]) bit for bit: every metric the two share.
        df, _, _ = load(sys.argv[2])
        point = int(sys.argv[3])
        row = df[df["point_id"] == point].iloc[0]
        run = json.load(open(sys.argv[4]))
        shared = [k for k in run if k in df.columns and k not in PROVENANCE_COLUMNS]
        if len(shared) < 10:
            fail(f"only {len(shared)} metrics shared between the run and /points: {shared}")
        for key in shared:
            a, b = run[key], row[key]
            if isinstance(a, float) or isinstance(b, (float, np.floating)):
                same = np.array_equal(np.float64(a).view(np.uint64), np.float64(b).view(np.uint64))
            else:
                same = a == b
            if not same:
                fail(f"point {point}: {key} is {a!r} in the run, {b!r} in the sweep")
        print(f"point ok: point {point}, {len(shared)} metrics bit-identical")
    elif mode == "identical":
        check_identical(sys.argv[2], sys.argv[3])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
