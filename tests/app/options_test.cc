// Config keys declared once (options.h): the declarations against the parser, the engine's
// checks, README.md's tables and `clustersim run --list-keys`.
#include "clustersim/options.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/simulator.h"
#include "config_error.h"
#include "run_clustersim.h"

namespace clustersim {
namespace {

// Where this file's configs are read from (its errors name it).
const testing::ConfigFile kCfgToml{"cfg.toml", ""};

namespace fs = std::filesystem;

const std::string kSource = CLUSTERSIM_SOURCE_DIR;
const std::string kTable = kSource + "/tests/sim/workload/data/gavel_throughputs.json";

// ---- configs built key by key -----------------------------------------------------------------

// A config as its tables' `key = TOML value` lines; "cluster.node_group[]" is one
// [[cluster.node_group]] table.
using Tables = std::map<std::string, std::map<std::string, std::string>>;

std::string render(const Tables& tables) {
  std::string text;
  for (const auto& [section, keys] : tables) {
    text += section == "cluster.node_group[]" ? "[[cluster.node_group]]\n" : "[" + section + "]\n";
    for (const auto& [key, value] : keys) text += key + " = " + value + "\n";
  }
  return text;
}

// The serving config of a mixed config built on training_base().
constexpr const char* kServingConfig =
    "[cluster]\nnodes = 2\n[workload]\ngenerator = \"query_dag\"\nqueries = 20\n";

Tables training_base() {
  return {{"cluster", {{"nodes", "2"}}}, {"workload", {{"generator", "\"philly\""}}}};
}

Tables dag_base() {
  return {{"cluster", {{"nodes", "2"}}},
          {"workload", {{"generator", "\"query_dag\""}, {"queries", "20"}}}};
}

std::string toml_text(const OptionValue& value) { return format_value(value); }

// A valid value other than the default, from the declaration alone (type, range, choices);
// class_split's rule needs its own.
OptionValue sample(const KeyDecl& key) {
  if (key.name == "workload.class_split") return std::vector<double>{30, 60, 10};
  // The arrival profiles: one rate per hour of the day, per day of the week.
  if (key.name == "workload.rate_by_hour") return std::vector<double>(24, 1.0);
  if (key.name == "workload.rate_by_weekday") return std::vector<double>(7, 1.0);
  // llm_era's per-class lists: [pretrain, sft, eval, debug], GPU counts powers of two.
  if (key.name == "workload.llm_class_shares") return std::vector<double>{10, 20, 40, 30};
  if (key.name == "workload.llm_class_min_gpus") return std::vector<double>{32, 8, 1, 1};
  if (key.name == "workload.llm_class_max_gpus") return std::vector<double>{512, 128, 8, 4};
  if (key.name == "workload.llm_class_gpu_decay") return std::vector<double>{0.4, 0.5, 0.3, 0.2};
  if (key.name == "workload.llm_class_median_s") return std::vector<double>{9000, 3000, 90, 20};
  if (key.name == "workload.llm_class_sigma") return std::vector<double>{1, 1, 0.8, 0.5};
  const OptionValue& fallback = key.default_value;
  switch (key.type) {
    case KeyType::kBool: {
      const auto* value = std::get_if<bool>(&fallback);
      return !(value && *value);
    }
    case KeyType::kInteger: {
      const std::int64_t value = std::get<std::int64_t>(fallback);
      return key.range && value + 1 > key.range->imax ? value - 1 : value + 1;
    }
    case KeyType::kNumber: {
      if (!key.range) return std::get<double>(fallback) + 1.0;
      const double min = key.range->min, max = key.range->max;
      const auto* value = std::get_if<double>(&fallback);
      if (!value) return (min + max) / 2;
      return *value < max ? std::max(min, *value) + (max - std::max(min, *value)) / 4
                          : (min + max) / 2;
    }
    case KeyType::kChoice:
      for (const std::string& choice : key.choices)
        if (OptionValue(choice) != fallback) return choice;
      // A key with one choice (its default) can only be set to it.
      if (key.choices.size() == 1) return key.choices.front();
      break;
    case KeyType::kString:
      return std::string("sample");
    case KeyType::kPath:
      return std::string("/tmp/clustersim_options_sample");
    case KeyType::kList:
      if (key.item == KeyType::kString) return std::vector<std::string>{"vit", "opt"};
      return std::vector<double>{1, 2.5};
    case KeyType::kTable:
      break;
  }
  ADD_FAILURE() << "no sample for " << key.name;
  return OptionValue{};
}

// Keys with hand-written parsing: a valid TOML value of each (a test fails for a new one).
std::string custom_sample(const KeyDecl& key, const fs::path& dir) {
  static const std::map<std::string, std::string> samples = {
      {"cluster.node_group", "[{ nodes = 1 }]"},
      {"cluster.vcs", "{ a = 4 }"},
      {"workload.trace", "\"t.csv\""},
      {"workload.generator", "\"philly\""},
      {"workload.window", "[0, 10]"},
      {"throughput.model", "\"placement\""},
      {"mechanisms.scaling", "{ resnet50 = [[1, 1.0], [2, 1.8]] }"},
      {"mechanisms.checkpoint_gb", "{ resnet50 = 2 }"},
      {"fabric.efficiency_by_type", "{ h100_fp8 = 0.4 }"},
      {"power.gpu_idle_w", "{ generic = 50 }"},
      {"power.gpu_peak_w", "{ generic = 300 }"},
      {"power.gpu_cap_w", "{ generic = 200 }"},
      {"power.gpu_cap_exponent", "{ generic = 0.5 }"},
      {"mechanisms.failure_class", "{ gpu = { rate_per_h = 0.001, repair_h = 2 } }"},
      {"fleet.router", "\"home\""},
      {"fleet.home_column", "\"user\""},
      {"fleet.regions", "[{ name = \"r\", carbon_g_per_kwh = 100 }, { name = \"s\" }]"},
      {"fleet.clusters", "[{ name = \"c\", region = \"s\", nodes = 3 }]"},
      {"fleet.links", "[{ from = \"r\", to = \"s\", bandwidth_gbps = 10 }]"},
      {"fleet.rebalance.enabled", "true"},
      {"fleet.rebalance.threshold", "0.2"},
      {"fleet.rebalance.interval_s", "60"},
      {"fleet.rebalance.input_gb", "5"},
  };
  if (key.name == "workload.catalog") return "\"" + kSource + "/profiles/serving/models.json\"";
  if (key.name == "throughput.profiles") return "\"" + kSource + "/profiles/v100\"";
  if (key.name == "throughput.table") return "\"" + kTable + "\"";
  if (key.name == "throughput.reference_type") return "\"v100\"";
  if (key.name == "cluster.node_list") {
    std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,65536,2,V100\n";
    return "\"" + (dir / "nodes.csv").string() + "\"";
  }
  if (key.name == "mechanisms.failure_mix") {
    std::ofstream(dir / "mix.csv") << "component,category,interruptions\nFaulty GPU,GPU,3\n";
    return "\"" + (dir / "mix.csv").string() + "\"";
  }
  if (key.name == "mechanisms.failure_trace") {
    std::ofstream(dir / "outages.csv") << "node,down,up\n0,10,20\n";
    return "\"" + (dir / "outages.csv").string() + "\"";
  }
  if (key.name == "mechanisms.availability_trace") {
    std::ofstream(dir / "windows.csv") << "nodes,down,up\n0-0,10,20\n";
    return "\"" + (dir / "windows.csv").string() + "\"";
  }
  const auto found = samples.find(key.name);
  if (found == samples.end()) {
    ADD_FAILURE() << "no sample for the custom key " << key.name;
    return "";
  }
  return found->second;
}

// Sets what `key`'s condition needs (and what that key's needs) in `tables`.
void meet_condition(const KeyDecl& key, Tables& tables) {
  // VC weights and the quotas from them need the VCs (sample(): two weights).
  if (key.name == "workload.vc_weights" || key.name == "workload.vc_quotas")
    tables["workload"]["vcs"] = "[\"a\", \"b\"]";
  if (!key.when) return;
  const KeyDecl* other = config_keys().find(key.when->key);
  ASSERT_NE(other, nullptr) << key.name << "'s condition names an undeclared key";
  meet_condition(*other, tables);
  auto& section = tables[std::string(other->section())];
  const std::string name(other->key());
  if (other->name == "workload.trace") {
    tables["workload"].erase("generator");
    tables["workload"].erase("queries");
    section[name] = "\"t.csv\"";
  } else if (other->name == "serving.config") {  // a mixed config: kServingConfig in its folder
    section[name] = "\"serving.toml\"";
    tables["metrics"]["steady_state"] = "\"off\"";
  } else if (key.when->values.empty()) {
    if (!section.count(name)) section[name] = "\"" + std::string("philly") + "\"";
  } else {
    section[name] = "\"" + key.when->values.front() + "\"";
  }
  if (other->name == "throughput.model" && section[name] == "\"table\"")
    tables["throughput"]["table"] = "\"" + kTable + "\"";
  else if (other->name == "throughput.model")
    tables["throughput"]["profiles"] = "\"" + kSource + "/profiles/v100\"";
}

// The config a key is read from: the base of its workload kind, its condition met.
// A fleet's keys need a fleet: its clusters instead of [cluster] (fleet_config.cc).
void make_fleet(const KeyDecl& key, Tables& tables) {
  if (key.section() != "fleet" && key.section() != "fleet.rebalance") return;
  tables.erase("cluster");
  tables["fleet"]["regions"] = "[{ name = \"r\" }, { name = \"s\" }]";
  tables["fleet"]["clusters"] = "[{ name = \"c\", region = \"r\", nodes = 2 }]";
}

Tables config_for(const KeyDecl& key) {
  Tables tables = key.applies == Applies::kDag ? dag_base() : training_base();
  make_fleet(key, tables);
  meet_condition(key, tables);
  if (key.section() == "cluster.node_group[]") tables["cluster.node_group[]"]["nodes"] = "3";
  return tables;
}

const void* target_in(const KeyDecl& key, const RunConfig& config) {
  switch (key.target) {
    case KeyTarget::kSimOptions:
      return &config.sim;
    case KeyTarget::kNodeGroup:
      return key.section() == "cluster" ? &config.sim.cluster.groups.front()
                                        : &config.sim.cluster.groups.back();
    case KeyTarget::kGenerator:
      return config.workload.generator ? &*config.workload.generator : nullptr;
    case KeyTarget::kReader:
      return &config.workload.reader;
    case KeyTarget::kProfileModel:
      return &config.profile_options;
    case KeyTarget::kWorkload:
      return &config.workload;
    case KeyTarget::kNone:
      break;
  }
  return nullptr;
}

class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() / ("clustersim_options_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// ---- the declarations -------------------------------------------------------------------------

TEST(Options, EveryKeyIsDeclaredOnceWithADocAndAnOwner) {
  const KeyRegistry& keys = config_keys();
  std::set<std::string> names;
  for (const KeyDecl& key : keys.keys()) {
    SCOPED_TRACE(key.name);
    EXPECT_TRUE(names.insert(key.name).second);
    EXPECT_FALSE(key.doc.empty());
    EXPECT_FALSE(key.component.empty());
    EXPECT_FALSE(key.section().empty());
    // Hand-parsed keys aside, each key is bound to a field: one place for its default.
    if (!key.custom) {
      EXPECT_TRUE(key.bound() && key.get);
    }
    if (key.type == KeyType::kChoice) {
      EXPECT_FALSE(key.choices.empty());
    }
    // A default the docs print is a valid value; a sentinel ("unset") carries a note instead.
    if (key.default_note.empty() && key.bound()) {
      EXPECT_EQ(value_problem(key, key.default_value), "") << format_value(key.default_value);
    }
    // A condition names a key of the config read before it.
    if (key.when) {
      const KeyDecl* other = keys.find(key.when->key);
      ASSERT_NE(other, nullptr);
      EXPECT_LT(other - keys.keys().data(), &key - keys.keys().data());
    }
  }
  // The simulator's keys are the config's, minus the workload's.
  for (const KeyDecl& key : simulator_keys().keys()) EXPECT_TRUE(keys.find(key.name)) << key.name;
  EXPECT_EQ(keys.tables(),
            (std::vector<std::string>{"cluster", "workload", "scheduler", "throughput",
                                      "mechanisms", "sharing", "fabric", "power", "supply",
                                      "serving", "metrics", "debug", "fleet"}));
}

// Each bound key, set to a value other than its default, reaches its field; left out, its field
// holds the default the docs print (the struct's initialiser, unless the parser changed it).
TEST(Options, EveryBoundKeyRoundTripsAndItsDefaultIsTheParsersDefault) {
  TempDir dir;
  int checked = 0, defaults = 0;
  for (const KeyDecl& key : config_keys().keys()) {
    if (!key.bound()) continue;
    SCOPED_TRACE(key.name);
    Tables tables = config_for(key);
    const std::string section(key.section()), name(key.key());
    const bool base_sets_it = tables[section].count(name) > 0;
    const OptionValue value = sample(key);
    ASSERT_TRUE(value != key.default_value || key.choices.size() == 1);
    // departures = "none" (the placement study) needs a node list (alone), a trace, one of its
    // placements and on_unplaceable = "drop": best_fit and drop are read in time too.
    if (key.name == "workload.departures") {
      std::ofstream(dir.path() / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\n"
                                                 "n0,8000,65536,2,V100\n";
      tables["cluster"] = {{"node_list", "\"" + (dir.path() / "nodes.csv").string() + "\""}};
      tables["workload"].erase("generator");
      tables["workload"]["trace"] = "\"t.csv\"";
      tables["workload"]["format"] = "\"openb\"";
      tables["workload"]["on_unplaceable"] = "\"drop\"";
      tables["scheduler"]["placement"] = "\"best_fit\"";
    }
    // The pair table is read with the config: the sample path must hold one.
    if (key.name == "sharing.table")
      std::ofstream(std::get<std::string>(value)) << "model,other,factor\n*,*,0.9\n";
    // So is the fabric's host-to-switch map: a host per node of the base's cluster.
    if (key.name == "fabric.topology")
      std::ofstream(std::get<std::string>(value)) << "ip,DSW,PSW,ASW\nh0,G,P1,S1\nh1,G,P1,S2\n";
    // And a collective table (one SimAI ratio CSV).
    if (key.name == "fabric.collective_table")
      std::ofstream(std::get<std::string>(value)) << "Size,1 Node(NVLinkx)\n1000,0.5\n";
    // [supply]'s traces and job values are read with the config too.
    if (key.name == "supply.carbon_trace")
      std::ofstream(std::get<std::string>(value))
          << "Datetime (UTC),Carbon Intensity gCO₂eq/kWh (direct)\n2023-01-01 00:00:00,100\n"
             "2023-01-01 01:00:00,120\n";
    if (key.name == "supply.solar_trace")
      std::ofstream(std::get<std::string>(value))
          << "timestamp_local_utc-7,ghi_w_m2\n2023-01-01T00:00:00-07:00,0\n"
             "2023-01-01T00:30:00-07:00,10\n";
    if (key.name == "supply.job_values")
      std::ofstream(std::get<std::string>(value)) << "job_id,value\ng1,2\n";
    // A mixed config's serving config, on the base's cluster.
    std::ofstream(dir.path() / "serving.toml") << kServingConfig;
    if (key.name == "serving.config") {
      std::ofstream(std::get<std::string>(value)) << kServingConfig;
      tables["metrics"]["steady_state"] = "\"off\"";
    }
    tables[section][name] = toml_text(value);
    const std::string text = render(tables);
    RunConfig config;
    try {
      config = parse_run_config(text, "cfg.toml", dir.path().string());
    } catch (const InputError& error) {
      FAIL() << error.what() << "\n" << text;
    }
    const void* target = target_in(key, config);
    ASSERT_NE(target, nullptr);
    EXPECT_EQ(format_value(key.get(target)), format_value(value)) << text;
    ++checked;

    if (base_sets_it || !key.default_note.empty()) continue;
    tables[section].erase(name);
    const RunConfig plain = parse_run_config(render(tables), "cfg.toml", dir.path().string());
    EXPECT_EQ(format_value(key.get(target_in(key, plain))), default_text(key));
    ++defaults;
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(defaults, 70);
}

TEST(Options, EveryCustomKeyIsAcceptedWhereItApplies) {
  TempDir dir;
  for (const KeyDecl& key : config_keys().keys()) {
    if (!key.custom) continue;
    SCOPED_TRACE(key.name);
    Tables tables = config_for(key);
    if (key.name == "workload.trace") tables["workload"].erase("generator");
    if (key.name == "workload.window") tables["workload"]["jobs"] = "50";
    if (key.name == "mechanisms.failure_mix") tables["mechanisms"]["failure_mix_days"] = "54";
    tables[std::string(key.section())][std::string(key.key())] = custom_sample(key, dir.path());
    try {
      parse_run_config(render(tables), "cfg.toml", dir.path().string());
    } catch (const InputError& error) {
      ADD_FAILURE() << error.what() << "\n" << render(tables);
    }
  }
}

// Each key set on the workload kind it does not apply to is an error naming it: a training key
// on a DAG workload (before: ignored) and a serving key on a training workload.
TEST(Options, KeysOfTheOtherWorkloadKindAreErrorsNamingThem) {
  TempDir dir;
  int refused = 0;
  for (const KeyDecl& key : config_keys().keys()) {
    if (key.applies == Applies::kBoth) continue;
    SCOPED_TRACE(key.name);
    const WorkloadKind kind =
        key.applies == Applies::kTraining ? WorkloadKind::kDag : WorkloadKind::kTraining;
    Tables tables = kind == WorkloadKind::kDag ? dag_base() : training_base();
    make_fleet(key, tables);
    std::string section(key.section()), field = key.name;
    // A fleet's tables come together: the first present in declaration order is named.
    if (key.name == "fleet.clusters" || key.name == "fleet.links" || section == "fleet.rebalance")
      field = "fleet.regions";
    if (section == "cluster.node_group[]") {
      tables[section]["nodes"] = "1";
      field = "cluster.node_group[0]." + std::string(key.key());
    }
    tables[section][std::string(key.key())] =
        key.custom ? custom_sample(key, dir.path()) : toml_text(sample(key));
    const InputError error = kCfgToml.error(render(tables));
    EXPECT_EQ(error.field(), field) << error.what();
    // Refused for its workload kind, or for its condition ("only with generator = ..."), which
    // the other kind's config cannot meet.
    std::set<std::string> why = {refusal_text(key, kind)};
    for (const KeyDecl* k = &key; k && k->when; k = config_keys().find(k->when->key))
      why.insert(condition_text(*k));
    EXPECT_TRUE(why.count(error.message())) << error.what();
    ++refused;
  }
  EXPECT_GT(refused, 80);
}

// The case: a training key on a DAG workload names the key and its line.
TEST(Options, TrainingKeyOnADagTraceIsAnErrorNamingTheKey) {
  const InputError error = kCfgToml.error(
      "[cluster]\nnodes = 2\n[workload]\ntrace = \"q.csv\"\nformat = \"dag\"\n[scheduler]\n"
      "lease_s = 60\n");
  EXPECT_EQ(std::string(error.what()),
            "cfg.toml:7: field 'scheduler.lease_s': only for training workloads (a DAG workload "
            "runs on the serving engine, which does not use it)");
  EXPECT_EQ(kCfgToml
                .error("[cluster]\nnodes = 2\n[workload]\ngenerator = \"query_dag\"\n"
                       "elastic_fraction = 0.5\n")
                .field(),
            "workload.elastic_fraction");
  EXPECT_EQ(kCfgToml
                .error("[cluster]\nnodes = 2\n[workload]\ngenerator = \"query_dag\"\n"
                       "[mechanisms]\nelastic = true\n")
                .field(),
            "mechanisms.elastic");
}

// A key that only applies with another key's value says which ("only with ...").
TEST(Options, ConditionsNameTheKeyTheyNeed) {
  EXPECT_EQ(kCfgToml.error("[cluster]\nnodes = 2\n[workload]\ngenerator = \"synergy\"\nload = 1\n")
                .message(),
            "only with generator = \"philly\" or \"llm_era\"");
  // A query_dag key under philly needs query_dag first, not its own arrival process.
  EXPECT_EQ(kCfgToml
                .error("[cluster]\nnodes = 2\n[workload]\ngenerator = \"philly\"\n"
                       "burst_factor = 2\n")
                .message(),
            "only with generator = \"query_dag\"");
  EXPECT_EQ(kCfgToml
                .error("[cluster]\nnodes = 2\n[workload]\ngenerator = \"philly\"\n"
                       "[throughput]\non_missing = \"neutral\"\n")
                .message(),
            "only with model = \"profile\" or \"table\"");
  // The LP tie-break is refused with a policy that is not one of the six LPs.
  EXPECT_EQ(kCfgToml
                .error("[cluster]\nnodes = 2\n[workload]\ngenerator = \"philly\"\n"
                       "[scheduler]\npolicy = \"fifo_perf\"\ntie_break = \"none\"\n")
                .field(),
            "scheduler.tie_break");
}

// ---- validate(): options built in C++ -----------------------------------------------------------

// Everything the engine's own checks (engine.cc, validate_options) refused is refused, naming
// the key, with the ranges the config reader uses.
TEST(Options, ValidateRefusesWhatTheEngineRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::string key;
    std::function<void(SimOptions&)> change;
  };
  std::vector<Case> cases;
  const auto each = [&](const std::string& key, std::function<double&(SimOptions&)> field,
                        std::vector<double> bad) {
    for (double value : bad)
      cases.push_back({key, [field, value](SimOptions& o) { field(o) = value; }});
  };
  each("scheduler.lease_s", [](SimOptions& o) -> double& { return o.scheduler.lease_s; },
       {-1, nan, inf});
  each("scheduler.checkpoint_s", [](SimOptions& o) -> double& { return o.scheduler.checkpoint_s; },
       {-1, nan, inf});
  each("scheduler.restore_s", [](SimOptions& o) -> double& { return o.scheduler.restore_s; },
       {-1, nan, inf});
  each("scheduler.plan_interval_s",
       [](SimOptions& o) -> double& { return o.scheduler.plan_interval_s; }, {-1, nan, inf});
  each("scheduler.realloc_s", [](SimOptions& o) -> double& { return o.scheduler.realloc_s; },
       {-1, nan, inf});
  each("scheduler.best_demand_tolerance",
       [](SimOptions& o) -> double& { return o.scheduler.best_demand_tolerance; },
       {-0.1, 1.0, nan});
  each("metrics.sample_interval_s", [](SimOptions& o) -> double& { return o.sample_interval_s; },
       {-1, nan, inf});
  each("mechanisms.defrag_threshold",
       [](SimOptions& o) -> double& { return o.mechanisms.defrag_threshold; }, {-0.1, 1.1, nan});
  each("mechanisms.defrag_period_s",
       [](SimOptions& o) -> double& { return o.mechanisms.defrag_period_s; }, {0, -1, nan, inf});
  each("mechanisms.parallel_fraction",
       [](SimOptions& o) -> double& { return o.mechanisms.parallel_fraction; }, {-0.1, 1.1, nan});
  each("mechanisms.checkpoint_interval_s",
       [](SimOptions& o) -> double& { return o.mechanisms.checkpoint_interval_s; }, {-1, nan, inf});
  each("mechanisms.mtbf_h", [](SimOptions& o) -> double& { return o.mechanisms.mtbf_h; },
       {-1, nan, inf});
  cases.push_back(
      {"mechanisms.defrag_max_moves", [](SimOptions& o) { o.mechanisms.defrag_max_moves = 0; }});
  for (auto points : std::vector<std::vector<std::pair<int, double>>>{
           {{0, 1.0}}, {{1, 0.0}}, {{2, 1.5}, {1, 1.0}}, {{1, 1.0}, {1, 1.5}}, {}})
    cases.push_back(
        {"mechanisms.scaling", [points](SimOptions& o) { o.mechanisms.scaling["m"] = points; }});
  for (auto [node, down, up] : std::vector<std::tuple<std::uint32_t, double, double>>{
           {5, 10, 20}, {0, -1, 20}, {0, 20, 20}, {0, 10, inf}}) {
    NodeOutage outage;
    outage.node = node;
    outage.down = down;
    outage.up = up;
    cases.push_back({"mechanisms.failure_trace",
                     [outage](SimOptions& o) { o.mechanisms.failure_trace.push_back(outage); }});
    cases.push_back({"mechanisms.availability_trace", [outage](SimOptions& o) {
                       o.mechanisms.availability_trace.push_back(outage);
                     }});
  }

  for (const Case& c : cases) {
    SimOptions options;
    NodeGroupSpec group;
    group.nodes = 2;
    options.cluster.groups.push_back(group);
    ASSERT_NO_THROW(validate(options));
    c.change(options);
    try {
      validate(options);
      ADD_FAILURE() << c.key << ": accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()).rfind(c.key + ": ", 0), 0u) << error.what();
    }
  }
  // The wording of the config's errors: one rule, one message.
  SimOptions options;
  options.scheduler.lease_s = -1;
  try {
    validate(options);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "scheduler.lease_s: must be in [0, 1e+12], got -1");
  }
}

TEST(Options, ValidateAcceptsWhatTheConfigReaderAccepts) {
  SimOptions options;
  EXPECT_NO_THROW(validate(options));
  options.seed = std::numeric_limits<std::uint64_t>::max();  // a sweep's derived seed
  EXPECT_NO_THROW(validate(options));
  for (const std::string& path :
       {kSource + "/sim/examples/default.toml", kSource + "/sweep/examples/synergy/grid.toml"}) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string config_text = text.str().substr(0, text.str().find("\n[sweep]"));
    const RunConfig config =
        parse_run_config(config_text, path, fs::path(path).parent_path().string());
    EXPECT_NO_THROW(validate(config.sim)) << path;
  }
  // Serving options are the serving engine's: not checked for a training run.
  options.serving.cache_lookahead = -1;
  EXPECT_NO_THROW(validate(options, WorkloadKind::kTraining));
  EXPECT_THROW(validate(options, WorkloadKind::kDag), std::invalid_argument);
}

// ---- the docs -----------------------------------------------------------------------------------

// README.md's key tables are the declarations' (scripts/update_key_tables.sh writes them).
TEST(Options, ReadmeKeyTablesMatchTheDeclarations) {
  std::ifstream in(kSource + "/README.md");
  ASSERT_TRUE(in) << "cannot read README.md";
  std::string line, table;
  bool inside = false, found = false;
  while (std::getline(in, line)) {
    if (line.rfind("<!-- keys:end", 0) == 0) inside = false;
    if (inside) table += line + "\n";
    if (line.rfind("<!-- keys:begin", 0) == 0) inside = found = true;
  }
  ASSERT_TRUE(found) << "README.md has no <!-- keys:begin --> marker";
  const std::string expected = "\n" + keys_markdown(config_keys()) + "\n";
  if (table == expected) return;
  std::istringstream have(table), want(expected);
  std::string a, b;
  int n = 0;
  while (true) {
    ++n;
    const bool more_a = static_cast<bool>(std::getline(have, a));
    const bool more_b = static_cast<bool>(std::getline(want, b));
    if (!more_a && !more_b) break;
    if (a != b || more_a != more_b) break;
  }
  ADD_FAILURE() << "README.md's key tables differ from the keys' declarations; regenerate them "
                   "with: scripts/update_key_tables.sh (after building)\nfirst difference, line "
                << n << " of the table:\n  README.md:    " << a << "\n  declarations: " << b;
}

using clustersim::testing::Outcome;
using clustersim::testing::run_clustersim;

TEST(Options, ListKeysPrintsEveryKey) {
  const Outcome text = run_clustersim("run --list-keys");
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.out, keys_text(config_keys()));
  for (const KeyDecl& key : config_keys().keys()) {
    const std::string head =
        key.name + "  (" + type_text(key) + "; default " + default_text(key) + "; ";
    EXPECT_NE(text.out.find(head), std::string::npos) << head;
  }
  EXPECT_NE(text.out.find("scheduler.lease_s  (number in [0, 1e+12]; default 300; training "
                          "workloads)\n    Period of preemption rounds"),
            std::string::npos);
  const Outcome markdown = run_clustersim("run --list-keys=markdown");
  ASSERT_EQ(markdown.exit_code, 0);
  EXPECT_EQ(markdown.out, keys_markdown(config_keys()));
  EXPECT_NE(run_clustersim("run --list-keys=html").exit_code, 0);
}

}  // namespace
}  // namespace clustersim
