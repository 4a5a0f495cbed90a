#include "allocation/demand.h"

#include <algorithm>
#include <cmath>

namespace clustersim::allocation {

Demand proportional_share(const ClusterState::Node& node) {
  return {node.cpus / node.gpus, node.mem_gb / node.gpus, node.storage_mbps / node.gpus};
}

Demand own_or_proportional(const AllocationContext& context, std::uint32_t job,
                           const ClusterState::Node& node) {
  Demand demand = proportional_share(node);
  const JobState& state = context.jobs()[job];
  if (state.spec->cpus > 0.0 && node.cpus > 0.0) demand.cpus = state.spec->cpus / state.gpus;
  if (state.spec->mem_gb > 0.0 && node.mem_gb > 0.0)
    demand.mem_gb = state.spec->mem_gb / state.gpus;
  return demand;
}

Grant grant_at(const ClusterState& cluster, std::uint32_t node, int gpus, const Demand& demand) {
  PlacementRequest request;
  request.cpus_per_gpu = demand.cpus;
  request.mem_per_gpu = demand.mem_gb;
  request.storage_per_gpu = -1.0;
  return cluster.grant_for(node, request, gpus);
}

PlacementRequest request_at(const AllocationContext& context, std::uint32_t job, int gpu_type,
                            const Demand& demand) {
  PlacementRequest request;
  request.gpus = context.jobs()[job].gpus;
  request.job = job;
  request.gpu_type = gpu_type;
  request.cpus_per_gpu = demand.cpus;
  request.mem_per_gpu = demand.mem_gb;
  request.storage_per_gpu = -1.0;
  return request;
}

void DemandTable::bind(AllocationContext& context) {
  const ClusterState& cluster = context.cluster();
  types_ = cluster.gpu_type_names().size();
  type_node_.assign(types_, 0);
  for (std::uint32_t i = static_cast<std::uint32_t>(cluster.nodes().size()); i-- > 0;)
    type_node_[static_cast<std::size_t>(cluster.node(i).gpu_type)] = i;
  slot_.assign(context.jobs().size() * types_, -1);
}

const Demand& DemandTable::best(AllocationContext& context, std::uint32_t job, int gpu_type) {
  std::int32_t& slot =
      slot_[static_cast<std::size_t>(job) * types_ + static_cast<std::size_t>(gpu_type)];
  if (slot >= 0) return demands_[static_cast<std::size_t>(slot)];
  const JobState& state = context.jobs()[job];
  const SensitivityAxes axes = context.axes(job, gpu_type);
  // Jobs with the same profile, GPU count and type share one best demand (and its search).
  const bool shareable = !context.has_own_request(job) && axes.cpus_per_gpu != nullptr;
  const auto key =
      std::make_tuple(static_cast<const void*>(axes.cpus_per_gpu), state.gpus, gpu_type);
  if (shareable) {
    if (auto found = shared_.find(key); found != shared_.end()) {
      slot = found->second;
      return demands_[static_cast<std::size_t>(slot)];
    }
  }
  slot = static_cast<std::int32_t>(demands_.size());
  demands_.push_back(compute(context, job, gpu_type));
  if (shareable) shared_.emplace(key, slot);
  return demands_.back();
}

Demand DemandTable::compute(AllocationContext& context, std::uint32_t job, int gpu_type) const {
  const ClusterState::Node& node = reference_node(context, gpu_type);
  const Demand proportional = proportional_share(node);
  if (context.has_own_request(job)) return own_or_proportional(context, job, node);
  const SensitivityAxes axes = context.axes(job, gpu_type);
  if (axes.cpus_per_gpu == nullptr && axes.mem_gb_per_gpu == nullptr) return proportional;

  // Candidate values per dimension: the axis' values up to what one node can give the job, that
  // most, and the proportional share. A dimension the node does not model has the one value 0.
  const int gpus = context.jobs()[job].gpus;
  const int per_node = std::min(gpus, node.gpus);
  const auto candidates = [&](const std::vector<double>* axis, double total, double share) {
    std::vector<double> values;
    if (total <= 0.0) return std::vector<double>{0.0};
    const double cap = total / per_node;
    values.push_back(share);
    values.push_back(cap);
    if (axis != nullptr)
      for (double v : *axis)
        if (v <= cap) values.push_back(v);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
  };
  const std::vector<double> cpus = candidates(axes.cpus_per_gpu, node.cpus, proportional.cpus);
  const std::vector<double> mems =
      candidates(axes.mem_gb_per_gpu, node.mem_gb, proportional.mem_gb);
  const auto rate = [&](double c, double m) {
    return context.rate_per_gpu(job, gpu_type, {c, m, -1.0});
  };
  double peak = 0.0;
  std::vector<double> rates(cpus.size() * mems.size());
  for (std::size_t i = 0; i < cpus.size(); ++i)
    for (std::size_t j = 0; j < mems.size(); ++j) {
      rates[i * mems.size() + j] = rate(cpus[i], mems[j]);
      peak = std::max(peak, rates[i * mems.size() + j]);
    }
  const double tolerance = context.options().best_demand_tolerance;
  const double floor =
      std::max(peak * (1.0 - tolerance), rate(proportional.cpus, proportional.mem_gb)) *
      (1.0 - 1e-12);
  const auto cost = [&](double c, double m) {
    return (proportional.cpus > 0.0 ? c / proportional.cpus : 0.0) +
           (proportional.mem_gb > 0.0 ? m / proportional.mem_gb : 0.0);
  };
  Demand best = proportional;
  double best_cost = cost(proportional.cpus, proportional.mem_gb);
  bool found = false;
  for (std::size_t i = 0; i < cpus.size(); ++i)
    for (std::size_t j = 0; j < mems.size(); ++j) {
      if (rates[i * mems.size() + j] < floor) continue;
      const double c = cost(cpus[i], mems[j]);
      // Candidates are visited in increasing cores, then memory: a strict < keeps the tie-break.
      if (!found || c < best_cost) {
        best = {cpus[i], mems[j], proportional.storage_mbps};
        best_cost = c;
        found = true;
      }
    }
  return best;
}

}  // namespace clustersim::allocation
