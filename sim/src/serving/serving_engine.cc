// The serving engine: queries' tasks as events (serving.h gives the execution model). Its state
// and verbs are ServingCore (serving_core.h); the training engine's clock drives them, the
// serving side being a mechanism of a Simulation (mixed_serving.cc), alone on the cluster
// (simulate_serving, here; a DAG config's Simulation) or beside training (a mixed config).
//
// Like the training engine, it *applies* and policies *decide*: at each instant the engine
// gathers the tasks that became ready, asks the placement policy for each one's GPU (a plan of
// task -> GPU entries, checked before it is applied), enqueues them, and starts the GPUs that
// are idle with work queued. Completions are computed when a task starts (its finish is known
// then: nothing preempts a serving task), so no event is ever stale.
//
// The view policies read (ServingView) lives in arrays the engine updates in place: a GPU's
// `resident` span is re-pointed after every cache change, its `free_at` and `queued_tasks` on
// every placement and finish. Deciding allocates nothing per task after warm-up.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/simulation.h"
#include "metrics/summary_stats.h"
#include "serving/serving_core.h"

namespace clustersim {

namespace serving_internal {

ServingCore::ServingCore(const SimOptions& options, const Workload& workload,
                         const ServingSetup& setup, FinishClock& clock)
    : options_(options), jobs_(workload.jobs), dag_(*workload.dag), setup_(setup), clock_(clock) {
  check_inputs();
  CompassOptions compass;
  compass.reschedule_threshold = options.serving.reschedule_threshold;
  compass.keep_join_plans = options.serving.compass_keep_joins;
  placement_ = make_task_placement(options.serving.task_placement, compass);
  cache_policy_ = make_cache_policy(options.serving.cache, options.serving.cache_lookahead);
  build_cluster();
  build_tasks();
}

void ServingCore::check_inputs() const {
  if (dag_.task_count() != jobs_.size())
    throw std::invalid_argument("simulate_serving: the DAG does not match the jobs");
  if (setup_.task_model.size() != jobs_.size())
    throw std::invalid_argument("simulate_serving: setup.task_model needs one model per task");
  for (const int model : setup_.task_model)
    if (model < 0 || static_cast<std::size_t>(model) >= setup_.model_footprint_gb.size())
      throw std::invalid_argument("simulate_serving: a task's model is not in the setup");
  for (const double footprint : setup_.model_footprint_gb)
    if (!(footprint >= 0.0) || !std::isfinite(footprint))
      throw std::invalid_argument("simulate_serving: model footprints must be finite, >= 0");
  if (setup_.groups.size() != options_.cluster.groups.size())
    throw std::invalid_argument("simulate_serving: setup.groups needs one entry per node group");
  for (const ServingSetup::Group& g : setup_.groups)
    if (!(g.gpu_mem_gb > 0.0) || !(g.h2d_gbps > 0.0) || !(g.net_gbps > 0.0) ||
        !(g.net_latency_us >= 0.0))
      throw std::invalid_argument(
          "simulate_serving: each group needs gpu_mem_gb, h2d_gbps, net_gbps > 0 and "
          "net_latency_us >= 0");
  if (options_.window)
    throw std::invalid_argument("simulate_serving: a measurement window is not supported");
  if (!(options_.serving.query_slo_s >= 0.0))
    throw std::invalid_argument("simulate_serving: query_slo_s must be >= 0");
  if (options_.serving.cache_lookahead < 0)
    throw std::invalid_argument("simulate_serving: cache_lookahead must be >= 0");
}

void ServingCore::build_cluster() {
  for (std::size_t gi = 0; gi < options_.cluster.groups.size(); ++gi) {
    const NodeGroupSpec& group = options_.cluster.groups[gi];
    const ServingSetup::Group& defaults = setup_.groups[gi];
    for (int n = 0; n < group.nodes; ++n) {
      const int node = static_cast<int>(node_view_.size());
      node_view_.push_back({defaults.net_gbps, defaults.net_latency_us});
      for (int k = 0; k < group.gpus_per_node; ++k) {
        GpuView gpu;
        gpu.node = node;
        gpu.mem_gb = defaults.gpu_mem_gb;
        gpu.h2d_gbps = defaults.h2d_gbps;
        gpu_view_.push_back(gpu);
        caches_.emplace_back(defaults.gpu_mem_gb);
        capacity_gb_.push_back(defaults.gpu_mem_gb);
      }
    }
  }
  if (gpu_view_.empty()) throw std::invalid_argument("simulate_serving: the cluster has no GPUs");
  const std::size_t gpus = gpu_view_.size();
  usable_.assign(gpus, 1);
  running_.assign(gpus, kNone);
  queue_head_.assign(gpus, kNone);
  queue_tail_.assign(gpus, kNone);
  start_pending_.assign(gpus, 0);
  to_start_.reserve(gpus);
  view_.gpus = gpu_view_;
  view_.nodes = node_view_;
  view_.model_footprint_gb = setup_.model_footprint_gb;
}

void ServingCore::build_tasks() {
  const std::size_t n = jobs_.size();
  children_ = dag_children(dag_);
  compute_s_.resize(n);
  for (std::size_t t = 0; t < n; ++t) compute_s_[t] = jobs_[t].duration;
  local_parents_.resize(dag_.parents.size());
  unfinished_parents_.resize(n);
  for (std::size_t t = 0; t < n; ++t) {
    const std::uint32_t first = dag_.task_begin[dag_.query_of[t]];
    for (std::uint32_t i = dag_.parent_begin[t]; i < dag_.parent_begin[t + 1]; ++i)
      local_parents_[i] = dag_.parents[i] - first;
    unfinished_parents_[t] = dag_.parent_count(static_cast<std::uint32_t>(t));
  }
  // Upward ranks depend only on the DAG and the cluster's mean NIC: once per query, up front.
  rank_.resize(n);
  for (std::size_t q = 0; q < dag_.query_count(); ++q) {
    const std::uint32_t first = dag_.task_begin[q];
    const std::vector<double> ranks = upward_ranks(view_, query_input(q));
    std::copy(ranks.begin(), ranks.end(), rank_.begin() + first);
  }
  next_in_queue_.assign(n, kNone);
  planned_gpu_.assign(n, -1);
  inputs_ready_.assign(n, 0.0);
  tasks_.assign(n, TaskRecord{});
  queries_.resize(dag_.query_count());
  unfinished_tasks_.resize(dag_.query_count());
  for (std::size_t q = 0; q < dag_.query_count(); ++q) {
    queries_[q].arrival = dag_.arrival_time[q];
    unfinished_tasks_[q] = dag_.task_begin[q + 1] - dag_.task_begin[q];
  }
  ready_.reserve(n < 1024 ? n : 1024);
  upcoming_models_.reserve(static_cast<std::size_t>(options_.serving.cache_lookahead));
}

// A query's tasks as planners see them: spans into the engine's per-task arrays (parents local to
// the query; parent_begin keeps DagInfo's offsets, which index local_parents_ as a whole).
QueryPlanInput ServingCore::query_input(std::size_t query) const {
  const std::uint32_t first = dag_.task_begin[query], end = dag_.task_begin[query + 1];
  return {{setup_.task_model.data() + first, end - first},
          {compute_s_.data() + first, end - first},
          {dag_.output_mb.data() + first, end - first},
          {dag_.parent_begin.data() + first, end - first + 1},
          local_parents_};
}

void ServingCore::arrive(std::uint32_t query, Time now) {
  const std::uint32_t first = dag_.task_begin[query], end = dag_.task_begin[query + 1];
  view_.now = now;
  std::span<int> planned(planned_gpu_.data() + first, end - first);
  placement_->plan_query(view_, query_input(query), planned);
  for (const int gpu : planned)
    if (gpu < -1 || gpu >= static_cast<int>(gpu_view_.size()))
      throw std::logic_error("task placement '" + std::string(placement_->name()) +
                             "' planned a GPU that does not exist");
  for (std::uint32_t t = first; t < end; ++t) {
    if (unfinished_parents_[t] != 0) continue;
    tasks_[t].ready = now;
    ready_.push_back(t);
  }
}

void ServingCore::finish(std::uint32_t task, Time now) {
  const auto gpu = static_cast<std::uint32_t>(tasks_[task].gpu);
  running_[gpu] = kNone;
  GpuView& view = gpu_view_[gpu];
  --view.queued_tasks;
  if (queue_head_[gpu] == kNone) view.free_at = now;  // nothing queued: its projection is moot
  if (!start_pending_[gpu]) {
    start_pending_[gpu] = 1;
    to_start_.push_back(gpu);
  }
  for (std::uint32_t i = children_.child_begin[task]; i < children_.child_begin[task + 1]; ++i) {
    const std::uint32_t child = children_.children[i];
    if (--unfinished_parents_[child] == 0) {
      tasks_[child].ready = now;
      ready_.push_back(child);
    }
  }
  const std::uint32_t query = dag_.query_of[task];
  if (--unfinished_tasks_[query] == 0) {
    queries_[query].finish = now;
    queries_[query].latency = now - queries_[query].arrival;
  }
}

// The plan of this instant: each ready task's GPU, in decreasing upward rank (then task index),
// each decision seeing the placements before it. Applying an entry enqueues the task, starts its
// input transfers and extends the GPU's projected end of work.
void ServingCore::place_ready(Time now) {
  if (ready_.empty()) return;
  std::sort(ready_.begin(), ready_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return rank_[a] != rank_[b] ? rank_[a] > rank_[b] : a < b;
  });
  view_.now = now;
  for (const std::uint32_t t : ready_) {
    parent_outputs_.clear();
    for (std::uint32_t i = dag_.parent_begin[t]; i < dag_.parent_begin[t + 1]; ++i) {
      const std::uint32_t p = dag_.parents[i];
      parent_outputs_.push_back({tasks_[p].gpu, dag_.output_mb[p]});
    }
    ReadyTask ready{t,
                    dag_.query_of[t],
                    setup_.task_model[t],
                    compute_s_[t],
                    dag_.input_mb[t],
                    dag_.output_mb[t],
                    parent_outputs_,
                    planned_gpu_[t]};
    if (hook_) {
      hook_->before_place(ready);
      // A plan made when its GPU was in the pool: void once the GPU has left it.
      if (ready.planned_gpu >= 0 && !model_fits(view_, ready.planned_gpu, ready.model))
        ready.planned_gpu = -1;
    }
    const int gpu = placement_->place(view_, ready);
    // The rule every policy must keep: an existing GPU that can hold the task's model.
    if (gpu < 0 || gpu >= static_cast<int>(gpu_view_.size()) ||
        !model_fits(view_, gpu, ready.model))
      throw std::logic_error("task placement '" + std::string(placement_->name()) + "' chose GPU " +
                             std::to_string(gpu) + " for task " + jobs_[t].id +
                             ", which cannot hold its model");
    const FinishEstimate estimate = estimate_finish(view_, ready, gpu);
    // Apply: inputs leave now, in parallel; only cross-node outputs move bytes.
    TaskRecord& record = tasks_[t];
    record.gpu = gpu;
    record.transfer_s = estimate.transfer_s;
    inputs_ready_[t] = now + estimate.transfer_s;
    const int node = gpu_view_[static_cast<std::size_t>(gpu)].node;
    for (const ParentOutput& parent : parent_outputs_)
      if (gpu_view_[static_cast<std::size_t>(parent.gpu)].node != node)
        bytes_moved_ += parent.output_mb * 1e6;
    const auto g = static_cast<std::uint32_t>(gpu);
    if (queue_tail_[g] == kNone)
      queue_head_[g] = t;
    else
      next_in_queue_[queue_tail_[g]] = t;
    queue_tail_[g] = t;
    GpuView& view = gpu_view_[g];
    ++view.queued_tasks;
    view.free_at = estimate.finish;  // projection, corrected when the GPU turns to the task
    if (!start_pending_[g]) {
      start_pending_[g] = 1;
      to_start_.push_back(g);
    }
  }
  ready_.clear();
}

void ServingCore::start_idle_gpus(Time now) {
  // GPU order, whatever order they were touched in: deterministic and rank-independent.
  std::sort(to_start_.begin(), to_start_.end());
  for (const std::uint32_t gpu : to_start_) {
    start_pending_[gpu] = 0;
    if (running_[gpu] == kNone && queue_head_[gpu] != kNone && usable_[gpu]) start_head(gpu, now);
  }
  to_start_.clear();
}

void ServingCore::start_head(std::uint32_t gpu, Time now) {
  const std::uint32_t t = queue_head_[gpu];
  queue_head_[gpu] = next_in_queue_[t];
  if (queue_head_[gpu] == kNone) queue_tail_[gpu] = kNone;
  running_[gpu] = t;
  TaskRecord& record = tasks_[t];
  record.head = now;
  // The models of the tasks queued behind it, next first, for a lookahead cache policy.
  upcoming_models_.clear();
  for (std::uint32_t q = queue_head_[gpu];
       q != kNone &&
       upcoming_models_.size() < static_cast<std::size_t>(options_.serving.cache_lookahead);
       q = next_in_queue_[q])
    upcoming_models_.push_back(setup_.task_model[q]);
  const int model = setup_.task_model[t];
  const double footprint = setup_.model_footprint_gb[static_cast<std::size_t>(model)];
  ModelCache& cache = caches_[gpu];
  switch (cache.access(model, footprint, *cache_policy_, upcoming_models_, -1, evicted_)) {
    case ModelCache::Access::kHit:
      ++hits_;
      record.cache_hit = true;
      break;
    case ModelCache::Access::kLoaded:
      ++loads_;
      evictions_ += evicted_.size();
      record.load_s = load_time_s(footprint, gpu_view_[gpu].h2d_gbps);
      break;
    case ModelCache::Access::kNoModel:
      break;
    case ModelCache::Access::kNoRoom:
      // Nothing runs on the GPU and the model fits it (checked at placement): cannot happen.
      throw std::logic_error("serving engine: no room for a model on an idle GPU");
  }
  gpu_view_[gpu].resident = cache.resident();
  record.compute_start = std::max(now + record.load_s, inputs_ready_[t]);
  record.finish = record.compute_start + compute_s_[t];
  if (queue_head_[gpu] == kNone) gpu_view_[gpu].free_at = record.finish;
  clock_.schedule_finish(t, record.finish);
}

void ServingCore::set_pool(std::uint32_t gpu, bool in_pool, bool usable, Time free_at) {
  GpuView& view = gpu_view_[gpu];
  if (!in_pool && view.mem_gb >= 0.0) {
    // Its memory goes back with it: the models resident on it are gone.
    caches_[gpu] = ModelCache(capacity_gb_[gpu]);
    view.resident = caches_[gpu].resident();
  }
  view.mem_gb = in_pool ? capacity_gb_[gpu] : -1.0;
  view.free_at = free_at;
  const bool was_usable = usable_[gpu] != 0;
  usable_[gpu] = usable ? 1 : 0;
  if (usable && !was_usable && !start_pending_[gpu]) {
    start_pending_[gpu] = 1;
    to_start_.push_back(gpu);
  }
}

RunResult ServingCore::collect() const {
  RunResult result;
  RunMetrics& m = result.metrics;
  const std::size_t n = jobs_.size();
  result.jobs.resize(n);
  std::vector<double> jcts, queue_delays;
  jcts.reserve(n);
  queue_delays.reserve(n);
  double load = 0.0, transfer = 0.0, compute = 0.0;
  Time first_arrival = n ? dag_.arrival_time.front() : 0.0, last_finish = first_arrival;
  for (const double arrival : dag_.arrival_time) first_arrival = std::min(first_arrival, arrival);
  for (std::size_t t = 0; t < n; ++t) {
    const TaskRecord& task = tasks_[t];
    JobRecord& job = result.jobs[t];
    job.index = static_cast<std::uint32_t>(t);
    job.submit_time = jobs_[t].submit_time;
    job.start_time = task.compute_start;
    job.finish_time = task.finish;
    job.jct = task.finish - job.submit_time;
    job.queue_delay = task.head - task.ready;
    job.num_gpus = 1;
    // GPU-seconds of work (load + compute): a GPU waiting for a task's inputs counts as idle.
    job.gpu_seconds = task.load_s + compute_s_[t];
    job.nodes = 1;
    jcts.push_back(job.jct);
    queue_delays.push_back(job.queue_delay);
    m.gpu_seconds += job.gpu_seconds;
    load += task.load_s;
    transfer += task.transfer_s;
    compute += compute_s_[t];
    last_finish = std::max(last_finish, task.finish);
  }
  m.jobs = n;
  m.window_jobs = n;
  internal::summarize_jcts_and_queues(jcts, queue_delays, m);
  if (n > 0) {
    const double count = static_cast<double>(n);
    m.task_queue_mean = m.queue_mean;
    m.task_load_mean = load / count;
    m.task_transfer_mean = transfer / count;
    m.task_compute_mean = compute / count;
  }
  m.makespan = last_finish - first_arrival;
  if (m.makespan > 0.0)
    m.gpu_util = m.gpu_seconds / (static_cast<double>(gpu_view_.size()) * m.makespan);
  // Nothing is rolled back or paid as a mechanism overhead: gpu_seconds = useful_gpu_seconds.
  m.useful_gpu_seconds = m.gpu_seconds;
  m.goodput = m.gpu_seconds > 0.0 ? 1.0 : 0.0;

  std::vector<double> latencies;
  latencies.reserve(queries_.size());
  std::uint64_t within_slo = 0;
  for (const QueryRecord& q : queries_) {
    latencies.push_back(q.latency);
    if (q.latency <= options_.serving.query_slo_s) ++within_slo;
  }
  m.queries = queries_.size();
  if (!latencies.empty()) {
    m.query_latency_mean = std::accumulate(latencies.begin(), latencies.end(), 0.0) /
                           static_cast<double>(latencies.size());
    m.query_latency_max = *std::max_element(latencies.begin(), latencies.end());
    m.query_latency_p50 = internal::percentile(latencies, 0.50);
    m.query_latency_p99 = internal::percentile(latencies, 0.99);
    if (options_.serving.query_slo_s > 0.0)
      m.query_slo_attainment =
          static_cast<double>(within_slo) / static_cast<double>(latencies.size());
  }
  m.model_loads = loads_;
  m.evictions = evictions_;
  m.cache_hit_rate =
      hits_ + loads_ > 0 ? static_cast<double>(hits_) / static_cast<double>(hits_ + loads_) : 0.0;
  m.bytes_moved = bytes_moved_;
  result.queries = queries_;
  result.tasks = tasks_;
  return result;
}

}  // namespace serving_internal

RunResult simulate_serving(const SimOptions& options, const Workload& workload,
                           const ServingSetup& setup) {
  if (!workload.dag)
    throw std::invalid_argument("simulate_serving: the workload has no DAG (dag.h)");
  // The caller's workload and setup outlive the run: shared without being owned.
  std::unique_ptr<MixedServing> serving =
      make_dag_serving(options, std::shared_ptr<const Workload>(std::shared_ptr<void>(), &workload),
                       std::shared_ptr<const ServingSetup>(std::shared_ptr<void>(), &setup));
  const MixedServing& dag_run = *serving;
  // A Simulation with no training jobs: its clock and ledger, the serving mechanism on them.
  Simulation simulation(options, std::vector<JobSpec>{});
  simulation.add_mechanism(std::move(serving));
  simulation.run();
  RunResult result;
  dag_run.collect(result);
  return result;
}

}  // namespace clustersim
