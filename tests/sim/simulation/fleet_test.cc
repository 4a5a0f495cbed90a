// The fleet's first slice (clustersim/fleet.h): routers worked out by hand on small fleets, a
// router by the jobs' homes against each cluster run alone on its share, and a one-cluster
// fleet against today's run.
#include "clustersim/fleet.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

ClusterSpec fleet_cluster(int nodes, int gpus_per_node, const std::string& type = "generic") {
  ClusterSpec cluster;
  NodeGroupSpec group;
  group.nodes = nodes;
  group.gpus_per_node = gpus_per_node;
  group.gpu_type = type;
  cluster.groups.push_back(group);
  return cluster;
}

// Two regions, one cluster each: "a" (west, 1 node x 2 GPUs), "b" (east, 1 node x 1 GPU).
FleetSpec two_region_fleet(const std::string& router) {
  FleetSpec spec;
  spec.regions = {{"west", -8.0, {}, 300.0, 0.0}, {"east", 1.0, {}, 100.0, 0.0}};
  spec.clusters = {{"a", "west", fleet_cluster(1, 2)}, {"b", "east", fleet_cluster(1, 1)}};
  spec.links = {{"west", "east", 10.0, 80.0}};
  spec.router = router;
  return spec;
}

std::vector<std::size_t> routed_clusters(const FleetSpec& spec, const std::vector<JobSpec>& jobs) {
  return simulate_fleet(spec, testing::small_cluster(1, 1), jobs).job_cluster;
}

// By home: a1 (2 GPUs, 100 s) and a2 (1 GPU, 50 s) at 0 on a's 2 GPUs: a1 runs 0..100, a2
// waits for it, 100..150 (JCT 150). b1 (1 GPU, 30 s at 10 s) alone on b: JCT 30. Each
// cluster's records are those of that cluster run alone on its share, exactly.
TEST(Fleet, HomeRouterGivesEachClusterItsOwnRun) {
  FleetSpec spec = two_region_fleet("home");
  spec.homes = {{"a1", "a"}, {"b1", "east"}, {"a2", "west"}};
  const std::vector<JobSpec> jobs = {job("a1", 0, 2, 100), job("b1", 10, 1, 30),
                                     job("a2", 0, 1, 50)};
  const SimOptions options = testing::small_cluster(1, 1);
  const FleetResult result = simulate_fleet(spec, options, jobs);
  EXPECT_EQ(result.job_cluster, (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(result.routed, (std::vector<std::size_t>{2, 1}));
  ASSERT_EQ(result.fleet.jobs.size(), 3u);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[0].jct, 100);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[1].jct, 30);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[2].jct, 150);
  EXPECT_DOUBLE_EQ(result.fleet.metrics.jct_mean, (100 + 30 + 150) / 3.0);
  EXPECT_DOUBLE_EQ(result.fleet.metrics.queue_mean, 100 / 3.0);
  // GPU-seconds 200 + 30 + 50 over 3 GPUs x makespan 150.
  EXPECT_DOUBLE_EQ(result.fleet.metrics.gpu_util, 280 / (3 * 150.0));

  for (std::size_t c = 0; c < 2; ++c) {
    SimOptions alone = options;
    alone.cluster = spec.clusters[c].cluster;
    std::vector<JobSpec> share;
    std::vector<std::size_t> index;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (result.job_cluster[j] == c) {
        share.push_back(jobs[j]);
        index.push_back(j);
      }
    const RunResult run = simulate(alone, share);
    for (std::size_t k = 0; k < share.size(); ++k) {
      EXPECT_EQ(result.fleet.jobs[index[k]].jct, run.jobs[k].jct) << share[k].id;
      EXPECT_EQ(result.fleet.jobs[index[k]].start_time, run.jobs[k].start_time) << share[k].id;
      EXPECT_EQ(result.fleet.jobs[index[k]].index, index[k]);
    }
  }
  const auto& columns = result.fleet.job_columns;
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[0].name, "cluster");
  EXPECT_EQ(columns[0].values, (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(columns[1].name, "migrations_wan");
  EXPECT_EQ(columns[1].values, (std::vector<double>{0, 0, 0}));
  // Per cluster, prefixed by its name: a's JCTs 100 and 150.
  const auto metric = [&](const std::string& name) {
    for (const auto& [key, value] : result.metrics)
      if (key == name) return value;
    ADD_FAILURE() << "no metric " << name;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(metric("a.jct_mean"), 125);
  EXPECT_DOUBLE_EQ(metric("a.queueing_delay_mean"), 50);
  EXPECT_DOUBLE_EQ(metric("b.jobs"), 1);
  EXPECT_DOUBLE_EQ(metric("b.routed"), 1);
  EXPECT_DOUBLE_EQ(metric("jobs"), 3);
}

TEST(Fleet, HomeRouterNamesAJobWithoutAHome) {
  FleetSpec spec = two_region_fleet("home");
  spec.homes = {{"a1", "a"}};
  try {
    routed_clusters(spec, {job("a1", 0, 1, 10), job("lost", 5, 1, 10)});
    FAIL() << "a job without a home was routed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'lost'"), std::string::npos) << e.what();
  }
  spec.homes["lost"] = "b";
  spec.homes["big"] = "b";  // b has 1 GPU
  EXPECT_THROW(routed_clusters(spec, {job("big", 0, 2, 10)}), std::invalid_argument);
}

