// The run config's tables parsed by hand beside their declared keys
// (io/internal/config_tables.h).
#include "io/internal/config_tables.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/engine_limits.h"
#include "clustersim/error.h"
#include "clustersim/failure_trace.h"
#include "clustersim/options.h"
#include "clustersim/placement_study.h"
#include "clustersim/power.h"
#include "clustersim/serving_catalog.h"
#include "io/internal/availability_trace.h"
#include "io/internal/config_reader.h"
#include "io/internal/energy_traces.h"
#include "io/internal/pair_table.h"
#include "io/internal/side_files.h"
#include "workload/philly_patterns.h"

namespace clustersim::io_internal {

namespace {

// The simulator counts nodes and GPUs in int: a cluster whose totals would wrap is refused. One
// group cannot wrap them (nodes and gpus_per_node are range-checked), so the fault is in the
// [[cluster.node_group]] list.
void check_cluster_size(const ClusterSpec& spec, const TableReader& reader) {
  std::int64_t nodes = 0, gpus = 0;
  for (const NodeGroupSpec& group : spec.groups) {
    nodes += group.nodes;
    gpus += static_cast<std::int64_t>(group.nodes) * group.gpus_per_node;
  }
  if (nodes > std::numeric_limits<int>::max() || gpus > std::numeric_limits<int>::max()) {
    reader.fail("node_group", "the groups add up to " + std::to_string(gpus) + " GPUs on " +
                                  std::to_string(nodes) + " nodes, more than " +
                                  std::to_string(std::numeric_limits<int>::max()));
  }
  if (gpus > kMaxClusterGpus) {
    // One group: its `nodes` is at fault; several: the list as a whole.
    const bool simple = spec.groups.size() == 1 && reader.has("nodes");
    const NodeGroupSpec& group = spec.groups.front();
    reader.fail(simple ? "nodes" : "node_group",
                (simple ? std::to_string(group.nodes) + " nodes x " +
                              std::to_string(group.gpus_per_node) + " GPUs = "
                        : "the groups add up to ") +
                    std::to_string(gpus) + " GPUs, more than the simulator indexes (at most " +
                    std::to_string(kMaxClusterGpus) + " GPUs)");
  }
}

// [cluster] node_list: consecutive identical nodes make one node group each (node order kept),
// after [cluster]'s own nodes;
// nodes without GPUs cannot host the event-driven engine's jobs and are left out of the groups
// (the placement study places on every listed node).
void add_node_list_groups(const NodeList& list, ClusterSpec& spec) {
  const std::size_t first = spec.groups.size();
  for (const NodeListEntry& node : list.nodes) {
    if (node.gpus == 0) continue;
    const double cpus = static_cast<double>(node.cpu_milli) / 1000.0;
    const double mem_gb = static_cast<double>(node.memory_mib) / 1024.0;
    if (spec.groups.size() > first) {
      NodeGroupSpec& last = spec.groups.back();
      if (last.gpus_per_node == node.gpus && last.gpu_type == node.model &&
          last.cpus_per_node == cpus && last.mem_gb_per_node == mem_gb) {
        ++last.nodes;
        continue;
      }
    }
    NodeGroupSpec group;
    group.name = "list" + std::to_string(spec.groups.size());
    group.nodes = 1;
    group.gpus_per_node = node.gpus;
    group.gpu_type = node.model;
    group.cpus_per_node = cpus;
    group.mem_gb_per_node = mem_gb;
    spec.groups.push_back(group);
  }
}

}  // namespace

void parse_cluster(ConfigParse& parse, const toml::table& root, SimOptions& sim,
                   std::shared_ptr<const NodeList>& node_list) {
  const std::string& source = parse.source();
  const toml::table* table = subtable(root, "cluster", source);
  if (!table) throw InputError(source, 0, "cluster", "missing table [cluster]");
  parse_cluster_table(parse, *table, "cluster", {}, sim, node_list);
}

void parse_cluster_table(ConfigParse& parse, const toml::table& table, const std::string& where,
                         const std::vector<std::string>& read_elsewhere, SimOptions& sim,
                         std::shared_ptr<const NodeList>& node_list) {
  const std::string& source = parse.source();
  TableReader reader(&table, where, source);
  for (const std::string& key : read_elsewhere) reader.node(key);
  ClusterSpec& spec = sim.cluster;
  NodeGroupSpec simple;  // [cluster]'s own nodes; node groups inherit its values
  parse.read_section(reader, "cluster", Targets{.sim = &sim, .group = &simple});
  if (simple.nodes > 0) spec.groups.push_back(simple);
  if (reader.has("node_list")) {
    const std::string path =
        resolve_path(parse.text(reader, "cluster.node_list"), parse.base_dir());
    node_list = std::make_shared<const NodeList>(read_openb_node_list(path));
    add_node_list_groups(*node_list, spec);
  }

  if (const toml::node* groups = reader.node("node_group")) {
    const toml::array* array = groups->as_array();
    if (!array)
      reader.fail("node_group", "expected an array of tables ([[" + where + ".node_group]])");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::table* group_table = array->get(i)->as_table();
      const std::string section = where + ".node_group[" + std::to_string(i) + "]";
      if (!group_table)
        throw InputError(source, array->get(i)->source().begin.line, section, "expected a table");
      TableReader group_reader(group_table, section, source);
      NodeGroupSpec group = simple;
      group.name = "group" + std::to_string(i);
      group.nodes = 0;
      parse.read_section(group_reader, "cluster.node_group[]", Targets{.group = &group});
      if (!group_reader.has("nodes")) group_reader.fail("nodes", "missing");
      group_reader.reject_unknown_keys();
      spec.groups.push_back(group);
    }
  }
  if (spec.groups.empty())
    reader.fail("nodes", "the cluster needs nodes (set nodes, or [[" + where + ".node_group]])");
  check_cluster_size(spec, reader);

