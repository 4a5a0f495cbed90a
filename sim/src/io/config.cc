#include "clustersim/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/error.h"
#include "clustersim/failure_trace.h"
#include "clustersim/input_file.h"
#include "clustersim/model_cache.h"
#include "clustersim/placement.h"
#include "clustersim/policy.h"
#include "clustersim/serving.h"
#include "clustersim/serving_catalog.h"
#include "clustersim/simulation.h"
#include "clustersim/task_placement.h"

namespace clustersim {

namespace {

// The built-in example, compiled in from sim/examples/default.toml by CMake.
constexpr std::string_view kDefaultConfig =
#include "default_config.inc"
    ;

// Optimal string alignment distance (Levenshtein plus transpositions), for typo suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// True when `written` looks like a typo of the key `known`: another case, '-' for '_', or one
// or two letters off (one for short keys).
bool is_misspelling(std::string_view written, std::string_view known) {
  if (written.size() > 64) return false;
  std::string a(written), b(known);
  for (std::string* text : {&a, &b}) {
    for (char& c : *text) c = c == '-' ? '_' : static_cast<char>(std::tolower(c));
  }
  if (a == b) return true;
  return edit_distance(a, b) <= (b.size() >= 5 ? 2u : 1u);
}

// Reads one table's keys with type checks, remembering which keys were used so that the rest
// can be reported as unknown (a typo must never be silently ignored). A key reported missing is
// most often misspelt, so that error names the misspelt key on its own line instead.
class TableReader {
 public:
  TableReader(const toml::table* table, std::string section, const std::string& source)
      : table_(table), section_(std::move(section)), source_(source) {}

  bool has(const std::string& key) const {
    asked_.insert(key);
    return table_ && table_->contains(key);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    std::size_t line = 0;
    if (table_) {
      if (const toml::node* node = table_->get(key)) {
        line = node->source().begin.line;
      } else {
        reject_misspelt_keys();
        line = table_->source().begin.line;
      }
    }
    throw InputError(source_, line, path(key), message);
  }

  std::string path(const std::string& key) const {
    return section_.empty() ? excerpt(key) : section_ + "." + excerpt(key);
  }

  const toml::node* node(const std::string& key) {
    used_.insert(key);
    asked_.insert(key);
    return table_ ? table_->get(key) : nullptr;
  }

  double number(const std::string& key, double fallback, double min, double max) {
    const toml::node* n = node(key);
    if (!n) return fallback;
    double value;
    if (auto i = n->value_exact<std::int64_t>())
      value = static_cast<double>(*i);
    else if (auto d = n->value_exact<double>())
      value = *d;
    else
      fail(key, "expected a number");
    if (!std::isfinite(value) || value < min || value > max) {
      std::ostringstream range;
      range << "must be in [" << min << ", " << max << "], got " << value;
      fail(key, range.str());
    }
    return value;
  }

  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) {
    const toml::node* n = node(key);
    if (!n) return fallback;
    auto value = n->value_exact<std::int64_t>();
    if (!value) fail(key, "expected an integer");
    if (*value < min || *value > max)
      fail(key, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                    std::to_string(*value));
    return *value;
  }

  bool boolean(const std::string& key, bool fallback) {
    const toml::node* n = node(key);
    if (!n) return fallback;
    auto value = n->value_exact<bool>();
    if (!value) fail(key, "expected true or false");
    return *value;
  }

  std::string string(const std::string& key, const std::string& fallback) {
    const toml::node* n = node(key);
    if (!n) return fallback;
    auto value = n->value_exact<std::string>();
    if (!value) fail(key, "expected a string");
    return *value;
  }

  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& allowed) {
    std::string value = string(key, fallback);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(key, "unknown value '" + excerpt(value) + "' (expected one of: " + list + ")");
    }
    return value;
  }

  // Call once every known key has been read.
  void reject_unknown_keys() const {
    if (!table_) return;
    reject_misspelt_keys();
    for (const auto& [key, value] : *table_)
      if (!used_.count(std::string(key.str())))
        throw InputError(source_, value.source().begin.line, path(std::string(key.str())),
                         "unknown key");
  }

  // Throws for a key of the table that was not asked for but looks like a typo of one that was.
  void reject_misspelt_keys() const {
    if (!table_) return;
    for (const auto& [key, value] : *table_) {
      const std::string name(key.str());
      if (asked_.count(name)) continue;
      for (const std::string& known : asked_) {
        if (is_misspelling(name, known))
          throw InputError(source_, value.source().begin.line, path(name),
                           "unknown key (did you mean '" + known + "'?)");
      }
    }
  }

 private:
  const toml::table* table_;
  std::string section_;
  const std::string& source_;
  std::set<std::string> used_;           // keys read: the others are unknown
  mutable std::set<std::string> asked_;  // keys read or tested with has(): typo candidates
};

