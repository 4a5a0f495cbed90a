// Power, energy, carbon and supply ([power], [supply]; sim/README.md, "Power, energy and
// carbon"). Off by default: a run without `power.enabled` builds nothing of this and gives the
// same results, bit for bit, as before.
//
// The model (piecewise constant between events; the meter integrates it exactly):
//   a GPU's board power  P(u) = idle_w + (peak_w - idle_w) x u
//     u = 0 for an idle GPU, u = `power.intensity` for a GPU a job holds (in any phase:
//     running, saving or restoring); a share of a GPU (GPU sharing, MIG) holds that fraction
//     of the GPU's dynamic power (peak_w - idle_w) x u;
//   a node's IT power     node_base_w + sum over its GPUs of P(u)
//   the facility's power  pue x sum over nodes of the IT power.
// A job's power is what it holds: per GPU (or fraction of one) P(intensity) plus the node's
// base power per GPU (node_base_w / the node's GPUs), times pue: a job filling a node owns the
// node's whole power; idle GPUs and the base of idle GPUs are the cluster's, not a job's.
//
// Supply: per step of the traces (an hour of carbon intensity, 30 minutes of irradiance), solar
// serves the load first, its surplus charges the battery (limits: charge_w, capacity), the rest
// is curtailed; a deficit is met by the battery (discharge_w, its charge), then the grid (up to
// grid_cap_w); what is left is unserved (the load ran anyway: shedding is a policy's).
// Round-trip losses are taken on charging: 1 kWh in stores battery_efficiency kWh.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clustersim {

// A GPU type's board power, W.
struct GpuPower {
  double idle_w = 0.0;
  double peak_w = 0.0;
};

// Vendor figures for a GPU type name (matched case-insensitively on its model: "A100-80GB" is an
// A100): peak = board TDP (A100 400 W SXM, H100 700 W SXM, V100 300 W, P100 250 W, K80 150 W per
// GPU of a 300 W board, T4 70 W, ...); idle = measured idle board power where known (AcmeTrace's
// A100s idle at ~56-60 W), else ~10-15% of TDP. nullopt for a type it does not know.
std::optional<GpuPower> vendor_gpu_power(std::string_view gpu_type);

struct PowerOptions {
  bool enabled = false;
  // Per GPU type (the cluster's names): overrides of the vendor figures, W.
  std::vector<std::pair<std::string, double>> gpu_idle_w;
  std::vector<std::pair<std::string, double>> gpu_peak_w;
  // Figures for a type neither the overrides nor the vendor table know (an A100's).
  GpuPower unknown_type{60.0, 400.0};
  double intensity = 1.0;  // u of a GPU a job holds, in [0, 1]
  // A node's base power (CPUs, memory, fans, NICs), W; unset: 200 W per GPU of the node (an
  // 8-GPU A100 server: 1.6 kW, AcmeTrace's GPU servers' p50 2.5 kW less GPUs near 100 W).
  std::optional<double> node_base_w;
  double pue = 1.2;  // facility power / IT power
  // Power caps (off without a row): per GPU type, the board power limit, W (nvidia-smi -pl). A
  // GPU whose draw idle + (peak - idle) x u exceeds its cap draws the cap and runs slower:
  //   speed = ((cap - idle) / (draw - idle)) ^ exponent
  // (the clock falls until the power above idle fits; exponent per type, gpu_cap_exponent,
  // default kDefaultCapExponent). A job runs at the speed of its slowest GPU.
  std::vector<std::pair<std::string, double>> gpu_cap_w;
  std::vector<std::pair<std::string, double>> gpu_cap_exponent;
  // Speed ~ (power above idle)^0.5: an assumption between DVFS's cubic power law (exponent 1/3)
  // and a linear one (1), checked against two published points (sim/README.md, "Power caps"):
  // an H100 at 600 of 700 W loses 10-15% of pretraining throughput (5-8% memory-bound inference;
  // this curve: 8.3%); V100s capped at 150 of 250 W trained NLP models with 13.7% less energy
  // (McDonald et al. 2022, arXiv:2205.09646; this curve, at a 200 W uncapped draw: 9.5%).
  static constexpr double kDefaultCapExponent = 0.5;
  // Idle nodes powered off (mechanism idle_power_off; off while idle_off_after_s is unset): a
  // node on which nothing has run for idle_off_after_s seconds is switched off (taken out of
  // the ledger) and draws standby_w_per_node instead of its base and its GPUs' idle power; when
  // the queue's head waits and the idle nodes left cannot hold it, off nodes are switched on,
  // and each boots for boot_s (unavailable, drawing its base and idle power) before it runs.
  std::optional<double> idle_off_after_s;
  double boot_s = 300.0;
  double standby_w_per_node = 20.0;
};

