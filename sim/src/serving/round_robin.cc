// round_robin: GPUs in index order, one per ready task, whatever their state.
#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class RoundRobin final : public TaskPlacementPolicy {
 public:
  std::string_view name() const override { return "round_robin"; }
  int place(const ServingView& view, const ReadyTask& task) override {
    // The next GPU in turn that can hold the task's model (on one GPU type: simply the next).
    for (std::size_t tried = 0; tried < view.gpus.size(); ++tried) {
      const int gpu = static_cast<int>(next_ % view.gpus.size());
      ++next_;
      if (model_fits(view, gpu, task.model)) return gpu;
    }
    return -1;  // no GPU can hold it: the engine reports the policy's failure
  }

 private:
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<TaskPlacementPolicy> make_round_robin_placement() {
  return std::make_unique<RoundRobin>();
}

}  // namespace clustersim::serving_internal