const toml::table* subtable(const toml::table& root, const std::string& name,
                            const std::string& source) {
  const toml::node* node = root.get(name);
  if (!node) return nullptr;
  if (!node->is_table())
    throw InputError(source, node->source().begin.line, name, "expected a table");
  return node->as_table();
}

std::string resolve_path(const std::string& path, const std::string& base_dir) {
  std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

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
}

// Serving DAG workloads' keys of [cluster] and [[cluster.node_group]] (a group inherits the
// [cluster] value). parse_run_config refuses them for training workloads.
constexpr const char* kServingClusterKeys[] = {"gpu_mem_gb", "net_gbps", "net_latency_us"};
void read_serving_cluster_keys(TableReader& reader, const NodeGroupSpec& inherited,
                               NodeGroupSpec& group) {
  group.gpu_mem_gb = reader.number("gpu_mem_gb", inherited.gpu_mem_gb, 1e-9, 1e6);
  group.net_gbps = reader.number("net_gbps", inherited.net_gbps, 1e-9, 1e9);
  group.net_latency_us = reader.number("net_latency_us", inherited.net_latency_us, 0.0, 1e12);
}

// Serving keys set for a workload that is not a DAG workload would be silently ignored: refuse.
void refuse_serving_keys(const toml::table& root, const std::string& source) {
  const std::string why = "only for DAG workloads (format = \"dag\" or generator = \"query_dag\")";
  const toml::table* cluster = subtable(root, "cluster", source);
  TableReader cluster_reader(cluster, "cluster", source);
  for (const char* key : kServingClusterKeys)
    if (cluster_reader.has(key)) cluster_reader.fail(key, why);
  if (const toml::node* groups = cluster ? cluster->get("node_group") : nullptr) {
    if (const toml::array* array = groups->as_array()) {
      for (std::size_t i = 0; i < array->size(); ++i) {
        TableReader group_reader(array->get(i)->as_table(),
                                 "cluster.node_group[" + std::to_string(i) + "]", source);
        for (const char* key : kServingClusterKeys)
          if (group_reader.has(key)) group_reader.fail(key, why);
      }
    }
  }
  TableReader scheduler(subtable(root, "scheduler", source), "scheduler", source);
  for (const char* key :
       {"task_placement", "cache", "cache_lookahead", "reschedule_threshold", "compass_keep_joins"})
    if (scheduler.has(key)) scheduler.fail(key, why);
  TableReader metrics(subtable(root, "metrics", source), "metrics", source);
  if (metrics.has("query_slo_s")) metrics.fail("query_slo_s", why);
}

