// The cluster's free resources while the simulation runs, node by node. Placement policies
// read it; the engine allocates and releases.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster.h"

namespace clustersim {

// Resources a job wants, per GPU. A negative per-GPU CPU or memory figure means "proportional":
// the node's CPUs (memory) divided by its GPUs.
struct PlacementRequest {
  int gpus = 1;
  int gpu_type = -1;  // -1 = any
  double cpus_per_gpu = -1.0;
  double mem_per_gpu = -1.0;
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
    double storage_mbps = 0.0;
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

  // How many GPUs of `node` the request could use right now (0 if the type does not match).
  int hostable(const Node& node, const PlacementRequest& request) const;
  // The same on an empty node (used to reject impossible jobs).
  int hostable_when_empty(const Node& node, const PlacementRequest& request) const;
  // CPU and memory a share of `gpus` GPUs on `node` takes for this request.
  double cpus_for(const Node& node, const PlacementRequest& request, int gpus) const;
  double mem_for(const Node& node, const PlacementRequest& request, int gpus) const;

  void allocate(const NodeShare& share, double cpus, double mem_gb);
  void release(const NodeShare& share, double cpus, double mem_gb);

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
  bool models_cpus_ = false;
  bool models_mem_ = false;
};

}  // namespace clustersim
