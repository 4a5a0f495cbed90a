// Random: each GPU is drawn uniformly from all GPUs that could host it now (a baseline that
// ignores locality and fragmentation). Draws from the engine's seeded generator.
#include <algorithm>

#include "placement/candidates.h"
#include "placement/factories.h"

namespace clustersim::placement {

namespace {
class RandomPlacement final : public PlacementPolicy {
 public:
  explicit RandomPlacement(Rng& rng) : rng_(rng) {}
  bool uses_free_gpu_prefix_sums() const override { return true; }
  bool place(const PlacementRequest& request, const ClusterState& cluster,
             std::vector<NodeShare>& out) override {
    out.clear();
    if (const int type = indexed_type(request, cluster);
        type >= 0 && cluster.tracks_free_gpu_prefix_sums())
      return place_indexed(request.gpus, type, cluster, out);
    int room = collect_candidates(request, cluster, candidates_);
    if (room < request.gpus) return false;
    taken_.assign(candidates_.size(), 0);
    for (int g = 0; g < request.gpus; ++g) {
      // Pick the k-th still-free GPU, k uniform over what is left.
      auto k = static_cast<int>(rng_.below(static_cast<std::uint64_t>(room)));
      for (std::size_t i = 0; i < candidates_.size(); ++i) {
        const int left = candidates_[i].hostable - taken_[i];
        if (k < left) {
          ++taken_[i];
          break;
        }
        k -= left;
      }
      --room;
    }
    for (std::size_t i = 0; i < candidates_.size(); ++i)
      if (taken_[i] > 0) out.push_back({candidates_[i].node, taken_[i]});
    return true;
  }

 private:
  // The same draws on the node index: the k-th free GPU in node order from its prefix sums, each
  // picked GPU taken out of the sums until the job is placed (then put back).
  bool place_indexed(int gpus, int type, const ClusterState& cluster,
                     std::vector<NodeShare>& out) {
    int room = cluster.free_gpus(type);
    if (room < gpus) return false;
    picked_.clear();
    for (int g = 0; g < gpus; ++g) {
      const auto k = static_cast<int>(rng_.below(static_cast<std::uint64_t>(room)));
      int before = 0;
      const std::uint32_t node = cluster.node_with_free_gpu(type, k, &before);
      cluster.adjust_free_gpu_tree(type, node, -1);
      picked_.push_back(node);
      --room;
    }
    for (std::uint32_t node : picked_) cluster.adjust_free_gpu_tree(type, node, +1);
    std::sort(picked_.begin(), picked_.end());
    for (std::uint32_t node : picked_) {
      if (!out.empty() && out.back().node == node) {
        ++out.back().gpus;
      } else {
        out.push_back({node, 1});
      }
    }
    return true;
  }

  Rng& rng_;
  std::vector<std::uint32_t> picked_;
  std::vector<Candidate> candidates_;
  std::vector<int> taken_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_random(Rng& rng) {
  return std::make_unique<RandomPlacement>(rng);
}

}  // namespace clustersim::placement
