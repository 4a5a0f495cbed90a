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

struct EnvOptions {
  std::size_t window = 16;
  std::vector<Feature> features;
  double jct = 1.0, slowdown = 0.0, utilization = 0.0;  // reward weights
  std::size_t max_steps = 0;                            // 0: episodes end with the run only
};

class Env {
 public:
  Env(std::shared_ptr<const RunConfig> base, std::shared_ptr<const Workload> workload,
      const EnvOptions& options)
      : base_(std::move(base)), base_workload_(std::move(workload)), options_(options) {
    slots_.resize(options_.window);
    plans_.resize(options_.window);
    mask_.resize(options_.window);
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
    refresh();
    if (!any_) advance();
  }

  // Starts the job in slot `action` (which the mask allows), then goes on to the next point at
  // which a visible job can start.
  void step(std::int64_t action) {
    if (over_) throw std::logic_error("step: the episode is over (reset() first)");
    if (action < 0 || static_cast<std::size_t>(action) >= options_.window || !mask_[action])
      throw std::invalid_argument("step: action " + std::to_string(action) +
                                  " is not allowed now (the action mask says which are)");
    reward_ = 0.0;
    simulation_->apply(plans_[action]);
    ++steps_;
    refresh();
    if (!any_) advance();
    if (!over_ && options_.max_steps > 0 && steps_ >= options_.max_steps) {
      truncated_ = true;
      over_ = true;
    }
  }

  void write(float* jobs, float* cluster, bool* mask) const {
    const std::size_t width = options_.features.size();
    std::fill(jobs, jobs + options_.window * width, 0.0f);
    const View& view = simulation_->view();
    const auto all = view.jobs();
    const Time now = view.now();
    const double node_gpus = std::max(1, view.cluster().max_gpus_per_node());
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
  }

  // Runs to the next decision point at which a visible job can start (or the end), adding the
  // reward of the time that passes: jobs in the system x time (JCT), their slowdown's growth,
  // busy GPUs x time.
  void advance() {
    const double total = std::max(1, simulation_->view().cluster().total_gpus());
    while (true) {
      const View& view = simulation_->view();
      const auto all = view.jobs();
      const Time before = view.now();
      const double in_system = static_cast<double>(view.waiting().size() + view.holders().size());
      double inverse_durations = 0.0;
      if (options_.slowdown != 0.0) {
        for (std::uint32_t job : view.waiting()) inverse_durations += 1.0 / all[job].work;
        for (std::uint32_t job : view.holders()) inverse_durations += 1.0 / all[job].work;
      }
      const double busy = total - view.cluster().free_gpus();
      const bool more = simulation_->step();
      const double dt = simulation_->view().now() - before;
      reward_ += -options_.jct * in_system * dt / 3600.0 -
                 options_.slowdown * inverse_durations * dt +
                 options_.utilization * busy / total * dt / 3600.0;
      if (!more) {
        over_ = terminated_ = true;
        std::fill(slots_.begin(), slots_.end(), kNone);
        std::fill(mask_.begin(), mask_.end(), false);
        any_ = false;
        return;
      }
      if (simulation_->jobs().size() > jobs_bound_) {
        allocation_->jobs_added(simulation_->context());
        jobs_bound_ = simulation_->jobs().size();
      }
      refresh();
      if (any_) return;
    }
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
           std::size_t threads, bool autoreset)
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
      else
        throw std::invalid_argument("reward: unknown term '" + name +
                                    "' (jct, slowdown, utilization)");
    }
    options_.max_steps = max_steps;
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
    const auto w = static_cast<py::ssize_t>(options_.features.size());
    py::array_t<float> jobs({n, k, w});
    py::array_t<float> cluster({n, static_cast<py::ssize_t>(kClusterWidth)});
    py::array_t<bool> mask({n, k});
    py::array_t<double> time(n);
    for (std::size_t i = 0; i < count; ++i) {
      envs_[i].write(jobs.mutable_data() + i * k * w, cluster.mutable_data() + i * kClusterWidth,
                     mask.mutable_data() + i * k);
      time.mutable_data()[i] = envs_[i].now();
    }
    return py::make_tuple(jobs, cluster, mask, time);
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
  py::list features, cluster;
  for (const FeatureName& f : kFeatures) features.append(py::make_tuple(f.name, f.doc));
  for (const char* name : kClusterFeatures) cluster.append(name);
  m.attr("ENV_FEATURES") = features;
  m.attr("ENV_CLUSTER_FEATURES") = cluster;
  py::class_<EnvBatch>(m, "EnvBatch")
      .def(py::init<const Config&, std::size_t, std::size_t, const std::vector<std::string>&,
                    const py::dict&, std::size_t, std::size_t, bool>(),
           py::arg("config"), py::arg("num_envs"), py::arg("window"), py::arg("features"),
           py::arg("reward"), py::arg("max_steps"), py::arg("threads"), py::arg("autoreset"))
      .def("reset", &EnvBatch::reset, py::arg("seeds"))
      .def("step", &EnvBatch::step, py::arg("actions"))
      .def_property_readonly("num_envs", &EnvBatch::size)
      .def_property_readonly("window", &EnvBatch::window)
      .def_property_readonly("width", &EnvBatch::width);
}

}  // namespace clustersim::python
