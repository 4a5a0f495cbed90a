"""Issue 39 part 2: findings and speedups at every load where both sides are steady, each with its
load; configurations not in steady state flagged by a verdict column in every table and never
compared; utilisation findings on useful work."""
import numpy as np
import pandas as pd

from analysis import findings
from analysis.compare import compare, to_markdown as compare_markdown
from analysis.results import Results
from analysis.summary import NOT_STEADY, parse_baseline, sections, summarize

POLICIES = ["fifo", "srtf", "las"]
LOADS = [0.6, 0.8, 1.0]


def _grid(overloaded: set[tuple[str, float]], seeds: int = 4) -> Results:
    """policy x load x seeds, paired seeds. jct_mean: fifo 1000 x (1 + load), srtf half of fifo's,
    las 0.8 of fifo's, with a little per-seed noise; gpu_util = load, and srtf's goodput 0.9 (its
    preemption overheads held 10% of its GPU time). `overloaded` configurations carry
    window_overloaded = 1 on every seed."""
    rng = np.random.default_rng(39)
    rows, point = [], 0
    factor = {"fifo": 1.0, "srtf": 0.5, "las": 0.8}
    config = 0
    for policy in POLICIES:
        for load in LOADS:
            bad = (policy, load) in overloaded
            for seed in range(seeds):
                noise = 1 + 0.001 * rng.standard_normal()
                rows.append({
                    "point_id": point, "config_id": config, "seed": 100 + seed, "replicate": seed, "status": "ok",
                    "scheduler.policy": policy, "workload.load": load,
                    "jct_mean": 1000 * (1 + load) * factor[policy] * noise * (30 if bad else 1),
                    "gpu_util": min(load, 1.0) * (1.0 if policy == "fifo" else 1.02),
                    "goodput": 0.9 if policy == "srtf" else 1.0,
                    "steady_state": 0 if bad else 1, "window_overloaded": 1 if bad else 0, "window_too_short": 0,
                })
                point += 1
            config += 1
    points = pd.DataFrame(rows)
    metrics = ["jct_mean", "gpu_util", "goodput", "steady_state", "window_overloaded", "window_too_short"]
    attrs = {"points_total": len(rows), "paired_seeds": True, "replicates": seeds, "warnings": "[]"}
    return Results("made.h5", points, ["scheduler.policy", "workload.load"], metrics, attrs, None, None)


def _said(overloaded):
    results = _grid(overloaded)
    baseline = parse_baseline(results, "fifo", "scheduler.policy")
    table = summarize(results, 0.95, baseline)
    return results, baseline, table, findings.findings(results, table, "workload.load", baseline, 0.95)


def test_findings_at_every_load_where_the_pair_is_steady():
    # At load 1.0 srtf is overloaded (its JCT 30x, which would read as a 0.07x "speedup").
    results, baseline, table, said = _said({("srtf", 1.0)})
    jct = next(line for line in said if line.startswith("Mean JCT"))
    # A clause per load, each with its load; srtf (2x better by construction) found at 0.6 and 0.8.
    for load in ("0.6", "0.8", "1"):
        assert f"at workload.load = {load}," in jct, jct
    clauses = jct.split("; at ")
    assert "srtf is 2.00x better than fifo" in clauses[0] and "srtf is 2.00x better than fifo" in clauses[1]
    # At 1.0 only las is compared; srtf is named as not steady with its verdict, never compared.
    last = clauses[2]
    assert "las is 1.25x better than fifo" in last
    assert "srtf" in last and "overloaded" in last and "srtf is" not in last
    # The summary table marks the pair; its numbers are kept for the CSV.
    srtf = table[(table["scheduler.policy"] == "srtf") & (table["metric"] == "jct_mean")]
    assert list(srtf.sort_values("workload.load")["pair_steady"]) == [True, True, False]


def test_overloaded_baseline_removes_the_load_from_comparisons():
    results, baseline, table, said = _said({("fifo", 1.0)})
    jct = next(line for line in said if line.startswith("Mean JCT"))
    last = jct.split("; at ")[-1]
    assert last.startswith("workload.load = 1, no comparison with fifo is in steady state")
    assert "fifo (4 overloaded)" in last
    assert "srtf is 2.00x better" in jct.split("; at ")[0]


