// The fleet's rebalancer (fleet.h's FleetRebalanceSpec): a job checkpointed at a preemption
// moved to another cluster over a link shared with a second transfer, timed by hand; jobs that
// never ran moving their input together; no link, no move; a rebalancer that never moves gives
// the run without it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "clustersim/fleet.h"
#include "clustersim/simulator.h"
#include "simulation/wan_link.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

ClusterSpec rebalance_cluster(int nodes, int gpus_per_node) {
  ClusterSpec cluster;
  NodeGroupSpec group;
  group.nodes = nodes;
  group.gpus_per_node = gpus_per_node;
  cluster.groups.push_back(group);
  return cluster;
}

// Clusters "a" (west) and "b" (east) of the given GPUs on one node each; an 8 Gb/s link (1 GB/s)
// of 1 s latency; the home router (jobs' homes by id); checks every 300 s.
FleetSpec rebalance_fleet(int a_gpus, int b_gpus, double threshold) {
  FleetSpec spec;
  spec.regions = {{"west", -8.0, {}, 300.0, 0.0}, {"east", 1.0, {}, 100.0, 0.0}};
  spec.clusters = {{"a", "west", rebalance_cluster(1, a_gpus)},
                   {"b", "east", rebalance_cluster(1, b_gpus)}};
  spec.links = {{"west", "east", 8.0, 1000.0}};
  spec.router = "home";
  spec.rebalance.enabled = true;
  spec.rebalance.threshold = threshold;
  spec.rebalance.interval_s = 300.0;
  return spec;
}

double named_metric(const FleetResult& result, const std::string& name) {
  for (const auto& [key, value] : result.metrics)
    if (key == name) return value;
  ADD_FAILURE() << "no metric " << name;
  return -1.0;
}

// a: 4 GPUs, b: 8, threshold 0.2. Priority eviction (FIFO, honor_priority, preempt_on_arrival;
// leases of 1e6 s: no round), checkpoint 10 s, restore 20 s. Checkpoints: model "big" 600 GB,
// "small" 200 GB.
//   0    q (2 GPUs, 2000 s, small) and m (2 GPUs, 1000 s, big) start on a.
//   100  h1 (2 GPUs, priority 1) evicts m (the later of the two in FIFO order); m saves 10 s and
//        waits on a from 110 with 900 s of work left.
//   300  check: waiting per GPU a 2/4 = 0.5, b 0: gap 0.5 > 0.2; m moves (the reverse gap
//        after, 2/8 - 0 = 0.25 > 0.2, but b has its GPUs free). Its 600 GB flow alone at 1 GB/s.
//   400  h2 (2 GPUs, priority 1) evicts q; q waits on a from 410 with 2000 - 400 = 1600 s left.
//   600  check: a 2/4 = 0.5, b 2/8 = 0.25 (m, on its way, counts there): gap 0.25 > 0.2; q
//        moves (b: 8 free less m's 2 promised). m has sent 300 GB; from now on each gets
//        0.5 GB/s: q's 200 GB leave by 600 + 400 = 1000, when m has 300 - 200 = 100 GB left,
//        sent alone by 1100.
//   1001 q arrives (1 s latency), starts on b, restores 20 s (as a migration), runs 1600 s:
//        finishes at 2621.
//   1101 m arrives, restores 20 s, runs 900 s: finishes at 2021.
TEST(FleetRebalance, CheckpointedJobMovesOverASharedLinkAndResumesThere) {
  FleetSpec spec = rebalance_fleet(4, 8, 0.2);
  spec.homes = {{"q", "a"}, {"m", "a"}, {"h1", "a"}, {"h2", "a"}};
  std::vector<JobSpec> jobs = {job("q", 0, 2, 2000), job("m", 0, 2, 1000), job("h1", 100, 2, 10000),
                               job("h2", 400, 2, 10000)};
  jobs[0].model = "small";
  jobs[1].model = "big";
  jobs[2].priority = jobs[3].priority = 1;
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.honor_priority = true;
  options.scheduler.preemption = true;
  options.scheduler.lease_s = 1e6;
  options.scheduler.checkpoint_s = 10;
  options.scheduler.restore_s = 20;
  options.mechanisms.preempt_on_arrival = true;
  options.mechanisms.checkpoint_gb = {{"big", 600.0}, {"small", 200.0}};

  const FleetResult result = simulate_fleet(spec, options, jobs);
  const auto& records = result.fleet.jobs;
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(result.migrations_wan, (std::vector<std::uint32_t>{1, 1, 0, 0}));
  EXPECT_EQ(result.job_cluster, (std::vector<std::size_t>{1, 1, 0, 0}));  // where they finished
  EXPECT_EQ(result.routed, (std::vector<std::size_t>{4, 0}));
  EXPECT_DOUBLE_EQ(records[1].finish_time, 1101 + 20 + 900);
  EXPECT_DOUBLE_EQ(records[0].finish_time, 1001 + 20 + 1600);
  for (int j : {0, 1}) {
    EXPECT_EQ(records[j].preemptions, 1u);
    // Its restore at b is a migration's (2 GPUs x 20 s); the save at the eviction a checkpoint.
    EXPECT_DOUBLE_EQ(records[j].migration_gpu_seconds, 2 * 20.0);
    EXPECT_DOUBLE_EQ(records[j].restore_gpu_seconds, 0.0);
    EXPECT_DOUBLE_EQ(records[j].checkpoint_gpu_seconds, 2 * 10.0);
  }
  // The live transfers agree with the link's rule (wan_link.h) on the same two transfers.
  const std::vector<internal::WanTransfer> transfers = {{300.0, 600e9}, {600.0, 200e9}};
  const std::vector<double> arrival = internal::wan_arrival_times(spec.links[0], transfers);
  EXPECT_DOUBLE_EQ(arrival[0], 1101.0);
  EXPECT_DOUBLE_EQ(arrival[1], 1001.0);

  EXPECT_EQ(named_metric(result, "migrations_wan"), 2.0);
  EXPECT_EQ(named_metric(result, "a.migrated_out"), 2.0);
  EXPECT_EQ(named_metric(result, "b.migrated_in"), 2.0);
  EXPECT_EQ(named_metric(result, "a.migrated_in"), 0.0);
  EXPECT_EQ(named_metric(result, "wan.west.east.migrated"), 2.0);
  EXPECT_DOUBLE_EQ(named_metric(result, "wan.west.east.bytes_gb"), 800.0);
  // m 300 -> 1101, q 600 -> 1001.
  EXPECT_DOUBLE_EQ(named_metric(result, "wan.west.east.transfer_s"), 801.0 + 401.0);
  const RunResult::Column& column = result.fleet.job_columns.back();
  EXPECT_EQ(column.name, "migrations_wan");
  EXPECT_EQ(column.values, (std::vector<double>{1, 1, 0, 0}));
}

