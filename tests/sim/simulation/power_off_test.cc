// Idle nodes powered off ([power] idle_off_after_s, boot_s, standby_w_per_node; mechanism
// idle_power_off): hand-computed energy of a node switched off, a job that waits for a boot,
// how many nodes a waiting head wakes, and nothing changed while the feature is off.
#include <gtest/gtest.h>

#include <vector>

#include "clustersim/power.h"
#include "clustersim/simulation.h"
#include "metered_cluster.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// Nodes of 2 GPUs "generic": idle 50 W, peak 300 W, intensity 1 (a busy GPU draws 250 W above
// idle), node base 100 W, PUE 1: an idle node draws 200 W, one switched off 20 W.
SimOptions switchable_nodes(int nodes) {
  SimOptions options = testing::metered_cluster(nodes, 2);
  options.power.standby_w_per_node = 20.0;
  options.power.boot_s = 60.0;
  return options;
}

TEST(PowerOff, AnIdleNodeSwitchedOffSavesIdleLessStandbyPower) {
  // Two nodes; one 2-GPU job of 1000 s fills node 0 from 0; node 1 is idle from 0. On: 200 +
  // 500 (node 0) + 200 (node 1) = 900 W for 1000 s. Switched off after 50 s idle, node 1 draws
  // 20 W instead of 200 on [50, 1000): (200 - 20) x 950 = 171000 J less.
  SimOptions options = switchable_nodes(2);
  const std::vector<JobSpec> jobs = {job("a", 0, 2, 1000)};
  const RunResult on = Simulation(options, jobs).run();
  EXPECT_NEAR(on.metrics.energy_kwh, 900.0 * 1000.0 / 3.6e6, 1e-12);
  options.power.idle_off_after_s = 50.0;
  const RunResult off = Simulation(options, jobs).run();
  EXPECT_DOUBLE_EQ(off.jobs[0].finish_time, 1000.0);
  EXPECT_NEAR(on.metrics.energy_kwh - off.metrics.energy_kwh, 180.0 * 950.0 / 3.6e6, 1e-12);
  EXPECT_NEAR(off.metrics.node_off_h, 950.0 / 3600.0, 1e-12);
  EXPECT_EQ(off.metrics.node_boots, 0u);
}

TEST(PowerOff, AJobArrivingAtAnOffNodeWaitsForItsBoot) {
  // One node. a (1 GPU, 100 s) runs on [0, 100); the node idles from 100 and is switched off at
  // 150. b (1 GPU, 100 s) arrives at 300: the node boots on [300, 360), b runs on [360, 460):
  // JCT 60 + 100 = 160.
  SimOptions options = switchable_nodes(1);
  options.power.idle_off_after_s = 50.0;
  const RunResult result = Simulation(options, {job("a", 0, 1, 100), job("b", 300, 1, 100)}).run();
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 360.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time - result.jobs[1].submit_time, 160.0);
  EXPECT_EQ(result.metrics.node_boots, 1u);
  EXPECT_NEAR(result.metrics.node_off_h, 150.0 / 3600.0, 1e-12);
  // Busy 450 W on [0, 100) and [360, 460), idle 200 W on [100, 150), standby 20 W on
  // [150, 300), booting at idle power 200 W on [300, 360).
  const double joules = 450.0 * 100.0 + 200.0 * 50.0 + 20.0 * 150.0 + 200.0 * 60.0 + 450.0 * 100.0;
  EXPECT_NEAR(result.metrics.energy_kwh, joules / 3.6e6, 1e-12);
  // Conservation: what the grid gave (no cap, no solar) is what was consumed.
  EXPECT_NEAR(result.metrics.grid_kwh, result.metrics.energy_kwh, 1e-12);
}

TEST(PowerOff, AWaitingHeadWakesEnoughNodesForItself) {
  // Three nodes. x (1 GPU, 10 s) runs on node 0 on [0, 10); nodes 1 and 2 are off from 10,
  // node 0 from 20. a (3 GPUs, 100 s) arrives at 100 and needs two nodes' GPUs: nodes 0 and 1
  // boot (60 s), node 2 stays off; a runs on [160, 260).
  SimOptions options = switchable_nodes(3);
  options.power.idle_off_after_s = 10.0;
  const RunResult result = Simulation(options, {job("x", 0, 1, 10), job("a", 100, 3, 100)}).run();
  EXPECT_EQ(result.metrics.node_boots, 2u);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 160.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 260.0);
  // Off: nodes 1 and 2 from 10, node 0 from 20; nodes 0 and 1 until 100, node 2 to the end.
  EXPECT_NEAR(result.metrics.node_off_h, (90.0 + 80.0 + 250.0) / 3600.0, 1e-12);
}

TEST(PowerOff, OffByDefaultChangesNothing) {
  // boot_s and standby_w_per_node without idle_off_after_s: nodes stay on, results identical.
  SimOptions options = switchable_nodes(2);
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 300, 2, 100)};
  const RunResult plain = Simulation(options, jobs).run();
  options.power.boot_s = 1.0;
  options.power.standby_w_per_node = 1.0;
  const RunResult set = Simulation(options, jobs).run();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(set.jobs[i].start_time, plain.jobs[i].start_time);
    EXPECT_EQ(set.jobs[i].finish_time, plain.jobs[i].finish_time);
  }
  EXPECT_EQ(set.metrics.energy_kwh, plain.metrics.energy_kwh);
  EXPECT_EQ(set.metrics.node_boots, 0u);
  EXPECT_EQ(set.metrics.node_off_h, 0.0);
}

}  // namespace
}  // namespace clustersim
