// The power meter ([power] enabled; power.h states the model): an observer that joins the run as
// a rate model of factor 1 (it never changes a rate; x * 1.0 is x), because that seam tells it of
// every change of what jobs hold. Power is constant between those changes, so at each change it
// integrates the stretch since the last one exactly: the cluster's energy, the supply's dispatch
// (cut at the traces' steps) and the energy and carbon of each job that held something. It adds
// the columns energy_kwh and carbon_kg per job and power_w (with [supply] traces: solar_w, grid_w,
// battery_kwh) per sample. Private to the simulator.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "clustersim/job_state.h"
#include "clustersim/power.h"
#include "clustersim/rate_model.h"
#include "metrics/supply.h"

namespace clustersim::internal {

// The board power of each of the cluster's GPU types (overrides, then vendor figures, then the
// unknown type's), in the cluster's type order.
std::vector<GpuPower> gpu_power_by_type(const PowerOptions& options,
                                        const std::vector<std::string>& type_names);
// A node's base power, W: power.node_base_w, else 200 W per GPU.
double node_base_w(const PowerOptions& options, int gpus);
// For jobs [from, jobs.size()): the row of supply.values with each one's id (-1: none).
std::vector<std::int32_t> value_rows(const SupplyOptions& supply, std::span<const JobState> jobs,
                                     std::size_t from);
// A series' value at run time `t` (start_s: the run's time 0 on the trace's clock).
double series_at(const StepSeries& series, double start_s, double t);
// The first step boundary of `series` after run time `t` (infinity without a series).
double next_step(const StepSeries& series, double start_s, double t);

class PowerMeter final : public RateModel {
 public:
  PowerMeter(const PowerOptions& power, const SupplyOptions& supply);

  std::string_view name() const override { return "power"; }
  void attach(const View& view) override;
  void jobs_loaded(std::size_t from) override;
  double factor(std::uint32_t job) override;
  void on_released(std::uint32_t job) override;
  void on_sample(Time now) override;
  void conclude(RunResult& result) override;
  void report(std::span<JobRecord> records, RunMetrics& metrics) const override;

  // Facility power now, W (PUE included).
  double facility_w() const { return power_.pue * (static_w_ + dynamic_w_); }
  const SupplyTotals& totals() const { return totals_; }

 private:
  struct JobPower {
    double attributed_w = 0.0;  // IT power of what it holds, its share of node base included
    double dynamic_w = 0.0;     // above idle: what the cluster's power rises by while it holds
    Time since = 0.0;
    double carbon_mark = 0.0;  // totals_.carbon_per_load_w at `since`
    double energy_j = 0.0;
    double carbon_g = 0.0;
  };
  // Integrates the stretch from the last change to `now`.
  void advance(Time now);
  // Adds what `job` used since its last fold to its energy and carbon.
  void fold(JobPower& job);
  double solar_w(Time t) const;

  const PowerOptions& power_;
  const SupplyOptions& supply_;
  const View* view_ = nullptr;
  std::vector<GpuPower> gpu_power_;     // by GPU type
  std::vector<double> base_per_gpu_w_;  // by node
  double static_w_ = 0.0;               // every node's base and every GPU's idle power
  double dynamic_w_ = 0.0;              // the holders' power above idle
  double start_s_ = 0.0;                // the run's time 0 on the traces' clock
  bool started_ = false;
  Time last_ = 0.0;
  Supply dispatch_;
  SupplyTotals totals_;
  std::vector<JobPower> jobs_;
  std::vector<std::int32_t> value_row_;  // by job: its row of supply.values (-1: none)
  std::vector<double> sample_power_w_, sample_solar_w_, sample_grid_w_, sample_stored_kwh_;
};

}  // namespace clustersim::internal
