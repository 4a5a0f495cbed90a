// The mechanisms a run's options turn on, built in one place. Adding a mechanism: its own files
// here, one line below, and its keys (sim/README.md, "Add a mechanism"). Private to the
// simulator.
//
// Order matters and is fixed here: it orders their timers within an instant (host.h) and the
// decision mechanisms' hooks within a decision (decision_mechanism.h).
//   checkpoints  periodic saves                      any decider
//   failures     node failures (generated, replayed)  any decider
//   preemption   rounds, priority evictions           the built-in decider
//   elastic      shrink for the head, grow when idle  the built-in decider
//   migration    make room, compact                   the built-in decider
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/mechanism.h"
#include "clustersim/simulator.h"
#include "decider/decision_mechanism.h"

namespace clustersim::internal {

struct Mechanisms {
  std::vector<std::unique_ptr<Mechanism>> owned;
  std::vector<Mechanism*> any_decider;               // act with any decider
  std::vector<DecisionMechanism*> built_in_decider;  // plug into the built-in decider
};

// The mechanisms `options` turn on, given whether a job of the workload has its own periodic
// checkpoint interval (its spec's checkpoint_interval_s).
Mechanisms make_mechanisms(const SimOptions& options, bool any_job_checkpoint_interval);

}  // namespace clustersim::internal
