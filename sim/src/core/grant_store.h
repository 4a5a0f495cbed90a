// The grants of the jobs holding resources, in blocks of 1, 2, 4, ... grants recycled by size:
// memory for what runs, not for every job of the workload. Private to the engine.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "clustersim/plan.h"

namespace clustersim::internal {

class GrantStore {
 public:
  std::uint32_t allocate(std::uint32_t count) {
    const auto size_class = static_cast<std::size_t>(std::bit_width(count - 1));
    auto& spare = free_[size_class];
    if (!spare.empty()) {
      const std::uint32_t begin = spare.back();
      spare.pop_back();
      return begin;
    }
    const auto begin = static_cast<std::uint32_t>(storage_.size());
    storage_.resize(storage_.size() + (std::size_t{1} << size_class));
    return begin;
  }
  void release(std::uint32_t begin, std::uint32_t count) {
    free_[static_cast<std::size_t>(std::bit_width(count - 1))].push_back(begin);
  }
  Grant* data() { return storage_.data(); }
  const std::vector<Grant>& storage() const { return storage_; }
  const Grant* data() const { return storage_.data(); }

 private:
  std::vector<Grant> storage_;
  std::array<std::vector<std::uint32_t>, 33> free_;
};

}  // namespace clustersim::internal
