// The built-in decider: admission -> ordering -> GPU-type choice and placement -> allocation ->
// plan, with the decision mechanisms plugged in between (decision_mechanism.h). Private to the
// simulator; Simulation installs it unless a user's decider replaces it.
//
// At every decision point it:
//   1. lets the decision mechanisms act before the pass (preemption rounds: running and waiting
//      jobs walked together in policy order and admitted greedily into each GPU type's capacity
//      within VC quotas, running jobs not admitted stopped; priority evictions);
//   2. with a planning period, goes on only at its boundaries;
//   3. makes a pass over the queue in policy order, asking the allocation mechanism to start each
//      job that fits (the fast path: a job starts without a round), a mechanism making room for a
//      job that needs it (migration);
//   4. lets the allocation mechanism rebalance running jobs when resources changed hands;
//   5. lets the decision mechanisms free GPUs for the queue's head (elastic shrinking,
//      compaction: each followed by another pass), then use idle GPUs (elastic growth).
// Each step applies its plans through the host as it goes, so each later step sees the earlier
// ones' effect.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/decider.h"
#include "clustersim/policy.h"
#include "decider/admission.h"
#include "decider/decision_mechanism.h"
#include "decider/decision_stages.h"
#include "decider/ordering.h"
#include "decider/placement_stage.h"
#include "decider/waiting_queue.h"

namespace clustersim::internal {

class DefaultDecider final : public Decider, public TimerClient {
 public:
  DefaultDecider(const SimOptions& options, Admission& admission, PlacementStage& placement,
                 std::vector<DecisionMechanism*> mechanisms);
  ~DefaultDecider() override;

  // ---- Decider ----------------------------------------------------------------------------
  void attach(Host& host) override;
  void jobs_added() override;
  void on_waiting(std::uint32_t job) override { ordering_.enqueue(job, view_->now()); }
  void on_rebound(std::uint32_t job, int old_gpu_type) override {
    ordering_.rebucket(job, old_gpu_type);
  }
  void on_arrival(std::uint32_t job) override;
  void on_finished(std::uint32_t job) override {
    if (ordering_.rekeys()) ordering_.finished(job, view_->now());
  }
  void on_released() override { stages_.mark_released(); }
  void decide(const DecisionPoint& point) override;
  std::optional<std::uint32_t> head_of_queue() const override { return head(); }
  bool expects_wakeup() const override;
  void check_invariants() const override;
  void report(RunMetrics& metrics) const override;
  void on_timer(const Timer& timer) override;  // the planning period's boundaries

  // What the decision mechanisms use (bound to them at attach).
  DecisionStages& stages() { return stages_; }

 private:
  const View& view() const { return *view_; }
  bool queue_empty() const { return ordering_.queue().empty(); }
  std::uint32_t head() const { return stages_.head(); }
  void apply(const Plan& plan) { host_->apply(plan); }
  void scheduling_pass();
  bool try_start(std::uint32_t job);
  // A gate (a mechanism's kGate hook) holds the waiting job back now.
  bool held_back(std::uint32_t job, Time now) const;
  void after_pass_mechanisms();
  std::optional<Time> next_plan(Time now);

  const SimOptions& options_;
  Admission& admission_;
  PlacementStage& placement_;
  Ordering ordering_;
  std::unique_ptr<AllocationMechanism> allocation_;
  bool rebalances_ = false;                     // allocation_->rebalances(), asked once
  std::vector<DecisionMechanism*> mechanisms_;  // registry order
  DecisionHookLists hooks_;
  DecisionStages stages_;  // what the mechanisms read and do; the released and started flags
  Host* host_ = nullptr;
  const View* view_ = nullptr;  // host_->view(), kept: the hot path reads it
  bool bound_ = false;
  TimerKind plan_timer_ = 0;

  Plan plan_;
  bool plan_event_ = false;
  bool plan_scheduled_ = false;

  // Scratch reused by passes (no allocation per event).
  std::vector<WalkList> walk_lists_;
  std::vector<std::uint32_t> walk_buckets_;  // the buckets walk_lists_ starts with
  std::vector<std::size_t> walk_reached_;
  MergedWalk walk_;
  std::vector<std::uint32_t> vc_blocked_stamp_;  // pass number at which a VC stopped (strict order)
  std::uint32_t pass_number_ = 0;
  // A fleet in one run: pass number at which a cluster's (type partition's) head stopped.
  std::vector<std::uint32_t> partition_blocked_stamp_;
  std::size_t partition_of(const JobState& job) const {
    return job.gpu_type < 0
               ? 0
               : static_cast<std::size_t>(view().cluster().gpu_type_partition(job.gpu_type));
  }
  // (GPUs, type) shapes a mechanism could not make room for; retried once resources free.
  std::vector<std::pair<int, int>> no_room_;
};

}  // namespace clustersim::internal
