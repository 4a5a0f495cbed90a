// Serving on the training engine's clock and ledger: the serving engine (ServingCore) as a
// mechanism of a Simulation, beside training (serving.h, make_mixed_serving; sim/README.md,
// "Training and serving on one cluster") or alone, holding every GPU (a DAG run: make_dag_serving,
// which is also what simulate_serving runs).
//
// The training engine owns the clock. Serving's events are its timers, all before the training
// arrivals of an instant (TimerPhase::kBeforeArrivals), in this order: task finishes, query
// arrivals, then one step that places the ready tasks and starts idle GPUs (the order of
// serving_core.h). Its GPUs are held in the training ledger (Host::hold_gpus),
// so training never places on them, and its preemptions are plans (a stop: the job pays its
// checkpoint as any preemption does). A DAG run holds every GPU from its first query to its last
// finish, so nothing grows, shrinks or preempts: the core sees what it would see on a clock of
// its own, and the run's result is the core's (simulate_serving's RunResult).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "clustersim/options.h"
#include "clustersim/serving.h"
#include "serving/serving_core.h"

namespace clustersim {

namespace {

using serving_internal::kNone;

class MixedServingMechanism final : public MixedServing,
                                    public serving_internal::FinishClock,
                                    public serving_internal::PlaceHook {
 public:
  // `dag_run`: the whole run of a DAG workload (make_dag_serving): every GPU is the base pool.
  MixedServingMechanism(const SimOptions& options, std::shared_ptr<const Workload> queries,
                        std::shared_ptr<const ServingSetup> setup, bool dag_run)
      : options_(options),
        queries_(std::move(queries)),
        setup_(std::move(setup)),
        dag_run_(dag_run),
        core_(options_, *queries_, *setup_, *this) {
    const std::size_t gpus = core_.gpu_count();
    role_.assign(gpus, Role::kOut);
    victim_of_.assign(gpus, kNone);
    arrivals_.resize(core_.dag().query_count());
    std::iota(arrivals_.begin(), arrivals_.end(), 0u);
    const auto& arrival = core_.dag().arrival_time;
    std::stable_sort(arrivals_.begin(), arrivals_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return arrival[a] < arrival[b]; });
    if (dag_run_) {
      // Every GPU, all along: no pool to grow (no hook), no GPU to give back before the end.
      base_gpus_ = static_cast<std::uint32_t>(gpus);
      return;
    }
    core_.set_place_hook(this);
    if (options_.serving.gpus < 1 || static_cast<std::size_t>(options_.serving.gpus) > gpus)
      throw std::invalid_argument("serving.gpus: the base pool needs 1 to " + std::to_string(gpus) +
                                  " GPUs (the cluster's), got " +
                                  std::to_string(options_.serving.gpus));
    // Every task's model must fit a GPU of the base pool (it always has one to go to).
    const auto base = static_cast<std::uint32_t>(options_.serving.gpus);
    for (const int model : core_.task_models()) {
      bool fits = false;
      for (std::uint32_t g = 0; g < base && !fits; ++g)
        fits = core_.footprint_gb(model) <= core_.capacity_gb(g) + 1e-9;
      if (!fits)
        throw std::invalid_argument("serving.gpus: no GPU of the base pool (the first " +
                                    std::to_string(base) + " GPUs) can hold a model of " +
                                    std::to_string(core_.footprint_gb(model)) +
                                    " GB: give the pool more GPUs");
    }
    base_gpus_ = base;
  }

  std::string_view name() const override { return "serving"; }

  void attach(Host& host) override {
    host_ = &host;
    done_kind_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
    query_kind_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
    step_kind_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  }

