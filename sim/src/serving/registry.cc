// Task placement and cache policies by name.
#include <stdexcept>

#include "serving/factories.h"

namespace clustersim {

const std::vector<std::string>& task_placement_names() {
  static const std::vector<std::string> names = {"compass", "round_robin", "least_loaded",
                                                 "model_affinity", "heft"};
  return names;
}

std::unique_ptr<TaskPlacementPolicy> make_task_placement(const std::string& name,
                                                         const CompassOptions& compass) {
  if (name == "compass") return serving_internal::make_compass_placement(compass);
  if (name == "round_robin") return serving_internal::make_round_robin_placement();
  if (name == "least_loaded") return serving_internal::make_least_loaded_placement();
  if (name == "model_affinity") return serving_internal::make_model_affinity_placement();
  if (name == "heft") return serving_internal::make_heft_placement();
  throw std::invalid_argument("unknown task placement '" + name +
                              "' (expected compass, round_robin, least_loaded, model_affinity or "
                              "heft)");
}

const std::vector<std::string>& cache_policy_names() {
  static const std::vector<std::string> names = {"lru", "compass"};
  return names;
}

std::unique_ptr<CachePolicy> make_cache_policy(const std::string& name, int compass_lookahead) {
  if (name == "lru") return serving_internal::make_lru_cache();
  if (name == "compass") return serving_internal::make_compass_cache(compass_lookahead);
  throw std::invalid_argument("unknown cache policy '" + name + "' (expected lru or compass)");
}

}  // namespace clustersim
