// What a decision mechanism (decision_mechanism.h) reads and does, whichever decision it plugs
// into: the built-in decider's (default_decider.h), or one around a decider that is not built in
// (a user's C++ decider, or a program's or Python's own plans between step() calls:
// decision_hooks.h). Both own one and bind their mechanisms to it, so a mechanism never sees
// which decider it serves. Private to the simulator.
//
// The stages are the simulation's admission (quotas) and placement, and an ordering (the
// configured scheduler.policy, its keys and its queue of waiting jobs) kept by its owner as jobs
// start waiting, start and finish.
#pragma once

#include <cstdint>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/host.h"
#include "clustersim/simulator.h"
#include "decider/admission.h"
#include "decider/ordering.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

class DecisionStages {
 public:
  DecisionStages(const SimOptions& options, Ordering& ordering, Admission& admission,
                 PlacementStage& placement)
      : options_(options), ordering_(ordering), admission_(admission), placement_(placement) {}

  // Once, before the mechanisms bind: the host they apply their plans through (the engine).
  void attach(Host& host) {
    host_ = &host;
    view_ = &host.view();
  }

  const View& view() const { return *view_; }
  Host& host() { return *host_; }
  const SimOptions& options() const { return options_; }
  Ordering& ordering() { return ordering_; }
  const Ordering& ordering() const { return ordering_; }
  Admission& admission() { return admission_; }
  PlacementStage& placement() { return placement_; }
  AllocationContext& context() { return placement_; }
  bool queue_empty() const { return ordering_.queue().empty(); }
  // The waiting job first in walk order (the queue must not be empty).
  std::uint32_t head() const { return ordering_.head(view_->vc_usage()); }

  // Resources were given back since the last decision that got past its planning gate (a
  // completion, a checkpoint's end, a failure, a node back, or a stop this decision made).
  bool released() const { return released_; }
  void mark_released() { released_ = true; }
  // This decision started a job.
  bool started() const { return started_; }
  void mark_started() { started_ = true; }
  // The decision is over: both flags start again.
  void decision_over() { released_ = started_ = false; }

  // Applies a plan a mechanism made, counting it as this decision's.
  void apply(const Plan& plan) { host_->apply(plan); }

 private:
  const SimOptions& options_;
  Ordering& ordering_;
  Admission& admission_;
  PlacementStage& placement_;
  Host* host_ = nullptr;
  const View* view_ = nullptr;  // host_->view(), kept: the hot path reads it
  bool released_ = false;
  bool started_ = false;
};

}  // namespace clustersim::internal
