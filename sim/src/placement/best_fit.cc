// Best fit: fill the smallest holes first, to leave as few partly-used nodes as possible. A job
// that fits one node gets the tightest such node; a larger job takes the smallest holes first,
// whatever their racks (it trades locality for less fragmentation).
#include <algorithm>

#include "placement/candidates.h"
#include "placement/factories.h"

namespace clustersim::placement {

namespace {
class BestFit final : public PlacementPolicy {
 public:
  bool place(const PlacementRequest& request, const ClusterState& cluster,
             std::vector<NodeShare>& out) override {
    out.clear();
    if (const int type = indexed_type(request, cluster); type >= 0) {
      // The same choices on the node index: the tightest node, else the smallest holes first.
      if (cluster.free_gpus(type) < request.gpus) return false;
      if (const std::uint32_t node = tightest_indexed_node(cluster, type, request.gpus);
          node != kNoNode) {
        out.push_back({node, request.gpus});
        return true;
      }
      const auto all = static_cast<std::uint32_t>(cluster.nodes().size());
      int left = request.gpus;
      for (int free = 1; free <= cluster.max_gpus_per_node() && left > 0; ++free)
        for (std::uint32_t node = cluster.next_node_with_free(type, free, 0, all);
             node != kNoNode && left > 0; node = cluster.next_node_with_free(type, free, node + 1, all)) {
          const int take = std::min(free, left);
          out.push_back({node, take});
          left -= take;
        }
      return true;
    }
    if (collect_candidates(request, cluster, candidates_) < request.gpus) return false;
    if (const Candidate* node = tightest_single_node(candidates_, request.gpus)) {
      out.push_back({node->node, request.gpus});
      return true;
    }
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
      return a.hostable != b.hostable ? a.hostable < b.hostable : a.node < b.node;
    });
    take_in_order(candidates_, request.gpus, out);
    return true;
  }

 private:
  std::vector<Candidate> candidates_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_best_fit(Rng&) { return std::make_unique<BestFit>(); }

}  // namespace clustersim::placement
