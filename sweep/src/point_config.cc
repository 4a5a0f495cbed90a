#include "clustersim/sweep/point_config.h"

#include <cmath>
#include <map>

#include "clustersim/error.h"
#include "clustersim/policy.h"
#include "clustersim/time_share.h"
#include "clustersim/sweep/hash.h"

namespace clustersim::sweep {

namespace {

// Where the error is about an axis, point at the axis' line in the grid file (the copied table
// no longer carries source positions); else at the base key's own line.
std::size_t line_for_field(const Grid& grid, const std::string& field, std::size_t fallback) {
  for (const Axis& axis : grid.axes) {
    if (field == axis.path || field.rfind(axis.path + ".", 0) == 0) return axis.line;
    // An unknown table named by an axis ("sched" of "sched.policy").
    if (!field.empty() && axis.path.rfind(field + ".", 0) == 0) return axis.line;
    // Readers may name only the last component ("policy") of the key.
    if (field == axis.path_parts.back()) return axis.line;
  }
  if (!field.empty()) {
    toml::node_view<const toml::node> node = grid.base.at_path(field);
    if (node) return node.node()->source().begin.line;
  }
  return fallback;
}

}  // namespace

RunConfig make_point_config(const Grid& grid, const GridPoint& point) {
  try {
    toml::table table = point_table(grid, point);
    RunConfig config = parse_run_config(table, grid.source_name, grid.base_dir);
    apply_seed(config, point.seed);
    return config;
  } catch (const InputError& error) {
    std::string context = grid.configurations() > 1 || grid.replicates > 1
                              ? " (in grid point " + std::to_string(point.point_id) + ": " +
                                    describe_point(grid, point) + ")"
                              : "";
    throw InputError(grid.source_name, line_for_field(grid, error.field(), error.line()),
                     error.field(), error.message() + context);
  }
}

double estimate_cost(const RunConfig& config, std::size_t jobs) {
  // Whether the policy preempts comes from the policy itself (the registry), not a list here.
  const bool preemptive = is_time_share_policy(config.sim.scheduler.policy) ||
                          config.sim.scheduler.preemption.value_or(
                              make_scheduling_policy(config.sim.scheduler)->preemptive());
  // Mechanisms that re-plan every running job at each change cost more per event: opt solves an
  // LP, drf re-divides every node (factors measured on sweep/examples/synergy).
  const std::string& allocation = config.sim.scheduler.allocation;
  const double allocation_factor = allocation == "opt" ? 100.0 : allocation == "drf" ? 4.0 : 1.0;
  double gpus = std::max(1, config.sim.cluster.total_gpus());
  return static_cast<double>(jobs) * (1.0 + std::log2(gpus)) * (preemptive ? 2.0 : 1.0) *
         allocation_factor;
}

GridCheck validate_grid(const Grid& grid) {
  GridCheck check;
  std::map<std::string, std::size_t> trace_jobs;  // "format:path" -> jobs
  check.config_cost.reserve(grid.configurations());
  for (std::size_t config_id = 0; config_id < grid.configurations(); ++config_id) {
    GridPoint point = grid_point(grid, config_id * grid.replicates);
    RunConfig config = make_point_config(grid, point);
    std::size_t jobs = 0;
    if (config.workload.trace_path) {
      std::string key = std::string(trace_format_name(config.workload.format)) + ":" +
                        *config.workload.trace_path;
      auto found = trace_jobs.find(key);
      if (found == trace_jobs.end()) {
        std::size_t jobs_in_trace = 0;
        try {
          jobs_in_trace = load_workload(config).jobs.size();
        } catch (const InputError& error) {
          throw InputError(error.file(), error.line(), error.field(),
                           error.message() + " (the trace of grid point " +
                               std::to_string(point.point_id) + " of " + grid.source_name + ")");
        }
        found = trace_jobs.emplace(key, jobs_in_trace).first;
        ++check.traces_read;
      }
      jobs = found->second;
    } else if (config.workload.generator) {
      jobs = config.workload.generator->jobs;
    }
    check.config_cost.push_back(estimate_cost(config, jobs));
    check.config_jobs.push_back(jobs);
  }
  return check;
}

}  // namespace clustersim::sweep
