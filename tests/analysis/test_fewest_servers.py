"""`clustersim-analyze fewest-servers`: synthetic serving-sweep result files (written here with h5py
in the schema of sweep/README.md) with hand-chosen metric values, and the exact answers. No build
needed: the command runs in this process (analysis.cli.main) and once as its launcher runs it."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd
import pytest

from analysis import cli, load
from analysis.fewest_servers import Objective, check_objective, fewest_servers
from conftest import ROOT

POLICY, NODES, RATE = "scheduler.task_placement", "cluster.nodes", "workload.queries_per_s"
METRICS = ["jobs", "jct_mean", "queries", "query_latency_mean", "query_latency_p50", "query_latency_p99",
           "query_latency_max", "task_queue_mean", "task_load_mean", "task_transfer_mean", "task_compute_mean",
           "cache_hit_rate", "model_loads", "evictions", "bytes_moved", "query_slo_attainment"]


def write_results(path, axes, configs, replicates, values, status=None, queries=None, complete=True):
    """A result file: `configs` lists each configuration's axis values (a tuple in `axes` order, in grid
    order); `values[metric][c]` its per-replicate values (unset metrics: 0). `status[(c, r)]` fails a
    point (its metrics are then 0, as the sweep writes them); `queries[(c, r)]` overrides the completed
    query count (default 1000 for a successful point)."""
    status, queries = status or {}, queries or {}
    rows = []
    for c, config in enumerate(configs):
        for r in range(replicates):
            row = dict(point_id=c * replicates + r, config_id=c, replicate=r, seed=1000 + r)
            row.update(zip(axes, config))
            row["status"] = status.get((c, r), "ok")
            for metric in METRICS:
                row[metric] = float(values[metric][c][r]) if metric in values else 0.0
            row["queries"] = queries.get((c, r), 1000)
            if row["status"] != "ok":
                row.update({metric: 0.0 for metric in METRICS})
            rows.append(row)
    frame = pd.DataFrame(rows)
    with h5py.File(path, "w") as f:
        group = f.create_group("points", track_order=True)
        for column in ["point_id", "config_id", "replicate", "seed"] + axes + ["status"] + METRICS:
            data = frame[column].to_numpy() if len(frame) else np.array([], dtype=np.int64)
            if column == "seed":
                group[column] = data.astype(np.uint64)
            elif column in ("point_id", "config_id", "replicate", "queries", "jobs", "model_loads", "evictions"):
                group[column] = data.astype(np.int64)
            elif data.dtype == object or column == "status":
                group.create_dataset(column, data=[str(v) for v in data], dtype=h5py.string_dtype())
            else:
                group[column] = data
        f.attrs.update(schema_version=1, axes=json.dumps(axes), metrics=json.dumps(METRICS), replicates=replicates,
                       paired_seeds=1, points_total=len(configs) * replicates, points_done=len(frame),
                       complete=int(complete))
    return str(path)


# The main synthetic sweep: 3 policies x 3 sizes x 2 rates, 2 replicates, p99 latency chosen by hand
# (objective: p99 <= 0.5 s). Comments give each configuration's mean.
P99 = {
    # rate 50
    ("compass", 2, 50.0): (0.7, 0.9),      # 0.8
    ("compass", 4, 50.0): (0.2, 0.6),      # 0.4: meets on average, though replicate 1 alone does not
    ("compass", 8, 50.0): (0.1, 0.3),      # 0.2
    ("round_robin", 2, 50.0): (1.1, 1.3),  # 1.2
    ("round_robin", 4, 50.0): (0.45, 0.75),  # 0.6: misses on average, though replicate 0 alone meets
    ("round_robin", 8, 50.0): (0.4, 0.5),  # 0.45
    ("random", 2, 50.0): (1.9, 2.1),       # 2.0
    ("random", 4, 50.0): (1.4, 1.6),       # 1.5
    ("random", 8, 50.0): (0.8, 1.0),       # 0.9: none
    # rate 100
    ("compass", 2, 100.0): (1.4, 1.6),     # 1.5
    ("compass", 4, 100.0): (0.8, 1.0),     # 0.9
    ("compass", 8, 100.0): (0.5, 0.5),     # 0.5: exactly the target meets (<=)
    ("round_robin", 2, 100.0): (3.0, 3.0),
    ("round_robin", 4, 100.0): (2.0, 2.0),
    ("round_robin", 8, 100.0): (0.7, 0.9),  # 0.8: none
    ("random", 2, 100.0): (3.0, 3.0),
    ("random", 4, 100.0): (2.0, 2.0),
    ("random", 8, 100.0): (0.3, 0.6),      # replicate 0 fails (metrics 0): the mean is 0.6, not 0.3 or 0.45
}
# SLO attainment (higher is better; objective >= 0.9), rate 50 only.
SLO = {
    ("compass", 2): (0.5, 0.7), ("compass", 4): (0.85, 0.97), ("compass", 8): (0.99, 1.0),  # 4 (0.91)
    ("round_robin", 2): (0.2, 0.3), ("round_robin", 4): (0.8, 0.9), ("round_robin", 8): (0.9, 0.9),  # 8
    ("random", 2): (0.1, 0.1), ("random", 4): (0.3, 0.5), ("random", 8): (0.85, 0.87),  # none (0.86)
}
POLICIES, SIZES, RATES = ["compass", "round_robin", "random"], [2, 4, 8], [50.0, 100.0]


def grid():
    # Grid order as the sweep writes it: dimensions in file order, the first varies slowest.
    return [(p, n, q) for p in POLICIES for n in SIZES for q in RATES]


@pytest.fixture
def sweep(tmp_path):
    configs = grid()
    failed_c = configs.index(("random", 8, 100.0))
    values = {"query_latency_p99": [P99[c] for c in configs],
              "query_slo_attainment": [SLO.get(c[:2], (0, 0)) if c[2] == 50.0 else (0, 0) for c in configs]}
    return write_results(tmp_path / "serving.h5", [POLICY, NODES, RATE], configs, 2, values,
                         status={(failed_c, 0): "config.toml: out of GPU memory"})


def analyze(*argv):
    """Runs the command in this process: (status, stdout, stderr)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def answers(found):
    return {(a.group, a.by): (a.fewest, a.n, pytest.approx(a.value)) for a in found.answers}


