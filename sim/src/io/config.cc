#include "clustersim/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/options.h"
#include "io/internal/config_reader.h"
#include "io/internal/config_run_modes.h"
#include "io/internal/config_tables.h"
#include "io/internal/steady_state_config.h"
#include "options/declare.h"

namespace clustersim {

namespace {

// The built-in example, compiled in from sim/examples/default.toml by CMake.
constexpr std::string_view kDefaultConfig =
#include "default_config.inc"
    ;

}  // namespace

// Every key of a run config: the simulator's, the workload's, and the steady-state window.
const KeyRegistry& config_keys() {
  static const KeyRegistry registry = [] {
    KeyRegistry workload;
    options::declare_reader_keys(workload);
    options::declare_gavel_keys(workload);
    options::declare_generator_keys(workload);
    options::declare_catalog_keys(workload);
    options::declare_steady_state_keys(workload);
    io_internal::declare_fleet_keys(workload);
    options::custom(workload, "workload.window", KeyType::kList)
        .item(KeyType::kInteger)
        .component("config")
        .training_only()
        .refusal("not supported for DAG workloads yet")
        .default_note("none")
        .doc(
            "`[first, last]`: steady state: metrics over these job positions only (0-based; "
            "the synergy generator's job ids); a generated workload keeps arriving until they "
            "have all finished ([`sim/README.md`](sim/README.md#workloads)).");
    std::vector<KeyDecl> all = simulator_keys().keys();
    all.insert(all.end(), workload.keys().begin(), workload.keys().end());
    options::sort_by_table(all);
    KeyRegistry keys;
    for (KeyDecl& key : all) keys.add(std::move(key));
    return keys;
  }();
  return registry;
}

std::string_view default_config_text() { return kDefaultConfig; }

void apply_override(toml::table& table, const std::string& assignment,
                    const std::string& source_name) {
  const auto equals = assignment.find('=');
  const std::string where = source_name + " (--set " + excerpt(assignment, 60) + ")";
  if (equals == std::string::npos)
    throw InputError(where, 0, excerpt(assignment), "expected section.key=value");
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  const auto dot = path.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == path.size() ||
      path.find('.', dot + 1) != std::string::npos)
    throw InputError(where, 0, excerpt(path), "expected section.key");
  const std::string section = path.substr(0, dot), key = path.substr(dot + 1);
  toml::table parsed;
  try {
    parsed = toml::parse("value = " + text);
  } catch (const toml::parse_error&) {
    parsed = toml::table{{"value", text}};  // a bare word is a string
  }
  toml::node* existing_section = table.get(section);
  if (existing_section && !existing_section->is_table())
    throw InputError(where, 0, excerpt(section), "is not a table");
  if (!existing_section) table.insert(section, toml::table{});
  table.get(section)->as_table()->insert_or_assign(key, *parsed.get("value"));
}

RunConfig parse_run_config(const toml::table& root, const std::string& source_name,
                           const std::string& base_dir) {
  return parse_run_config(root, source_name, base_dir, nullptr);
}

RunConfig parse_run_config(const toml::table& root, const std::string& source_name,
                           const std::string& base_dir, SideFileCache* side_files) {
  using namespace io_internal;  // the config reader and the table parsers
  RunConfig config;
  config.source_name = source_name;
  ConfigParse parse(source_name, base_dir, side_files);
  const std::vector<std::string> tables = parse.keys().tables();
  for (const auto& [key, value] : root) {
    if (std::find(tables.begin(), tables.end(), key.str()) == tables.end())
      throw InputError(source_name, value.source().begin.line, excerpt(key.str()), "unknown table");
  }
  if (root.contains("fleet"))
    parse_fleet(parse, root, config);
  else
    parse_cluster(parse, root, config.sim, config.node_list);
  config.workload = parse_workload(parse, root, config.sim.cluster);
  config.sim.window = config.workload.window;
  refuse_inapplicable(
      parse, root, config.workload.serving_catalog ? WorkloadKind::kDag : WorkloadKind::kTraining);
  parse_table(parse, root, "scheduler", Targets{.sim = &config.sim});
  parse_throughput(parse, root, config);
  parse_fabric(parse, root, config);  // before [mechanisms]: a failure mix's leaf switches
  parse_mechanisms(parse, root, config);
  parse_sharing(parse, root, config);
  parse_power(parse, root, config);
  parse_table(parse, root, "serving", Targets{.sim = &config.sim});
  std::vector<std::string> steady_keys_set;
  {
    TableReader metrics(subtable(root, "metrics", source_name), "metrics", source_name);
    const Targets targets{.sim = &config.sim, .workload = &config.workload};
    parse.read_section(metrics, "metrics", targets);
    parse.check_section(metrics, "metrics", targets);
    metrics.reject_unknown_keys();
    for (const char* key : {"precision", "warmup_s", "drain_limit", "extend_limit"})
      if (metrics.has(key)) steady_keys_set.emplace_back(key);
  }
  parse_table(parse, root, "debug", Targets{.sim = &config.sim});
  if (const toml::table* workload = root["workload"].as_table();
      workload && config.workload.target_load > 0.0 && workload->contains("time_scale"))
    throw InputError(source_name, workload->get("target_load")->source().begin.line,
                     "workload.target_load",
                     "sets the time scale itself: give target_load or time_scale, not both");
  check_placement_study(config, root);
  if (config.fleet) check_fleet_config(parse, root, config);
  io_internal::plan_measurement(config, steady_keys_set);
  if (!config.sim.serving.config.empty()) parse_mixed(config, root, side_files);
  return config;
}

namespace {

toml::table parse_toml(std::string_view toml_text, const std::string& source_name,
                       const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& error) {
    throw InputError(source_name, error.source().begin.line, "",
                     "not valid TOML: " + excerpt(error.description(), 160));
  }
  for (const auto& assignment : overrides) apply_override(root, assignment, source_name);
  return root;
}

}  // namespace

RunConfig parse_run_config(std::string_view toml_text, const std::string& source_name,
                           const std::string& base_dir, const std::vector<std::string>& overrides) {
  return parse_run_config(parse_toml(toml_text, source_name, overrides), source_name, base_dir);
}

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_input_file(path, "config file");
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return parse_run_config(text, path, base_dir, overrides);
}

RunConfig io_internal::load_run_config(const std::string& path, SideFileCache* side_files) {
  const std::string text = read_input_file(path, "config file");
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return parse_run_config(parse_toml(text, path, {}), path, base_dir, side_files);
}

InputError impossible_job_error(const RunConfig& config, const ImpossibleJobError& error) {
  if (config.workload.trace_path) {
    return InputError(*config.workload.trace_path, error.source_line(), error.field(),
                      error.what());
  }
  return InputError(config.source_name, 0, error.field(),
                    std::string(error.what()) + " (a job of the generated workload)");
}

}  // namespace clustersim
