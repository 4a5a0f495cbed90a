// The decider of Gavel's policy family (time_share.h: allocations over jobs x GPU types), for
// [scheduler] policy = max_min_fairness, ..., fifo_perf. Private to the simulator; Simulation
// installs it instead of the built-in decider for those policies.
//
// Why a decider of its own rather than a stage of the built-in one: the built-in decider orders
// jobs by per-job keys and starts each one the moment it fits; Gavel's policies are a joint
// allocation of time fractions over every active job and type, realised by a round mechanism in
// which freed GPUs and new arrivals wait for the round's end. Neither is a key order, and the
// round's waiting contradicts the built-in pass. It reuses the placement stage (placement within
// the chosen type) and the engine's plans; mechanisms for any decider (failures, periodic
// checkpoints) still apply, the built-in decider's (preemption rounds, migration, elastic) do not.
//
// rounds = "gavel" (Gavel's scheduler.py, simulated): rounds of lease_s. At a round's start the
// allocation is recomputed if jobs came or went since and allocation_reset_s have passed since
// the last reset (or none happened yet); per type, jobs are ranked by priority = allocation /
// the fraction of the type's time they received since the reset (allocation x 1e9 before any),
// then deficit, then allocation; types are walked in the cluster's order ("fixed") or shuffled
// per round ("shuffle"; Gavel shuffles for its heterogeneity-agnostic policies), and each job
// is given the first type where it ranks and its GPUs fit. Each scheduled job runs a micro-task
// of min(floor(steps/s x lease_s), its remaining steps) whole steps, then stops; the round ends
// when the last micro-task does; jobs that arrive meanwhile, and GPUs freed early, wait for it.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "clustersim/decider.h"
#include "clustersim/time_share.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

class TimeShareDecider final : public Decider, public TimerClient {
 public:
  TimeShareDecider(const SimOptions& options, PlacementStage& placement);

  void attach(Host& host) override;
  void jobs_added() override;
  void on_arrival(std::uint32_t job) override { arrived_.push_back(job); }
  void on_finished(std::uint32_t job) override;
  void decide(const DecisionPoint& point) override;
  void on_timer(const Timer& timer) override;  // a micro-task's end: the job stops
  std::optional<std::uint32_t> head_of_queue() const override;

 private:
  const View& view() const { return *view_; }
  void reset_time_run(Time now);
  void compute_allocation();
  bool start_round(Time now);  // false when it scheduled nothing

  const SimOptions& options_;
  PlacementStage& placement_;
  Host* host_ = nullptr;
  const View* view_ = nullptr;
  TimerKind stop_timer_ = 0;
  int types_ = 0;
  bool perf_ = false, fifo_ = false, shuffle_ = false;
  std::mt19937_64 shuffler_;

  std::vector<std::uint32_t> arrived_;  // arrived, not yet added (they wait for a round's end)
  std::vector<std::uint32_t> active_;   // added and not finished, in order of addition
  std::vector<std::uint8_t> is_active_;
  std::vector<std::uint32_t> last_ran_;  // by job: the last round it ran a micro-task in
  std::size_t arrivals_seen_ = 0, jobs_expected_ = 0;
  // By (job, type): allocation, time run since the last reset (lease/2 at a reset, as Gavel
  // starts it), deficit; by type: time run since the last reset.
  std::vector<double> allocation_, job_time_, deficit_;
  std::vector<std::uint8_t> allocated_;  // the job is in the current allocation
  std::vector<double> type_time_;
  Time last_reset_ = 0.0;
  bool need_update_ = false;
  std::uint32_t round_ = 0;
  bool last_round_empty_ = true;
  // Micro-tasks of the round in progress: job, type, length.
  struct Task {
    std::uint32_t job;
    int type;
    double seconds;
  };
  std::vector<Task> tasks_;
  std::vector<NodeShare> shares_;
  Plan plan_;
};

}  // namespace clustersim::internal
