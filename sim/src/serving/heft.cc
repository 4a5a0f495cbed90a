// heft: earliest finish time (the list-scheduling step of HEFT, Topcuoglu et al., IEEE TPDS
// 2002): each ready task goes to the GPU where estimate_finish() is smallest: queue wait, the
// model's load if it is not resident, its inputs' transfer (overlapping the wait and the load)
// and its compute. Ties: the lowest GPU index. Ready tasks are ordered by upward_ranks() (the
// engine's job), which makes this HEFT run online, one query at a time.
#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class Heft final : public TaskPlacementPolicy {
 public:
  std::string_view name() const override { return "heft"; }
  int place(const ServingView& view, const ReadyTask& task) override {
    int best = -1;
    double best_finish = 0.0;
    for (std::size_t g = 0; g < view.gpus.size(); ++g) {
      if (!model_fits(view, static_cast<int>(g), task.model)) continue;
      const double finish = estimate_finish(view, task, static_cast<int>(g)).finish;
      if (best < 0 || finish < best_finish) {
        best = static_cast<int>(g);
        best_finish = finish;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<TaskPlacementPolicy> make_heft_placement() { return std::make_unique<Heft>(); }

}  // namespace clustersim::serving_internal