ClusterSpec parse_cluster(const toml::table& root, const std::string& source) {
  const toml::table* table = subtable(root, "cluster", source);
  if (!table) throw InputError(source, 0, "cluster", "missing table [cluster]");
  TableReader reader(table, "cluster", source);
  ClusterSpec spec;
  spec.nodes_per_rack = static_cast<int>(reader.integer("nodes_per_rack", 32, 1, 1 << 20));
  NodeGroupSpec simple;
  simple.nodes = static_cast<int>(reader.integer("nodes", 0, 0, 1 << 22));
  simple.gpus_per_node = static_cast<int>(reader.integer("gpus_per_node", 8, 1, 64));
  simple.gpu_type = reader.string("gpu_type", "generic");
  simple.cpus_per_node = reader.number("cpus_per_node", 0.0, 0.0, 1e6);
  simple.mem_gb_per_node = reader.number("mem_gb_per_node", 0.0, 0.0, 1e9);
  simple.storage_mbps_per_node = reader.number("storage_mbps_per_node", 0.0, 0.0, 1e9);
  read_serving_cluster_keys(reader, simple, simple);
  if (simple.nodes > 0) spec.groups.push_back(simple);

  if (const toml::node* groups = reader.node("node_group")) {
    const toml::array* array = groups->as_array();
    if (!array) reader.fail("node_group", "expected an array of tables ([[cluster.node_group]])");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::table* group_table = array->get(i)->as_table();
      const std::string section = "cluster.node_group[" + std::to_string(i) + "]";
      if (!group_table)
        throw InputError(source, array->get(i)->source().begin.line, section, "expected a table");
      TableReader group_reader(group_table, section, source);
      NodeGroupSpec group;
      group.name = group_reader.string("name", "group" + std::to_string(i));
      group.nodes = static_cast<int>(group_reader.integer("nodes", 0, 1, 1 << 22));
      if (!group_reader.has("nodes")) group_reader.fail("nodes", "missing");
      group.gpus_per_node =
          static_cast<int>(group_reader.integer("gpus_per_node", simple.gpus_per_node, 1, 64));
      group.gpu_type = group_reader.string("gpu_type", simple.gpu_type);
      group.cpus_per_node = group_reader.number("cpus_per_node", simple.cpus_per_node, 0.0, 1e6);
      group.mem_gb_per_node =
          group_reader.number("mem_gb_per_node", simple.mem_gb_per_node, 0.0, 1e9);
      group.storage_mbps_per_node =
          group_reader.number("storage_mbps_per_node", simple.storage_mbps_per_node, 0.0, 1e9);
      read_serving_cluster_keys(group_reader, simple, group);
      group_reader.reject_unknown_keys();
      spec.groups.push_back(group);
    }
  }
  if (spec.groups.empty())
    reader.fail("nodes", "the cluster needs nodes (set nodes, or [[cluster.node_group]])");
  check_cluster_size(spec, reader);

  if (const toml::node* vcs = reader.node("vcs")) {
    const toml::table* vc_table = vcs->as_table();
    if (!vc_table) reader.fail("vcs", "expected a table of VC name = GPU quota");
    TableReader vc_reader(vc_table, "cluster.vcs", source);
    for (const auto& [name, value] : *vc_table) {
      VcSpec vc;
      vc.name = std::string(name.str());
      vc.gpu_quota = static_cast<int>(vc_reader.integer(vc.name, 0, 1, 1 << 30));
      spec.vcs.push_back(vc);
    }
  }
  reader.reject_unknown_keys();
  return spec;
}

// [workload] keys of generator = "query_dag" (GeneratorOptions, generator.h). A key that only
// applies to another arrival process or shape is an error naming it, not an unknown key.
void parse_query_dag(TableReader& reader, GeneratorOptions& g) {
  g.queries = static_cast<std::size_t>(reader.integer("queries", 1000, 1, 100'000'000));
  g.queries_per_s = reader.number("queries_per_s", g.queries_per_s, 1e-9, 1e9);
  g.arrival = reader.choice("arrival", g.arrival, {"poisson", "mmpp"});
  if (g.arrival == "mmpp") {
    g.burst_factor = reader.number("burst_factor", g.burst_factor, 1.0, 1e6);
    if (!(g.burst_factor > 1.0)) reader.fail("burst_factor", "must be > 1 (a burst is faster)");
    g.burst_fraction = reader.number("burst_fraction", g.burst_fraction, 1e-6, 1.0 - 1e-6);
    g.burst_mean_s = reader.number("burst_mean_s", g.burst_mean_s, 1e-9, 1e12);
  } else {
    for (const char* key : {"burst_factor", "burst_fraction", "burst_mean_s"})
      if (reader.has(key)) reader.fail(key, "only with arrival = \"mmpp\"");
  }
  g.dag_shapes = reader.choice("dag_shapes", g.dag_shapes, {"compass", "synthetic"});
  g.zipf_s = reader.number("zipf_s", g.zipf_s, 0.0, 100.0);
  if (g.dag_shapes == "synthetic") {
    g.chain_fraction = reader.number("chain_fraction", g.chain_fraction, 0.0, 1.0);
    g.max_chain = static_cast<int>(reader.integer("max_chain", g.max_chain, 2, 1000));
    g.max_fanout = static_cast<int>(reader.integer("max_fanout", g.max_fanout, 2, 1000));
    if (const toml::node* models = reader.node("models")) {
      const toml::array* array = models->as_array();
      if (!array || array->empty()) reader.fail("models", "expected a non-empty list of models");
      for (const auto& item : *array) {
        auto name = item.value_exact<std::string>();
        if (!name) reader.fail("models", "expected a list of model names");
        g.dag_models.push_back(*name);
      }
    }
  } else {
    for (const char* key : {"chain_fraction", "max_chain", "max_fanout", "models"})
      if (reader.has(key)) reader.fail(key, "only with dag_shapes = \"synthetic\"");
  }
}

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

