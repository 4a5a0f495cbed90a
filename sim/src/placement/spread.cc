// Spread: one GPU at a time to the node with the most room, so a job spans as many nodes as it
// can (isolates jobs' host resources; the opposite of consolidate).
#include <algorithm>

#include "placement/candidates.h"
#include "placement/factories.h"

namespace clustersim::placement {

namespace {
class Spread final : public PlacementPolicy {
 public:
  bool place(const PlacementRequest& request, const ClusterState& cluster,
             std::vector<NodeShare>& out) override {
    out.clear();
    if (const int type = indexed_type(request, cluster); type >= 0) {
      // Only the roomiest `gpus` nodes can get a GPU: read them off the index in order.
      if (cluster.free_gpus(type) < request.gpus) return false;
      candidates_.clear();
      for_each_roomiest(cluster, type, 0, static_cast<std::uint32_t>(cluster.nodes().size()),
                        [&](std::uint32_t node, int free) {
                          candidates_.push_back({node, free});
                          return static_cast<int>(candidates_.size()) < request.gpus;
                        });
    } else {
      if (collect_candidates(request, cluster, candidates_) < request.gpus) return false;
      std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
        return a.hostable != b.hostable ? a.hostable > b.hostable : a.node < b.node;
      });
    }
    // Round-robin over the roomiest nodes: node i gets a GPU in each round it still has room.
    taken_.assign(candidates_.size(), 0);
    int gpus = request.gpus;
    while (gpus > 0) {
      for (std::size_t i = 0; i < candidates_.size() && gpus > 0; ++i) {
        if (taken_[i] < candidates_[i].hostable) {
          ++taken_[i];
          --gpus;
        }
      }
    }
    for (std::size_t i = 0; i < candidates_.size(); ++i)
      if (taken_[i] > 0) out.push_back({candidates_[i].node, taken_[i]});
    return true;
  }

 private:
  std::vector<Candidate> candidates_;
  std::vector<int> taken_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_spread(Rng&) { return std::make_unique<Spread>(); }

}  // namespace clustersim::placement
