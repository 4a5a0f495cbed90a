// What a run measures: one record per job, a summary per run, and a sampled time series.
//
// One source of truth: every metric's name (its --json key, HDF5 column and journal position),
// type, unit and meaning come from the field tables below (run_metric_fields(),
// job_record_fields(), sample_fields()); every writer iterates them, so a new metric is one
// member plus one table row.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

struct JobRecord {
  std::uint32_t index = 0;  // position in the workload's job list
  Time submit_time = 0.0;
  Time start_time = -1.0;  // first start; -1 if never started (rejected)
  Time finish_time = -1.0;
  double jct = 0.0;          // finish - submit
  double queue_delay = 0.0;  // total time spent waiting, re-queues after preemption included
  int num_gpus = 0;
  int preemptions = 0;
  double gpu_seconds = 0.0;           // GPUs held x time held, overheads included
  double overhead_gpu_seconds = 0.0;  // GPUs held x time spent checkpointing or restoring
  int nodes = 0;                      // nodes spanned by the last placement
  bool rejected = false;              // impossible job rejected at load (reject_impossible)
  // Mechanisms ([mechanisms]; all 0 when they are off).
  int migrations = 0;  // moves to other GPUs (defragmentation)
  int resizes = 0;     // changes of its GPU count (elastic jobs)
  int failures = 0;    // node failures that rolled it back and re-queued it
  // Time-share leases that ended with the job giving its GPUs up (Plan::Lease::kEnds); those the
  // job's next start did not continue are also in preemptions. (Here, not beside preemptions: it
  // fills the padding before the next double, so a record is no larger than without it.)
  int lease_changes = 0;
  double lost_gpu_seconds = 0.0;  // GPU-seconds of progress lost to failures (rolled back)
  // overhead_gpu_seconds by kind (OverheadKind); they add up to it.
  double checkpoint_gpu_seconds = 0.0;
  double restore_gpu_seconds = 0.0;
  double migration_gpu_seconds = 0.0;
  double resize_gpu_seconds = 0.0;
  double realloc_gpu_seconds = 0.0;
  // The placement study (placement_study.h): the node (node-list order) and the GPUs of it
  // (bit i = GPU i) the pod got; -1 and 0 when it was not placed or in event-driven runs.
  int node = -1;
  int gpu_mask = 0;
  // GPU sharing ([sharing]): seconds it held a share of a GPU that another job shared with it
  // (0 without sharing).
  double colocated_seconds = 0.0;
};