// A series sampled every `step_s` seconds (held constant over each step), repeated when the
// run outlives it.
struct StepSeries {
  double step_s = 3600.0;
  std::vector<double> values;
  // Trace time of values[0] relative to the run's clock origin, seconds (the traces' own time
  // zone offset folded in).
  double origin_s = 0.0;
  bool empty() const { return values.empty(); }
};

// A job's value, deadline and whether it may be deferred (a side table of [supply] job_values,
// keyed by job id: not JobSpec fields). A job without a row: value 0, no deadline, deferrable.
struct JobValue {
  std::string job_id;
  double value = 0.0;
  double deadline_s = 0.0;  // from its submission; 0: none
  bool deferrable = true;
};

struct SupplyOptions {
  // Grid carbon intensity, gCO2e/kWh: a trace (Electricity Maps hourly CSV) or a constant.
  std::string carbon_trace;
  std::string carbon_column = "direct";  // "direct" or "lca"
  double carbon_g_per_kwh = 0.0;         // without a trace
  StepSeries carbon;                     // read from carbon_trace
  // Hours into the traces (from their first row, UTC midnight of 1 January) at the run's time 0.
  double start_h = 0.0;
  std::optional<double> grid_cap_w;  // unset: unlimited
  // On-site solar: an NSRDB PSM4 CSV (GHI, W/m2); capacity at 1000 W/m2, and a derate
  // (inverter, wiring, soiling, temperature): output = GHI / 1000 x capacity x derate.
  std::string solar_trace;
  double solar_capacity_w = 0.0;
  double solar_derate = 0.85;
  StepSeries ghi;  // read from solar_trace
  // Battery (0 kWh: none).
  double battery_kwh = 0.0;
  double battery_charge_w = 0.0;     // 0: unlimited
  double battery_discharge_w = 0.0;  // 0: unlimited
  double battery_efficiency = 0.9;   // round trip
  double battery_initial_soc = 0.0;  // fraction of the capacity at the start
  // Capacity follows supply (mechanism supply_following): at each step of the solar trace the
  // GPUs the budget (solar + grid_cap_w) cannot power at full use are held out of the ledger,
  // running jobs stopped (deferrable first, lowest value density first) to free them; when the
  // budget rises they are given back and the paused jobs resume.
  bool follow = false;
  // With follow: the lowest fraction of a GPU's power above idle that follow caps GPUs to
  // before it holds GPUs or pauses jobs (1: it never caps). Between the budget of every GPU busy
  // and that of every GPU at this fraction, every GPU's power above idle is scaled by the one
  // fraction that fits the budget (speed: fraction ^ exponent); below it, GPUs run at this
  // fraction and are held and jobs paused as without caps; on a rise, held GPUs are given back
  // first, then the caps lifted.
  double follow_cap_floor = 1.0;
  std::string job_values;        // CSV job_id,value[,deadline_s][,deferrable]
  std::vector<JobValue> values;  // read from job_values
  // Carbon-aware deferral (mechanism carbon_deferral): deferrable jobs wait at arrival, within
  // their slack (deadline less duration, at most defer_max_h), for the first time the grid's
  // intensity is at most defer_below_g_per_kwh (kBelow), or for the start with the least mean
  // intensity over their run (kLowest).
  enum class Defer : std::uint8_t { kOff, kBelow, kLowest };
  Defer defer = Defer::kOff;
  double defer_below_g_per_kwh = 0.0;
  double defer_max_h = 24.0;
  bool has_solar() const { return !ghi.empty() && solar_capacity_w > 0.0; }
};

// The supply as a run sees it now ([power] on; Simulation::supply_state): for a learned
// scheduler's observation.
struct SupplyState {
  double facility_w = 0.0;   // the facility's power now, PUE included
  double solar_w = 0.0;      // solar output now (0 without solar)
  double grid_cap_w = -1.0;  // the grid's cap (-1: unlimited)
  double battery_kwh = 0.0;  // stored now
  double battery_capacity_kwh = 0.0;
  double carbon_g_per_kwh = 0.0;  // the grid's intensity now
  double cap_level = 1.0;         // supply following's cap level (power.h, follow_cap_floor)
};

// Solar output (W) and the grid's carbon intensity (gCO2e/kWh) at run time `t` from the traces
// (constant within each step; what a forecast from the traces would say).
double solar_w_at(const SupplyOptions& supply, double t);
double carbon_g_per_kwh_at(const SupplyOptions& supply, double t);

}  // namespace clustersim
