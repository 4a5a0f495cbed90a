// The placement study (sim/README.md, "The placement study"): Alibaba's "openb" fragmentation
// experiment (Weng et al., "Beware of Fragmentation", ATC'23, FGD) as a mode of clustersim. No
// time and no departures: pods arrive one by one, each gets one placement attempt on a per-GPU
// ledger (GPU shares in thousandths, CPU and memory per node), and a pod that does not fit is
// dropped and counted. Placements are scored as in the study's simulator
// (hkust-adsl/kubernetes-scheduler-simulator): `fgd` and its baselines `best_fit`,
// `dot_product`, `gpu_packing`, `gpu_clustering`, `random_fit`; the best score wins, ties going to
// the node listed first.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/metrics.h"
#include "clustersim/random.h"

namespace clustersim {

// One node of an openb node list (`sn,cpu_milli,memory_mib,gpu,model`).
struct NodeListEntry {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // GPU model; empty for a CPU node
  std::size_t source_line = 0;
};
struct NodeList {
  std::string source;  // file name, for messages
  std::vector<NodeListEntry> nodes;
};
// Columns by header name; bad values are an InputError naming file, line and field.
NodeList read_openb_node_list(std::istream& in, const std::string& source_name);
NodeList read_openb_node_list(const std::string& path);

// A pod as the study's scores see it.
struct StudyPod {
  std::int64_t cpu_milli = 0;  // as requested (the fit check)
  std::int64_t memory_mib = 0;
  int num_gpus = 0;            // 0: a CPU-only pod
  std::int64_t gpu_milli = 0;  // share of each GPU, 1..1000 (0 for a CPU-only pod)
  std::string gpu_spec;        // '|'-separated models; empty = any
  int shape = -1;              // the run's id of its shape (pods of a shape score alike); -1 = none
  // The CPU the scores use: Kubernetes counts a pod requesting none as 100 millicores.
  std::int64_t score_cpu_milli() const { return cpu_milli > 0 ? cpu_milli : 100; }
  bool shares_a_gpu() const { return num_gpus == 1 && gpu_milli < 1000; }
  std::int64_t total_gpu_milli() const { return gpu_milli * num_gpus; }
};
StudyPod study_pod(const JobSpec& job);

// A node's free resources (the study's per-GPU ledger).
struct StudyNode {
  std::int64_t cpu_milli_left = 0;
  std::int64_t cpu_milli_capacity = 0;
  std::int64_t memory_mib_left = 0;
  std::vector<std::int64_t> gpu_milli_left;  // by GPU index
  std::string model;
  // Pods placed here by kind ("share", "1-gpu", "2-gpu", ...): gpu_clustering's affinity.
  std::vector<std::pair<std::string, int>> affinity;
  std::int64_t gpu_milli_left_total() const;
  int fully_free_gpus() const;
};
std::vector<StudyNode> study_nodes(const NodeList& list);

// Whether a pod's GPU spec admits a node's model (a CPU pod fits any node).
bool model_admits(const std::string& gpu_spec, const std::string& node_model);
// Kubernetes' filter as the study runs it: CPU, memory, GPU model and GPU shares.
bool pod_fits(const StudyNode& node, const StudyPod& pod);

// The workload's typical pods: the most frequent pod shapes (CPU, GPU share, GPU count, spec)
// covering 95% of the pods, CPU-only pods included, with their renormalised shares.
struct TypicalPod {
  StudyPod pod;
  double share = 0.0;
};
std::vector<TypicalPod> typical_pods(std::span<const StudyPod> pods);

// FGD's fragmentation of a node (GPU milli): for each typical pod, weighted by its share, the
// node's idle GPU milli that pod could not use (all of it when the pod does not fit at all; the
// GPUs with less than its share left when it fits).
double node_fragmentation(const StudyNode& node, std::span<const TypicalPod> typical);

// A placement of the study: scores every node that fits (higher is better) and chooses the GPUs
// on the node it is given.
class StudyPlacement {
 public:
  virtual ~StudyPlacement() = default;
  // Scores of the fitting nodes `candidates` (indices into `nodes`), written to `scores`.
  virtual void score(std::span<const StudyNode> nodes, std::span<const int> candidates,
                     const StudyPod& pod, std::vector<std::int64_t>& scores) = 0;
  // The GPUs (bit i = GPU i) the pod gets on `node`; 0 for a CPU-only pod.
  virtual std::uint64_t choose_gpus(const StudyNode& node, const StudyPod& pod) = 0;
  // A pod landed on node `node` (placements that remember scores per node forget its own).
  virtual void node_changed(int /*node*/) {}
};
struct StudyContext {
  std::span<const TypicalPod> typical;
  Rng* rng = nullptr;
};
std::unique_ptr<StudyPlacement> make_study_placement(const std::string& name,
                                                     const StudyContext& context);
std::vector<std::string> study_placement_names();
bool is_study_placement(const std::string& name);

// GPU choices shared by the placements: the tightest GPU that fits for a share (first on ties),
// the first fully free GPUs for whole GPUs.
std::uint64_t best_fit_gpus(const StudyNode& node, const StudyPod& pod);
std::uint64_t first_free_gpus(const StudyNode& node, const StudyPod& pod);
// Takes the pod's resources off the node.
void place_on(StudyNode& node, const StudyPod& pod, std::uint64_t gpu_mask);

// The experiment.
struct StudyOptions {
  std::string placement = "fgd";
  bool shuffle = false;     // arrivals shuffled by `seed` (else trace order)
  double inflate_to = 0.0;  // > 0: clone random pods until arrived GPU demand reaches this share
  std::uint64_t seed = 1;
};
// Places `jobs` (in order, after shuffling and inflation) on `nodes`. The result has one
// JobRecord per pod placed or not (clones after the trace's pods: their index is their position
// in the arrival sequence, and `workload_index` maps each to the job it copies), one Sample per
// arrival (time = arrived GPU demand / capacity) and the study's metrics.
struct StudyRun {
  RunResult result;
  std::vector<std::uint32_t> workload_index;  // arrival -> job of the workload
};
StudyRun run_placement_study(const NodeList& nodes, std::span<const JobSpec> jobs,
                             const StudyOptions& options);

}  // namespace clustersim
