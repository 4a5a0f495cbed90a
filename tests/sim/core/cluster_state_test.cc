#include "clustersim/cluster_state.h"

#include <gtest/gtest.h>

namespace clustersim {
namespace {

ClusterSpec two_groups() {
  ClusterSpec spec;
  spec.nodes_per_rack = 2;
  NodeGroupSpec a;
  a.name = "a";
  a.nodes = 3;
  a.gpus_per_node = 8;
  a.gpu_type = "v100";
  a.cpus_per_node = 32;
  a.mem_gb_per_node = 256;
  NodeGroupSpec b = a;
  b.name = "b";
  b.nodes = 1;
  b.gpus_per_node = 4;
  b.gpu_type = "a100";
  spec.groups = {a, b};
  return spec;
}

TEST(ClusterState, BuildsRacksAndTypesFromGroups) {
  ClusterState cluster(two_groups());
  ASSERT_EQ(cluster.nodes().size(), 4u);
  EXPECT_EQ(cluster.num_racks(), 2);
  EXPECT_EQ(cluster.node(1).rack, 0);
  EXPECT_EQ(cluster.node(2).rack, 1);
  EXPECT_EQ(cluster.total_gpus(), 28);
  EXPECT_EQ(cluster.total_gpus(cluster.find_gpu_type("a100")), 4);
  EXPECT_EQ(cluster.find_gpu_type("k80"), -1);
}

TEST(ClusterState, HostableHonoursTypeCpuAndMemory) {
  ClusterState cluster(two_groups());
  PlacementRequest request;
  request.gpus = 8;
  request.gpu_type = cluster.find_gpu_type("v100");
  EXPECT_EQ(cluster.hostable(cluster.node(0), request), 8);
  EXPECT_EQ(cluster.hostable(cluster.node(3), request), 0);  // wrong type
  request.cpus_per_gpu = 10;                                 // 32 CPUs host 3 such GPUs
  EXPECT_EQ(cluster.hostable(cluster.node(0), request), 3);
  request.mem_per_gpu = 128;  // 256 GB host 2
  EXPECT_EQ(cluster.hostable(cluster.node(0), request), 2);
}

TEST(ClusterState, AllocateAndReleaseKeepCounts) {
  ClusterState cluster(two_groups());
  cluster.allocate({0, 5}, 20, 160);
  EXPECT_EQ(cluster.free_gpus(), 23);
  EXPECT_EQ(cluster.node(0).free_gpus, 3);
  EXPECT_DOUBLE_EQ(cluster.node(0).free_cpus, 12);
  EXPECT_THROW(cluster.allocate({0, 4}, 0, 0), std::logic_error);   // only 3 GPUs left
  EXPECT_THROW(cluster.allocate({0, 1}, 13, 0), std::logic_error);  // only 12 CPUs left
  cluster.release({0, 5}, 20, 160);
  EXPECT_EQ(cluster.free_gpus(), 28);
  EXPECT_THROW(cluster.release({0, 1}, 0, 0), std::logic_error);
}

TEST(ClusterState, RejectsBadSpecs) {
  ClusterSpec spec = two_groups();
  spec.groups[0].gpus_per_node = 65;
  EXPECT_THROW(ClusterState{spec}, std::invalid_argument);
  spec = two_groups();
  spec.groups.clear();
  EXPECT_THROW(ClusterState{spec}, std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
