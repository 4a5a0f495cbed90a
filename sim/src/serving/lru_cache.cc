// lru: evict the least recently used models (never the one in use) until the new one fits.
#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class Lru final : public ModelCachePolicy {
 public:
  std::string_view name() const override { return "lru"; }
  bool choose_victims(const EvictionRequest& request,
                      std::vector<std::size_t>& victims) const override {
    double used = 0.0;
    for (const ResidentModel& r : request.resident) used += r.size_gb;
    const std::size_t before = victims.size();
    for (std::size_t i = 0; i < request.resident.size(); ++i) {
      if (used + request.incoming_gb <= request.capacity_gb + kCacheSlackGb) return true;
      if (request.resident[i].model == request.in_use_model) continue;
      victims.push_back(i);
      used -= request.resident[i].size_gb;
    }
    if (used + request.incoming_gb <= request.capacity_gb + kCacheSlackGb) return true;
    victims.resize(before);
    return false;
  }
};

}  // namespace

std::unique_ptr<ModelCachePolicy> make_lru_cache() { return std::make_unique<Lru>(); }

}  // namespace clustersim::serving_internal
