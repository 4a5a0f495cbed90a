#include "metrics/supply.h"

#include <algorithm>

namespace clustersim::internal {

Supply::Supply(const SupplyOptions& options)
    : capacity_j_(options.battery_kwh * 3.6e6),
      charge_limit_w_(options.battery_charge_w > 0.0 ? options.battery_charge_w : kUnlimited),
      discharge_limit_w_(options.battery_discharge_w > 0.0 ? options.battery_discharge_w
                                                           : kUnlimited),
      efficiency_(options.battery_efficiency),
      grid_cap_w_(options.grid_cap_w ? *options.grid_cap_w : kUnlimited),
      stored_j_(options.battery_initial_soc * options.battery_kwh * 3.6e6) {}

double Supply::grid_w(double load_w, double solar_w) const {
  const double deficit = load_w - std::min(solar_w, load_w);
  const double discharge = stored_j_ > 0.0 ? std::min(deficit, discharge_limit_w_) : 0.0;
  return std::min(deficit - discharge, grid_cap_w_);
}

void Supply::run(double load_w, double solar_w, double carbon_g_per_kwh, double seconds,
                 SupplyTotals& totals) {
  const double to_load = std::min(solar_w, load_w);
  const double surplus = solar_w - to_load;
  const double deficit = load_w - to_load;
  totals.load_j += load_w * seconds;
  while (seconds > 0.0) {
    // Only one of surplus and deficit is positive: the battery charges or discharges, not both.
    const double charge = stored_j_ < capacity_j_ ? std::min(surplus, charge_limit_w_) : 0.0;
    const double discharge = stored_j_ > 0.0 ? std::min(deficit, discharge_limit_w_) : 0.0;
    const double net_w = efficiency_ * charge - discharge;  // into storage
    double step = seconds;
    bool hits_bound = false;
    if (net_w > 0.0 && (capacity_j_ - stored_j_) / net_w < step) {
      step = (capacity_j_ - stored_j_) / net_w;
      hits_bound = true;
    } else if (net_w < 0.0 && stored_j_ / -net_w < step) {
      step = stored_j_ / -net_w;
      hits_bound = true;
    }
    const double grid = std::min(deficit - discharge, grid_cap_w_);
    totals.grid_j += grid * step;
    totals.solar_used_j += (to_load + charge) * step;
    totals.curtailed_j += (surplus - charge) * step;
    totals.charge_j += charge * step;
    totals.discharge_j += discharge * step;
    totals.loss_j += (1.0 - efficiency_) * charge * step;
    totals.unserved_j += (deficit - discharge - grid) * step;
    totals.carbon_g += grid * step / 3.6e6 * carbon_g_per_kwh;
    if (load_w > 0.0) totals.carbon_per_load_w += carbon_g_per_kwh * (grid / load_w) * step;
    // At a bound, land on it exactly: the next pass then neither charges a full battery nor
    // drains an empty one.
    stored_j_ = hits_bound ? (net_w > 0.0 ? capacity_j_ : 0.0) : stored_j_ + net_w * step;
    seconds -= step;
  }
}

}  // namespace clustersim::internal
