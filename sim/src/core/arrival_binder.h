// Where an arriving job may run, decided as it arrives: a fleet's router binds each job to one
// of its clusters (src/simulation/fleet.cc; sim/README.md, "Fleet") by setting the job's GPU type
// to a type of that cluster's partition (NodeGroupSpec::partition), so the node index, the
// placement and the waiting queue's buckets, all keyed by type already, keep it there. Outside
// a fleet there is none and the engine does nothing more per event.
#pragma once

#include "clustersim/job_state.h"

namespace clustersim::internal {

class ArrivalBinder {
 public:
  virtual ~ArrivalBinder() = default;
  // `job` arrives at `now` and is about to wait for the first time: set its gpu_type to a type
  // of the partition it is bound to (at load it is the largest type of its JobSpec's type name,
  // or -1 for any, only for the load's checks).
  virtual void bind(JobState& job, double now) = 0;
  // `job` finished (its GPUs are back): what a live load counts.
  virtual void on_finished(const JobState& job) = 0;
};

}  // namespace clustersim::internal
