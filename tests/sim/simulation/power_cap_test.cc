// Power caps ([power] gpu_cap_w, [supply] follow_cap_floor; clustersim/power.h): hand-computed
// times and energy of a capped job, and a budget drop that capping absorbs without pausing.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/power.h"
#include "clustersim/simulation.h"
#include "metered_cluster.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

double job_energy_kwh(const RunResult& result, std::size_t index) {
  for (const RunResult::Column& column : result.job_columns)
    if (column.name == "energy_kwh") return column.values.at(index);
  ADD_FAILURE() << "no energy_kwh column";
  return 0.0;
}

// One node of GPUs "generic": idle 50 W, peak 300 W, intensity 1 (a busy GPU draws 300 W,
// 250 W above idle), node base 100 W, PUE 1.
SimOptions capped_node(int gpus) { return testing::metered_cluster(1, gpus); }

TEST(PowerCap, ACappedJobRunsSlowerAndDrawsTheCap) {
  // Two GPUs; a 1-GPU job of 100 s. Uncapped: 100 s at 100 + 50 + 300 = 450 W: 45000 J; the
  // job's own power 300 + 100 / 2 = 350 W: 35000 J.
  SimOptions options = capped_node(2);
  const RunResult free = Simulation(options, {job("a", 0, 1, 100)}).run();
  EXPECT_DOUBLE_EQ(free.jobs[0].finish_time, 100.0);
  EXPECT_NEAR(free.metrics.energy_kwh, 45000.0 / 3.6e6, 1e-15);
  EXPECT_NEAR(job_energy_kwh(free, 0), 35000.0 / 3.6e6, 1e-15);

  // Capped at 112.5 W: 62.5 W above idle of the 250 it would draw, a quarter; speed
  // 0.25 ^ 0.5 = 0.5: it finishes at 200. Facility 200 + 62.5 = 262.5 W x 200 s = 52500 J; the
  // job's 112.5 + 50 = 162.5 W x 200 s = 32500 J.
  options.power.gpu_cap_w = {{"generic", 112.5}};
  const RunResult capped = Simulation(options, {job("a", 0, 1, 100)}).run();
  EXPECT_DOUBLE_EQ(capped.jobs[0].finish_time, 200.0);
  EXPECT_NEAR(capped.metrics.energy_kwh, 52500.0 / 3.6e6, 1e-15);
  EXPECT_NEAR(job_energy_kwh(capped, 0), 32500.0 / 3.6e6, 1e-15);

  // A linear curve (exponent 1): speed 0.25, 400 s.
  options.power.gpu_cap_exponent = {{"generic", 1.0}};
  EXPECT_DOUBLE_EQ(Simulation(options, {job("a", 0, 1, 100)}).run().jobs[0].finish_time, 400.0);

  // A cap above what the GPU draws changes nothing.
  options.power.gpu_cap_w = {{"generic", 300.0}};
  const RunResult loose = Simulation(options, {job("a", 0, 1, 100)}).run();
  EXPECT_EQ(loose.jobs[0].finish_time, free.jobs[0].finish_time);
  EXPECT_EQ(loose.metrics.energy_kwh, free.metrics.energy_kwh);

  // A cap at idle power could not run anything: refused.
  options.power.gpu_cap_w = {{"generic", 50.0}};
  EXPECT_THROW(Simulation(options, {job("a", 0, 1, 100)}).run(), std::invalid_argument);
}

// The follower's case (power_test.cc): four GPUs, static 300 W, 250 W a busy GPU; budget grid
// 300 W + solar 1000 W x GHI 1000, 500, 1000 on steps of 100 s: 1300, 800, 1300 W, then 1300.
// a (2 GPUs, value 1), b and c (1 GPU, values 10 and 5), 300 s each, start at 0.
SimOptions following_node(double cap_floor) {
  SimOptions options = capped_node(4);
  options.supply.grid_cap_w = 300.0;
  options.supply.ghi.step_s = 100.0;
  options.supply.ghi.values = {1000.0, 500.0, 1000.0, 1000.0, 1000.0, 1000.0};
  options.supply.solar_capacity_w = 1000.0;
  options.supply.solar_derate = 1.0;
  options.supply.follow = true;
  options.supply.follow_cap_floor = cap_floor;
  options.supply.values = {{"a", 1.0, 0.0, true}, {"b", 10.0, 0.0, true}, {"c", 5.0, 0.0, true}};
  return options;
}

std::vector<JobSpec> following_jobs() {
  return {job("a", 0, 2, 300), job("b", 0, 1, 300), job("c", 0, 1, 300)};
}

TEST(PowerCap, ABudgetDropThatCapsAbsorbPausesNothing) {
  // Floor 0.25: at 800 W every GPU fits at (800 - 300) / (4 x 250) = 0.5 of its power above
  // idle, speed sqrt(0.5); nothing is held or paused. Each job does 100 s of work on [0, 100),
  // 100 sqrt(0.5) on [100, 200), and its last 200 - 100 sqrt(0.5) from 200 on, uncapped again.
  const RunResult result = Simulation(following_node(0.25), following_jobs()).run();
  const double finish = 400.0 - 100.0 * std::sqrt(0.5);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(result.jobs[i].finish_time, finish, 1e-9) << i;
    EXPECT_EQ(result.jobs[i].preemptions, 0) << i;
  }
  EXPECT_EQ(result.metrics.supply_sheds, 0u);
  EXPECT_EQ(result.metrics.unserved_kwh, 0.0);
  // 1300 W on [0, 100), the budget 800 W on [100, 200), 1300 W to the end.
  const double joules = 1300.0 * 100.0 + 800.0 * 100.0 + 1300.0 * (finish - 200.0);
  EXPECT_NEAR(result.metrics.energy_kwh, joules / 3.6e6, 1e-12);
}

TEST(PowerCap, BelowTheFloorItCapsThenPausesAndARiseLiftsBoth) {
  // Floor 0.6: every GPU at 0.6 x 250 = 150 W above idle needs 300 + 600 = 900 W > 800. So the
  // GPUs run at the floor (speed sqrt(0.6)) and a, the lowest value density, is paused: 300 +
  // 2 x 150 = 600 W. At 200 a's GPUs come back and the caps lift (1300 W powers all at 1).
  // b, c: 100 + 100 sqrt(0.6) done by 200, finish at 400 - 100 sqrt(0.6); a resumes with 200 s
  // of work: 400.
  const RunResult result = Simulation(following_node(0.6), following_jobs()).run();
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 400.0);
  EXPECT_EQ(result.jobs[0].preemptions, 1);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_NEAR(result.jobs[i].finish_time, 400.0 - 100.0 * std::sqrt(0.6), 1e-9) << i;
    EXPECT_EQ(result.jobs[i].preemptions, 0) << i;
  }
  EXPECT_EQ(result.metrics.supply_sheds, 1u);
  EXPECT_EQ(result.metrics.unserved_kwh, 0.0);
}

}  // namespace
}  // namespace clustersim
