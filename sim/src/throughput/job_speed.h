// A job's progress rate for what it holds: the throughput model's rate (placement penalties,
// profiles), scaled for an elastic job holding another GPU count than it asked for (its
// speed-up curve: Amdahl's law with [mechanisms] parallel_fraction, or a per-model
// [mechanisms.scaling] table). Private to the simulator; the engine asks it for every rate.
#pragma once

#include "clustersim/mechanisms.h"
#include "clustersim/throughput_model.h"

namespace clustersim::internal {

class JobSpeed {
 public:
  JobSpeed(const ThroughputModel& model, const MechanismOptions& mechanisms)
      : model_(model), mechanisms_(mechanisms) {}
  const ThroughputModel& model() const { return model_; }

  // The rate of `job` holding `allocation` (`resolved`: the model's lookup for its GPU type;
  // `requested_gpus`: job.num_gpus, passed so that the common case reads no more of the spec).
  double rate(const JobSpec& job, int requested_gpus, const void* resolved,
              const Allocation& allocation) const {
    const double rate = model_.rate(job, resolved, allocation);
    return allocation.gpus == requested_gpus ? rate : rate * scaling_factor(job, allocation.gpus);
  }

  // The rate factor of an elastic job holding `gpus` GPUs (1 at its requested count):
  // speedup(gpus) / speedup(requested).
  double scaling_factor(const JobSpec& job, int gpus) const;

 private:
  const ThroughputModel& model_;
  const MechanismOptions& mechanisms_;
};

}  // namespace clustersim::internal
