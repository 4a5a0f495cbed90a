"""The report's tables of the per-job columns components add (analysis/components.py): ETTR by
job-size bucket and energy per job, one row per series value, from a hand-made /jobs (no sweep,
no render); NaN rows (points whose components did not add the column) are left out; the slowdown
CDF's samples are the finite values only."""
import numpy as np
import pandas as pd

from analysis import components
from analysis.plots import Layout, cdf_samples
from analysis.results import Results

NAN = float("nan")


def _results(jobs: pd.DataFrame) -> Results:
    points = pd.DataFrame({
        "point_id": [0, 1, 2], "config_id": [0, 1, 2], "replicate": [0, 0, 0], "seed": [1, 1, 1],
        "status": ["ok", "ok", "ok"], "scheduler.policy": ["fifo", "srtf", "las"], "jct_mean": [1.0, 2.0, 3.0]})
    attrs = {"points_total": 3, "paired_seeds": True, "replicates": 1, "warnings": "[]"}
    return Results("made.h5", points, ["scheduler.policy"], ["jct_mean"], attrs, jobs, None)


def _jobs() -> pd.DataFrame:
    # fifo: sizes 1, 8, 8, 600; srtf: 64 and 65; las (point 2): its components added nothing (NaN).
    return pd.DataFrame({
        "point_id": [0, 0, 0, 0, 1, 1, 2],
        "jct": [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0],
        "num_gpus": [1, 8, 8, 600, 64, 65, 8],
        "ettr": [0.9, 0.8, 0.6, 0.5, 0.95, 0.85, NAN],
        "energy_kwh": [1.0, 2.0, 4.0, 9.0, 3.0, 5.0, NAN],
        "carbon_kg": [0.5, 1.0, 2.0, 4.5, 1.5, 2.5, NAN],
        "contention_slowdown": [1.0, 1.25, NAN, 2.0, 1.5, 1.0, NAN],
    })


def test_ettr_by_job_size_bucket():
    table = components.ettr_by_size(_results(_jobs()), "scheduler.policy")
    assert table.header[0] == "scheduler.policy"
    assert table.header[1:5] == ["ETTR 1 GPU", "jobs 1 GPU", "ETTR 2-8", "jobs 2-8"]
    rows = {row[0]: dict(zip(table.header, row)) for row in table.rows}
    assert set(rows) == {"fifo", "srtf"}  # las has no ETTR: no row
    fifo, srtf = rows["fifo"], rows["srtf"]
    assert (fifo["ETTR 1 GPU"], fifo["jobs 1 GPU"]) == ("0.900", "1")
    assert (fifo["ETTR 2-8"], fifo["jobs 2-8"]) == ("0.700", "2")  # (0.8 + 0.6) / 2
    assert (fifo["ETTR >512"], fifo["jobs >512"]) == ("0.500", "1")
    assert (fifo["ETTR 9-64"], fifo["jobs 9-64"]) == ("-", "0")
    assert (srtf["ETTR 9-64"], srtf["ETTR 65-512"]) == ("0.950", "0.850")  # 64 and 65 GPUs apart


def test_energy_per_job_by_series():
    table = components.energy_by_series(_results(_jobs()), "scheduler.policy")
    assert table.rows[0][:5] == ["fifo", "4", "4.000", "3.000", "16.000"]  # mean 16/4, median (2+4)/2
    assert table.rows[0][5] == "2.000"  # carbon: 8 / 4
    assert table.rows[1][:2] == ["srtf", "2"]
    assert len(table.rows) == 2
    # Without a series axis: one row over every point.
    assert components.energy_by_series(_results(_jobs()), None).rows[0][:2] == ["all points", "6"]


def test_no_tables_without_the_columns():
    plain = _jobs()[["point_id", "jct", "num_gpus"]]
    assert components.sections(_results(plain), "scheduler.policy") == []
    assert len(components.sections(_results(_jobs()), "scheduler.policy")) == 2


