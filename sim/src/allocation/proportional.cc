// Proportional: every job gets the CPU cores, memory and storage bandwidth of its nodes in
// proportion to the GPUs it holds there (or what its trace asks for per GPU). The baseline, and
// the simulator's behaviour before allocation was a mechanism of its own.
#include "allocation/factories.h"

namespace clustersim::allocation {

namespace {
class Proportional final : public AllocationMechanism {
 public:
  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    PlacementRequest request = context.request_of(job);
    for (int type : context.types_to_try(job)) {
      request.gpu_type = type;
      if (!context.place(request, shares_)) continue;
      plan.set(job);
      for (const NodeShare& share : shares_)
        plan.add_grant(context.cluster().grant_for(share.node, request, share.gpus));
      return true;
    }
    return false;
  }

 private:
  std::vector<NodeShare> shares_;  // reused: no allocation per start
};
}  // namespace

std::unique_ptr<AllocationMechanism> make_proportional(const SchedulerOptions&) {
  return std::make_unique<Proportional>();
}

}  // namespace clustersim::allocation
