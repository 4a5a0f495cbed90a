// Which run modes a config's keys can act in (io/internal/config_run_modes.h).
#include "io/internal/config_run_modes.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/options.h"
#include "clustersim/placement.h"
#include "clustersim/placement_study.h"
#include "io/internal/config_reader.h"

namespace clustersim::io_internal {

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
void parse_mixed(RunConfig& config, const toml::table& root, SideFileCache* side_files) {
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
    serving = io_internal::load_run_config(config.sim.serving.config, side_files);
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
  if (!config.sim.mechanisms.availability_trace.empty())
    refuse("mechanisms.availability_trace",
           "cannot act in a mixed run yet (an unavailable node would take GPUs serving holds)");
  if (config.sim.mechanisms.has_failure_classes())
    refuse("mechanisms.failure_class", "cannot act in a mixed run yet (as node failures)");
  config.serving = std::make_shared<const RunConfig>(std::move(serving));
}

}  // namespace clustersim::io_internal
