#include "clustersim/sweep/point_config.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "clustersim/component.h"
#include "clustersim/error.h"
#include "clustersim/policy.h"
#include "clustersim/simulation.h"
#include "clustersim/sweep/hash.h"
#include "clustersim/time_share.h"

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
  return make_point_config(grid, point, std::vector<std::string>{});
}

RunConfig make_point_config(const Grid& grid, const GridPoint& point,
                            const std::vector<std::string>& overrides) {
  return make_point_config(grid, point, overrides, nullptr);
}

RunConfig make_point_config(const Grid& grid, const GridPoint& point, SideFileCache* side_files) {
  return make_point_config(grid, point, {}, side_files);
}

RunConfig make_point_config(const Grid& grid, const GridPoint& point,
                            const std::vector<std::string>& overrides, SideFileCache* side_files) {
  try {
    toml::table table = point_table(grid, point);
    for (const std::string& assignment : overrides) {
      if (assignment.rfind("workload.seed=", 0) == 0)
        throw InputError(grid.source_name, 0, "workload.seed",
                         "cannot be set for a grid point: its seed derives from the grid's");
      apply_override(table, assignment, grid.source_name);
    }
    RunConfig config = parse_run_config(table, grid.source_name, grid.base_dir, side_files);
    apply_seed(config, point.seed);
    return config;
  } catch (const InputError& error) {
    std::string context = grid.configurations() > 1 || grid.replicates > 1
                              ? " (in grid point " + std::to_string(point.point_id) + ": " +
                                    describe_point(grid, point) + ")"
                              : "";
    if (error.file() != grid.source_name) {
      // A file or folder the grid names (a profile folder, a throughput table): the message
      // names it, and the grid and point that named it.
      const std::string where = context.empty()
                                    ? ""
                                    : ", in grid point " + std::to_string(point.point_id) + ": " +
                                          describe_point(grid, point);
      throw InputError(error.file(), error.line(), error.field(),
                       error.message() + " (named by " + grid.source_name + where + ")");
    }
    throw InputError(grid.source_name, line_for_field(grid, error.field(), error.line()),
                     error.field(), error.message() + context);
  }
}

double estimate_cost(const RunConfig& config, std::size_t jobs) {
  // Whether the run preempts, and what its allocation mechanism costs, are the components'
  // own answers (clustersim/component.h), not lists here.
  const bool preemptive = run_preempts(config.sim.scheduler);
  const ComponentDescriptor* allocation =
      find_component(ComponentKind::kAllocation, config.sim.scheduler.allocation);
  const double allocation_factor = allocation ? allocation->caps.relative_cost : 1.0;
  double gpus = std::max(1, config.sim.cluster.total_gpus());
  return static_cast<double>(jobs) * (1.0 + std::log2(gpus)) * (preemptive ? 2.0 : 1.0) *
         allocation_factor;
}

double expected_class_failures(const SimOptions& sim, double span_s) {
  const double nodes = sim.cluster.total_nodes();
  const int per_leaf =
      sim.fabric.hosts_per_leaf > 0 ? sim.fabric.hosts_per_leaf : sim.cluster.nodes_per_rack;
  double per_h = 0.0;
  for (const FailureClass& c : sim.mechanisms.failure_classes) {
    double units = 1.0;  // kJobHour: one running job
    switch (c.unit) {
      case FailureUnit::kGpu:
        units = sim.cluster.total_gpus();
        break;
      case FailureUnit::kNode:
        units = nodes;
        break;
      case FailureUnit::kRack:
        units = std::ceil(nodes / std::max(1, sim.cluster.nodes_per_rack));
        break;
      case FailureUnit::kLeaf:
        units = std::ceil(nodes / std::max(1, per_leaf));
        break;
      case FailureUnit::kJobHour:
        break;
    }
    per_h += c.rate_per_h * units;
  }
  return per_h * span_s / 3600.0;
}

double estimate_cost(const RunConfig& config, std::size_t jobs, double span_s) {
  return estimate_cost(config, jobs) +
         expected_class_failures(config.sim, span_s) * config.sim.cluster.total_nodes();
}

namespace {

// An InputError about configuration `point` of the grid: the grid file, the key's axis line where
// there is one, and the point.
InputError at_point(const Grid& grid, const GridPoint& point, const InputError& error) {
  const std::string context = grid.configurations() > 1 || grid.replicates > 1
                                  ? " (in grid point " + std::to_string(point.point_id) + ": " +
                                        describe_point(grid, point) + ")"
                                  : "";
  if (error.file() != grid.source_name) {
    return InputError(error.file(), error.line(), error.field(),
                      error.message() + " (the trace of grid point " +
                          std::to_string(point.point_id) + " of " + grid.source_name + ")");
  }
  return InputError(grid.source_name, line_for_field(grid, error.field(), error.line()),
                    error.field(), error.message() + context);
}

// Warnings gathered over configurations: each text once, with how many configurations say it
// and the first one's values.
class Warnings {
 public:
  void add(const std::string& text, const std::string& where) {
    auto [it, fresh] = index_.emplace(text, lines_.size());
    if (fresh) lines_.push_back({text, where, 0});
    ++lines_[it->second].count;
  }
  std::vector<std::string> render(std::size_t configurations) const {
    std::vector<std::string> out;
    for (const Line& line : lines_) {
      std::string text = line.text;
      if (configurations > 1)
        text += " [" + std::to_string(line.count) + " of " + std::to_string(configurations) +
                " configurations" + (line.where.empty() ? "" : ", e.g. " + line.where) + "]";
      out.push_back(text);
    }
    return out;
  }

