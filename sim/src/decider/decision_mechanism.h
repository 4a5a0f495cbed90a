// Mechanisms that plug into the built-in decider's decisions: preemption rounds, migration and
// elastic resizing (sim/src/mechanisms/, registered in registry.cc). They are Mechanisms (timers,
// plans through the host) with hooks that the decider calls at fixed points of every decision,
// in registry order:
//
//   before_pass   rounds and evictions: stop jobs so that others can start
//   make_room     during the pass, for a waiting job that has enough free GPUs of its type but
//                 not on the fewest nodes it needs: moves that make that room
//   after_pass    free GPUs for the queue's head (shrink elastic jobs, compact); the decider
//                 applies the plan and passes again
//   use_idle      nothing waits: put idle GPUs to use (grow elastic jobs)
//   after_decision  schedule its next timer; per-instant flags end here
// Private to the simulator.
#pragma once

#include <cstdint>

#include "clustersim/decider.h"
#include "clustersim/mechanism.h"
#include "clustersim/plan.h"

namespace clustersim::internal {

class DefaultDecider;

class DecisionMechanism : public Mechanism {
 public:
  // The hooks it implements: the decider calls only those (no call per decision for the others).
  enum Hook : unsigned {
    kOnArrival = 1,
    kBeforePass = 2,
    kMakeRoom = 4,
    kAfterPass = 8,
    kUseIdle = 16,
    kAfterDecision = 32,
  };
  virtual unsigned hooks() const = 0;
  // Once, after the decider is attached: the decider it plugs into.
  virtual void bind(DefaultDecider& decider) = 0;
  virtual void on_arrival(std::uint32_t job) { (void)job; }
  virtual void before_pass(const DecisionPoint& point) { (void)point; }
  virtual bool make_room(std::uint32_t job, Plan& plan) { return (void)job, (void)plan, false; }
  virtual bool after_pass(Plan& plan) { return (void)plan, false; }
  virtual bool use_idle(Plan& plan) { return (void)plan, false; }
  virtual void after_decision(Time now) { (void)now; }
};

}  // namespace clustersim::internal
