// Periodic checkpoints ([mechanisms] checkpoint_interval_s or checkpoint_policy = "young_daly";
// a job's own checkpoint_interval_s wins): a mechanism (mechanism.h) that works with any
// decider. Private to the simulator.
//
// When a job begins running it schedules its next save, after `interval` of running since its
// last one (if that comes before the job would finish); when the timer fires and the job has not
// changed phase since (its epoch), a Plan::save pauses it for its checkpoint cost. A failure
// rolls a job back to its last save. With the Young-Daly policy a job's interval is
// sqrt(2 w / lambda): w its expected checkpoint cost, lambda the failures per second its
// placement sees (job_failure_rate_per_s), both as of when it begins running.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "clustersim/mechanism.h"
#include "clustersim/simulator.h"
#include "core/overheads.h"

namespace clustersim::internal {

// The interval that maximises a job's expected progress to first order (Young; Daly): save
// every sqrt(2 w / lambda) seconds of running for a save of w seconds and lambda failures a
// second; 0 (no periodic saves) where either is 0.
double young_daly_interval_s(double save_s, double failures_per_s);

// The failures per second a job on `gpus` GPUs over `nodes` nodes, `racks` racks and `leaves`
// leaf switches (-1: one per rack, as without [fabric] tiers) sees from the failure classes (per
// GPU, per node, per rack, per leaf, per running job-hour) and from mtbf_h (one per node every
// mtbf_h hours on average).
double job_failure_rate_per_s(const MechanismOptions& options, int gpus, int nodes, int racks,
                              int leaves = -1);

class Checkpoints final : public Mechanism {
 public:
  explicit Checkpoints(const SimOptions& options);

  // Whether any job saves periodically (else the mechanism is not needed): the option, or a job
  // of the workload's own interval (`any_job_interval`, which the engine's load finds).
  static bool needed(const SimOptions& options, bool any_job_interval) {
    return options.mechanisms.checkpoint_interval_s > 0.0 || any_job_interval ||
           options.mechanisms.checkpoint_policy == MechanismOptions::CheckpointPolicy::kYoungDaly;
  }

  std::string_view name() const override { return "checkpoints"; }
  void attach(Host& host) override;
  void start() override;
  void on_job_running(std::uint32_t job) override;
  void on_timer(const Timer& timer) override;

 private:
  double interval(std::uint32_t index, const JobState& job);

  const MechanismOptions& options_;
  const FabricOptions& fabric_;
  std::unique_ptr<OverheadModel> overheads_;  // the Young-Daly policy's checkpoint costs
  std::vector<int> racks_;                    // scratch: the racks of a job's nodes
  // With a leaf-switch class and [fabric] tiers: each node's leaf (else leaves are racks), and
  // scratch for a job's leaves.
  std::vector<std::uint32_t> leaf_of_, leaves_;
  Host* host_ = nullptr;
  TimerKind due_ = 0;
  Plan plan_;
};

}  // namespace clustersim::internal
