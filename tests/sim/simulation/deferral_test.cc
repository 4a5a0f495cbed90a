// Carbon-aware deferral ([supply] defer; mechanisms/carbon_deferral.h): start times and carbon
// of small runs worked out by hand, against the same runs without deferral.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "clustersim/power.h"
#include "clustersim/simulation.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// One GPU drawing 1 kW busy and nothing idle (no node base, PUE 1), so a job's carbon is its
// hours x the intensity it ran at. The grid's intensity by hour: 400, 300, 100, 200, 50, 500 g
// per kWh (then again). Jobs: a (1 h, deferrable, deadline 5 h), b (0.5 h, not deferrable), both
// at 0; c (1 h, deferrable, deadline 3 h) at 0.5 h.
SimOptions hourly_grid(SupplyOptions::Defer defer) {
  SimOptions options = testing::small_cluster(1, 1);
  options.power.enabled = true;
  options.power.unknown_type = {0.0, 1000.0};
  options.power.node_base_w = 0.0;
  options.power.pue = 1.0;
  options.supply.carbon.step_s = 3600.0;
  options.supply.carbon.values = {400, 300, 100, 200, 50, 500};
  options.supply.values = {
      {"a", 1.0, 5 * 3600.0, true}, {"b", 1.0, 0.0, false}, {"c", 1.0, 3 * 3600.0, true}};
  options.supply.defer = defer;
  return options;
}

std::vector<JobSpec> three_jobs() {
  return {job("a", 0, 1, 3600), job("b", 0, 1, 1800), job("c", 1800, 1, 3600)};
}

// Without deferral (FIFO): a 0..1 h at 400; b 1..1.5 h at 300; c 1.5..2.5 h: half at 300, half
// at 100. Carbon 400 + 150 + 150 + 50 = 750 g.
TEST(CarbonDeferral, OffRunsInArrivalOrder) {
  const RunResult result = simulate(hourly_grid(SupplyOptions::Defer::kOff), three_jobs());
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 0);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 3600);
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 5400);
  EXPECT_NEAR(result.metrics.carbon_kg, 0.750, 1e-12);
  EXPECT_EQ(result.metrics.deferred_jobs, 0u);
}

// lowest: a may start until 5 h - 1 h = 4 h; its mean intensity starting at 0, 1, 2, 3, 4 h is
// 400, 300, 100, 200, 50: it starts at 4 h. c (at 0.5 h) may start until 0.5 + 3 - 1 = 2.5 h:
// starting at 0.5 h its mean is (400 + 300) / 2 = 350, at 1 h 300, at 2 h 100: it starts at
// 2 h. b is not held, and a held job blocks nobody: b runs 0..0.5 h. Carbon: b 0.5 x 400,
// c 100, a 50 = 350 g.
TEST(CarbonDeferral, LowestStartsEachJobAtItsLowestCarbonWindow) {
  const RunResult result = simulate(hourly_grid(SupplyOptions::Defer::kLowest), three_jobs());
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 4 * 3600);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 5 * 3600);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 0);
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 2 * 3600);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 3 * 3600);
  EXPECT_NEAR(result.metrics.carbon_kg, 0.350, 1e-12);
  EXPECT_EQ(result.metrics.deferred_jobs, 2u);
  EXPECT_EQ(result.metrics.deadline_misses, 0u);
  EXPECT_DOUBLE_EQ(result.metrics.value_obtained, 3.0);
}

// below 150 g/kWh: a waits for the first hour at most 150 within its slack: 2 h; so does c
// (from 0.5 h: 400, 300, then 100 at 2 h <= 2.5 h). One GPU: a (first in the queue) runs
// 2..3 h, c 3..4 h at 200, finishing 3.5 h after its arrival: past its 3 h deadline. Carbon:
// b 200, a 100, c 200 = 500 g.
TEST(CarbonDeferral, BelowWaitsForTheThresholdAndCanMissADeadline) {
  SimOptions options = hourly_grid(SupplyOptions::Defer::kBelow);
  options.supply.defer_below_g_per_kwh = 150.0;
  const RunResult result = simulate(options, three_jobs());
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 2 * 3600);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 0);
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 3 * 3600);
  EXPECT_NEAR(result.metrics.carbon_kg, 0.500, 1e-12);
  EXPECT_EQ(result.metrics.deferred_jobs, 2u);
  EXPECT_EQ(result.metrics.deadline_misses, 1u);
  EXPECT_DOUBLE_EQ(result.metrics.value_obtained, 2.0);
}

// A job with no slack (its deadline is its duration) and a job held at most defer_max_h.
TEST(CarbonDeferral, NoSlackNoWaitAndTheLongestWait) {
  SimOptions options = hourly_grid(SupplyOptions::Defer::kLowest);
  options.supply.values = {{"a", 1.0, 3600.0, true}};  // b, c: no row (deferrable, no deadline)
  options.supply.defer_max_h = 1.0;
  const RunResult result = simulate(options, three_jobs());
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 0);
  // b (0..0.5 h window: may start until 1 h): at 0 its mean is 400, at 1 h 300: 1 h, after a.
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 3600);
  // c (at 0.5 h, until 1.5 h): 350 at 0.5 h, 300 at 1 h: 1 h, but b holds the GPU until 1.5 h.
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 5400);
}

}  // namespace
}  // namespace clustersim
