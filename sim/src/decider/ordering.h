// Ordering: which waiting job goes first. The built-in decider's stage that owns the ordering
// policy (policy.h), every job's key, and the waiting queue in policy order (waiting_queue.h).
//
// Policy order: with honor_priority, higher priority first; then the policy's keys; then the
// job index. A waiting job's key is computed when it starts waiting; a policy may ask for waiting
// jobs to be re-keyed when a job finishes (SchedulingPolicy::on_finished: each costs a search
// and a move within one chunk of its bucket). Running jobs are re-keyed at each preemption round
// (sort_running). Fair-share policies rank VCs as walks go (walk_order).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "clustersim/policy.h"
#include "clustersim/simulator.h"
#include "clustersim/view.h"
#include "decider/admission.h"
#include "decider/waiting_queue.h"

namespace clustersim::internal {

class Ordering {
 public:
  Ordering(const SimOptions& options, const View& view, const Admission& admission);
  // Per-job tables for the view's jobs (again when the workload grows).
  void grow();

  SchedulingPolicy& policy() { return *policy_; }
  // Running jobs may be preempted at lease boundaries (scheduler.preemption overrides the
  // policy's default).
  bool preemptive() const { return preemptive_; }
  bool ranks_vcs() const { return ranks_vcs_; }
  // The policy re-keys waiting jobs when a job finishes (finished() then has work to do).
  bool rekeys() const { return rekeys_; }
  WaitingQueue& queue() { return queue_; }
  const WaitingQueue& queue() const { return queue_; }

  // A job starts waiting: its key, and its place in its bucket.
  void enqueue(std::uint32_t job, Time now);
  // A waiting job's GPU type changed (Decider::on_rebound): from its old type's bucket to its
  // new one's, keeping its key.
  void rebucket(std::uint32_t job, int old_gpu_type);
  // A job finished: the policy may re-key waiting jobs (they move within their buckets).
  void finished(std::uint32_t job, Time now);
  // A preemption round begins: a policy whose waiting jobs' keys change as they wait
  // (SchedulingPolicy::rekeys_waiting_at_rounds) re-keys them; those whose key changed move.
  void round_begins(Time now);
  PolicyContext policy_context(Time now) const;

  // Policy order (priority first with honor_priority; the policy's keys; the index). Inline:
  // every walk, sort and insertion compares with it.
  bool before(std::uint32_t a, std::uint32_t b) const {
    if (honor_priority_) {
      const auto all = view_.jobs();
      if (all[a].spec->priority != all[b].spec->priority)
        return all[a].spec->priority > all[b].spec->priority;
    }
    const PriorityKey& x = keys_[a];
    const PriorityKey& y = keys_[b];
    if (x.primary != y.primary) return x.primary < y.primary;
    if (x.secondary != y.secondary) return x.secondary < y.secondary;
    return a < b;
  }
  auto order() const {
    return [this](std::uint32_t a, std::uint32_t b) { return before(a, b); };
  }
  // The order in which walks serve jobs of different VCs: `before`, except that policies that
  // rank VCs (fair share) first compare the VCs' ranks given their GPUs held in `usage`.
  auto walk_order(std::span<const double> usage) const {
    return [this, usage](std::uint32_t a, std::uint32_t b) {
      if (ranks_vcs_) {
        const JobState& x = view_.jobs()[a];
        const JobState& y = view_.jobs()[b];
        const bool priority_decides = honor_priority_ && x.spec->priority != y.spec->priority;
        if (!priority_decides) {
          const double total = view_.cluster().total_gpus();
          const auto weight = admission_.weight();
          const double rank_x = policy_->vc_rank(usage[x.vc], x.gpus, weight[x.vc], total);
          const double rank_y = policy_->vc_rank(usage[y.vc], y.gpus, weight[y.vc], total);
          if (rank_x != rank_y) return rank_x < rank_y;
        }
      }
      return before(a, b);
    };
  }
  // The waiting job first in walk order given the VCs' usage (the queue must not be empty).
  std::uint32_t head(std::span<const double> usage) const;

  // Re-keys the running `jobs` and sorts them in policy order (preemption rounds), starting from
  // last round's order.
  void sort_running(std::vector<std::uint32_t>& jobs, Time now);

  // The queue against the jobs' phases.
  void check_invariants() const;

 private:
  const View& view_;
  const Admission& admission_;
  std::unique_ptr<SchedulingPolicy> policy_;
  bool preemptive_ = false;
  bool ranks_vcs_ = false;
  bool rekeys_ = false;  // the policy re-keys waiting jobs when a job finishes
  bool honor_priority_ = false;
  WaitingQueue queue_;
  std::vector<PriorityKey> keys_;     // by job index
  std::vector<std::uint32_t> rekey_;  // scratch: waiting jobs the policy re-keys
  std::vector<PriorityKey> rekeyed_;  // scratch: round_begins' new keys

  // sort_running: last round's order of the running jobs, kept to sort the next round's cheaply.
  struct Ranked {
    PriorityKey key;
    std::uint32_t index;
  };
  std::vector<std::uint32_t> running_order_, listed_;
  std::vector<PriorityKey> listed_keys_;
  std::vector<Ranked> kept_, moved_;
  std::vector<std::uint32_t> order_stamp_;
  std::uint32_t order_round_ = 0;
};

}  // namespace clustersim::internal
