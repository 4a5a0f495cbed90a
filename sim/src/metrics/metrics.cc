#include "clustersim/metrics.h"

namespace clustersim {

namespace {

constexpr MetricField count(std::string_view name, std::uint64_t RunMetrics::*member,
                            std::string_view meaning) {
  return {name, FieldType::kCount, "", meaning, member, nullptr};
}
constexpr MetricField real(std::string_view name, double RunMetrics::*member, std::string_view unit,
                           std::string_view meaning) {
  return {name, FieldType::kReal, unit, meaning, nullptr, member};
}

constexpr MetricField kRunMetrics[] = {
    count("jobs", &RunMetrics::jobs, "jobs completed (in the window, when one is set)"),
    count("rejected", &RunMetrics::rejected, "impossible jobs rejected at load"),
    real("jct_mean", &RunMetrics::jct_mean, "s", "mean job completion time"),
    real("jct_p50", &RunMetrics::jct_p50, "s", "median job completion time"),
    real("jct_p95", &RunMetrics::jct_p95, "s", "95th percentile job completion time"),
    real("jct_p99", &RunMetrics::jct_p99, "s", "99th percentile job completion time"),
    real("jct_max", &RunMetrics::jct_max, "s", "largest job completion time"),
    real("queue_mean", &RunMetrics::queue_mean, "s", "mean queueing delay"),
    real("queue_p50", &RunMetrics::queue_p50, "s", "median queueing delay"),
    real("queue_p99", &RunMetrics::queue_p99, "s", "99th percentile queueing delay"),
    real("makespan", &RunMetrics::makespan, "s", "last finish - first submit"),
    real("gpu_util", &RunMetrics::gpu_util, "fraction",
         "GPU-seconds held by jobs / (GPUs x makespan): without a window, the jobs' allocated "
         "GPU-seconds; with one, the GPUs every job held (measured or not) integrated over the "
         "measured range (the measured jobs' own run past it and miss the jobs beside them)"),
    real("gpu_seconds", &RunMetrics::gpu_seconds, "GPU-s", "allocated GPU-seconds"),
    real("overhead_gpu_seconds", &RunMetrics::overhead_gpu_seconds, "GPU-s",
         "GPU-seconds spent checkpointing, restoring or re-launching"),
    count("preemptions", &RunMetrics::preemptions,
          "preemptions, over all jobs: stops after which the job waited (a time-share lease "
          "that ended and that the job's next start continued is not one)"),
    count("lease_changes", &RunMetrics::lease_changes,
          "time-share leases that ended with the job giving its GPUs up (Gavel's micro-task "
          "ends; the exact realisation's stops), over all jobs"),
    real("frag_mean", &RunMetrics::frag_mean, "GPUs",
         "time-averaged fragmented GPUs: idle GPUs (of its type) on nodes with fewer free than "
         "the queue's head job needs from one node, min(its GPUs, the node's); 0 without a "
         "queue; integrated over the measured range (whatever sample_interval_s)"),
    real("queue_len_mean", &RunMetrics::queue_len_mean, "jobs", "time-averaged waiting jobs"),
    count("events", &RunMetrics::events, "events processed"),
    count("rounds", &RunMetrics::rounds, "scheduling rounds held"),
    real("cpu_util", &RunMetrics::cpu_util, "fraction",
         "allocated core-seconds / (cores x makespan); 0 when CPUs are not modelled"),
    real("mem_util", &RunMetrics::mem_util, "fraction",
         "allocated GB-seconds / (GB x makespan); 0 when memory is not modelled"),
    real("storage_util", &RunMetrics::storage_util, "fraction",
         "allocated storage bandwidth x time / (bandwidth x makespan); 0 when not modelled"),
    count("window_jobs", &RunMetrics::window_jobs,
          "jobs in the measurement window (every job without one)"),
    count("reallocations", &RunMetrics::reallocations,
          "changes of a running job's CPU, memory or storage grant"),
    real("alloc_lp_bound", &RunMetrics::alloc_lp_bound, "",
         "opt: mean over LP solves of the LP bound on the sum of normalised throughputs"),
    real("alloc_lp_rounded", &RunMetrics::alloc_lp_rounded, "",
         "opt: mean over LP solves of that sum once rounded to a feasible allocation"),
    count("window_overloaded", &RunMetrics::window_overloaded,
          "1: the window drained only after the last arrival (overload: no steady state)"),
    count("migrations", &RunMetrics::migrations, "moves of running jobs to other GPUs"),
    count("resizes", &RunMetrics::resizes, "changes of an elastic job's GPU count"),
    count("failures", &RunMetrics::failures,
          "job failures: a job rolled back to its last checkpoint and re-queued by a node failure"),
    count("node_failures", &RunMetrics::node_failures, "node outages begun"),
    count("checkpoints", &RunMetrics::checkpoints, "periodic checkpoints saved"),
    real("lost_gpu_seconds", &RunMetrics::lost_gpu_seconds, "GPU-s",
         "GPU-seconds of progress lost to failures (work since the last checkpoint)"),
    real("useful_gpu_seconds", &RunMetrics::useful_gpu_seconds, "GPU-s",
         "GPU-seconds of progress kept: gpu_seconds - overhead_gpu_seconds - lost_gpu_seconds"),
    real("goodput", &RunMetrics::goodput, "fraction",
         "useful_gpu_seconds / gpu_seconds (0 when no GPU was held)"),
    real("overhead_gpu_seconds_by_kind.checkpoint", &RunMetrics::overhead_checkpoint_gpu_seconds,
         "GPU-s", "overhead GPU-seconds saving checkpoints (on preemption and periodic)"),
    real("overhead_gpu_seconds_by_kind.restore", &RunMetrics::overhead_restore_gpu_seconds, "GPU-s",
         "overhead GPU-seconds restoring checkpoints"),
    real("overhead_gpu_seconds_by_kind.migration", &RunMetrics::overhead_migration_gpu_seconds,
         "GPU-s", "overhead GPU-seconds migrating"),
    real("overhead_gpu_seconds_by_kind.resize", &RunMetrics::overhead_resize_gpu_seconds, "GPU-s",
         "overhead GPU-seconds resizing elastic jobs"),
    real("overhead_gpu_seconds_by_kind.realloc", &RunMetrics::overhead_realloc_gpu_seconds, "GPU-s",
         "overhead GPU-seconds re-launching after a CPU/memory/storage change"),
    count("queries", &RunMetrics::queries, "serving: queries completed"),
    real("query_latency_mean", &RunMetrics::query_latency_mean, "s",
         "serving: mean query latency (last task's finish - arrival)"),
    real("query_latency_p50", &RunMetrics::query_latency_p50, "s", "serving: median query latency"),
    real("query_latency_p99", &RunMetrics::query_latency_p99, "s",
         "serving: 99th percentile query latency"),
    real("query_latency_max", &RunMetrics::query_latency_max, "s",
         "serving: largest query latency"),
    real("task_queue_mean", &RunMetrics::task_queue_mean, "s",
         "serving: mean time from a task becoming ready to its GPU turning to it"),
    real("task_load_mean", &RunMetrics::task_load_mean, "s",
         "serving: mean model-load time paid per task (0 on a cache hit)"),
    real("task_transfer_mean", &RunMetrics::task_transfer_mean, "s",
         "serving: mean transfer time of a task's slowest input (0 when local)"),
    real("task_compute_mean", &RunMetrics::task_compute_mean, "s",
         "serving: mean compute time per task"),
    real("cache_hit_rate", &RunMetrics::cache_hit_rate, "fraction",
         "serving: tasks whose model was resident / tasks that needed a model"),
    count("model_loads", &RunMetrics::model_loads, "serving: models loaded into GPU memory"),
    count("evictions", &RunMetrics::evictions, "serving: models evicted from GPU memory"),
    real("bytes_moved", &RunMetrics::bytes_moved, "bytes",
         "serving: task outputs sent over the network between nodes"),
    real("query_slo_attainment", &RunMetrics::query_slo_attainment, "fraction",
         "serving: queries with latency <= [metrics] query_slo_s / queries (0 when unset)"),
    count("serving_preemptions", &RunMetrics::serving_preemptions,
          "mixed runs: training jobs preempted to give their GPUs to serving"),
    real("serving_gpu_seconds", &RunMetrics::serving_gpu_seconds, "GPU-s",
         "mixed runs: GPU-seconds the serving pool held in the ledger"),
    real("serving_busy_gpu_seconds", &RunMetrics::serving_busy_gpu_seconds, "GPU-s",
         "mixed runs: GPU-seconds of serving work (model loads + compute) on its pool"),
    real("measure_start", &RunMetrics::measure_start, "s",
         "start of the measured time range: the first measured job's submission"),
    real("measure_end", &RunMetrics::measure_end, "s",
         "end of the measured time range: the last measured job's finish"),
    count("window_first", &RunMetrics::window_first,
          "first measured job position (0-based; 0 without a window)"),
    count("window_last", &RunMetrics::window_last,
          "last measured job position (inclusive; the last job without a window)"),
    real("offered_load", &RunMetrics::offered_load, "fraction",
         "steady state: GPUs x durations of the jobs submitted in the measured range / (GPUs x "
         "its length)"),
    count("steady_state", &RunMetrics::steady_state,
          "1: measured in steady state (the steady-state rule's verdict)"),
    count("window_too_short", &RunMetrics::window_too_short,
          "1: too few measured jobs for the target precision, or the warm-up was not over"),
    real("more_jobs", &RunMetrics::more_jobs, "",
         "too short: run this many times more jobs (0 otherwise)"),
    real("mser_warmup_end", &RunMetrics::mser_warmup_end, "s",
         "steady state: end of the warm-up MSER-5 detects in the sampled busy GPUs and queue"),
    real("util_rse", &RunMetrics::util_rse, "fraction",
         "steady state: predicted relative standard error of gpu_util"),
    real("ftf_mean", &RunMetrics::ftf_mean, "",
         "finish-time fairness: mean over completed jobs of rho = JCT / JCT alone on 1/N of the "
         "cluster (N: jobs in the system over its life, time-averaged) at its best GPU type's "
         "speed, or with [metrics] ftf_baseline = \"gavel\" on 1/N of every type"),
    real("ftf_max", &RunMetrics::ftf_max, "", "finish-time fairness: the largest rho"),
    real("ftf_unfair", &RunMetrics::ftf_unfair, "fraction",
         "finish-time fairness: completed jobs with rho > 1 + 1e-9 (rounding) / completed jobs"),
    real("frag_rate_mean", &RunMetrics::frag_rate_mean, "fraction",
         "placement study: fragmented / idle GPU capacity, averaged over arrivals"),
    real("alloc_ratio_mean", &RunMetrics::alloc_ratio_mean, "fraction",
         "placement study: allocated / total GPU capacity, averaged over arrivals"),
    real("unplaced_share", &RunMetrics::unplaced_share, "fraction",
         "placement study: GPU demand of pods not placed / arrived GPU demand"),
    count("trace_rows_dropped", &RunMetrics::trace_rows_dropped,
          "valid trace rows the reader dropped (CPU-only, never scheduled, ...; warned)"),
    count("trace_rows_changed", &RunMetrics::trace_rows_changed,
          "trace rows the reader changed (GPU shares rounded up, ...; warned)"),
    real("frag_typical_mean", &RunMetrics::frag_typical_mean, "GPUs",
         "time-averaged idle GPUs the workload's typical jobs cannot use (FGD's measure: "
         "expected over the typical whole-GPU job shapes; whatever job heads the queue)"),
    real("nominal_load", &RunMetrics::nominal_load, "load",
         "steady state: the workload's nominal load (the generator's GPUs x durations per second "
         "/ cluster GPUs)"),
    real("effective_load", &RunMetrics::effective_load, "load",
         "steady state: nominal_load x work_inflation, the load counting placement slowdowns and "
         "overheads (>= 1: no steady state)"),
    real("work_inflation", &RunMetrics::work_inflation, "",
         "steady state: GPU-seconds the measured jobs held (slowdowns, overheads, lost work "
         "included) / their GPUs x durations"),
    real("queue_growth", &RunMetrics::queue_growth, "jobs",
         "steady state: fitted change of the sampled queue length over the measured arrivals"),
    real("backlog_trend", &RunMetrics::backlog_trend, "load",
         "steady state: fitted growth rate of the work in the system (GPUs x durations of jobs "
         "arrived, not finished) over the measured arrivals / cluster GPUs (0 in steady state)"),
    real("jct_p99_cap_share", &RunMetrics::jct_p99_cap_share, "fraction",
         "a duration cap binds the p99: the share of the measured jobs at their longest duration "
         "when jct_p99 equals it and 1% or more have it (the p99 then measures the cap, e.g. "
         "max_duration_s, not the policy); 0 otherwise"),
    real("energy_kwh", &RunMetrics::energy_kwh, "kWh",
         "[power]: facility energy (IT x PUE) from the first job start to the last event"),
    real("carbon_kg", &RunMetrics::carbon_kg, "kgCO2e",
         "[power]: grid energy x the grid's carbon intensity ([supply])"),
    real("grid_kwh", &RunMetrics::grid_kwh, "kWh", "[power]: energy drawn from the grid"),
    real("renewable_share", &RunMetrics::renewable_share, "fraction",
         "[power]: energy from on-site solar (directly or through the battery) / energy_kwh"),
    real("curtailed_kwh", &RunMetrics::curtailed_kwh, "kWh",
         "[supply]: solar output neither used nor stored"),
    real("battery_loss_kwh", &RunMetrics::battery_loss_kwh, "kWh",
         "[supply]: battery round-trip losses (taken on charging)"),
    real("unserved_kwh", &RunMetrics::unserved_kwh, "kWh",
         "[supply]: load above what grid, solar and battery could give (the jobs ran anyway)"),
    real("value_obtained", &RunMetrics::value_obtained, "",
         "[supply] job_values: value of the jobs finished within their deadline"),
    count("deadline_misses", &RunMetrics::deadline_misses,
          "[supply] job_values: jobs with a deadline that finished after it or not at all"),
    count("supply_sheds", &RunMetrics::supply_sheds,
          "[supply] follow: running jobs stopped because the supply fell below their power"),
    count("interruptions", &RunMetrics::interruptions,
          "failure classes: jobs failed by a class (a job on a failed domain, or a job-level "
          "failure), planned maintenance included; 0 without failure classes"),
    count("interruptions.gpu", &RunMetrics::interruptions_gpu, "interruptions by a GPU failure"),
    count("interruptions.gpu_memory", &RunMetrics::interruptions_gpu_memory,
          "interruptions by a GPU memory (HBM, SRAM) failure"),
    count("interruptions.nic", &RunMetrics::interruptions_nic, "interruptions by a NIC failure"),
    count("interruptions.host", &RunMetrics::interruptions_host,
          "interruptions by a host failure (CPU, memory, disk, power supply, unplanned "
          "maintenance)"),
    count("interruptions.switch", &RunMetrics::interruptions_switch,
          "interruptions by a network switch or cable failure (every node under its leaf switch)"),
    count("interruptions.power", &RunMetrics::interruptions_power,
          "interruptions by a rack's power domain failing"),
    count("interruptions.software", &RunMetrics::interruptions_software,
          "job-level interruptions (software bugs, collective timeouts)"),
    count("interruptions.maintenance", &RunMetrics::interruptions_maintenance,
          "interruptions by planned maintenance"),
    real("ettr_mean", &RunMetrics::ettr_mean, "fraction",
         "failure classes: mean over measured finished jobs of the effective training time "
         "ratio, (GPU-seconds held - overheads - rolled back) / (GPUs x (finish - first start)); "
         "0 without failure classes"),
    real("gpu_hours_lost.rollback", &RunMetrics::gpu_hours_lost_rollback, "GPU-h",
         "failure classes: progress rolled back by failures (lost_gpu_seconds / 3600)"),
    real("gpu_hours_lost.restart", &RunMetrics::gpu_hours_lost_restart, "GPU-h",
         "failure classes: restoring checkpoints (after failures and preemptions)"),
    real("gpu_hours_lost.checkpoint", &RunMetrics::gpu_hours_lost_checkpoint, "GPU-h",
         "failure classes: stalled saving checkpoints"),
    real("gpu_hours_lost.waiting", &RunMetrics::gpu_hours_lost_waiting, "GPU-h",
         "failure classes: failed jobs' GPUs x time from the failure to their next placement "
         "(waiting for repair or free nodes)"),
    count("node_quarantines", &RunMetrics::node_quarantines,
          "failure classes: nodes drained for diagnosis after quarantine_failures failures "
          "within quarantine_window_h"),
    real("window_extension", &RunMetrics::window_extension, "",
         "steady state: measured jobs / the plan's, after [metrics] extend_limit ran a too-short "
         "run again with more jobs (1: as planned; 0: not assessed)"),
    real("solar_used_kwh", &RunMetrics::solar_used_kwh, "kWh",
         "[supply]: solar output used, by the load or stored (grid_kwh + solar_used_kwh = "
         "energy_kwh - unserved_kwh + battery_loss_kwh + battery_delta_kwh)"),
    real("battery_delta_kwh", &RunMetrics::battery_delta_kwh, "kWh",
         "[supply]: energy stored in the battery at the end less at the start"),
    count("deferred_jobs", &RunMetrics::deferred_jobs,
          "[supply] defer: jobs held back at arrival for a lower-carbon start"),
    count("node_boots", &RunMetrics::node_boots,
          "[power] idle_off_after_s: nodes switched on again (each boots for boot_s)"),
    real("node_off_h", &RunMetrics::node_off_h, "h",
         "[power] idle_off_after_s: node-hours spent switched off (drawing standby power)"),
    real("contention_slowdown_mean", &RunMetrics::contention_slowdown_mean, "",
         "[fabric]: LLM jobs' mean contention slowdown (iteration as shared on the fabric / alone "
         "on the same GPUs), weighted by their running time; 0 without LLM jobs"),
    real("contention_gpu_hours_lost", &RunMetrics::contention_gpu_hours_lost, "GPU-h",
         "[fabric]: LLM jobs' GPUs x running time x (1 - alone / shared iteration): the GPU-hours "
         "beyond their speed alone"),
    real("link_util.leaf", &RunMetrics::link_util_leaf, "fraction",
         "[fabric]: mean utilisation of the leaf uplinks (the DP flows' max-min shares over the "
         "capacity) from the first LLM job's start to the last one's end; 0 without tiers"),
    real("link_util.spine", &RunMetrics::link_util_spine, "fraction",
         "[fabric]: the same for the spine groups' uplinks; 0 without a spine tier"),
    real("ettr_mean.size_1", &RunMetrics::ettr_mean_size_1, "fraction",
         "failure classes: ettr_mean over the jobs of 1 GPU (no value, NaN/null, without such a "
         "finished job; 0 without failure classes)"),
    real("ettr_mean.size_2_8", &RunMetrics::ettr_mean_size_2_8, "fraction",
         "failure classes: ettr_mean over the jobs of 2-8 GPUs (no value without one)"),
    real("ettr_mean.size_9_64", &RunMetrics::ettr_mean_size_9_64, "fraction",
         "failure classes: ettr_mean over the jobs of 9-64 GPUs (no value without one)"),
    real("ettr_mean.size_65_512", &RunMetrics::ettr_mean_size_65_512, "fraction",
         "failure classes: ettr_mean over the jobs of 65-512 GPUs (no value without one)"),
    real("ettr_mean.size_over_512", &RunMetrics::ettr_mean_size_over_512, "fraction",
         "failure classes: ettr_mean over the jobs of more than 512 GPUs (no value without one)"),
    real("mttf_h.size_1", &RunMetrics::mttf_h_size_1, "h",
         "failure classes: mean time to failure of jobs of 1 GPU: their running time (GPU-seconds "
         "held / GPUs) over their interruptions (no value, NaN/null, without an interruption; 0 "
         "without failure classes)"),
    real("mttf_h.size_2_8", &RunMetrics::mttf_h_size_2_8, "h",
         "failure classes: the same for jobs of 2-8 GPUs"),
    real("mttf_h.size_9_64", &RunMetrics::mttf_h_size_9_64, "h",
         "failure classes: the same for jobs of 9-64 GPUs"),
    real("mttf_h.size_65_512", &RunMetrics::mttf_h_size_65_512, "h",
         "failure classes: the same for jobs of 65-512 GPUs"),
    real("mttf_h.size_over_512", &RunMetrics::mttf_h_size_over_512, "h",
         "failure classes: the same for jobs of more than 512 GPUs"),
    real("spare_util", &RunMetrics::spare_util, "fraction",
         "hot spares: the pool's node-hours replacing failed nodes (from hand-over until a "
         "repaired node refills the pool) / those + its node-hours held idle (0 without spares)"),
};

constexpr JobField job_count(std::string_view name, int JobRecord::*member, bool first_block) {
  return {name, FieldType::kCount, false, first_block, member, nullptr};
}
constexpr JobField job_real(std::string_view name, double JobRecord::*member, bool finished_only,
                            bool first_block) {
  return {name, FieldType::kReal, finished_only, first_block, nullptr, member};
}

constexpr JobField kJobFields[] = {
    job_real("submit_time", &JobRecord::submit_time, false, true),
    job_real("start_time", &JobRecord::start_time, true, true),
    job_real("finish_time", &JobRecord::finish_time, true, true),
    job_real("jct", &JobRecord::jct, true, true),
    job_real("queue_delay", &JobRecord::queue_delay, true, true),
    job_count("num_gpus", &JobRecord::num_gpus, true),
    job_count("preemptions", &JobRecord::preemptions, true),
    job_real("gpu_seconds", &JobRecord::gpu_seconds, false, true),
    job_real("overhead_gpu_seconds", &JobRecord::overhead_gpu_seconds, false, true),
    job_count("nodes", &JobRecord::nodes, true),
    job_count("migrations", &JobRecord::migrations, false),
    job_count("resizes", &JobRecord::resizes, false),
    job_count("failures", &JobRecord::failures, false),
    job_real("lost_gpu_seconds", &JobRecord::lost_gpu_seconds, false, false),
    job_real("overhead_gpu_seconds_by_kind.checkpoint", &JobRecord::checkpoint_gpu_seconds, false,
             false),
    job_real("overhead_gpu_seconds_by_kind.restore", &JobRecord::restore_gpu_seconds, false, false),
    job_real("overhead_gpu_seconds_by_kind.migration", &JobRecord::migration_gpu_seconds, false,
             false),
    job_real("overhead_gpu_seconds_by_kind.resize", &JobRecord::resize_gpu_seconds, false, false),
    job_real("overhead_gpu_seconds_by_kind.realloc", &JobRecord::realloc_gpu_seconds, false, false),
    job_count("node", &JobRecord::node, false),
    job_count("gpu_mask", &JobRecord::gpu_mask, false),
    job_real("colocated_seconds", &JobRecord::colocated_seconds, false, false),
    job_count("lease_changes", &JobRecord::lease_changes, false),
};

constexpr SampleField kSampleFields[] = {
    {"time", FieldType::kReal, nullptr, &Sample::time},
    {"busy_gpus", FieldType::kCount, &Sample::busy_gpus, nullptr},
    {"idle_gpus", FieldType::kCount, &Sample::idle_gpus, nullptr},
    {"fragmented_gpus", FieldType::kCount, &Sample::fragmented_gpus, nullptr},
    {"queue_length", FieldType::kCount, &Sample::queue_length, nullptr},
    {"running_jobs", FieldType::kCount, &Sample::running_jobs, nullptr},
    {"alloc_ratio", FieldType::kReal, nullptr, &Sample::alloc_ratio},
    {"unallocated_share", FieldType::kReal, nullptr, &Sample::unallocated_share},
    {"frag_rate", FieldType::kReal, nullptr, &Sample::frag_rate},
    {"down_gpus", FieldType::kCount, &Sample::down_gpus, nullptr},
    {"frag_typical_gpus", FieldType::kReal, nullptr, &Sample::frag_typical_gpus},
};

}  // namespace

std::span<const MetricField> run_metric_fields() { return kRunMetrics; }
std::span<const JobField> job_record_fields() { return kJobFields; }
std::span<const SampleField> sample_fields() { return kSampleFields; }

}  // namespace clustersim
