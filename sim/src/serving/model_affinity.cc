// model_affinity: go where the model is. Among the GPUs where the task's model is resident, the
// least loaded; when it is resident nowhere (or needs no model), the least loaded of all. Where
// the inputs are is ignored.
#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class ModelAffinity final : public TaskPlacementPolicy {
 public:
  std::string_view name() const override { return "model_affinity"; }
  int place(const ServingView& view, const ReadyTask& task) override {
    const int holder = least_loaded_gpu(view, [&](int g) {
      return is_resident(view.gpus[static_cast<std::size_t>(g)], task.model);
    });
    return holder >= 0
               ? holder
               : least_loaded_gpu(view, [&](int g) { return model_fits(view, g, task.model); });
  }
};

}  // namespace

std::unique_ptr<TaskPlacementPolicy> make_model_affinity_placement() {
  return std::make_unique<ModelAffinity>();
}

}  // namespace clustersim::serving_internal