// Two clusters of 4 GPUs. At 0: j0 (4 GPUs, 100 s) -> a (a tie: the first); j1 (2 GPUs,
// 100 s) -> b (demand per GPU a 1, b 0); j2 (2 GPUs, 100 s) -> b (a 1, b 0.5): b runs j1 and
// j2 side by side, 0..100. At 120 s both clusters are empty: j3 (1 GPU) -> a (a tie), and
// j3 is done by 200 s: j4 -> a.
TEST(Fleet, LeastLoadedRoutesByEstimatedDemandPerGpu) {
  FleetSpec spec = two_region_fleet("least_loaded");
  spec.clusters = {{"a", "west", fleet_cluster(1, 4)}, {"b", "east", fleet_cluster(1, 4)}};
  EXPECT_EQ(routed_clusters(spec, {job("j0", 0, 4, 100), job("j1", 0, 2, 100), job("j2", 0, 2, 100),
                                   job("j3", 120, 1, 10), job("j4", 200, 1, 10)}),
            (std::vector<std::size_t>{0, 1, 1, 0, 0}));
}

// a has 4 v100s, b 8 a100s. An a100 job can only go to b, so can an 8-GPU job; a 1-GPU job of
// any type then starts soonest on a (b's backlog: 8 x 100 + 8 x 100 GPU-s over 8 GPUs).
TEST(Fleet, CapacityFitTakesTheTypeAndSizeAndTheSoonestStart) {
  FleetSpec spec = two_region_fleet("capacity_fit");
  spec.clusters = {{"a", "west", fleet_cluster(1, 4, "v100")},
                   {"b", "east", fleet_cluster(1, 8, "a100")}};
  JobSpec typed = job("typed", 0, 1, 100);
  typed.gpu_type = "a100";
  std::vector<JobSpec> jobs = {typed, job("big", 0, 8, 100), job("any", 0, 1, 10)};
  jobs[0].num_gpus = 8;
  EXPECT_EQ(routed_clusters(spec, jobs), (std::vector<std::size_t>{1, 1, 0}));
  JobSpec nowhere = job("nowhere", 0, 16, 10);
  try {
    routed_clusters(spec, {nowhere});
    FAIL() << "a 16-GPU job was routed to an 8-GPU cluster";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'nowhere'"), std::string::npos) << e.what();
  }
}

