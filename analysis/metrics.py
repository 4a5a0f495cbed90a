"""Labels, units and the better direction of the metrics this analysis knows by name.

Which metrics exist is never decided here: it is the result file's `metrics` attribute. This table
only orders and labels them; a metric it does not know is still tabulated and plotted, with a unit
guessed from its name (`_s`, `_seconds`: seconds; `_util`: a fraction).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricInfo:
    label: str
    unit: str  # "s", "fraction", or a count's noun ("GPUs", "jobs"); "" when unknown
    better: str | None  # "lower", "higher", or None (no direction: a count, a total)
    diagnostic: bool = False  # simulator bookkeeping: tabulated, not plotted
    flag: bool = False  # a 0/1 flag per run: summarised as the share of seeds that set it
    unbounded: bool = False  # may be negative (no lower bound of 0 despite its unit)

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """The values the metric can take: intervals are clipped to them."""
        if self.flag or self.unit == "fraction":
            return 0.0, 1.0
        if self.unbounded or self.unit == "":
            return None, None
        return 0.0, None


# The fabric's metrics: plotted by load and placement like every metric of the file, and read together by
# the report's fabric table (report.fabric_section) when a result file has them.
FABRIC_METRICS = {
    "contention_slowdown_mean": MetricInfo("LLM jobs' mean contention slowdown (shared / alone)", "", "lower"),
    "contention_gpu_hours_lost": MetricInfo("GPU-hours lost to network contention", "GPU-h", "lower"),
    "link_util.leaf": MetricInfo("mean leaf-uplink utilisation", "fraction", None),
    "link_util.spine": MetricInfo("mean spine-uplink utilisation", "fraction", None),
}

_KNOWN = {
    "jct_mean": MetricInfo("mean JCT", "s", "lower"),
    "jct_p99": MetricInfo("p99 JCT", "s", "lower"),
    "queue_mean": MetricInfo("mean queueing delay", "s", "lower"),
    "makespan": MetricInfo("makespan", "s", "lower"),
    "gpu_util": MetricInfo("GPU utilisation", "fraction", "higher"),
    "frag_mean": MetricInfo("mean fragmented GPUs", "GPUs", "lower"),
    "frag_typical_mean": MetricInfo("mean GPUs the typical jobs cannot use", "GPUs", "lower"),
    "preemptions": MetricInfo("preemptions", "count", "lower"),
    "lease_changes": MetricInfo("time-share lease changes", "count", None),
    "jct_p50": MetricInfo("median JCT", "s", "lower"),
    "jct_p95": MetricInfo("p95 JCT", "s", "lower"),
    "jct_max": MetricInfo("max JCT", "s", "lower"),
    "queue_p50": MetricInfo("median queueing delay", "s", "lower"),
    "queue_p99": MetricInfo("p99 queueing delay", "s", "lower"),
    "queue_len_mean": MetricInfo("mean queue length", "jobs", "lower"),
    "gpu_seconds": MetricInfo("allocated GPU time", "GPU-s", None),
    "overhead_gpu_seconds": MetricInfo("overhead GPU time (all kinds)", "GPU-s", "lower"),
    "overhead_gpu_seconds_by_kind.checkpoint": MetricInfo("checkpoint GPU time", "GPU-s", "lower"),
    "overhead_gpu_seconds_by_kind.restore": MetricInfo("restore GPU time", "GPU-s", "lower"),
    "overhead_gpu_seconds_by_kind.migration": MetricInfo("migration GPU time", "GPU-s", "lower"),
    "overhead_gpu_seconds_by_kind.resize": MetricInfo("resize GPU time", "GPU-s", "lower"),
    "overhead_gpu_seconds_by_kind.realloc": MetricInfo("re-allocation GPU time", "GPU-s", "lower"),
    "goodput": MetricInfo("goodput (useful / held GPU time)", "fraction", "higher"),
    "lost_gpu_seconds": MetricInfo("GPU time lost to failures", "GPU-s", "lower"),
    "useful_gpu_seconds": MetricInfo("useful GPU time", "GPU-s", None),
    "migrations": MetricInfo("migrations", "count", None),
    "resizes": MetricInfo("resizes", "count", None),
    "failures": MetricInfo("jobs failed by node failures", "count", None),
    "node_failures": MetricInfo("node failures", "count", None),
    "checkpoints": MetricInfo("periodic checkpoints", "count", None),
    "interruptions": MetricInfo("jobs interrupted by failure classes", "count", "lower"),
    "ettr_mean": MetricInfo("mean effective training time ratio", "fraction", "higher"),
    "gpu_hours_lost.rollback": MetricInfo("GPU-hours rolled back by failures", "GPU-h", "lower"),
    "gpu_hours_lost.restart": MetricInfo("GPU-hours restoring checkpoints", "GPU-h", "lower"),
    "gpu_hours_lost.checkpoint": MetricInfo("GPU-hours stalled saving", "GPU-h", "lower"),
    "gpu_hours_lost.waiting": MetricInfo("GPU-hours waiting after failures", "GPU-h", "lower"),
    "node_quarantines": MetricInfo("nodes quarantined", "count", None),
    "jobs": MetricInfo("completed jobs", "jobs", None),
    "rejected": MetricInfo("rejected jobs", "jobs", None),
    # Serving (query DAG) runs; training runs write 0 for these.
    "queries": MetricInfo("completed queries", "queries", None),
    "query_latency_mean": MetricInfo("mean query latency", "s", "lower"),
    "query_latency_p50": MetricInfo("median query latency", "s", "lower"),
    "query_latency_p99": MetricInfo("p99 query latency", "s", "lower"),
    "query_latency_max": MetricInfo("max query latency", "s", "lower"),
    "query_slo_attainment": MetricInfo("queries within the latency SLO", "fraction", "higher"),
    "task_queue_mean": MetricInfo("mean task queueing time", "s", "lower"),
    "task_load_mean": MetricInfo("mean task model-load time", "s", "lower"),
    "task_transfer_mean": MetricInfo("mean task input-transfer time", "s", "lower"),
    "task_compute_mean": MetricInfo("mean task compute time", "s", "lower"),
    "cache_hit_rate": MetricInfo("model cache hit rate", "fraction", "higher"),
    "model_loads": MetricInfo("model loads", "count", "lower"),
    "evictions": MetricInfo("model evictions", "count", "lower"),
    "bytes_moved": MetricInfo("bytes moved", "bytes", "lower"),
    # The placement study (placement_study.h): averages over arrivals, and what the reader dropped.
    "frag_rate_mean": MetricInfo("fragmentation rate (fragmented / idle GPU capacity)", "fraction", "lower"),
    "alloc_ratio_mean": MetricInfo("GPU allocation ratio", "fraction", "higher"),
    "unplaced_share": MetricInfo("share of arrived GPU demand not placed", "fraction", "lower"),
    "trace_rows_dropped": MetricInfo("trace rows dropped", "rows", None, diagnostic=True),
    "trace_rows_changed": MetricInfo("trace rows changed", "rows", None, diagnostic=True),
    # The measured population and the steady-state verdict (steady_state.h).
    "offered_load": MetricInfo("offered load of the measured jobs", "load", None),
    "nominal_load": MetricInfo("nominal load of the workload", "load", None, diagnostic=True),
    "effective_load": MetricInfo("effective load (slowdowns and overheads included)", "load", None),
    "work_inflation": MetricInfo("work inflation (held / nominal GPU time)", "", None),
    "queue_growth": MetricInfo("queue growth over the measured arrivals", "jobs", None, diagnostic=True,
                               unbounded=True),
    "backlog_trend": MetricInfo("growth rate of the work in the system / GPUs", "load", None, diagnostic=True,
                                unbounded=True),
    "useful_util": MetricInfo("useful GPU utilisation (overheads excluded)", "fraction", "higher"),
    # [power] and [supply] (sim/README.md, "Power, energy and carbon"); 0 when off.
    "energy_kwh": MetricInfo("facility energy", "kWh", "lower"),
    "carbon_kg": MetricInfo("grid carbon", "kgCO2e", "lower"),
    "grid_kwh": MetricInfo("energy from the grid", "kWh", "lower"),
    "renewable_share": MetricInfo("share of energy from on-site solar", "fraction", "higher"),
    "curtailed_kwh": MetricInfo("solar energy curtailed", "kWh", "lower"),
    "battery_loss_kwh": MetricInfo("battery round-trip losses", "kWh", "lower"),
    "unserved_kwh": MetricInfo("load above supply", "kWh", "lower"),
    "value_obtained": MetricInfo("value of jobs finished in time", "", "higher"),
    "deadline_misses": MetricInfo("deadline misses", "count", "lower"),
    "supply_sheds": MetricInfo("jobs stopped for lack of supply", "count", "lower"),
    # [power] idle_off_after_s (idle nodes powered off); 0 when off.
    "node_boots": MetricInfo("node boots (idle nodes powered off)", "count", None),
    "node_off_h": MetricInfo("node-hours powered off", "h", None),
    # [fabric]: LLM jobs on a network fabric (sim/README.md, "Contention metrics"); 0 without LLM jobs.
    **FABRIC_METRICS,
    "steady_state": MetricInfo("runs in steady state", "share", None, flag=True),
    "window_overloaded": MetricInfo("runs overloaded", "share", None, flag=True),
    "window_too_short": MetricInfo("runs too short", "share", None, flag=True),
    "window_jobs": MetricInfo("jobs in the window", "jobs", None, diagnostic=True),
    "more_jobs": MetricInfo("too short by (x jobs)", "", None, diagnostic=True),
    "util_rse": MetricInfo("predicted rel. std. error of gpu_util", "fraction", None, diagnostic=True),
    "measure_start": MetricInfo("measurement start", "s", None, diagnostic=True),
    "measure_end": MetricInfo("measurement end", "s", None, diagnostic=True),
    "window_first": MetricInfo("first measured job", "", None, diagnostic=True),
    "window_last": MetricInfo("last measured job", "", None, diagnostic=True),
    "mser_warmup_end": MetricInfo("warm-up end (MSER-5)", "s", None, diagnostic=True),
    "jct_p99_cap_share": MetricInfo("share of measured jobs at a duration cap that is the p99", "fraction", None,
                                    diagnostic=True),
    "window_extension": MetricInfo("measured jobs / the plan's (extend_limit)", "", None, diagnostic=True),
    "events": MetricInfo("simulator events", "events", None, diagnostic=True),
    "rounds": MetricInfo("scheduling rounds", "rounds", None, diagnostic=True),
}

# The steady-state verdict's flags, in the order they are said.
VERDICT_FLAGS = ["steady_state", "window_overloaded", "window_too_short"]

# Averages over a run's completed queries (or its tasks): undefined, and written as 0, when the run
# completed no query (`queries` = 0), as in every training run.
PER_QUERY = {
    "query_latency_mean", "query_latency_p50", "query_latency_p99", "query_latency_max", "query_slo_attainment",
    "task_queue_mean", "task_load_mean", "task_transfer_mean", "task_compute_mean", "cache_hit_rate",
}

# Groups of metrics a component adds, each tabulated beside the overview (summary.sections) when the file has
# them and one is not 0 everywhere: title -> metrics.
GROUPS = {"Fabric": list(FABRIC_METRICS)}

# The metrics a reader looks at first (the summary's overview table and the default heatmap).
HEADLINE = ["jct_mean", "jct_p99", "queue_mean", "makespan", "gpu_util", "frag_mean", "preemptions"]


def info(name: str) -> MetricInfo:
    if name in _KNOWN:
        return _KNOWN[name]
    label = name.replace("_", " ")
    if name.endswith("_s") or name.endswith("_seconds"):
        return MetricInfo(label, "s", None)
    if name.endswith("_util"):
        return MetricInfo(label, "fraction", "higher")
    return MetricInfo(label, "", None)


def ordered(metrics: list[str]) -> list[str]:
    """Known metrics in the table's order, then unknown ones in file order, diagnostics last."""
    known = [m for m in _KNOWN if m in metrics and not _KNOWN[m].diagnostic]
    unknown = [m for m in metrics if m not in _KNOWN]
    diagnostics = [m for m in _KNOWN if m in metrics and _KNOWN[m].diagnostic]
    return known + unknown + diagnostics


