"""scripts/gavel_colocation_table.py on Gavel's measured co-location throughputs (../shared;
skipped when absent), and a run of two half-GPU jobs slowed by the table's factors, checked by
hand: the faster one ends at duration / its factor, the other then runs alone."""
import csv
import json
import os
import sys

import pytest

from conftest import ROOT, run

SHARED = os.environ.get("CLUSTERSIM_SHARED_DIR") or os.path.join(ROOT, "..", "shared")
GAVEL = os.path.join(SHARED, "reference", "gavel_simulation_throughputs.json")


def test_gavel_pairs_drive_the_sharing_table(clustersim, tmp_path):
    if not os.path.exists(GAVEL):
        pytest.skip(f"{GAVEL} is absent (../shared)")
    status, out, err = run([sys.executable, os.path.join(ROOT, "scripts", "gavel_colocation_table.py"), GAVEL])
    assert status == 0, err
    rows = list(csv.DictReader(out.splitlines()))
    assert len(rows) > 100
    factors = {(r["model"], r["other"]): float(r["factor"]) for r in rows}
    assert all(0.0 < f <= 1.0 for f in factors.values())
    # The published figure, recomputed: ResNet-18 (batch size 16) beside batch size 256 on a V100.
    measured = json.load(open(GAVEL, encoding="utf-8"))["v100"]["('ResNet-18 (batch size 16)', 1)"]
    a, b = "ResNet-18 (batch size 16)", "ResNet-18 (batch size 256)"
    assert factors[(a, b)] == pytest.approx(measured["('ResNet-18 (batch size 256)', 1)"][0] / measured["null"])

    table = tmp_path / "pairs.csv"
    table.write_text(out)
    (tmp_path / "jobs.csv").write_text(f"job_id,submit_time,num_gpus,duration,model\nx,0,0.5,100,{a}\ny,0,0.5,100,{b}\n")
    (tmp_path / "run.toml").write_text(
        '[cluster]\nnodes = 1\ngpus_per_node = 1\n[workload]\ntrace = "jobs.csv"\nformat = "csv"\n'
        f'[sharing]\ninterference = "table"\ntable = "{table}"\n')
    status, out, err = run([clustersim, "run", str(tmp_path / "run.toml"), "--jobs-out", str(tmp_path / "out.csv")])
    assert status == 0, err
    finish = {r["job_id"]: float(r["finish_time"]) for r in csv.DictReader(open(tmp_path / "out.csv"))}
    fx, fy = factors[(a, b)], factors[(b, a)]
    first, second = ("x", "y") if fx >= fy else ("y", "x")
    f_first, f_second = max(fx, fy), min(fx, fy)
    assert finish[first] == pytest.approx(100 / f_first)
    assert finish[second] == pytest.approx(100 / f_first + 100 * (1 - f_second / f_first))
