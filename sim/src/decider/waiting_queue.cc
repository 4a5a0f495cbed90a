#include "decider/waiting_queue.h"

namespace clustersim::internal {

void WaitingQueue::reset(int max_gpus) {
  buckets_.clear();
  bucket_index_.clear();
  active_.clear();
  active_position_.clear();
  demand_.assign(static_cast<std::size_t>(max_gpus) + 1, 0);
  min_demand_ = 0;
  small_ = 0;
  size_ = 0;
}

std::uint32_t WaitingQueue::bucket_for(int vc, int gpus, int gpu_type, int milli) {
  // 24 bits of VC, 16 of type (+1, so "any" is 0), 24 of GPUs: far beyond any real cluster. A
  // share of one GPU (0 GPUs) puts its thousandths where the GPUs go, flagged by the type's top
  // bit (the engine indexes fewer than 2^15 types).
  const std::uint64_t shape = milli > 0
                                  ? (std::uint64_t{1} << 39) | static_cast<std::uint64_t>(milli)
                                  : static_cast<std::uint64_t>(gpus);
  const std::uint64_t key = (static_cast<std::uint64_t>(vc) << 40) |
                            (static_cast<std::uint64_t>(gpu_type + 1) << 24) | shape;
  auto [it, inserted] = bucket_index_.try_emplace(key, static_cast<std::uint32_t>(buckets_.size()));
  if (inserted) {
    buckets_.push_back(Bucket{vc, gpus, gpu_type, milli, ChunkedJobs(&store_)});
    active_position_.push_back(0);
  }
  return it->second;
}

void WaitingQueue::count_in(int gpus) {
  if (gpus == 0) {
    ++size_;
    ++small_;
    return;
  }
  if (static_cast<std::size_t>(gpus) >= demand_.size())
    demand_.resize(static_cast<std::size_t>(gpus) + 1, 0);
  ++size_;
  if (demand_[gpus]++ == 0 && (min_demand_ == 0 || gpus < min_demand_)) min_demand_ = gpus;
}

void WaitingQueue::count_out(int gpus) {
  if (gpus == 0) {
    --size_;
    --small_;
    return;
  }
  --size_;
  if (--demand_[gpus] > 0 || gpus != min_demand_) return;
  min_demand_ = 0;
  if (size_ == 0) return;  // the common case when the cluster keeps up: nothing to search
  for (std::size_t g = static_cast<std::size_t>(gpus) + 1; g < demand_.size(); ++g)
    if (demand_[g] > 0) {
      min_demand_ = static_cast<int>(g);
      return;
    }
}

}  // namespace clustersim::internal