def headline(metrics: list[str]) -> list[str]:
    chosen = [m for m in HEADLINE if m in metrics]
    return chosen or ordered(metrics)[:6]


# Seconds are shown in the unit that keeps numbers readable; tables keep seconds.
_TIME_UNITS = [("days", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)]


def time_scale(values) -> tuple[str, float]:
    """(unit, divisor) for seconds whose typical magnitude is that of `values`."""
    import numpy as np

    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite) & (finite > 0)]
    typical = float(np.median(finite)) if finite.size else 0.0
    for unit, divisor in _TIME_UNITS:
        if typical >= 2 * divisor:
            return unit, divisor
    return "s", 1.0


def axis_label(name: str, values=None) -> tuple[str, float]:
    """(label with unit, divisor to apply to the values) for a plot axis showing metric `name`."""
    meta = info(name)
    if meta.unit == "s":
        unit, divisor = time_scale(values if values is not None else [1.0])
        return f"{meta.label} ({unit})", divisor
    if meta.flag:
        return f"{meta.label} (share of seeds, 0-1)", 1.0
    if meta.unit == "fraction":
        return f"{meta.label} (fraction, 0-1)", 1.0
    if meta.unit:
        return f"{meta.label} ({meta.unit})", 1.0
    return meta.label, 1.0


def unit_text(name: str) -> str:
    """The unit in words, for headings: seconds, fraction 0-1, GPUs, ... or "no unit"."""
    meta = info(name)
    if meta.flag:
        return "share of seeds 0-1"
    return {"s": "seconds", "fraction": "fraction 0-1", "": "no unit"}.get(meta.unit, meta.unit)


def table_label(name: str) -> str:
    """Column header for tables: the metric's name and unit as stored (seconds stay seconds)."""
    unit = info(name).unit
    if unit == "s":
        return f"{name} (s)"
    if unit == "fraction":
        return f"{name} (0-1)"
    return name
