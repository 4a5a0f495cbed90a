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
#include <optional>
#include <span>
#include <string>
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
// A busy GPU of `type`'s power above idle under its cap (power.gpu_cap_w), W: nullopt when no
// cap binds (it draws idle + (peak - idle) x intensity). Throws for a cap at or below idle.
std::optional<double> capped_dynamic_w(const PowerOptions& options, const std::string& type,
                                       const GpuPower& gpu);
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
  void take_affected(std::vector<std::uint32_t>& out) override;
  void on_sample(Time now) override;
  void conclude(RunResult& result) override;
  void report(std::span<JobRecord> records, RunMetrics& metrics) const override;

  // Caps (power.h): the fraction of every busy GPU's power above idle (under its own cap) that
  // it may draw, as supply following sets it (1: uncapped); a change re-rates every holder.
  void set_cap_level(double level);
  double cap_level() const { return level_; }
  // A node switched off (idle_power_off) draws power.standby_w_per_node instead of its base and
  // its GPUs' idle power; switched on (booting, then up) it draws them again. Integrates up to
  // now first.
  void set_node_off(std::uint32_t node, bool off);
  // Facility power now, W (PUE included).
  double facility_w() const { return power_.pue * (static_w_ + dynamic_w_); }
  const SupplyTotals& totals() const { return totals_; }
  // Integrates up to `now` (once metering has begun, at the first change of holdings): for a
  // reading of the battery between changes. Splitting a stretch moves sums by an ulp at most.
  void advance_to(Time now) {
    if (started_) advance(now);
  }
  // Energy stored in the battery, J, as of the last integration.
  double stored_j() const { return dispatch_.stored_j(); }

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
  std::vector<GpuPower> gpu_power_;  // by GPU type
  // By GPU type: a busy GPU's power above idle is dynamic_unit_ x dynamic_use_ (peak - idle and
  // intensity, or cap - idle and 1 when its cap binds); its speed under its own cap, the
  // exponent of its curve, and its speed now (the cap level's factor included).
  std::vector<double> dynamic_unit_, dynamic_use_, capped_speed_, cap_exponent_, speed_;
  bool caps_ = false;  // a cap can act: factor() returns the speed, not 1
  double level_ = 1.0;
  bool level_changed_ = false;
  std::vector<double> base_per_gpu_w_;  // by node
  std::vector<double> node_static_w_;   // by node: its base and its GPUs' idle power
  std::vector<char> node_off_;          // by node: switched off (empty until one is)
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
