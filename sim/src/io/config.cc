#include "clustersim/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/error.h"
#include "clustersim/failure_trace.h"
#include "clustersim/input_file.h"
#include "clustersim/options.h"
#include "clustersim/placement.h"
#include "clustersim/placement_study.h"
#include "clustersim/serving.h"
#include "clustersim/serving_catalog.h"
#include "clustersim/simulation.h"
#include "clustersim/steady_state.h"
#include "io/internal/steady_state_config.h"
#include "options/declare.h"

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

  bool present(const std::string& key) const { return table_ && table_->contains(key); }
  const toml::table* table() const { return table_; }
  // A key the table may hold: a candidate when suggesting what a misspelt key meant.
  void declare(const std::string& key) { asked_.insert(key); }

  // A number in [min, max] (the keys of tables of names: VC quotas, checkpoint sizes).
  double number(const std::string& key, double min, double max) {
    const toml::node* n = node(key);
    double value = 0.0;
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

  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) {
    auto value = node(key)->value_exact<std::int64_t>();
    if (!value) fail(key, "expected an integer");
    if (*value < min || *value > max)
      fail(key, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                    std::to_string(*value));
    return *value;
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

// The structs a table's keys are read into (KeyDecl::target); null where the config has none.
struct Targets {
  SimOptions* sim = nullptr;
  NodeGroupSpec* group = nullptr;
  GeneratorOptions* generator = nullptr;
  ReaderOptions* reader = nullptr;
  ProfileModelOptions* profile = nullptr;
  WorkloadSource* workload = nullptr;

  void* of(KeyTarget target) const {
    switch (target) {
      case KeyTarget::kSimOptions:
        return sim;
      case KeyTarget::kNodeGroup:
        return group;
      case KeyTarget::kGenerator:
        return generator;
      case KeyTarget::kReader:
        return reader;
      case KeyTarget::kProfileModel:
        return profile;
      case KeyTarget::kWorkload:
        return workload;
      case KeyTarget::kNone:
        return nullptr;
    }
    return nullptr;
  }
};

// One config's parse through the key declarations (options.h): each key's value is checked
// against its declaration (type, range, choices, rule, condition) and written to its field;
// the values read so far decide the conditions of the others.
class ConfigParse {
 public:
  ConfigParse(const std::string& source, const std::string& base_dir)
      : source_(source), base_dir_(base_dir) {}

  const KeyRegistry& keys() const { return keys_; }
  const std::string& source() const { return source_; }
  const std::string& base_dir() const { return base_dir_; }

  const KeyDecl& decl(std::string_view name) const {
    const KeyDecl* key = keys_.find(name);
    if (!key) throw std::logic_error("config key not declared: " + std::string(name));
    return *key;
  }

  // Makes every declared key of `section` a candidate for "did you mean".
  void declare(TableReader& reader, std::string_view section) const {
    for (const KeyDecl* key : keys_.in_section(section)) reader.declare(std::string(key->key()));
  }

  // The checked value of a key of reader's table that is present.
  OptionValue value(TableReader& reader, const KeyDecl& key) {
    const std::string name(key.key());
    const toml::node* node = reader.node(name);
    if (!node) return OptionValue{};
    const std::string unmet = unmet_condition(key);
    if (!unmet.empty()) reader.fail(name, unmet);
    OptionValue value = convert(reader, key, name, *node);
    const std::string problem = value_problem(key, value);
    if (!problem.empty()) reader.fail(name, problem);
    values_[key.name] = value;
    return value;
  }
  std::string text(TableReader& reader, std::string_view name) {
    return std::get<std::string>(value(reader, decl(name)));
  }

  // Reads the declared keys of `section` that reader's table holds into their fields: first the
  // keys other keys' conditions name, then every key's condition (in the table's order), then
  // the values in declaration order. Keys with hand-written parsing (KeyDecl::custom) are only
  // checked for their condition and marked as known.
  void read_section(TableReader& reader, std::string_view section, const Targets& targets) {
    declare(reader, section);
    const std::vector<const KeyDecl*> keys = keys_.in_section(section);
    std::set<const KeyDecl*> done;
    const auto read = [&](const KeyDecl& key) {
      OptionValue value = this->value(reader, key);
      if (key.type == KeyType::kPath) value = resolve_path(std::get<std::string>(value), base_dir_);
      void* target = targets.of(key.target);
      if (!target) throw std::logic_error("config key " + key.name + " has no struct to go to");
      key.set(target, value);
      done.insert(&key);
    };
    for (const KeyDecl* key : keys)
      if (key->bound() && reader.present(std::string(key->key())) && controls_others(*key))
        read(*key);
    if (const toml::table* table = reader.table()) {
      for (const auto& [name, node] : *table) {
        for (const KeyDecl* key : keys) {
          if (key->key() != name.str()) continue;
          const std::string unmet = unmet_condition(*key);
          if (!unmet.empty()) reader.fail(std::string(name.str()), unmet);
        }
      }
    }
    for (const KeyDecl* key : keys) {
      if (!reader.present(std::string(key->key())) || done.count(key)) continue;
      reader.node(std::string(key->key()));  // known, whoever parses it
      if (key->bound()) read(*key);
    }
  }

  // The section's rules on its structs once it is read (KeyDecl::check_target).
  void check_section(TableReader& reader, std::string_view section, const Targets& targets) {
    for (const KeyDecl* key : keys_.in_section(section)) {
      const void* target = targets.of(key->target);
      if (!key->check_target || !target) continue;
      const std::string problem = key->check_target(target);
      if (!problem.empty()) reader.fail(std::string(key->key()), problem);
    }
  }

 private:
  // "" when the key's condition holds, else the error: a key whose condition names a key that is
  // itself out of place is refused for that key's condition (query_dag's burst_factor under
  // generator = "philly": only with generator = "query_dag").
  std::string unmet_condition(const KeyDecl& key) const {
    if (!key.when) return "";
    const KeyDecl* other = keys_.find(key.when->key);
    if (other) {
      std::string unmet = unmet_condition(*other);
      if (!unmet.empty()) return unmet;
    }
    const auto found = values_.find(key.when->key);
    bool holds = false;
    if (key.when->values.empty()) {
      holds = found != values_.end();
    } else {
      const OptionValue& value = found != values_.end() ? found->second
                                 : other                ? other->default_value
                                                        : OptionValue{};
      const auto* text = std::get_if<std::string>(&value);
      holds = text && std::find(key.when->values.begin(), key.when->values.end(), *text) !=
                          key.when->values.end();
    }
    return holds ? "" : condition_text(key);
  }

  bool controls_others(const KeyDecl& key) const {
    for (const KeyDecl& other : keys_.keys())
      if (other.when && other.when->key == key.name) return true;
    return false;
  }

  OptionValue convert(TableReader& reader, const KeyDecl& key, const std::string& name,
                      const toml::node& node) const {
    const auto expected = [&](const char* by_type) {
      reader.fail(name, "expected " + (key.expected.empty() ? std::string(by_type) : key.expected));
    };
    switch (key.type) {
      case KeyType::kBool:
        if (auto value = node.value_exact<bool>()) return *value;
        expected("true or false");
        break;
      case KeyType::kInteger:
        if (auto value = node.value_exact<std::int64_t>()) return *value;
        expected("an integer");
        break;
      case KeyType::kNumber:
        if (auto value = node.value_exact<std::int64_t>()) return static_cast<double>(*value);
        if (auto value = node.value_exact<double>()) return *value;
        expected("a number");
        break;
      case KeyType::kString:
      case KeyType::kChoice:
      case KeyType::kPath:
        if (auto value = node.value_exact<std::string>()) return *value;
        expected("a string");
        break;
      case KeyType::kList: {
        const toml::array* array = node.as_array();
        if (!array)
          expected(key.item == KeyType::kString ? "a list of strings" : "a list of numbers");
        if (key.item == KeyType::kString) {
          std::vector<std::string> items;
          for (const auto& item : *array) {
            auto value = item.value_exact<std::string>();
            if (!value) expected("a list of strings");
            items.push_back(*value);
          }
          return items;
        }
        std::vector<double> items;
        for (const auto& item : *array) {
          auto value = item.value<double>();
          if (!value) expected("a list of numbers");
          items.push_back(*value);
        }
        return items;
      }
      case KeyType::kTable:
        break;
    }
    return OptionValue{};
  }

  const KeyRegistry& keys_ = config_keys();
  const std::string& source_;
  const std::string& base_dir_;
  std::map<std::string, OptionValue, std::less<>> values_;  // keys read so far
};

// A key set for a workload kind it does not apply to would be ignored: refuse it, naming it.
void refuse_inapplicable(const ConfigParse& parse, const toml::table& root, WorkloadKind kind) {
  const auto refuse = [&](TableReader& reader, std::string_view section) {
    for (const KeyDecl* key : parse.keys().in_section(section)) {
      const std::string name(key->key());
      if (!applies_to(key->applies, kind) && reader.present(name))
        reader.fail(name, refusal_text(*key, kind));
    }
  };
  for (const std::string& section : parse.keys().sections()) {
    if (section == "cluster.node_group[]") {
      const toml::table* cluster = subtable(root, "cluster", parse.source());
      const toml::node* groups = cluster ? cluster->get("node_group") : nullptr;
      if (const toml::array* array = groups ? groups->as_array() : nullptr) {
        for (std::size_t i = 0; i < array->size(); ++i) {
          TableReader reader(array->get(i)->as_table(),
                             "cluster.node_group[" + std::to_string(i) + "]", parse.source());
          refuse(reader, section);
        }
      }
      continue;
    }
    TableReader reader(subtable(root, section, parse.source()), section, parse.source());
    refuse(reader, section);
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

void parse_cluster(ConfigParse& parse, const toml::table& root, SimOptions& sim,
                   std::shared_ptr<const NodeList>& node_list) {
  const std::string& source = parse.source();
  const toml::table* table = subtable(root, "cluster", source);
  if (!table) throw InputError(source, 0, "cluster", "missing table [cluster]");
  TableReader reader(table, "cluster", source);
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
    if (!array) reader.fail("node_group", "expected an array of tables ([[cluster.node_group]])");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::table* group_table = array->get(i)->as_table();
      const std::string section = "cluster.node_group[" + std::to_string(i) + "]";
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
    reader.fail("nodes", "the cluster needs nodes (set nodes, or [[cluster.node_group]])");
  check_cluster_size(spec, reader);

  if (const toml::node* vcs = reader.node("vcs")) {
    const toml::table* vc_table = vcs->as_table();
    if (!vc_table) reader.fail("vcs", "expected a table of VC name = GPU quota");
    TableReader vc_reader(vc_table, "cluster.vcs", source);
    for (const auto& [name, value] : *vc_table) {
      VcSpec vc;
      vc.name = std::string(name.str());
      vc.gpu_quota = static_cast<int>(vc_reader.integer(vc.name, 1, 1 << 30));
      spec.vcs.push_back(vc);
    }
  }
  reader.reject_unknown_keys();
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

WorkloadSource parse_workload(ConfigParse& parse, const toml::table& root, int cluster_gpus) {
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
  // Serving DAG workloads: the catalog their models come from (default: the built-in copy of
  // profiles/serving/models.json). Elsewhere it is refused with the keys of the other kind.
  const bool dag =
      has_trace ? workload.format == TraceFormat::kDag : workload.generator->shape == "query_dag";
  if (dag) {
    if (reader.has("catalog")) {
      const std::string path =
          resolve_path(parse.text(reader, "workload.catalog"), parse.base_dir());
      workload.serving_catalog = std::make_shared<const ServingCatalog>(load_serving_catalog(path));
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
    config.profiles = std::make_shared<const ProfileLibrary>(load_profile_dir(
        resolve_path(parse.text(throughput, "throughput.profiles"), parse.base_dir())));
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
    config.throughput_table = std::make_shared<const ThroughputTable>(load_throughput_table(
        resolve_path(parse.text(throughput, "throughput.table"), parse.base_dir())));
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
  if (reader.has("failure_trace"))
    m.failure_trace = load_failure_trace(
        resolve_path(parse.text(reader, "mechanisms.failure_trace"), parse.base_dir()),
        config.sim.cluster);
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

// [sharing] interference = "table": the pair table, `model,other,factor` (a header row, then
// one row per pair; `*` = any model).
std::vector<std::pair<std::pair<std::string, std::string>, double>> read_pair_table(
    const std::string& path) {
  const std::string text = read_input_file(path, "sharing.table");
  std::vector<std::pair<std::pair<std::string, std::string>, double>> pairs;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  const auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return std::string(s);
  };
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    std::vector<std::string> fields;
    std::size_t from = 0;
    for (std::size_t comma; (comma = line.find(',', from)) != std::string::npos; from = comma + 1)
      fields.push_back(trim(std::string_view(line).substr(from, comma - from)));
    fields.push_back(trim(std::string_view(line).substr(from)));
    if (number == 1) {
      if (fields != std::vector<std::string>{"model", "other", "factor"})
        throw InputError(path, number, "", "expected the header model,other,factor");
      continue;
    }
    if (fields.size() != 3) throw InputError(path, number, "", "expected 3 fields");
    if (fields[0].empty()) throw InputError(path, number, "model", "empty");
    if (fields[1].empty()) throw InputError(path, number, "other", "empty");
    char* end = nullptr;
    const double factor = std::strtod(fields[2].c_str(), &end);
    if (fields[2].empty() || end != fields[2].c_str() + fields[2].size() || !(factor > 0.0) ||
        !(factor <= 1.0))
      throw InputError(path, number, "factor",
                       "must be a number in (0, 1], got '" + excerpt(fields[2]) + "'");
    for (const auto& [models, known] : pairs)
      if (models.first == fields[0] && models.second == fields[1])
        throw InputError(path, number, "other", "pair listed twice");
    pairs.push_back({{fields[0], fields[1]}, factor});
  }
  if (pairs.empty()) throw InputError(path, number, "", "no pairs");
  return pairs;
}

void parse_sharing(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  TableReader reader(subtable(root, "sharing", source), "sharing", source);
  const Targets targets{.sim = &config.sim};
  parse.read_section(reader, "sharing", targets);
  SharingOptions& sharing = config.sim.sharing;
  if (sharing.interference == Interference::kTable && !sharing.table.empty())
    sharing.pairs = read_pair_table(sharing.table);
  parse.check_section(reader, "sharing", targets);
  reader.reject_unknown_keys();
  config.workload.reader.gpu_shares = sharing.enabled();
}

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

namespace {

// The placement study's keys act only together: refused, naming the key, where one cannot act.
void check_placement_study(RunConfig& config, const toml::table& root) {
  const std::string& source = config.source_name;
  const auto line_of = [&](const char* table, const char* key) -> std::size_t {
    const toml::table* t = root[table].as_table();
    const toml::node* node = t ? t->get(key) : nullptr;
    return node ? node->source().begin.line : 0;
  };
  const auto refuse = [&](const char* table, const char* key, const std::string& message) {
    throw InputError(source, line_of(table, key), std::string(table) + "." + key, message);
  };
  WorkloadSource& workload = config.workload;
  const std::string& placement = config.sim.scheduler.placement;
  if (!workload.placement_study()) {
    const std::vector<std::string> engine_placements = placement_policy_names();
    if (is_study_placement(placement) &&
        std::find(engine_placements.begin(), engine_placements.end(), placement) ==
            engine_placements.end())
      refuse(
          "scheduler", "placement",
          "\"" + placement +
              "\" places GPU shares on a per-GPU ledger: only in the placement study "
              "([workload] departures = \"none\"); the event-driven engine allocates whole GPUs");
    // on_unplaceable, arrival_order and inflate_to cannot act in time: warned (config_warnings).
    return;
  }
  if (!config.node_list)
    refuse("workload", "departures",
           "\"none\" (the placement study) needs [cluster] node_list (openb format)");
  std::size_t listed_with_gpus = 0;
  for (const NodeListEntry& node : config.node_list->nodes) listed_with_gpus += node.gpus > 0;
  if (static_cast<std::size_t>(config.sim.cluster.total_nodes()) != listed_with_gpus)
    refuse("cluster", "node_list",
           "the placement study places on the node list alone: leave out nodes and node groups");
  for (const NodeGroupSpec& group : config.sim.cluster.groups) {
    if (!group.mig.empty())
      refuse("cluster", "mig", "cannot act in the placement study: it packs GPU shares only");
    if (group.gpu_mem_gb > 0.0)
      refuse("cluster", "gpu_mem_gb",
             "cannot act in the placement study: its pods state no GPU memory");
  }
  if (!workload.trace_path)
    refuse("workload", "departures", "\"none\" (the placement study) needs a trace");
  if (!is_study_placement(placement))
    refuse("scheduler", "placement",
           "the placement study ([workload] departures = \"none\") has no \"" + placement +
               "\"; one of fgd, best_fit, dot_product, gpu_packing, gpu_clustering, random_fit");
  if (workload.on_unplaceable != OnUnplaceable::kDrop)
    refuse("workload", "on_unplaceable",
           "the placement study ([workload] departures = \"none\") tries each pod once: set "
           "on_unplaceable = \"drop\"");
  if (workload.time_scale != 1.0)
    refuse("workload", "time_scale", "cannot act in the placement study (no time)");
  if (config.sim.sharing.enabled())
    refuse("sharing", "interference",
           "cannot act in the placement study: it packs GPU shares on its own per-GPU ledger, "
           "without time");
  if (workload.reader.cpu_only_pods != CpuOnlyPods::kDrop)
    refuse("workload", "cpu_only_pods",
           "cannot act in the placement study: it places every pod, CPU-only ones included");
  if (workload.target_load > 0.0)
    refuse("workload", "target_load", "cannot act in the placement study (no time)");
  workload.reader.every_pod = true;
}

// A mixed config ([serving] config beside a training workload): its serving config, and what
// cannot act in a mixed run refused, naming the key.
void parse_mixed(RunConfig& config, const toml::table& root) {
  const auto refuse = [&](const std::string& key, const std::string& why) {
    std::size_t line = 0;
    const auto dot = key.find('.');
    if (const toml::table* table = root[key.substr(0, dot)].as_table())
      if (const toml::node* node = table->get(key.substr(dot + 1)))
        line = node->source().begin.line;
    throw InputError(config.source_name, line, key, why);
  };
  RunConfig serving;
  try {
    serving = load_run_config(config.sim.serving.config);
  } catch (const InputError& error) {
    refuse("serving.config", std::string("cannot read the serving config: ") + error.what());
  }
  if (!serving.workload.serving_catalog)
    refuse("serving.config", "'" + config.sim.serving.config +
                                 "' is not a serving config (its workload needs format = "
                                 "\"dag\" or generator = \"query_dag\")");
  if (serving.serving)
    refuse("serving.config", "'" + config.sim.serving.config + "' is itself a mixed config");
  const auto& mine = config.sim.cluster.groups;
  const auto& theirs = serving.sim.cluster.groups;
  bool same = mine.size() == theirs.size();
  for (std::size_t i = 0; same && i < mine.size(); ++i)
    same = mine[i].nodes == theirs[i].nodes && mine[i].gpus_per_node == theirs[i].gpus_per_node &&
           mine[i].gpu_type == theirs[i].gpu_type;
  if (!same)
    refuse("serving.config", "'" + config.sim.serving.config +
                                 "' describes another cluster: a mixed run needs the same node "
                                 "groups (nodes, gpus_per_node, gpu_type) in both configs");
  if (config.sim.serving.gpus > config.sim.cluster.total_gpus())
    refuse("serving.gpus", "the base pool cannot have more GPUs than the cluster's " +
                               std::to_string(config.sim.cluster.total_gpus()));
  if (config.sim.window)
    refuse("metrics.steady_state",
           "a mixed run measures every training job: set [metrics] steady_state = \"off\" "
           "(and no [workload] window)");
  if (config.sim.sharing.enabled())
    refuse("sharing.interference",
           "cannot act in a mixed run yet: serving holds whole GPUs of the ledger");
  if (config.sim.mechanisms.fails())
    refuse(config.sim.mechanisms.mtbf_h > 0.0 ? "mechanisms.mtbf_h" : "mechanisms.failure_trace",
           "cannot act in a mixed run yet (a failed node would take GPUs serving is waiting "
           "for)");
  config.serving = std::make_shared<const RunConfig>(std::move(serving));
}

}  // namespace

RunConfig parse_run_config(const toml::table& root, const std::string& source_name,
                           const std::string& base_dir) {
  RunConfig config;
  config.source_name = source_name;
  ConfigParse parse(source_name, base_dir);
  const std::vector<std::string> tables = parse.keys().tables();
  for (const auto& [key, value] : root) {
    if (std::find(tables.begin(), tables.end(), key.str()) == tables.end())
      throw InputError(source_name, value.source().begin.line, excerpt(key.str()), "unknown table");
  }
  parse_cluster(parse, root, config.sim, config.node_list);
  config.workload = parse_workload(parse, root, config.sim.cluster.total_gpus());
  config.sim.window = config.workload.window;
  refuse_inapplicable(
      parse, root, config.workload.serving_catalog ? WorkloadKind::kDag : WorkloadKind::kTraining);
  parse_table(parse, root, "scheduler", Targets{.sim = &config.sim});
  parse_throughput(parse, root, config);
  parse_mechanisms(parse, root, config);
  parse_sharing(parse, root, config);
  parse_table(parse, root, "serving", Targets{.sim = &config.sim});
  std::vector<std::string> steady_keys_set;
  {
    TableReader metrics(subtable(root, "metrics", source_name), "metrics", source_name);
    const Targets targets{.sim = &config.sim, .workload = &config.workload};
    parse.read_section(metrics, "metrics", targets);
    parse.check_section(metrics, "metrics", targets);
    metrics.reject_unknown_keys();
    for (const char* key : {"precision", "warmup_s", "drain_limit"})
      if (metrics.has(key)) steady_keys_set.emplace_back(key);
  }
  parse_table(parse, root, "debug", Targets{.sim = &config.sim});
  if (const toml::table* workload = root["workload"].as_table();
      workload && config.workload.target_load > 0.0 && workload->contains("time_scale"))
    throw InputError(source_name, workload->get("target_load")->source().begin.line,
                     "workload.target_load",
                     "sets the time scale itself: give target_load or time_scale, not both");
  check_placement_study(config, root);
  io_internal::plan_measurement(config, steady_keys_set);
  if (!config.sim.serving.config.empty()) parse_mixed(config, root);
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

namespace {

// [workload] target_load: the time scale that makes the jobs' offered load (GPUs x durations over
// the cluster's GPUs x their arrival span) the target; scaling arrivals by s divides it by s.
double target_load_scale(const RunConfig& config, std::span<const JobSpec> jobs) {
  const std::string where = config.workload.trace_path.value_or(config.source_name);
  if (jobs.empty()) throw InputError(where, 0, "workload.target_load", "the workload has no jobs");
  double first = jobs.front().submit_time, last = first;
  for (const JobSpec& job : jobs) {
    first = std::min(first, job.submit_time);
    last = std::max(last, job.submit_time);
  }
  const double load = offered_load(jobs, config.sim.cluster.total_gpus(), first, last);
  if (!(load > 0.0))
    throw InputError(where, 0, "workload.target_load",
                     "the workload offers no load to scale (all arrivals at one time, no GPU "
                     "work, or no GPUs)");
  return load / config.workload.target_load;
}

}  // namespace

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
  if (config.throughput_table) {
    std::vector<std::string> types;
    for (const NodeGroupSpec& group : config.sim.cluster.groups)
      if (std::find(types.begin(), types.end(), group.gpu_type) == types.end())
        types.push_back(group.gpu_type);
    check_table_coverage(*config.throughput_table, workload.jobs, types, config.table_options,
                         config.workload.trace_path.value_or(config.source_name));
  }
  // A DAG workload's models must be in the catalog and fit some GPU: say so now, naming the row.
  if (workload.dag) serving_setup(config, workload);
  double time_scale = config.workload.time_scale;
  if (config.workload.target_load > 0.0) time_scale = target_load_scale(config, workload.jobs);
  if (time_scale != 1.0)
    for (JobSpec& job : workload.jobs) job.submit_time *= time_scale;
  return workload;
}

std::string trace_read_key(const RunConfig& config) {
  const ReaderOptions& reader = config.workload.reader;
  std::ostringstream key;
  key.precision(17);
  key << trace_format_name(config.workload.format) << ':' << config.workload.trace_path.value_or("")
      << ':' << reader.skip_invalid << static_cast<int>(reader.failed_pods)
      << static_cast<int>(reader.censored_pods) << reader.every_pod
      << static_cast<int>(reader.cpu_only_pods) << reader.gpu_shares << ':'
      << reader.gavel_throughputs_path << ':' << reader.gavel_gpu_type << ':'
      << config.workload.time_scale;
  // target_load's scale depends on the cluster's GPUs too.
  if (config.workload.target_load > 0.0)
    key << ':' << config.workload.target_load << ':' << config.sim.cluster.total_gpus();
  return key.str();
}

void count_row_changes(const Workload& workload, RunMetrics& metrics) {
  for (const Workload::RowChange& change : workload.row_changes)
    (change.dropped ? metrics.trace_rows_dropped : metrics.trace_rows_changed) += change.rows;
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
  if (config.workload.placement_study()) {  // no time: each pod placed once (placement_study.h)
    StudyOptions study;
    study.placement = config.sim.scheduler.placement;
    study.shuffle = config.workload.arrival_order == ArrivalOrder::kShuffle;
    study.inflate_to = config.workload.inflate_to;
    study.seed = config.sim.seed;
    StudyRun placed = run_placement_study(*config.node_list, workload->jobs, study);
    run.result = std::move(placed.result);
    // The arrival sequence (clones included) is what was simulated: one job per arrival.
    auto arrived = std::make_shared<Workload>();
    arrived->jobs.reserve(placed.workload_index.size());
    for (std::size_t a = 0; a < placed.workload_index.size(); ++a) {
      JobSpec job = workload->jobs[placed.workload_index[a]];
      if (a >= workload->jobs.size()) job.id += "-clone-" + std::to_string(a);
      arrived->jobs.push_back(std::move(job));
    }
    arrived->row_changes = workload->row_changes;
    arrived->filtered_rows = workload->filtered_rows;
    arrived->skipped_rows = workload->skipped_rows;
    count_row_changes(*arrived, run.result.metrics);
    run.workload = std::move(arrived);
    return run;
  }
  if (workload->dag) {  // serving: queries of model tasks (serving.h); no window
    run.result = simulate_serving(config.sim, *workload, serving_setup(config, *workload));
    describe_population(std::nullopt, workload->jobs, run.result);
    run.workload = std::move(workload);
    return run;
  }
  if (config.serving) {  // training and serving on one cluster (serving.h, make_mixed_serving)
    const RunConfig& serving = *config.serving;
    Workload queries = load_workload(serving);
    ServingSetup setup = serving_setup(serving, queries);
    SimOptions options = serving.sim;
    options.serving.priority = config.sim.serving.priority;
    options.serving.gpus = config.sim.serving.gpus;
    std::unique_ptr<MixedServing> mechanism;
    try {
      mechanism = make_mixed_serving(options, std::move(queries), std::move(setup));
    } catch (const std::invalid_argument& error) {
      // "serving.gpus: ..." (a base pool that cannot hold a model) names its key.
      const std::string what = error.what();
      const std::string key = what.rfind("serving.", 0) == 0 ? what.substr(0, what.find(':'))
                                                             : std::string("serving.config");
      throw InputError(config.source_name, 0, key, what);
    }
    MixedServing& mixed = *mechanism;
    RunConfig training = config;  // the Simulation runs the training side; serving joins it
    training.serving.reset();
    Simulation simulation(training, std::move(workload));
    simulation.add_mechanism(std::move(mechanism));
    run.result = simulation.run();
    mixed.collect(run.result);
    run.workload = simulation.workload();
    count_row_changes(*run.workload, run.result.metrics);
    return run;
  }
  Simulation simulation(config, std::move(workload));
  run.result = simulation.run();
  run.workload = simulation.workload();  // grown, when a window streamed more jobs in
  count_row_changes(*run.workload, run.result.metrics);
  return run;
}

}  // namespace clustersim