def test_slowdown_cdf_samples_are_the_finite_values():
    results = _results(_jobs())
    lines = cdf_samples(results, Layout(results, "scheduler.policy"), "contention_slowdown")
    by_policy = {value: values for _, value, values in lines}
    assert set(by_policy) == {"fifo", "srtf"}
    assert np.array_equal(by_policy["fifo"], [1.0, 1.25, 2.0])
    assert np.array_equal(by_policy["srtf"], [1.0, 1.5])


def _study(interrupted: bool = True) -> Results:
    # Two settings (hot_spares 0 / 8; the policy fixed) x 2 replicates, and a failed point.
    n = 5
    points = pd.DataFrame({
        "point_id": range(n), "config_id": [0, 0, 1, 1, 1], "replicate": [0, 1, 0, 1, 2],
        "seed": [1, 2, 1, 2, 3], "status": ["ok", "ok", "ok", "ok", "failed"],
        "mechanisms.checkpoint_policy": ["young_daly"] * n, "mechanisms.hot_spares": [0, 0, 8, 8, 8],
        "jct_mean": [1.0] * n,
        "ettr_mean": [0.8, 0.9, 0.95, 0.85, 0.0],
        "ettr_mean.size_over_512": [0.7, NAN, 0.9, 0.8, 0.0],  # one replicate without a value
        "gpu_hours_lost.rollback": [10.0, 20.0, 4.0, 6.0, 0.0],
        "gpu_hours_lost.restart": [1.0, 3.0, 2.0, 2.0, 0.0],
        "gpu_hours_lost.checkpoint": [5.0, 5.0, 5.0, 5.0, 0.0],
        "gpu_hours_lost.waiting": [8.0, 0.0, 1.0, 1.0, 0.0],
        "interruptions": [4, 6, 3, 5, 0] if interrupted else [0] * n,
        "interruptions.gpu": [2, 4, 1, 3, 0] if interrupted else [0] * n,
        "interruptions.switch": [2, 2, 2, 2, 0] if interrupted else [0] * n})
    attrs = {"points_total": n, "paired_seeds": True, "replicates": 3, "warnings": "[]"}
    axes = ["mechanisms.checkpoint_policy", "mechanisms.hot_spares"]
    return Results("made.h5", points, axes, [c for c in points.columns[7:]], attrs, None, None)


def test_reliability_means_per_setting():
    from analysis import reliability
    table = reliability.by_setting(_study())
    # The policy does not vary: a setting is its hot_spares; the failed point is left out.
    assert list(table["setting"]) == ["hot_spares=0", "hot_spares=8"]
    assert list(table["points"]) == [2, 2]
    assert np.allclose(table["ettr_mean"], [0.85, 0.90])
    assert np.allclose(table["ettr_mean.size_over_512"], [0.7, 0.85])  # NaN left out of its mean
    assert np.allclose(table["gpu_hours_lost.rollback"], [15.0, 5.0])
    assert np.allclose(table["gpu_hours_lost.waiting"], [4.0, 1.0])
    assert np.allclose(table["interruptions.gpu"], [3.0, 2.0])
    assert "interruptions.nic" not in table.columns  # not in the file: not shown
    lost, causes = reliability.sections(_study())
    assert lost.header[:4] == ["setting", "points", "ETTR, all jobs", "ETTR, jobs > 512 GPUs"]
    assert lost.rows[0][:2] == ["hot_spares=0", "2"]
    assert causes.header == ["setting", "all", "gpu", "switch"]
    assert causes.rows[1] == ["hot_spares=8", "4.000", "2.000", "2.000"]


def test_no_reliability_part_without_interruptions():
    from analysis import reliability
    assert reliability.by_setting(_study(interrupted=False)) is None
    assert reliability.sections(_study(interrupted=False)) == []
    assert reliability.plots(_study(interrupted=False), "/nonexistent") == []