 private:
  struct Line {
    std::string text, where;
    std::size_t count;
  };
  std::vector<Line> lines_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

std::string warnings_json(const std::vector<std::string>& warnings) {
  std::string out = "[";
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    out += i ? ", \"" : "\"";
    for (char c : warnings[i]) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        out += ' ';
        continue;
      }
      out += c;
    }
    out += '"';
  }
  return out + "]";
}

GridCheck validate_grid(const Grid& grid) {
  GridCheck check;
  // "format:path" -> the trace as read (kept while the grid is checked: every configuration
  // replaying it is checked against it).
  std::map<std::string, std::shared_ptr<const Workload>> traces;
  Warnings warnings;
  std::size_t fixed = 0;  // configurations whose seeds would all be the same run
  std::string fixed_where;
  check.config_cost.reserve(grid.configurations());
  check.config_size.reserve(grid.configurations());
  SideFileCache side_files;  // the configurations share their profiles and tables
  for (std::size_t config_id = 0; config_id < grid.configurations(); ++config_id) {
    GridPoint point = grid_point(grid, config_id * grid.replicates);
    RunConfig config = make_point_config(grid, point, &side_files);
    const std::string where = describe_point(grid, point);
    std::size_t jobs = 0;
    std::shared_ptr<const Workload> trace;
    if (config.workload.trace_path) {
      const std::string key = trace_read_key(config);
      auto found = traces.find(key);
      if (found == traces.end()) {
        std::shared_ptr<const Workload> workload;
        try {
          workload = std::make_shared<const Workload>(load_workload(config));
        } catch (const InputError& error) {
          throw at_point(grid, point, error);
        }
        found = traces.emplace(key, std::move(workload)).first;
        ++check.traces_read;
        if (found->second->skipped_rows > 0)
          warnings.add(*config.workload.trace_path + ": " +
                           std::to_string(found->second->skipped_rows) +
                           " malformed rows skipped (skip_invalid)" +
                           (found->second->skip_reasons.empty()
                                ? ""
                                : "; first: " + found->second->skip_reasons.front()),
                       "");
        for (const Workload::RowChange& change : found->second->row_changes)
          warnings.add(*config.workload.trace_path + ": " + std::to_string(change.rows) +
                           (change.rows == 1 ? " row: " : " rows: ") + change.reason,
                       "");
      }
      trace = found->second;
      jobs = trace->jobs.size();
    } else if (config.workload.generator) {
      jobs = config.workload.generator->jobs;
    }
    try {
      check_event_budget(config, trace.get());
    } catch (const InputError& error) {
      throw at_point(grid, point, error);
    }
    // A job of the trace that can never run on this configuration's cluster: refused now, as
    // `clustersim run` refuses it, before any point runs.
    if (trace && !trace->dag && !config.sim.reject_impossible &&
        !config.workload.placement_study()) {
      try {
        Simulation(config, trace).view();
      } catch (const ImpossibleJobError& error) {
        throw at_point(grid, point, impossible_job_error(config, error));
      } catch (const std::invalid_argument& error) {
        throw at_point(grid, point, InputError(grid.source_name, 0, "", error.what()));
      }
    }
    for (const ConfigWarning& warning : config_warnings(config))
      warnings.add(warning.key + " " + warning.message, where);
    if (const auto& plan = config.workload.steady_plan; plan && plan->more_jobs > 1.0) {
      std::ostringstream text;
      text.precision(3);
      text << "too short before it runs: run " << plan->more_jobs << "x more jobs ("
           << plan->short_reason << ")";
      if (const double limit = config.workload.steady.extend_limit; limit > 1.0)
        text << "; [metrics] extend_limit runs it with " << std::min(limit, plan->more_jobs)
             << "x the planned measured jobs";
      warnings.add(text.str(), where);
    }
    if (grid.replicates > 1 && !has_randomness(config)) {
      if (fixed++ == 0) fixed_where = where;
    }
    check.config_cost.push_back(
        config.sim.mechanisms.has_failure_classes()
            ? estimate_cost(config, jobs, estimated_span_s(config, trace.get()))
            : estimate_cost(config, jobs));
    ConfigSize size;
    size.simulated_jobs = jobs;  // a generated stream may grow past it (overload, drain)
    if (config.sim.sample_interval_s > 0.0)
      size.samples = estimated_span_s(config, trace.get()) / config.sim.sample_interval_s;
    size.gpus = config.sim.cluster.total_gpus();
    size.serving = config.workload.serving_catalog != nullptr;
    check.config_size.push_back(size);
    // The rows --save-jobs keeps: the measured jobs under the steady-state rule.
    check.config_jobs.push_back(config.workload.steady_plan
                                    ? config.workload.steady_plan->last -
                                          config.workload.steady_plan->first + 1
                                    : jobs);
  }
  if (fixed > 0) {
    const std::string why =
        "replays a fixed trace with nothing random (no generated workload, placement = "
        "\"random\", mechanisms.mtbf_h, failure classes or empirical costs): its " +
        std::to_string(grid.replicates) + " seeds would be the same run";
    if (fixed == grid.configurations())
      throw InputError(grid.source_name, grid.seeds_line, "sweep.seeds",
                       "every configuration " + why +
                           ", not independent replicates; set seeds = 1, or let something random "
                           "vary (e.g. placement = \"random\" or mechanisms.mtbf_h)");
    warnings.add("pseudo-replicates: " + std::to_string(fixed) + " of " +
                     std::to_string(grid.configurations()) + " configurations (e.g. " +
                     fixed_where + ") " + why + "; the analysis shows them without intervals",
                 "");
  }
  check.warnings = warnings.render(grid.configurations());
  return check;
}

}  // namespace clustersim::sweep