// a: 2 GPUs held by x (10000 s) from 0; j1 and j2 (1 GPU, 100 s) wait there. At 300 (gap
// 2/2 - 0 = 1 > 0.2) j1 moves (the reverse gap after, 1/4 - 1/2, is no gap), then j2 (gap
// 1/2 - 1/4 = 0.25 > 0.2; b has 4 - 1 GPUs unpromised). Neither ever ran: each moves its input,
// 100 GB, both at once at 0.5 GB/s: sent by 300 + 200 = 500, there at 501; no restore (nothing
// saved): they finish at 601.
TEST(FleetRebalance, JobsThatNeverRanMoveTheirInputSharingTheLink) {
  FleetSpec spec = rebalance_fleet(2, 4, 0.2);
  spec.rebalance.input_gb = 100.0;
  spec.homes = {{"x", "a"}, {"j1", "a"}, {"j2", "a"}};
  const std::vector<JobSpec> jobs = {job("x", 0, 2, 10000), job("j1", 0, 1, 100),
                                     job("j2", 0, 1, 100)};
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.restore_s = 20;  // a restart's; none here
  const FleetResult result = simulate_fleet(spec, options, jobs);
  EXPECT_EQ(result.migrations_wan, (std::vector<std::uint32_t>{0, 1, 1}));
  for (int j : {1, 2}) {
    EXPECT_DOUBLE_EQ(result.fleet.jobs[j].start_time, 501.0);
    EXPECT_DOUBLE_EQ(result.fleet.jobs[j].finish_time, 601.0);
    EXPECT_DOUBLE_EQ(result.fleet.jobs[j].migration_gpu_seconds, 0.0);
  }
  EXPECT_DOUBLE_EQ(named_metric(result, "wan.west.east.transfer_s"), 2 * 201.0);
}

// The same without a link: nothing moves, and every job's record is the run's without the
// rebalancer. A rebalancer that never finds a gap (threshold 1e9) gives that run too.
TEST(FleetRebalance, NoLinkNoMoveAndAnIdleRebalancerChangesNothing) {
  FleetSpec spec = rebalance_fleet(2, 4, 0.2);
  spec.homes = {{"x", "a"}, {"j1", "a"}, {"j2", "a"}};
  const std::vector<JobSpec> jobs = {job("x", 0, 2, 10000), job("j1", 0, 1, 100),
                                     job("j2", 0, 1, 100)};
  const SimOptions options = testing::small_cluster(1, 1);
  FleetSpec off = spec;
  off.rebalance.enabled = false;
  const FleetResult without = simulate_fleet(off, options, jobs);
  FleetSpec unlinked = spec;
  unlinked.links.clear();
  FleetSpec idle = spec;
  idle.rebalance.threshold = 1e9;
  for (const FleetSpec& on : {unlinked, idle}) {
    const FleetResult result = simulate_fleet(on, options, jobs);
    EXPECT_EQ(result.migrations_wan, (std::vector<std::uint32_t>{0, 0, 0}));
    EXPECT_EQ(result.job_cluster, without.job_cluster);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      EXPECT_EQ(result.fleet.jobs[j].start_time, without.fleet.jobs[j].start_time);
      EXPECT_EQ(result.fleet.jobs[j].finish_time, without.fleet.jobs[j].finish_time);
    }
  }
  EXPECT_DOUBLE_EQ(without.fleet.jobs[1].finish_time, 10100.0);  // j1 waited for x
  // Off: no rebalancer metrics.
  for (const auto& [name, value] : without.metrics)
    EXPECT_EQ(name.find("migrat"), std::string::npos);
}

TEST(FleetRebalance, BadSettingsNameTheirField) {
  const auto error_of = [](FleetSpec spec) {
    try {
      validate_fleet(spec);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  FleetSpec spec = rebalance_fleet(2, 2, 0.5);
  spec.rebalance.interval_s = 0;
  EXPECT_NE(error_of(spec).find("fleet.rebalance.interval_s"), std::string::npos);
  spec = rebalance_fleet(2, 2, -1);
  EXPECT_NE(error_of(spec).find("fleet.rebalance.threshold"), std::string::npos);
  // A decider of its own cannot hold a moving job back.
  spec = rebalance_fleet(2, 2, 0.5);
  spec.homes = {{"x", "a"}};
  SimOptions gavel = testing::small_cluster(1, 1);
  gavel.scheduler.policy = "isolated";
  EXPECT_THROW(simulate_fleet(spec, gavel, std::vector<JobSpec>{job("x", 0, 1, 10)}),
               std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