  if (const toml::node* vcs = reader.node("vcs")) {
    const toml::table* vc_table = vcs->as_table();
    if (!vc_table) reader.fail("vcs", "expected a table of VC name = GPU quota");
    TableReader vc_reader(vc_table, where + ".vcs", source);
    for (const auto& [name, value] : *vc_table) {
      VcSpec vc;
      vc.name = std::string(name.str());
      vc.gpu_quota = static_cast<int>(vc_reader.integer(vc.name, 1, 1 << 30));
      spec.vcs.push_back(vc);
    }
  }
  reader.reject_unknown_keys();
}

namespace {

// The catalog must know every model the query_dag generator is to draw, with a compute time,
// and have pipelines for the "compass" shapes.
void check_query_dag_models(TableReader& reader, const GeneratorOptions& g) {
  const ServingCatalog& catalog = *g.catalog;
  const std::string where = catalog.file;
  if (g.dag_shapes == "compass" && catalog.pipelines.empty())
    reader.fail("dag_shapes", "the catalog " + excerpt(where, 80) + " has no pipelines");
  for (const std::string& name : g.dag_models) {
    const int m = catalog.find_model(name);
    if (m < 0)
      reader.fail("models", "unknown model '" + excerpt(name) + "' (not in the catalog " +
                                excerpt(where, 80) + ")");
    if (!catalog.models[static_cast<std::size_t>(m)].compute_ms)
      reader.fail("models", "model '" + excerpt(name) + "' has no compute_ms in the catalog " +
                                excerpt(where, 80));
  }
}

}  // namespace

