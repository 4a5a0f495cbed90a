// The queue of waiting jobs, kept per VC so that a VC that can start nothing (at its quota, or
// asking for more GPUs than are free) is skipped whole instead of job by job. Each VC's list is
// in policy order; MergedWalk visits several such lists in one merged order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace clustersim::internal {

class WaitingQueue {
 public:
  void reset(std::size_t num_vcs, int max_gpus);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t num_vcs() const { return lists_.size(); }
  std::vector<std::uint32_t>& list(std::size_t vc) { return lists_[vc]; }
  const std::vector<std::uint32_t>& list(std::size_t vc) const { return lists_[vc]; }

  // Smallest GPU count among waiting jobs (of one VC); 0 when there are none.
  int min_demand() const { return min_demand_; }
  int min_demand(std::size_t vc) const { return vc_min_demand_[vc]; }

  // Inserts `job` after every job that `less` puts before or level with it.
  template <typename Less>
  void insert_sorted(std::uint32_t job, int vc, int gpus, Less less) {
    auto& list = lists_[vc];
    list.insert(std::upper_bound(list.begin(), list.end(), job, less), job);
    count_in(vc, gpus);
  }
  // Appends `job` unsorted (policies whose keys change while jobs wait sort before each use).
  void append(std::uint32_t job, int vc, int gpus) {
    lists_[vc].push_back(job);
    count_in(vc, gpus);
  }
  // Accounts for a job that left the queue; its list entry is removed by `remove_left`.
  void count_out(int vc, int gpus);
  // Drops from the first `prefix` entries of a VC's list the jobs for which `left` is true.
  template <typename Left>
  void remove_left(std::size_t vc, std::size_t prefix, Left left) {
    auto& list = lists_[vc];
    const auto end = list.begin() + static_cast<std::ptrdiff_t>(prefix);
    list.erase(std::remove_if(list.begin(), end, left), end);
  }

 private:
  void count_in(int vc, int gpus);
  static int next_min(const int* counts, int from, int max_gpus);

  std::vector<std::vector<std::uint32_t>> lists_;
  std::vector<int> demand_;     // waiting jobs per GPU count
  std::vector<int> vc_demand_;  // the same per VC, VC-major
  std::vector<int> vc_min_demand_;
  int min_demand_ = 0;
  int max_gpus_ = 0;
  std::size_t size_ = 0;
};

// One input of a MergedWalk: a sorted list, optionally continued by a second one.
struct WalkSource {
  const std::vector<std::uint32_t>* first = nullptr;
  const std::vector<std::uint32_t>* second = nullptr;

  std::size_t size() const { return first->size() + (second ? second->size() : 0); }
  std::uint32_t at(std::size_t i) const {
    return i < first->size() ? (*first)[i] : (*second)[i - first->size()];
  }
};

// Visits several sorted sources of job indices in one merged order (a k-way merge over a heap
// of source heads). A source may be dropped mid-walk, e.g. when its VC cannot start anything.
// `less` may depend on state that changes as jobs are taken, provided only the state of the
// source being advanced changes (its head is re-keyed as it is pushed back).
class MergedWalk {
 public:
  // Starts a walk over `sources` (not owned; must outlive the walk). Reuses its own storage.
  template <typename Less>
  void start(const std::vector<WalkSource>& sources, Less less) {
    sources_ = &sources;
    positions_.assign(sources.size(), 0);
    heap_.clear();
    for (std::size_t s = 0; s < sources.size(); ++s)
      if (sources[s].size() > 0) heap_.push_back(s);
    std::make_heap(heap_.begin(), heap_.end(), later(less));
  }
  bool done() const { return heap_.empty(); }
  // The source whose head comes first, and that head.
  std::size_t source() const { return heap_.front(); }
  std::uint32_t job() const { return head(heap_.front()); }
  // How far the walk got into a source's first list (entries before it were visited).
  std::size_t position_in_first(std::size_t source) const {
    return std::min(positions_[source], (*sources_)[source].first->size());
  }
  // The same for its second list.
  std::size_t position_in_second(std::size_t source) const {
    const std::size_t first = (*sources_)[source].first->size();
    return positions_[source] > first ? positions_[source] - first : 0;
  }

  // Moves past the current head.
  template <typename Less>
  void advance(Less less) {
    std::pop_heap(heap_.begin(), heap_.end(), later(less));
    const std::size_t s = heap_.back();
    if (++positions_[s] < (*sources_)[s].size()) {
      std::push_heap(heap_.begin(), heap_.end(), later(less));
    } else {
      heap_.pop_back();
    }
  }
  // Stops visiting the current head's source.
  template <typename Less>
  void drop(Less less) {
    std::pop_heap(heap_.begin(), heap_.end(), later(less));
    heap_.pop_back();
  }

 private:
  std::uint32_t head(std::size_t s) const { return (*sources_)[s].at(positions_[s]); }
  // std heaps keep the greatest on top: order sources so that the earliest head is "greatest".
  template <typename Less>
  auto later(Less less) const {
    return [this, less](std::size_t a, std::size_t b) { return less(head(b), head(a)); };
  }

  const std::vector<WalkSource>* sources_ = nullptr;
  std::vector<std::size_t> positions_;
  std::vector<std::size_t> heap_;
};

}  // namespace clustersim::internal
