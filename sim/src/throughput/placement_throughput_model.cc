#include <memory>
#include <stdexcept>

#include "clustersim/throughput_model.h"

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

}  // namespace clustersim