  void start() override {
    const View& view = host_->view();
    const Time now = view.now();
    std::size_t ledger_gpus = 0;
    for (const auto& node : view.cluster().nodes())
      ledger_gpus += static_cast<std::size_t>(node.gpus);
    if (ledger_gpus != core_.gpu_count())
      throw std::invalid_argument("serving: its cluster has " + std::to_string(core_.gpu_count()) +
                                  " GPUs, the training run's " + std::to_string(ledger_gpus));
    first_gpu_of_node_.assign(view.cluster().nodes().size() + 1, 0);
    for (std::uint32_t g = 0; g < core_.gpu_count(); ++g)
      ++first_gpu_of_node_[static_cast<std::size_t>(core_.node_of(g)) + 1];
    std::partial_sum(first_gpu_of_node_.begin(), first_gpu_of_node_.end(),
                     first_gpu_of_node_.begin());
    last_change_ = now;
    // Nothing runs yet: the base pool is the first GPUs in GPU order.
    for (std::uint32_t g = 0; g < base_gpus_; ++g) claim(g, Role::kBase, now);
    for (std::uint32_t g = 0; g < core_.gpu_count(); ++g)
      if (role_[g] == Role::kOut) core_.set_pool(g, false, false, now);
    if (arrivals_.empty()) {
      give_back_idle(now);
      return;
    }
    host_->schedule(core_.dag().arrival_time[arrivals_.front()], query_kind_, 0);
  }

  // The clock starts at the first query when it comes before the first training job.
  Time begins_at() const override {
    return arrivals_.empty() ? std::numeric_limits<Time>::infinity()
                             : core_.dag().arrival_time[arrivals_.front()];
  }

  void on_timer(const Timer& timer) override {
    if (timer.kind == done_kind_) {
      core_.finish(timer.subject, timer.time);
      ++tasks_done_;
      step_at(timer.time);
    } else if (timer.kind == query_kind_) {
      core_.arrive(arrivals_[timer.subject], timer.time);
      const std::uint32_t next = timer.subject + 1;
      if (next < arrivals_.size())
        host_->schedule(core_.dag().arrival_time[arrivals_[next]], query_kind_, next);
      ++queries_arrived_;
      step_at(timer.time);
    } else {
      step_pending_ = false;
      core_.place_ready(timer.time);
      core_.start_idle_gpus(timer.time);
      give_back_idle(timer.time);
    }
  }

  void on_checkpointed(std::uint32_t job) override {
    const auto at = std::find(victims_.begin(), victims_.end(), job);
    if (at == victims_.end()) return;
    victims_.erase(at);
    const Time now = host_->view().now();
    victim_released(job, now);
    step_at(now);
  }

  // FinishClock: a task's finish is a timer of the training engine's clock.
  void schedule_finish(std::uint32_t task, Time time) override {
    host_->schedule(time, done_kind_, task);
  }

  // PlaceHook: a ready task with no idle pool GPU that fits its model grows the pool.
  void before_place(const ReadyTask& task) override {
    const ServingView& view = core_.view();
    const Time now = view.now;
    for (std::uint32_t g = 0; g < core_.gpu_count(); ++g)
      if (model_fits(view, static_cast<int>(g), task.model) && core_.idle(g)) return;
    const double footprint = core_.footprint_gb(task.model);
    const auto fits = [&](std::uint32_t g) { return footprint <= core_.capacity_gb(g) + 1e-9; };
    // A free GPU of the ledger: the first node (in order) with one that can hold the model.
    const ClusterState& ledger = host_->view().cluster();
    for (std::uint32_t n = 0; n < ledger.nodes().size(); ++n) {
      if (ledger.node(n).free_gpus <= 0) continue;
      for (std::uint32_t g = first_gpu_of_node_[n]; g < first_gpu_of_node_[n + 1]; ++g)
        if (role_[g] == Role::kOut && fits(g)) {
          claim(g, Role::kGrown, now);
          return;
        }
    }
    if (options_.serving.priority) preempt_for(fits, now);
  }

