// Private to the sweep's sources: how a rank runs its points (every rank, rank 0 included): the
// workloads it shares between points, the rows it spools, the result of one point.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "clustersim/config.h"
#include "clustersim/side_file_cache.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/row_spool.h"
#include "clustersim/sweep/sweep_command.h"

namespace clustersim::sweep::sweep_internal {

// Trace files are read once per rank and shared by every point that uses them; generated
// workloads depend on the point's seed and are built per point. The configs' side files
// (profiles, tables, failure traces, catalogs) are parsed once per rank too: side_files().
class WorkloadCache {
 public:
  SideFileCache& side_files() { return side_files_; }

  std::shared_ptr<const Workload> get(const RunConfig& config) {
    if (!config.workload.trace_path) return std::make_shared<const Workload>(load_workload(config));
    const std::string key = trace_read_key(config);
    {
      std::lock_guard lock(mutex_);
      if (auto found = cache_.find(key); found != cache_.end()) return found->second;
    }
    auto workload = std::make_shared<const Workload>(load_workload(config));
    std::lock_guard lock(mutex_);
    return cache_.emplace(key, workload).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Workload>> cache_;
  SideFileCache side_files_;
};

// A rank's per-job rows and samples: its row spool for this session (row_spool.h), written by
// the threads that ran the simulations. A spool that cannot be written (disk full) is an I/O
// failure of the sweep, kept here until the main thread, which talks MPI, stops the run.
class RankRows {
 public:
  RankRows(const std::string& folder, std::int64_t session, int rank)
      : folder_(folder), spool_(folder, spool_file_name(session, rank)) {}
  RowSpool& spool() { return spool_; }
  const std::string& folder() const { return folder_; }
  void fail(const std::string& message) {
    std::lock_guard lock(mutex_);
    if (failure_.empty()) failure_ = message;
  }
  std::string failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
  }
  // CPU the simulating threads spent encoding and spooling rows (capacity benchmark).
  void add_cpu(double seconds) {
    std::lock_guard lock(mutex_);
    cpu_s_ += seconds;
    ++points_;
  }
  std::string report(int rank) const {
    std::lock_guard lock(mutex_);
    char line[256];
    std::snprintf(line, sizeof line,
                  "sweep: rank %d spooled %.1f MB of rows for %zu points, %.1f us CPU/point\n",
                  rank, static_cast<double>(spool_.bytes_written()) / 1e6, points_,
                  points_ ? 1e6 * cpu_s_ / static_cast<double>(points_) : 0.0);
    return line;
  }

 private:
  std::string folder_;
  RowSpool spool_;
  double cpu_s_ = 0.0;
  std::size_t points_ = 0;
  mutable std::mutex mutex_;
  std::string failure_;
};

// A result that must not be recorded: its rows could not be spooled (RankRows::fail).
constexpr std::uint64_t kDroppedPoint = ~std::uint64_t{0};

// A result travels in an MPI message (an int count of bytes, several results per message) and
// is a journal record (a 32-bit size): one larger than this fails its point instead of wrapping.
constexpr std::size_t kMaxResultBytes = std::size_t{1} << 30;

// The CLUSTERSIM_SWEEP_SYNTHETIC benchmark hook (rank_points.cc): whether points are synthetic,
// and their size.
struct Synthetic {
  bool on = false;
  std::size_t jobs = 0, samples = 0;
  double ms = 0.0;
};
const Synthetic& synthetic();

// Runs point `point_id` (simulated, or synthetic) and, with `rows`, spools its rows there.
PointResult run_point(const Grid& grid, const SweepOptions& options, WorkloadCache& workloads,
                      int rank, std::uint64_t point_id, RankRows* rows);

// encode_result, or, for a result over kMaxResultBytes (rows that were not spooled), the
// encoding of the point failed for that reason.
std::string encode_checked(const PointResult& result);

}  // namespace clustersim::sweep::sweep_internal
