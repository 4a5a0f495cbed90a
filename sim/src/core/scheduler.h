// The default scheduler: ordering -> allocation -> placement -> plan. Private to the core.
//
// It decides; the engine applies (engine.h). It owns the waiting queue (in policy order), the
// ordering policy and the allocation mechanism, and after every event batch it:
//   1. holds a round when one is due: running and waiting jobs walked together in policy order
//      and admitted greedily into each GPU type's capacity (within VC quotas); running jobs not
//      admitted are stopped, but only where a waiting job was admitted on their GPU type;
//   2. makes a pass over the queue in policy order, asking the allocation mechanism to start
//      each job that fits (the fast path: a job starts without a round);
//   3. lets the allocation mechanism rebalance running jobs when resources changed hands;
//   4. runs the mechanisms that are on ([mechanisms], mechanisms.h): elastic shrinking for a
//      waiting job, defragmentation, elastic growth into idle GPUs.
// What triggers rounds is a setting (lease_s, preemption), not a property of the engine: every
// lease_s, or with lease_s = 0 at every arrival, completion and failure; and with
// preempt_on_arrival, a higher-priority arrival evicts lower-priority jobs at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/policy.h"
#include "core/engine.h"
#include "core/waiting_queue.h"
#include "mechanisms/defragmenter.h"
#include "mechanisms/elastic.h"

namespace clustersim::internal {

class Scheduler {
 public:
  Scheduler(Engine& engine, const SimOptions& options);
  // Sizes the tables once the engine has loaded the jobs.
  void load(std::size_t jobs, int max_gpus, std::size_t vcs);

  // A job becomes waiting (it arrived, or was stopped and re-queued).
  void enqueue(std::uint32_t job, Time now);
  // The job just arrived (after enqueue): a higher-priority arrival may evict at once.
  void note_arrival(std::uint32_t job) {
    if (evicts_on_arrival_) arrived_.push_back(job);
  }
  // Resources were given back (a completion, a checkpoint's end): worth rebalancing.
  void note_released() { released_ = true; }

  // Whether this batch holds a round: a round event popped, or (no round pending) the batch
  // lands exactly on a lease boundary while jobs wait; with lease_s = 0, whenever jobs arrived,
  // completed or failed in the batch (`jobs_came_or_went`) while jobs wait.
  bool round_due(Time now, bool round_event, bool jobs_came_or_went);
  // After planning: when the next round should be, if one should be scheduled now.
  std::optional<Time> next_round(Time now);
  // One batch's decisions: the round (when due), a pass, the mechanism's rebalancing. With a
  // planning period, the pass and the rebalancing happen only on its boundaries (`plan_event`:
  // a planning event popped in this batch).
  void plan(Time now, bool round_due, bool plan_event, bool defrag_event);
  // With a planning period: the next boundary, when one should be scheduled now.
  std::optional<Time> next_plan(Time now);
  bool plan_pending() const { return plan_scheduled_; }
  // With periodic defragmentation: the next one, when one should be scheduled now.
  std::optional<Time> next_defrag(Time now);
  // Policy order (priority first with honor_priority; the policy's keys; the index).
  bool ranks_before(std::uint32_t a, std::uint32_t b) const { return before(a, b); }

  std::size_t waiting() const { return queue_.size(); }
  // The waiting job first in policy order (the queue must not be empty).
  std::uint32_t head_of_queue() const;
  std::uint64_t rounds() const { return rounds_; }
  void report(RunMetrics& metrics) const { allocation_->report(metrics); }
  // Checks the queue against the jobs' phases (for the engine's invariant checker).
  void check_invariants() const;

