// The queue of waiting jobs, kept in buckets of one VC, one GPU count and one GPU type, each in
// policy order.
// A scheduling walk merges the buckets (MergedWalk) and drops, whole, every bucket that cannot
// start anything now — its jobs need more GPUs than are free, or its VC is at its quota — so a
// backlog of large jobs or of one saturated VC costs nothing per event.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace clustersim::internal {

class WaitingQueue {
 public:
  struct Bucket {
    int vc = 0;
    int gpus = 0;
    int gpu_type = -1;
    std::vector<std::uint32_t> jobs;  // in policy order
  };

  void reset(int max_gpus);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Smallest GPU count among waiting jobs; 0 when there are none.
  int min_demand() const { return min_demand_; }
  std::size_t num_buckets() const { return buckets_.size(); }
  Bucket& bucket(std::size_t b) { return buckets_[b]; }
  const Bucket& bucket(std::size_t b) const { return buckets_[b]; }

  // Inserts `job` after every job of its bucket that `less` puts before or level with it.
  template <typename Less>
  void insert_sorted(std::uint32_t job, int vc, int gpus, int gpu_type, Less less) {
    auto& jobs = bucket_for(vc, gpus, gpu_type).jobs;
    jobs.insert(std::upper_bound(jobs.begin(), jobs.end(), job, less), job);
    count_in(gpus);
  }
  // Accounts for a job that left the queue; its entry is removed later by `remove_left`.
  void count_out(int gpus);
  // Drops from the first `prefix` entries of a bucket the jobs for which `left` is true.
  template <typename Left>
  void remove_left(std::size_t b, std::size_t prefix, Left left) {
    auto& jobs = buckets_[b].jobs;
    const auto end = jobs.begin() + static_cast<std::ptrdiff_t>(prefix);
    jobs.erase(std::remove_if(jobs.begin(), end, left), end);
  }

 private:
  Bucket& bucket_for(int vc, int gpus, int gpu_type);
  void count_in(int gpus);

  std::vector<Bucket> buckets_;  // created as (VC, GPUs, type) first appear; never removed
  std::unordered_map<std::uint64_t, std::uint32_t> bucket_index_;  // (VC, type, GPUs) -> bucket
  std::vector<int> demand_;                                        // waiting jobs per GPU count
  int min_demand_ = 0;
  std::size_t size_ = 0;
};

// Visits several sorted lists of job indices in one merged order (a k-way merge over a heap of
// list heads). A list may be dropped mid-walk. When `less` depends on state that changes as
// jobs are taken (fair-share ranks), call `reorder` after each change.
class MergedWalk {
 public:
  using List = std::vector<std::uint32_t>;

  // Starts a walk over `lists` (not owned; must outlive the walk). Reuses its own storage.
  template <typename Less>
  void start(const std::vector<const List*>& lists, Less less) {
    lists_ = &lists;
    positions_.assign(lists.size(), 0);
    heap_.clear();
    for (std::size_t s = 0; s < lists.size(); ++s)
      if (!lists[s]->empty()) heap_.push_back(s);
    reorder(less);
  }
  template <typename Less>
  void reorder(Less less) {
    std::make_heap(heap_.begin(), heap_.end(), later(less));
  }
  bool done() const { return heap_.empty(); }
  // The list whose head comes first, and that head.
  std::size_t source() const { return heap_.front(); }
  std::uint32_t job() const { return head(heap_.front()); }
  // How far the walk got into a list (its entries before this position were visited).
  std::size_t position(std::size_t source) const { return positions_[source]; }

  // Moves past the current head.
  template <typename Less>
  void advance(Less less) {
    std::pop_heap(heap_.begin(), heap_.end(), later(less));
    const std::size_t s = heap_.back();
    if (++positions_[s] < (*lists_)[s]->size()) {
      std::push_heap(heap_.begin(), heap_.end(), later(less));
    } else {
      heap_.pop_back();
    }
  }
  // Stops visiting the current head's list.
  template <typename Less>
  void drop(Less less) {
    std::pop_heap(heap_.begin(), heap_.end(), later(less));
    heap_.pop_back();
  }

 private:
  std::uint32_t head(std::size_t s) const { return (*(*lists_)[s])[positions_[s]]; }
  // std heaps keep the greatest on top: order lists so that the earliest head is "greatest".
  template <typename Less>
  auto later(Less less) const {
    return [this, less](std::size_t a, std::size_t b) { return less(head(b), head(a)); };
  }

  const std::vector<const List*>* lists_ = nullptr;
  std::vector<std::size_t> positions_;
  std::vector<std::size_t> heap_;
};

}  // namespace clustersim::internal
