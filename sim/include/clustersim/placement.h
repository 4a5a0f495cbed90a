// Placement policies: which nodes' GPUs a starting job gets. One small interface; registered by
// name; randomness comes from the engine's seeded generator (injectable in tests).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/random.h"

namespace clustersim {

struct SimOptions;

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // Fills `out` with node shares summing to request.gpus and returns true, or returns false
  // (leaving `out` unspecified) when the request cannot be placed now. Must not allocate.
  virtual bool place(const PlacementRequest& request, const ClusterState& cluster,
                     std::vector<NodeShare>& out) = 0;
  // Whether the policy reads the ledger's prefix sums of free GPUs (node_with_free_gpu); the
  // engine keeps them only then (they cost O(log nodes) per grant).
  virtual bool uses_free_gpu_prefix_sums() const { return false; }
  // Whether it puts a job on the fewest nodes it can (defragmentation makes room only for
  // placements that then use it).
  virtual bool consolidates() const { return false; }
  // Once, before the first placement: the run's options and cluster, for a placement that reads
  // more than the request (the fabric's switches, the jobs' LLM layouts: the topology placement).
  virtual void configure(const SimOptions& options, const ClusterState& cluster) {
    (void)options;
    (void)cluster;
  }
};

std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name, Rng& rng);
std::vector<std::string> placement_policy_names();

}  // namespace clustersim
