// What a job should get, per GPU: its proportional share and its best demand. Shared by the
// allocation mechanisms that read profiles (greedy, tune, opt, drf, tetris).
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "clustersim/allocation_mechanism.h"

namespace clustersim::allocation {

// Cores, GB and MB/s per GPU. 0 in a dimension the nodes do not model.
struct Demand {
  double cpus = 0.0;
  double mem_gb = 0.0;
  double storage_mbps = 0.0;
};

// The proportional share per GPU of `node` (its resources divided by its GPUs).
Demand proportional_share(const ClusterState::Node& node);

// The job's trace request per GPU where it states one, else the node's proportional share.
Demand own_or_proportional(const AllocationContext& context, std::uint32_t job,
                           const ClusterState::Node& node);

// The grant of `gpus` GPUs of `node` at `demand` per GPU. Storage bandwidth is always the
// proportional share (no mechanism here trades it), computed as the proportional mechanism does.
Grant grant_at(const ClusterState& cluster, std::uint32_t node, int gpus, const Demand& demand);

// A placement request for `demand` per GPU on `gpu_type`.
PlacementRequest request_at(const AllocationContext& context, std::uint32_t job, int gpu_type,
                            const Demand& demand);

// Best demands, computed once per (profile, GPU count, GPU type) and shared by the jobs that
// have them in common.
//
// A job's best demand on a GPU type is its trace request where it states one. Otherwise, it is
// the cheapest point (in units of the proportional share, summed over CPU and memory; ties: fewer
// cores, then less memory) among its profile's axis values, the proportional share and the most
// one node can give it, whose speed is within `best_demand_tolerance` of the peak over those
// points and never below its speed at the proportional share. A job whose speed depends on
// neither (no profile) gets the proportional share.
class DemandTable {
 public:
  void bind(AllocationContext& context);
  void grow(const AllocationContext& context) { slot_.resize(context.jobs().size() * types_, -1); }
  const Demand& best(AllocationContext& context, std::uint32_t job, int gpu_type);
  // The proportional share on the first node of `gpu_type` (the type's reference node).
  const ClusterState::Node& reference_node(const AllocationContext& context, int gpu_type) const {
    return context.cluster().node(type_node_[static_cast<std::size_t>(gpu_type)]);
  }

 private:
  Demand compute(AllocationContext& context, std::uint32_t job, int gpu_type) const;

  std::size_t types_ = 1;
  std::vector<std::uint32_t> type_node_;
  std::vector<std::int32_t> slot_;  // by job x type: index into demands_, -1 = not computed
  std::vector<Demand> demands_;
  std::map<std::tuple<const void*, int, int>, std::int32_t> shared_;
};

// How drf and opt start a job: one without a request of its own is placed on GPUs alone and
// handed to `divide` (which re-divides CPU and memory among all running jobs, the starting one
// in `shares`); one with its own request, or one `divide` cannot fit, starts at its own or
// proportional request where that fits as things are.
template <typename Divide>
bool start_then_divide(std::uint32_t job, AllocationContext& context, Plan& plan,
                       std::vector<NodeShare>& shares, Divide divide) {
  const ClusterState& cluster = context.cluster();
  for (int type : context.types_to_try(job)) {
    PlacementRequest request = context.request_of(job);
    request.gpu_type = type;
    if (!context.has_own_request(job)) {
      PlacementRequest gpus_only = request;
      gpus_only.cpus_per_gpu = gpus_only.mem_per_gpu = 0.0;
      if (context.place(gpus_only, shares) && divide()) return true;
      plan.clear();
    }
    if (context.place(request, shares)) {
      plan.set(job);
      for (const NodeShare& share : shares)
        plan.add_grant(cluster.grant_for(share.node, request, share.gpus));
      return true;
    }
  }
  return false;
}

}  // namespace clustersim::allocation
