// From a grid point to a simulator run: the point's run config (parsed by the same code as
// `clustersim run`), its seeds, and an estimate of its cost for dispatch ordering and ETAs.
#pragma once

#include <cstddef>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/side_file_cache.h"
#include "clustersim/sweep/grid.h"

namespace clustersim::sweep {

// The point's RunConfig: axis values applied to the base tables, then parse_run_config. The
// derived seed goes to the generator (workload.seed) and, mixed once more, to SimOptions::seed.
// Throws InputError naming the grid file, the axis line where it can, and the point.
RunConfig make_point_config(const Grid& grid, const GridPoint& point);
// The same with `section.key=value` overrides applied to the point's tables first (`clustersim run
// GRID --point N --set ...`). The point's seed stays its own: an override of `workload.seed` is an
// InputError (it would no longer be the grid's point).
RunConfig make_point_config(const Grid& grid, const GridPoint& point,
                            const std::vector<std::string>& overrides);
// The same with the config's side files from `side_files` (side_file_cache.h; nullptr: from
// disk): a rank's points, and the grid's check, parse each profile folder or table once.
RunConfig make_point_config(const Grid& grid, const GridPoint& point, SideFileCache* side_files);
RunConfig make_point_config(const Grid& grid, const GridPoint& point,
                            const std::vector<std::string>& overrides, SideFileCache* side_files);

// Relative cost of one simulation: jobs x (1 + log2 of cluster GPUs), doubled for preemptive
// policies (lease rounds re-plan the whole queue), x100 for the opt allocation mechanism (an LP
// per change) and x4 for drf. Only the ordering and ratios matter: it sorts dispatch (largest
// first) and scales the ETA, which is then calibrated by measured throughput.
double estimate_cost(const RunConfig& config, std::size_t jobs);
// The same over a workload of `span_s` seconds (estimated_span_s), plus the failure classes'
// expected unit failures over it, each costing the cluster's nodes (a failed gang's restart
// re-places and re-checks up to every node): a failure-heavy point is not as cheap as one
// without. (mtbf_h's failures are not counted yet.)
double estimate_cost(const RunConfig& config, std::size_t jobs, double span_s);
// The failure classes' expected unit failures over `span_s` seconds (a job-level class counted
// for one running job).
double expected_class_failures(const SimOptions& sim, double span_s);

// What one configuration's simulation holds, for the dry run's memory and disk estimates
// (sweep/src/sizing.h).
struct ConfigSize {
  std::size_t simulated_jobs = 0;  // generated up to the drain limit, or the trace's jobs
  double samples = 0.0;            // expected time-series samples (estimated span / interval)
  int gpus = 0;                    // the cluster's GPUs
  bool serving = false;            // queries of a serving catalog (DAGs): slower per cost unit
};

struct GridCheck {
  std::vector<double> config_cost;       // per configuration (config_id)
  std::vector<std::size_t> config_jobs;  // per configuration: the jobs its cost counts
  std::vector<ConfigSize> config_size;   // per configuration
  std::size_t traces_read = 0;           // distinct trace files opened
  // What the sweep says before it runs, and keeps in the result file (attribute `warnings`):
  // settings that cannot act, rows a trace dropped, configurations whose seeds are the same run,
  // runs the steady-state rule already knows to be too short. One line each, with the
  // configurations it concerns.
  std::vector<std::string> warnings;
};

// Checks every configuration before any simulation starts: parse_run_config on each, every
// distinct trace file read once, and, for each configuration replaying a trace, that every job
// can run on its cluster (unless reject_impossible), that no setting makes a run effectively
// endless (check_event_budget), and that seeds over the trace are not all the same run (a grid
// with replicates where no configuration has anything random). Throws InputError on the first
// bad one.
GridCheck validate_grid(const Grid& grid);

// The JSON list of the warnings (the result file's `warnings` attribute).
std::string warnings_json(const std::vector<std::string>& warnings);

}  // namespace clustersim::sweep