def test_fewest_size_per_policy_and_rate(sweep):
    results = load(sweep)
    found = fewest_servers(results, Objective("query_latency_p99", 0.5))
    assert found.group_axes == [RATE] and found.sizes == [2, 4, 8]
    assert answers(found) == {
        ((50.0,), "compass"): (4, 2, 0.4),  # the mean 0.4 meets; replicate 1 (0.6) alone would not
        ((50.0,), "round_robin"): (8, 2, 0.45),  # 4 misses on average (0.6) though replicate 0 meets
        ((50.0,), "random"): (None, 2, 0.9),  # none: the largest size's mean
        ((100.0,), "compass"): (8, 2, 0.5),  # exactly the target meets
        ((100.0,), "round_robin"): (None, 2, 0.8),
        ((100.0,), "random"): (None, 1, 0.6),  # the failed replicate (metric 0) is left out
    }
    ratios = {(a.group, a.by): a.ratio for a in found.answers if a.fewest is not None}
    assert ratios == {((50.0,), "compass"): 1.0, ((50.0,), "round_robin"): 2.0, ((100.0,), "compass"): 1.0}
    assert found.comparison((50.0,)) == ("workload.queries_per_s=50: compass needs 4 servers, round_robin 8 (2.0x), "
                                         "random none up to 8")
    assert found.comparison((100.0,)) == ("workload.queries_per_s=100: compass needs 8 servers, round_robin none up "
                                          "to 8, random none up to 8")
    # The long table: one row per (rate, policy, size), replicate means and counts.
    cells = found.cells.set_index([RATE, POLICY, NODES])
    assert len(cells) == 18
    for (policy, nodes, rate), pair in P99.items():
        row = cells.loc[(rate, policy, nodes)]
        if (policy, nodes, rate) == ("random", 8, 100.0):
            assert (row["n"], row["failed"], row["mean"]) == (1, 1, pytest.approx(0.6))
        else:
            assert (row["n"], row["failed"], row["mean"]) == (2, 0, pytest.approx(np.mean(pair)))
        assert row["meets"] == (row["mean"] <= 0.5)
    assert cells.loc[(50.0, "round_robin", 2), "fewest"] == 8
    assert pd.isna(cells.loc[(50.0, "random", 2), "fewest"])
    assert any("1 of 36 points failed" in note and "out of GPU memory" in note for note in found.notes)


