// Consolidate: as few nodes, then as few racks, as possible. A job that fits one node gets the
// tightest such node (keeping large holes for large jobs); else the rack needing the fewest
// nodes; else the emptiest nodes across racks, rack by rack.
#include <algorithm>

#include "placement/candidates.h"
#include "placement/factories.h"

namespace clustersim::placement {

namespace {
class Consolidate final : public PlacementPolicy {
 public:
  bool consolidates() const override { return true; }
  bool place(const PlacementRequest& request, const ClusterState& cluster,
             std::vector<NodeShare>& out) override {
    out.clear();
    const int type = indexed_type(request, cluster);
    if (type >= 0) return place_indexed(request.gpus, type, cluster, out);
    if (collect_candidates(request, cluster, candidates_) < request.gpus) return false;
    if (const Candidate* node = tightest_single_node(candidates_, request.gpus)) {
      out.push_back({node->node, request.gpus});
      return true;
    }
    // Largest holes first, so every later step needs the fewest nodes.
    std::sort(candidates_.begin(), candidates_.end(), [&](const Candidate& a, const Candidate& b) {
      const int rack_a = cluster.node(a.node).rack, rack_b = cluster.node(b.node).rack;
      if (rack_a != rack_b) return rack_a < rack_b;
      if (a.hostable != b.hostable) return a.hostable > b.hostable;
      return a.node < b.node;
    });
    // Best single rack: fewest nodes needed, then least left over.
    int best_rack = -1, best_nodes = 0, best_leftover = 0;
    for (std::size_t begin = 0; begin < candidates_.size();) {
      const int rack = cluster.node(candidates_[begin].node).rack;
      std::size_t end = begin;
      int sum = 0, needed_nodes = 0, remaining = request.gpus;
      for (; end < candidates_.size() && cluster.node(candidates_[end].node).rack == rack; ++end) {
        sum += candidates_[end].hostable;
        if (remaining > 0) {
          remaining -= candidates_[end].hostable;
          ++needed_nodes;
        }
      }
      if (remaining <= 0 && (best_rack < 0 || needed_nodes < best_nodes ||
                             (needed_nodes == best_nodes && sum - request.gpus < best_leftover))) {
        best_rack = rack;
        best_nodes = needed_nodes;
        best_leftover = sum - request.gpus;
      }
      begin = end;
    }
    if (best_rack >= 0) {
      int gpus = request.gpus;
      for (const auto& candidate : candidates_) {
        if (gpus == 0) break;
        if (cluster.node(candidate.node).rack != best_rack) continue;
        const int take = std::min(candidate.hostable, gpus);
        out.push_back({candidate.node, take});
        gpus -= take;
      }
      return true;
    }
    // Across racks: the racks with the most room first, each rack's largest holes first.
    rack_room_.assign(cluster.num_racks(), 0);
    for (const auto& candidate : candidates_)
      rack_room_[cluster.node(candidate.node).rack] += candidate.hostable;
    // A total order (std::sort; stable_sort would allocate a buffer per placement).
    std::sort(candidates_.begin(), candidates_.end(), [&](const Candidate& a, const Candidate& b) {
      const int rack_a = cluster.node(a.node).rack, rack_b = cluster.node(b.node).rack;
      if (rack_room_[rack_a] != rack_room_[rack_b]) return rack_room_[rack_a] > rack_room_[rack_b];
      if (rack_a != rack_b) return rack_a < rack_b;
      if (a.hostable != b.hostable) return a.hostable > b.hostable;
      return a.node < b.node;
    });
    take_in_order(candidates_, request.gpus, out);
    return true;
  }

 private:
  // The same choices on the node index, in O(GPUs per node) for a job that fits one node and
  // O(racks x GPUs per node) for one that does not.
  bool place_indexed(int gpus, int type, const ClusterState& cluster, std::vector<NodeShare>& out) {
    if (cluster.free_gpus(type) < gpus) return false;
    if (const std::uint32_t node = tightest_indexed_node(cluster, type, gpus); node != kNoNode) {
      out.push_back({node, gpus});
      return true;
    }
    // Best single rack: fewest nodes needed (largest holes first), then least left over.
    const int widest = cluster.max_gpus_per_node();
    int best_rack = -1, best_nodes = 0, best_leftover = 0;
    for (int rack : cluster.racks_of_type(type)) {
      const int room = cluster.rack_free_gpus(type, rack);
      if (room < gpus) continue;
      int remaining = gpus, needed = 0;
      for (int free = widest; free >= 1 && remaining > 0; --free) {
        const int count = cluster.rack_nodes_with_free(type, rack, free);
        const int take = std::min(count, (remaining + free - 1) / free);
        needed += take;
        remaining -= take * free;
      }
      if (best_rack < 0 || needed < best_nodes ||
          (needed == best_nodes && room - gpus < best_leftover)) {
        best_rack = rack;
        best_nodes = needed;
        best_leftover = room - gpus;
      }
    }
    int left = gpus;
    const auto take = [&](std::uint32_t node, int free) {
      const int n = std::min(free, left);
      out.push_back({node, n});
      left -= n;
      return left > 0;
    };
    if (best_rack >= 0) {
      for_each_roomiest(cluster, type, cluster.rack_begin(best_rack), cluster.rack_end(best_rack),
                        take);
      return true;
    }
    // Across racks: the racks with the most room first, each rack's largest holes first.
    racks_.clear();
    for (int rack : cluster.racks_of_type(type))
      if (cluster.rack_free_gpus(type, rack) > 0) racks_.push_back(rack);
    std::sort(racks_.begin(), racks_.end(), [&](int a, int b) {
      const int room_a = cluster.rack_free_gpus(type, a), room_b = cluster.rack_free_gpus(type, b);
      return room_a != room_b ? room_a > room_b : a < b;
    });
    for (int rack : racks_) {
      if (left == 0) break;
      for_each_roomiest(cluster, type, cluster.rack_begin(rack), cluster.rack_end(rack), take);
    }
    return true;
  }

  std::vector<Candidate> candidates_;  // reused: no allocation per placement
  std::vector<int> rack_room_;
  std::vector<int> racks_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_consolidate(Rng&) { return std::make_unique<Consolidate>(); }

}  // namespace clustersim::placement
