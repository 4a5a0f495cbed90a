// Sharding a grid for job arrays: `clustersim sweep GRID --shard K/N` runs only shard K's points
// into its own result file, and `clustersim merge` (merge.h) joins the N files into one. The split
// is a pure function of the grid (the points' estimated costs), so every array task computes the
// same split on its own, without talking to the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"

namespace clustersim::sweep {

// Shard `index` of `count` (0 <= index < count). count == 1 is the whole grid.
struct ShardSpec {
  std::size_t index = 0;
  std::size_t count = 1;

  bool sharded() const { return count > 1; }
  // "K/N" for a shard; "" for the whole grid (as stored in journals and result files).
  std::string text() const;
  bool operator==(const ShardSpec&) const = default;
};

// Parses "K/N" (K is 0-based, like SLURM_ARRAY_TASK_ID of `--array=0-(N-1)`); "" is the whole
// grid. Throws InputError naming `--shard` for anything else, or K >= N.
ShardSpec parse_shard(std::string_view text);

// The shard of every point (indexed by point_id), balanced by estimated cost: longest processing
// time first. Points in decreasing cost (ties: lower point_id first) each go to the shard with the
// least cost so far (ties: the lower shard). Deterministic, and no shard's cost exceeds another's
// by more than the costliest point. `shard_count` >= 1.
std::vector<std::uint32_t> assign_shards(const std::vector<double>& point_costs,
                                         std::size_t shard_count);

// Per point_id: its estimated cost (the cost of its configuration).
std::vector<double> point_costs(const Grid& grid, const GridCheck& check);

// Per point_id: whether it belongs to `shard` (all true when not sharded).
std::vector<bool> shard_members(const Grid& grid, const GridCheck& check, const ShardSpec& shard);

// Resuming: `recorded` is the shard ("K/N" or "") a journal or result file `file` was written
// for, `requested` this run's. Throws InputError unless they are the same.
void check_same_shard(const std::string& file, const std::string& recorded,
                      const std::string& requested);

// The `shard` root attribute of a result file ("" when absent: files from before sharding).
std::string read_shard_attribute(const std::string& path);

}  // namespace clustersim::sweep
