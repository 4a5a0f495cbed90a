// The discrete-event engine behind simulate(). Private to the core.
//
// The engine *applies*; the scheduler (scheduler.h) *decides*. The engine owns the state: the
// resource ledger (ClusterState), every job's phase, progress and grants, the event queue and
// the measurements. It changes that state in exactly one way, apply(plan) (plan.h), plus its
// own event handlers (completions, the end of a checkpoint or restore, arrivals). A job's
// progress is piecewise-constant between changes, so its completion is an event computed when
// its rate changes; a change bumps the job's epoch so stale completions are dropped when popped.
#pragma once

#include <array>
#include <bit>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/cluster_state.h"
#include "clustersim/event_queue.h"
#include "clustersim/job_state.h"
#include "clustersim/placement.h"
#include "clustersim/plan.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"
#include "mechanisms/failures.h"
#include "mechanisms/overheads.h"

namespace clustersim::internal {

class Scheduler;

// The grants of the jobs holding resources, in blocks of 1, 2, 4, ... grants recycled by size:
// memory for what runs, not for every job of the workload.
class GrantStore {
 public:
  std::uint32_t allocate(std::uint32_t count) {
    const auto size_class = static_cast<std::size_t>(std::bit_width(count - 1));
    auto& spare = free_[size_class];
    if (!spare.empty()) {
      const std::uint32_t begin = spare.back();
      spare.pop_back();
      return begin;
    }
    const auto begin = static_cast<std::uint32_t>(storage_.size());
    storage_.resize(storage_.size() + (std::size_t{1} << size_class));
    return begin;
  }
  void release(std::uint32_t begin, std::uint32_t count) {
    free_[static_cast<std::size_t>(std::bit_width(count - 1))].push_back(begin);
  }
  Grant* data() { return storage_.data(); }
  const Grant* data() const { return storage_.data(); }

 private:
  std::vector<Grant> storage_;
  std::array<std::vector<std::uint32_t>, 33> free_;
};

class Engine final : public AllocationContext {
 public:
  Engine(const SimOptions& options, const std::vector<JobSpec>& specs);
  ~Engine() override;
  RunResult run();

  // ---- AllocationContext (what deciders read) ----------------------------------------------
  Time now() const override { return now_; }
  const SchedulerOptions& options() const override { return options_.scheduler; }
  const ClusterState& cluster() const override { return cluster_; }
  std::span<const JobState> jobs() const override { return jobs_; }
  std::span<const std::uint32_t> holders() const override { return holders_; }
  std::span<const std::uint32_t> holders_on(std::uint32_t node) const override {
    return node_holders_[node];
  }
  std::span<const Grant> grants_of(std::uint32_t job) const override {
    return {grants_.data() + jobs_[job].grant_begin, jobs_[job].grant_count};
  }
  PlacementRequest request_of(std::uint32_t job) const override;
  std::span<const int> types_to_try(std::uint32_t job) override;
  bool place(const PlacementRequest& request, std::vector<NodeShare>& out) override;
  double rate_if(std::uint32_t job, std::span<const Grant> grants) const override;
  double rate_per_gpu(std::uint32_t job, int gpu_type, const PerGpu& per_gpu) const override;
  SensitivityAxes axes(std::uint32_t job, int gpu_type) const override;