// east's grid (100 g/kWh) is cleaner than west's (300): every job goes east while the
// intensities differ; at equal intensities the less loaded cluster (demand per GPU) wins. The
// series: east is 100 for the first hour, 500 after (hourly steps); west stays at 300.
TEST(Fleet, CarbonAwareTakesTheLowestIntensityThenTheLeastLoaded) {
  FleetSpec spec = two_region_fleet("carbon_aware");
  spec.regions[1].carbon.step_s = 3600;
  spec.regions[1].carbon.values = {100, 500};
  EXPECT_EQ(routed_clusters(spec, {job("x", 0, 1, 10), job("y", 4000, 1, 10)}),
            (std::vector<std::size_t>{1, 0}));
  spec.regions[1].carbon = {};
  // Constant intensities: both go east (b runs them one after the other), a runs nothing.
  const std::vector<JobSpec> both = {job("x", 0, 1, 10), job("y", 0, 1, 10)};
  const FleetResult east = simulate_fleet(spec, testing::small_cluster(1, 1), both);
  EXPECT_EQ(east.routed, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(east.clusters[0].metrics.jobs, 0u);
  EXPECT_DOUBLE_EQ(east.fleet.jobs[1].finish_time, 20);
  spec.regions[1].carbon_g_per_kwh = 300;
  // Both at 300: x -> a (tie, first), y -> b (a's demand 1 of 2 GPUs vs b's 0 of 1).
  EXPECT_EQ(routed_clusters(spec, {job("x", 0, 1, 10), job("y", 0, 1, 10)}),
            (std::vector<std::size_t>{0, 1}));
}

// A one-cluster fleet is today's run of that cluster, record for record.
TEST(Fleet, OneClusterFleetIsTodaysRun) {
  SimOptions options = testing::small_cluster(2, 4);
  options.scheduler.policy = "srtf";
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 40; ++i)
    jobs.push_back(job(testing::numbered("j", static_cast<std::size_t>(i)), i * 7.0, 1 + i % 5,
                       30.0 + (i * 37) % 200));
  const RunResult today = simulate(options, jobs);
  FleetSpec spec;
  spec.regions = {{"only", 0.0, {}, 0.0, 0.0}};
  spec.clusters = {{"c", "only", options.cluster}};
  const FleetResult fleet = simulate_fleet(spec, options, jobs);
  ASSERT_EQ(fleet.fleet.jobs.size(), today.jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_EQ(fleet.fleet.jobs[j].start_time, today.jobs[j].start_time) << j;
    EXPECT_EQ(fleet.fleet.jobs[j].finish_time, today.jobs[j].finish_time) << j;
    EXPECT_EQ(fleet.fleet.jobs[j].preemptions, today.jobs[j].preemptions) << j;
  }
  EXPECT_EQ(fleet.fleet.metrics.jct_mean, today.metrics.jct_mean);
  EXPECT_EQ(fleet.fleet.metrics.gpu_util, today.metrics.gpu_util);
  EXPECT_EQ(fleet.fleet.metrics.queue_len_mean, today.metrics.queue_len_mean);
}

// The one run's router sees the live load, not the first slice's estimate. a and b have 2 GPUs
// each. At 0: j0 (1 GPU, 100 s) -> a (a tie); b0 (1 GPU, 1,000 s) -> b (a 0.5, b 0); j1 (2 GPUs,
// 10 s) -> a (0.5 each: a tie). j1 waits for j0 (1 GPU free of 2): it runs 100..110. At 70 s
// a's live demand is j0 + j1 = 3 GPUs (1.5 per GPU), b's 1 (0.5): j3 (1 GPU, 10 s) -> b, on
// b's free GPU 70..80. (The estimate would have drained j1 by 60 s, 10 GPU-s at 2 GPUs after
// j0's 100 GPU-s, leaving a at 0.5: a tie, so a.)
TEST(Fleet, LeastLoadedRoutesOnTheLiveLoad) {
  FleetSpec spec = two_region_fleet("least_loaded");
  spec.clusters = {{"a", "west", fleet_cluster(1, 2)}, {"b", "east", fleet_cluster(1, 2)}};
  const std::vector<JobSpec> jobs = {job("j0", 0, 1, 100), job("b0", 0, 1, 1000),
                                     job("j1", 0, 2, 10), job("j3", 70, 1, 10)};
  const FleetResult result = simulate_fleet(spec, testing::small_cluster(1, 1), jobs);
  EXPECT_EQ(result.job_cluster, (std::vector<std::size_t>{0, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(result.fleet.jobs[2].start_time, 100);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[3].start_time, 70);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[3].jct, 10);
  EXPECT_EQ(result.routed, (std::vector<std::size_t>{2, 2}));
}

// Strict order (no backfill) holds per cluster in the one run: a's head a1 (2 GPUs) waits for
// a0 (1 GPU, 0..100) and blocks a2 (1 GPU) behind it, but not b's b1, which arrived after both:
// b1 runs 5..15 as on b alone, a1 100..110, a2 110..120. Each cluster's records are those of
// the cluster run alone on its share.
TEST(Fleet, StrictOrderBlocksOnlyTheHeadsCluster) {
  FleetSpec spec = two_region_fleet("home");
  spec.clusters = {{"a", "west", fleet_cluster(1, 2)}, {"b", "east", fleet_cluster(1, 2)}};
  spec.homes = {{"a0", "a"}, {"a1", "a"}, {"a2", "a"}, {"b1", "b"}};
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.backfill = false;
  const std::vector<JobSpec> jobs = {job("a0", 0, 1, 100), job("a1", 1, 2, 10), job("a2", 2, 1, 10),
                                     job("b1", 5, 1, 10)};
  const FleetResult result = simulate_fleet(spec, options, jobs);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[3].start_time, 5);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[1].start_time, 100);
  EXPECT_DOUBLE_EQ(result.fleet.jobs[2].start_time, 110);
  for (std::size_t c = 0; c < 2; ++c) {
    SimOptions alone = options;
    alone.cluster = spec.clusters[c].cluster;
    std::vector<JobSpec> share;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (result.job_cluster[j] == c) share.push_back(jobs[j]);
    const RunResult run = simulate(alone, share);
    ASSERT_EQ(result.clusters[c].jobs.size(), share.size());
    for (std::size_t k = 0; k < share.size(); ++k) {
      EXPECT_EQ(result.clusters[c].jobs[k].start_time, run.jobs[k].start_time) << share[k].id;
      EXPECT_EQ(result.clusters[c].jobs[k].finish_time, run.jobs[k].finish_time) << share[k].id;
    }
  }
}

