// Mechanisms that plug into decisions: preemption rounds, migration and elastic resizing
// (sim/src/mechanisms/, registered in registry.cc). They are Mechanisms (timers, plans through
// the host) with hooks called at fixed points of every decision, in registry order, by the
// built-in decider (default_decider.h) or, around any other decider, by DecisionHooks
// (decision_hooks.h):
//
//   before_pass   rounds and evictions: stop jobs so that others can start
//   make_room     for a waiting job that has enough free GPUs of its type but not on the fewest
//                 nodes it needs: moves that make that room (the built-in decider: during its
//                 pass, for each such job; around another decider: for the queue's head, before
//                 it decides)
//   after_pass    free GPUs for the queue's head (shrink elastic jobs, compact); the plan is
//                 applied and the decider decides again at the same instant
//   use_idle      nothing waits: put idle GPUs to use (grow elastic jobs)
//   after_decision  schedule its next timer; per-instant flags end here
// What they read and do goes through DecisionStages (decision_stages.h), never the decider.
// Private to the simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/decider.h"
#include "clustersim/mechanism.h"
#include "clustersim/plan.h"
#include "decider/decision_stages.h"

namespace clustersim::internal {

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
    kGate = 64,
  };
  virtual unsigned hooks() const = 0;
  // Once, after the decision it plugs into is attached: what it reads and does.
  virtual void bind(DecisionStages& stages) = 0;
  virtual void on_arrival(std::uint32_t job) { (void)job; }
  virtual void before_pass(const DecisionPoint& point) { (void)point; }
  virtual bool make_room(std::uint32_t job, Plan& plan) { return (void)job, (void)plan, false; }
  virtual bool after_pass(Plan& plan) { return (void)plan, false; }
  virtual bool use_idle(Plan& plan) { return (void)plan, false; }
  virtual void after_decision(Time now) { (void)now; }
  // kGate: whether a waiting job may start now (the built-in decider passes over one that may
  // not, without it blocking the jobs behind it). A gate that holds jobs back schedules a timer
  // for when it lets them go, and says so while it has one pending (expects_wakeup).
  virtual bool may_start(std::uint32_t job, Time now) const { return (void)job, (void)now, true; }
  virtual bool expects_wakeup() const { return false; }
};

// The mechanisms implementing each hook, in registry order: a decision calls only those.
struct DecisionHookLists {
  explicit DecisionHookLists(const std::vector<DecisionMechanism*>& mechanisms) {
    for (DecisionMechanism* mechanism : mechanisms) {
      const unsigned hooks = mechanism->hooks();
      const auto add = [&](unsigned hook, std::vector<DecisionMechanism*>& list) {
        if (hooks & hook) list.push_back(mechanism);
      };
      add(DecisionMechanism::kOnArrival, on_arrival);
      add(DecisionMechanism::kBeforePass, before_pass);
      add(DecisionMechanism::kMakeRoom, room_makers);
      add(DecisionMechanism::kAfterPass, after_pass);
      add(DecisionMechanism::kUseIdle, use_idle);
      add(DecisionMechanism::kAfterDecision, after_decision);
      add(DecisionMechanism::kGate, gates);
    }
  }
  std::vector<DecisionMechanism*> on_arrival, before_pass, room_makers, after_pass, use_idle,
      after_decision, gates;
};

}  // namespace clustersim::internal
