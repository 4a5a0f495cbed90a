// Where an arriving job may run, decided as it arrives: a fleet's router binds each job to one
// of its clusters (src/simulation/fleet.cc; sim/README.md, "Fleet") by setting the job's GPU type
// to a type of that cluster's partition (NodeGroupSpec::partition), so the node index, the
// placement and the waiting queue's buckets, all keyed by type already, keep it there. Outside
// a fleet there is none and the engine does nothing more per event.
//
// A fleet's rebalancer moves a waiting job to another cluster later (WaitingJobs, below): the
// binder hands the run a decision mechanism of its own (its timers, and a gate holding a job
// while its state crosses a wide-area link), and the engine lets it rebind waiting jobs.
#pragma once

#include <cstdint>

#include "clustersim/job_state.h"

namespace clustersim::internal {

class DecisionMechanism;  // decider/decision_mechanism.h

// What the engine lets a fleet do to a job that waits.
class WaitingJobs {
 public:
  virtual ~WaitingJobs() = default;
  // `job` waits (JobPhase::kWaiting): it is bound to `gpu_type` from now on (a type of another
  // cluster's partition). The decider hears (Decider::on_rebound) and moves it to that type's
  // bucket; its next start, when it has a saved state, pays its restore as a migration
  // (OverheadKind::kMigration): the restore of a job that moved between clusters. std::logic_error
  // for a job that does not wait or an unknown type.
  virtual void rebind_waiting(std::uint32_t job, int gpu_type) = 0;
};

class ArrivalBinder {
 public:
  virtual ~ArrivalBinder() = default;
  // `job` arrives at `now` and is about to wait for the first time: set its gpu_type to a type
  // of the partition it is bound to (at load it is the largest type of its JobSpec's type name,
  // or -1 for any, only for the load's checks).
  virtual void bind(JobState& job, double now) = 0;
  // `job` finished (its GPUs are back): what a live load counts.
  virtual void on_finished(const JobState& job) = 0;
  // Once the engine is built: what the binder may do to waiting jobs (kept for the run).
  virtual void attach(WaitingJobs& jobs) { (void)jobs; }
  // A decision mechanism of the binder's own, hooked into the built-in decider (a fleet's
  // rebalancer), or none. Asked once per run, before the decider is built.
  virtual DecisionMechanism* decision_mechanism() { return nullptr; }
};

}  // namespace clustersim::internal
