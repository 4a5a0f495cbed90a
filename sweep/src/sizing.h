// Private to the sweep's sources: what a sweep of a grid will take, from the grid alone (the dry
// run, `clustersim sweep GRID --dry-run [--json]`, and through it `slurm/submit`): its time, the
// peak memory of a rank, and with --save-jobs / --save-timeseries its spool and final file. The
// constants are measurements (sweep/README.md, "Sizing"; sweep/bench/memory_bench.sh).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"

namespace clustersim::sweep::sweep_internal {

// Seconds one thread takes per unit of estimated cost: the one rate of the dry run's time, its
// scaling estimate and slurm/submit (sweep/README.md, "Sizing").
extern const double kSecondsPerCostUnit;

// How the sweep would run.
struct SizingInput {
  int ranks = 1;
  int threads = 1;  // per rank
  bool save_jobs = false;
  bool save_timeseries = false;
  bool whole_run = false;  // every job and sample is stored, not only the measured ones
};

struct SizingEstimate {
  std::size_t points = 0;     // the points it runs (a shard's, with --shard)
  double cost = 0.0;          // their estimated cost (point_config.h, estimate_cost)
  double cpu_seconds = 0.0;   // on one thread
  double wall_seconds = 0.0;  // on ranks x threads, a core each
  // The slowest of the measured grids ran this much longer than wall_seconds: a time limit
  // that the sweep should not exceed (slurm/submit's --time).
  double wall_seconds_high = 0.0;
  double peak_rss_bytes_per_rank = 0.0;  // the largest rank's (rank 0: it simulates too)
  double point_peak_bytes = 0.0;         // the largest point's simulation
  double job_rows = 0.0;                 // stored in /jobs (0 without --save-jobs)
  double timeseries_rows = 0.0;          // stored in /timeseries (0 without --save-timeseries)
  double final_bytes = 0.0;              // the result file
  // The output folder at its fullest: every spool, the journal and the final file being
  // written beside them (without --save-jobs/--save-timeseries: journal and file).
  double spool_peak_bytes = 0.0;
};

// `members`: the points that run (shard_members); empty means every point.
SizingEstimate estimate_sizing(const Grid& grid, const GridCheck& check,
                               const std::vector<bool>& members, const SizingInput& input);

// One line on stderr after the dry-run listing.
void write_sizing_text(std::ostream& out, const SizingInput& input, const SizingEstimate& estimate);

// `--dry-run --json`: the grid, the run assumed and the estimate (slurm/submit reads it); the
// result file and why the sweep would refuse it ("" when it would not).
void write_sizing_json(std::ostream& out, const Grid& grid, const GridCheck& check,
                       const SizingInput& input, const SizingEstimate& estimate,
                       const std::string& result_path, const std::string& result_problem);

}  // namespace clustersim::sweep::sweep_internal