// A fleet's clusters as partitions of one run's nodes: groups of another partition start a new
// rack and never share a GPU type index, even under the same type name. Nodes per rack 2:
// partition 0's 3 nodes are racks 0, 0, 1; partition 1's 3 nodes racks 2, 2, 3.
TEST(Fleet, PartitionsHaveTheirOwnTypesAndRacks) {
  ClusterSpec nodes = fleet_cluster(3, 4, "a100");
  nodes.nodes_per_rack = 2;
  nodes.groups.push_back(nodes.groups.front());
  nodes.groups.back().partition = 1;
  const ClusterState state(nodes);
  EXPECT_EQ(state.gpu_type_names().size(), 2u);
  EXPECT_EQ(state.find_gpu_type("a100", 0), 0);
  EXPECT_EQ(state.find_gpu_type("a100", 1), 1);
  EXPECT_EQ(state.gpu_type_partition(1), 1);
  EXPECT_EQ(state.total_gpus(1), 12);
  std::vector<int> racks;
  for (const auto& node : state.nodes()) racks.push_back(node.rack);
  EXPECT_EQ(racks, (std::vector<int>{0, 0, 1, 2, 2, 3}));
  EXPECT_EQ(state.rack_begin(1), 2u);
  EXPECT_EQ(state.rack_end(1), 3u);
  EXPECT_EQ(state.rack_begin(2), 3u);
  EXPECT_EQ(state.rack_end(3), 6u);
}

TEST(Fleet, BadSpecsNameTheirField) {
  const auto message = [](const FleetSpec& spec) {
    try {
      validate_fleet(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  FleetSpec spec = two_region_fleet("least_loaded");
  spec.router = "fastest";
  EXPECT_NE(message(spec).find("fleet.router: unknown router 'fastest'"), std::string::npos);
  spec = two_region_fleet("least_loaded");
  spec.clusters[1].region = "north";
  EXPECT_NE(message(spec).find("fleet.clusters.b.region"), std::string::npos);
  spec = two_region_fleet("least_loaded");
  spec.links[0].bandwidth_gbps = 0;
  EXPECT_NE(message(spec).find("fleet.links.west-east.bandwidth_gbps"), std::string::npos);
  spec = two_region_fleet("least_loaded");
  spec.clusters[1].name = "a";
  EXPECT_NE(message(spec).find("'a' twice"), std::string::npos);
  EXPECT_EQ(message(two_region_fleet("home")), "accepted");
  EXPECT_EQ(fleet_router_names(),
            (std::vector<std::string>{"least_loaded", "capacity_fit", "carbon_aware", "home"}));
}

}  // namespace
}  // namespace clustersim
