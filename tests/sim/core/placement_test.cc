#include "clustersim/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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
  EXPECT_EQ(placement_policy_names().size(), 4u);
}

}  // namespace
}  // namespace clustersim