  // ---- For the scheduler ---------------------------------------------------------------------
  // The only way a decision changes state. Checks the whole plan (each job named once, in a
  // phase it may leave; grants that add up to the job's GPUs, or for an elastic job to a count
  // within its range, on nodes of one type), gives back what changed jobs release now, then
  // takes every new grant from the ledger (which throws std::logic_error on any
  // over-allocation), then for each job folds its progress at the old rate, charges the
  // transition (start: restore from a checkpoint; stop: checkpoint; change: a re-launch for new
  // CPU/memory/storage, a migration for other GPUs, a resize for another GPU count), asks the
  // throughput model for the new rate and reschedules its completion.
  void apply(const Plan& plan);
  const SimOptions& sim_options() const { return options_; }
  // The GPU type a holder's grants are on.
  int type_held(std::uint32_t job) const {
    return cluster_.node(grants_.data()[jobs_[job].grant_begin].node).gpu_type;
  }
  // Virtual clusters: names, GPUs held now, quotas (total GPUs without quotas), fair-share
  // weights.
  bool quotas_enforced() const { return quotas_enforced_; }
  const std::vector<double>& vc_usage() const { return vc_usage_; }
  const std::vector<double>& vc_quota() const { return vc_quota_; }
  const std::vector<double>& vc_weight() const { return vc_weight_; }
  std::size_t vc_count() const { return vc_names_.size(); }
  // Mechanisms: what a transition is expected to cost (planners compare moves by it), whether a
  // job may change its GPU count and its range, and the nodes down now.
  double expected_overhead_s(OverheadKind kind, std::uint32_t job) const {
    if (kind == OverheadKind::kResize && not_begun(jobs_[job])) return 0.0;
    return overheads_.expected_seconds(kind, job, *jobs_[job].spec);
  }
  // Started this instant from scratch: it has no state to save, so it may still change its
  // GPUs for free (it starts on the new ones).
  bool not_begun(const JobState& job) const {
    return job.phase == JobPhase::kRunning && job.progress_since == now_ && !job.has_checkpoint &&
           job.remaining == job.spec->duration;
  }
  bool is_elastic(std::uint32_t job) const {
    return elastic_ && jobs_[job].spec->min_gpus > 0 &&
           jobs_[job].spec->min_gpus < jobs_[job].spec->max_gpus;
  }
  int min_gpus(std::uint32_t job) const { return jobs_[job].spec->min_gpus; }
  int max_gpus(std::uint32_t job) const { return jobs_[job].spec->max_gpus; }
  bool placement_consolidates() const { return placement_->consolidates(); }
  // The fewest nodes of `gpu_type` that can hold `gpus` GPUs (strict locality's limit), and
  // whether the waiting job has room on that many nodes of a type it may start on (a necessary
  // condition for a placement there).
  std::size_t fewest_nodes(int gpu_type, int gpus) const;
  bool room_on_fewest_nodes(std::uint32_t job);
  bool node_offline(std::uint32_t node) const { return !down_count_.empty() && down_count_[node]; }
  std::size_t offline_nodes() const { return offline_nodes_; }

 private:
  void load_jobs();
  void reject_or_throw(JobState& job, const char* field, const std::string& why);
  const void* resolved(std::uint32_t job, int gpu_type) const {
    if (resolved_.empty()) return nullptr;  // the model resolves nothing
    return resolved_[static_cast<std::size_t>(job) * type_count_ +
                     static_cast<std::size_t>(gpu_type)];
  }

  // Event handlers.
  void complete(std::uint32_t job);
  void finish_checkpoint(std::uint32_t job);
  void begin_running(std::uint32_t job);
  void save_due(std::uint32_t job);
  void node_down(std::uint32_t node, bool generated);
  void node_up(std::uint32_t node, bool generated);
  void fail_job(JobState& job);
  void start_failures();

  // Parts of apply().
  void check_change(const Plan& plan, const Plan::Change& change);
  void release_to_ledger(const JobState& job);
  void take_holding(JobState& job, std::span<const Grant> grants);
  void drop_holding(JobState& job);
  void start_job(JobState& job);
  void stop_job(JobState& job, double checkpoint_seconds);
  void change_job(JobState& job, std::span<const Grant> old_grants, bool resized);
  void set_rate(JobState& job);
  Allocation allocation_of(std::span<const Grant> grants) const;
  // The rate factor of an elastic job holding `gpus` GPUs (1 at its requested count).
  double scaling_factor(const JobState& job, int gpus) const;

  // Transitions' bookkeeping.
  void fold_progress(JobState& job);  // a running job's progress up to now
  void charge(JobState& job, OverheadKind kind, double gpu_seconds);
  void fold_held(JobState& job);  // GPU-seconds held up to now into its record
  // The job holds its GPUs without progress for `seconds` (kRestoring), then runs.
  void pause(JobState& job, OverheadKind kind, double seconds);
  void commit_save(JobState& job);  // its state as of now is saved
  void schedule_save(JobState& job);
  void requeue(JobState& job);  // gives back what it holds (ledger already done) and waits
  double checkpoint_interval(const JobState& job) const {
    return job.spec->checkpoint_interval_s > 0.0 ? job.spec->checkpoint_interval_s
                                                 : options_.mechanisms.checkpoint_interval_s;
  }

