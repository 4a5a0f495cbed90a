// Tetris (Grandl et al., SIGCOMM'14): multi-resource packing. A job gets its best demand
// (demand.h); of the nodes that can host its GPUs with that demand, it goes to the one whose free
// resources align best with what it asks for (the dot product of its demand and the node's free
// GPUs, cores and memory, each as a fraction of the node's capacity), spilling over to the next
// best aligned for a job larger than one node can host. It waits when no set of nodes can. It
// chooses nodes itself: scheduler.placement does not apply.
#include <algorithm>

#include "allocation/demand.h"
#include "allocation/factories.h"

namespace clustersim::allocation {

namespace {

class Tetris final : public AllocationMechanism {
 public:
  void bind(AllocationContext& context) override { demands_.bind(context); }
  void jobs_added(AllocationContext& context) override { demands_.grow(context); }

  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    const ClusterState& cluster = context.cluster();
    for (int type : context.types_to_try(job)) {
      const Demand& best = demands_.best(context, job, type);
      const PlacementRequest request = request_at(context, job, type, best);
      scored_.clear();
      int room = 0;
      const auto nodes = cluster.nodes();
      for (std::uint32_t n = 0; n < nodes.size(); ++n) {
        const int hostable = cluster.hostable(nodes[n], request);
        if (hostable == 0) continue;
        const auto& node = nodes[n];
        double score = (1.0 / node.gpus) * (static_cast<double>(node.free_gpus) / node.gpus);
        if (node.cpus > 0) score += (best.cpus / node.cpus) * (node.free_cpus / node.cpus);
        if (node.mem_gb > 0)
          score += (best.mem_gb / node.mem_gb) * (node.free_mem_gb / node.mem_gb);
        scored_.push_back({n, hostable, score});
        room += hostable;
      }
      if (room < request.gpus) continue;
      // Best aligned first; a node that hosts the whole job beats any that does not.
      std::sort(scored_.begin(), scored_.end(), [&](const Scored& a, const Scored& b) {
        const bool whole_a = a.hostable >= request.gpus, whole_b = b.hostable >= request.gpus;
        if (whole_a != whole_b) return whole_a;
        if (a.score != b.score) return a.score > b.score;
        return a.node < b.node;
      });
      plan.set(job);
      int left = request.gpus;
      for (const Scored& s : scored_) {
        if (left == 0) break;
        const int take = std::min(left, s.hostable);
        plan.add_grant(grant_at(cluster, s.node, take, best));
        left -= take;
      }
      return true;
    }
    return false;
  }

 private:
  struct Scored {
    std::uint32_t node;
    int hostable;
    double score;
  };
  DemandTable demands_;
  std::vector<Scored> scored_;
};

}  // namespace

std::unique_ptr<AllocationMechanism> make_tetris(const SchedulerOptions&) {
  return std::make_unique<Tetris>();
}

}  // namespace clustersim::allocation
