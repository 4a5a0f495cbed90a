// compass: the task placement of the Compass study (Yang, Merlina, Song, Yuan, Birman,
// Vitenberg, "Compass: A Decentralized Scheduler for Latency-Sensitive ML Workflows",
// arXiv:2402.17652, 2024): "placing tasks where data dependencies will be satisfied,
// collocating tasks from the same job (when this will not overload the host or its GPU)". Its
// rule, as the authors' public simulator implements it (nav_heft_job_plan and
// nav_heft_task_adjustment), in two phases:
//
// 1. Planning, when a query arrives (plan_query): HEFT over the query's DAG. Tasks in
//    decreasing upward rank; each goes to the GPU where it can start earliest, given what the
//    plan has put there so far:
//      start(g) = max(available(g), inputs(g)) + fetch(g)
//    available(g) starts at max(now, free_at, the end of earlier queries' plans on g) and becomes
//    the finish of each task planned on g;
//    inputs(g) = max over parents of (the parent's planned finish + its output's transfer to g,
//    0 on the parent's node); fetch(g) = 0 when the model is resident on g (or planned onto g
//    by this plan), else its load time, doubled when it does not fit in g's free memory (the
//    study's charge for the eviction). Ties: the lowest GPU index. Collocation comes from the
//    zero transfer on a parent's node: a child joins its parent unless that GPU's queue or
//    memory makes another start earlier.
// 2. Adjustment, when a task becomes ready (place): the planned GPU is kept if the task joins
//    several parents (the study's rule; here only with keep_join_plans), or if the GPU's wait
//    max(0, free_at - now) is at most reschedule_threshold (1.5 in the study) x the task's
//    compute time. Otherwise the worker is
//    overloaded and the task goes to the GPU with the earliest
//      now + wait(g) + transfer of its inputs to g + fetch(g)      (fetch as above).
//    A task without a plan is placed by this rule directly.
//
// Differences from the study's simulator, on purpose: its workers are one GPU per server; here
// transfers are free between GPUs of one node. It charges a query's input its transfer from the
// worker that received the query; here the query's input is where its first task runs. Its plan
// forgets models it has planned to load (and subtracts their size from a variable that holds
// used memory); here a planned load makes the model count as resident for the rest of the plan
// and its size as used. Its plan sees only what is queued on each worker; here a plan also
// starts after the work earlier plans put on each GPU (planned_until_), or every query would
// plan onto the same idle GPUs. And a join is rescheduled like any task unless keep_join_plans:
// on the study's pipelines (sweep/examples/compass) a 0.2 ms aggregate otherwise waited up to
// 0.8 s behind other queries' tasks on its planned GPU (p99 latency on 16 servers, 4 queries/s:
// 1.89 s with the study's rule, 1.53 s without).
#include <algorithm>
#include <limits>
#include <vector>

#include "serving/factories.h"

namespace clustersim::serving_internal {

namespace {

class Compass final : public TaskPlacementPolicy {
 public:
  explicit Compass(const CompassOptions& options) : options_(options) {}

  std::string_view name() const override { return "compass"; }

