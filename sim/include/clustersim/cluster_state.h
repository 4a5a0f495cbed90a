// The cluster's free resources while the simulation runs, node by node: the resource ledger.
// Placement policies and allocation mechanisms read it; only the engine allocates and releases
// (when it applies a plan, plan.h), and every grant must fit all of a node's resources.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/plan.h"

namespace clustersim {

// Resources a job wants, per GPU. A negative per-GPU CPU, memory or storage figure means
// "proportional": the node's CPUs (memory, storage bandwidth) divided by its GPUs; 0 means none
// (the request is placed by GPUs alone).
struct PlacementRequest {
  int gpus = 1;
  int gpu_type = -1;  // -1 = any
  double cpus_per_gpu = -1.0;
  double mem_per_gpu = -1.0;
  double storage_per_gpu = -1.0;
};

struct NodeShare {
  std::uint32_t node = 0;
  int gpus = 0;
};

class ClusterState {
 public:
  struct Node {
    int rack = 0;
    int gpu_type = 0;
    int gpus = 0;
    int free_gpus = 0;
    double cpus = 0.0;  // 0 = not modelled
    double mem_gb = 0.0;
    double free_cpus = 0.0;
    double free_mem_gb = 0.0;
    double storage_mbps = 0.0;  // 0 = not modelled
    double free_storage_mbps = 0.0;
    // The proportional share per GPU of each resource (0 where it is not modelled), and whether
    // any of them is modelled (when none is, a node hosts as many GPUs as it has free).
    double cpus_per_gpu = 0.0;
    double mem_gb_per_gpu = 0.0;
    double storage_mbps_per_gpu = 0.0;
    bool models_resources = false;
  };

  explicit ClusterState(const ClusterSpec& spec);

  std::span<const Node> nodes() const { return nodes_; }
  const Node& node(std::uint32_t i) const { return nodes_[i]; }
  int num_racks() const { return num_racks_; }
  int total_gpus() const { return total_gpus_; }
  int free_gpus() const { return free_gpus_; }
  // GPUs of a type (-1 = all types).
  int total_gpus(int gpu_type) const;
  int free_gpus(int gpu_type) const;
  const std::vector<std::string>& gpu_type_names() const { return gpu_type_names_; }
  int find_gpu_type(const std::string& name) const;  // -1 if unknown
  bool models_cpus() const { return models_cpus_; }
  bool models_mem() const { return models_mem_; }
  double total_cpus() const { return total_cpus_; }
  double total_mem_gb() const { return total_mem_gb_; }
  double total_storage_mbps() const { return total_storage_mbps_; }
  // Held now, summed over nodes (for utilisation).
  double allocated_cpus() const { return allocated_cpus_; }
  double allocated_mem_gb() const { return allocated_mem_gb_; }
  double allocated_storage_mbps() const { return allocated_storage_mbps_; }

  // How many GPUs of `node` the request could use right now (0 if the type does not match).
  // Inline: placement calls it for every candidate node.
  int hostable(const Node& node, const PlacementRequest& request) const {
    if (request.gpu_type >= 0 && node.gpu_type != request.gpu_type) return 0;
    if (node.free_gpus == 0 || !node.models_resources) return node.free_gpus;
    return hostable_by_resources(node, request);
  }
  // The same on an empty node (used to reject impossible jobs).
  int hostable_when_empty(const Node& node, const PlacementRequest& request) const;
  // CPU, memory and storage bandwidth a share of `gpus` GPUs on `node` takes for this request.
  double cpus_for(const Node& node, const PlacementRequest& request, int gpus) const;
  double mem_for(const Node& node, const PlacementRequest& request, int gpus) const;
  double storage_for(const Node& node, const PlacementRequest& request, int gpus) const;
  // The grant of `gpus` GPUs of `node` for this request (all of its resources).
  Grant grant_for(std::uint32_t node, const PlacementRequest& request, int gpus) const;
  // Whether `grant` fits what the node has free now.
  bool fits(const Grant& grant) const;

  // Take or give back a grant. Throw std::logic_error on over-allocation or over-release (a
  // scheduler bug): the ledger never goes negative.
  void allocate(const Grant& grant);
  void release(const Grant& grant);
  void allocate(const NodeShare& share, double cpus, double mem_gb);
  void release(const NodeShare& share, double cpus, double mem_gb);

 private:
  int hostable_by_resources(const Node& node, const PlacementRequest& request) const;

 public:
 private:
  std::vector<Node> nodes_;
  std::vector<std::string> gpu_type_names_;
  std::vector<int> total_by_type_;
  std::vector<int> free_by_type_;
  int num_racks_ = 0;
  int total_gpus_ = 0;
  int free_gpus_ = 0;
  double total_cpus_ = 0.0;
  double total_mem_gb_ = 0.0;
  double total_storage_mbps_ = 0.0;
  double allocated_cpus_ = 0.0;
  double allocated_mem_gb_ = 0.0;
  double allocated_storage_mbps_ = 0.0;
  bool models_cpus_ = false;
  bool models_mem_ = false;
};

}  // namespace clustersim