def test_command_output_and_files(sweep, tmp_path):
    out = tmp_path / "fewest"
    status, stdout, stderr = analyze("fewest-servers", sweep, "--target", "0.5", "--out", out)
    assert (status, stderr) == (0, "")
    lines = stdout.splitlines()
    assert lines[0] == "# Fewest servers: query_latency_p99 <= 0.5 s"
    assert "| 50 | compass | 4 | 2 | 0.400 | 1.0x |" in lines
    assert "| 50 | round_robin | 8 | 2 | 0.450 | 2.0x |" in lines
    assert "| 50 | random | none (max size 8: 0.900) | 2 | 0.900 | - |" in lines
    assert "| 100 | random | none (max size 8: 0.600) | 1 | 0.600 | - |" in lines
    assert "* workload.queries_per_s=50: compass needs 4 servers, round_robin 8 (2.0x), random none up to 8" in lines
    # The per-size table: rows policy + rate, columns sizes; the fewest in bold, a short cell says its n.
    assert "| scheduler.task_placement | workload.queries_per_s | 2 | 4 | 8 |" in lines
    assert "| compass | 50 | 0.800 | **0.400** | 0.200 |" in lines
    assert "| round_robin | 50 | 1.200 | 0.600 | **0.450** |" in lines
    assert "| random | 100 | 3.000 | 2.000 | 0.600 (n=1) |" in lines
    assert lines[-1] == f"wrote {out}/fewest_servers.md and fewest_servers.csv"
    assert sorted(os.listdir(out)) == [".clustersim-report", "fewest_servers.csv", "fewest_servers.md"]
    assert (out / "fewest_servers.md").read_text() == stdout[: stdout.rindex("\nwrote ")]
    table = pd.read_csv(out / "fewest_servers.csv")
    assert list(table.columns) == [RATE, POLICY, NODES, "metric", "objective", "n", "failed", "no_queries", "mean",
                                   "meets", "fewest", "ratio_to_best"]
    row = table[(table[POLICY] == "compass") & (table[RATE] == 50) & (table[NODES] == 4)].iloc[0]
    assert (row["n"], row["mean"], row["meets"], row["fewest"], row["ratio_to_best"]) == (2, 0.4, True, 4, 1.0)
    assert table[(table[POLICY] == "random")]["fewest"].isna().all()
    # An existing folder: refused without --overwrite, replaced with it.
    status, stdout, stderr = analyze("fewest-servers", sweep, "--target", "0.5", "--out", out)
    assert status == 2 and "already exists: pass --overwrite" in stderr and stdout == ""
    status, stdout, stderr = analyze("fewest-servers", sweep, "--target", "1", "--out", out, "--overwrite")
    assert status == 0
    assert "* workload.queries_per_s=50: compass needs 2 servers, round_robin 4 (2.0x), random 8 (4.0x)" in stdout
    assert sorted(os.listdir(tmp_path)) == ["fewest", "serving.h5"]