  void collect(RunResult& result) const override {
    if (dag_run_) {
      // The run is serving's alone: its result, events counted as the serving engine's own loop
      // counted them before it ran on a Simulation (one per query arrival and per task finish).
      result = core_.collect();
      result.metrics.events = queries_arrived_ + tasks_done_;
      return;
    }
    RunResult serving = core_.collect();
    const RunMetrics& s = serving.metrics;
    RunMetrics& m = result.metrics;
    m.queries = s.queries;
    m.query_latency_mean = s.query_latency_mean;
    m.query_latency_p50 = s.query_latency_p50;
    m.query_latency_p99 = s.query_latency_p99;
    m.query_latency_max = s.query_latency_max;
    m.query_slo_attainment = s.query_slo_attainment;
    m.task_queue_mean = s.task_queue_mean;
    m.task_load_mean = s.task_load_mean;
    m.task_transfer_mean = s.task_transfer_mean;
    m.task_compute_mean = s.task_compute_mean;
    m.cache_hit_rate = s.cache_hit_rate;
    m.model_loads = s.model_loads;
    m.evictions = s.evictions;
    m.bytes_moved = s.bytes_moved;
    m.serving_preemptions = preemptions_;
    m.serving_gpu_seconds = held_gpu_seconds_;
    m.serving_busy_gpu_seconds = s.gpu_seconds;
    result.queries = std::move(serving.queries);
    result.tasks = std::move(serving.tasks);
  }

 private:
  enum class Role : std::uint8_t {
    kOut,       // not serving's: the training ledger's
    kBase,      // the base pool: held from the start until the last query is done
    kGrown,     // claimed on demand: given back when it has nothing to do
    kIncoming,  // a preempted training job's, joining when it has saved its checkpoint
  };

  void account(Time now) {
    held_gpu_seconds_ += static_cast<double>(held_) * (now - last_change_);
    last_change_ = now;
  }

  void claim(std::uint32_t g, Role role, Time now) {
    account(now);
    host_->hold_gpus(static_cast<std::uint32_t>(core_.node_of(g)), 1);
    ++held_;
    role_[g] = role;
    core_.set_pool(g, true, true, now);
  }

  void give_back(std::uint32_t g, Time now) {
    account(now);
    host_->release_gpus(static_cast<std::uint32_t>(core_.node_of(g)), 1);
    --held_;
    role_[g] = Role::kOut;
    core_.set_pool(g, false, false, now);
  }

  // Grown GPUs with nothing to do go back; once every query is done, the base pool too.
  void give_back_idle(Time now) {
    const bool over = queries_arrived_ == arrivals_.size() && tasks_done_ == queries_->jobs.size();
    if (dag_run_ && !over) return;  // nothing but the base pool: held to the end
    for (std::uint32_t g = 0; g < core_.gpu_count(); ++g)
      if ((role_[g] == Role::kGrown || (over && role_[g] == Role::kBase)) && core_.idle(g))
        give_back(g, now);
  }

  void step_at(Time now) {
    if (step_pending_) return;
    step_pending_ = true;
    host_->schedule(now, step_kind_);
  }

