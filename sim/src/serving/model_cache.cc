#include "clustersim/model_cache.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace clustersim {

bool ModelCache::contains(int model) const {
  for (const ResidentModel& r : resident_)
    if (r.model == model) return true;
  return false;
}

double ModelCache::used_gb() const {
  double sum = 0.0;
  for (const ResidentModel& r : resident_) sum += r.size_gb;
  return sum;
}

ModelCache::Access ModelCache::access(int model, double size_gb, const ModelCachePolicy& policy,
                                      std::span<const int> upcoming_models, int in_use_model,
                                      std::vector<int>& evicted) {
  evicted.clear();
  if (size_gb == 0.0) return Access::kNoModel;
  if (!(size_gb > 0.0) || size_gb > capacity_gb_ + kCacheSlackGb)
    throw std::invalid_argument("model " + std::to_string(model) + " (" + std::to_string(size_gb) +
                                " GB) cannot fit a GPU of " + std::to_string(capacity_gb_) + " GB");
  for (std::size_t i = 0; i < resident_.size(); ++i) {
    if (resident_[i].model != model) continue;
    std::rotate(resident_.begin() + static_cast<std::ptrdiff_t>(i),
                resident_.begin() + static_cast<std::ptrdiff_t>(i) + 1, resident_.end());
    return Access::kHit;
  }
  if (used_gb() + size_gb > capacity_gb_ + kCacheSlackGb) {
    EvictionRequest request;
    request.resident = resident_;
    request.capacity_gb = capacity_gb_;
    request.incoming_model = model;
    request.incoming_gb = size_gb;
    request.upcoming_models = upcoming_models;
    request.in_use_model = in_use_model;
    victims_.clear();
    if (!policy.choose_victims(request, victims_)) return Access::kNoRoom;
    // The policy's choice is checked, not trusted: distinct, in range, not in use, and enough.
    double freed = 0.0;
    for (std::size_t k = 0; k < victims_.size(); ++k) {
      const std::size_t i = victims_[k];
      if (i >= resident_.size() || resident_[i].model == in_use_model ||
          std::find(victims_.begin(), victims_.begin() + static_cast<std::ptrdiff_t>(k), i) !=
              victims_.begin() + static_cast<std::ptrdiff_t>(k))
        throw std::logic_error("cache policy '" + std::string(policy.name()) +
                               "' chose an invalid victim");
      freed += resident_[i].size_gb;
    }
    if (used_gb() - freed + size_gb > capacity_gb_ + kCacheSlackGb)
      throw std::logic_error("cache policy '" + std::string(policy.name()) + "' did not make room");
    for (const std::size_t i : victims_) evicted.push_back(resident_[i].model);
    std::sort(victims_.begin(), victims_.end());
    for (std::size_t k = victims_.size(); k-- > 0;)
      resident_.erase(resident_.begin() + static_cast<std::ptrdiff_t>(victims_[k]));
  }
  resident_.push_back({model, size_gb});
  return Access::kLoaded;
}

}  // namespace clustersim
