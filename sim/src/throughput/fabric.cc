#include "clustersim/fabric.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "clustersim/simulator.h"

namespace clustersim {

namespace {

// The uplinks' capacities once every node has its leaf and every leaf its pod.
void size_uplinks(FabricTopology& fabric, const std::vector<int>& node_gpus,
                  double leaf_oversubscription, double pod_oversubscription,
                  double gpu_bytes_per_s) {
  fabric.leaf_uplink.assign(fabric.pod_of_leaf.size(), 0.0);
  std::uint32_t pods = 0;
  for (std::uint32_t pod : fabric.pod_of_leaf) pods = std::max(pods, pod + 1);
  fabric.pod_uplink.assign(pods > 1 ? pods : 0, 0.0);  // one pod: no tier above it
  for (std::size_t node = 0; node < fabric.leaf_of.size(); ++node)
    fabric.leaf_uplink[fabric.leaf_of[node]] += node_gpus[node] * gpu_bytes_per_s;
  for (std::size_t leaf = 0; leaf < fabric.leaf_uplink.size(); ++leaf) {
    fabric.leaf_uplink[leaf] /= leaf_oversubscription;
    if (!fabric.pod_uplink.empty())
      fabric.pod_uplink[fabric.pod_of_leaf[leaf]] += fabric.leaf_uplink[leaf];
  }
  for (double& uplink : fabric.pod_uplink) uplink /= pod_oversubscription;
}

}  // namespace

FabricTopology generated_fabric(const std::vector<int>& node_gpus, int hosts_per_leaf,
                                int leaves_per_pod, double leaf_oversubscription,
                                double pod_oversubscription, double gpu_bytes_per_s) {
  if (hosts_per_leaf <= 0) throw std::invalid_argument("fabric.hosts_per_leaf: must be > 0");
  FabricTopology fabric;
  for (std::size_t node = 0; node < node_gpus.size(); ++node)
    fabric.leaf_of.push_back(static_cast<std::uint32_t>(node / hosts_per_leaf));
  const std::size_t leaves = (node_gpus.size() + hosts_per_leaf - 1) / hosts_per_leaf;
  for (std::size_t leaf = 0; leaf < leaves; ++leaf)
    fabric.pod_of_leaf.push_back(
        leaves_per_pod > 0 ? static_cast<std::uint32_t>(leaf / leaves_per_pod) : 0);
  size_uplinks(fabric, node_gpus, leaf_oversubscription, pod_oversubscription, gpu_bytes_per_s);
  return fabric;
}

FabricTopology mapped_fabric(const std::vector<SwitchRow>& rows, const std::vector<int>& node_gpus,
                             double leaf_oversubscription, double pod_oversubscription,
                             double gpu_bytes_per_s) {
  if (rows.size() < node_gpus.size())
    throw std::invalid_argument("fabric.topology: " + std::to_string(rows.size()) +
                                " hosts for a cluster of " + std::to_string(node_gpus.size()) +
                                " nodes (node i is the map's host i)");
  FabricTopology fabric;
  std::map<std::string, std::uint32_t> pods;
  std::map<std::pair<std::string, std::string>, std::uint32_t> leaves;  // a leaf is (pod, name)
  for (std::size_t node = 0; node < node_gpus.size(); ++node) {
    const std::uint32_t pod =
        pods.try_emplace(rows[node].pod, static_cast<std::uint32_t>(pods.size())).first->second;
    const auto [at, added] = leaves.try_emplace({rows[node].pod, rows[node].leaf},
                                                static_cast<std::uint32_t>(leaves.size()));
    if (added) fabric.pod_of_leaf.push_back(pod);
    fabric.leaf_of.push_back(at->second);
  }
  size_uplinks(fabric, node_gpus, leaf_oversubscription, pod_oversubscription, gpu_bytes_per_s);
  return fabric;
}

bool domains_span_nodes(const std::vector<int>& node_gpus, int scale_up_gpus) {
  return std::any_of(node_gpus.begin(), node_gpus.end(),
                     [&](int gpus) { return gpus < scale_up_gpus; });
}

std::string scale_up_domains(const std::vector<int>& node_gpus, const std::vector<int>& node_type,
                             int scale_up_gpus, std::vector<std::uint32_t>& domain_of) {
  domain_of.clear();
  std::uint32_t domains = 0;
  int filled = 0;              // GPUs of the open domain so far (0: none open)
  std::size_t first_node = 0;  // the open domain's first node
  const auto node_text = [](std::size_t node) { return "node " + std::to_string(node); };
  for (std::size_t node = 0; node < node_gpus.size(); ++node) {
    const int gpus = node_gpus[node];
    if (filled > 0 && (gpus != node_gpus[first_node] || node_type[node] != node_type[first_node]))
      return "a scale-up domain of " + std::to_string(scale_up_gpus) + " GPUs would join " +
             node_text(first_node) + " and " + node_text(node) +
             " of another GPU type or size: each node group must fill whole domains";
    if (filled == 0 && gpus >= scale_up_gpus) {  // a node is its own domain
      domain_of.push_back(domains++);
      continue;
    }
    if (scale_up_gpus % gpus != 0)
      return std::to_string(scale_up_gpus) + " is not a multiple of " + node_text(node) + "'s " +
             std::to_string(gpus) + " GPUs (a domain larger than a node spans whole nodes)";
    if (filled == 0) first_node = node;
    domain_of.push_back(domains);
    filled += gpus;
    if (filled == scale_up_gpus) {
      ++domains;
      filled = 0;
    }
  }
  if (filled > 0)
    return "nodes " + std::to_string(first_node) + "-" + std::to_string(node_gpus.size() - 1) +
           " hold " + std::to_string(filled) + " GPUs, not a whole domain of " +
           std::to_string(scale_up_gpus) + " (a node group's nodes must fill whole domains)";
  return "";
}

std::string domains_within_leaves(const std::vector<std::uint32_t>& domain_of,
                                  const std::vector<std::uint32_t>& leaf_of) {
  // Domains are runs of consecutive nodes: a run's nodes must share their first node's leaf.
  for (std::size_t node = 1; node < domain_of.size() && node < leaf_of.size(); ++node)
    if (domain_of[node] == domain_of[node - 1] && leaf_of[node] != leaf_of[node - 1])
      return "the scale-up domain of nodes " + std::to_string(node - 1) + " and " +
             std::to_string(node) + " spans two leaf switches: a domain must sit under one leaf " +
             "(hosts_per_leaf a multiple of a domain's nodes, or the map's hosts grouped so)";
  return "";
}

FabricTopology fabric_topology(const FabricOptions& options, const std::vector<int>& node_gpus) {
  const double gpu_bytes_per_s = options.scale_out_gbytes_per_s * 1e9;
  if (options.topology.empty())
    return generated_fabric(node_gpus, options.hosts_per_leaf, options.leaves_per_spine,
                            options.leaf_oversubscription, options.spine_oversubscription,
                            gpu_bytes_per_s);
  std::vector<SwitchRow> rows;
  for (std::size_t i = 0; i < options.topology_leaf.size(); ++i)
    rows.push_back({options.topology_leaf[i], options.topology_spine[i]});
  return mapped_fabric(rows, node_gpus, options.leaf_oversubscription,
                       options.spine_oversubscription, gpu_bytes_per_s);
}

}  // namespace clustersim
