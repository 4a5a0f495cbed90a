// The decision mechanisms (preemption rounds, elastic resizing, migration: decision_mechanism.h)
// around a decider that is not the built-in one: a user's C++ or Python decider, or a program's
// own plans between Simulation::step() calls. Private to the simulator; Simulation builds one when
// such a run has decision mechanisms to run.
//
// At every decision point:
//   begin     the before_pass hooks (preemption rounds, priority evictions); then, when the
//             queue's head has its GPUs free but not on the fewest nodes it needs, make_room
//             (migration's on-demand moves; the built-in decider asks for every job its pass
//             would start split, here only the head is known)
//   the decider decides (a user's decider's decide(); or the program applies its plans)
//   finish    the after_pass hooks: the first that frees GPUs for the queue's head (elastic
//             shrinking, compaction) has the decider decide again at this instant (decide()
//             loops; Simulation::step() returns at the same instant), then the next; then
//             use_idle (elastic growth) and after_decision (the next round's timer)
// The mechanisms read the ordering of scheduler.policy (its keys and its queue of waiting jobs):
// jobs join the queue as they start waiting and leave it when a plan applied through
// user_host() starts them, so a round walks running and waiting jobs in that policy's order,
// whatever order the decider starts jobs in.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "clustersim/decider.h"
#include "core/forwarding_host.h"
#include "decider/admission.h"
#include "decider/decision_mechanism.h"
#include "decider/decision_stages.h"
#include "decider/ordering.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

class DecisionHooks final : public Decider {
 public:
  // `checked`: the host a decider that is not built in applies its plans through (each checked
  // whole). `inner`: the user's decider, or none when the program applies plans itself.
  DecisionHooks(const SimOptions& options, Admission& admission, PlacementStage& placement,
                std::vector<DecisionMechanism*> mechanisms, Host& checked, Decider* inner);

  // Where the decider or the program applies its plans: `checked`, and the queue follows.
  Host& user_host() { return user_host_; }

  // ---- Decider (the engine's: it hears every job event) --------------------------------------
  // `host` is the engine (the mechanisms' host); the user's decider attaches to user_host().
  void attach(Host& host) override;
  void jobs_added() override;
  void on_waiting(std::uint32_t job) override;
  void on_rebound(std::uint32_t job, int old_gpu_type) override;
  void on_arrival(std::uint32_t job) override;
  void on_finished(std::uint32_t job) override;
  void on_released() override;
  // begin, the user's decider, finish (deciding again while finish asks).
  void decide(const DecisionPoint& point) override;
  std::optional<std::uint32_t> head_of_queue() const override;
  bool expects_wakeup() const override;
  void check_invariants() const override;
  void report(RunMetrics& metrics) const override;

  // ---- The decision in two halves (a program's own plans in between) ------------------------
  void begin(const DecisionPoint& point);
  // True when a mechanism freed GPUs for the queue's head: decide again at this instant, then
  // call finish() again.
  bool finish();

 private:
  // The host handed to the decider: applies through `checked`, then takes the jobs the plan
  // started out of the queue.
  class FollowingHost final : public ForwardingHost {
   public:
    FollowingHost(DecisionHooks& hooks, Host& checked) : ForwardingHost(checked), hooks_(hooks) {}
    void apply(const Plan& plan) override { hooks_.apply_and_follow(plan); }

   private:
    DecisionHooks& hooks_;
  };

  // A waiting job named by a plan, with the bucket it is queued in.
  struct Queued {
    std::uint32_t job;
    int vc, gpus, gpu_type, milli;
  };

  void apply_and_follow(const Plan& plan);
  void make_room_for_head();

  const View& view() const { return stages_.view(); }

  Ordering ordering_;
  std::vector<DecisionMechanism*> mechanisms_;  // registry order
  DecisionHookLists hooks_;
  DecisionStages stages_;
  Host& checked_;
  FollowingHost user_host_;
  Decider* inner_;
  std::size_t next_after_pass_ = 0;  // finish(): the after_pass hook to try next
  Plan plan_;
  std::vector<Queued> named_;                 // scratch: apply_and_follow
  std::vector<std::pair<int, int>> no_room_;  // (GPUs, type) shapes room was not made for
};

}  // namespace clustersim::internal
