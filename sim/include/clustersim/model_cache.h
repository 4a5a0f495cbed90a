// GPU memory as a cache of models: which models stay resident on a GPU, and which are evicted
// when another must be loaded. Several models may be resident at once, as long as their
// footprints add up to at most the GPU's memory; a task runs only when its model is resident.
//
// A cache policy only chooses victims; ModelCache applies the choice exactly and keeps the
// resident set in LRU order (every use moves a model to the most-recent end).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/task_placement.h"

namespace clustersim {

// Sizes are compared with a slack of one byte (1e-9 GB), so that footprints that add up to the
// capacity exactly fit despite rounding.
inline constexpr double kCacheSlackGb = 1e-9;

struct EvictionRequest {
  std::span<const ResidentModel> resident;  // LRU order: least recently used first
  double capacity_gb = 0.0;
  int incoming_model = -1;
  double incoming_gb = 0.0;
  // Models of the tasks queued on this GPU behind the one that needs `incoming_model`, in the
  // order they will run (next first). Compass keeps these resident when it can.
  std::span<const int> upcoming_models;
  int in_use_model = -1;  // model of a task running on the GPU now: never evicted
};

class ModelCachePolicy {
 public:
  virtual ~ModelCachePolicy() = default;
  virtual std::string_view name() const = 0;
  // Appends to `victims` the positions (in request.resident) to evict, in eviction order, so that
  // the incoming model fits. Returns false, leaving `victims` as it was, when no allowed choice
  // makes room (the load must wait for the running task).
  virtual bool choose_victims(const EvictionRequest& request,
                              std::vector<std::size_t>& victims) const = 0;
};

// The old name, for code that includes this header without clustersim/profile.h (whose
// input-pipeline enum ProfileCachePolicy had the same name). Each header declares its alias in
// an inline namespace of its own, so both headers can be included together: only an unqualified
// `CachePolicy` is then ambiguous, and such code names ModelCachePolicy or ProfileCachePolicy.
// New code uses the canonical names.
inline namespace model_cache_compat {
using CachePolicy = ModelCachePolicy;
}  // namespace model_cache_compat

// "lru": least recently used first. "compass": the Compass study's lookahead eviction (models no
// queued task needs first, least recently used first; then models needed latest first), with
// `compass_lookahead` queued tasks considered (the study's simulator looks at 3).
// (Their descriptors, component.h: ComponentKind::kCachePolicy, and any registered ones.)
std::unique_ptr<ModelCachePolicy> make_cache_policy(const std::string& name,
                                                    int compass_lookahead = 3);
std::vector<std::string> cache_policy_names();

class ModelCache {
 public:
  explicit ModelCache(double capacity_gb) : capacity_gb_(capacity_gb) {}

  enum class Access {
    kHit,      // resident: moved to the most-recent end
    kLoaded,   // not resident: `evicted` were removed (possibly none) and the model loaded
    kNoRoom,   // not resident and the policy cannot make room now: nothing changed
    kNoModel,  // footprint 0: nothing to load (not counted as a hit or a miss)
  };
  // Makes `model` resident for a task about to run. `evicted` is cleared, then receives the
  // models evicted (in order). A model larger than the whole GPU is std::invalid_argument
  // (check_models_fit rejects such workloads up front).
  Access access(int model, double size_gb, const ModelCachePolicy& policy,
                std::span<const int> upcoming_models, int in_use_model, std::vector<int>& evicted);

  bool contains(int model) const;
  std::span<const ResidentModel> resident() const { return resident_; }
  double used_gb() const;
  double capacity_gb() const { return capacity_gb_; }

 private:
  double capacity_gb_;
  std::vector<ResidentModel> resident_;  // LRU order
  std::vector<std::size_t> victims_;     // scratch
};

}  // namespace clustersim