  // Measurement.
  void take_sample();
  void integrate_until(Time now);
  void check_invariants() const;
  void check_work_conservation() const;
  RunResult collect_results();

  const SimOptions& options_;
  const std::vector<JobSpec>& specs_;
  ClusterState cluster_;
  Rng rng_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<ThroughputModel> owned_throughput_;
  const ThroughputModel* throughput_ = nullptr;
  std::unique_ptr<Scheduler> scheduler_;
  std::size_t type_count_ = 1;
  std::vector<const void*> resolved_;     // throughput model's lookup, by (job, GPU type)
  std::vector<std::uint32_t> type_node_;  // a node of each type: its proportional shares
  std::vector<int> type_gpus_per_node_;   // the most GPUs a node of each type has
  OverheadModel overheads_;
  std::unique_ptr<FailureProcess> failures_;  // null: no generated failures
  bool elastic_ = false;
  bool stop_when_idle_ = false;  // failure events never run out: end when no job is left

  Time now_ = 0.0;
  std::vector<JobState> jobs_;
  std::vector<JobRecord> records_;            // what each job accumulates; moved into the results
  std::vector<std::uint32_t> arrival_order_;  // job indices sorted by (submit, index)
  std::size_t next_arrival_ = 0;
  EventQueue events_;

  // Holdings: jobs holding resources (with positions for O(1) removal), their grants (slots
  // sized at load), and the holders of each node.
  std::vector<std::uint32_t> holders_;
  std::vector<std::uint32_t> holder_position_;
  GrantStore grants_;
  std::vector<Grant> old_grants_;  // scratch: a changed job's grants before the plan
  std::vector<std::vector<std::uint32_t>> node_holders_;
  std::vector<std::uint32_t> plan_stamp_;  // apply number that last named each job
  std::uint32_t apply_number_ = 0;
  std::vector<int> type_order_;

  // VCs: holdings, quotas and fair-share weights.
  bool quotas_enforced_ = false;  // the cluster defines VCs with quotas
  std::vector<std::string> vc_names_;
  std::vector<double> vc_usage_;
  std::vector<double> vc_quota_;
  std::vector<double> vc_weight_;

  // Nodes down: outages in progress by node (generated and replayed may overlap).
  std::vector<std::uint32_t> down_count_;
  std::size_t offline_nodes_ = 0;
  int offline_gpus_ = 0;
  std::vector<std::uint32_t> failing_;  // scratch: the jobs on a failing node
  std::vector<Grant> offline_grant_;    // by node: what an outage holds of it

  // Measurement.
  std::vector<Sample> samples_;
  double fragmented_sum_ = 0.0;
  std::uint64_t sample_count_ = 0;
  std::uint64_t events_processed_ = 0;
  std::uint64_t reallocations_ = 0;
  std::uint64_t node_failures_ = 0;
  std::uint64_t checkpoints_ = 0;
  std::vector<double> stop_seconds_;  // scratch: each stop's checkpoint time, in plan order
  // Work conservation (all jobs, all time): GPU-seconds held by jobs, as the ledger saw them and
  // as the transitions summed them: held = progress + overheads.
  double ledger_gpu_seconds_ = 0.0;
  double held_gpu_seconds_ = 0.0;
  double progress_gpu_seconds_ = 0.0;
  double overhead_gpu_seconds_ = 0.0;
  std::size_t rejected_ = 0;
  std::size_t active_jobs_ = 0;  // submitted and not finished
  double queue_length_integral_ = 0.0;
  Time last_batch_time_ = 0.0;
  Time first_submit_ = 0.0;
  // Resources held x time, from measure_from_ on (cluster-wide; for the utilisations).
  Time measure_from_ = 0.0;
  double busy_gpu_integral_ = 0.0;
  double cpu_integral_ = 0.0;
  double mem_integral_ = 0.0;
  double storage_integral_ = 0.0;
  double window_queue_integral_ = 0.0;
  // Window: jobs of the window not finished yet (rejected ones excluded).
  std::size_t window_left_ = 0;
  Time window_end_ = 0.0;
  bool window_outlived_arrivals_ = false;
};

}  // namespace clustersim::internal
