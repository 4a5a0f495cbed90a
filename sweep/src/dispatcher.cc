#include "clustersim/sweep/dispatcher.h"

#include <algorithm>

namespace clustersim::sweep {

Dispatcher::Dispatcher(std::vector<PendingPoint> points, std::size_t total_threads,
                       DispatchOptions options)
    : order_(std::move(points)),
      total_threads_(std::max<std::size_t>(1, total_threads)),
      options_(options) {
  // Ties broken by point_id so the order (and hence a run) is reproducible.
  std::stable_sort(order_.begin(), order_.end(), [](const PendingPoint& a, const PendingPoint& b) {
    return a.cost != b.cost ? a.cost > b.cost : a.point_id < b.point_id;
  });
  for (const auto& point : order_) total_cost_ += point.cost;
  remaining_cost_ = total_cost_;
  options_.max_chunk_points = std::max<std::size_t>(1, options_.max_chunk_points);
  options_.chunk_divisor = std::max(1.0, options_.chunk_divisor);
}

std::vector<std::uint64_t> Dispatcher::next_chunk() {
  std::vector<std::uint64_t> chunk;
  const double target =
      remaining_cost_ / (options_.chunk_divisor * static_cast<double>(total_threads_));
  double cost = 0.0;
  while (next_ < order_.size() && chunk.size() < options_.max_chunk_points) {
    const PendingPoint& point = order_[next_];
    if (!chunk.empty() && cost + point.cost > target) break;
    chunk.push_back(point.point_id);
    cost += point.cost;
    ++next_;
  }
  remaining_cost_ = std::max(0.0, remaining_cost_ - cost);
  if (empty()) remaining_cost_ = 0.0;
  return chunk;
}

}  // namespace clustersim::sweep