// Summary of a run. Every value is a deterministic function of (config, workload, seed).
struct RunMetrics {
  std::uint64_t jobs = 0;      // jobs completed (in the window, when one is set)
  std::uint64_t rejected = 0;  // impossible jobs rejected at load
  double jct_mean = 0, jct_p50 = 0, jct_p95 = 0, jct_p99 = 0, jct_max = 0;
  double queue_mean = 0, queue_p50 = 0, queue_p99 = 0;
  double makespan = 0;     // last finish - first submit
  double gpu_util = 0;     // allocated GPU-seconds / (GPUs x makespan)
  double gpu_seconds = 0;  // allocated GPU-seconds, overheads included
  double overhead_gpu_seconds = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t lease_changes = 0;  // time-share leases ended (JobRecord::lease_changes)
  double frag_mean = 0;             // time-averaged fragmented GPUs for the queue's head (Metrics)
  double queue_len_mean = 0;        // time-averaged number of waiting jobs
  std::uint64_t events = 0;         // events processed
  std::uint64_t rounds = 0;         // scheduling rounds (lease boundaries) evaluated
  double cpu_util = 0;  // allocated core-seconds / (cores x makespan); 0 when not modelled
  double mem_util = 0;
  double storage_util = 0;
  std::uint64_t window_jobs = 0;    // jobs in the measurement window (all jobs without one)
  std::uint64_t reallocations = 0;  // running jobs whose CPU/memory/storage grant changed
  double alloc_lp_bound = 0;        // opt: mean LP bound on sum of normalised throughputs
  double alloc_lp_rounded = 0;      // opt: mean of the same sum once rounded (what ran)
  // 1 when the window drained only after the workload's last arrival (front ends generate up
  // to 8x the jobs the window reaches before giving up): not a steady state; the cluster is
  // overloaded at this load.
  std::uint64_t window_overloaded = 0;
  // Mechanisms ([mechanisms]; 0 when they are off). gpu_seconds = useful_gpu_seconds +
  // overhead_gpu_seconds + lost_gpu_seconds (work conservation; checked with check_invariants).
  std::uint64_t migrations = 0;
  std::uint64_t resizes = 0;
  std::uint64_t failures = 0;       // job failures (a node failure fails each job on it)
  std::uint64_t node_failures = 0;  // node outages begun (generated and replayed)
  std::uint64_t checkpoints = 0;    // periodic checkpoints saved (checkpoint_interval_s)
  double lost_gpu_seconds = 0;      // progress rolled back by failures, in GPU-seconds
  double useful_gpu_seconds = 0;    // GPU-seconds of progress kept
  double goodput = 0;               // useful_gpu_seconds / gpu_seconds (0 when nothing held)
  double overhead_checkpoint_gpu_seconds = 0;  // overhead_gpu_seconds by kind (OverheadKind)
  double overhead_restore_gpu_seconds = 0;
  double overhead_migration_gpu_seconds = 0;
  double overhead_resize_gpu_seconds = 0;
  double overhead_realloc_gpu_seconds = 0;
  // Serving DAG workloads (serving.h; 0 for training workloads). For them `jobs` counts tasks.
  std::uint64_t queries = 0;  // queries completed
  double query_latency_mean = 0, query_latency_p50 = 0, query_latency_p99 = 0,
         query_latency_max = 0;   // finish of a query's last task - its arrival
  double task_queue_mean = 0;     // ready -> at the head of its GPU
  double task_load_mean = 0;      // model load paid before running (0 on a hit)
  double task_transfer_mean = 0;  // slowest input's network transfer (0 when all local)
  double task_compute_mean = 0;
  double cache_hit_rate = 0;  // hits / (hits + loads) over tasks whose model has a footprint
  std::uint64_t model_loads = 0;
  std::uint64_t evictions = 0;
  double bytes_moved = 0;           // task outputs sent between nodes
  double query_slo_attainment = 0;  // fraction of queries with latency <= query_slo_s
  // Training and serving on one cluster (mixed runs; serving.h, make_mixed_serving; 0 otherwise).
  std::uint64_t serving_preemptions = 0;  // training jobs preempted to give serving their GPUs
  double serving_gpu_seconds = 0;         // GPUs the serving pool held x time
  double serving_busy_gpu_seconds = 0;    // model loads + compute of serving tasks
  // The measured population (every run): the window's jobs (every job without one) and the time
  // range over which the time averages run (makespan = measure_end - measure_start).
  double measure_start = 0;        // the first measured job's submission
  double measure_end = 0;          // the last measured job's finish
  std::uint64_t window_first = 0;  // measured job positions, inclusive
  std::uint64_t window_last = 0;
  // Steady-state verdict ([metrics] steady_state = "auto" on a generated workload; steady_state.h;
  // all 0 when not assessed). At most one of steady_state, window_too_short, window_overloaded.
  double offered_load = 0;         // GPUs x durations of the jobs submitted in the range / capacity
  std::uint64_t steady_state = 0;  // 1: measured in steady state
  std::uint64_t window_too_short = 0;  // 1: too few jobs for `precision`, or warm-up not over
  double more_jobs = 0;                // too short: run this many times more jobs
  double mser_warmup_end = 0;          // warm-up end MSER-5 detects (s, workload clock)
  double util_rse = 0;                 // predicted relative standard error of gpu_util
  // Finish-time fairness (sim/README.md, Metrics): over completed jobs, rho = JCT / the time
  // alone on 1/N of the cluster (N: jobs in the system during its life, time-averaged).
  double ftf_mean = 0, ftf_max = 0;
  double ftf_unfair = 0;  // fraction of completed jobs with rho > 1 + 1e-9
  // The placement study ([workload] departures = "none"; 0 otherwise), averaged over the
  // arrivals: the fragmented share of idle GPU capacity (FGD's measure against the typical
  // pods), allocated / total GPU capacity; and the share of arrived GPU demand not placed.
  double frag_rate_mean = 0;
  double alloc_ratio_mean = 0;
  double unplaced_share = 0;
  // Valid trace rows the reader dropped or changed (Workload::row_changes; every run).
  std::uint64_t trace_rows_dropped = 0;
  std::uint64_t trace_rows_changed = 0;
  // Time-averaged idle GPUs the workload's typical jobs cannot use (FGD's measure, whatever job
  // heads the queue; sim/README.md, Metrics).
  double frag_typical_mean = 0;
  // Steady-state verdict, the load it judged (steady_state.h; 0 when not assessed): the
  // workload's nominal load, its effective load (slowdowns and overheads included), the measured
  // jobs' work inflation behind it, and the trends through the measured arrivals.
  double nominal_load = 0;    // the generator's GPU demand x duration per second / capacity
  double effective_load = 0;  // nominal_load x work_inflation
  double work_inflation = 0;  // measured jobs' held GPU-seconds / their GPUs x durations
  double queue_growth = 0;    // fitted change of the queue length over the measured arrivals
  double backlog_trend = 0;   // fitted growth of unfinished work per second / cluster GPUs
  // A duration cap that binds the p99 (metric_warnings): when jct_p99 is the measured jobs'
  // longest duration and at least 1% of them (2 or more) have it, the share that have it; else 0.
  double jct_p99_cap_share = 0;
  // Power, energy and carbon ([power], [supply]; power.h; all 0 when [power] is off). Energy is
  // the facility's (PUE included), from the first job start to the run's last event.
  double energy_kwh = 0;        // consumed
  double carbon_kg = 0;         // grid energy x its carbon intensity
  double grid_kwh = 0;          // drawn from the grid
  double renewable_share = 0;   // (consumed - grid) / consumed: solar, directly or stored
  double curtailed_kwh = 0;     // solar output neither used nor stored
  double battery_loss_kwh = 0;  // round-trip losses
  double unserved_kwh = 0;      // load above what the sources could give (the jobs ran anyway)
  // Job values ([supply] job_values): the value of jobs finished within their deadline, and the
  // jobs with a deadline that finished late or not at all.
  double value_obtained = 0;
  std::uint64_t deadline_misses = 0;
  std::uint64_t supply_sheds = 0;  // running jobs stopped because the supply fell
  // Conservation terms: grid_kwh + solar_used_kwh = energy_kwh - unserved_kwh +
  // battery_loss_kwh + battery_delta_kwh.
  double solar_used_kwh = 0;        // solar to the load or into the battery
  double battery_delta_kwh = 0;     // stored at the end less stored at the start
  std::uint64_t deferred_jobs = 0;  // held back for low carbon ([supply] defer)
  // Idle nodes powered off ([power] idle_off_after_s): nodes switched on again, and node-hours
  // spent off.
  std::uint64_t node_boots = 0;
  double node_off_h = 0;
  // Failure classes ([mechanisms.failure_class.*], failure_mix; 0 when none): job interruptions
  // by a class, in all and by cause (FailureCause), the measured jobs' mean effective training
  // time ratio, and GPU-hours lost by kind.
  std::uint64_t interruptions = 0;
  std::uint64_t interruptions_gpu = 0;
  std::uint64_t interruptions_gpu_memory = 0;
  std::uint64_t interruptions_nic = 0;
  std::uint64_t interruptions_host = 0;
  std::uint64_t interruptions_switch = 0;
  std::uint64_t interruptions_power = 0;
  std::uint64_t interruptions_software = 0;
  std::uint64_t interruptions_maintenance = 0;
  double ettr_mean = 0;
  double gpu_hours_lost_rollback = 0;    // progress rolled back (lost_gpu_seconds, in hours)
  double gpu_hours_lost_restart = 0;     // restoring checkpoints
  double gpu_hours_lost_checkpoint = 0;  // saving them
  double gpu_hours_lost_waiting = 0;     // failed jobs' GPUs x time from failure to placement
  std::uint64_t node_quarantines = 0;    // nodes drained for diagnosis (quarantine_failures)
  // Auto-extension ([metrics] extend_limit): the measured jobs over the plan's (1: as planned;
  // 0: not assessed).
  double window_extension = 0;
  // LLM jobs on a fabric ([fabric]; 0 without LLM jobs): their running-time-weighted mean
  // contention slowdown (iteration as shared / alone on the same GPUs), the GPU-hours beyond
  // their speed alone, and each scale-out tier's mean uplink utilisation (the flows' shares over
  // the capacity, from the first LLM job's start to the last one's end).
  double contention_slowdown_mean = 0;
  double contention_gpu_hours_lost = 0;
  double link_util_leaf = 0;
  double link_util_spine = 0;
  // Failure classes by job size (GPUs 1, 2-8, 9-64, 65-512, over 512; 0 without failure
  // classes): ettr_mean over the bucket's measured finished jobs (NaN, no value, without one),
  // and the mean time to failure, the bucket's running time (GPU-seconds held / GPUs) over its
  // interruptions (NaN without one).
  double ettr_mean_size_1 = 0, ettr_mean_size_2_8 = 0, ettr_mean_size_9_64 = 0,
         ettr_mean_size_65_512 = 0, ettr_mean_size_over_512 = 0;
  double mttf_h_size_1 = 0, mttf_h_size_2_8 = 0, mttf_h_size_9_64 = 0, mttf_h_size_65_512 = 0,
         mttf_h_size_over_512 = 0;
  // Hot spares: the pool's node-hours spent replacing failed nodes (from hand-over until a
  // repaired node refills the pool) over those and its node-hours held idle (0 without spares).
  double spare_util = 0;
};