  void plan_query(const ServingView& view, const QueryPlanInput& query,
                  std::span<int> planned_gpu) override {
    const std::size_t n = query.compute_s.size();
    const std::size_t gpus = view.gpus.size();
    const std::vector<double> rank = upward_ranks(view, query);
    order_.resize(n);
    for (std::size_t k = 0; k < n; ++k) order_[k] = k;
    // Higher rank first; a parent's rank exceeds its child's (compute > 0), so this order is
    // topological. Ties keep the DAG's order.
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return rank[a] > rank[b]; });
    available_.resize(gpus);
    used_gb_.resize(gpus);
    planned_until_.resize(gpus, 0.0);
    for (std::size_t g = 0; g < gpus; ++g) {
      available_[g] = std::max({view.now, view.gpus[g].free_at, planned_until_[g]});
      used_gb_[g] = resident_gb(view.gpus[g]);
    }
    planned_loads_.clear();
    finish_.assign(n, 0.0);
    for (const std::size_t k : order_) {
      const int model = query.model[k];
      const double size = view.model_footprint_gb[static_cast<std::size_t>(model)];
      int best = 0;
      double best_start = std::numeric_limits<double>::infinity();
      bool best_fetches = false;
      for (std::size_t g = 0; g < gpus; ++g) {
        if (!model_fits(view, static_cast<int>(g), model)) continue;
        double inputs = 0.0;
        for (std::uint32_t i = query.parent_begin[k]; i < query.parent_begin[k + 1]; ++i) {
          const std::uint32_t p = query.parents[i];
          inputs = std::max(
              inputs, finish_[p] + transfer_between_s(view, planned_gpu[p], static_cast<int>(g),
                                                      query.output_mb[p]));
        }
        const bool fetches = size > 0.0 && !is_resident(view.gpus[g], model) &&
                             !planned_load(static_cast<int>(g), model);
        const double start = std::max(available_[g], inputs) +
                             (fetches ? fetch_s(view.gpus[g], used_gb_[g], size) : 0.0);
        if (start < best_start) {
          best = static_cast<int>(g);
          best_start = start;
          best_fetches = fetches;
        }
      }
      planned_gpu[k] = best;
      finish_[k] = best_start + query.compute_s[k];
      available_[static_cast<std::size_t>(best)] = finish_[k];
      if (best_fetches) {
        used_gb_[static_cast<std::size_t>(best)] += size;
        planned_loads_.push_back({best, model});
      }
    }
    // Later plans start after this one's work on each GPU (a GPU's free_at only counts tasks
    // already placed, not those planned and not ready yet).
    for (std::size_t g = 0; g < gpus; ++g)
      planned_until_[g] = std::max(planned_until_[g], available_[g]);
  }

  int place(const ServingView& view, const ReadyTask& task) override {
    if (task.planned_gpu >= 0) {
      const double wait =
          std::max(0.0, view.gpus[static_cast<std::size_t>(task.planned_gpu)].free_at - view.now);
      if ((options_.keep_join_plans && task.parents.size() > 1) ||
          wait <= options_.reschedule_threshold * task.compute_s)
        return task.planned_gpu;
    }
    const double size = view.model_footprint_gb[static_cast<std::size_t>(task.model)];
    int best = 0;
    double best_start = std::numeric_limits<double>::infinity();
    for (std::size_t g = 0; g < view.gpus.size(); ++g) {
      if (!model_fits(view, static_cast<int>(g), task.model)) continue;
      const GpuView& gpu = view.gpus[g];
      double start = view.now + std::max(0.0, gpu.free_at - view.now);
      double transfer = 0.0;
      for (const ParentOutput& p : task.parents)
        transfer =
            std::max(transfer, transfer_between_s(view, p.gpu, static_cast<int>(g), p.output_mb));
      start += transfer;
      if (size > 0.0 && !is_resident(gpu, task.model))
        start += fetch_s(gpu, resident_gb(gpu), size);
      if (start < best_start) {
        best = static_cast<int>(g);
        best_start = start;
      }
    }
    return best;
  }

 private:
  struct PlannedLoad {
    int gpu;
    int model;
  };

  // The study's estimate of a model fetch: its load time, twice that when room must be made.
  static double fetch_s(const GpuView& gpu, double used_gb, double size_gb) {
    const double load = load_time_s(size_gb, gpu.h2d_gbps);
    return used_gb + size_gb > gpu.mem_gb ? 2.0 * load : load;
  }

  bool planned_load(int gpu, int model) const {
    for (const PlannedLoad& load : planned_loads_)
      if (load.gpu == gpu && load.model == model) return true;
    return false;
  }

  CompassOptions options_;
  // Scratch, reused across queries.
  std::vector<std::size_t> order_;
  std::vector<double> available_;
  std::vector<double> used_gb_;
  std::vector<double> finish_;
  std::vector<PlannedLoad> planned_loads_;
  std::vector<double> planned_until_;  // per GPU: the end of the work planned onto it so far
};

}  // namespace

std::unique_ptr<TaskPlacementPolicy> make_compass_placement(const CompassOptions& options) {
  return std::make_unique<Compass>(options);
}

}  // namespace clustersim::serving_internal