def test_at_least(sweep):
    status, stdout, stderr = analyze("fewest-servers", sweep, "--metric", "query_slo_attainment", "--target", "0.9",
                                     "--at-least")
    assert status == 0, stderr
    assert "# Fewest servers: query_slo_attainment >= 0.9" in stdout
    assert "| 50 | compass | 4 | 2 | 0.910 | 1.0x |" in stdout  # (0.85 + 0.97) / 2
    assert "| 50 | round_robin | 8 | 2 | 0.900 | 2.0x |" in stdout  # exactly the target meets (>=)
    assert "| 50 | random | none (max size 8: 0.860) | 2 | 0.860 | - |" in stdout
    # Rate 100 has attainment 0 everywhere (as with no SLO configured): nobody meets it.
    assert "* workload.queries_per_s=100: no scheduler.task_placement meets query_slo_attainment >= 0.9 at any size " \
           "up to 8" in stdout
    results = load(sweep)
    found = fewest_servers(results, check_objective(results, "query_slo_attainment", 0.9, True))
    assert {a.by: a.fewest for a in found.answers if a.group == (50.0,)} == {"compass": 4, "round_robin": 8,
                                                                          "random": None}


def test_direction_must_match_the_metric(sweep, tmp_path):
    status, stdout, stderr = analyze("fewest-servers", sweep, "--metric", "query_slo_attainment", "--target", "0.9")
    assert status == 2 and "better when higher: pass --at-least" in stderr
    status, stdout, stderr = analyze("fewest-servers", sweep, "--target", "0.5", "--at-least")
    assert status == 2 and "query_latency_p99 is better when lower" in stderr
    # A metric without a direction takes either.
    results = load(sweep)
    assert check_objective(results, "bytes_moved", 1e9, False).sign == "<="


def test_zipped_axis_and_another_size_axis(tmp_path):
    # cluster.gpus follows cluster.nodes (zipped): no group of its own; as --size-axis it gives the same answers.
    axes = [POLICY, NODES, "cluster.gpus"]
    configs = [(p, n, 8 * n) for p in ["compass", "round_robin"] for n in [1, 2, 4]]
    p99 = {"compass": [(0.9, 0.9), (0.3, 0.3), (0.1, 0.1)], "round_robin": [(0.9, 0.9), (0.8, 0.8), (0.2, 0.2)]}
    values = {"query_latency_p99": p99["compass"] + p99["round_robin"]}
    path = write_results(tmp_path / "zip.h5", axes, configs, 2, values)
    found = fewest_servers(load(path), Objective("query_latency_p99", 0.5))
    assert found.group_axes == []
    assert {a.by: a.fewest for a in found.answers} == {"compass": 2, "round_robin": 4}
    assert found.comparison(()) == "compass needs 2 servers, round_robin 4 (2.0x)"
    assert any("cluster.gpus" in note and "zipped" in note for note in found.notes)
    status, stdout, stderr = analyze("fewest-servers", path, "--target", "0.5", "--size-axis", "cluster.gpus")
    assert status == 0, stderr
    assert "# Fewest cluster.gpus: query_latency_p99 <= 0.5 s" in stdout
    assert "* compass needs cluster.gpus=16, round_robin 32 (2.0x)" in stdout
    # One server: singular.
    found = fewest_servers(load(path), Objective("query_latency_p99", 1.0))
    assert found.comparison(()) == "compass needs 1 server, round_robin 1 (1.0x)"


def test_points_without_queries_are_left_out(tmp_path):
    configs = [("compass", n, 50.0) for n in [2, 4]]
    values = {"query_latency_p99": [(0.9, 0.9), (0.4, 0.2)]}
    # Replicate 0 of size 2 completed no query: its p99 of 0 must not make size 2 meet the objective.
    path = write_results(tmp_path / "idle.h5", [POLICY, NODES, RATE], configs, 2, values, queries={(0, 0): 0})
    with h5py.File(path, "a") as f:  # as the sweep writes it: metrics 0 where no query completed
        p99 = f["points/query_latency_p99"][()]
        p99[0] = 0.0
        f["points/query_latency_p99"][...] = p99
    found = fewest_servers(load(path), Objective("query_latency_p99", 0.5))
    assert answers(found) == {((), "compass"): (4, 2, 0.3)}
    assert found.cells["no_queries"].tolist() == [1, 0]
    assert any("Left out of the means: 1 successful point that completed no query" in note for note in found.notes)


