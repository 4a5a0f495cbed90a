// What a simulation offers the deciders and mechanisms plugged into it (decider.h,
// mechanism.h): the read-only view, the one verb that changes state (apply a plan: jobs'
// changes and capacity changes), timers, and shorthands for one-change capacity plans.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "clustersim/plan.h"
#include "clustersim/view.h"

namespace clustersim {

// A plan that cannot be applied as it stands (a job named twice, in a phase it may not leave,
// GPUs that do not add up, resources that are not free, ...). Nothing of the plan was applied.
class PlanError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Where a timer fires among the events of one instant. Events at one instant run in this order:
// the engine's own job events (completions, ends of checkpoints and restores: resources come
// back first), then timers of phase kBeforeArrivals (they change what jobs hold, as a periodic
// save or a node failure does), then arrivals, then timers of phase kAfterArrivals (they ask for
// a decision: a preemption round, a planning boundary), then the decision. Within a phase,
// timers run in the order their kinds were registered, then by subject, then as scheduled.
enum class TimerPhase : std::uint8_t { kBeforeArrivals, kAfterArrivals };
using TimerKind = std::uint8_t;

struct Timer {
  Time time = 0.0;
  TimerKind kind = 0;
  std::uint32_t subject = 0;  // what it is about: a job, a node (its owner's choice)
  std::uint32_t tag = 0;      // more of its owner's data (e.g. the job's epoch when scheduled)
};

class TimerClient {
 public:
  virtual ~TimerClient() = default;
  virtual void on_timer(const Timer& timer) = 0;
};

class Host {
 public:
  virtual ~Host() = default;
  virtual const View& view() const = 0;
  // Checks the whole plan, then applies it at once (plan.h): later reads of the view see it.
  // Several plans may be applied at one decision point, each checked whole. A plan that cannot
  // be applied throws PlanError naming the job and why.
  virtual void apply(const Plan& plan) = 0;
  // Timers: one kind per purpose, registered before the run starts (the registration order
  // orders timers of one instant and phase); then scheduled at any time >= now.
  virtual TimerKind add_timer_kind(TimerClient& client, TimerPhase phase) = 0;
  virtual void schedule(Time time, TimerKind kind, std::uint32_t subject = 0,
                        std::uint32_t tag = 0) = 0;
  // Capacity, as one-change plans (plan.h, Plan::CapacityAction; apply() takes them too, beside
  // the jobs' changes, e.g. the jobs of a node failed and the node down at once): a node goes
  // down (the jobs on it must have left it) and comes back up, outages nesting; `gpus` free
  // whole GPUs of `node` are held outside jobs (a mixed run's serving pool: sim/README.md,
  // "Training and serving on one cluster") until given back. PlanError when the node is not
  // down (up), still hosts jobs (down), or the GPUs are not free (hold) or not held (release).
  virtual void node_down(std::uint32_t node) = 0;
  virtual void node_up(std::uint32_t node) = 0;
  virtual void hold_gpus(std::uint32_t node, int gpus) = 0;
  virtual void release_gpus(std::uint32_t node, int gpus) = 0;
};

}  // namespace clustersim
