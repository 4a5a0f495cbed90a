// The physical cluster (racks -> nodes -> GPUs, CPU, memory, storage) and its logical partitions.
#pragma once

#include <string>
#include <vector>

namespace clustersim {

// A homogeneous group of nodes. A cluster is one or more groups (heterogeneous clusters).
struct NodeGroupSpec {
  std::string name = "default";
  int nodes = 0;
  int gpus_per_node = 8;  // at most 64
  std::string gpu_type = "generic";
  double cpus_per_node = 0.0;          // 0 = not modelled (never a constraint)
  double mem_gb_per_node = 0.0;        // 0 = not modelled
  double storage_mbps_per_node = 0.0;  // 0 = not modelled
  // Serving DAG workloads only (serving.h; training runs ignore them): each GPU's memory, the
  // node's network bandwidth (Gb/s) and per-transfer latency (us). 0 (latency: < 0) = the
  // serving catalog's default for gpu_type / its network.
  // Training runs: each GPU's memory for GPU shares (0: not modelled; sim/README.md, "GPU sharing
  // and CPU-only jobs").
  double gpu_mem_gb = 0.0;
  double net_gbps = 0.0;
  double net_latency_us = -1.0;
  // Training runs: every GPU of the group is MIG-partitioned with this geometry (mig.h; e.g.
  // "a100-40gb"); empty = whole GPUs.
  std::string mig;
  // A fleet's cluster in one run (fleet.h): groups of different partitions never share a GPU
  // type index or a rack, so a job bound to one partition's types runs on its nodes only. 0 for
  // every group outside a fleet (today's cluster).
  int partition = 0;
};

// A virtual cluster (tenant) with a GPU quota.
struct VcSpec {
  std::string name;
  int gpu_quota = 0;
};

struct ClusterSpec {
  std::vector<NodeGroupSpec> groups;
  int nodes_per_rack = 32;  // racks are filled in node order, groups one after another
  std::vector<VcSpec> vcs;  // empty = one implicit VC owning the whole cluster

  int total_gpus() const;
  int total_nodes() const;
};

}  // namespace clustersim
