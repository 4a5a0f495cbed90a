#include "metrics/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace clustersim::internal {

void FragmentationTracker::ShapeCount::add(const JobState& job) {
  if (job.phase == JobPhase::kRejected || job.requested_gpus < 1 || job.milli != 0 || job.mig != 0)
    return;
  const auto type = static_cast<std::size_t>(job.gpu_type + 1);
  const auto gpus = static_cast<std::size_t>(job.requested_gpus);
  if (by_type_.size() <= type) by_type_.resize(type + 1);
  std::vector<std::int64_t>& counts = by_type_[type];
  if (counts.size() <= gpus) counts.resize(gpus + 1, 0);
  ++counts[gpus];
  ++whole_gpu_jobs_;
}

std::vector<FragmentationTracker::TypicalJob> FragmentationTracker::typical_jobs(
    std::span<const JobState> jobs) {
  ShapeCount shapes;
  for (const JobState& job : jobs) shapes.add(job);
  return shapes.typical();
}

std::vector<FragmentationTracker::TypicalJob> FragmentationTracker::ShapeCount::typical() const {
  const std::int64_t whole_gpu_jobs = whole_gpu_jobs_;
  std::vector<TypicalJob> ranked;
  for (std::size_t type = 0; type < by_type_.size(); ++type)
    for (std::size_t gpus = 0; gpus < by_type_[type].size(); ++gpus)
      if (by_type_[type][gpus] > 0)
        ranked.push_back(
            {static_cast<int>(gpus), static_cast<int>(type) - 1, by_type_[type][gpus]});
  // Most frequent first; equal counts: the larger shape first (GPUs, then type), as FGD's
  // reversed sort of its shapes.
  std::sort(ranked.begin(), ranked.end(), [](const TypicalJob& a, const TypicalJob& b) {
    return std::tie(a.count, a.gpus, a.gpu_type) > std::tie(b.count, b.gpus, b.gpu_type);
  });
  // Shapes one at a time until they cover 95% of the whole-GPU jobs (integers: covered / total
  // < 95 / 100).
  std::int64_t covered = 0;
  std::size_t taken = 0;
  while (taken < ranked.size() && covered * 100 < whole_gpu_jobs * 95)
    covered += ranked[taken++].count;
  ranked.resize(taken);
  return ranked;
}

void FragmentationTracker::reset(const ClusterState& cluster, std::span<const JobState> jobs) {
  ShapeCount shapes;
  for (const JobState& job : jobs) shapes.add(job);
  reset(cluster, shapes);
}

void FragmentationTracker::reset(const ClusterState& cluster, const ShapeCount& shapes) {
  typical_ = shapes.typical();
  covered_ = 0;
  for (const TypicalJob& t : typical_) covered_ += t.count;
  const auto nodes = cluster.nodes();
  types_ = static_cast<int>(cluster.gpu_type_names().size());
  int largest = 0;
  for (const auto& node : nodes) largest = std::max(largest, node.gpus);
  stride_ = static_cast<std::size_t>(largest) + 1;
  const std::size_t cells = static_cast<std::size_t>(types_) * stride_ * stride_;
  free_sum_.assign(cells, 0);
  weight_.assign(cells, 0);
  sizes_of_type_.assign(static_cast<std::size_t>(types_) * stride_, 0);
  node_type_.resize(nodes.size());
  node_size_.resize(nodes.size());
  node_group_.resize(nodes.size());
  groups_.clear();
  std::map<std::tuple<int, int, int>, std::uint32_t> group_of;  // (rack, type, size)
  typical_total_ = 0;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    node_type_[i] = node.gpu_type;
    node_size_[i] = node.gpus;
    sizes_of_type_[static_cast<std::size_t>(node.gpu_type) * stride_ +
                   static_cast<std::size_t>(node.gpus)] = 1;
    const auto [it, added] = group_of.try_emplace({node.rack, node.gpu_type, node.gpus},
                                                  static_cast<std::uint32_t>(groups_.size()));
    if (added) groups_.push_back({node.gpu_type, node.gpus});
    node_group_[i] = it->second;
    RackGroup& group = groups_[it->second];
    group.capacity += node.gpus;
    group.free += node.free_gpus;
    group.whole += node.free_gpus == node.gpus ? node.gpus : 0;
    free_sum_[cell(node.gpu_type, node.gpus, node.free_gpus)] += node.free_gpus;
  }
  for (int t = 0; t < types_; ++t)
    for (std::size_t size = 1; size < stride_; ++size)
      for (std::size_t f = 1; f <= size; ++f)
        weight_[cell(t, static_cast<int>(size), static_cast<int>(f))] =
            node_weight(t, static_cast<int>(size), static_cast<int>(f));
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    typical_total_ += weight_[cell(node_type_[i], node_size_[i], nodes[i].free_gpus)];
  head_answer_.valid = false;
  for (RackGroup& group : groups_) {
    for (const TypicalJob& t : typical_)
      group.rack_rule |= t.gpus > group.size && (t.gpu_type < 0 || t.gpu_type == group.gpu_type);
    group.weight = rack_weight(group);
    typical_total_ += group.weight;
  }
}

std::int64_t FragmentationTracker::node_weight(int gpu_type, int size, int free) const {
  std::int64_t unusable = 0;
  for (const TypicalJob& t : typical_) {
    const bool other_type = t.gpu_type >= 0 && t.gpu_type != gpu_type;
    // A job larger than the node may use a wholly free node (the rack rule decides, below).
    const bool too_few = t.gpus <= size ? free < t.gpus : free < size;
    if (other_type || too_few) unusable += t.count;
  }
  return unusable * free;
}

std::int64_t FragmentationTracker::rack_weight(const RackGroup& group) const {
  std::int64_t weight = 0;
  for (const TypicalJob& t : typical_) {
    if (t.gpus <= group.size || (t.gpu_type >= 0 && t.gpu_type != group.gpu_type)) continue;
    if (group.free < std::min(t.gpus, group.capacity)) weight += t.count * group.whole;
  }
  return weight;
}

void FragmentationTracker::on_free_gpus(std::uint32_t node, int before, int after) {
  const int type = node_type_[node], size = node_size_[node];
  free_sum_[cell(type, size, before)] -= before;
  free_sum_[cell(type, size, after)] += after;
  typical_total_ += weight_[cell(type, size, after)] - weight_[cell(type, size, before)];
  head_answer_.valid = false;
  RackGroup& group = groups_[node_group_[node]];
  group.free += after - before;
  group.whole += (after == size ? size : 0) - (before == size ? size : 0);
  if (!group.rack_rule) return;
  const std::int64_t weight = rack_weight(group);
  typical_total_ += weight - group.weight;
  group.weight = weight;
}

int FragmentationTracker::head_fragmented(int gpu_type, int gpus) const {
  if (head_answer_.valid && head_answer_.gpu_type == gpu_type && head_answer_.gpus == gpus)
    return head_answer_.fragmented;
  std::int64_t fragmented = 0;
  for (int t = 0; t < types_; ++t) {
    if (gpu_type >= 0 && t != gpu_type) continue;
    for (std::size_t size = 1; size < stride_; ++size) {
      if (!sizes_of_type_[static_cast<std::size_t>(t) * stride_ + size]) continue;
      const int below = std::min(gpus, static_cast<int>(size));
      for (int f = 1; f < below; ++f) fragmented += free_sum_[cell(t, static_cast<int>(size), f)];
    }
  }
  head_answer_ = {gpu_type, gpus, static_cast<int>(fragmented), true};
  return head_answer_.fragmented;
}

}  // namespace clustersim::internal
