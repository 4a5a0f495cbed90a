// [mechanisms.failure_class.CAUSE] tables and [mechanisms] failure_mix (failure_mix.h): parsed by
// hand beside the declared keys, into MechanismOptions::failure_classes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "clustersim/failure_mix.h"
#include "io/internal/config_tables.h"

namespace clustersim::io_internal {

namespace {

std::optional<FailureCause> cause_named(std::string_view name) {
  for (int c = 0; c < kFailureCauses; ++c)
    if (failure_cause_name(static_cast<FailureCause>(c)) == name)
      return static_cast<FailureCause>(c);
  return std::nullopt;
}

std::string text_of(TableReader& reader, const std::string& key) {
  const toml::node* node = reader.node(key);
  const auto value = node->value<std::string>();
  if (!value) reader.fail(key, "expected a string");
  return *value;
}

// The exposure's nodes under a leaf switch, as in the cluster: [fabric]'s hosts_per_leaf, or its
// map's hosts over the leaves the cluster's nodes are under; else a rack's nodes (read before
// [fabric] is parsed, hence from the options as they stand: see config.cc's order).
double nodes_per_leaf(const FabricOptions& fabric, const ClusterSpec& cluster) {
  if (fabric.hosts_per_leaf > 0) return fabric.hosts_per_leaf;
  const auto nodes =
      std::min(static_cast<std::size_t>(cluster.total_nodes()), fabric.topology_leaf.size());
  if (!fabric.topology.empty() && nodes > 0) {
    std::vector<std::string> leaves(fabric.topology_leaf.begin(),
                                    fabric.topology_leaf.begin() + static_cast<long>(nodes));
    std::sort(leaves.begin(), leaves.end());
    const auto distinct = std::unique(leaves.begin(), leaves.end()) - leaves.begin();
    return static_cast<double>(nodes) / static_cast<double>(distinct);
  }
  return cluster.nodes_per_rack;
}

}  // namespace

void parse_failure_classes(ConfigParse& parse, TableReader& mechanisms, RunConfig& config) {
  const std::string& source = parse.source();
  MechanismOptions& m = config.sim.mechanisms;
  if (const toml::node* classes = mechanisms.node("failure_class")) {
    const toml::table* table = classes->as_table();
    if (!table)
      mechanisms.fail("failure_class", "expected tables [mechanisms.failure_class.CAUSE]");
    for (const auto& [name, value] : *table) {
      const std::string cause_text(name.str());
      const std::string section = "mechanisms.failure_class." + cause_text;
      const toml::table* fields = value.as_table();
      if (!fields) throw InputError(source, value.source().begin.line, section, "expected a table");
      TableReader reader(fields, section, source);
      const auto cause = cause_named(cause_text);
      if (!cause)
        throw InputError(source, value.source().begin.line, section,
                         "unknown cause (gpu, gpu_memory, nic, host, switch, power, software, "
                         "maintenance)");
      FailureClass spec;
      spec.cause = *cause;
      spec.unit = default_failure_unit(*cause);
      if (reader.has("unit")) {
        const std::string unit = text_of(reader, "unit");
        bool known = false;
        for (FailureUnit u : {FailureUnit::kGpu, FailureUnit::kNode, FailureUnit::kRack,
                              FailureUnit::kJobHour, FailureUnit::kLeaf})
          if (failure_unit_name(u) == unit) {
            spec.unit = u;
            known = true;
          }
        if (!known) reader.fail("unit", "expected gpu, node, rack, leaf or job_hour");
      }
      if (reader.has("rate_per_h")) spec.rate_per_h = reader.number("rate_per_h", 0.0, 1e9);
      if (reader.has("shape")) spec.shape = reader.number("shape", 1e-3, 1e3);
      spec.repair_h = spec.unit == FailureUnit::kJobHour ? 0.0 : m.repair_h;
      if (reader.has("repair_h")) spec.repair_h = reader.number("repair_h", 0.0, 1e9);
      if (reader.has("repair")) {
        const std::string model = text_of(reader, "repair");
        if (model != "constant" && model != "exponential")
          reader.fail("repair", "expected \"constant\" or \"exponential\"");
        spec.repair_exponential = model == "exponential";
      }
      if (spec.unit == FailureUnit::kJobHour && spec.shape != 1.0)
        reader.fail("shape", "a job_hour class is exponential (shape 1)");
      reader.reject_unknown_keys();
      m.failure_classes.push_back(spec);
    }
  }
  if (mechanisms.has("failure_mix")) {
    const std::string path =
        resolve_path(parse.text(mechanisms, "mechanisms.failure_mix"), parse.base_dir());
    if (!(m.failure_mix_days > 0.0))
      mechanisms.fail("failure_mix", "needs failure_mix_days > 0 (the days its counts cover)");
    const ClusterSpec& cluster = config.sim.cluster;
    FailureExposure exposure;
    exposure.days = m.failure_mix_days;
    exposure.gpus = m.failure_mix_gpus > 0.0 ? m.failure_mix_gpus : cluster.total_gpus();
    exposure.gpus_per_node = cluster.groups.empty() ? 8 : cluster.groups.front().gpus_per_node;
    exposure.nodes_per_rack = cluster.nodes_per_rack;
    exposure.nodes_per_leaf = nodes_per_leaf(config.sim.fabric, cluster);
    apply_failure_mix(load_failure_mix(path), exposure, m.repair_h, m.failure_classes);
  }
}

}  // namespace clustersim::io_internal