// One sample of the cluster's state, taken every `sample_interval_s`.
struct Sample {
  Time time = 0.0;
  int busy_gpus = 0;
  int idle_gpus = 0;
  int fragmented_gpus = 0;  // idle GPUs that cannot host the head-of-queue job
  int queue_length = 0;
  int running_jobs = 0;
  // The placement study: one sample per arrival; `time` is then the arrived GPU demand as a
  // share of capacity, and these its state (shares of total GPU capacity; 0 in event-driven
  // runs): allocated, unallocated, and the fragmented share of idle capacity.
  double alloc_ratio = 0.0;
  double unallocated_share = 0.0;
  double frag_rate = 0.0;
  // GPUs of nodes down (failures, drains): neither busy nor idle (busy + idle + down = GPUs).
  int down_gpus = 0;
  // Expected idle GPUs the workload's typical jobs cannot use (FGD's measure; metrics/
  // fragmentation.h): unlike fragmented_gpus, whatever job heads the queue.
  double frag_typical_gpus = 0.0;
};

// Serving DAG workloads: one record per query and per task (RunResult::queries, ::tasks).
struct QueryRecord {
  Time arrival = 0.0;
  Time finish = -1.0;  // its last task's finish
  double latency = 0.0;
};
struct TaskRecord {
  int gpu = -1;              // where it ran (index in node order, then GPU order within a node)
  Time ready = 0.0;          // its last parent finished (its query arrived, for a source)
  Time head = 0.0;           // it reached the head of its GPU's queue (the GPU turned to it)
  Time compute_start = 0.0;  // model resident and inputs there
  Time finish = 0.0;
  double load_s = 0.0;      // model load it paid (0 on a hit or without a model)
  double transfer_s = 0.0;  // its slowest input's transfer (0 when every parent shares its node)
  bool cache_hit = false;   // its model was resident (false without a model)
};