  // Serving priority: preempt the running training job with the least attained service (ties:
  // the latest submitted, then the highest index) among those holding a GPU that can hold the
  // model; its GPUs join the pool as incoming, usable once its checkpoint is saved.
  template <typename Fits>
  void preempt_for(const Fits& fits, Time now) {
    const View& view = host_->view();
    std::uint32_t victim = kNone;
    double least = 0.0;
    for (const std::uint32_t j : view.holders()) {
      const JobState& job = view.jobs()[j];
      if (job.phase != JobPhase::kRunning || job.gpus <= 0) continue;
      bool useful = false;
      for (const Grant& grant : view.grants_of(j))
        useful = useful || (grant.gpus > 0 && fits(first_gpu_of_node_[grant.node]));
      if (!useful) continue;
      const double attained = job.attained_at(now);
      const bool better =
          victim == kNone || attained < least ||
          (attained == least && (job.submit > view.jobs()[victim].submit ||
                                 (job.submit == view.jobs()[victim].submit && j > victim)));
      if (better) {
        victim = j;
        least = attained;
      }
    }
    if (victim == kNone) return;
    const Time ready = now + view.expected_overhead_s(OverheadKind::kCheckpoint, victim);
    for (const Grant& grant : view.grants_of(victim)) {
      int left = grant.gpus;
      for (std::uint32_t g = first_gpu_of_node_[grant.node];
           g < first_gpu_of_node_[grant.node + 1] && left > 0; ++g)
        if (role_[g] == Role::kOut) {
          role_[g] = Role::kIncoming;
          victim_of_[g] = victim;
          core_.set_pool(g, true, false, ready);
          --left;
        }
    }
    plan_.clear();
    plan_.set(victim);  // no grants: a stop (it saves its checkpoint, then waits again)
    host_->apply(plan_);
    ++preemptions_;
    if (view.jobs()[victim].phase == JobPhase::kCheckpointing) {
      victims_.push_back(victim);
    } else {
      victim_released(victim, now);  // no checkpoint time: its GPUs are free already
    }
  }

  // The victim's GPUs are free: serving takes them (before any training decision).
  void victim_released(std::uint32_t victim, Time now) {
    for (std::uint32_t g = 0; g < core_.gpu_count(); ++g) {
      if (role_[g] != Role::kIncoming || victim_of_[g] != victim) continue;
      victim_of_[g] = kNone;
      claim(g, Role::kGrown, now);
    }
  }

  SimOptions options_;
  std::shared_ptr<const Workload> queries_;
  std::shared_ptr<const ServingSetup> setup_;
  bool dag_run_ = false;
  serving_internal::ServingCore core_;
  std::uint32_t base_gpus_ = 0;  // the base pool: GPUs [0, base_gpus_)
  Host* host_ = nullptr;
  TimerKind done_kind_ = 0, query_kind_ = 0, step_kind_ = 0;
  std::vector<std::uint32_t> arrivals_;   // queries in arrival order (file order among ties)
  std::vector<Role> role_;                // by GPU
  std::vector<std::uint32_t> victim_of_;  // by GPU: the preempted job an incoming GPU waits for
  std::vector<std::uint32_t> first_gpu_of_node_;  // GPUs of node n: [first[n], first[n + 1])
  std::vector<std::uint32_t> victims_;            // preempted, still saving their checkpoint
  Plan plan_;
  bool step_pending_ = false;
  std::size_t queries_arrived_ = 0;
  std::size_t tasks_done_ = 0;
  int held_ = 0;
  Time last_change_ = 0.0;
  double held_gpu_seconds_ = 0.0;
  std::uint64_t preemptions_ = 0;
};

}  // namespace

std::unique_ptr<MixedServing> make_mixed_serving(const SimOptions& options, Workload queries,
                                                 ServingSetup setup) {
  if (!queries.dag) throw std::invalid_argument("serving: the query workload has no DAG (dag.h)");
  return std::make_unique<MixedServingMechanism>(
      options, std::make_shared<const Workload>(std::move(queries)),
      std::make_shared<const ServingSetup>(std::move(setup)), /*dag_run=*/false);
}

std::unique_ptr<MixedServing> make_dag_serving(const SimOptions& options,
                                               std::shared_ptr<const Workload> workload,
                                               std::shared_ptr<const ServingSetup> setup) {
  if (!workload || !setup) throw std::invalid_argument("make_dag_serving: no workload or setup");
  if (!workload->dag)
    throw std::invalid_argument("simulate_serving: the workload has no DAG (dag.h)");
  validate(options, WorkloadKind::kDag);  // the declared ranges of the keys it uses (options.h)
  return std::make_unique<MixedServingMechanism>(options, std::move(workload), std::move(setup),
                                                 /*dag_run=*/true);
}

}  // namespace clustersim
