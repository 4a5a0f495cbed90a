// The supply's dispatch (metrics/supply.h): energy is conserved over a grid of solar sizes,
// batteries, efficiencies and grid caps, through stretches of varying load and solar output
// (relative error <= 1e-9), and a battery's charge and discharge with its efficiency, by hand.
#include "metrics/supply.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace clustersim::internal {
namespace {

TEST(Supply, BatteryChargeAndDischargeWithItsEfficiency) {
  // 1 kWh battery, round trip 0.81, limits 500 W in and out, empty. One hour of 2 kW solar
  // under a 1 kW load: 1 kW surplus, 500 W of it charged (405 W stored, 95 W lost), 500 W
  // curtailed; after 3600 s it holds 405 x 3600 = 1.458 MJ, below its 3.6 MJ.
  SupplyOptions options;
  options.battery_kwh = 1.0;
  options.battery_charge_w = 500.0;
  options.battery_discharge_w = 500.0;
  options.battery_efficiency = 0.81;
  Supply supply(options);
  SupplyTotals totals;
  supply.run(1000.0, 2000.0, 0.0, 3600.0, totals);
  EXPECT_NEAR(supply.stored_j(), 405.0 * 3600.0, 1e-6);
  EXPECT_NEAR(totals.loss_j, 95.0 * 3600.0, 1e-6);
  EXPECT_NEAR(totals.curtailed_j, 500.0 * 3600.0, 1e-6);
  EXPECT_NEAR(totals.grid_j, 0.0, 1e-9);
  // Then a night under 800 W: the battery gives 500 W (its limit) until its 1.458 MJ are gone
  // (2916 s), the grid the rest: 300 W for 2916 s, then 800 W for the 684 s left of the hour.
  supply.run(800.0, 0.0, 200.0, 3600.0, totals);
  EXPECT_NEAR(supply.stored_j(), 0.0, 1e-9);
  EXPECT_NEAR(totals.discharge_j, 405.0 * 3600.0, 1e-6);
  EXPECT_NEAR(totals.grid_j, 300.0 * 2916.0 + 800.0 * 684.0, 1e-6);
  EXPECT_NEAR(totals.carbon_g, totals.grid_j / 3.6e6 * 200.0, 1e-9);
}

TEST(Supply, EnergyIsConservedOverAGridOfSupplies) {
  // Loads and solar outputs over 200 stretches of 0 to 1 h (a fixed pseudo-random walk).
  for (double solar_scale : {0.0, 0.5, 1.5, 4.0})
    for (double battery_kwh : {0.0, 0.5, 20.0})
      for (double efficiency : {1.0, 0.85})
        for (double cap : {-1.0, 0.0, 600.0}) {
          SupplyOptions options;
          options.battery_kwh = battery_kwh;
          options.battery_charge_w = battery_kwh > 1.0 ? 0.0 : 700.0;
          options.battery_discharge_w = battery_kwh > 1.0 ? 0.0 : 400.0;
          options.battery_efficiency = efficiency;
          options.battery_initial_soc = 0.3;
          if (cap >= 0.0) options.grid_cap_w = cap;
          Supply supply(options);
          SupplyTotals totals;
          const double stored_at_start = supply.stored_j();
          std::uint64_t state = 12345;
          const auto next = [&] {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
          };
          for (int i = 0; i < 200; ++i) {
            const double load = 200.0 + 1000.0 * next();
            const double solar = solar_scale * 1000.0 * std::max(0.0, std::sin(i * 0.3)) * next();
            supply.run(load, solar, 300.0 * next(), 3600.0 * next(), totals);
          }
          const double sources =
              totals.grid_j + totals.solar_used_j + (stored_at_start - supply.stored_j());
          const double uses = totals.load_j - totals.unserved_j + totals.loss_j;
          // Relative to the load (an off-grid site without solar serves nothing: 0 = 0).
          EXPECT_NEAR(sources, uses, 1e-9 * totals.load_j)
              << solar_scale << " " << battery_kwh << " " << efficiency << " " << cap;
          EXPECT_GE(supply.stored_j(), 0.0);
          EXPECT_LE(supply.stored_j(), battery_kwh * 3.6e6 * (1.0 + 1e-12));
          EXPECT_GE(totals.unserved_j, -1e-6);
        }
}

}  // namespace
}  // namespace clustersim::internal