struct RunResult {
  RunMetrics metrics;
  std::vector<JobRecord> jobs;       // one per workload job, workload order
  std::vector<Sample> samples;       // only with SimOptions::record_samples
  std::vector<QueryRecord> queries;  // serving DAG workloads only, DagInfo's query order
  std::vector<TaskRecord> tasks;     // serving DAG workloads only, workload order
  // Clusters of several GPU types: each job's GPU-seconds held on each type (overheads
  // included), by (job, type): type_gpu_seconds[job * gpu_types.size() + type]; empty otherwise.
  std::vector<std::string> gpu_types;
  std::vector<double> type_gpu_seconds;
  // Columns some components add (power.h: energy_kwh and carbon_kg per job; power_w per
  // sample, ...), empty when none: per job (workload order, like `jobs`) and per sample (like
  // `samples`); the CSV writers append them after the built-in columns.
  struct Column {
    std::string name;
    std::vector<double> values;
  };
  std::vector<Column> job_columns;
  std::vector<Column> sample_columns;
  // With a window: the last arrival came before the window drained, so the window's end ran on
  // a workload that had stopped arriving (front ends generate more jobs and run again).
  bool window_outlived_arrivals = false;
  // The steady-state verdict in words (why overloaded or too short; empty when steady or not
  // assessed): what front ends print beside the flags of `metrics`.
  std::string steady_state_note;
};

