// Greedy: each job, in the ordering policy's order, gets its best demand (demand.h) if some
// placement can host it; otherwise it waits, even when GPUs are free (Synergy's "greedy").
#include "allocation/demand.h"
#include "allocation/factories.h"

namespace clustersim::allocation {

namespace {
class Greedy final : public AllocationMechanism {
 public:
  void bind(AllocationContext& context) override { demands_.bind(context); }
  void jobs_added(AllocationContext& context) override { demands_.grow(context); }

  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    for (int type : context.types_to_try(job)) {
      const Demand& best = demands_.best(context, job, type);
      if (!context.place(request_at(context, job, type, best), shares_)) continue;
      plan.set(job);
      for (const NodeShare& share : shares_)
        plan.add_grant(grant_at(context.cluster(), share.node, share.gpus, best));
      return true;
    }
    return false;
  }

 private:
  DemandTable demands_;
  std::vector<NodeShare> shares_;
};
}  // namespace

std::unique_ptr<AllocationMechanism> make_greedy(const SchedulerOptions&) {
  return std::make_unique<Greedy>();
}

}  // namespace clustersim::allocation
