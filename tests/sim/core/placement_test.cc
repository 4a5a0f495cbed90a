#include "clustersim/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "clustersim/llm.h"
#include "clustersim/simulator.h"

namespace clustersim {
namespace {

// 2 racks x 2 nodes x 8 GPUs, with some GPUs already taken:
// node 0 (rack 0): 2 free, node 1 (rack 0): 8 free, node 2 (rack 1): 5 free, node 3 (rack 1): 6
// free.
ClusterState partly_used_cluster() {
  ClusterSpec spec;
  spec.nodes_per_rack = 2;
  NodeGroupSpec group;
  group.nodes = 4;
  group.gpus_per_node = 8;
  spec.groups = {group};
  ClusterState cluster(spec);
  cluster.allocate({0, 6}, 0, 0);
  cluster.allocate({2, 3}, 0, 0);
  cluster.allocate({3, 2}, 0, 0);
  return cluster;
}

std::map<std::uint32_t, int> place(const std::string& policy, int gpus, std::uint64_t seed = 1) {
  ClusterState cluster = partly_used_cluster();
  Rng rng(seed);
  auto placement = make_placement_policy(policy, rng);
  std::vector<NodeShare> out;
  PlacementRequest request;
  request.gpus = gpus;
  if (!placement->place(request, cluster, out)) return {};
  std::map<std::uint32_t, int> shares;
  for (const auto& share : out) shares[share.node] += share.gpus;
  return shares;
}

int total(const std::map<std::uint32_t, int>& shares) {
  int sum = 0;
  for (const auto& [node, gpus] : shares) sum += gpus;
  return sum;
}

TEST(Consolidate, SmallJobTakesTightestNode) {
  EXPECT_EQ(place("consolidate", 2), (std::map<std::uint32_t, int>{{0, 2}}));
  EXPECT_EQ(place("consolidate", 5), (std::map<std::uint32_t, int>{{2, 5}}));
}

TEST(Consolidate, LargeJobStaysInOneRackWithFewestNodes) {
  // 10 GPUs: rack 0 has 2 + 8 (2 nodes), rack 1 has 5 + 6 (2 nodes, 1 left over vs 0).
  EXPECT_EQ(place("consolidate", 10), (std::map<std::uint32_t, int>{{0, 2}, {1, 8}}));
  // 11 GPUs: only rack 1 fits in one rack.
  EXPECT_EQ(place("consolidate", 11), (std::map<std::uint32_t, int>{{2, 5}, {3, 6}}));
}

TEST(Consolidate, SpansRacksOnlyWhenItMust) {
  // 19 GPUs: the roomier rack 1 (6 + 5) first, then rack 0's largest hole: 3 nodes, not 4.
  EXPECT_EQ(place("consolidate", 19), (std::map<std::uint32_t, int>{{1, 8}, {2, 5}, {3, 6}}));
  EXPECT_TRUE(place("consolidate", 22).empty());  // 21 free in all
}

TEST(BestFit, FillsSmallestHolesFirst) {
  // 9 GPUs fit no single node: take holes of 2, 5, then 2 of the 6.
  EXPECT_EQ(place("best_fit", 9), (std::map<std::uint32_t, int>{{0, 2}, {2, 5}, {3, 2}}));
  EXPECT_EQ(place("best_fit", 6), (std::map<std::uint32_t, int>{{3, 6}}));
}

TEST(Spread, OneGpuPerNodeRoundRobinFromRoomiest) {
  EXPECT_EQ(place("spread", 4), (std::map<std::uint32_t, int>{{0, 1}, {1, 1}, {2, 1}, {3, 1}}));
  EXPECT_EQ(place("spread", 6), (std::map<std::uint32_t, int>{{0, 1}, {1, 2}, {2, 1}, {3, 2}}));
}

TEST(RandomPlacement, IsValidAndReproducibleFromSeed) {
  for (int gpus : {1, 3, 8, 21}) {
    const auto a = place("random", gpus, 42);
    EXPECT_EQ(total(a), gpus);
    EXPECT_EQ(a, place("random", gpus, 42));
    const ClusterState cluster = partly_used_cluster();
    for (const auto& [node, count] : a) EXPECT_LE(count, cluster.node(node).free_gpus);
  }
  bool differs = false;
  for (std::uint64_t seed = 1; seed < 20 && !differs; ++seed)
    differs = place("random", 3, seed) != place("random", 3, 42);
  EXPECT_TRUE(differs);
}

TEST(PlacementRegistry, RejectsUnknownNames) {
  Rng rng(1);
  EXPECT_THROW(make_placement_policy("tetris", rng), std::invalid_argument);
  EXPECT_EQ(placement_policy_names().size(), 5u);
}

// The topology placement on `cluster` with [fabric] `options`; the request is workload job 0's
// when `llm_job`, else anonymous. Node -> GPUs.
std::map<std::uint32_t, int> place_on(const std::string& policy, const ClusterState& cluster,
                                      const SimOptions& options, int gpus, bool llm_job) {
  Rng rng(1);
  auto placement = make_placement_policy(policy, rng);
  placement->configure(options, cluster);
  PlacementRequest request;
  request.gpus = gpus;
  request.job = llm_job ? 0 : -1;
  std::vector<NodeShare> out;
  if (!placement->place(request, cluster, out)) return {};
  std::map<std::uint32_t, int> shares;
  for (const auto& share : out) shares[share.node] += share.gpus;
  return shares;
}

// Workload job 0 is an LLM job of tensor-parallel groups of `tp` GPUs.
SimOptions tp_options(int tp) {
  SimOptions options;
  LlmJob llm;
  llm.tp = tp;
  options.fabric.llm_jobs = std::make_shared<const LlmJobTable>(LlmJobTable{{0, llm}});
  return options;
}

// One rack of three 8-GPU nodes with 6, 6 and 4 GPUs free.
ClusterState three_holes() {
  ClusterSpec spec;
  spec.nodes_per_rack = 3;
  NodeGroupSpec group;
  group.nodes = 3;
  group.gpus_per_node = 8;
  spec.groups = {group};
  ClusterState cluster(spec);
  cluster.allocate({0, 2}, 0, 0);
  cluster.allocate({1, 2}, 0, 0);
  cluster.allocate({2, 4}, 0, 0);
  return cluster;
}

TEST(TopologyPlacement, NeverSplitsATensorParallelGroupWhenItCanAvoidIt) {
  const ClusterState cluster = three_holes();
  const SimOptions options = tp_options(4);
  // 12 GPUs in TP groups of 4. Consolidate takes the two largest holes, 6 + 6: a group of 4
  // then straddles the two nodes (6 = 4 + 2 on each side).
  EXPECT_EQ(place_on("consolidate", cluster, options, 12, true),
            (std::map<std::uint32_t, int>{{0, 6}, {1, 6}}));
  // Topology offers only whole groups (4, 4, 4): three nodes, every group inside one.
  EXPECT_EQ(place_on("topology", cluster, options, 12, true),
            (std::map<std::uint32_t, int>{{0, 4}, {1, 4}, {2, 4}}));
  // A job without LLM columns packs like consolidate: the fewest nodes.
  EXPECT_EQ(place_on("topology", cluster, options, 12, false),
            (std::map<std::uint32_t, int>{{0, 6}, {1, 6}}));
  // 16 GPUs: whole groups give only 12, so the split is unavoidable now: every free GPU.
  EXPECT_EQ(place_on("topology", cluster, options, 16, true),
            (std::map<std::uint32_t, int>{{0, 6}, {1, 6}, {2, 4}}));
  EXPECT_TRUE(place_on("topology", cluster, options, 17, true).empty());
}

// Eight 8-GPU nodes, two per leaf, two leaves per spine group: free 4, 0 | 8, 8 || 8, 4 | 6, 6.
ClusterState two_spine_groups(SimOptions& options) {
  ClusterSpec spec;
  spec.nodes_per_rack = 2;
  NodeGroupSpec group;
  group.nodes = 8;
  group.gpus_per_node = 8;
  spec.groups = {group};
  ClusterState cluster(spec);
  cluster.allocate({0, 4}, 0, 0);
  cluster.allocate({1, 8}, 0, 0);
  cluster.allocate({5, 4}, 0, 0);
  cluster.allocate({6, 2}, 0, 0);
  cluster.allocate({7, 2}, 0, 0);
  options.fabric.hosts_per_leaf = 2;
  options.fabric.leaves_per_spine = 2;
  return cluster;
}

TEST(TopologyPlacement, FewestLeavesThenFewestSpineGroups) {
  SimOptions options = tp_options(4);
  const ClusterState cluster = two_spine_groups(options);
  // 16 GPUs: leaf 1 (nodes 2, 3) alone holds them.
  EXPECT_EQ(place_on("topology", cluster, options, 16, false),
            (std::map<std::uint32_t, int>{{2, 8}, {3, 8}}));
  // 24 GPUs: no leaf holds them (16 at most); spine group 0 has 4 + 16 = 20, group 1 has
  // 12 + 12 = 24: its two leaves, four nodes. (Consolidate's racks-by-room order takes nodes
  // 2, 3 and 4: three nodes, but across both spine groups.)
  EXPECT_EQ(place_on("topology", cluster, options, 24, false),
            (std::map<std::uint32_t, int>{{4, 8}, {5, 4}, {6, 6}, {7, 6}}));
  EXPECT_EQ(place_on("consolidate", cluster, options, 24, false),
            (std::map<std::uint32_t, int>{{2, 8}, {3, 8}, {4, 8}}));
  // In TP groups of 4 nodes 6 and 7 offer 4 each: group 1 has 20, group 0 has 20; both groups,
  // the first's roomiest leaf first (nodes 2, 3), then its other (node 0), then group 1's.
  const auto groups = place_on("topology", cluster, options, 24, true);
  EXPECT_EQ(groups, (std::map<std::uint32_t, int>{{0, 4}, {2, 8}, {3, 8}, {4, 4}}));
  for (const auto& [node, gpus] : groups) EXPECT_EQ(gpus % 4, 0) << "node " << node;
}

// Eight 4-GPU nodes in two 16-GPU scale-up domains (nodes 0-3, 4-7), one rack: free
// 4, 2, 2, 0 | 4, 4, 2, 2.
ClusterState two_domains_of_four_nodes(SimOptions& options) {
  ClusterSpec spec;
  spec.nodes_per_rack = 8;
  NodeGroupSpec group;
  group.nodes = 8;
  group.gpus_per_node = 4;
  spec.groups = {group};
  ClusterState cluster(spec);
  cluster.allocate({1, 2}, 0, 0);
  cluster.allocate({2, 2}, 0, 0);
  cluster.allocate({3, 4}, 0, 0);
  cluster.allocate({6, 2}, 0, 0);
  cluster.allocate({7, 2}, 0, 0);
  options.fabric.scale_up_gpus = 16;
  return cluster;
}

TEST(TopologyPlacement, KeepsGroupsInsideDomainsLargerThanANode) {
  SimOptions options = tp_options(8);
  const ClusterState cluster = two_domains_of_four_nodes(options);
  // 16 GPUs in TP groups of 8 (two nodes' worth each): domain 0 offers 8, domain 1 8 of its 12,
  // so one group in each, each from its domain's roomiest nodes.
  const auto groups = place_on("topology", cluster, options, 16, true);
  EXPECT_EQ(groups, (std::map<std::uint32_t, int>{{0, 4}, {1, 2}, {2, 2}, {4, 4}, {5, 4}}));
  int domain_0 = 0;
  for (const auto& [node, gpus] : groups) domain_0 += node < 4 ? gpus : 0;
  EXPECT_EQ(domain_0 % 8, 0);
  // One group of 8 fits either domain: the tightest, domain 0 (8 against 12), over three nodes.
  EXPECT_EQ(place_on("topology", cluster, options, 8, true),
            (std::map<std::uint32_t, int>{{0, 4}, {1, 2}, {2, 2}}));
  // A 12-GPU job without LLM columns fits only domain 1 whole.
  EXPECT_EQ(place_on("topology", cluster, options, 12, false),
            (std::map<std::uint32_t, int>{{4, 4}, {5, 4}, {6, 2}, {7, 2}}));
  // 20 GPUs in groups of 8: whole groups give 16 only, so a group splits (every free GPU).
  EXPECT_EQ(place_on("topology", cluster, options, 20, true).size(), 7u);
  // A domain must be whole nodes.
  options.fabric.scale_up_gpus = 6;
  EXPECT_THROW(place_on("topology", cluster, options, 8, true), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
