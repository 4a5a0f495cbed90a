#include "clustersim/cluster_state.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace clustersim {

namespace {
// Keeps repeated allocate/release of fractional CPU or memory from drifting below zero.
constexpr double kResourceEpsilon = 1e-9;
}  // namespace

ClusterState::ClusterState(const ClusterSpec& spec) {
  if (spec.groups.empty()) throw std::invalid_argument("cluster: no nodes");
  if (spec.nodes_per_rack <= 0) throw std::invalid_argument("cluster: nodes_per_rack must be > 0");
  for (const auto& group : spec.groups) {
    if (group.nodes <= 0)
      throw std::invalid_argument("cluster: group '" + group.name + "' has no nodes");
    if (group.gpus_per_node <= 0 || group.gpus_per_node > 64)
      throw std::invalid_argument("cluster: gpus_per_node must be in 1..64");
    if (group.cpus_per_node < 0 || group.mem_gb_per_node < 0 || group.storage_mbps_per_node < 0)
      throw std::invalid_argument("cluster: negative node resources");
    int type = find_gpu_type(group.gpu_type);
    if (type < 0) {
      type = static_cast<int>(gpu_type_names_.size());
      gpu_type_names_.push_back(group.gpu_type);
      total_by_type_.push_back(0);
    }
    for (int i = 0; i < group.nodes; ++i) {
      Node node;
      node.rack = static_cast<int>(nodes_.size()) / spec.nodes_per_rack;
      node.gpu_type = type;
      node.gpus = node.free_gpus = group.gpus_per_node;
      node.cpus = node.free_cpus = group.cpus_per_node;
      node.mem_gb = node.free_mem_gb = group.mem_gb_per_node;
      node.storage_mbps = group.storage_mbps_per_node;
      nodes_.push_back(node);
      total_by_type_[type] += node.gpus;
      total_gpus_ += node.gpus;
      total_cpus_ += node.cpus;
      total_mem_gb_ += node.mem_gb;
      models_cpus_ = models_cpus_ || node.cpus > 0;
      models_mem_ = models_mem_ || node.mem_gb > 0;
    }
  }
  num_racks_ = nodes_.back().rack + 1;
  free_gpus_ = total_gpus_;
  free_by_type_ = total_by_type_;
}

int ClusterState::total_gpus(int gpu_type) const {
  return gpu_type < 0 ? total_gpus_ : total_by_type_[gpu_type];
}

int ClusterState::free_gpus(int gpu_type) const {
  return gpu_type < 0 ? free_gpus_ : free_by_type_[gpu_type];
}

int ClusterState::find_gpu_type(const std::string& name) const {
  for (std::size_t i = 0; i < gpu_type_names_.size(); ++i)
    if (gpu_type_names_[i] == name) return static_cast<int>(i);
  return -1;
}

namespace {
// GPUs that `free` units of a resource support at `per_gpu` units each (per_gpu <= 0: no limit).
int gpus_supported(double free, double per_gpu, int cap) {
  if (per_gpu <= 0.0) return cap;
  return std::min(cap, static_cast<int>(std::floor((free + kResourceEpsilon) / per_gpu)));
}

double per_gpu_share(double requested, double node_total, int node_gpus) {
  if (requested >= 0.0) return requested;
  return node_total > 0.0 ? node_total / node_gpus : 0.0;
}
}  // namespace

double ClusterState::cpus_for(const Node& node, const PlacementRequest& request, int gpus) const {
  if (node.cpus <= 0.0) return 0.0;
  return per_gpu_share(request.cpus_per_gpu, node.cpus, node.gpus) * gpus;
}

double ClusterState::mem_for(const Node& node, const PlacementRequest& request, int gpus) const {
  if (node.mem_gb <= 0.0) return 0.0;
  return per_gpu_share(request.mem_per_gpu, node.mem_gb, node.gpus) * gpus;
}

int ClusterState::hostable(const Node& node, const PlacementRequest& request) const {
  if (request.gpu_type >= 0 && node.gpu_type != request.gpu_type) return 0;
  int gpus = node.free_gpus;
  if (gpus == 0) return 0;
  if (node.cpus > 0.0)
    gpus = gpus_supported(node.free_cpus, per_gpu_share(request.cpus_per_gpu, node.cpus, node.gpus),
                          gpus);
  if (node.mem_gb > 0.0)
    gpus = gpus_supported(node.free_mem_gb,
                          per_gpu_share(request.mem_per_gpu, node.mem_gb, node.gpus), gpus);
  return gpus;
}

int ClusterState::hostable_when_empty(const Node& node, const PlacementRequest& request) const {
  if (request.gpu_type >= 0 && node.gpu_type != request.gpu_type) return 0;
  int gpus = node.gpus;
  if (node.cpus > 0.0)
    gpus =
        gpus_supported(node.cpus, per_gpu_share(request.cpus_per_gpu, node.cpus, node.gpus), gpus);
  if (node.mem_gb > 0.0)
    gpus = gpus_supported(node.mem_gb, per_gpu_share(request.mem_per_gpu, node.mem_gb, node.gpus),
                          gpus);
  return gpus;
}

void ClusterState::allocate(const NodeShare& share, double cpus, double mem_gb) {
  Node& node = nodes_[share.node];
  if (share.gpus <= 0 || share.gpus > node.free_gpus || cpus > node.free_cpus + kResourceEpsilon ||
      mem_gb > node.free_mem_gb + kResourceEpsilon)
    throw std::logic_error("cluster: over-allocation of node " + std::to_string(share.node));
  node.free_gpus -= share.gpus;
  node.free_cpus = std::max(0.0, node.free_cpus - cpus);
  node.free_mem_gb = std::max(0.0, node.free_mem_gb - mem_gb);
  free_gpus_ -= share.gpus;
  free_by_type_[node.gpu_type] -= share.gpus;
}

void ClusterState::release(const NodeShare& share, double cpus, double mem_gb) {
  Node& node = nodes_[share.node];
  if (node.free_gpus + share.gpus > node.gpus)
    throw std::logic_error("cluster: release of unallocated GPUs on node " +
                           std::to_string(share.node));
  node.free_gpus += share.gpus;
  node.free_cpus = std::min(node.cpus, node.free_cpus + cpus);
  node.free_mem_gb = std::min(node.mem_gb, node.free_mem_gb + mem_gb);
  free_gpus_ += share.gpus;
  free_by_type_[node.gpu_type] += share.gpus;
}

}  // namespace clustersim
