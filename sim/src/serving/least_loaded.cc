// least_loaded: the GPU that frees up first (then fewer queued tasks, then the lowest index);
// blind to models and data.
#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class LeastLoaded final : public TaskPlacementPolicy {
 public:
  std::string_view name() const override { return "least_loaded"; }
  int place(const ServingView& view, const ReadyTask& task) override {
    return least_loaded_gpu(view, [&](int g) { return model_fits(view, g, task.model); });
  }
};

}  // namespace

std::unique_ptr<TaskPlacementPolicy> make_least_loaded_placement() {
  return std::make_unique<LeastLoaded>();
}

}  // namespace clustersim::serving_internal
