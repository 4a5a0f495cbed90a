#include <memory>
#include <stdexcept>

#include "clustersim/simulator.h"
#include "clustersim/throughput_model.h"
#include "options/declare.h"

namespace clustersim {

namespace {
class PlacementThroughputModel final : public ThroughputModel {
 public:
  explicit PlacementThroughputModel(const PlacementPenalty& penalty) : penalty_(penalty) {}
  double rate(const JobSpec&, const void*, const Allocation& allocation) const override {
    if (allocation.racks > 1) return penalty_.cross_rack_factor;
    if (allocation.nodes > 1) return penalty_.cross_node_factor;
    return 1.0;
  }

 private:
  PlacementPenalty penalty_;
};
}  // namespace

std::unique_ptr<ThroughputModel> make_placement_throughput_model(const PlacementPenalty& penalty) {
  if (!(penalty.cross_node_factor > 0.0 && penalty.cross_node_factor <= 1.0) ||
      !(penalty.cross_rack_factor > 0.0 && penalty.cross_rack_factor <= 1.0))
    throw std::invalid_argument("throughput: placement factors must be in (0, 1]");
  return std::make_unique<PlacementThroughputModel>(penalty);
}

namespace options {

// [throughput]: which model, and the placement model's factors (which the profile model applies
// too).
void declare_placement_model_keys(KeyRegistry& keys) {
  custom(keys, "throughput.model", KeyType::kChoice)
      .choices({"placement", "profile", "table"})
      .default_value(std::string("placement"))
      .component("throughput")
      .training_only()
      .doc(
          "The job-speed model: `placement`, `profile` (speed from each model's CPU/memory "
          "sensitivity profile) or `table` (steps/s per GPU type from a throughput table; "
          "[`sim/README.md`](sim/README.md#throughput-model)).");
  field<SimOptions>(
      keys, "throughput.cross_node_factor",
      [](auto& o) -> auto& { return o.penalty.cross_node_factor; })
      .range(1e-6, 1.0)
      .component("throughput placement")
      .training_only()
      .doc("Progress rate of a job spanning several nodes of one rack.");
  field<SimOptions>(
      keys, "throughput.cross_rack_factor",
      [](auto& o) -> auto& { return o.penalty.cross_rack_factor; })
      .range(1e-6, 1.0)
      .component("throughput placement")
      .training_only()
      .doc("Progress rate of a job spanning several racks.");
}

}  // namespace options

}  // namespace clustersim