def test_non_monotone_and_unknown_sizes_are_noted(tmp_path):
    configs = [("compass", n, 50.0) for n in [2, 4, 8, 16]]
    values = {"query_latency_p99": [(0.0, 0.0), (0.4, 0.4), (0.7, 0.7), (0.3, 0.3)]}
    path = write_results(tmp_path / "odd.h5", [POLICY, NODES, RATE], configs, 1, values,
                         status={(0, 0): "failed"})
    found = fewest_servers(load(path), Objective("query_latency_p99", 0.5))
    assert answers(found) == {((), "compass"): (4, 1, 0.4)}
    assert "scheduler.task_placement=compass: no successful point at cluster.nodes 2, so the fewest may be smaller " \
           "than 4." in found.notes
    assert "scheduler.task_placement=compass: meets the objective at 4 but not at the larger 8 (0.700)." in found.notes
    status, stdout, stderr = analyze("fewest-servers", path, "--target", "0.5")
    assert "| compass | failed | **0.400** | 0.700 | 0.300 |" in stdout


def assert_error(argv, fragment):
    status, stdout, stderr = analyze("fewest-servers", *argv)
    assert status == 2, (status, stdout, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("clustersim-analyze: error: ") and fragment in lines[0], stderr
    assert stdout == ""


def test_errors(sweep, tmp_path):
    assert_error([sweep, "--target", "0.5", "--size-axis", "cluster.gpus"],
                 "--size-axis 'cluster.gpus': no such axis in")
    assert_error([sweep, "--target", "0.5", "--by", "scheduler.policy"], "--by 'scheduler.policy': no such axis")
    assert_error([sweep, "--target", "0.5", "--size-axis", POLICY, "--by", RATE],
                 "--size-axis 'scheduler.task_placement': not a numeric axis (its values: compass, round_robin, "
                 "random)")
    assert_error([sweep, "--target", "0.5", "--by", NODES], "--by and --size-axis are the same axis")
    assert_error([sweep, "--target", "0.5", "--metric", "latency_p99"], "--metric 'latency_p99': no such metric")
    assert_error([sweep, "--target", "nan"], "--target nan: must be a finite number")
    assert_error([tmp_path / "missing.h5", "--target", "0.5"], "missing.h5: no such file")
    with pytest.raises(SystemExit) as exit:  # argparse: --target is required
        analyze("fewest-servers", sweep)
    assert exit.value.code == 2
    # No points; every point failed; a training sweep (no query completed anywhere).
    empty = write_results(tmp_path / "empty.h5", [POLICY, NODES, RATE], [], 1, {}, complete=False)
    assert_error([empty, "--target", "0.5"], "empty.h5: no points")
    configs = [("compass", 2, 50.0), ("compass", 4, 50.0)]
    broken = write_results(tmp_path / "broken.h5", [POLICY, NODES, RATE], configs, 1, {},
                           status={(0, 0): "bad", (1, 0): "bad"})
    assert_error([broken, "--target", "0.5"], "broken.h5: no successful point (2 points, all failed)")
    training = write_results(tmp_path / "training.h5", [POLICY, NODES, RATE], configs, 1,
                             {"jct_mean": [(10.0,), (5.0,)]}, queries={(0, 0): 0, (1, 0): 0})
    assert_error([training, "--target", "0.5"], "no successful point completed a query")
    # A metric that is not per query still reads a training sweep.
    status, stdout, stderr = analyze("fewest-servers", training, "--metric", "jct_mean", "--target", "6")
    assert status == 0 and "* compass needs 4 servers" in stdout
    assert sorted(os.listdir(tmp_path)) == ["broken.h5", "empty.h5", "serving.h5", "training.h5"]


def test_the_launcher_runs_it(sweep):
    # As build/bin/clustersim-analyze runs the package (analysis/clustersim-analyze.in).
    command = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); from analysis.cli import main; "
               "sys.exit(main())", ROOT, "fewest-servers", sweep, "--target", "0.5"]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "compass needs 4 servers, round_robin 8 (2.0x)" in done.stdout
    done = subprocess.run(command[:-2] + ["--target", "0.5", "--metric", "nope"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("clustersim-analyze: error: --metric 'nope'")
