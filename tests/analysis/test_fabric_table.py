"""The fabric's metrics (analysis.metrics.FABRIC_METRICS) get a table of their own beside the overview
when a result file has them and one is not 0 everywhere; labelled, with their units."""
import pandas as pd

from analysis import metrics as metric_table
from analysis.results import Results
from analysis.summary import sections, summarize

PLACEMENTS = ["topology", "consolidate"]
LOADS = [0.5, 0.9]


def _results(slowdown) -> Results:
    rows, point, config = [], 0, 0
    for placement in PLACEMENTS:
        for load in LOADS:
            for seed in range(3):
                rows.append({"point_id": point, "config_id": config, "seed": seed, "replicate": seed, "status": "ok",
                             "scheduler.placement": placement, "workload.target_load": load,
                             "jct_mean": 1000.0 + seed, "contention_slowdown_mean": slowdown(placement, load),
                             "contention_gpu_hours_lost": 0.0, "link_util.leaf": load / 2, "link_util.spine": 0.0})
                point += 1
            config += 1
    metrics = ["jct_mean", "contention_slowdown_mean", "contention_gpu_hours_lost", "link_util.leaf",
               "link_util.spine"]
    attrs = {"points_total": len(rows), "paired_seeds": True, "replicates": 3, "warnings": "[]"}
    return Results("made.h5", pd.DataFrame(rows), ["scheduler.placement", "workload.target_load"], metrics, attrs,
                   None, None)


def test_fabric_metrics_are_tabulated_together_when_present():
    results = _results(lambda placement, load: 1.0 if placement == "topology" else 1.0 + load)
    table = summarize(results, 0.95, None)
    fabric = [s for s in sections(results, table, 0.95, None) if s.title.startswith("Fabric")]
    assert len(fabric) == 1
    assert fabric[0].header == ["scheduler.placement", "workload.target_load", "contention_slowdown_mean",
                                "contention_gpu_hours_lost", "link_util.leaf (0-1)", "link_util.spine (0-1)"]
    assert len(fabric[0].rows) == 4
    # consolidate at load 0.9: slowdown 1.9 on every seed, half the load on the leaf uplinks.
    row = next(r for r in fabric[0].rows if r[:2] == ["consolidate", "0.9"])
    assert row[2].startswith("1.9") and row[4].startswith("0.45")
    assert metric_table.info("link_util.leaf").unit == "fraction"
    # Without LLM jobs every fabric metric is 0: no table.
    flat = _results(lambda placement, load: 0.0)
    flat.points["link_util.leaf"] = 0.0
    assert not [s for s in sections(flat, summarize(flat, 0.95, None), 0.95, None) if s.title.startswith("Fabric")]
