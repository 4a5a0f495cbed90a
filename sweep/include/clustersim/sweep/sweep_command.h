// `clustersim sweep`: the sweep front end (flags, validation, MPI roles, output, summary).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/shard.h"

namespace clustersim::sweep {

// Exit statuses of `clustersim sweep` (a contract, documented in sweep/README.md).
inline constexpr int kExitOk = 0;            // every point of the grid ran and succeeded
inline constexpr int kExitFailure = 1;       // I/O or MPI failure during the sweep
inline constexpr int kExitBadInput = 2;      // rejected before any simulation started
inline constexpr int kExitPointsFailed = 3;  // the file is written, but some points failed
inline constexpr int kExitBusy = 4;          // another sweep holds --out (nothing ran)
inline constexpr int kExitInterrupted = 75;  // SIGTERM/SIGUSR1/SIGINT: done points saved; --resume

struct SweepOptions {
  std::string grid_path;  // empty: the embedded default grid (sweep/examples/default/grid.toml)
  std::string out;        // empty: <grid file stem>.h5 in the working directory
  bool resume = false;
  // With resume: accept a journal begun by another build (the points say which session, and
  // so which build, computed them) instead of refusing it.
  bool resume_any_build = false;
  bool overwrite = false;
  bool dry_run = false;
  bool json = false;  // with dry_run: the estimate as JSON on stdout instead of the listing
  int ranks = 0;      // with dry_run: the ranks to size for (0: the launcher's, else 1)
  int threads = 0;    // 0: SLURM_CPUS_PER_TASK, else the affinity mask
  bool save_jobs = false;
  bool save_timeseries = false;
  // With save_jobs / save_timeseries: every job and sample of a point, warm-up and drain
  // included, not only its measured ones (the steady-state rule's window; steady_state.h).
  bool whole_run = false;
  std::size_t max_chunk = 64;
  double progress_interval_s = 30.0;  // plain progress lines when stderr is not a terminal
  std::string summary_by;             // axis to group the summary by; default scheduler.policy
  bool quiet = false;                 // no progress, no summary
  std::string shard;                  // "K/N": run only shard K of N (shard.h); "": every point
};

// Entry point from `clustersim` main: argv[1] == "sweep". Initializes MPI (FUNNELED) unless
// --dry-run. Returns the exit status (see kExit*).
int run_sweep_command(int argc, char** argv);

// The embedded default grid (text of sweep/examples/default/grid.toml).
std::string_view default_grid_text();

// The --dry-run listing: one line per point (id, replicate, seed, axis values, estimated cost);
// with a shard, only that shard's points, and a line with its share of the cost.
void write_dry_run(std::ostream& out, const Grid& grid, const GridCheck& check,
                   const ShardSpec& shard = {});

// One line on the failed points, by reason (most frequent first), or "" when `status` (one entry
// per point: "ok" or the error) holds no failure: "sweep: 3 of 48 points failed (status column of
// /points): 2 x REASON; 1 x REASON".
std::string summarize_failures(const std::vector<std::string>& status);

// Per-group means of the main metrics (group = values of `group_by`, an axis path).
void write_summary_table(std::ostream& out, const Grid& grid,
                         const std::vector<PointResult>& results, const std::string& group_by);

}  // namespace clustersim::sweep
