// `clustersim sweep --dry-run`: the points and their estimated cost (write_dry_run), and the
// capacity model's estimate (dry_run.h).
#include "dry_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/sweep/shard.h"
#include "clustersim/sweep/sweep_command.h"
#include "rank_loop.h"
#include "sizing.h"

namespace clustersim::sweep {

namespace sweep_internal {

// The capacity model of sweep/README.md ("Capacity"), with the constants its benchmark
// (sweep/bench/capacity_bench.sh) measured on the 2-core development VM, and the simulation
// time per unit of estimated cost of sizing.cc (kSecondsPerCostUnit).
constexpr double kRank0SecondsPerPoint = 12e-6;  // rank 0's main thread, saturated
constexpr double kSerialRowsPerSecond = 0.86e6;  // final row tables by rank 0 alone, 2 cores
// Below kCollectiveRanks: the other ranks compress (each as fast as rank 0 alone, measured
// 2.5e6 on an idle VM: kept at the loaded figure) and write their blocks in turn, one at a time.
constexpr double kCompressRowsPerSecond = kSerialRowsPerSecond;
constexpr double kTurnWriteRowsPerSecond = 1.5e7;  // writing compressed chunks, one writer
constexpr double kRankRowsPerSecond = 1.06e5;      // ... by each rank, its share (MPI-IO)
constexpr double kBytesPerJobRow = 25;             // compressed, in the final file

void write_scaling_estimate(std::ostream& out, const Grid& grid, const GridCheck& check) {
  if (grid.size() == 0 || check.config_cost.empty()) return;
  double seconds = 0.0, rows = 0.0;
  for (std::size_t c = 0; c < check.config_cost.size(); ++c) {
    seconds += check.config_cost[c] * kSecondsPerCostUnit;
    rows += static_cast<double>(check.config_jobs[c]);
  }
  seconds /= static_cast<double>(check.config_cost.size());
  rows /= static_cast<double>(check.config_cost.size());
  const double extra = rows / kRankRowsPerSecond;  // writing a point's rows, on its rank
  // Below kCollectiveRanks, R ranks of one thread: the run takes T / R per point, the final
  // file rows x max(1 / ((R - 1) compress), 1 / one writer's rate) per point.
  const auto compressed_share = [&](int ranks) {
    return rows * ranks / seconds *
           std::max(1.0 / ((ranks - 1) * kCompressRowsPerSecond), 1.0 / kTurnWriteRowsPerSecond);
  };
  char line[1024];
  std::snprintf(
      line, sizeof line,
      "# scaling estimate (sweep/README.md, Capacity; constants measured on a 2-core VM): points "
      "of ~%.3g s on one thread (estimated cost x %.2g s). Rank 0 takes ~%.0f us per point: the "
      "sweep stops scaling near %.0f threads in all. With --save-jobs (at least %.0f job rows, "
      "%.2g MB, per point) the final file, compressed and written in turn by the ranks other "
      "than 0 (below %d ranks), adds ~%.0f%% to the run on 2 ranks, ~%.0f%% on %d; by every "
      "rank (from %d ranks on) it adds ~%.0f%%, and the file system must take ~%.2g MB/s per "
      "thread (%.2g GB/s at 1,000)\n",
      seconds, kSecondsPerCostUnit, kRank0SecondsPerPoint * 1e6, seconds / kRank0SecondsPerPoint,
      rows, rows * kBytesPerJobRow / 1e6, kCollectiveRanks, 100 * compressed_share(2),
      100 * compressed_share(kCollectiveRanks - 1), kCollectiveRanks - 1, kCollectiveRanks,
      100 * extra / seconds, rows * kBytesPerJobRow / (seconds + extra) / 1e6,
      1000 * rows * kBytesPerJobRow / (seconds + extra) / 1e9);
  out << line;
}

}  // namespace sweep_internal

namespace {

std::string format_number(double value) {
  std::ostringstream out;
  if (std::abs(value) >= 1000 || value == std::floor(value)) {
    out << std::fixed << std::setprecision(0) << value;
  } else {
    out << std::fixed << std::setprecision(3) << value;
  }
  return out.str();
}

}  // namespace

void write_dry_run(std::ostream& out, const Grid& grid, const GridCheck& check,
                   const ShardSpec& shard) {
  out << "# grid " << grid.source_name << ": " << grid.size()
      << " points = " << grid.configurations() << " configurations x " << grid.replicates
      << " replicates (grid seed " << grid.seed
      << (grid.paired_seeds ? ", paired seeds" : ", per-point seeds") << ")\n";
  const std::vector<bool> members = shard_members(grid, check, shard);
  if (shard.sharded()) {
    double shard_cost = 0.0, grid_cost = 0.0;
    std::size_t points = 0;
    for (std::uint64_t id = 0; id < grid.size(); ++id) {
      const double cost = check.config_cost[id / grid.replicates];
      grid_cost += cost;
      if (!members[id]) continue;
      shard_cost += cost;
      ++points;
    }
    out << "# shard " << shard.text() << ": " << points << " of " << grid.size()
        << " points, estimated cost " << format_number(shard_cost) << " of "
        << format_number(grid_cost) << "\n";
  }
  out << "# columns: point_id replicate seed";
  for (const Axis& axis : grid.axes) out << " " << axis.path;
  out << " est_cost\n";
  double total = 0.0;
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    if (!members[id]) continue;
    GridPoint point = grid_point(grid, id);
    double cost = check.config_cost[point.config_id];
    total += cost;
    out << point.point_id << " " << point.replicate << " " << point.seed;
    for (std::size_t a = 0; a < grid.axes.size(); ++a)
      out << " " << grid.axes[a].labels[point.value_index[a]];
    out << " " << format_number(cost) << "\n";
  }
  out << "# total estimated cost " << format_number(total)
      << " (units: jobs x (1 + log2 GPUs), x2 if preemptive)\n";
}

}  // namespace clustersim::sweep
