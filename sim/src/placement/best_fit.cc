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
