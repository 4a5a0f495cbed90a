// Constructors of the task placement and cache policies, one per file, for registry.cc.
#pragma once

#include <memory>

#include "clustersim/model_cache.h"
#include "clustersim/task_placement.h"

namespace clustersim::serving_internal {

std::unique_ptr<TaskPlacementPolicy> make_compass_placement(const CompassOptions& options);
std::unique_ptr<TaskPlacementPolicy> make_round_robin_placement();
std::unique_ptr<TaskPlacementPolicy> make_least_loaded_placement();
std::unique_ptr<TaskPlacementPolicy> make_model_affinity_placement();
std::unique_ptr<TaskPlacementPolicy> make_heft_placement();

std::unique_ptr<ModelCachePolicy> make_lru_cache();
std::unique_ptr<ModelCachePolicy> make_compass_cache(int lookahead);

// The GPU that frees up first (max(now, free_at)), then with fewer queued tasks, then the lowest
// index, among the GPUs `eligible` accepts. -1 when none is eligible.
template <typename Eligible>
int least_loaded_gpu(const ServingView& view, Eligible&& eligible) {
  int best = -1;
  double best_head = 0.0;
  for (std::size_t g = 0; g < view.gpus.size(); ++g) {
    if (!eligible(static_cast<int>(g))) continue;
    const GpuView& gpu = view.gpus[g];
    const double head = gpu.free_at > view.now ? gpu.free_at : view.now;
    if (best < 0 || head < best_head ||
        (head == best_head &&
         gpu.queued_tasks < view.gpus[static_cast<std::size_t>(best)].queued_tasks)) {
      best = static_cast<int>(g);
      best_head = head;
    }
  }
  return best;
}

}  // namespace clustersim::serving_internal
