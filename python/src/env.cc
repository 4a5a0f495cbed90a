// clustersim.env's engine: N simulations stepped together (in C++ threads), each an episode of
// "which visible waiting job starts next" with fixed-shape observations, an action mask and a
// reward integrated over simulated time (README.md, "Python", the environment).
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "binding.h"
#include "clustersim/allocation_mechanism.h"

namespace clustersim::python {

namespace {

// ---- A small pool: runs fn(0..count-1) on its threads and the caller's ----------------------
//
// A step of one environment takes microseconds, so waking a sleeping thread (tens of
// microseconds) would cost more than it brings: the workers spin for a while after each batch
// (the agent's NumPy work between steps is short) before they sleep.

class Pool {
 public:
  explicit Pool(std::size_t threads) {
    for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_.store(true);
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // An exception from any call (an invalid action, a stalled simulation) is rethrown here, on
  // the caller's thread, once every call has returned (the first one thrown wins).
  void run(std::size_t count, const std::function<void(std::size_t)>& fn) {
    if (workers_.empty() || count <= 1) {
      for (std::size_t i = 0; i < count; ++i) fn(i);
      return;
    }
    error_ = nullptr;
    fn_ = &fn;
    count_ = count;
    next_.store(0);
    busy_.store(workers_.size());
    {
      std::lock_guard lock(mutex_);  // a worker about to sleep sees the new generation
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    drain();
    while (busy_.load() != 0) std::this_thread::yield();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr auto kSpin = std::chrono::microseconds(200);

  void drain() {
    for (std::size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) {
      try {
        (*fn_)(i);
      } catch (...) {
        std::lock_guard lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }
  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kSpin;
      while (generation_.load() == seen && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      if (generation_.load() == seen) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
      }
      seen = generation_.load();
      if (stop_.load()) return;
      drain();
      busy_.fetch_sub(1);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(std::size_t)>* fn_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> busy_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// ---- One environment -------------------------------------------------------------------------

enum class Feature { kGpus, kLogGpus, kAge, kLogAge, kAttained, kDuration, kLogDuration };
struct FeatureName {
  const char* name;
  Feature feature;
  const char* doc;
};
constexpr FeatureName kFeatures[] = {
    {"gpus", Feature::kGpus, "GPUs asked for / the largest node's GPUs"},
    {"log_gpus", Feature::kLogGpus, "log2(GPUs asked for)"},
    {"age", Feature::kAge, "time since submission, hours"},
    {"log_age", Feature::kLogAge, "log(1 + time since submission in minutes)"},
    {"attained", Feature::kAttained, "service attained before (preempted jobs), hours"},
    {"duration", Feature::kDuration, "the job's duration, hours (an oracle)"},
    {"log_duration", Feature::kLogDuration, "log(1 + duration in minutes) (an oracle)"},
};
constexpr const char* kClusterFeatures[] = {"free_gpus / total_gpus", "waiting jobs / window",
                                            "holding jobs / total_gpus"};
constexpr std::size_t kClusterWidth = 3;
// With [power] on, the "supply" observation: these, then per forecast hour h = 1..forecast_h the
// traces' solar (kW) and carbon intensity (kg/kWh) h hours on (the traces as a perfect forecast).
constexpr const char* kSupplyFeatures[] = {"solar_kw",
                                           "grid_cap_kw (-1: unlimited)",
                                           "battery_soc (0 without a battery)",
                                           "carbon_kg_per_kwh",
                                           "facility_kw",
                                           "cap_level (supply following's power cap)"};
constexpr std::size_t kSupplyWidth = 6;

struct EnvOptions {
  std::size_t window = 16;
  std::vector<Feature> features;
  double jct = 1.0, slowdown = 0.0, utilization = 0.0;  // reward weights
  double value = 0.0;         // weight of the value ([supply] job_values) of jobs finished in time
  std::size_t max_steps = 0;  // 0: episodes end with the run only
  bool wait_action = false;   // action `window`: start nothing, run on to the next event
  std::size_t forecast_h = 0;
  bool supply = false;  // [power] is on: the "supply" observation
  std::size_t supply_width() const { return supply ? kSupplyWidth + 2 * forecast_h : 0; }
  std::size_t actions() const { return window + (wait_action ? 1 : 0); }
};

class Env {
 public:
  Env(std::shared_ptr<const RunConfig> base, std::shared_ptr<const Workload> workload,
      const EnvOptions& options)
      : base_(std::move(base)), base_workload_(std::move(workload)), options_(options) {
    slots_.resize(options_.window);
    plans_.resize(options_.window);
    mask_.resize(options_.actions());
  }

  void reset(std::uint64_t seed) {
    config_ = *base_;
    config_.sim.record_samples = false;
    apply_seed(config_, seed);
    workload_ = config_.workload.generator
                    ? std::make_shared<const Workload>(load_workload(config_))
                    : base_workload_;
    if (workload_->dag)
      throw std::invalid_argument(
          "an environment schedules training jobs: a DAG config (serving queries alone) has none "
          "to start (step it with clustersim.Simulation, or add [serving] config beside a "
          "training workload)");
    simulation_ = make_simulation(config_, workload_);
    allocation_ = make_allocation_mechanism(config_.sim.scheduler);
    allocation_->bind(simulation_->context());
    jobs_bound_ = simulation_->jobs().size();
    steps_ = 0;
    over_ = terminated_ = truncated_ = false;
    reward_ = 0.0;
    value_of_.clear();
    if (options_.value != 0.0)
      for (const JobValue& value : config_.sim.supply.values)
        value_of_.emplace(value.job_id, &value);
    refresh();
    if (!any_) advance();
  }

  // Starts the job in slot `action` (which the mask allows), then goes on to the next point at
  // which a visible job can start. The wait action (`window`) starts nothing: the run goes on
  // to its next event first.
  void step(std::int64_t action) {
    if (over_) throw std::logic_error("step: the episode is over (reset() first)");
    if (action < 0 || static_cast<std::size_t>(action) >= options_.actions() || !mask_[action])
      throw std::invalid_argument("step: action " + std::to_string(action) +
                                  " is not allowed now (the action mask says which are)");
    reward_ = 0.0;
    ++steps_;
    if (static_cast<std::size_t>(action) == options_.window) {
      if (run_step() && !any_) advance();
    } else {
      simulation_->apply(plans_[action]);
      refresh();
      if (!any_) advance();
    }
    if (!over_ && options_.max_steps > 0 && steps_ >= options_.max_steps) {
      truncated_ = true;
      over_ = true;
    }
  }

  void write(float* jobs, float* cluster, bool* mask, float* supply) const {
    const std::size_t width = options_.features.size();
    std::fill(jobs, jobs + options_.window * width, 0.0f);
    const View& view = simulation_->view();
    const auto all = view.jobs();
    const Time now = view.now();
    const double node_gpus = std::max(1, view.cluster().max_gpus_per_node());
    if (options_.wait_action) mask[options_.window] = mask_[options_.window];
    if (options_.supply) write_supply(supply);
    for (std::size_t k = 0; k < options_.window; ++k) {
      mask[k] = mask_[k];
      if (slots_[k] == kNone) continue;
      const JobState& job = all[slots_[k]];
      for (std::size_t f = 0; f < width; ++f) {
        double value = 0.0;
        switch (options_.features[f]) {
          case Feature::kGpus:
            value = job.gpus / node_gpus;
            break;
          case Feature::kLogGpus:
            value = std::log2(static_cast<double>(job.gpus));
            break;
          case Feature::kAge:
            value = (now - job.submit) / 3600.0;
            break;
          case Feature::kLogAge:
            value = std::log1p((now - job.submit) / 60.0);
            break;
          case Feature::kAttained:
            value = job.attained_time / 3600.0;
            break;
          case Feature::kDuration:
            value = job.work / 3600.0;
            break;
          case Feature::kLogDuration:
            value = std::log1p(job.work / 60.0);
            break;
        }
        jobs[k * width + f] = static_cast<float>(value);
      }
    }
    const double total = std::max(1, view.cluster().total_gpus());
    cluster[0] = static_cast<float>(view.cluster().free_gpus() / total);
    cluster[1] = static_cast<float>(static_cast<double>(view.waiting().size()) /
                                    static_cast<double>(options_.window));
    cluster[2] = static_cast<float>(static_cast<double>(view.holders().size()) / total);
  }

  void write_supply(float* out) const {
    const std::optional<SupplyState> state = simulation_->supply_state();
    if (!state) return;
    const SupplyOptions& supply = config_.sim.supply;
    out[0] = static_cast<float>(state->solar_w / 1000.0);
    out[1] = static_cast<float>(state->grid_cap_w < 0.0 ? -1.0 : state->grid_cap_w / 1000.0);
    out[2] = static_cast<float>(
        state->battery_capacity_kwh > 0.0 ? state->battery_kwh / state->battery_capacity_kwh : 0.0);
    out[3] = static_cast<float>(state->carbon_g_per_kwh / 1000.0);
    out[4] = static_cast<float>(state->facility_w / 1000.0);
    out[5] = static_cast<float>(state->cap_level);
    const Time now = simulation_->view().now();
    for (std::size_t h = 1; h <= options_.forecast_h; ++h) {
      const double t = now + 3600.0 * static_cast<double>(h);
      out[kSupplyWidth + 2 * (h - 1)] = static_cast<float>(solar_w_at(supply, t) / 1000.0);
      out[kSupplyWidth + 2 * (h - 1) + 1] =
          static_cast<float>(carbon_g_per_kwh_at(supply, t) / 1000.0);
    }
  }

  double reward() const { return reward_; }
  bool terminated() const { return terminated_; }
  bool truncated() const { return truncated_; }
  bool over() const { return over_; }
  std::size_t steps() const { return steps_; }
  Time now() const { return simulation_->view().now(); }
  const RunMetrics& metrics() const { return simulation_->result().metrics; }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  // The window: the oldest waiting jobs (by submit time, then id), and which can start now
  // (each asked of the allocation mechanism; its plan is kept for the action).
  void refresh() {
    const View& view = simulation_->view();
    const auto all = view.jobs();
    order_.assign(view.waiting().begin(), view.waiting().end());
    const auto older = [&](std::uint32_t a, std::uint32_t b) {
      return all[a].submit != all[b].submit ? all[a].submit < all[b].submit : a < b;
    };
    const std::size_t visible = std::min(order_.size(), options_.window);
    std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(visible),
                      order_.end(), older);
    any_ = false;
    const ClusterState& cluster = view.cluster();
    for (std::size_t k = 0; k < options_.window; ++k) {
      slots_[k] = k < visible ? order_[k] : kNone;
      mask_[k] = false;
      if (slots_[k] == kNone) continue;
      const JobState& job = all[slots_[k]];
      if (job.gpus > cluster.free_gpus(job.gpu_type)) continue;
      plans_[k].clear();
      mask_[k] = allocation_->start(slots_[k], simulation_->context(), plans_[k]);
      any_ = any_ || mask_[k];
    }
    if (options_.wait_action) mask_[options_.window] = !over_;
  }

  // Runs to the next decision point at which a visible job can start (or the end).
  void advance() {
    while (run_step() && !any_) {
    }
  }

  // Runs the simulation to its next decision point, adding the reward of the time that passes
  // (jobs in the system x time (JCT), their slowdown's growth, busy GPUs x time) and the value
  // of the jobs that finished within their deadline; false at the end.
  bool run_step() {
    const View& view = simulation_->view();
    const double total = std::max(1, view.cluster().total_gpus());
    const Time before = view.now();
    const double in_system = static_cast<double>(view.waiting().size() + view.holders().size());
    double inverse_durations = 0.0;
    if (options_.slowdown != 0.0) {
      const auto all = view.jobs();
      for (std::uint32_t job : view.waiting()) inverse_durations += 1.0 / all[job].work;
      for (std::uint32_t job : view.holders()) inverse_durations += 1.0 / all[job].work;
    }
    if (options_.value != 0.0) holding_.assign(view.holders().begin(), view.holders().end());
    const double busy = total - view.cluster().free_gpus();
    const bool more = simulation_->step();
    const double dt = simulation_->view().now() - before;
    reward_ += -options_.jct * in_system * dt / 3600.0 -
               options_.slowdown * inverse_durations * dt +
               options_.utilization * busy / total * dt / 3600.0;
    if (options_.value != 0.0) reward_ += options_.value * value_finished();
    if (!more) {
      over_ = terminated_ = true;
      std::fill(slots_.begin(), slots_.end(), kNone);
      std::fill(mask_.begin(), mask_.end(), false);
      any_ = false;
      return false;
    }
    if (simulation_->jobs().size() > jobs_bound_) {
      allocation_->jobs_added(simulation_->context());
      jobs_bound_ = simulation_->jobs().size();
    }
    refresh();
    return true;
  }

  // The value of the jobs that held GPUs before the step and finished in it within their
  // deadline (from submission; none: any time).
  double value_finished() const {
    const View& view = simulation_->view();
    const auto all = view.jobs();
    double value = 0.0;
    for (std::uint32_t index : holding_) {
      const JobState& job = all[index];
      if (job.phase != JobPhase::kFinished) continue;
      const auto at = value_of_.find(job.spec->id);
      if (at == value_of_.end()) continue;
      const JobValue& row = *at->second;
      if (row.deadline_s <= 0.0 || view.now() - job.submit <= row.deadline_s) value += row.value;
    }
    return value;
  }

  std::shared_ptr<const RunConfig> base_;
  std::shared_ptr<const Workload> base_workload_;
  EnvOptions options_;
  RunConfig config_;
  std::shared_ptr<const Workload> workload_;
  std::shared_ptr<Simulation> simulation_;
  std::unique_ptr<AllocationMechanism> allocation_;
  std::size_t jobs_bound_ = 0;
  std::vector<std::uint32_t> order_, slots_;
  std::vector<Plan> plans_;
  std::vector<char> mask_;
  std::vector<std::uint32_t> holding_;  // scratch: the holders before a step
  std::unordered_map<std::string, const JobValue*> value_of_;
  bool any_ = false;
  std::size_t steps_ = 0;
  bool over_ = false, terminated_ = false, truncated_ = false;
  double reward_ = 0.0;
};

// ---- N environments --------------------------------------------------------------------------

class EnvBatch {
 public:
  EnvBatch(const Config& config, std::size_t count, std::size_t window,
           const std::vector<std::string>& features, const py::dict& reward, std::size_t max_steps,
           std::size_t threads, bool autoreset, bool wait_action, std::size_t forecast_h)
      : config_(config.config), autoreset_(autoreset) {
    if (count == 0) throw std::invalid_argument("num_envs must be at least 1");
    if (window == 0) throw std::invalid_argument("window must be at least 1");
    options_.window = window;
    for (const std::string& name : features) {
      const auto* found = std::find_if(std::begin(kFeatures), std::end(kFeatures),
                                       [&](const FeatureName& f) { return name == f.name; });
      if (found == std::end(kFeatures)) {
        std::string known;
        for (const FeatureName& f : kFeatures)
          known += std::string(known.empty() ? "" : ", ") + f.name;
        throw std::invalid_argument("features: unknown feature '" + name + "' (known: " + known +
                                    ")");
      }
      options_.features.push_back(found->feature);
    }
    if (options_.features.empty()) throw std::invalid_argument("features: none given");
    options_.jct = options_.slowdown = options_.utilization = 0.0;
    for (const auto& [key, value] : reward) {
      const std::string name = py::str(key);
      const double weight = value.cast<double>();
      if (name == "jct")
        options_.jct = weight;
      else if (name == "slowdown")
        options_.slowdown = weight;
      else if (name == "utilization")
        options_.utilization = weight;
      else if (name == "value")
        options_.value = weight;
      else
        throw std::invalid_argument("reward: unknown term '" + name +
                                    "' (jct, slowdown, utilization, value)");
    }
    options_.max_steps = max_steps;
    options_.wait_action = wait_action;
    options_.forecast_h = forecast_h;
    options_.supply = config_->sim.power.enabled;
    if (forecast_h > 0 && !options_.supply)
      throw std::invalid_argument("forecast_h: no supply to forecast ([power] enabled is off)");
    if (options_.value != 0.0 && config_->sim.supply.values.empty())
      throw std::invalid_argument("reward: 'value' needs [supply] job_values");
    if (config_->workload.generator && config_->sim.window)
      throw std::invalid_argument(
          "an environment's episode is one run: a window on a generated workload is not "
          "supported (set [workload] jobs instead)");
    auto workload = config_->workload.generator
                        ? nullptr
                        : std::make_shared<const Workload>(load_workload(*config_));
    for (std::size_t i = 0; i < count; ++i) envs_.emplace_back(config_, workload, options_);
    seeds_.assign(count, 0);
    episodes_.assign(count, 0);
    errors_.resize(count);
    pool_ = std::make_unique<Pool>(std::max<std::size_t>(1, std::min(threads, count)));
  }

  std::size_t size() const { return envs_.size(); }
  std::size_t width() const { return options_.features.size(); }
  std::size_t window() const { return options_.window; }
  std::size_t actions() const { return options_.actions(); }
  std::size_t supply_width() const { return options_.supply_width(); }

  // Environment i runs seeds[i] (its next episodes: seeds[i] + k x num_envs).
  py::tuple reset(const std::vector<std::uint64_t>& seeds) {
    if (seeds.size() != envs_.size())
      throw std::invalid_argument("reset: one seed per environment (" +
                                  std::to_string(envs_.size()) + ")");
    for (std::size_t i = 0; i < envs_.size(); ++i) {
      seeds_[i] = seeds[i];
      episodes_[i] = 0;
    }
    {
      py::gil_scoped_release release;
      parallel([&](std::size_t i) { envs_[i].reset(seeds_[i]); });
    }
    return observations();
  }

  // Steps every environment with its action; ended ones are reset with their next seed when
  // autoreset is on (their final metrics come back in `finals`).
  py::tuple step(const py::array_t<std::int64_t, py::array::forcecast>& actions) {
    if (actions.ndim() != 1 || static_cast<std::size_t>(actions.size()) != envs_.size())
      throw std::invalid_argument("step: one action per environment (" +
                                  std::to_string(envs_.size()) + ")");
    const std::int64_t* action = actions.data();
    const std::size_t count = envs_.size();
    py::array_t<double> rewards(static_cast<py::ssize_t>(count));
    py::array_t<bool> terminated(static_cast<py::ssize_t>(count)),
        truncated(static_cast<py::ssize_t>(count));
    std::vector<char> ended(count, 0);
    std::vector<RunMetrics> finals(count);
    std::vector<std::size_t> final_steps(count, 0);
    {
      py::gil_scoped_release release;
      parallel([&](std::size_t i) {
        Env& env = envs_[i];
        env.step(action[i]);
        if (env.over()) {
          ended[i] = 1;
          if (env.terminated()) finals[i] = env.metrics();
          final_steps[i] = env.steps();
        }
      });
      for (std::size_t i = 0; i < count; ++i) {
        rewards.mutable_data()[i] = envs_[i].reward();
        terminated.mutable_data()[i] = envs_[i].terminated();
        truncated.mutable_data()[i] = envs_[i].truncated();
      }
      if (autoreset_)
        parallel([&](std::size_t i) {
          if (!ended[i]) return;
          ++episodes_[i];
          envs_[i].reset(seeds_[i] + episodes_[i] * envs_.size());
        });
    }
    py::list info;
    for (std::size_t i = 0; i < count; ++i) {
      if (!ended[i]) {
        info.append(py::none());
        continue;
      }
      py::dict final_info;
      final_info["steps"] = final_steps[i];
      if (terminated.data()[i]) final_info["metrics"] = metrics_dict(finals[i]);
      info.append(final_info);
    }
    return py::make_tuple(observations(), rewards, terminated, truncated, info);
  }

  py::tuple observations() {
    const std::size_t count = envs_.size();
    const auto n = static_cast<py::ssize_t>(count);
    const auto k = static_cast<py::ssize_t>(options_.window);
    const auto a = static_cast<py::ssize_t>(options_.actions());
    const auto w = static_cast<py::ssize_t>(options_.features.size());
    const auto u = static_cast<py::ssize_t>(options_.supply_width());
    py::array_t<float> jobs({n, k, w});
    py::array_t<float> cluster({n, static_cast<py::ssize_t>(kClusterWidth)});
    py::array_t<bool> mask({n, a});
    py::array_t<double> time(n);
    py::array_t<float> supply({n, u});
    std::fill(supply.mutable_data(), supply.mutable_data() + n * u, 0.0f);
    for (std::size_t i = 0; i < count; ++i) {
      envs_[i].write(jobs.mutable_data() + i * k * w, cluster.mutable_data() + i * kClusterWidth,
                     mask.mutable_data() + i * a, supply.mutable_data() + i * u);
      time.mutable_data()[i] = envs_[i].now();
    }
    if (u == 0) return py::make_tuple(jobs, cluster, mask, time);
    return py::make_tuple(jobs, cluster, mask, time, supply);
  }

 private:
  // Runs fn(i) for every environment on the pool; the first error (by environment) is rethrown.
  void parallel(const std::function<void(std::size_t)>& fn) {
    std::fill(errors_.begin(), errors_.end(), nullptr);
    pool_->run(envs_.size(), [&](std::size_t i) {
      try {
        fn(i);
      } catch (...) {
        errors_[i] = std::current_exception();
      }
    });
    for (const auto& error : errors_)
      if (error) std::rethrow_exception(error);
  }

  std::shared_ptr<const RunConfig> config_;
  EnvOptions options_;
  bool autoreset_;
  std::vector<Env> envs_;
  std::vector<std::uint64_t> seeds_, episodes_;
  std::vector<std::exception_ptr> errors_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace

void bind_env(py::module_& m) {
  py::list features, cluster, supply;
  for (const FeatureName& f : kFeatures) features.append(py::make_tuple(f.name, f.doc));
  for (const char* name : kClusterFeatures) cluster.append(name);
  for (const char* name : kSupplyFeatures) supply.append(name);
  m.attr("ENV_FEATURES") = features;
  m.attr("ENV_CLUSTER_FEATURES") = cluster;
  m.attr("ENV_SUPPLY_FEATURES") = supply;
  py::class_<EnvBatch>(m, "EnvBatch")
      .def(py::init<const Config&, std::size_t, std::size_t, const std::vector<std::string>&,
                    const py::dict&, std::size_t, std::size_t, bool, bool, std::size_t>(),
           py::arg("config"), py::arg("num_envs"), py::arg("window"), py::arg("features"),
           py::arg("reward"), py::arg("max_steps"), py::arg("threads"), py::arg("autoreset"),
           py::arg("wait_action") = false, py::arg("forecast_h") = 0)
      .def("reset", &EnvBatch::reset, py::arg("seeds"))
      .def("step", &EnvBatch::step, py::arg("actions"))
      .def_property_readonly("num_envs", &EnvBatch::size)
      .def_property_readonly("window", &EnvBatch::window)
      .def_property_readonly("actions", &EnvBatch::actions)
      .def_property_readonly("supply_width", &EnvBatch::supply_width)
      .def_property_readonly("width", &EnvBatch::width);
}

}  // namespace clustersim::python
