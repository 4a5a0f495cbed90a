// The discrete-event engine behind simulate(). Private to the core.
//
// Time advances from one event batch to the next (all events at one instant). A job's progress
// is piecewise-constant between events, so its completion is an event computed when it starts.
// Arrivals are read from the workload sorted by submit time, so the heap holds only completions,
// overheads, rounds and samples. After each batch the scheduler makes one pass over the queue.
#pragma once

#include <memory>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/event_queue.h"
#include "clustersim/job_state.h"
#include "clustersim/placement.h"
#include "clustersim/policy.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"
#include "core/waiting_queue.h"

namespace clustersim::internal {

class Engine {
 public:
  Engine(const SimOptions& options, const std::vector<JobSpec>& specs);
  RunResult run();

 private:
  void load_jobs();
  void reject_or_throw(JobState& job, const char* field, const std::string& why);

  // Event handlers.
  void arrive(std::uint32_t job, Time now);
  void complete(std::uint32_t job, Time now);
  void finish_checkpoint(std::uint32_t job, Time now);
  void begin_running(std::uint32_t job, Time now);

  // Scheduling.
  void scheduling_pass(Time now);
  void preemption_round(Time now);
  bool try_start(std::uint32_t job, Time now);
  void preempt(std::uint32_t job, Time now);
  void enqueue(std::uint32_t job, Time now);
  void release(std::uint32_t job, Time now);
  bool before(std::uint32_t a, std::uint32_t b) const;
  auto order() const {
    return [this](std::uint32_t a, std::uint32_t b) { return before(a, b); };
  }
  // The order in which walks serve jobs of different VCs: `before`, except that policies that
  // rank VCs (fair share) first compare the VCs' ranks given their GPUs held in `usage`.
  auto walk_order(const std::vector<double>& usage) const {
    return [this, &usage](std::uint32_t a, std::uint32_t b) {
      if (ranks_vcs_) {
        const JobState& x = jobs_[a];
        const JobState& y = jobs_[b];
        const bool priority_decides =
            options_.scheduler.honor_priority && x.spec->priority != y.spec->priority;
        if (!priority_decides) {
          const double total = cluster_.total_gpus();
          const double rank_x = policy_->vc_rank(usage[x.vc], x.gpus, vc_weight_[x.vc], total);
          const double rank_y = policy_->vc_rank(usage[y.vc], y.gpus, vc_weight_[y.vc], total);
          if (rank_x != rank_y) return rank_x < rank_y;
        }
      }
      return before(a, b);
    };
  }
  std::uint32_t head_of_queue() const;
  bool within_quota(const JobState& job, const std::vector<double>& usage) const;
  PlacementRequest request_of(const JobState& job) const;
  bool place_on_one_type(PlacementRequest& request);
  PolicyContext policy_context(Time now) const;
  void schedule_round_if_needed(Time now);

  // Measurement.
  void take_sample(Time now);
  void check_invariants() const;
  RunResult collect_results() const;

  const SimOptions& options_;
  const std::vector<JobSpec>& specs_;
  ClusterState cluster_;
  Rng rng_;
  std::unique_ptr<SchedulingPolicy> policy_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<ThroughputModel> owned_throughput_;
  const ThroughputModel* throughput_ = nullptr;
  bool preemptive_ = false;
  bool ranks_vcs_ = false;
  bool quotas_enforced_ = false;  // the cluster defines VCs with quotas

  std::vector<JobState> jobs_;
  std::vector<std::uint32_t> arrival_order_;  // job indices sorted by (submit, index)
  std::size_t next_arrival_ = 0;
  EventQueue events_;

  // Waiting jobs, per VC, each list in policy order (sorted incrementally for static keys).
  WaitingQueue queue_;
  std::vector<PriorityKey> keys_;  // by job index
  // Jobs holding GPUs, with each one's position for O(1) removal.
  std::vector<std::uint32_t> holders_;
  std::vector<std::uint32_t> holder_position_;
  std::vector<NodeShare> placement_pool_;  // every job's slots, sized at load
  std::vector<NodeShare> placement_scratch_;
  std::vector<int> type_order_;
  std::vector<int> room_by_type_;

  // VCs: holdings, quotas and fair-share weights.
  std::vector<std::string> vc_names_;
  std::vector<double> vc_usage_;
  std::vector<double> vc_quota_;
  std::vector<double> vc_weight_;

  // Scratch reused by rounds and passes (no allocation per event).
  std::vector<std::uint32_t> candidates_;
  std::vector<PriorityKey> candidate_keys_;
  std::vector<const MergedWalk::List*> walk_lists_;
  std::vector<std::vector<std::uint32_t>> vc_candidates_;
  std::vector<std::size_t> walk_reached_;
  MergedWalk walk_;
  std::vector<std::uint32_t> admitted_stamp_;
  std::vector<double> round_usage_;
  std::vector<double> zero_usage_;
  std::uint32_t round_number_ = 0;
  std::vector<std::uint32_t> vc_blocked_stamp_;  // pass number at which a VC stopped (strict order)
  std::uint32_t pass_number_ = 0;
  bool round_scheduled_ = false;

  // Measurement.
  std::vector<Sample> samples_;
  std::uint64_t events_processed_ = 0;
  std::uint64_t rounds_ = 0;
  std::size_t rejected_ = 0;
  std::size_t active_jobs_ = 0;  // submitted and not finished
  double queue_length_integral_ = 0.0;
  Time last_batch_time_ = 0.0;
  Time first_submit_ = 0.0;
};

}  // namespace clustersim::internal
