// [fleet]: a run config's fleet (fleet_config.h; sim/README.md, "Fleet"). Its keys are declared
// here (declare_fleet_keys) and read by hand: regions, clusters and links are arrays of tables.
#include "clustersim/fleet_config.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "clustersim/error.h"
#include "io/internal/config_reader.h"
#include "io/internal/config_tables.h"
#include "io/internal/energy_traces.h"
#include "options/declare.h"

namespace clustersim {

namespace io_internal {

void declare_fleet_keys(KeyRegistry& keys) {
  using options::custom;
  custom(keys, "fleet.router", KeyType::kChoice)
      .choices(fleet_router_names())
      .component("fleet")
      .training_only()
      .default_note("\"least_loaded\"")
      .doc(
          "Runs the config as a fleet of clusters (sim/README.md, \"Fleet\"): the global router "
          "that sends each arriving job to a cluster (`clustersim components`). With `[fleet]`, "
          "`[cluster]` gives way to `[[fleet.clusters]]`; the other tables are every "
          "cluster's, and the workload's load is on all the fleet's GPUs.");
  custom(keys, "fleet.home_column", KeyType::kChoice)
      .choices({"vc", "user"})
      .component("fleet")
      .training_only()
      .default_note("\"vc\"")
      .doc(
          "The `home` router: the job field that names each job's home, a cluster's name or a "
          "region's (its first cluster).");
  custom(keys, "fleet.regions", KeyType::kTable)
      .component("fleet")
      .training_only()
      .default_note("none")
      .doc(
          "`[[fleet.regions]]`: `name`, `utc_offset_h` (local time = UTC + this), the grid's "
          "carbon "
          "intensity as `[supply]` reads it: `carbon_trace` (an Electricity Maps hourly CSV), "
          "`carbon_column` (`direct` or `lca`), `start_h` (hours into the trace at time 0), or "
          "`carbon_g_per_kwh` (a constant).");
  custom(keys, "fleet.clusters", KeyType::kTable)
      .component("fleet")
      .training_only()
      .default_note("— (required)")
      .doc(
          "`[[fleet.clusters]]`: `name`, `region` (a region's name) and the cluster itself in "
          "`[cluster]`'s keys (`nodes`, `gpus_per_node`, `gpu_type`, `vcs`, "
          "`[[fleet.clusters.node_group]]` after it, ...); the routers break ties by this "
          "order.");
  custom(keys, "fleet.links", KeyType::kTable)
      .component("fleet")
      .training_only()
      .default_note("none")
      .doc(
          "`[[fleet.links]]`: a wide-area link between two regions, `from`, `to`, "
          "`bandwidth_gbps` (> 0, shared equally by concurrent transfers), `latency_ms`.");
  custom(keys, "fleet.rebalance.enabled", KeyType::kBool)
      .component("fleet")
      .training_only()
      .default_note("false")
      .doc(
          "The rebalancer (sim/README.md, \"Fleet\"): moves waiting jobs (never started, or "
          "stopped and saved) between clusters whose regions a `[[fleet.links]]` link joins, "
          "each unable to start until its checkpoint (`[mechanisms]` `checkpoint_gb` by model, "
          "else `default_checkpoint_gb`) has crossed the link, then restoring there (a "
          "migration's overhead).");
  custom(keys, "fleet.rebalance.threshold", KeyType::kNumber)
      .range(0.0, 1e9)
      .component("fleet")
      .training_only()
      .default_note("0.5")
      .doc(
          "Moves a job while two linked clusters' waiting GPU demand per GPU differs by more "
          "than this: the fuller one's first waiting job in policy order that the other can "
          "hold, unless the move would open the reverse gap beyond this while the other has not "
          "the job's GPUs free.");
  custom(keys, "fleet.rebalance.interval_s", KeyType::kNumber)
      .range(1e-9, 1e12)
      .component("fleet")
      .training_only()
      .default_note("300")
      .doc("Seconds between the rebalancer's checks (while jobs wait and others run).");
  custom(keys, "fleet.rebalance.input_gb", KeyType::kNumber)
      .range(0.0, 1e12)
      .component("fleet")
      .training_only()
      .default_note("0")
      .doc(
          "What a job with no saved state (it never ran) moves over the link, GB: its input "
          "(0: only the link's latency).");
}

namespace {

std::string text_of(TableReader& reader, const std::string& key) {
  const auto value = reader.node(key)->value_exact<std::string>();
  if (!value) reader.fail(key, "expected a string");
  return *value;
}

// The tables of an array of tables ([[fleet.regions]]), each with its `name`, in file order
// (the order is the fleet's: routers break ties by it); `where` of each: "fleet.regions[i]".
struct Named {
  std::string name, where;
  const toml::table* table = nullptr;
};
std::vector<Named> named_tables(TableReader& fleet, const std::string& key,
                                const std::string& source) {
  std::vector<Named> named;
  const toml::node* node = fleet.node(key);
  if (!node) return named;
  const toml::array* array = node->as_array();
  if (!array) fleet.fail(key, "expected an array of tables ([[fleet." + key + "]])");
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string where = "fleet." + key + "[" + std::to_string(i) + "]";
    const toml::table* table = array->get(i)->as_table();
    if (!table)
      throw InputError(source, array->get(i)->source().begin.line, where, "expected a table");
    TableReader reader(table, where, source);
    if (!reader.has("name")) reader.fail("name", "missing");
    const auto name = table->get("name")->value_exact<std::string>();
    if (!name || name->empty()) reader.fail("name", "expected a non-empty string");
    for (const Named& before : named)
      if (before.name == *name) reader.fail("name", "'" + excerpt(*name) + "' twice");
    named.push_back({*name, where, table});
  }
  return named;
}

FleetRegionSpec parse_region(const Named& named, const std::string& source,
                             const std::string& base_dir) {
  TableReader reader(named.table, named.where, source);
  reader.node("name");
  FleetRegionSpec region;
  region.name = named.name;
  if (reader.has("utc_offset_h")) region.utc_offset_h = reader.number("utc_offset_h", -24, 24);
  if (reader.has("carbon_g_per_kwh"))
    region.carbon_g_per_kwh = reader.number("carbon_g_per_kwh", 0.0, 1e4);
  std::string column = "direct";
  if (reader.has("carbon_column")) {
    column = text_of(reader, "carbon_column");
    if (column != "direct" && column != "lca")
      reader.fail("carbon_column", "expected \"direct\" or \"lca\"");
  }
  if (reader.has("start_h")) region.carbon_start_h = reader.number("start_h", 0.0, 1e7);
  if (reader.has("carbon_trace")) {
    if (reader.present("carbon_g_per_kwh"))
      reader.fail("carbon_trace", "give carbon_trace or carbon_g_per_kwh, not both");
    region.carbon =
        read_carbon_trace(resolve_path(text_of(reader, "carbon_trace"), base_dir), column);
  } else {
    if (reader.present("carbon_column"))
      reader.fail("carbon_column", "cannot act: no carbon_trace");
    if (reader.present("start_h")) reader.fail("start_h", "cannot act: no carbon_trace");
  }
  reader.reject_unknown_keys();
  return region;
}

WanLinkSpec parse_link(const toml::table& table, const std::string& where,
                       const std::string& source) {
  TableReader reader(&table, where, source);
  WanLinkSpec link;
  for (const char* key : {"from", "to", "bandwidth_gbps"})
    if (!reader.has(key)) reader.fail(key, "missing");
  link.from = text_of(reader, "from");
  link.to = text_of(reader, "to");
  link.bandwidth_gbps = reader.number("bandwidth_gbps", 1e-9, 1e9);
  if (reader.has("latency_ms")) link.latency_ms = reader.number("latency_ms", 0.0, 1e9);
  reader.reject_unknown_keys();
  return link;
}

// The whole fleet as one cluster: every cluster's node groups, VC quotas summed by name. The
// config's checks and the workload's load (target_load) see it; each cluster runs on its own.
ClusterSpec whole_fleet(const FleetSpec& spec) {
  ClusterSpec all;
  for (const FleetClusterSpec& cluster : spec.clusters) {
    for (NodeGroupSpec group : cluster.cluster.groups) {
      group.name = cluster.name + "." + group.name;
      all.groups.push_back(std::move(group));
    }
    for (const VcSpec& vc : cluster.cluster.vcs) {
      auto at = std::find_if(all.vcs.begin(), all.vcs.end(),
                             [&](const VcSpec& have) { return have.name == vc.name; });
      if (at == all.vcs.end())
        all.vcs.push_back(vc);
      else
        at->gpu_quota += vc.gpu_quota;
    }
  }
  if (spec.clusters.size() == 1) all = spec.clusters.front().cluster;  // exactly today's
  return all;
}

}  // namespace

void parse_fleet(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  const toml::table* table = subtable(root, "fleet", source);
  if (const toml::node* cluster = root.get("cluster"))
    throw InputError(source, cluster->source().begin.line, "cluster",
                     "a fleet's clusters are [[fleet.clusters]] tables: no [cluster] with "
                     "[fleet]");
  TableReader reader(table, "fleet", source);
  parse.declare(reader, "fleet");
  auto fleet = std::make_shared<FleetConfig>();
  FleetSpec& spec = fleet->spec;
  if (reader.has("router")) spec.router = parse.text(reader, "fleet.router");
  if (reader.has("home_column")) {
    fleet->home_column = parse.text(reader, "fleet.home_column");
    fleet->home_column_set = true;
  }
  for (const Named& region : named_tables(reader, "regions", source))
    spec.regions.push_back(parse_region(region, source, parse.base_dir()));
  for (const Named& cluster : named_tables(reader, "clusters", source)) {
    TableReader cluster_reader(cluster.table, cluster.where, source);
    if (!cluster_reader.has("region")) cluster_reader.fail("region", "missing");
    FleetClusterSpec entry;
    entry.name = cluster.name;
    entry.region = text_of(cluster_reader, "region");
    if (std::none_of(spec.regions.begin(), spec.regions.end(),
                     [&](const FleetRegionSpec& r) { return r.name == entry.region; }))
      cluster_reader.fail("region", "unknown region '" + excerpt(entry.region) +
                                        "' (a [[fleet.regions]] table's name)");
    // A cluster's keys are [cluster]'s, read by their declarations (a fresh parse: one
    // cluster's values never decide another's conditions).
    ConfigParse cluster_parse(source, parse.base_dir(), parse.side_files());
    SimOptions cluster_sim;
    std::shared_ptr<const NodeList> node_list;
    parse_cluster_table(cluster_parse, *cluster.table, cluster.where, {"name", "region"},
                        cluster_sim, node_list);
    if (node_list)
      cluster_reader.fail("node_list", "not in a fleet yet (the placement study is one cluster)");
    entry.cluster = std::move(cluster_sim.cluster);
    spec.clusters.push_back(std::move(entry));
  }
  if (spec.clusters.empty())
    reader.fail("clusters", "a fleet needs at least one [[fleet.clusters]] table");
  if (const toml::node* links = reader.node("links")) {
    const toml::array* array = links->as_array();
    if (!array) reader.fail("links", "expected an array of tables ([[fleet.links]])");
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string where = "fleet.links[" + std::to_string(i) + "]";
      const toml::table* link = array->get(i)->as_table();
      if (!link)
        throw InputError(source, array->get(i)->source().begin.line, where, "expected a table");
      spec.links.push_back(parse_link(*link, where, source));
    }
  }
  if (const toml::table* rebalance = subtable(*table, "rebalance", source)) {
    reader.node("rebalance");
    TableReader rebalance_reader(rebalance, "fleet.rebalance", source);
    parse.declare(rebalance_reader, "fleet.rebalance");
    FleetRebalanceSpec& r = spec.rebalance;
    for (const auto& [key, value] : *rebalance) {
      (void)value;
      fleet->rebalance_keys.insert(std::string(key.str()));
    }
    const auto number = [&](const char* key, double& into) {
      const OptionValue value =
          parse.value(rebalance_reader, parse.decl(std::string("fleet.rebalance.") + key));
      if (const double* read = std::get_if<double>(&value)) into = *read;
      if (const std::int64_t* read = std::get_if<std::int64_t>(&value))
        into = static_cast<double>(*read);
    };
    const OptionValue enabled =
        parse.value(rebalance_reader, parse.decl("fleet.rebalance.enabled"));
    if (const bool* on = std::get_if<bool>(&enabled)) r.enabled = *on;
    number("threshold", r.threshold);
    number("interval_s", r.interval_s);
    number("input_gb", r.input_gb);
    rebalance_reader.reject_unknown_keys();
    fleet->rebalance_set = true;
  }
  reader.reject_unknown_keys();
  try {
    validate_fleet(spec);
  } catch (const std::invalid_argument& error) {
    // validate_fleet names the field first ("fleet.links.a-b.bandwidth_gbps: ...").
    const std::string message = error.what();
    const auto colon = message.find(": ");
    throw InputError(source, table->source().begin.line, message.substr(0, colon),
                     colon == std::string::npos ? message : message.substr(colon + 2));
  }
  config.sim.cluster = whole_fleet(spec);
  config.fleet = std::move(fleet);
}