 private:
  void scheduling_pass(Time now);
  void preemption_round(Time now);
  void evict_for_arrivals();
  void run_mechanisms(Time now, bool defrag_event);
  void sort_candidates(Time now);
  void simple_round(int capacity);
  bool try_start(std::uint32_t job);
  bool before(std::uint32_t a, std::uint32_t b) const;
  auto order() const {
    return [this](std::uint32_t a, std::uint32_t b) { return before(a, b); };
  }
  // The order in which walks serve jobs of different VCs: `before`, except that policies that
  // rank VCs (fair share) first compare the VCs' ranks given their GPUs held in `usage`.
  auto walk_order(const std::vector<double>& usage) const {
    return [this, &usage](std::uint32_t a, std::uint32_t b) {
      if (ranks_vcs_) {
        const JobState& x = jobs()[a];
        const JobState& y = jobs()[b];
        const bool priority_decides =
            options_.scheduler.honor_priority && x.spec->priority != y.spec->priority;
        if (!priority_decides) {
          const double total = engine_.cluster().total_gpus();
          const auto& weight = engine_.vc_weight();
          const double rank_x = policy_->vc_rank(usage[x.vc], x.gpus, weight[x.vc], total);
          const double rank_y = policy_->vc_rank(usage[y.vc], y.gpus, weight[y.vc], total);
          if (rank_x != rank_y) return rank_x < rank_y;
        }
      }
      return before(a, b);
    };
  }
  bool within_quota(const JobState& job, const std::vector<double>& usage) const;
  PolicyContext policy_context(Time now) const;
  std::span<const JobState> jobs() const { return engine_.jobs(); }

  Engine& engine_;
  const SimOptions& options_;
  std::unique_ptr<SchedulingPolicy> policy_;
  std::unique_ptr<AllocationMechanism> allocation_;
  bool preemptive_ = false;
  bool evicts_on_arrival_ = false;  // preempt_on_arrival, honor_priority, a preemptive policy
  bool ranks_vcs_ = false;
  bool lend_ = false;  // VC quotas are lent (two phases: within quota first)

  // Waiting jobs, in buckets each in policy order (sorted incrementally for static keys).
  WaitingQueue queue_;
  std::vector<PriorityKey> keys_;  // by job index
  Plan plan_;
  bool released_ = false;                        // since the last rebalance
  bool started_ = false;                         // this plan's passes started a job
  std::uint32_t shrink_tried_for_ = UINT32_MAX;  // the head elastic jobs last shrank (or not) for

  // Scratch reused by rounds and passes (no allocation per event).
  std::vector<std::uint32_t> candidates_;
  std::vector<PriorityKey> candidate_keys_;
  std::vector<WalkList> walk_lists_;
  std::vector<std::uint32_t> walk_buckets_;  // the buckets walk_lists_ starts with
  std::vector<std::vector<std::uint32_t>> vc_candidates_;
  std::vector<std::size_t> walk_reached_;
  MergedWalk walk_;
  std::vector<std::uint32_t> admitted_stamp_;
  std::vector<double> round_usage_;
  std::vector<int> type_capacity_;   // a round's GPUs left, by type
  std::vector<int> type_idle_;       // a round's free GPUs not yet claimed, by type
  std::vector<char> type_admitted_;  // a round admitted a waiting job on this type
  std::uint32_t round_number_ = 0;
  // Last round's order of the running jobs, kept to sort the next round's cheaply.
  struct Ranked {
    PriorityKey key;
    std::uint32_t index;
  };
  std::vector<std::uint32_t> running_order_, listed_;
  std::vector<PriorityKey> listed_keys_;
  std::vector<Ranked> kept_, moved_;
  std::vector<std::uint32_t> order_stamp_;
  std::uint32_t order_round_ = 0;
  std::vector<int> gpu_prefix_;                  // simple_round: GPUs of candidates_[0..i)
  std::vector<std::uint32_t> rejected_;          // simple_round: running jobs passed over
  std::vector<std::uint32_t> vc_blocked_stamp_;  // pass number at which a VC stopped (strict order)
  std::uint32_t pass_number_ = 0;
  bool round_scheduled_ = false;
  bool plan_scheduled_ = false;
  std::uint64_t rounds_ = 0;

  // Mechanisms (null when off).
  std::unique_ptr<Defragmenter> defrag_;
  std::unique_ptr<ElasticResizer> elastic_;
  bool make_room_ = false;  // migration = "on_demand": make room before a split start
  bool locality_ = false;   // scheduler.locality = "strict"
  std::vector<std::pair<int, int>> no_room_;  // (GPUs, type) make_room failed for
  bool compaction_tried_ = false;  // a compaction found nothing; retried once resources free
  bool defrag_scheduled_ = false;
  std::vector<std::uint32_t> arrived_;  // this batch's arrivals (preempt_on_arrival)
  std::vector<std::uint32_t> victims_;  // scratch: evict_for_arrivals
  std::vector<int> freeing_;            // scratch: GPUs being freed, by type
};

}  // namespace clustersim::internal