WorkloadSource parse_workload(ConfigParse& parse, const toml::table& root, ClusterSpec& cluster) {
  const int cluster_gpus = cluster.total_gpus();
  const std::string& source = parse.source();
  const toml::table* table = subtable(root, "workload", source);
  if (!table) throw InputError(source, 0, "workload", "missing table [workload]");
  TableReader reader(table, "workload", source);
  parse.declare(reader, "workload");
  WorkloadSource workload;
  const bool has_trace = reader.has("trace");
  const bool has_generator = reader.has("generator");
  if (has_trace == has_generator)
    reader.fail(has_trace ? "generator" : "trace",
                "set exactly one of 'trace' (a file) or 'generator'");
  if (has_trace) {
    workload.trace_path = resolve_path(parse.text(reader, "workload.trace"), parse.base_dir());
  } else {
    workload.generator.emplace();
    workload.generator->shape = parse.text(reader, "workload.generator");
    workload.generator->cluster_gpus = cluster_gpus;
    workload.jobs_set = reader.has("jobs");
  }
  parse.read_section(reader, "workload",
                     Targets{.generator = workload.generator ? &*workload.generator : nullptr,
                             .reader = &workload.reader,
                             .workload = &workload});
  if (workload.generator && workload.generator->shape == "philly") {
    const GeneratorOptions& g = *workload.generator;
    if (const auto [key, message] = philly_patterns::problem(g); !key.empty())
      reader.fail(key, message);
    if (g.vc_quotas == "weights") {
      if (!cluster.vcs.empty())
        reader.fail("vc_quotas",
                    "= \"weights\" sets the cluster's VC quotas: leave [cluster] vcs unset");
      try {
        const std::vector<int> quotas =
            vc_quotas_from_weights(g.vc_weights, g.vcs.size(), cluster_gpus);
        for (std::size_t i = 0; i < quotas.size(); ++i)
          cluster.vcs.push_back(VcSpec{g.vcs[i], quotas[i]});
      } catch (const std::invalid_argument& error) {
        reader.fail("vc_quotas", error.what());
      }
    }
  }
  if (workload.generator && workload.generator->shape == "llm_era") {
    if (const auto [key, message] = llm_era_problem(*workload.generator); !key.empty())
      reader.fail(key, message);
    // A window grows a generated workload as the run goes, and the llm rate model reads the
    // run's LLM columns once, at its start.
    if (reader.has("window"))
      reader.fail("window", "the llm_era generator cannot grow a window: set `jobs`");
  }
  // Serving DAG workloads: the catalog their models come from (default: the built-in copy of
  // profiles/serving/models.json). Elsewhere it is refused with the keys of the other kind.
  // (Which formats and generators yield query DAGs: their descriptors' `serving`.)
  const ComponentDescriptor* workload_source =
      has_trace ? &trace_format_components()[static_cast<std::size_t>(workload.format)]
                : find_generator(workload.generator->shape);
  const bool dag = workload_source && workload_source->caps.serving;
  if (dag) {
    if (reader.has("catalog")) {
      const std::string path =
          resolve_path(parse.text(reader, "workload.catalog"), parse.base_dir());
      workload.serving_catalog = side_serving_catalog(parse.side_files(), path);
    } else {
      workload.serving_catalog = std::shared_ptr<const ServingCatalog>(
          std::shared_ptr<const ServingCatalog>(), &default_serving_catalog());
    }
  }
  if (workload.generator && dag) {
    workload.generator->catalog = workload.serving_catalog;
    check_query_dag_models(reader, *workload.generator);
  }
  if (const toml::node* window = reader.node("window")) {
    if (dag) reader.fail("window", refusal_text(parse.decl("workload.window"), WorkloadKind::kDag));
    const toml::array* array = window->as_array();
    std::optional<std::int64_t> first, last;
    if (array && array->size() == 2) {
      first = array->get(0)->value_exact<std::int64_t>();
      last = array->get(1)->value_exact<std::int64_t>();
    }
    if (!first || !last || *first < 0 || *last < *first)
      reader.fail("window", "expected [first, last]: job positions (0-based), first <= last");
    workload.window =
        SimOptions::Window{static_cast<std::size_t>(*first), static_cast<std::size_t>(*last)};
    workload.window_line = window->source().begin.line;
    if (workload.generator) {
      if (!reader.has("jobs")) {
        // Enough jobs to reach the window, and then some: arrivals continue past its end.
        const std::size_t size = workload.window->last - workload.window->first + 1;
        workload.generator->jobs = workload.window->last + 1 + std::max<std::size_t>(100, size / 2);
      } else if (workload.window->last >= workload.generator->jobs) {
        reader.fail("window", "the window [" + std::to_string(*first) + ", " +
                                  std::to_string(*last) + "] reaches beyond the " +
                                  std::to_string(workload.generator->jobs) +
                                  " generated jobs (ids 0.." +
                                  std::to_string(workload.generator->jobs - 1) + ")");
      }
    }
  }
  reader.reject_unknown_keys();
  return workload;
}

// A table made only of declared keys, each read into its field.
void parse_table(ConfigParse& parse, const toml::table& root, const std::string& section,
                 const Targets& targets) {
  TableReader reader(subtable(root, section, parse.source()), section, parse.source());
  parse.read_section(reader, section, targets);
  parse.check_section(reader, section, targets);
  reader.reject_unknown_keys();
}

