// The study's per-GPU ledger: what a node has left, the fit check, and the GPU choices the
// placements share (placement_study.h).
#include <algorithm>
#include <bit>
#include <string_view>

#include "clustersim/placement_study.h"

namespace clustersim {

StudyPod study_pod(const JobSpec& job) {
  StudyPod pod;
  pod.cpu_milli = static_cast<std::int64_t>(job.cpus * 1000.0 + 0.5);
  pod.memory_mib = static_cast<std::int64_t>(job.mem_gb * 1024.0 + 0.5);
  pod.num_gpus = job.num_gpus;
  pod.gpu_milli = job.num_gpus > 0 ? job.gpu_milli : 0;
  // The study annotates the GPU model of GPU pods only (its pod_csv_to_yaml.py).
  if (job.num_gpus > 0) pod.gpu_spec = job.gpu_spec.empty() ? job.gpu_type : job.gpu_spec;
  return pod;
}

std::int64_t StudyNode::gpu_milli_left_total() const {
  std::int64_t total = 0;
  for (const std::int64_t left : gpu_milli_left) total += left;
  return total;
}

int StudyNode::fully_free_gpus() const {
  return static_cast<int>(std::count(gpu_milli_left.begin(), gpu_milli_left.end(), 1000));
}

std::vector<StudyNode> study_nodes(const NodeList& list) {
  std::vector<StudyNode> nodes;
  nodes.reserve(list.nodes.size());
  for (const NodeListEntry& entry : list.nodes) {
    StudyNode node;
    node.cpu_milli_left = node.cpu_milli_capacity = entry.cpu_milli;
    node.memory_mib_left = entry.memory_mib;
    node.gpu_milli_left.assign(static_cast<std::size_t>(entry.gpus), 1000);
    node.model = entry.model;
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// As the study: an empty spec (or one of empty alternatives only) admits every node; otherwise
// the node's model must be one of the alternatives (a CPU node has no model: no match).
bool model_admits(const std::string& gpu_spec, const std::string& node_model) {
  if (gpu_spec.empty()) return true;
  if (node_model.empty()) return false;
  bool any_named = false;
  std::string_view rest = gpu_spec;
  while (true) {
    const std::size_t bar = rest.find('|');
    const std::string_view alternative = rest.substr(0, bar);
    if (!alternative.empty()) {
      any_named = true;
      if (alternative == node_model) return true;
    }
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return !any_named;
}

bool pod_fits(const StudyNode& node, const StudyPod& pod) {
  if (node.cpu_milli_left < pod.cpu_milli || node.memory_mib_left < pod.memory_mib) return false;
  if (pod.num_gpus == 0 || pod.gpu_milli <= 0) return true;
  if (node.gpu_milli_left.empty() || !model_admits(pod.gpu_spec, node.model)) return false;
  int usable = 0;
  for (const std::int64_t left : node.gpu_milli_left)
    if (left >= pod.gpu_milli) ++usable;
  return usable >= pod.num_gpus;
}

std::uint64_t best_fit_gpus(const StudyNode& node, const StudyPod& pod) {
  if (pod.num_gpus == 0) return 0;
  if (!pod.shares_a_gpu()) return first_free_gpus(node, pod);
  int best = -1;
  for (std::size_t i = 0; i < node.gpu_milli_left.size(); ++i) {
    const std::int64_t left = node.gpu_milli_left[i];
    if (left >= pod.gpu_milli && (best < 0 || left < node.gpu_milli_left[best]))
      best = static_cast<int>(i);
  }
  return best < 0 ? 0 : std::uint64_t{1} << best;
}

std::uint64_t first_free_gpus(const StudyNode& node, const StudyPod& pod) {
  std::uint64_t mask = 0;
  std::int64_t wanted = pod.total_gpu_milli();
  for (std::size_t i = 0; i < node.gpu_milli_left.size() && wanted > 0; ++i) {
    if (node.gpu_milli_left[i] == 1000) {
      mask |= std::uint64_t{1} << i;
      wanted -= 1000;
    }
  }
  return mask;
}

void place_on(StudyNode& node, const StudyPod& pod, std::uint64_t gpu_mask) {
  node.cpu_milli_left -= pod.cpu_milli;
  node.memory_mib_left -= pod.memory_mib;
  for (std::size_t i = 0; i < node.gpu_milli_left.size(); ++i)
    if (gpu_mask & (std::uint64_t{1} << i)) node.gpu_milli_left[i] -= pod.gpu_milli;
  if (pod.num_gpus == 0) return;
  const std::string kind =
      pod.shares_a_gpu() ? std::string("share") : std::to_string(pod.num_gpus) + "-gpu";
  for (auto& [name, count] : node.affinity)
    if (name == kind) {
      ++count;
      return;
    }
  node.affinity.emplace_back(kind, 1);
}

}  // namespace clustersim
