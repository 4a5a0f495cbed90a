// clustersim._core: configs, runs and their results, errors. The Python package
// (python/clustersim/) wraps it; see README.md, "Python".
#include <Python.h>
#include <pybind11/stl.h>
#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "binding.h"
#include "clustersim/error.h"
#include "clustersim/fleet_config.h"
#include "clustersim/host.h"
#include "clustersim/steady_state.h"

namespace clustersim::python {

namespace {

// ---- A config dict as a TOML table ---------------------------------------------------------

std::string key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

[[noreturn]] void bad_value(const std::string& path, const py::handle& value) {
  throw InputError("<config dict>", 0, path,
                   "a value of type " + std::string(py::str(py::type::of(value).attr("__name__"))) +
                       " has no TOML form (expected a bool, number, string, list or dict)");
}

toml::table to_table(const py::dict& dict, const std::string& path);

// Where a converted value goes: a table's key or the end of an array (two sinks, so that the
// conversion's recursion instantiates finitely).
struct TableSink {
  toml::table& table;
  std::string key;
  template <typename Node>
  void add(Node&& node) {
    table.insert_or_assign(key, std::forward<Node>(node));
  }
};
struct ArraySink {
  toml::array& array;
  template <typename Node>
  void add(Node&& node) {
    array.push_back(std::forward<Node>(node));
  }
};

// A scalar, list or dict as a TOML node.
template <typename Sink>
void add_value(const py::handle& value, const std::string& path, Sink& sink) {
  PyObject* object = value.ptr();
  if (PyBool_Check(object) || py::isinstance(value, py::module_::import("numpy").attr("bool_"))) {
    sink.add(value.cast<bool>());
  } else if (PyLong_Check(object) || (!PyFloat_Check(object) && PyIndex_Check(object))) {
    sink.add(value.cast<std::int64_t>());
  } else if (PyFloat_Check(object) || PyNumber_Check(object)) {
    sink.add(value.cast<double>());
  } else if (PyUnicode_Check(object)) {
    sink.add(value.cast<std::string>());
  } else if (PyDict_Check(object)) {
    sink.add(to_table(value.cast<py::dict>(), path));
  } else if (PyList_Check(object) || PyTuple_Check(object)) {
    toml::array array;
    ArraySink items{array};
    for (const py::handle item : value) add_value(item, path, items);
    sink.add(std::move(array));
  } else {
    bad_value(path, value);
  }
}

toml::table to_table(const py::dict& dict, const std::string& path) {
  toml::table table;
  for (const auto& [key, value] : dict) {
    if (!PyUnicode_Check(key.ptr()))
      throw InputError("<config dict>", 0, path, "keys must be strings");
    TableSink sink{table, key.cast<std::string>()};
    add_value(value, key_path(path, sink.key), sink);
  }
  return table;
}

// ---- Errors ----------------------------------------------------------------------------------

// The exception types (the module holds them; handles, so nothing is released at exit).
py::handle& input_error_type() {
  static py::handle type;
  return type;
}
py::handle& plan_error_type() {
  static py::handle type;
  return type;
}

void translate(std::exception_ptr pointer) {
  try {
    if (pointer) std::rethrow_exception(pointer);
  } catch (const InputError& error) {
    py::object instance = input_error_type()(error.what());
    instance.attr("file") = error.file();
    instance.attr("line") = error.line();
    instance.attr("field") = error.field();
    instance.attr("message") = error.message();
    PyErr_SetObject(input_error_type().ptr(), instance.ptr());
  } catch (const PlanError& error) {
    PyErr_SetString(plan_error_type().ptr(), error.what());
  }
}

}  // namespace

Config parse_config(const py::object& config, const std::vector<std::string>& overrides) {
  if (config.is_none())
    return {std::make_shared<const RunConfig>(
        parse_run_config(default_config_text(), "<built-in example>", "", overrides))};
  if (PyDict_Check(config.ptr())) {
    toml::table table = to_table(config.cast<py::dict>(), "");
    for (const std::string& assignment : overrides)
      apply_override(table, assignment, "<config dict>");
    return {std::make_shared<const RunConfig>(
        parse_run_config(table, "<config dict>", std::filesystem::current_path().string()))};
  }
  const std::string path = py::str(py::module_::import("os").attr("fspath")(config));
  return {std::make_shared<const RunConfig>(load_run_config(path, overrides))};
}

[[noreturn]] void throw_impossible(const RunConfig& config, const ImpossibleJobError& error) {
  throw impossible_job_error(config, error);
}

void Codes::extend(std::span<const JobSpec> specs, std::string JobSpec::*member) {
  std::unordered_map<std::string, std::int32_t> known;
  for (std::size_t i = 0; i < names.size(); ++i) known.emplace(names[i], static_cast<int>(i));
  for (std::size_t job = codes.size(); job < specs.size(); ++job) {
    const std::string& name = specs[job].*member;
    auto [at, added] = known.emplace(name, static_cast<std::int32_t>(names.size()));
    if (added) names.push_back(name);
    codes.push_back(at->second);
  }
}

std::shared_ptr<Simulation> make_simulation(const RunConfig& config,
                                            std::shared_ptr<const Workload> workload) {
  // clustersim.Simulation steps a fleet (make_fleet_simulation); an environment takes one cluster.
  if (config.fleet)
    throw InputError(config.source_name, 0, "fleet",
                     "a [fleet] config runs whole (clustersim.run) or steps in "
                     "clustersim.Simulation; the RL environments take one cluster");
  auto simulation = std::make_shared<Simulation>(config, std::move(workload));
  simulation->set_decider(nullptr);
  try {
    simulation->context();  // starts it: options are checked, jobs loaded
  } catch (const ImpossibleJobError& error) {
    throw_impossible(config, error);
  }
  return simulation;
}

std::shared_ptr<FleetSimulation> make_fleet_simulation(const RunConfig& config,
                                                       std::shared_ptr<const Workload> workload) {
  struct Owner {
    FleetSpec spec;
    std::shared_ptr<const Workload> workload;
    std::optional<FleetSimulation> fleet;
  };
  auto owner = std::make_shared<Owner>();
  owner->spec = fleet_for_workload(*config.fleet, *workload);
  // The rebalancer is a decision mechanism of the built-in decider; a Python decider decides here.
  if (owner->spec.rebalance.enabled)
    throw InputError(config.source_name, 0, "fleet.rebalance.enabled",
                     "the rebalancer acts under the built-in decider (clustersim.run); a fleet "
                     "stepped in clustersim.Simulation has the Python decider's moves only");
  owner->workload = std::move(workload);
  try {
    owner->fleet.emplace(owner->spec, config.sim, owner->workload->jobs);
    Simulation& simulation = owner->fleet->simulation();
    simulation.set_decider(nullptr);
    simulation.context();  // starts it: options are checked, jobs loaded
  } catch (const ImpossibleJobError& error) {
    throw_impossible(config, error);
  } catch (const std::invalid_argument& error) {  // the fleet's own: a job no cluster takes, ...
    throw InputError(config.source_name, 0, "fleet", error.what());
  }
  return std::shared_ptr<FleetSimulation>(owner, &*owner->fleet);
}

void add_cluster_metrics(py::dict metrics,
                         const std::vector<std::pair<std::string, double>>& named) {
  for (const auto& [name, value] : named)
    if (name.find('.') != std::string::npos) metrics[py::str(name)] = py::float_(value);
}

py::dict metrics_dict(const RunMetrics& metrics) {
  py::dict out;
  for (const MetricField& field : run_metric_fields()) {
    if (field.type == FieldType::kCount)
      out[py::str(std::string(field.name))] = py::int_(metrics.*field.count);
    else
      out[py::str(std::string(field.name))] = py::float_(metrics.*field.real);
  }
  return out;
}

py::dict result_dict(std::span<const JobSpec> specs, const RunResult& result) {
  const std::size_t n = result.jobs.size();
  std::size_t unfinished = 0;
  for (const JobRecord& record : result.jobs) unfinished += record.finish_time < 0.0;
  py::list columns;
  const auto strings = [&](auto&& text_of) {
    py::list values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = py::str(text_of(result.jobs[i]));
    return py::module_::import("numpy").attr("array")(values, py::arg("dtype") = "object");
  };
  // As --jobs-out writes them (report.h): job_id, the first block, model, vc, status, the rest.
  // A field written blank for unfinished jobs is NaN there (a count column then holds floats,
  // as a CSV reader makes it).
  const auto add_fields = [&](bool first_block) {
    for (const JobField& field : job_record_fields()) {
      if (field.first_block != first_block) continue;
      const bool blanks = field.finished_only && unfinished > 0;
      py::object column;
      if (field.type == FieldType::kCount && !blanks) {
        py::array_t<std::int64_t> values(static_cast<py::ssize_t>(n));
        auto* out = values.mutable_data();
        for (std::size_t i = 0; i < n; ++i) out[i] = result.jobs[i].*field.count;
        column = values;
      } else {
        py::array_t<double> values(static_cast<py::ssize_t>(n));
        auto* out = values.mutable_data();
        for (std::size_t i = 0; i < n; ++i) {
          const JobRecord& record = result.jobs[i];
          out[i] = blanks && record.finish_time < 0.0 ? std::numeric_limits<double>::quiet_NaN()
                   : field.type == FieldType::kCount  ? record.*field.count
                                                      : record.*field.real;
        }
        column = values;
      }
      columns.append(py::make_tuple(std::string(field.name), column));
    }
  };
  columns.append(py::make_tuple(
      "job_id", strings([&](const JobRecord& record) { return specs[record.index].id; })));
  add_fields(true);
  columns.append(py::make_tuple(
      "model", strings([&](const JobRecord& record) { return specs[record.index].model; })));
  columns.append(py::make_tuple(
      "vc", strings([&](const JobRecord& record) { return specs[record.index].vc; })));
  columns.append(py::make_tuple("status", strings([&](const JobRecord& record) {
                                  return record.rejected             ? "rejected"
                                         : record.finish_time >= 0.0 ? "finished"
                                                                     : "unfinished";
                                })));
  add_fields(false);
  // Columns a component adds (RunResult::job_columns: a rate model's iter_s, a mechanism's ettr,
  // the power meter's energy_kwh, ...), as --jobs-out writes them after the others; indexed by
  // job position, so rows cut to the measured jobs still find theirs.
  for (const RunResult::Column& added : result.job_columns) {
    py::array_t<double> values(static_cast<py::ssize_t>(n));
    double* out = values.mutable_data();
    for (std::size_t i = 0; i < n; ++i) out[i] = added.values[result.jobs[i].index];
    columns.append(py::make_tuple(added.name, values));
  }
  py::dict out;
  out["metrics"] = metrics_dict(result.metrics);
  out["jobs"] = columns;
  // The steady-state verdict in `clustersim run`'s words ("" when the run was not assessed), so
  // that Python shows and warns about it as the command does.
  out["verdict"] = steady_state_verdict(result);
  // What the metrics measure (a duration cap that binds the p99, ...), as `clustersim run` warns.
  py::list warnings;
  for (const std::string& warning : metric_warnings(specs, result)) warnings.append(warning);
  out["warnings"] = warnings;
  return out;
}

namespace {

// `clustersim run CONFIG --json --jobs-out ...` without the files.
// With a seed: the workload's (if generated) and the run's randomness, as a sweep seeds a point.
py::dict run(const Config& parsed, std::optional<std::uint64_t> seed) {
  RunConfig config = *parsed.config;
  config.sim.record_samples = false;  // as `clustersim run` without --timeseries-out
  if (seed) apply_seed(config, *seed);
  std::shared_ptr<const Workload> workload;
  ConfigRun done;
  {
    py::gil_scoped_release release;
    workload = std::make_shared<const Workload>(load_workload(config));
    try {
      done = simulate_config(config, workload);
    } catch (const ImpossibleJobError& error) {
      throw_impossible(config, error);
    }
  }
  // As `clustersim run` writes them: under the steady-state rule, the measured rows.
  if (config.workload.steady_plan) keep_measured_rows(done.result);
  py::dict out = result_dict(done.workload->jobs, done.result);
  add_cluster_metrics(out["metrics"].cast<py::dict>(), done.cluster_metrics);
  out["skipped_rows"] = workload->skipped_rows;
  py::list reasons;
  for (const std::string& reason : workload->skip_reasons) reasons.append(reason);
  out["skip_reasons"] = reasons;
  return out;
}

}  // namespace

}  // namespace clustersim::python

PYBIND11_MODULE(_core, m) {
  using namespace clustersim;
  using namespace clustersim::python;
  m.doc() = "clustersim's C++ core (use the clustersim package)";

  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<PlanError> plan_error(m, "PlanError", PyExc_ValueError);
  input_error_type() = input_error;
  plan_error_type() = plan_error;
  py::register_exception_translator(&translate);

  py::class_<Config>(m, "Config")
      .def_property_readonly("source_name", [](const Config& c) { return c.config->source_name; })
      .def_property_readonly(
          "generated", [](const Config& c) { return c.config->workload.generator.has_value(); })
      .def_property_readonly("total_gpus",
                             [](const Config& c) { return c.config->sim.cluster.total_gpus(); });
  m.def("parse_config", &parse_config, py::arg("config"), py::arg("overrides"));
  m.def("run", &run, py::arg("config"), py::arg("seed") = py::none());
  m.def("metric_names", [] {
    py::list names;
    for (const MetricField& field : run_metric_fields()) names.append(std::string(field.name));
    return names;
  });
  bind_simulation(m);
  bind_env(m);
}
