// round_robin: GPUs in index order, one per ready task, whatever their state.
#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class RoundRobin final : public TaskPlacementPolicy {
 public:
  std::string_view name() const override { return "round_robin"; }
  int place(const ServingView& view, const ReadyTask&) override {
    const int gpu = static_cast<int>(next_ % view.gpus.size());
    ++next_;
    return gpu;
  }

 private:
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<TaskPlacementPolicy> make_round_robin_placement() {
  return std::make_unique<RoundRobin>();
}

}  // namespace clustersim::serving_internal
