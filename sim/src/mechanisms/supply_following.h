// Capacity that follows supply ([supply] follow, with [power] on): a mechanism (mechanism.h)
// that works with any decider. Private to the simulator.
//
// At the run's first event and at every step of the solar trace it takes the budget, solar
// output + grid_cap_w (the battery is not counted: it covers what the meter finds short within a
// step), and holds out of the ledger (Plan::hold_gpus) as many GPUs as the budget cannot power at
// full use: the facility's power with every GPU not held busy at `power.intensity` must stay
// within the budget. GPUs are held from free ones first, from the last node back; when too few
// are free, running jobs are stopped (Plan stops: each saves its checkpoint and waits again),
// deferrable ones first, each group from the lowest value density (value / (GPUs x duration)),
// until enough GPUs will be free; those are held as the jobs give them back. When the budget
// rises, held GPUs are given back (last held, first given), and the decider starts the waiting
// jobs, the paused ones among them, on them. Held GPUs idle (they draw idle power).
//
// With supply.follow_cap_floor below 1 it caps before it sheds: the GPUs not held are taken at
// that floor's power when it decides what to hold and whom to stop, and while nothing is held
// or saving, every GPU's power above idle is scaled (through the power meter, which re-rates
// the running jobs) by the one fraction in [floor, 1] that fits the budget.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "clustersim/mechanism.h"
#include "clustersim/power.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

class PowerMeter;

class SupplyFollowing final : public Mechanism {
 public:
  explicit SupplyFollowing(const SimOptions& options);
  // Caps act through the run's power meter (needed when supply.follow_cap_floor < 1).
  void cap_through(PowerMeter& meter) { meter_ = &meter; }
  bool caps() const { return options_.supply.follow_cap_floor < 1.0; }

  std::string_view name() const override { return "supply_following"; }
  void attach(Host& host) override;
  void start() override;
  void on_timer(const Timer& timer) override;
  void on_checkpointed(std::uint32_t job) override;
  bool endless() const override { return true; }
  void report(RunMetrics& metrics) const override { metrics.supply_sheds = sheds_; }

 private:
  // Holds or gives back GPUs so that what is not held fits the budget now; stops jobs when too
  // few GPUs are free.
  void follow();
  double budget_w() const;
  // Sets the meter's cap level; whether it changed (false without caps).
  bool cap_at(double level);

  const SimOptions& options_;
  Host* host_ = nullptr;
  PowerMeter* meter_ = nullptr;
  TimerKind step_ = 0;
  std::vector<double> dynamic_w_;  // by node: a busy GPU's power above idle, x PUE
  double static_w_ = 0.0;          // every node's base and GPUs' idle power, x PUE
  std::vector<int> held_;          // by node: GPUs held now
  // Jobs stopped and still saving, with the power their GPUs will no longer draw.
  std::vector<std::pair<std::uint32_t, double>> stopping_;
  std::vector<double> density_;       // by job: value / (GPUs x duration)
  std::vector<char> deferrable_;      // by job
  std::vector<std::uint32_t> order_;  // scratch: running jobs in shedding order
  std::uint64_t sheds_ = 0;
  Plan plan_;
};

}  // namespace clustersim::internal