WorkloadSource parse_workload(const toml::table& root, const std::string& source,
                              const std::string& base_dir, int cluster_gpus) {
  const toml::table* table = subtable(root, "workload", source);
  if (!table) throw InputError(source, 0, "workload", "missing table [workload]");
  TableReader reader(table, "workload", source);
  WorkloadSource workload;
  const bool has_trace = reader.has("trace");
  const bool has_generator = reader.has("generator");
  if (has_trace == has_generator)
    reader.fail(has_trace ? "generator" : "trace",
                "set exactly one of 'trace' (a file) or 'generator'");
  workload.reader.skip_invalid = reader.boolean("skip_invalid", false);
  if (has_trace) {
    workload.trace_path = resolve_path(reader.string("trace", ""), base_dir);
    const std::string format =
        reader.choice("format", "csv", {"csv", "gavel", "openb", "helios", "philly", "dag"});
    workload.format = parse_trace_format(format);
    if (reader.has("throughputs"))
      workload.reader.gavel_throughputs_path =
          resolve_path(reader.string("throughputs", ""), base_dir);
    workload.reader.gavel_gpu_type =
        reader.string("gavel_gpu_type", workload.reader.gavel_gpu_type);
  } else {
    GeneratorOptions generator;
    generator.shape = reader.choice("generator", "philly", {"philly", "synergy", "query_dag"});
    const bool synergy = generator.shape == "synergy";
    const bool query_dag = generator.shape == "query_dag";
    if (query_dag) {
      if (reader.has("jobs")) reader.fail("jobs", "query_dag generates queries: set 'queries'");
      parse_query_dag(reader, generator);
    } else {
      generator.jobs = static_cast<std::size_t>(reader.integer("jobs", 1000, 1, 100'000'000));
    }
    if (!synergy && !query_dag) generator.load = reader.number("load", 0.8, 1e-6, 100.0);
    if (synergy) {
      generator.jobs_per_hour = reader.number("jobs_per_hour", 5.0, 1e-9, 1e9);
      if (const toml::node* split = reader.node("class_split")) {
        const toml::array* array = split->as_array();
        if (!array || array->size() != 3)
          reader.fail("class_split", "expected [image, language, speech] in %");
        double sum = 0.0;
        for (std::size_t i = 0; i < 3; ++i) {
          auto share = array->get(i)->value<double>();
          if (!share || !(*share >= 0.0) || !std::isfinite(*share))
            reader.fail("class_split", "expected [image, language, speech] in %, each >= 0");
          generator.class_split[i] = *share;
          sum += *share;
        }
        if (std::abs(sum - 100.0) > 1e-6) {
          std::ostringstream message;
          message << "the shares must sum to 100 (they sum to " << sum << ")";
          reader.fail("class_split", message.str());
        }
      }
      generator.gpu_demand = reader.choice("gpu_demand", "single", {"single", "philly"});
    }
    generator.seed = static_cast<std::uint64_t>(
        reader.integer("seed", 1, 0, std::numeric_limits<std::int64_t>::max()));
    generator.max_gpus_per_job =
        static_cast<int>(reader.integer("max_gpus_per_job", 0, 0, 1 << 20));
    generator.elastic_fraction = reader.number("elastic_fraction", 0.0, 0.0, 1.0);
    generator.elastic_min_factor = reader.number("elastic_min_factor", 0.5, 1e-9, 1.0);
    generator.elastic_max_factor = reader.number("elastic_max_factor", 2.0, 1.0, 1e6);
    generator.cluster_gpus = cluster_gpus;
    if (const toml::node* vcs = reader.node("vcs")) {
      const toml::array* array = vcs->as_array();
      if (!array) reader.fail("vcs", "expected a list of VC names");
      for (const auto& item : *array) {
        auto name = item.value_exact<std::string>();
        if (!name) reader.fail("vcs", "expected a list of VC names");
        generator.vcs.push_back(*name);
      }
    }
    workload.generator = generator;
  }
  // Serving DAG workloads: the catalog their models come from (default: the built-in copy of
  // profiles/serving/models.json).
  const bool dag =
      has_trace ? workload.format == TraceFormat::kDag : workload.generator->shape == "query_dag";
  if (reader.has("catalog")) {
    if (!dag)
      reader.fail("catalog",
                  "only for DAG workloads (format = \"dag\" or generator = "
                  "\"query_dag\")");
    const std::string path = resolve_path(reader.string("catalog", ""), base_dir);
    workload.serving_catalog = std::make_shared<const ServingCatalog>(load_serving_catalog(path));
  } else if (dag) {
    workload.serving_catalog = std::shared_ptr<const ServingCatalog>(
        std::shared_ptr<const ServingCatalog>(), &default_serving_catalog());
  }
  if (workload.generator && dag) {
    workload.generator->catalog = workload.serving_catalog;
    check_query_dag_models(reader, *workload.generator);
  }
  if (const toml::node* window = reader.node("window")) {
    if (dag) reader.fail("window", "not supported for DAG workloads yet");
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

void parse_scheduler(const toml::table& root, const std::string& source, SimOptions& sim,
                     bool& reject_impossible) {
  TableReader reader(subtable(root, "scheduler", source), "scheduler", source);
  SchedulerOptions& s = sim.scheduler;
  s.policy = reader.choice("policy", s.policy, scheduling_policy_names());
  s.placement = reader.choice("placement", s.placement, placement_policy_names());
  s.allocation = reader.choice("allocation", s.allocation, allocation_mechanism_names());
  s.best_demand_tolerance =
      reader.number("best_demand_tolerance", s.best_demand_tolerance, 0.0, 0.999999);
  s.realloc_s = reader.number("realloc_s", s.realloc_s, 0.0, 1e12);
  s.lease_s = reader.number("lease_s", s.lease_s, 0.0, 1e12);
  if (s.lease_s > 0.0 && s.lease_s < 1e-3)
    reader.fail("lease_s", "must be 0 (a round at every arrival and completion) or >= 0.001");
  s.plan_interval_s = reader.number("plan_interval_s", s.plan_interval_s, 0.0, 1e12);
  s.checkpoint_s = reader.number("checkpoint_s", s.checkpoint_s, 0.0, 1e12);
  s.restore_s = reader.number("restore_s", s.restore_s, 0.0, 1e12);
  s.backfill = reader.boolean("backfill", s.backfill);
  s.honor_priority = reader.boolean("honor_priority", s.honor_priority);
  s.strict_locality = reader.choice("locality", "any", {"any", "strict"}) == "strict";
  if (s.strict_locality && s.placement != "consolidate")
    reader.fail("locality", "\"strict\" needs placement = \"consolidate\" (placement \"" +
                                s.placement + "\" may split a job over more nodes than it needs)");
  s.locality_relax_s = reader.number("locality_relax_s", s.locality_relax_s, 0.0, 1e12);
  if (reader.has("preemption")) s.preemption = reader.boolean("preemption", false);
  s.vc_quota = reader.choice("vc_quota", "strict", {"strict", "lend"}) == "lend"
                   ? VcQuotaMode::kLend
                   : VcQuotaMode::kStrict;
  if (const toml::node* thresholds = reader.node("tiresias_thresholds")) {
    const toml::array* array = thresholds->as_array();
    if (!array || array->empty())
      reader.fail("tiresias_thresholds", "expected a non-empty list of GPU-seconds");
    s.tiresias_thresholds.clear();
    for (const auto& item : *array) {
      auto value = item.value<double>();
      if (!value || !(*value > 0.0) ||
          (!s.tiresias_thresholds.empty() && *value <= s.tiresias_thresholds.back()))
        reader.fail("tiresias_thresholds", "expected positive, ascending GPU-seconds");
      s.tiresias_thresholds.push_back(*value);
    }
  }
  ServingOptions& serving = sim.serving;
  serving.task_placement =
      reader.choice("task_placement", serving.task_placement, task_placement_names());
  serving.cache = reader.choice("cache", serving.cache, cache_policy_names());
  serving.cache_lookahead =
      static_cast<int>(reader.integer("cache_lookahead", serving.cache_lookahead, 0, 1 << 20));
  serving.reschedule_threshold =
      reader.number("reschedule_threshold", serving.reschedule_threshold, 0.0, 1e12);
  serving.compass_keep_joins = reader.boolean("compass_keep_joins", serving.compass_keep_joins);
  sim.seed = static_cast<std::uint64_t>(
      reader.integer("seed", 1, 0, std::numeric_limits<std::int64_t>::max()));
  reject_impossible = reader.boolean("reject_impossible", false);
  reader.reject_unknown_keys();
}

// One transition's cost: <kind>_model, <kind>_s (for checkpoint and restore: [scheduler]'s
// checkpoint_s and restore_s), <kind>_gbps, <kind>_samples.
OverheadCost parse_cost(TableReader& reader, const std::string& kind, OverheadCost cost,
                        bool has_seconds) {
  std::vector<std::string> models = {"constant", "size", "empirical"};
  const bool restarts = kind == "migration" || kind == "resize";
  if (restarts) models.push_back("save_restore");
  const std::string seconds_key = kind + "_s";
  std::string fallback =
      restarts && !(has_seconds && reader.has(seconds_key)) ? "save_restore" : "constant";
  const std::string model = reader.choice(kind + "_model", fallback, models);
  cost.model = model == "size"        ? OverheadCost::Model::kSize
               : model == "empirical" ? OverheadCost::Model::kEmpirical
               : model == "constant"  ? OverheadCost::Model::kConstant
                                      : OverheadCost::Model::kSaveRestore;
  if (has_seconds) cost.seconds = reader.number(seconds_key, 0.0, 0.0, 1e12);
  cost.gbps = reader.number(kind + "_gbps", cost.gbps, 1e-9, 1e12);
  if (const toml::node* samples = reader.node(kind + "_samples")) {
    const toml::array* array = samples->as_array();
    if (!array || array->empty()) reader.fail(kind + "_samples", "expected a list of seconds");
    for (const auto& item : *array) {
      auto value = item.value<double>();
      if (!value || !(*value >= 0.0) || !std::isfinite(*value))
        reader.fail(kind + "_samples", "expected seconds >= 0");
      cost.samples.push_back(*value);
    }
  }
  if (cost.model == OverheadCost::Model::kEmpirical && cost.samples.empty())
    reader.fail(kind + "_samples", "the empirical model draws from these: set them");
  return cost;
}

void parse_mechanisms(const toml::table& root, const std::string& source,
                      const std::string& base_dir, RunConfig& config) {
  const toml::table* table = subtable(root, "mechanisms", source);
  TableReader reader(table, "mechanisms", source);
  MechanismOptions& m = config.sim.mechanisms;
  for (const char* key : {"checkpoint_s", "restore_s", "realloc_s"})
    if (reader.has(key))
      reader.fail(key, std::string("set it in [scheduler] (") + key + " has one place)");
  m.preempt_on_arrival = reader.boolean("preempt_on_arrival", m.preempt_on_arrival);
  const std::string migration = reader.choice("migration", "off", {"off", "on_demand", "periodic"});
  m.migration = migration == "on_demand"  ? MechanismOptions::Migration::kOnDemand
                : migration == "periodic" ? MechanismOptions::Migration::kPeriodic
                                          : MechanismOptions::Migration::kOff;
  m.defrag_threshold = reader.number("defrag_threshold", m.defrag_threshold, 0.0, 1.0);
  m.defrag_period_s = reader.number("defrag_period_s", m.defrag_period_s, 1e-3, 1e12);
  m.defrag_max_moves =
      static_cast<int>(reader.integer("defrag_max_moves", m.defrag_max_moves, 1, 1 << 20));

  m.elastic = reader.boolean("elastic", m.elastic);
  m.parallel_fraction = reader.number("parallel_fraction", m.parallel_fraction, 0.0, 1.0);
  if (const toml::node* scaling = reader.node("scaling")) {
    const toml::table* models = scaling->as_table();
    if (!models) reader.fail("scaling", "expected a table of model = [[GPUs, speed-up], ...]");
    for (const auto& [name, value] : *models) {
      const std::string key = "scaling." + std::string(name.str());
      const auto fail = [&](const std::string& message) {
        throw InputError(source, value.source().begin.line, "mechanisms." + excerpt(key), message);
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

  m.mtbf_h = reader.number("mtbf_h", m.mtbf_h, 0.0, 1e12);
  m.failure_model =
      reader.choice("failure_model", "exponential", {"exponential", "weibull"}) == "weibull"
          ? MechanismOptions::FailureModel::kWeibull
          : MechanismOptions::FailureModel::kExponential;
  m.weibull_shape = reader.number("weibull_shape", m.weibull_shape, 1e-3, 1e3);
  m.repair_h = reader.number("repair_h", m.repair_h, 0.0, 1e12);
  if (reader.has("failure_trace"))
    m.failure_trace = load_failure_trace(resolve_path(reader.string("failure_trace", ""), base_dir),
                                         config.sim.cluster);
  m.checkpoint_interval_s =
      reader.number("checkpoint_interval_s", m.checkpoint_interval_s, 0.0, 1e12);

  m.checkpoint_cost = parse_cost(reader, "checkpoint", m.checkpoint_cost, false);
  m.restore_cost = parse_cost(reader, "restore", m.restore_cost, false);
  m.migration_cost = parse_cost(reader, "migration", m.migration_cost, true);
  m.resize_cost = parse_cost(reader, "resize", m.resize_cost, true);
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
  m.default_checkpoint_gb =
      reader.number("default_checkpoint_gb", m.default_checkpoint_gb, 0.0, 1e9);
  if (const toml::node* sizes = reader.node("checkpoint_gb")) {
    const toml::table* models = sizes->as_table();
    if (!models) reader.fail("checkpoint_gb", "expected a table of model = GB");
    TableReader size_reader(models, "mechanisms.checkpoint_gb", source);
    for (const auto& [name, value] : *models) {
      const std::string model(name.str());
      m.checkpoint_gb[normalize_model_name(model)] = size_reader.number(model, 0.0, 0.0, 1e9);
    }
  }
  reader.reject_unknown_keys();
}

}  // namespace

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
  RunConfig config;
  config.source_name = source_name;
  for (const auto& [key, value] : root) {
    static const std::set<std::string> kTables = {
        "cluster", "workload", "scheduler", "throughput", "metrics", "mechanisms", "debug"};
    if (!kTables.count(std::string(key.str())))
      throw InputError(source_name, value.source().begin.line, excerpt(key.str()), "unknown table");
  }
  config.sim.cluster = parse_cluster(root, source_name);
  config.workload = parse_workload(root, source_name, base_dir, config.sim.cluster.total_gpus());
  config.sim.window = config.workload.window;
  if (!config.workload.serving_catalog) refuse_serving_keys(root, source_name);
  parse_scheduler(root, source_name, config.sim, config.sim.reject_impossible);

  TableReader throughput(subtable(root, "throughput", source_name), "throughput", source_name);
  const std::string model = throughput.choice("model", "placement", {"placement", "profile"});
  config.sim.penalty.cross_node_factor = throughput.number("cross_node_factor", 1.0, 1e-6, 1.0);
  config.sim.penalty.cross_rack_factor = throughput.number("cross_rack_factor", 1.0, 1e-6, 1.0);
  if (model == "profile") {
    if (!throughput.has("profiles"))
      throughput.fail("profiles", "the profile model needs a folder of profiles");
    config.profiles = std::make_shared<const ProfileLibrary>(
        load_profile_dir(resolve_path(throughput.string("profiles", ""), base_dir)));
    ProfileModelOptions& options = config.profile_options;
    options.on_missing = throughput.choice("on_missing", "error", {"error", "neutral"}) == "neutral"
                             ? MissingProfile::kNeutral
                             : MissingProfile::kError;
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
    if (throughput.has("ref_cpus_per_gpu"))
      options.ref_cpus_per_gpu = throughput.number("ref_cpus_per_gpu", 0.0, 1e-6, 1e6);
    if (throughput.has("ref_mem_gb_per_gpu"))
      options.ref_mem_gb_per_gpu = throughput.number("ref_mem_gb_per_gpu", 0.0, 1e-6, 1e9);
    options.penalty = config.sim.penalty;
    config.throughput_model = make_profile_throughput_model(config.profiles, options);
    config.sim.throughput = config.throughput_model.get();
  }
  throughput.reject_unknown_keys();

  parse_mechanisms(root, source_name, base_dir, config);

  TableReader metrics(subtable(root, "metrics", source_name), "metrics", source_name);
  config.sim.sample_interval_s =
      metrics.number("sample_interval_s", config.sim.sample_interval_s, 0.0, 1e12);
  config.sim.serving.query_slo_s = metrics.number("query_slo_s", 0.0, 0.0, 1e12);
  metrics.reject_unknown_keys();

  TableReader debug(subtable(root, "debug", source_name), "debug", source_name);
  config.sim.check_invariants = debug.boolean("check_invariants", false);
  debug.reject_unknown_keys();
  return config;
}

RunConfig parse_run_config(std::string_view toml_text, const std::string& source_name,
                           const std::string& base_dir, const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& error) {
    throw InputError(source_name, error.source().begin.line, "",
                     "not valid TOML: " + excerpt(error.description(), 160));
  }
  for (const auto& assignment : overrides) apply_override(root, assignment, source_name);
  return parse_run_config(root, source_name, base_dir);
}

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_input_file(path, "config file");
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return parse_run_config(text, path, base_dir, overrides);
}

InputError impossible_job_error(const RunConfig& config, const ImpossibleJobError& error) {
  if (config.workload.trace_path) {
    return InputError(*config.workload.trace_path, error.source_line(), error.field(),
                      error.what());
  }
  return InputError(config.source_name, 0, error.field(),
                    std::string(error.what()) + " (a job of the generated workload)");
}

Workload load_workload(const RunConfig& config) {
  Workload workload;
  if (config.workload.generator) {
    try {
      workload = generate_workload(*config.workload.generator);
    } catch (const std::invalid_argument& error) {
      throw InputError(config.source_name, 0, "workload", error.what());
    }
  } else {
    workload =
        read_trace(*config.workload.trace_path, config.workload.format, config.workload.reader);
    if (config.workload.window && config.workload.window->last >= workload.jobs.size())
      throw InputError(config.source_name, config.workload.window_line, "workload.window",
                       "the window [" + std::to_string(config.workload.window->first) + ", " +
                           std::to_string(config.workload.window->last) + "] reaches beyond the " +
                           std::to_string(workload.jobs.size()) + " jobs of " +
                           *config.workload.trace_path);
  }
  if (config.profiles)
    check_profile_coverage(*config.profiles, workload.jobs, config.profile_options,
                           config.workload.trace_path.value_or(config.source_name));
  // A DAG workload's models must be in the catalog and fit some GPU: say so now, naming the row.
  if (workload.dag) serving_setup(config, workload);
  return workload;
}

ServingSetup serving_setup(const RunConfig& config, const Workload& workload) {
  if (!config.workload.serving_catalog)
    throw InputError(config.source_name, 0, "workload",
                     "a DAG workload needs format = \"dag\" or generator = \"query_dag\"");
  return make_serving_setup(workload, config.sim.cluster, *config.workload.serving_catalog,
                            config.workload.trace_path.value_or(config.source_name));
}

ConfigRun simulate_config(const RunConfig& config, std::shared_ptr<const Workload> workload) {
  ConfigRun run;
  if (workload->dag) {  // serving: queries of model tasks (serving.h); no window
    run.result = simulate_serving(config.sim, *workload, serving_setup(config, *workload));
    run.workload = std::move(workload);
    return run;
  }
  Simulation simulation(config, std::move(workload));
  run.result = simulation.run();
  run.workload = simulation.workload();  // grown, when a window streamed more jobs in
  return run;
}

}  // namespace clustersim
