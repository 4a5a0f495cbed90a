// Shared by placement policies: the nodes that could host part of a request right now.
#pragma once

#include <vector>

#include "clustersim/cluster_state.h"

namespace clustersim::placement {

struct Candidate {
  std::uint32_t node;
  int hostable;
};

// Fills `out` with every node that can host at least one GPU of the request; returns the sum.
inline int collect_candidates(const PlacementRequest& request, const ClusterState& cluster,
                              std::vector<Candidate>& out) {
  out.clear();
  int total = 0;
  const auto nodes = cluster.nodes();
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    const int hostable = cluster.hostable(nodes[i], request);
    if (hostable > 0) {
      out.push_back({i, hostable});
      total += hostable;
    }
  }
  return total;
}

// The candidate with the fewest hostable GPUs that still hosts the whole request, or nullptr.
inline const Candidate* tightest_single_node(const std::vector<Candidate>& candidates, int gpus) {
  const Candidate* best = nullptr;
  for (const auto& candidate : candidates)
    if (candidate.hostable >= gpus && (best == nullptr || candidate.hostable < best->hostable))
      best = &candidate;
  return best;
}

// Takes GPUs from `candidates` in their order until `gpus` are taken.
inline void take_in_order(const std::vector<Candidate>& candidates, int gpus,
                          std::vector<NodeShare>& out) {
  for (const auto& candidate : candidates) {
    if (gpus == 0) break;
    const int take = candidate.hostable < gpus ? candidate.hostable : gpus;
    out.push_back({candidate.node, take});
    gpus -= take;
  }
}

}  // namespace clustersim::placement
