// Periodic checkpoints ([mechanisms] checkpoint_interval_s; a job's own checkpoint_interval_s
// wins): a mechanism (mechanism.h) that works with any decider. Private to the simulator.
//
// When a job begins running it schedules its next save, after `interval` of running since its
// last one (if that comes before the job would finish); when the timer fires and the job has not
// changed phase since (its epoch), a Plan::save pauses it for its checkpoint cost. A failure
// rolls a job back to its last save.
#pragma once

#include <cstdint>

#include "clustersim/mechanism.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

class Checkpoints final : public Mechanism {
 public:
  explicit Checkpoints(const SimOptions& options) : options_(options.mechanisms) {}

  // Whether any job saves periodically (else the mechanism is not needed): the option, or a job
  // of the workload's own interval (`any_job_interval`, which the engine's load finds).
  static bool needed(const SimOptions& options, bool any_job_interval) {
    return options.mechanisms.checkpoint_interval_s > 0.0 || any_job_interval;
  }

  std::string_view name() const override { return "checkpoints"; }
  void attach(Host& host) override;
  void on_job_running(std::uint32_t job) override;
  void on_timer(const Timer& timer) override;

 private:
  double interval(const JobState& job) const {
    return job.spec->checkpoint_interval_s > 0.0 ? job.spec->checkpoint_interval_s
                                                 : options_.checkpoint_interval_s;
  }

  const MechanismOptions& options_;
  Host* host_ = nullptr;
  TimerKind due_ = 0;
  Plan plan_;
};

}  // namespace clustersim::internal
