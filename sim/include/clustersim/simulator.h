// The simulator's entry point: options in, metrics out. Pure computation, no I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/job.h"
#include "clustersim/mechanisms.h"
#include "clustersim/metrics.h"
#include "clustersim/power.h"
#include "clustersim/throughput_model.h"

namespace clustersim {

class AllocationContext;  // allocation_mechanism.h
class AllocationMechanism;
class SchedulingPolicy;  // policy.h

enum class VcQuotaMode {
  kStrict,  // a VC never holds more GPUs than its quota
  kLend,    // idle quota is lent; preemptive policies reclaim it at lease boundaries
};

struct SchedulerOptions {
  std::string policy =
      "fifo";  // fifo | sjf | srtf | las | tiresias | drf | qssf | sju | sjg | sjgg
  std::string placement = "consolidate";  // consolidate | spread | best_fit | random
  // How much CPU, memory and storage each job gets (allocation_mechanism.h):
  // proportional | greedy | tune | opt | drf | tetris.
  std::string allocation = "proportional";
  // A job's best demand is the cheapest allocation whose speed is within this fraction of its
  // peak speed (and never below its speed at the proportional share).
  double best_demand_tolerance = 0.05;
  // A running job whose CPU/memory/storage grant changes pauses this long (no progress, charged
  // as overhead), e.g. to restart its data loaders.
  double realloc_s = 0.0;
  // Period of preemption rounds (preemptive policies); 0: a round at every arrival and
  // completion (event-driven preemption: SRTF is then SRPT).
  double lease_s = 300.0;
  // Preemption rounds leave a job that has held its GPUs for less than this many seconds (since
  // its last start) where it is: a minimum run against churn (LAS, SRTF). 0: off.
  double min_run_s = 0.0;
  // 0: plan (start jobs, rebalance) after every event batch. > 0: only at multiples of this
  // period, as round-based schedulers do (Synergy's simulator plans every 300 s).
  double plan_interval_s = 0.0;
  double checkpoint_s = 0.0;    // GPUs stay held this long when a job is preempted
  double restore_s = 0.0;       // a restarted job holds GPUs this long before progressing
  bool backfill = true;         // false: strict head-of-line blocking
  bool honor_priority = false;  // order by job priority (higher first) before the policy
  // Locality, as production schedulers enforce it (Philly): "strict" starts a job only on the
  // fewest nodes that can hold it (one node when it fits one), else it waits; after waiting
  // locality_relax_s (> 0) it takes any placement. "any": wherever the placement puts it.
  bool strict_locality = false;
  double locality_relax_s = 0.0;
  std::optional<bool> preemption;  // unset = the policy's default
  VcQuotaMode vc_quota = VcQuotaMode::kStrict;
  // Tiresias: queue boundaries in attained GPU-seconds (ascending).
  std::vector<double> tiresias_thresholds = {3600.0, 36000.0};
  // Tiresias' starvation guard (its PromoteKnob): at a preemption round, a waiting job that has
  // waited at least this many times the seconds it ran since its last promotion goes back to
  // the first queue (its attained service counts from then). 0: off.
  double tiresias_promote_knob = 0.0;
  // GPU type of a job that names none, at a start (type_choice.h): "most_free" (the type with
  // most free GPUs), "fastest" or "speedup" (by the throughput model's speed on each type).
  std::string type_choice = "most_free";
  // Duration estimates of qssf, sju, sjg and sjgg (policies/estimator.h), from finished jobs only:
  // "mean", "last_k" (the mean of the last estimator_k) or "quantile" (estimator_quantile) of
  // the group's durations; qssf's groups: "user", "model" or "vc" (estimate_by).
  std::string estimator = "mean";
  int estimator_k = 5;
  double estimator_quantile = 0.5;
  std::string estimate_by = "user";
  // Gavel's policy family (time_share.h; policy = max_min_fairness, ..., fifo_perf): how an
  // allocation becomes a schedule ("gavel": rounds of lease_s with whole-step micro-tasks), at
  // most how often it is recomputed (Gavel: 1,920 s), and the order in which a round walks the
  // GPU types ("fixed": the cluster's; "shuffle": anew each round; unset: Gavel's, shuffled for
  // its heterogeneity-agnostic policies, fixed for the _perf ones and fifo_perf). exact_fill,
  // rounds = "exact" only: "none" leaves GPUs no job has a share of idle; "idle" gives them to
  // waiting jobs without a share there until a share-holder needs them
  // (decider/exact_time_share_decider.h).
  std::string rounds = "gavel";
  double allocation_reset_s = 1920.0;
  std::string type_order = "gavel";
  std::string exact_fill = "none";
  // The LP policies' tie-break (time_share.h): "throughput", a lexicographic second stage that
  // picks one allocation among the optimal ones whatever the simplex starts from; "none": the
  // first optimal vertex CLP reaches (the default: the results before the tie-break, bit for bit).
  std::string tie_break = "none";
};

// Serving DAG workloads (serving.h): how ready tasks are placed and GPU memory is managed.
// Training workloads ignore these.
struct ServingOptions {
  std::string task_placement = "compass";  // task_placement_names() (task_placement.h)
  std::string cache = "lru";               // cache_policy_names() (model_cache.h)
  int cache_lookahead = 3;                 // queued tasks the compass cache looks at
  double reschedule_threshold = 1.5;       // compass: CompassOptions::reschedule_threshold
  bool compass_keep_joins = false;         // compass: CompassOptions::keep_join_plans
  double query_slo_s = 0.0;                // > 0: RunMetrics::query_slo_attainment against it
  // A mixed run's serving ([serving] with a training workload; serving.h, make_mixed_serving):
  // its serving config (the queries, policies and SLO; a path, resolved by the config parser),
  // whether serving may preempt training for GPUs, and the GPUs its pool always holds.
  std::string config;
  bool priority = true;
  int gpus = 1;
};

// GPU sharing ([sharing]; sim/README.md, "GPU sharing"): jobs asking for a share of one GPU
// (JobSpec::gpu_milli < 1000 with num_gpus 1) share a GPU with other such jobs while their shares
// fit (at most 1000 thousandths a GPU), and slow each other by the interference model. Unset
// `interference`: no sharing (a share runs on a whole GPU, as before).
enum class Interference : std::uint8_t {
  kNone,      // co-located jobs run at full speed
  kConstant,  // each co-located job multiplies a job's rate by constant_factor
  kTable,     // by the pair table: the factor of a job's model beside the other's model
};
struct SharingOptions {
  std::optional<Interference> interference;
  std::optional<double> constant_factor;  // in (0, 1]; required by kConstant
  std::string table;                      // kTable: the pair table's file (the config reads it)
  // kTable: the factor of a job of model `first` while it shares a GPU with a job of model
  // `second` (normalized model names; "*" = any model), as read from `table`.
  std::vector<std::pair<std::pair<std::string, std::string>, double>> pairs;
  bool enabled() const { return interference.has_value(); }
};

// What finish-time fairness compares a job's JCT with ([metrics] ftf_baseline): its time alone
// on 1/N of the cluster at its best GPU type's speed, or at Gavel's equal share of every type.
enum class FtfBaseline : std::uint8_t { kBestType, kGavel };

// [fabric]: the network LLM jobs (llm.h) run on, and their iteration model's settings. Acts only
// on a workload with LLM jobs (the CSV trace's model and layout columns).
struct FabricOptions {
  int scale_up_gpus = 0;                 // GPUs per NVLink domain; 0: one node's GPUs
  double scale_out_gbytes_per_s = 50.0;  // per GPU and direction beyond the domain (400 Gb/s)
  double efficiency = 0.0;               // of the peak; 0: the built-in table (llm.h)
  // Per GPU type and precision, "h100_fp8" -> efficiency, over `efficiency` for those.
  std::map<std::string, double> efficiency_by_type;
  // SimAI-format collective efficiency tables (a folder or one ratio CSV; llm.h's
  // CollectiveTable, read by the config): "" / null: every collective at full bandwidth.
  std::string collective_table;
  std::shared_ptr<const CollectiveTable> collectives;
  double tp_exposed = 0.5;  // share of TP communication not hidden by compute
  // Scale-out tiers (contention between jobs' DP traffic on leaf and spine uplinks): nodes in
  // order, hosts_per_leaf to a leaf (0: no tiers, no contention), leaves_per_spine to a spine
  // group (0: one group, no tier above it); or a host-to-switch map (`topology`, rows read into
  // topology_leaf / topology_spine, node i = row i). Uplinks carry their hosts' scale-out
  // bandwidth over the oversubscription.
  int hosts_per_leaf = 0;
  int leaves_per_spine = 0;
  double leaf_oversubscription = 1.0;
  double spine_oversubscription = 1.0;
  std::string topology;
  std::vector<std::string> topology_leaf, topology_spine;
  bool contention() const { return hosts_per_leaf > 0 || !topology.empty(); }
  // The workload's LLM jobs (Workload::llm; the Simulation sets it from its workload).
  std::shared_ptr<const LlmJobTable> llm_jobs;
  bool has_llm_jobs() const { return llm_jobs && !llm_jobs->empty(); }
};

struct SimOptions {
  ClusterSpec cluster;
  SchedulerOptions scheduler;
  ServingOptions serving;
  MechanismOptions mechanisms;
  SharingOptions sharing;
  FabricOptions fabric;
  PowerOptions power;    // [power]: off by default (power.h)
  SupplyOptions supply;  // [supply]: read only with power on
  PlacementPenalty penalty;
  // Throughput model to use; null = placement-penalty model built from `penalty`. Not owned.
  const ThroughputModel* throughput = nullptr;
  double sample_interval_s = 600.0;  // time-series period; 0 disables sampling
  FtfBaseline ftf_baseline = FtfBaseline::kBestType;
  // Keep every sample in RunResult::samples (only frag_mean is computed otherwise, in O(1)
  // memory: a front end that writes no time series sets this false).
  bool record_samples = true;
  // Measure only the jobs at these workload positions (inclusive) and stop once they have all
  // finished: steady-state metrics on a workload that keeps arriving.
  struct Window {
    std::size_t first = 0;
    std::size_t last = 0;
  };
  std::optional<Window> window;
  // Called after every event batch's decisions, with what deciders see (tests, tools; null =
  // none). It may read but not change the simulation.
  std::function<void(const AllocationContext&)> observer;
  // A user's own allocation mechanism (allocation_mechanism.h), used instead of
  // scheduler.allocation's when set.
  std::function<std::unique_ptr<AllocationMechanism>(const SchedulerOptions&)> make_allocation;
  // A user's own ordering policy (policy.h) for the built-in decider, used instead of
  // scheduler.policy's when set.
  std::function<std::unique_ptr<SchedulingPolicy>(const SchedulerOptions&)> make_policy;
  bool reject_impossible = false;  // reject (and count) jobs that can never fit, else error
  bool check_invariants = false;   // verify resource accounting after every event batch (slow)
  std::uint64_t seed = 1;          // randomness of placement and policies
};

// A job that can never run on this cluster (too many GPUs, unknown VC or GPU type, ...).
// `field` names the job's attribute at fault in the native CSV's terms (num_gpus, vc, gpu_type,
// cpus, mem_gb), so front ends can report FILE:LINE: field 'F': message.
class ImpossibleJobError : public std::runtime_error {
 public:
  ImpossibleJobError(std::size_t job_index, std::size_t source_line, std::string field,
                     const std::string& message)
      : std::runtime_error(message),
        job_index_(job_index),
        source_line_(source_line),
        field_(std::move(field)) {}
  std::size_t job_index() const { return job_index_; }
  std::size_t source_line() const { return source_line_; }
  const std::string& field() const { return field_; }

 private:
  std::size_t job_index_;
  std::size_t source_line_;
  std::string field_;
};

// Runs `jobs` to completion. Throws std::invalid_argument for bad options and
// ImpossibleJobError for a job that can never fit (unless options.reject_impossible).
RunResult simulate(const SimOptions& options, const std::vector<JobSpec>& jobs);

}  // namespace clustersim
