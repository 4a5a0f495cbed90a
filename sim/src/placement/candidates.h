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

// ---- The indexed fast path (cluster_state.h's node index) ----------------------------------

constexpr std::uint32_t kNoNode = NodeBitset::kNone;

// The GPU type whose index answers for this request, or -1: the request must be at the
// proportional share and the index must cover every node of its type with free GPUs (then a
// node hosts exactly its free GPUs, as the scan below would find).
inline int indexed_type(const PlacementRequest& request, const ClusterState& cluster) {
  if (!request.proportional()) return -1;
  int type = request.gpu_type;
  if (type < 0) {
    if (cluster.gpu_type_names().size() != 1) return -1;
    type = 0;
  }
  return cluster.index_covers(type) ? type : -1;
}

// tightest_single_node on the index: the lowest node among those with the fewest free GPUs that
// still hold `gpus`.
inline std::uint32_t tightest_indexed_node(const ClusterState& cluster, int type, int gpus) {
  const auto all = static_cast<std::uint32_t>(cluster.nodes().size());
  for (int free = gpus; free <= cluster.max_gpus_per_node(); ++free) {
    const std::uint32_t node = cluster.next_node_with_free(type, free, 0, all);
    if (node != kNoNode) return node;
  }
  return kNoNode;
}

// Calls visit(node, free) for the indexed nodes of [begin, end) in (free descending, node
// ascending) order, until it returns false.
template <typename Visit>
void for_each_roomiest(const ClusterState& cluster, int type, std::uint32_t begin,
                       std::uint32_t end, Visit visit) {
  for (int free = cluster.max_gpus_per_node(); free >= 1; --free)
    for (std::uint32_t node = cluster.next_node_with_free(type, free, begin, end); node != kNoNode;
         node = cluster.next_node_with_free(type, free, node + 1, end))
      if (!visit(node, free)) return;
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