def test_every_table_has_a_verdict_column_and_no_overloaded_speedup():
    results, baseline, table, _ = _said({("srtf", 1.0), ("las", 1.0)})
    for section in sections(results, table, 0.95, baseline):
        assert "verdict" in section.header, section.title
        verdict = section.header.index("verdict")
        policy = section.header.index("scheduler.policy")
        load = section.header.index("workload.load")
        for row in section.rows:
            bad = row[policy] in ("srtf", "las") and row[load] == "1"
            assert ("overloaded" in row[verdict]) == bad, (section.title, row)
            if bad and "Speedup" in section.title:
                assert all(cell == NOT_STEADY for cell in row[verdict + 1:]), row
            if bad and section.level == 3 and len(row) > verdict + 5:
                assert NOT_STEADY in row, row


def test_utilisation_finding_is_on_useful_work():
    # srtf's gpu_util is 1.02x fifo's, all of it preemption overhead (goodput 0.9): on useful work
    # it is 0.918x fifo's, and the sentence says it counts useful work only.
    results, baseline, table, said = _said(set())
    util = next(line for line in said if line.startswith("Useful GPU utilisation"))
    assert "overheads are not counted as use" in util
    assert "srtf is 1.09x worse than fifo" in util  # 1 / (1.02 x 0.9) = 1.089
    # No sentence on raw gpu_util, where srtf's overheads would read as 1.02x better.
    assert not any(line.startswith("GPU utilisation:") for line in said)


def test_compare_marks_and_skips_configurations_not_steady():
    a = _grid(set())
    b = _grid({("srtf", 1.0)})
    table, axes, notes = compare(a, b)
    row = table[(table["metric"] == "jct_mean") & (table["scheduler.policy"] == "srtf")
                & (table["workload.load"] == "1")].iloc[0]
    assert not row["both_steady"] and not row["significant"] and np.isnan(row["p_holm"])
    assert "overloaded" in row["verdict_b"] and row["verdict_a"] == "4 steady"
    steady = table[table["both_steady"] & (table["metric"] == "jct_mean")]
    assert len(steady) == len(POLICIES) * len(LOADS) - 1 and steady["p_holm"].notna().all()
    text = compare_markdown(a, b, table, axes, notes, 0.95, ["jct_mean"])
    line = next(l for l in text.splitlines() if l.startswith("| srtf | 1 |"))
    assert NOT_STEADY in line and "overloaded" in line


def test_a_real_grid_has_findings_at_every_steady_load(clustersim, tmp_path):
    """The done-when grid of issue 39, small (tests/analysis/data/verdict_grid.toml): 5 policies x
    4 loads x 5 seeds. Every load where some pair is steady has a clause for each headline metric;
    every table has a verdict column; no pair with an overloaded side is compared anywhere."""
    import os

    from conftest import DATA, run_sweep
    from analysis.results import load

    out = run_sweep(clustersim, os.path.join(DATA, "verdict_grid.toml"), str(tmp_path / "grid.h5"))
    results = load(out, jobs=False, timeseries=False)
    baseline = parse_baseline(results, "fifo", "scheduler.policy")
    table = summarize(results, 0.95, baseline)
    said = findings.findings(results, table, "workload.load", baseline, 0.95)
    ok = results.ok
    assert (ok.loc[ok["workload.load"] == 1.1, "window_overloaded"] == 1).all()  # every policy overloads
    compared = table[~table["test"].isin(["baseline", "no baseline"]) & np.isfinite(table["speedup"])]
    starts = {"jct_mean": "Mean JCT", "jct_p99": "P99 JCT", "queue_mean": "Mean queueing delay",
              "gpu_util": "Useful GPU utilisation"}
    steady_loads_seen = set()
    for metric, start in starts.items():
        line = next(line for line in said if line.startswith(start))
        rows = compared[compared["metric"] == metric]
        # Every load where some pair is steady (and the metric has a ratio) has its clause, which
        # compares; every other load's clause compares nothing.
        for value, group in rows.groupby("workload.load"):
            clause = line.split(f"at workload.load = {value:g}, ")[1].split("; at ")[0]
            if group["pair_steady"].astype(bool).any():
                steady_loads_seen.add(value)
                assert not clause.startswith("no comparison"), (value, line)
            else:
                assert clause.startswith("no comparison with fifo is in steady state"), (value, line)
        assert "at workload.load = 1.1, no comparison with fifo is in steady state" in line, line
    assert len(steady_loads_seen) >= 2, said  # findings beyond the lowest load
    for section in sections(results, table, 0.95, baseline):
        assert "verdict" in section.header, section.title
        if "Speedup" in section.title:
            load = section.header.index("workload.load")
            for row in section.rows:
                if row[load] == "1.1":
                    assert all(cell == NOT_STEADY for cell in row[section.header.index("verdict") + 1:]), row
