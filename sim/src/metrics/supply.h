// The supply's dispatch over one stretch of constant load, solar output and carbon intensity
// (power.h states the rule): solar to the load, its surplus to the battery, the rest curtailed; a
// deficit from the battery, then the grid up to its cap, the rest unserved. The stretch is cut
// where the battery fills or empties, so every quantity is exact for piecewise-constant inputs.
// Private to the simulator.
#pragma once

#include <limits>

#include "clustersim/power.h"

namespace clustersim::internal {

// Energies in joules; carbon in grams.
struct SupplyTotals {
  double load_j = 0.0;        // what the load drew (served or not)
  double grid_j = 0.0;        // from the grid
  double solar_used_j = 0.0;  // solar to the load or into the battery
  double curtailed_j = 0.0;
  double charge_j = 0.0;     // into the battery (before losses)
  double discharge_j = 0.0;  // out of the battery
  double loss_j = 0.0;       // charging losses: (1 - efficiency) x charge_j
  double unserved_j = 0.0;
  double carbon_g = 0.0;  // grid_j x intensity
  // Integral of intensity x (grid power / load) dt, g/kWh x s: a load of P watts over a stretch
  // is charged P x (its change) / 3.6e6 grams (the grid's share of each joule, at its intensity).
  double carbon_per_load_w = 0.0;
};

class Supply {
 public:
  explicit Supply(const SupplyOptions& options);

  // `seconds` of a load of `load_w` with solar output `solar_w` and grid intensity
  // `carbon_g_per_kwh`, added to `totals`.
  void run(double load_w, double solar_w, double carbon_g_per_kwh, double seconds,
           SupplyTotals& totals);
  // What the grid and battery give a load of `load_w` at solar output `solar_w` now (the
  // stretch's first instant; for time series).
  double grid_w(double load_w, double solar_w) const;
  double stored_j() const { return stored_j_; }

 private:
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();
  double capacity_j_;
  double charge_limit_w_;
  double discharge_limit_w_;
  double efficiency_;
  double grid_cap_w_;
  double stored_j_;
};

}  // namespace clustersim::internal