void check_fleet_config(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  const std::string& source = parse.source();
  const auto line_of = [&](const char* table, const char* key) -> std::size_t {
    const toml::table* t = root[table].as_table();
    const toml::node* n = t ? t->get(key) : nullptr;
    return n ? n->source().begin.line : 0;
  };
  if (config.workload.window)
    throw InputError(source, config.workload.window_line, "workload.window",
                     "not with [fleet] yet: a fleet measures every job");
  if (const std::size_t line = line_of("metrics", "steady_state")) {
    if (config.workload.steady_state == SteadyStateMode::kAuto)
      throw InputError(source, line, "metrics.steady_state",
                       "\"auto\" is not with [fleet] yet: a fleet measures every job");
  }
  // The default ("auto") would plan a window on a generated workload: a fleet has none yet.
  config.workload.steady_state = SteadyStateMode::kOff;
  if (config.workload.placement_study())
    throw InputError(source, line_of("workload", "departures"), "workload.departures",
                     "\"none\" (the placement study) is not with [fleet]");
  if (config.workload.serving_catalog || !config.sim.serving.config.empty())
    throw InputError(source, 0, "fleet", "serving (DAG) workloads are not with [fleet] yet");
}

}  // namespace io_internal

bool fleet_router_reads_homes(const FleetSpec& spec) { return spec.router == "home"; }

FleetSpec fleet_for_workload(const FleetConfig& fleet, const Workload& workload) {
  FleetSpec spec = fleet.spec;
  if (!fleet_router_reads_homes(spec)) return spec;
  const bool by_user = fleet.home_column == "user";
  spec.homes.reserve(workload.jobs.size());
  for (const JobSpec& job : workload.jobs) {
    const std::string& home = by_user ? job.user : job.vc;
    if (!home.empty()) spec.homes.emplace(job.id, home);
  }
  return spec;
}

}  // namespace clustersim
