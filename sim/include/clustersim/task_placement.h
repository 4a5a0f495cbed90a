// Task placement for serving DAG workloads: where each ready task of a query runs.
//
// The engine keeps the serving state and hands policies a read-only view of it (ServingView);
// a policy returns a GPU for a ready task. Policies are pure: the same view gives the same
// choice (round_robin keeps a cursor, advanced once per call). No I/O, no allocation per call
// except where noted.
//
// Execution model the estimates follow (and the engine is to apply; see sim/README.md,
// "Serving (DAG) workloads — integration"): a task placed on GPU g at time `now` has its inputs
// sent at once, each parent's output over the network from the parent's node to g's node in
// parallel (nothing when they share a node); g serves its queue in order; when the task reaches
// the head (at max(now, free_at)) its model is loaded if it is not resident, then it computes
// once its inputs are there too:
//
//   head          = max(now, gpu.free_at)
//   inputs_ready  = now + max over parents of transfer_time_s(output_mb, parent node, g's node)
//   load          = model resident on g ? 0 : load_time_s(footprint_gb, gpu.h2d_gbps)
//   finish        = max(head + load, inputs_ready) + compute_s
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

// ---- Exact arithmetic ----------------------------------------------------------------------

// Seconds to move `mb` megabytes (1e6 bytes) over a `gbps` gigabit/s (1e9 bits/s) link with a
// fixed `latency_us`: mb * 8e6 / (gbps * 1e9) + latency_us * 1e-6. 0 when both ends are on the
// same node (collocated parents cost nothing), and 0 for 0 MB.
double transfer_time_s(double mb, double gbps, double latency_us, bool same_node);
// Seconds to load a model of `footprint_gb` (1e9 bytes) at `h2d_gbps` GB/s: footprint / h2d.
double load_time_s(double footprint_gb, double h2d_gbps);

// ---- The view ------------------------------------------------------------------------------

struct ResidentModel {
  int model = -1;        // catalog index
  double size_gb = 0.0;  // its footprint
};

struct GpuView {
  int node = 0;                             // index into ServingView::nodes
  double mem_gb = 0.0;                      // capacity
  double h2d_gbps = 0.0;                    // host-to-device bandwidth, GB/s
  std::span<const ResidentModel> resident;  // LRU order: least recently used first
  double free_at = 0.0;                     // when its queued and running work ends
  int queued_tasks = 0;                     // tasks placed on it and not finished
};

struct NodeView {
  double net_gbps = 0.0;        // NIC bandwidth, Gb/s
  double net_latency_us = 0.0;  // per-transfer fixed cost, us
};

// One parent of a ready task: where it ran and what it hands over.
struct ParentOutput {
  int gpu = -1;
  double output_mb = 0.0;
};

struct ReadyTask {
  std::uint32_t task = 0;   // index in the workload
  std::uint32_t query = 0;  // index in DagInfo's queries
  int model = -1;           // catalog index
  double compute_s = 0.0;   // at rate 1
  double input_mb = 0.0;
  double output_mb = 0.0;
  std::span<const ParentOutput> parents;
  int planned_gpu = -1;  // set by TaskPlacementPolicy::plan_query, else -1
};

struct ServingView {
  double now = 0.0;
  std::span<const GpuView> gpus;
  std::span<const NodeView> nodes;
  std::span<const double> model_footprint_gb;  // by catalog index
};

// Transfer between two GPUs' nodes: the slower NIC's bandwidth, the larger latency.
double transfer_between_s(const ServingView& view, int from_gpu, int to_gpu, double mb);
bool is_resident(const GpuView& gpu, int model);
// Whether `model` fits in GPU `gpu`'s memory at all (with the cache's one-byte slack). On a
// cluster of several GPU types a policy only places a task where its model fits; the workload
// check (check_models_fit) guarantees that some GPU does.
bool model_fits(const ServingView& view, int gpu, int model);
double resident_gb(const GpuView& gpu);

// The execution model above, term by term.
struct FinishEstimate {
  double queue_wait_s = 0.0;  // head - now
  double load_s = 0.0;        // 0 when resident
  double transfer_s = 0.0;    // slowest parent's transfer
  double compute_s = 0.0;
  double finish = 0.0;  // absolute time
};
FinishEstimate estimate_finish(const ServingView& view, const ReadyTask& task, int gpu);

// ---- Policies ------------------------------------------------------------------------------

// A query's tasks as a planner sees them (indices are local to the query: 0 .. size-1, parents
// before children).
struct QueryPlanInput {
  std::span<const int> model;
  std::span<const double> compute_s;
  std::span<const double> output_mb;
  std::span<const std::uint32_t> parent_begin;  // size tasks + 1
  std::span<const std::uint32_t> parents;       // local indices
};

class TaskPlacementPolicy {
 public:
  virtual ~TaskPlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // Called once when a query arrives, before any of its tasks is ready: may write a planned GPU
  // per task into `planned_gpu` (size = tasks; -1 = no plan). The default plans nothing.
  virtual void plan_query(const ServingView& view, const QueryPlanInput& query,
                          std::span<int> planned_gpu);
  // The GPU (index into view.gpus) the ready task runs on. view.gpus is never empty.
  virtual int place(const ServingView& view, const ReadyTask& task) = 0;
};

// Upward ranks (HEFT): rank(t) = compute_s(t) + max over children c of (transfer of t's output
// at the cluster's mean NIC bandwidth and latency + rank(c)). Higher first is a valid
// topological order; the engine uses it to order tasks that become ready at one instant.
std::vector<double> upward_ranks(const ServingView& view, const QueryPlanInput& query);

// Parameters of the `compass` policy (Yang et al., arXiv:2402.17652; see compass_placement.cc).
struct CompassOptions {
  double reschedule_threshold = 1.5;  // a planned GPU is kept while its wait <= this x compute
  bool keep_join_plans = false;  // the study's rule: a task with several parents keeps its plan
};

// By name: "compass", "round_robin", "least_loaded", "model_affinity", "heft" (their
// descriptors, component.h: ComponentKind::kTaskPlacement, and any registered ones).
std::unique_ptr<TaskPlacementPolicy> make_task_placement(const std::string& name,
                                                         const CompassOptions& compass = {});
std::vector<std::string> task_placement_names();

}  // namespace clustersim
