#include "core/waiting_queue.h"

namespace clustersim::internal {

void WaitingQueue::reset(std::size_t num_vcs, int max_gpus) {
  max_gpus_ = max_gpus;
  lists_.assign(num_vcs, {});
  demand_.assign(static_cast<std::size_t>(max_gpus) + 1, 0);
  vc_demand_.assign(num_vcs * (static_cast<std::size_t>(max_gpus) + 1), 0);
  vc_min_demand_.assign(num_vcs, 0);
  min_demand_ = 0;
  size_ = 0;
}

void WaitingQueue::count_in(int vc, int gpus) {
  ++size_;
  if (demand_[gpus]++ == 0 && (min_demand_ == 0 || gpus < min_demand_)) min_demand_ = gpus;
  int* counts = &vc_demand_[static_cast<std::size_t>(vc) * (max_gpus_ + 1)];
  if (counts[gpus]++ == 0 && (vc_min_demand_[vc] == 0 || gpus < vc_min_demand_[vc]))
    vc_min_demand_[vc] = gpus;
}

void WaitingQueue::count_out(int vc, int gpus) {
  --size_;
  if (--demand_[gpus] == 0 && gpus == min_demand_)
    min_demand_ = next_min(demand_.data(), gpus + 1, max_gpus_);
  int* counts = &vc_demand_[static_cast<std::size_t>(vc) * (max_gpus_ + 1)];
  if (--counts[gpus] == 0 && gpus == vc_min_demand_[vc])
    vc_min_demand_[vc] = next_min(counts, gpus + 1, max_gpus_);
}

int WaitingQueue::next_min(const int* counts, int from, int max_gpus) {
  for (int g = from; g <= max_gpus; ++g)
    if (counts[g] > 0) return g;
  return 0;
}

}  // namespace clustersim::internal
