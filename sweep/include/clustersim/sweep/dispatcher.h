// Dynamic work distribution (no MPI here: rank 0 owns one Dispatcher and answers requests with
// its chunks). Points go out largest estimated cost first, in chunks whose cost is a fraction of
// the remaining cost (guided self-scheduling by cost): early chunks amortise messages, late chunks
// shrink to single points so no rank idles while one finishes a long tail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clustersim::sweep {

struct DispatchOptions {
  // A chunk carries about remaining_cost / (chunk_divisor x total threads).
  double chunk_divisor = 2.0;
  std::size_t max_chunk_points = 64;  // bounds message size and lost work when a rank dies
};

struct PendingPoint {
  std::uint64_t point_id = 0;
  double cost = 1.0;
};

class Dispatcher {
 public:
  // `total_threads`: simulation threads over all ranks (sizes the chunks).
  Dispatcher(std::vector<PendingPoint> points, std::size_t total_threads,
             DispatchOptions options = {});

  // The next chunk (point ids, largest cost first); empty when nothing is left.
  std::vector<std::uint64_t> next_chunk();

  bool empty() const { return next_ == order_.size(); }
  std::size_t remaining_points() const { return order_.size() - next_; }
  double remaining_cost() const { return remaining_cost_; }
  double total_cost() const { return total_cost_; }

 private:
  std::vector<PendingPoint> order_;
  std::size_t next_ = 0;
  std::size_t total_threads_;
  DispatchOptions options_;
  double remaining_cost_ = 0.0;
  double total_cost_ = 0.0;
};

}  // namespace clustersim::sweep
