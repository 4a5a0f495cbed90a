// The exact arithmetic of serving DAGs: transfers, loads, finish-time estimates, upward ranks.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "clustersim/model_cache.h"
#include "clustersim/task_placement.h"

namespace clustersim {

double transfer_time_s(double mb, double gbps, double latency_us, bool same_node) {
  if (same_node) return 0.0;
  if (!(mb >= 0.0) || !(gbps > 0.0) || !(latency_us >= 0.0))
    throw std::invalid_argument("transfer_time_s: needs mb >= 0, gbps > 0, latency_us >= 0");
  // MB = 1e6 bytes = 8e6 bits; Gb/s = 1e9 bits/s.
  return mb * 8.0 / (gbps * 1000.0) + latency_us / 1e6;
}

double load_time_s(double footprint_gb, double h2d_gbps) {
  if (!(footprint_gb >= 0.0) || !(h2d_gbps > 0.0))
    throw std::invalid_argument("load_time_s: needs footprint_gb >= 0, h2d_gbps > 0");
  return footprint_gb / h2d_gbps;
}

double transfer_between_s(const ServingView& view, int from_gpu, int to_gpu, double mb) {
  const GpuView& from = view.gpus[static_cast<std::size_t>(from_gpu)];
  const GpuView& to = view.gpus[static_cast<std::size_t>(to_gpu)];
  if (from.node == to.node) return 0.0;
  const NodeView& a = view.nodes[static_cast<std::size_t>(from.node)];
  const NodeView& b = view.nodes[static_cast<std::size_t>(to.node)];
  return transfer_time_s(mb, std::min(a.net_gbps, b.net_gbps),
                         std::max(a.net_latency_us, b.net_latency_us), false);
}

bool is_resident(const GpuView& gpu, int model) {
  for (const ResidentModel& r : gpu.resident)
    if (r.model == model) return true;
  return false;
}

bool model_fits(const ServingView& view, int gpu, int model) {
  return view.model_footprint_gb[static_cast<std::size_t>(model)] <=
         view.gpus[static_cast<std::size_t>(gpu)].mem_gb + kCacheSlackGb;
}

double resident_gb(const GpuView& gpu) {
  double sum = 0.0;
  for (const ResidentModel& r : gpu.resident) sum += r.size_gb;
  return sum;
}

FinishEstimate estimate_finish(const ServingView& view, const ReadyTask& task, int gpu) {
  const GpuView& g = view.gpus[static_cast<std::size_t>(gpu)];
  FinishEstimate e;
  const double head = std::max(view.now, g.free_at);
  e.queue_wait_s = head - view.now;
  const double footprint = view.model_footprint_gb[static_cast<std::size_t>(task.model)];
  e.load_s =
      footprint == 0.0 || is_resident(g, task.model) ? 0.0 : load_time_s(footprint, g.h2d_gbps);
  for (const ParentOutput& p : task.parents)
    e.transfer_s = std::max(e.transfer_s, transfer_between_s(view, p.gpu, gpu, p.output_mb));
  e.compute_s = task.compute_s;
  e.finish = std::max(head + e.load_s, view.now + e.transfer_s) + e.compute_s;
  return e;
}

std::vector<double> upward_ranks(const ServingView& view, const QueryPlanInput& query) {
  const std::size_t n = query.compute_s.size();
  // The transfer cost of an edge, independent of placement: the cluster's mean NIC.
  double gbps = 0.0, latency_us = 0.0;
  for (const NodeView& node : view.nodes) {
    gbps += node.net_gbps;
    latency_us += node.net_latency_us;
  }
  const bool network = !view.nodes.empty() && gbps > 0.0;
  if (network) {
    gbps /= static_cast<double>(view.nodes.size());
    latency_us /= static_cast<double>(view.nodes.size());
  }
  const auto edge_s = [&](std::size_t parent) {
    return network ? transfer_time_s(query.output_mb[parent], gbps, latency_us, false) : 0.0;
  };
  std::vector<double> rank(n, 0.0);
  std::vector<double> best_child(n, 0.0);  // max over children of (edge + the child's rank)
  // Children come after parents: walk backwards, handing each finished rank to its parents.
  for (std::size_t k = n; k-- > 0;) {
    rank[k] = query.compute_s[k] + best_child[k];
    for (std::uint32_t i = query.parent_begin[k]; i < query.parent_begin[k + 1]; ++i) {
      const std::uint32_t p = query.parents[i];
      best_child[p] = std::max(best_child[p], edge_s(p) + rank[k]);
    }
  }
  return rank;
}

void TaskPlacementPolicy::plan_query(const ServingView&, const QueryPlanInput&,
                                     std::span<int> planned_gpu) {
  std::fill(planned_gpu.begin(), planned_gpu.end(), -1);
}

}  // namespace clustersim
