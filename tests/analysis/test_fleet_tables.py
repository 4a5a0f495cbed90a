"""The fleet's tables (analysis/fleet.py) from a hand-made /jobs with a `cluster` column: routers
side by side (JCT, queueing, carbon per run, share per cluster) and by cluster; none without the
column. No sweep, no render."""
import pandas as pd

from analysis import fleet
from analysis.results import Results


def _results(jobs: pd.DataFrame) -> Results:
    # Two routers, two seeds each: points 0, 1 (home) and 2, 3 (least_loaded).
    points = pd.DataFrame({
        "point_id": [0, 1, 2, 3], "config_id": [0, 0, 1, 1], "replicate": [0, 1, 0, 1], "seed": [1, 2, 1, 2],
        "status": ["ok"] * 4, "fleet.router": ["home", "home", "least_loaded", "least_loaded"],
        "jct_mean": [1.0, 2.0, 3.0, 4.0]})
    attrs = {"points_total": 4, "paired_seeds": True, "replicates": 2, "warnings": "[]"}
    return Results("made.h5", points, ["fleet.router"], ["jct_mean"], attrs, jobs, None)


def _jobs() -> pd.DataFrame:
    hour = 3600.0
    return pd.DataFrame({
        "point_id": [0, 0, 1, 1, 2, 2, 3, 3],
        "jct": [1 * hour, 3 * hour, 2 * hour, 2 * hour, 4 * hour, 2 * hour, 1 * hour, 1 * hour],
        "queue_delay": [0.0, 2 * hour, 1 * hour, 1 * hour, 2 * hour, 0.0, 0.0, 0.0],
        "cluster": [0, 1, 0, 1, 0, 0, 1, 0],
        "carbon_kg": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
    })


def test_routers_side_by_side_and_by_cluster():
    overall, by_cluster = fleet.sections(_results(_jobs()))
    assert overall.header == ["fleet.router", "jobs", "JCT mean (h)", "queueing mean (h)",
                              "carbon (kgCO2e per run)", "share on cluster 0", "share on cluster 1"]
    home, least = overall.rows
    # home: JCTs 1, 3, 2, 2 h (mean 2), queues 0, 2, 1, 1 h (mean 1), carbon 10 kg over 2 seeds.
    assert home == ["home", "4", "2.000", "1.000", "5.000", "0.500", "0.500"]
    # least_loaded: JCTs 4, 2, 1, 1 h (mean 2), queues 2, 0, 0, 0 h; 3 of 4 jobs on cluster 0.
    assert least == ["least_loaded", "4", "2.000", "0.500", "13.000", "0.750", "0.250"]
    rows = {(r[0], r[1]): r[2:] for r in by_cluster.rows}
    assert rows[("home", "1")] == ["2", "2.500", "1.500", "3.000"]  # jobs of 3 and 2 h; 6 kg / 2 seeds
    assert rows[("least_loaded", "0")] == ["3", "2.333", "0.667", "9.500"]


def test_no_tables_without_the_cluster_column():
    assert fleet.sections(_results(_jobs().drop(columns=["cluster"]))) == []
    assert fleet.sections(_results(None)) == []
    # Without carbon: no carbon column.
    overall, _ = fleet.sections(_results(_jobs().drop(columns=["carbon_kg"])))
    assert "carbon (kgCO2e per run)" not in overall.header


def test_rebalancing_on_off_beside_the_routers():
    # The same four points as two configurations of rebalancing (off: points 0, 1; on: 2, 3),
    # one router; the on points moved 3 jobs in all over 2 seeds.
    points = pd.DataFrame({
        "point_id": [0, 1, 2, 3], "config_id": [0, 0, 1, 1], "replicate": [0, 1, 0, 1], "seed": [1, 2, 1, 2],
        "status": ["ok"] * 4, "fleet.router": ["home"] * 4,
        "fleet.rebalance.enabled": [False, False, True, True], "jct_mean": [1.0, 2.0, 3.0, 4.0]})
    attrs = {"points_total": 4, "paired_seeds": True, "replicates": 2, "warnings": "[]"}
    jobs = _jobs().drop(columns=["carbon_kg"]).assign(migrations_wan=[0, 0, 0, 0, 1, 0, 2, 0])
    results = Results("made.h5", points, ["fleet.router", "fleet.rebalance.enabled"], ["jct_mean"], attrs, jobs,
                      None)
    overall, by_cluster = fleet.sections(results)
    assert overall.header[:2] == ["fleet.router", "fleet.rebalance.enabled"]
    assert overall.header[5] == "moves between clusters per run"
    off, on = overall.rows
    assert off[1] == "false" and off[5] == "0.000" and on[5] == "1.500"
    rows = {(r[1], r[2]): r[3:] for r in by_cluster.rows}
    assert rows[("true", "1")][-1] == "1.000"  # on, cluster 1: point 3's first job moved twice
