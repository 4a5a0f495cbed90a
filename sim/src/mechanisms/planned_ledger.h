// What is free on nodes once grants planned (but not yet applied) are taken: planners of moves
// and resizes check each next grant against it, and the ledger itself is only changed when the
// engine applies the plan. Private to the core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clustersim/cluster_state.h"

namespace clustersim::internal {

class PlannedLedger {
 public:
  explicit PlannedLedger(const ClusterState& cluster) : cluster_(cluster) {}

  void clear() { taken_.clear(); }
  std::size_t mark() const { return taken_.size(); }
  void rollback(std::size_t mark) { taken_.resize(mark); }
  bool empty() const { return taken_.empty(); }

  int free_gpus(std::uint32_t node) const {
    int free = cluster_.node(node).free_gpus;
    for (const Grant& taken : taken_)
      if (taken.node == node) free -= taken.gpus;
    return free;
  }
  bool touched(std::uint32_t node) const {
    for (const Grant& taken : taken_)
      if (taken.node == node) return true;
    return false;
  }
  // Whether `grant` fits what the node has free after the planned grants.
  bool fits(const Grant& grant) const {
    constexpr double kTolerance = 1e-9;
    const auto& node = cluster_.node(grant.node);
    int gpus = node.free_gpus;
    double cpus = node.free_cpus, mem = node.free_mem_gb, storage = node.free_storage_mbps;
    for (const Grant& taken : taken_) {
      if (taken.node != grant.node) continue;
      gpus -= taken.gpus;
      cpus -= taken.cpus;
      mem -= taken.mem_gb;
      storage -= taken.storage_mbps;
    }
    return grant.gpus <= gpus && (node.cpus <= 0.0 || grant.cpus <= cpus + kTolerance) &&
           (node.mem_gb <= 0.0 || grant.mem_gb <= mem + kTolerance) &&
           (node.storage_mbps <= 0.0 || grant.storage_mbps <= storage + kTolerance);
  }
  void take(const Grant& grant) { taken_.push_back(grant); }

 private:
  const ClusterState& cluster_;
  std::vector<Grant> taken_;  // few: a planner's moves or resizes of one call
};

}  // namespace clustersim::internal