void parse_throughput(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  TableReader throughput(subtable(root, "throughput", source), "throughput", source);
  parse.declare(throughput, "throughput");
  const std::string model =
      throughput.has("model") ? parse.text(throughput, "throughput.model") : "placement";
  const bool profile = model == "profile";
  ProfileModelOptions& options = config.profile_options;
  if (profile) {
    // The trace's durations hold at the GPU-proportional share: by default the cluster's own
    // share per GPU when all nodes have the same, else each profile's reference.
    const auto uniform_share = [&](auto member) -> std::optional<double> {
      std::optional<double> share;
      for (const auto& group : config.sim.cluster.groups) {
        const double per_gpu = group.*member / group.gpus_per_node;
        if (per_gpu <= 0.0 || (share && *share != per_gpu)) return std::nullopt;
        share = per_gpu;
      }
      return share;
    };
    options.ref_cpus_per_gpu = uniform_share(&NodeGroupSpec::cpus_per_node);
    options.ref_mem_gb_per_gpu = uniform_share(&NodeGroupSpec::mem_gb_per_node);
  }
  parse.read_section(throughput, "throughput", Targets{.sim = &config.sim, .profile = &options});
  if (profile) {
    if (!throughput.has("profiles"))
      throughput.fail("profiles", "the profile model needs a folder of profiles");
    config.profiles = side_profile_dir(
        parse.side_files(),
        resolve_path(parse.text(throughput, "throughput.profiles"), parse.base_dir()));
    options.penalty = config.sim.penalty;
    if (options.on_missing == MissingProfile::kCannotRun)
      throughput.fail("on_missing",
                      "\"cannot_run\" needs a model that keys speed by GPU type (\"table\")");
    config.throughput_model = make_profile_throughput_model(config.profiles, options);
    config.sim.throughput = config.throughput_model.get();
  }
  if (model == "table") {
    if (!throughput.has("table"))
      throughput.fail("table", "the table model needs a throughput table (Gavel's format)");
    config.throughput_table = side_throughput_table(
        parse.side_files(),
        resolve_path(parse.text(throughput, "throughput.table"), parse.base_dir()));
    TableModelOptions& table = config.table_options;
    table.on_missing = options.on_missing;
    table.penalty = config.sim.penalty;
    table.reference_type =
        throughput.has("reference_type")    ? parse.text(throughput, "throughput.reference_type")
        : config.sim.cluster.groups.empty() ? std::string()
                                            : config.sim.cluster.groups.front().gpu_type;
    config.throughput_model = make_table_throughput_model(config.throughput_table, table);
    config.sim.throughput = config.throughput_model.get();
  }
  throughput.reject_unknown_keys();
}

void parse_mechanisms(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  const toml::table* table = subtable(root, "mechanisms", source);
  TableReader reader(table, "mechanisms", source);
  MechanismOptions& m = config.sim.mechanisms;
  for (const char* key : {"checkpoint_s", "restore_s", "realloc_s"})
    if (reader.has(key))
      reader.fail(key, std::string("set it in [scheduler] (") + key + " has one place)");
  parse.read_section(reader, "mechanisms", Targets{.sim = &config.sim});
  // Migration and resize cost a save plus a restore, unless their own seconds are set.
  for (auto [kind, cost] : {std::pair{"migration", &m.migration_cost}, {"resize", &m.resize_cost}})
    if (reader.has(std::string(kind) + "_s") && !reader.has(std::string(kind) + "_model"))
      cost->model = OverheadCost::Model::kConstant;

  if (const toml::node* scaling = reader.node("scaling")) {
    const toml::table* models = scaling->as_table();
    if (!models) reader.fail("scaling", "expected a table of model = [[GPUs, speed-up], ...]");
    for (const auto& [name, value] : *models) {
      const std::string key = "scaling." + std::string(name.str());
      // (A lambda cannot capture a structured binding before clang 16.)
      const std::size_t line = value.source().begin.line;
      const auto fail = [&](const std::string& message) {
        throw InputError(source, line, "mechanisms." + excerpt(key), message);
      };
      const toml::array* points = value.as_array();
      if (!points || points->empty()) fail("expected [[GPUs, speed-up], ...]");
      auto& curve = m.scaling[normalize_model_name(std::string(name.str()))];
      for (const auto& point : *points) {
        const toml::array* pair = point.as_array();
        std::optional<std::int64_t> gpus;
        std::optional<double> speedup;
        if (pair && pair->size() == 2) {
          gpus = pair->get(0)->value_exact<std::int64_t>();
          speedup = pair->get(1)->value<double>();
        }
        if (!gpus || !speedup || *gpus < 1 || !(*speedup > 0.0) || !std::isfinite(*speedup) ||
            (!curve.empty() && *gpus <= curve.back().first))
          fail("expected [GPUs, speed-up] pairs: GPUs >= 1 ascending, speed-ups > 0");
        curve.emplace_back(static_cast<int>(*gpus), *speedup);
      }
    }
  }
  if (reader.has("failure_trace"))
    m.failure_trace = side_failure_trace(
        parse.side_files(),
        resolve_path(parse.text(reader, "mechanisms.failure_trace"), parse.base_dir()),
        config.sim.cluster);
  if (reader.has("availability_trace"))
    m.availability_trace = load_availability_trace(
        resolve_path(parse.text(reader, "mechanisms.availability_trace"), parse.base_dir()),
        config.sim.cluster);
  parse_failure_classes(parse, reader, config);
  // Checkpoint sizes: the profiles' (any GPU type; under every alias), then this table's.
  if (config.profiles) {
    for (const auto& [type, models] : config.profiles->by_gpu_type)
      for (const auto& [name, profile] : models) {
        if (!profile.checkpoint_gb) continue;
        m.checkpoint_gb.emplace(normalize_model_name(profile.model), *profile.checkpoint_gb);
        for (const auto& alias : profile.aliases)
          m.checkpoint_gb.emplace(normalize_model_name(alias), *profile.checkpoint_gb);
      }
  }
  if (const toml::node* sizes = reader.node("checkpoint_gb")) {
    const toml::table* models = sizes->as_table();
    if (!models) reader.fail("checkpoint_gb", "expected a table of model = GB");
    TableReader size_reader(models, "mechanisms.checkpoint_gb", source);
    for (const auto& [name, value] : *models) {
      const std::string model(name.str());
      m.checkpoint_gb[normalize_model_name(model)] = size_reader.number(model, 0.0, 1e9);
    }
  }
  parse.check_section(reader, "mechanisms", Targets{.sim = &config.sim});
  reader.reject_unknown_keys();
}

