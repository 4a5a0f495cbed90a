// The scale-out fabric of [fabric]: nodes under leaf switches (ToRs), leaves under spine groups
// (pods), each tier's uplinks with their capacity; generated as a Clos by parameters or read
// from a host-to-switch map (Alibaba Lingjun's topo.csv). The llm rate model shares its uplinks;
// the topology placement reads each node's leaf and spine group (sim/README.md, "LLM jobs").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim {

struct FabricOptions;

struct FabricTopology {
  std::vector<std::uint32_t> leaf_of;      // by node
  std::vector<std::uint32_t> pod_of_leaf;  // by leaf
  std::vector<double> leaf_uplink;         // bytes/s out of each leaf, by leaf
  std::vector<double> pod_uplink;          // bytes/s out of each pod, by pod
  std::size_t links() const { return leaf_uplink.size() + pod_uplink.size(); }
  std::uint32_t pod_link(std::uint32_t pod) const {
    return static_cast<std::uint32_t>(leaf_uplink.size()) + pod;
  }
};

// Node i's leaf and pod names (a host-to-switch map's rows, in node order).
struct SwitchRow {
  std::string leaf;
  std::string pod;
};

// Leaf uplinks carry the leaf's hosts' scale-out bandwidth (`node_gpus` x `gpu_bytes_per_s`
// each) over `leaf_oversubscription`; pod uplinks their leaves' uplinks over
// `pod_oversubscription`. Generated: nodes in order, `hosts_per_leaf` per leaf,
// `leaves_per_pod` per pod (0: one pod). Mapped: a row per node, in order (extra rows unused).
FabricTopology generated_fabric(const std::vector<int>& node_gpus, int hosts_per_leaf,
                                int leaves_per_pod, double leaf_oversubscription,
                                double pod_oversubscription, double gpu_bytes_per_s);
FabricTopology mapped_fabric(const std::vector<SwitchRow>& rows, const std::vector<int>& node_gpus,
                             double leaf_oversubscription, double pod_oversubscription,
                             double gpu_bytes_per_s);

// Scale-up (NVLink) domains by node. `scale_up_gpus` larger than a node's GPUs makes a domain
// of that many GPUs over consecutive nodes (cluster order) of one GPU type and size, e.g. 72 =
// 18 nodes of 4 GPUs (GB200 NVL72): it must be a multiple of those nodes' GPUs and the nodes must
// fill whole domains. Otherwise (0, or no more than a node's GPUs) a node is its own domain.
// Fills `domain_of` (by node) and returns "", or returns what is wrong (for a config's
// FILE:LINE: fabric.scale_up_gpus: message).
std::string scale_up_domains(const std::vector<int>& node_gpus, const std::vector<int>& node_type,
                             int scale_up_gpus, std::vector<std::uint32_t>& domain_of);
// True when some domain of `scale_up_gpus` spans several nodes (then scale_up_domains says which).
bool domains_span_nodes(const std::vector<int>& node_gpus, int scale_up_gpus);
// "" when each domain's nodes sit under one leaf (a domain's traffic then never loads an
// uplink), else what is wrong.
std::string domains_within_leaves(const std::vector<std::uint32_t>& domain_of,
                                  const std::vector<std::uint32_t>& leaf_of);

// The fabric `options` describe for nodes of `node_gpus` GPUs: their map when it names one
// (options.topology, read into topology_leaf / topology_spine), else the generated Clos; the
// uplinks sized with options.scale_out_gbytes_per_s per GPU.
FabricTopology fabric_topology(const FabricOptions& options, const std::vector<int>& node_gpus);

}  // namespace clustersim
