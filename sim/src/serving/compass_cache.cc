// compass: the Compass study's lookahead eviction (Yang et al., arXiv:2402.17652; its public
// simulator's evict_models_from_GPU_until). Looking at the models of the next `lookahead` tasks
// queued on the GPU (3 in the study):
//   1. evict models none of them needs, least recently used first;
//   2. if that is not enough, evict the models they need, the one needed latest first;
// never the model of the task running now. If even that cannot make room, nothing is evicted.
// The study walks its resident models in load order; here they are walked in LRU order (the one
// order the view keeps; the two agree until a resident model is used again).
#include <algorithm>

#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class CompassCache final : public ModelCachePolicy {
 public:
  explicit CompassCache(int lookahead) : lookahead_(lookahead < 0 ? 0 : lookahead) {}

  std::string_view name() const override { return "compass"; }

  bool choose_victims(const EvictionRequest& request,
                      std::vector<std::size_t>& victims) const override {
    const auto window = request.upcoming_models.first(
        std::min(request.upcoming_models.size(), static_cast<std::size_t>(lookahead_)));
    const auto needed_soon = [&](int model) {
      return std::find(window.begin(), window.end(), model) != window.end();
    };
    double used = 0.0;
    for (const ResidentModel& r : request.resident) used += r.size_gb;
    const auto fits = [&] {
      return used + request.incoming_gb <= request.capacity_gb + kCacheSlackGb;
    };
    const std::size_t before = victims.size();
    const auto chosen = [&](std::size_t i) {
      return std::find(victims.begin() + static_cast<std::ptrdiff_t>(before), victims.end(), i) !=
             victims.end();
    };
    // 1. Models no upcoming task needs, least recently used first.
    for (std::size_t i = 0; i < request.resident.size() && !fits(); ++i) {
      const int model = request.resident[i].model;
      if (model == request.in_use_model || needed_soon(model)) continue;
      victims.push_back(i);
      used -= request.resident[i].size_gb;
    }
    // 2. Models upcoming tasks need, the one needed latest first.
    for (std::size_t w = window.size(); w-- > 0 && !fits();) {
      const int model = window[w];
      if (model == request.in_use_model) continue;
      for (std::size_t i = 0; i < request.resident.size(); ++i) {
        if (request.resident[i].model != model || chosen(i)) continue;
        victims.push_back(i);
        used -= request.resident[i].size_gb;
      }
    }
    if (fits()) return true;
    victims.resize(before);
    return false;
  }

 private:
  int lookahead_;
};

}  // namespace

std::unique_ptr<ModelCachePolicy> make_compass_cache(int lookahead) {
  return std::make_unique<CompassCache>(lookahead);
}

}  // namespace clustersim::serving_internal
