"""load() and the report on a sweep still running (frozen mid-way), killed, and resumed: the
in-progress rows equal the finished file's, through `clustersim snapshot`."""
import os
import re
import signal
import subprocess
import time

import h5py
import numpy as np
import pytest

from analysis import load
from conftest import DATA, run


def wait_for_points(log, wanted, limit_s=60):
    deadline = time.time() + limit_s
    while time.time() < deadline:
        text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
        done = [int(n) for n in re.findall(r"sweep: (\d+)/", text)]
        if done and done[-1] >= wanted:
            return done[-1]
        time.sleep(0.05)
    pytest.fail(f"the sweep did not reach {wanted} points in {limit_s} s: {text[-500:]}")


def same_points(partial, final):
    """Every column of the partial file's points equals the finished file's (provenance aside)."""
    rows = final.points.set_index("point_id").loc[partial.points["point_id"]].reset_index()
    for column in partial.points.columns:
        if column in ("rank", "elapsed_s"):
            continue
        assert (partial.points[column].to_numpy() == rows[column].to_numpy()).all(), column


def test_running_killed_and_resumed_sweeps(clustersim, analyze, tmp_path):
    out = str(tmp_path / "slow.h5")
    grid = os.path.join(DATA, "slow_grid.toml")
    log = str(tmp_path / "sweep.log")
    with open(log, "w") as stderr:
        sweep = subprocess.Popen(
            [clustersim, "sweep", grid, "--out", out, "--threads", "1", "--progress-interval", "0.05"],
            stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_for_points(log, 2)
        sweep.send_signal(signal.SIGSTOP)  # frozen mid-sweep: only the journal exists
        assert not os.path.exists(out) and os.path.exists(out + ".journal")

        running = load(out)
        assert running.from_journal and not running.complete
        assert 2 <= len(running.points) < running.points_total == 16
        assert running.attrs["snapshot"] == 1 and running.attrs["sessions"] == 1
        assert sorted(running.points["point_id"]) == list(running.points["point_id"])
        # The journal itself may be named, too.
        assert len(load(out + ".journal").points) == len(running.points)

        report = str(tmp_path / "running_report")
        status, stdout, stderr = run([analyze, out, "--out", report, "--figure-formats", "none"])
        assert status == 0, stderr
        assert "sweep not finished" in stdout
        assert "sweep not finished: read from its journal" in open(os.path.join(report, "summary.md"),
                                                                    encoding="utf-8").read()
        assert not os.path.exists(out)  # reading never creates the sweep's own file
    finally:
        sweep.send_signal(signal.SIGKILL)
        sweep.wait()

    killed = load(out)
    assert killed.from_journal and len(killed.points) >= len(running.points)

    subprocess.run([clustersim, "sweep", grid, "--out", out, "--threads", "1", "--resume", "--quiet"], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert not os.path.exists(out + ".journal")
    final = load(out)
    assert final.complete and not final.from_journal
    assert final.attrs["sessions"] == 2 and len(final.points) == 16
    same_points(running, final)
    same_points(killed, final)
    with h5py.File(out, "r") as f:
        assert np.array_equal(final.points["jct_mean"].to_numpy(), f["points/jct_mean"][()])
