// The run config's tables that are parsed by hand beside their declared keys (config_tables.cc):
// [cluster] (node groups, node list, VC quotas), [workload] (trace or generator, catalog,
// window), [throughput] (profiles, throughput table), [mechanisms] (scaling curves, failure
// trace, checkpoint sizes), [sharing] (pair table), and the tables made of declared keys only.
#pragma once

#include <toml++/toml.h>

#include <memory>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "io/internal/config_reader.h"

namespace clustersim::io_internal {

void parse_cluster(ConfigParse& parse, const toml::table& root, SimOptions& sim,
                   std::shared_ptr<const NodeList>& node_list);
// A table of [cluster]'s keys (the fleet's clusters: [fleet.clusters.NAME]) into sim.cluster;
// `where` names it in errors; `read_elsewhere`: keys of the table its caller reads.
void parse_cluster_table(ConfigParse& parse, const toml::table& table, const std::string& where,
                         const std::vector<std::string>& read_elsewhere, SimOptions& sim,
                         std::shared_ptr<const NodeList>& node_list);
// [fleet] (fleet_config.cc): the fleet's clusters, regions, links and router into config.fleet,
// and config.sim.cluster = every cluster's nodes (the workload's load reference).
void parse_fleet(ConfigParse& parse, const toml::table& root, RunConfig& config);
void declare_fleet_keys(KeyRegistry& keys);  // [fleet]'s, fleet_config.cc
// What a fleet cannot run yet, refused naming the key: a measurement window (the fleet measures
// every job: [metrics] steady_state defaults to "off" with [fleet]), the placement study, DAG
// and mixed serving workloads.
void check_fleet_config(ConfigParse& parse, const toml::table& root, RunConfig& config);
// `cluster`: its GPUs are the load's reference; a generator's `vc_quotas = "weights"` sets its
// VCs.
WorkloadSource parse_workload(ConfigParse& parse, const toml::table& root, ClusterSpec& cluster);
// A table made only of declared keys, each read into its field.
void parse_table(ConfigParse& parse, const toml::table& root, const std::string& section,
                 const Targets& targets);
void parse_throughput(ConfigParse& parse, const toml::table& root, RunConfig& config);
void parse_mechanisms(ConfigParse& parse, const toml::table& root, RunConfig& config);
// [mechanisms.failure_class.*] and failure_mix (config_failure_classes.cc), from parse_mechanisms.
void parse_failure_classes(ConfigParse& parse, TableReader& mechanisms, RunConfig& config);
void parse_sharing(ConfigParse& parse, const toml::table& root, RunConfig& config);
// [fabric], and its host-to-switch map (fabric.topology) read into topology_leaf/_spine.
void parse_fabric(ConfigParse& parse, const toml::table& root, RunConfig& config);
// A host-to-switch map's (leaf, spine) per row: columns PSW (spine group) and ASW (leaf; a leaf
// is the pair); `source` names the file in FILE:LINE: field: errors.
void read_switch_map(const std::string& text, const std::string& source, FabricOptions& fabric);
// [power] and [supply] (their traces read here: energy_traces.h).
void parse_power(ConfigParse& parse, const toml::table& root, RunConfig& config);

}  // namespace clustersim::io_internal
