// The Python extension `clustersim._core` (python/README section of README.md): shared pieces of
// its source files. Binding code only: the simulator is used through its public headers.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/fleet.h"
#include "clustersim/metrics.h"
#include "clustersim/simulation.h"

namespace clustersim::python {

namespace py = pybind11;

// A parsed run config, shared by runs, simulations and environments made from it.
struct Config {
  std::shared_ptr<const RunConfig> config;
};

// Parses `config` (a TOML path, a dict in the TOML's shape, or None for the built-in example)
// with `overrides` ("section.key=value").
Config parse_config(const py::object& config, const std::vector<std::string>& overrides);

// The results as the Python side wraps them: {"metrics": {...}, "jobs": [(column, array), ...]}
// (the --json keys and the --jobs-out columns, from the field tables of metrics.h).
py::dict result_dict(std::span<const JobSpec> specs, const RunResult& result);
py::dict metrics_dict(const RunMetrics& metrics);

// A run's job that can never run, as front ends report it (FILE:LINE: field ...).
[[noreturn]] void throw_impossible(const RunConfig& config, const ImpossibleJobError& error);

// Integer codes of a string attribute of the jobs (model, user): codes[job] indexes names.
struct Codes {
  std::vector<std::string> names;
  std::vector<std::int32_t> codes;
  void extend(std::span<const JobSpec> specs, std::string JobSpec::*member);
};

// Makes the Simulation a Python simulation or an environment steps: built from the config with
// the workload (already loaded), no decider (the caller decides), started (so that bad options
// and impossible jobs raise here).
std::shared_ptr<Simulation> make_simulation(const RunConfig& config,
                                            std::shared_ptr<const Workload> workload);

// A [fleet] config's one simulation (fleet.h's FleetSimulation), built and started as
// make_simulation's; it keeps its spec and the workload alive. A fleet that cannot be stepped
// (FleetSimulation says why) raises InputError naming the config.
std::shared_ptr<FleetSimulation> make_fleet_simulation(const RunConfig& config,
                                                       std::shared_ptr<const Workload> workload);

// A fleet's per-cluster named metrics (FleetResult::metrics with a '.', `<cluster>.jobs`, ...)
// added to a result's metrics, as `clustersim run --json` writes them after the run's.
void add_cluster_metrics(py::dict metrics,
                         const std::vector<std::pair<std::string, double>>& named);

void bind_simulation(py::module_& m);
void bind_env(py::module_& m);

}  // namespace clustersim::python
