// The mechanisms a run's options turn on, built in one place from their descriptors
// (clustersim/component.h). Adding a mechanism: its own files here, its descriptor in
// sim/src/components/components.cc, and its keys (sim/README.md, "Add a mechanism"); a program
// or a test may register one of its own (ComponentRegistrar: it acts under any decider).
//
// Order matters and is the descriptor table's: it orders their timers within an instant (host.h)
// and the decision mechanisms' hooks within a decision (decision_mechanism.h).
//   checkpoints  periodic saves                      any decider
//   failures     node failures (generated, replayed)  any decider
//   preemption   rounds, priority evictions           the built-in decider
//   elastic      shrink for the head, grow when idle  the built-in decider
//   migration    make room, compact                   the built-in decider
//   upgrade_type move to a faster GPU type            the built-in decider
//   (registered) a program's or a test's own          any decider
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
