// The mechanisms a run's options turn on, built in one place from their descriptors
// (clustersim/component.h). Adding a mechanism: its own files here, its descriptor in
// sim/src/components/components.cc, and its keys (sim/README.md, "Add a mechanism"); a program
// or a test may register one of its own (ComponentRegistrar: it acts under any decider).
//
// Order matters and is the descriptor table's: it orders their timers within an instant (host.h)
// and the decision mechanisms' hooks within a decision (decision_mechanism.h).
//   checkpoints       periodic saves                           any decider
//   failures          node failures (generated, replayed)      any decider
//   failure_classes   failures by class, domain, spares        any decider
//   availability      nodes unavailable in windows (a trace)   any decider
//   supply_following  hold GPUs the supply cannot power, shed  any decider
//   preemption        rounds, priority evictions               any decider but Gavel's (*)
//   elastic           shrink for the head, grow when idle      any decider but Gavel's (*)
//   migration         make room, compact                       any decider but Gavel's (*)
//   upgrade_type      move to a faster GPU type                any decider but Gavel's (*)
//   idle_power_off    switch idle nodes off, boot for the head any decider but Gavel's (*)
//   carbon_deferral   hold deferrable jobs for low carbon      the built-in decider (a gate)
//   (registered)      a program's or a test's own              any decider
// (*) decision mechanisms (decision_mechanism.h): hooked into the built-in decider, or around a
// user's decisions (decision_hooks.h).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "clustersim/component.h"
#include "clustersim/job.h"
#include "clustersim/mechanism.h"
#include "clustersim/simulator.h"
#include "decider/decision_mechanism.h"

namespace clustersim::internal {

struct Mechanisms {
  std::vector<std::unique_ptr<Mechanism>> owned;
  std::vector<Mechanism*> any_decider;               // act with any decider
  std::vector<DecisionMechanism*> built_in_decider;  // hooked into decisions (*)
};

// The mechanisms `options` turn on, given whether a job of the workload has its own periodic
// checkpoint interval (its spec's checkpoint_interval_s) and whether the decisions are a user's.
Mechanisms make_mechanisms(const SimOptions& options, const MechanismContext& context);

}  // namespace clustersim::internal
