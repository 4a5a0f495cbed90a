// Random: each GPU is drawn uniformly from all GPUs that could host it now (a baseline that
// ignores locality and fragmentation). Draws from the engine's seeded generator.
#include "placement/candidates.h"
#include "placement/factories.h"

namespace clustersim::placement {

namespace {
class RandomPlacement final : public PlacementPolicy {
 public:
  explicit RandomPlacement(Rng& rng) : rng_(rng) {}
  bool place(const PlacementRequest& request, const ClusterState& cluster,
             std::vector<NodeShare>& out) override {
    out.clear();
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
  Rng& rng_;
  std::vector<Candidate> candidates_;
  std::vector<int> taken_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_random(Rng& rng) {
  return std::make_unique<RandomPlacement>(rng);
}

}  // namespace clustersim::placement
