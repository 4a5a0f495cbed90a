"""`clustersim-analyze compare`: paired t-tests where both files ran the same seeds, Welch's
t-test otherwise; numbers checked against scipy on the files' own values."""
import json
import os

import h5py
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import DATA, run, run_sweep


def grid_variant(tmp_path, name, old, new):
    text = open(os.path.join(DATA, "grid.toml"), encoding="utf-8").read()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return str(path)


def points(path):
    with h5py.File(path, "r") as f:
        return pd.DataFrame({k: (d.asstr()[()] if d.dtype.kind == "O" else d[()]) for k, d in f["points"].items()})


def check_against_scipy(table, a, b, paired):
    checked = 0
    for _, row in table.iterrows():
        select = lambda df: df[(df["scheduler.policy"] == row["scheduler.policy"])  # noqa: E731
                               & (df["workload.load"] == row["workload.load"])].sort_values("replicate")
        va, vb = select(a)[row["metric"]].to_numpy(float), select(b)[row["metric"]].to_numpy(float)
        assert row["mean_a"] == pytest.approx(va.mean(), rel=1e-12)
        assert row["mean_b"] == pytest.approx(vb.mean(), rel=1e-12)
        # The tool averages paired differences; the means' difference rounds at their magnitude.
        scale = max(1.0, abs(va.mean()), abs(vb.mean()))
        assert row["diff"] == pytest.approx(vb.mean() - va.mean(), rel=1e-9, abs=1e-12 * scale)
        assert row["test"] == ("paired t" if paired else "Welch t")
        spread = np.std(vb - va) if paired else np.std(va) + np.std(vb)
        if spread > 0:
            p = stats.ttest_rel(vb, va).pvalue if paired else stats.ttest_ind(vb, va, equal_var=False).pvalue
            assert row["p"] == pytest.approx(p, rel=1e-9)
            # A configuration not in steady state on either side is never called significant.
            assert row["significant"] == (p < 0.05 and bool(row["both_steady"]))
            checked += 1
    return checked


def test_compare_paired_and_welch(clustersim, analyze, sweep_file, tmp_path):
    # B: the same grid and seeds with costlier checkpoints (a "new version" of the preemptive policies).
    b_file = run_sweep(clustersim, grid_variant(tmp_path, "b.toml", "checkpoint_s = 30", "checkpoint_s = 600"),
                       str(tmp_path / "b.h5"))
    out = str(tmp_path / "cmp")
    status, stdout, stderr = run([analyze, "compare", sweep_file, b_file, "--out", out])
    assert status == 0, stderr
    assert "## jct_mean" in stdout and "paired t" in stdout
    table = pd.read_csv(os.path.join(out, "compare.csv"))
    with h5py.File(sweep_file, "r") as f:
        metrics = json.loads(f.attrs["metrics"])
    assert set(table["metric"]) == set(metrics) and len(table) == 6 * len(metrics)
    a, b = points(sweep_file), points(b_file)
    assert check_against_scipy(table, a, b, paired=True) > 0
    # Costlier checkpoints change the preemptive policies only; fifo never preempts.
    fifo = table[(table["scheduler.policy"] == "fifo") & (table["metric"] == "jct_mean")]
    assert (fifo["diff"] == 0).all() and (fifo["p"] == 1).all() and not fifo["significant"].any()
    assert sorted(os.listdir(out)) == [".clustersim-report", "compare.csv", "compare.md"]

    # C: another grid seed, so other workloads: nothing to pair, Welch's test.
    c_file = run_sweep(clustersim, grid_variant(tmp_path, "c.toml", "seed = 5", "seed = 6"), str(tmp_path / "c.h5"))
    status, stdout, stderr = run([analyze, "compare", sweep_file, c_file, "--out", str(tmp_path / "cmp_c")])
    assert status == 0, stderr
    table = pd.read_csv(tmp_path / "cmp_c" / "compare.csv")
    assert check_against_scipy(table, a, points(c_file), paired=False) > 0