// ---- Field tables ---------------------------------------------------------------------------

enum class FieldType : std::uint8_t { kCount, kReal };

struct MetricField {
  std::string_view name;  // --json key and HDF5 column
  FieldType type;
  std::string_view unit;  // "s", "GPU-s", "fraction", "" (a count)
  std::string_view meaning;
  std::uint64_t RunMetrics::*count = nullptr;  // kCount
  double RunMetrics::*real = nullptr;          // kReal
  double as_double(const RunMetrics& m) const {
    return type == FieldType::kCount ? static_cast<double>(m.*count) : m.*real;
  }
};
// In schema order (the order of --json keys and HDF5 columns). Only ever appended to.
std::span<const MetricField> run_metric_fields();

struct JobField {
  std::string_view name;  // --jobs-out column and HDF5 /jobs column
  FieldType type;
  bool finished_only;  // written blank in CSV for a job that did not finish
  bool first_block;    // among the original columns written before model,vc,status in CSV
  int JobRecord::*count = nullptr;
  double JobRecord::*real = nullptr;
};
std::span<const JobField> job_record_fields();

struct SampleField {
  std::string_view name;
  FieldType type;
  int Sample::*count = nullptr;
  double Sample::*real = nullptr;
};
std::span<const SampleField> sample_fields();

// What a run's metrics say that the reader should know (messages for the run's warnings; empty
// when none): a duration cap that binds the p99 JCT (jct_p99 is the measured jobs' longest
// duration and at least 1% of them have it, as a generator's max_duration_s gives: the p99 then
// measures the cap, not the policy). `jobs`: the workload, in the order of result.jobs (every
// job, before a front end keeps only the measured rows).
std::vector<std::string> metric_warnings(std::span<const JobSpec> jobs, const RunResult& result);
// Sets result.metrics.jct_p99_cap_share from the measured jobs (`jobs`: the workload's, in the
// order of result.jobs, before any rows are dropped); every run calls it as it completes.
void describe_duration_cap(std::span<const JobSpec> jobs, RunResult& result);

}  // namespace clustersim
