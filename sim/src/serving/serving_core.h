// The serving engine's state and its verbs (serving.h gives the execution model), without a clock.
//
// The training engine's clock drives it: the serving side is a mechanism of a Simulation
// (mixed_serving.cc), whose timers call these verbs at each instant, in one order (task
// finishes, then query arrivals, then place_ready and start_idle_gpus):
//   - a DAG run (simulate_serving, a DAG config's Simulation): every GPU is in its pool from
//     the first query to the last finish;
//   - a mixed run: beside training, serving uses only the GPUs of its pool (in_pool), which it
//     claims from the training engine's ledger, and may grow the pool before each task is
//     placed (PlaceHook).
// Like the training engine, it *applies* and policies *decide*: the placement policy picks each
// ready task's GPU (the engine checks the pick), the cache policy what stays in GPU memory.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "clustersim/dag.h"
#include "clustersim/model_cache.h"
#include "clustersim/serving.h"
#include "clustersim/task_placement.h"

namespace clustersim::serving_internal {

inline constexpr std::uint32_t kNone = ~std::uint32_t{0};

// Where a started task's finish goes: the driver's clock calls finish(task, time) then.
class FinishClock {
 public:
  virtual ~FinishClock() = default;
  virtual void schedule_finish(std::uint32_t task, Time time) = 0;
};

// Called before each ready task is placed (mixed runs): the hook may change the pool (claim a
// GPU, preempt training for one) so that the placement sees it.
class PlaceHook {
 public:
  virtual ~PlaceHook() = default;
  virtual void before_place(const ReadyTask& task) = 0;
};

class ServingCore {
 public:
  // Every GPU starts in the pool; a mixed run takes those not in its base pool out first.
  ServingCore(const SimOptions& options, const Workload& workload, const ServingSetup& setup,
              FinishClock& clock);

  // The verbs of one instant.
  void arrive(std::uint32_t query, Time now);
  void finish(std::uint32_t task, Time now);
  void place_ready(Time now);
  void start_idle_gpus(Time now);

  // The pool (mixed runs). A GPU out of the pool shows no memory (no model fits it, so no policy
  // picks it) and loses its resident models; a GPU in the pool but not `usable` (its GPUs are
  // still being freed by a preempted training job) takes tasks but starts none until usable, and
  // shows `free_at` as when it will be.
  void set_pool(std::uint32_t gpu, bool in_pool, bool usable, Time free_at);
  void set_place_hook(PlaceHook* hook) { hook_ = hook; }
  bool in_pool(std::uint32_t gpu) const { return gpu_view_[gpu].mem_gb >= 0.0; }
  bool usable(std::uint32_t gpu) const { return usable_[gpu] != 0; }
  // No task running or queued on it.
  bool idle(std::uint32_t gpu) const { return running_[gpu] == kNone && queue_head_[gpu] == kNone; }
  std::size_t gpu_count() const { return gpu_view_.size(); }
  int node_of(std::uint32_t gpu) const { return gpu_view_[gpu].node; }
  double capacity_gb(std::uint32_t gpu) const { return capacity_gb_[gpu]; }
  double footprint_gb(int model) const {
    return setup_.model_footprint_gb[static_cast<std::size_t>(model)];
  }
  const ServingView& view() const { return view_; }
  // Models of the tasks, in workload order.
  const std::vector<int>& task_models() const { return setup_.task_model; }
  const DagInfo& dag() const { return dag_; }

  // The serving records and metrics (serving.h, simulate_serving's RunResult; no events).
  RunResult collect() const;

 private:
  void check_inputs() const;
  void build_cluster();
  void build_tasks();
  QueryPlanInput query_input(std::size_t query) const;
  void start_head(std::uint32_t gpu, Time now);

  const SimOptions& options_;
  const std::vector<JobSpec>& jobs_;
  const DagInfo& dag_;
  const ServingSetup& setup_;
  FinishClock& clock_;
  PlaceHook* hook_ = nullptr;
  std::unique_ptr<TaskPlacementPolicy> placement_;
  std::unique_ptr<ModelCachePolicy> cache_policy_;

  // Cluster: per GPU (node order, then GPU order within the node) and per node.
  std::vector<GpuView> gpu_view_;
  std::vector<NodeView> node_view_;
  std::vector<ModelCache> caches_;
  std::vector<double> capacity_gb_;
  std::vector<std::uint8_t> usable_;
  std::vector<std::uint32_t> running_;     // task on the GPU now, or kNone
  std::vector<std::uint32_t> queue_head_;  // first queued (not started) task, or kNone
  std::vector<std::uint32_t> queue_tail_;
  std::vector<std::uint8_t> start_pending_;  // in to_start_ already
  std::vector<std::uint32_t> to_start_;      // GPUs that may start a task this instant
  ServingView view_;

  // Tasks (workload order).
  DagChildren children_;
  std::vector<std::uint32_t> local_parents_;  // DagInfo::parents, local to each query
  std::vector<double> compute_s_;             // jobs_[t].duration
  std::vector<double> rank_;                  // upward rank (fixed: placement-independent)
  std::vector<std::uint32_t> unfinished_parents_;
  std::vector<std::uint32_t> next_in_queue_;
  std::vector<int> planned_gpu_;
  std::vector<double> inputs_ready_;
  std::vector<TaskRecord> tasks_;
  std::vector<std::uint32_t> unfinished_tasks_;  // per query
  std::vector<QueryRecord> queries_;

  // Per instant scratch (reused).
  std::vector<std::uint32_t> ready_;
  std::vector<ParentOutput> parent_outputs_;
  std::vector<int> upcoming_models_;
  std::vector<int> evicted_;

  std::uint64_t loads_ = 0, hits_ = 0, evictions_ = 0;
  double bytes_moved_ = 0.0;
};

}  // namespace clustersim::serving_internal