void parse_sharing(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  TableReader reader(subtable(root, "sharing", source), "sharing", source);
  const Targets targets{.sim = &config.sim};
  parse.read_section(reader, "sharing", targets);
  SharingOptions& sharing = config.sim.sharing;
  if (sharing.interference == Interference::kTable && !sharing.table.empty())
    sharing.pairs = side_pair_table(parse.side_files(), sharing.table);
  parse.check_section(reader, "sharing", targets);
  reader.reject_unknown_keys();
  config.workload.reader.gpu_shares = sharing.enabled();
}

void parse_power(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  const Targets targets{.sim = &config.sim};
  TableReader power(subtable(root, "power", source), "power", source);
  parse.read_section(power, "power", targets);
  PowerOptions& options = config.sim.power;
  // Board power, caps and the cap's speed curve per GPU type: tables of the cluster's type
  // names = W (or the curve's exponent).
  struct PerType {
    const char* key;
    std::vector<std::pair<std::string, double>>* out;
    double most;
  };
  for (auto [key, out, most] : {PerType{"gpu_idle_w", &options.gpu_idle_w, 1e5},
                                PerType{"gpu_peak_w", &options.gpu_peak_w, 1e5},
                                PerType{"gpu_cap_w", &options.gpu_cap_w, 1e5},
                                PerType{"gpu_cap_exponent", &options.gpu_cap_exponent, 10.0}}) {
    const toml::node* node = power.node(key);
    if (!node) continue;
    const toml::table* types = node->as_table();
    if (!types) power.fail(key, "expected a table of GPU type = W");
    TableReader type_reader(types, std::string("power.") + key, source);
    for (const auto& [name, value] : *types) {
      const std::string type(name.str());
      const auto& groups = config.sim.cluster.groups;
      if (std::none_of(groups.begin(), groups.end(),
                       [&](const NodeGroupSpec& group) { return group.gpu_type == type; }))
        throw InputError(source, value.source().begin.line,
                         std::string("power.") + key + "." + excerpt(type),
                         "no GPU type of that name in the cluster");
      out->emplace_back(type, type_reader.number(type, 0.0, most));
      if (out != &options.gpu_cap_w) continue;
      // A cap at or below idle power leaves nothing to run on (the idle table is read first).
      double idle = vendor_gpu_power(type).value_or(options.unknown_type).idle_w;
      for (const auto& [given, watts] : options.gpu_idle_w)
        if (given == type) idle = watts;
      if (!(out->back().second > idle)) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "a cap of %g W is at or below the GPU's idle power, %g W: it could not run",
                      out->back().second, idle);
        throw InputError(source, value.source().begin.line, "power.gpu_cap_w." + excerpt(type),
                         text);
      }
    }
  }
  parse.check_section(power, "power", targets);
  power.reject_unknown_keys();

  TableReader supply(subtable(root, "supply", source), "supply", source);
  parse.read_section(supply, "supply", targets);
  SupplyOptions& s = config.sim.supply;
  if (!s.carbon_trace.empty()) s.carbon = read_carbon_trace(s.carbon_trace, s.carbon_column);
  if (!s.solar_trace.empty()) s.ghi = read_irradiance_trace(s.solar_trace);
  if (!s.job_values.empty()) s.values = read_job_values(s.job_values);
  parse.check_section(supply, "supply", targets);
  supply.reject_unknown_keys();
}

}  // namespace clustersim::io_internal
