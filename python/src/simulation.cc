// clustersim.Simulation: a simulation stepped from Python, its observations (NumPy arrays over
// the engine's tables) and plans (an order to start jobs in, or a list of actions).
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "binding.h"
#include "clustersim/allocation_mechanism.h"
#include "clustersim/host.h"
#include "clustersim/steady_state.h"

namespace clustersim::python {

namespace {

const char* const kPhaseNames[] = {"pending",       "waiting",  "restoring", "running",
                                   "checkpointing", "finished", "rejected"};

// What a Python simulation and its observations share. A reset makes a new one (observations
// and views of the old one stay valid: they keep its simulation alive).
struct State {
  RunConfig config;  // with the run's seed
  std::shared_ptr<const Workload> workload;
  std::shared_ptr<Simulation> simulation;
  std::shared_ptr<FleetSimulation> fleet;  // a [fleet] config's; `simulation` is its
  std::unique_ptr<AllocationMechanism> allocation;
  std::size_t jobs_bound = 0;
  bool streams = false;  // the workload may grow (a window on a generated workload)
  Codes models, users;
  std::uint64_t version = 0;  // bumped whenever the state may change
  bool in_point = false;      // at a decision point
  bool over = false;
  std::vector<std::uint32_t> stamp;  // order plans: the last plan that named each job
  std::uint32_t stamp_number = 0;
  Plan plan;
  py::dict job_views, node_views;  // zero-copy views (not when the workload streams)
  std::optional<py::dict> result;

  const View& view() const { return simulation->view(); }
  AllocationContext& context() { return simulation->context(); }
  std::string job_name(std::uint32_t job) const {
    return "job '" + simulation->jobs()[job].id + "'";
  }
};

void build(State& state) {
  if (state.config.fleet) {
    state.fleet = make_fleet_simulation(state.config, state.workload);
    state.simulation = std::shared_ptr<Simulation>(state.fleet, &state.fleet->simulation());
  } else {
    state.simulation = make_simulation(state.config, state.workload);
  }
  state.allocation = make_allocation_mechanism(state.config.sim.scheduler);
  state.allocation->bind(state.context());
  state.jobs_bound = state.simulation->jobs().size();
  state.streams = state.config.workload.generator && state.config.sim.window;
  state.models.extend(state.simulation->jobs(), &JobSpec::model);
  state.users.extend(state.simulation->jobs(), &JobSpec::user);
  state.stamp.assign(state.jobs_bound, 0);
}

// The workload grew (a streamed window): the allocation mechanism and the codes follow.
void grew(State& state) {
  state.allocation->jobs_added(state.context());
  state.jobs_bound = state.simulation->jobs().size();
  state.models.extend(state.simulation->jobs(), &JobSpec::model);
  state.users.extend(state.simulation->jobs(), &JobSpec::user);
  state.stamp.resize(state.jobs_bound, 0);
}

// ---- Arrays ------------------------------------------------------------------------------

void make_readonly(py::array& array) {
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
}

// A read-only strided view of `count` values of T, `stride` bytes apart, that keeps `owner`
// alive.
template <typename T>
py::array view_of(const void* first, std::size_t count, std::size_t stride,
                  const std::shared_ptr<const void>& owner) {
  if (count == 0) return py::array_t<T>(0);
  py::capsule base(new std::shared_ptr<const void>(owner), [](void* pointer) {
    delete static_cast<std::shared_ptr<const void>*>(pointer);
  });
  py::array array(py::dtype::of<T>(), {static_cast<py::ssize_t>(count)},
                  {static_cast<py::ssize_t>(stride)}, static_cast<const T*>(first), base);
  make_readonly(array);
  return array;
}

template <typename T, typename F>
py::array gather(std::span<const std::uint32_t> ids, F&& value) {
  py::array_t<T> out(static_cast<py::ssize_t>(ids.size()));
  T* data = out.mutable_data();
  for (std::size_t i = 0; i < ids.size(); ++i) data[i] = value(ids[i]);
  return out;
}

py::array ids_array(std::span<const std::uint32_t> ids) {
  return gather<std::int64_t>(ids, [](std::uint32_t job) { return std::int64_t{job}; });
}

py::array codes_view(const std::vector<std::int32_t>& codes, std::size_t count) {
  py::array_t<std::int32_t> out(static_cast<py::ssize_t>(count));
  std::copy_n(codes.begin(), count, out.mutable_data());
  return out;
}

// ---- Observations --------------------------------------------------------------------------

class Observation;
using Getter = std::function<py::object(Observation&)>;

// One observation field: its name, kind, dtype and meaning (README.md's table of observation
// fields is generated from this list: observation_fields()).
struct Field {
  std::string name;
  std::string kind;  // "scalar", "live view", "snapshot"
  std::string dtype;
  std::string doc;
  Getter get;
};
std::vector<Field>& fields();

class Observation {
 public:
  explicit Observation(std::shared_ptr<State> state)
      : state_(std::move(state)),
        version_(state_->version),
        now_(state_->view().now()),
        cache_(fields().size()) {}

  py::object get(std::size_t field) {
    if (cache_[field]) return cache_[field];
    const Field& f = fields()[field];
    if (f.kind == "snapshot" && state_->version != version_)
      throw std::logic_error("observation field '" + f.name +
                             "': the simulation has moved on since observe() (read it before "
                             "step() or apply(), or observe() again)");
    cache_[field] = f.get(*this);
    return cache_[field];
  }

  State& state() { return *state_; }
  const View& view() const { return state_->view(); }
  Time now() const { return now_; }
  std::span<const std::uint32_t> waiting() {
    if (!waiting_) waiting_.emplace(view().waiting().begin(), view().waiting().end());
    return *waiting_;
  }
  std::span<const std::uint32_t> running() {
    if (!running_) running_.emplace(view().holders().begin(), view().holders().end());
    return *running_;
  }
  // The shared owner that zero-copy views keep alive.
  std::shared_ptr<const void> owner() const { return state_->simulation; }

 private:
  std::shared_ptr<State> state_;
  std::uint64_t version_;
  Time now_;
  std::vector<py::object> cache_;
  std::optional<std::vector<std::uint32_t>> waiting_, running_;
};

// Views of every job's JobState field (zero-copy, live); copies when the workload streams.
template <typename T, typename Member>
Field job_field(std::string name, std::string dtype, std::string doc, Member JobState::*member) {
  return {name, "live view", std::move(dtype), std::move(doc),
          [name, member](Observation& o) -> py::object {
            State& state = o.state();
            const auto jobs = o.view().jobs();
            if (state.streams) {
              py::array_t<T> out(static_cast<py::ssize_t>(jobs.size()));
              T* data = out.mutable_data();
              for (std::size_t i = 0; i < jobs.size(); ++i)
                data[i] = static_cast<T>(jobs[i].*member);
              return out;
            }
            const py::str key(name);
            if (!state.job_views.contains(key))
              state.job_views[key] = view_of<T>(jobs.empty() ? nullptr : &(jobs[0].*member),
                                                jobs.size(), sizeof(JobState), o.owner());
            return state.job_views[key];
          }};
}

template <typename T, typename Member>
Field node_field(std::string name, std::string dtype, std::string doc,
                 Member ClusterState::Node::*member) {
  return {name, "live view", std::move(dtype), std::move(doc),
          [name, member](Observation& o) -> py::object {
            State& state = o.state();
            const py::str key(name);
            if (!state.node_views.contains(key)) {
              const auto nodes = o.view().cluster().nodes();
              state.node_views[key] =
                  view_of<T>(nodes.empty() ? nullptr : &(nodes[0].*member), nodes.size(),
                             sizeof(ClusterState::Node), o.owner());
            }
            return state.node_views[key];
          }};
}

template <typename T, typename F>
Field waiting_field(std::string name, std::string dtype, std::string doc, F value) {
  return {std::move(name), "snapshot", std::move(dtype), std::move(doc),
          [value](Observation& o) -> py::object {
            const auto jobs = o.view().jobs();
            return gather<T>(o.waiting(),
                             [&](std::uint32_t job) { return value(o, jobs[job], job); });
          }};
}

template <typename T, typename F>
Field running_field(std::string name, std::string dtype, std::string doc, F value) {
  return {std::move(name), "snapshot", std::move(dtype), std::move(doc),
          [value](Observation& o) -> py::object {
            const auto jobs = o.view().jobs();
            return gather<T>(o.running(),
                             [&](std::uint32_t job) { return value(o, jobs[job], job); });
          }};
}

// Grants of the running jobs, one row per (job, node), in the order of `running`.
template <typename T, typename F>
Field grant_field(std::string name, std::string dtype, std::string doc, F value) {
  return {std::move(name), "snapshot", std::move(dtype), std::move(doc),
          [value](Observation& o) -> py::object {
            std::vector<T> values;
            for (std::uint32_t job : o.running())
              for (const Grant& grant : o.view().grants_of(job))
                values.push_back(value(job, grant));
            py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
            std::copy(values.begin(), values.end(), out.mutable_data());
            return out;
          }};
}

std::vector<Field>& fields() {
  static std::vector<Field> list = [] {
    using O = Observation;
    using J = JobState;
    std::vector<Field> f;
    const auto scalar = [&](std::string name, std::string dtype, std::string doc, Getter get) {
      f.push_back({std::move(name), "scalar", std::move(dtype), std::move(doc), std::move(get)});
    };
    scalar("time", "float", "the decision point's time (s)",
           [](O& o) { return py::float_(o.now()); });
    scalar("free_gpus", "int", "GPUs free now, cluster-wide",
           [](O& o) { return py::int_(o.view().cluster().free_gpus()); });
    scalar("total_gpus", "int", "the cluster's GPUs",
           [](O& o) { return py::int_(o.view().cluster().total_gpus()); });

    // Every job, in workload order (index = job id).
    f.push_back(job_field<std::uint8_t>(
        "job_phase", "uint8",
        "phase: 0 pending (not submitted), 1 waiting, 2 restoring, 3 running, 4 checkpointing, "
        "5 finished, 6 rejected (`clustersim.PHASES`)",
        &J::phase));
    f.push_back(job_field<std::int32_t>("job_gpus", "int32", "GPUs it asks for (holds, if elastic)",
                                        &J::gpus));
    f.push_back(job_field<double>("job_submit", "float64", "submit time (s)", &J::submit));
    f.push_back(job_field<double>("job_duration", "float64",
                                  "its duration at rate 1 (s): the trace's, an oracle", &J::work));
    f.push_back(job_field<double>("job_remaining", "float64",
                                  "work left (s at rate 1) as of `job_progress_since`",
                                  &J::remaining));
    f.push_back(job_field<double>("job_attained", "float64",
                                  "service attained (s of progress) as of `job_progress_since`",
                                  &J::attained_time));
    f.push_back(job_field<double>("job_rate", "float64", "progress per second with what it holds",
                                  &J::rate));
    f.push_back(job_field<double>("job_progress_since", "float64",
                                  "when its progress was last folded (s)", &J::progress_since));
    f.push_back(job_field<std::int32_t>("job_vc", "int32", "virtual cluster (`vc_names`)", &J::vc));
    f.push_back(job_field<std::int32_t>(
        "job_gpu_type", "int32", "GPU type it requires (`gpu_type_names`), -1 any", &J::gpu_type));
    f.push_back({"job_model", "snapshot", "int32", "model (`model_names`; \"\" unknown)",
                 [](O& o) -> py::object {
                   return codes_view(o.state().models.codes, o.view().jobs().size());
                 }});
    f.push_back({"job_user", "snapshot", "int32", "user (`user_names`; \"\" unknown)",
                 [](O& o) -> py::object {
                   return codes_view(o.state().users.codes, o.view().jobs().size());
                 }});

    f.push_back({"job_cluster", "snapshot", "int32",
                 "a fleet's cluster it was routed to (`cluster_names`), -1 before it arrives; 0 "
                 "outside a fleet",
                 [](O& o) -> py::object {
                   const std::size_t jobs = o.view().jobs().size();
                   py::array_t<std::int32_t> out(static_cast<py::ssize_t>(jobs));
                   const FleetSimulation* fleet = o.state().fleet.get();
                   for (std::size_t j = 0; j < jobs; ++j)
                     out.mutable_data()[j] = fleet ? fleet->job_cluster(j) : 0;
                   return out;
                 }});

    // Waiting jobs, in the engine's order (deterministic, not sorted).
    f.push_back({"waiting", "snapshot", "int64", "the waiting jobs (ids)",
                 [](O& o) -> py::object { return ids_array(o.waiting()); }});
    f.push_back(waiting_field<std::int32_t>("waiting_gpus", "int32", "GPUs asked for",
                                            [](O&, const J& j, auto) { return j.gpus; }));
    f.push_back(waiting_field<double>("waiting_submit", "float64", "submit time (s)",
                                      [](O&, const J& j, auto) { return j.submit; }));
    f.push_back(waiting_field<double>("waiting_age", "float64", "time since submission (s)",
                                      [](O& o, const J& j, auto) { return o.now() - j.submit; }));
    f.push_back(waiting_field<double>("waiting_attained", "float64",
                                      "service attained before (s; > 0 after a preemption)",
                                      [](O&, const J& j, auto) { return j.attained_time; }));
    f.push_back(waiting_field<double>("waiting_duration", "float64", "duration (s): an oracle",
                                      [](O&, const J& j, auto) { return j.work; }));
    f.push_back(waiting_field<double>("waiting_remaining", "float64", "work left (s at rate 1)",
                                      [](O&, const J& j, auto) { return j.remaining; }));
    f.push_back(waiting_field<std::int32_t>(
        "waiting_model", "int32", "model (`model_names`)",
        [](O& o, const J&, std::uint32_t job) { return o.state().models.codes[job]; }));
    f.push_back(waiting_field<std::int32_t>(
        "waiting_user", "int32", "user (`user_names`)",
        [](O& o, const J&, std::uint32_t job) { return o.state().users.codes[job]; }));
    f.push_back(waiting_field<std::int32_t>("waiting_vc", "int32", "virtual cluster",
                                            [](O&, const J& j, auto) { return j.vc; }));
    f.push_back(waiting_field<std::int32_t>("waiting_gpu_type", "int32",
                                            "GPU type required, -1 any",
                                            [](O&, const J& j, auto) { return j.gpu_type; }));

    // Jobs holding resources (running, restoring, checkpointing), in the engine's order.
    f.push_back({"running", "snapshot", "int64", "the jobs holding GPUs (ids)",
                 [](O& o) -> py::object { return ids_array(o.running()); }});
    f.push_back(running_field<std::int32_t>("running_gpus", "int32", "GPUs held",
                                            [](O&, const J& j, auto) { return j.gpus; }));
    f.push_back(running_field<std::uint8_t>(
        "running_phase", "uint8", "phase (2 restoring, 3 running, 4 checkpointing)",
        [](O&, const J& j, auto) { return static_cast<std::uint8_t>(j.phase); }));
    f.push_back(
        running_field<double>("running_attained", "float64", "service attained now (s)",
                              [](O& o, const J& j, auto) { return j.attained_at(o.now()); }));
    f.push_back(
        running_field<double>("running_remaining", "float64", "work left now (s at rate 1)",
                              [](O& o, const J& j, auto) { return j.remaining_at(o.now()); }));
    f.push_back(running_field<double>("running_rate", "float64", "progress per second",
                                      [](O&, const J& j, auto) { return j.rate; }));
    f.push_back(running_field<double>("running_since", "float64",
                                      "when its current allocation began (s)",
                                      [](O&, const J& j, auto) { return j.held_since; }));
    f.push_back(running_field<double>("running_submit", "float64", "submit time (s)",
                                      [](O&, const J& j, auto) { return j.submit; }));
    f.push_back(running_field<double>("running_duration", "float64", "duration (s): an oracle",
                                      [](O&, const J& j, auto) { return j.work; }));
    f.push_back(running_field<std::int32_t>(
        "running_gpu_type", "int32", "GPU type it runs on",
        [](O& o, const J&, std::uint32_t job) { return o.view().type_held(job); }));
    f.push_back(running_field<std::int32_t>(
        "running_model", "int32", "model (`model_names`)",
        [](O& o, const J&, std::uint32_t job) { return o.state().models.codes[job]; }));

    // What the running jobs hold, one row per (job, node).
    f.push_back(grant_field<std::int64_t>("grant_job", "int64", "the job (id)",
                                          [](std::uint32_t job, const Grant&) { return job; }));
    f.push_back(grant_field<std::int32_t>("grant_node", "int32", "the node",
                                          [](auto, const Grant& g) { return g.node; }));
    f.push_back(grant_field<std::int32_t>("grant_gpus", "int32", "GPUs on it",
                                          [](auto, const Grant& g) { return g.gpus; }));
    f.push_back(grant_field<double>("grant_cpus", "float64", "cores on it (0: not modelled)",
                                    [](auto, const Grant& g) { return g.cpus; }));
    f.push_back(grant_field<double>("grant_mem_gb", "float64", "memory on it (GB)",
                                    [](auto, const Grant& g) { return g.mem_gb; }));

    // Nodes (zero-copy, live).
    using N = ClusterState::Node;
    f.push_back(node_field<std::int32_t>("node_gpus", "int32", "GPUs", &N::gpus));
    f.push_back(node_field<std::int32_t>("node_free_gpus", "int32", "GPUs free", &N::free_gpus));
    f.push_back(node_field<std::int32_t>("node_gpu_type", "int32", "GPU type (`gpu_type_names`)",
                                         &N::gpu_type));
    f.push_back(node_field<std::int32_t>("node_rack", "int32", "rack", &N::rack));
    f.push_back(node_field<double>("node_cpus", "float64", "cores (0: not modelled)", &N::cpus));
    f.push_back(node_field<double>("node_free_cpus", "float64", "cores free", &N::free_cpus));
    f.push_back(
        node_field<double>("node_mem_gb", "float64", "memory (GB; 0: not modelled)", &N::mem_gb));
    f.push_back(
        node_field<double>("node_free_mem_gb", "float64", "memory free (GB)", &N::free_mem_gb));

    f.push_back({"node_cluster", "snapshot", "int32",
                 "a fleet's cluster it belongs to (`cluster_names`); 0 outside a fleet",
                 [](O& o) -> py::object {
                   const ClusterState& cluster = o.view().cluster();
                   const auto nodes = cluster.nodes();
                   py::array_t<std::int32_t> out(static_cast<py::ssize_t>(nodes.size()));
                   for (std::size_t n = 0; n < nodes.size(); ++n)
                     out.mutable_data()[n] = cluster.gpu_type_partition(nodes[n].gpu_type);
                   return out;
                 }});

    // GPU types and VCs.
    const auto per_type = [](O& o, bool free) -> py::object {
      const ClusterState& cluster = o.view().cluster();
      const auto types = cluster.gpu_type_names().size();
      py::array_t<std::int32_t> out(static_cast<py::ssize_t>(types));
      for (std::size_t t = 0; t < types; ++t)
        out.mutable_data()[t] =
            free ? cluster.free_gpus(static_cast<int>(t)) : cluster.total_gpus(static_cast<int>(t));
      return out;
    };
    f.push_back({"type_free_gpus", "snapshot", "int32", "GPUs free, by GPU type",
                 [per_type](O& o) { return per_type(o, true); }});
    f.push_back({"type_total_gpus", "snapshot", "int32", "GPUs, by GPU type",
                 [per_type](O& o) { return per_type(o, false); }});
    f.push_back({"vc_usage", "snapshot", "float64", "GPUs each virtual cluster holds",
                 [](O& o) -> py::object {
                   const auto usage = o.view().vc_usage();
                   py::array_t<double> out(static_cast<py::ssize_t>(usage.size()));
                   std::copy(usage.begin(), usage.end(), out.mutable_data());
                   return out;
                 }});
    return f;
  }();
  return list;
}

// ---- Plans -----------------------------------------------------------------------------------

bool is_integer(const py::handle& value) {
  PyObject* object = value.ptr();
  return !PyBool_Check(object) && !PyFloat_Check(object) && PyIndex_Check(object);
}

std::string phase_name(JobPhase phase) { return kPhaseNames[static_cast<int>(phase)]; }

class PySimulation {
 public:
  explicit PySimulation(const Config& config) : base_(config.config) {
    auto state = std::make_shared<State>();
    state->config = *base_;
    state->config.sim.record_samples = false;
    state->workload = std::make_shared<const Workload>(load_workload(state->config));
    build(*state);
    state_ = std::move(state);
  }

  void reset(std::optional<std::uint64_t> seed) {
    auto state = std::make_shared<State>();
    state->config = state_->config;
    state->workload = state_->workload;
    if (seed) {
      state->config = *base_;
      state->config.sim.record_samples = false;
      apply_seed(state->config, *seed);  // as a sweep's seed: the workload's and the run's
      if (state->config.workload.generator)
        state->workload = std::make_shared<const Workload>(load_workload(state->config));
    }
    build(*state);
    ++state_->version;  // observations of the old run are stale
    state_ = std::move(state);
  }

  bool step() {
    State& state = *state_;
    ++state.version;
    if (state.over) return false;
    const bool more = state.simulation->step();
    state.in_point = more;
    state.over = !more;
    if (more && state.simulation->jobs().size() > state.jobs_bound) grew(state);
    return more;
  }

  Observation observe() { return Observation(state_); }

  py::array apply(const py::handle& plan) {
    State& state = *state_;
    if (!state.in_point)
      throw std::logic_error(state.over ? "apply: the run is over (reset() to run again)"
                                        : "apply: not at a decision point (step() first)");
    ++state.version;
    std::vector<std::int64_t> started;
    if (plan.is_none()) return ids(started);
    if (py::isinstance<py::array>(plan)) {
      const auto array = py::reinterpret_borrow<py::array>(plan);
      const char kind = array.dtype().kind();
      if (array.size() == 0) return ids(started);
      if (array.ndim() != 1 || (kind != 'i' && kind != 'u'))
        throw py::type_error(
            "plan: an array plan is a 1-D integer array of job ids (the order to start them in)");
      const auto values = py::array_t<std::int64_t, py::array::forcecast>::ensure(plan);
      start_in_order({values.data(), static_cast<std::size_t>(values.size())}, started);
      return ids(started);
    }
    if (!PyList_Check(plan.ptr()) && !PyTuple_Check(plan.ptr()))
      throw py::type_error(
          "plan: expected None, a sequence of job ids (an order), or a list of actions such as "
          "(\"start\", job), (\"stop\", job), (\"move\", job, grants), (\"resize\", job, grants)");
    const auto items = py::reinterpret_borrow<py::sequence>(plan);
    if (items.size() == 0) return ids(started);
    if (is_integer(items[0])) {
      std::vector<std::int64_t> order;
      order.reserve(items.size());
      for (const py::handle item : items) {
        if (!is_integer(item)) throw py::type_error("plan: an order holds job ids only (integers)");
        order.push_back(item.cast<std::int64_t>());
      }
      start_in_order(order, started);
      return ids(started);
    }
    apply_actions(items, started);
    return ids(started);
  }

  py::array can_start(const py::handle& jobs) {
    State& state = *state_;
    const auto values = py::array_t<std::int64_t, py::array::forcecast>::ensure(jobs);
    if (!values || values.ndim() != 1) throw py::type_error("can_start: a 1-D array of job ids");
    py::array_t<bool> out(values.size());
    const auto all = state.view().jobs();
    for (py::ssize_t i = 0; i < values.size(); ++i) {
      const std::uint32_t job = checked_job(values.data()[i]);
      bool fits = all[job].phase == JobPhase::kWaiting &&
                  all[job].gpus <= state.view().cluster().free_gpus(all[job].gpu_type);
      if (fits) {
        state.plan.clear();
        fits = state.allocation->start(job, state.context(), state.plan);
      }
      out.mutable_data()[i] = fits;
    }
    return out;
  }

  py::object run(const py::function& decider) {
    State* state = state_.get();
    if (!state->over && (state->in_point || step())) {
      do {
        py::object plan = decider(observe());
        apply(plan);
      } while (step());
    }
    return result();
  }

  py::dict result() {
    State& state = *state_;
    if (!state.over) throw std::logic_error("result: the run is not over (step() to its end)");
    if (!state.result) {
      // As `clustersim run` writes them: under the steady-state rule, the measured rows.
      // The records' jobs are the workload's (a DAG config's tasks; jobs() are training jobs).
      // A fleet's simulation runs on a span of the state's workload (it has none of its own).
      const std::span<const JobSpec> specs =
          state.fleet ? state.workload->jobs : state.simulation->workload()->jobs;
      if (state.config.workload.steady_plan) {
        RunResult measured = state.simulation->result();
        keep_measured_rows(measured);
        state.result = result_dict(specs, measured);
      } else if (state.fleet) {  // as clustersim.run(): the fleet's columns, the clusters' metrics
        const FleetResult fleet = state.fleet->finish(state.simulation->result());
        state.result = result_dict(specs, fleet.fleet);
        add_cluster_metrics((*state.result)["metrics"].cast<py::dict>(), fleet.metrics);
      } else {
        state.result = result_dict(specs, state.simulation->result());
      }
      // A stepped run is run once: clustersim.run() and `clustersim run` extend too-short runs.
      if (state.config.workload.steady.extend_limit > 1.0)
        (*state.result)["warnings"].cast<py::list>().append(
            "[metrics] extend_limit has no effect on a stepped Simulation (it runs once; "
            "clustersim.run() and `clustersim run` run a too-short run again)");
    }
    return *state.result;
  }

  State& state() { return *state_; }

 private:
  static py::array ids(const std::vector<std::int64_t>& values) {
    py::array_t<std::int64_t> out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
  }

  std::uint32_t checked_job(std::int64_t job) const {
    const std::size_t count = state_->view().jobs().size();
    if (job < 0 || static_cast<std::size_t>(job) >= count)
      throw PlanError("plan: no job " + std::to_string(job) + " (the workload has " +
                      std::to_string(count) + " jobs)");
    return static_cast<std::uint32_t>(job);
  }

  // An order: each job is started where the allocation mechanism places it, if it can start
  // now; the others wait (later ones may still start: backfill), as the built-in decider does.
  void start_in_order(std::span<const std::int64_t> order, std::vector<std::int64_t>& started) {
    State& state = *state_;
    const auto jobs = state.view().jobs();
    const std::uint32_t stamp = ++state.stamp_number;
    for (const std::int64_t value : order) {
      const std::uint32_t job = checked_job(value);
      if (jobs[job].phase != JobPhase::kWaiting)
        throw PlanError("plan: " + state.job_name(job) + " is not waiting (it is " +
                        phase_name(jobs[job].phase) + ")");
      if (state.stamp[job] == stamp)
        throw PlanError("plan: " + state.job_name(job) + " is named twice");
      state.stamp[job] = stamp;
    }
    const ClusterState& cluster = state.view().cluster();
    for (const std::int64_t value : order) {
      if (cluster.free_gpus() == 0) break;
      const auto job = static_cast<std::uint32_t>(value);
      if (jobs[job].gpus > cluster.free_gpus(jobs[job].gpu_type)) continue;
      state.plan.clear();
      if (!state.allocation->start(job, state.context(), state.plan)) continue;
      state.simulation->apply(state.plan);
      started.push_back(job);
    }
  }

  void add_grants(std::uint32_t job, const py::handle& grants, int& gpus) {
    State& state = *state_;
    const ClusterState& cluster = state.view().cluster();
    const PlacementRequest request = state.context().request_of(job);
    gpus = 0;
    for (const py::handle row : grants) {
      const auto values = py::cast<std::vector<double>>(row);
      if (values.size() < 2 || values.size() > 5 || values.size() == 3)
        throw py::type_error(
            "plan: a grant is (node, gpus), (node, gpus, cpus, mem_gb) or (node, gpus, cpus, "
            "mem_gb, storage_mbps)");
      const auto node = static_cast<std::uint32_t>(values[0]);
      const int count = static_cast<int>(values[1]);
      Grant grant{node, count};
      if (values[0] >= 0 && node < cluster.nodes().size() && count > 0)
        grant = cluster.grant_for(node, request, count);  // the job's share of the node
      if (values.size() >= 4) {
        grant.cpus = values[2];
        grant.mem_gb = values[3];
      }
      if (values.size() == 5) grant.storage_mbps = values[4];
      if (values[0] < 0) grant.node = static_cast<std::uint32_t>(cluster.nodes().size());
      state.plan.add_grant(grant);
      gpus += count;
    }
  }

  // One action of an action list, added to the list's plan (state.plan).
  void add_action(const py::handle& item, Plan& scratch, std::vector<std::int64_t>& started) {
    State& state = *state_;
    if (!PyTuple_Check(item.ptr()) && !PyList_Check(item.ptr()))
      throw py::type_error("plan: an action is a tuple such as (\"start\", job)");
    const auto action = py::reinterpret_borrow<py::sequence>(item);
    if (action.size() < 2 || action.size() > 3 || !PyUnicode_Check(action[0].ptr()) ||
        !is_integer(action[1]))
      throw py::type_error(
          "plan: an action is (\"start\", job), (\"start\", job, grants), (\"stop\", job), "
          "(\"move\", job, grants) or (\"resize\", job, grants)");
    const std::string kind = action[0].cast<std::string>();
    const std::uint32_t job = checked_job(action[1].cast<std::int64_t>());
    const JobState& now = state.view().jobs()[job];
    Plan& plan = state.plan;
    if (kind == "start" && action.size() == 2) {
      if (now.phase != JobPhase::kWaiting)
        throw PlanError("plan: " + state.job_name(job) + " is not waiting (it is " +
                        phase_name(now.phase) + ")");
      scratch.clear();
      if (!state.allocation->start(job, state.context(), scratch))
        throw PlanError("plan: " + state.job_name(job) + " cannot start now: no placement of " +
                        std::to_string(now.gpus) + " GPUs (" +
                        std::to_string(state.view().cluster().free_gpus(now.gpu_type)) +
                        " free of its type)");
      // The mechanism's plan (the job's grants, and any change it makes to running jobs).
      for (const Plan::Change& change : scratch.changes()) {
        if (change.action == Plan::Action::kFail) {
          plan.fail(change.job);
        } else if (change.action == Plan::Action::kSave) {
          plan.save(change.job);
        } else {
          plan.set(change.job);
          for (const Grant& grant : scratch.grants(change)) plan.add_grant(grant);
        }
      }
    } else if (kind == "stop" && action.size() == 2) {
      plan.set(job);
    } else if ((kind == "start" || kind == "move" || kind == "resize") && action.size() == 3) {
      if (kind == "start" && now.phase != JobPhase::kWaiting)
        throw PlanError("plan: " + state.job_name(job) + " is not waiting (it is " +
                        phase_name(now.phase) + ")");
      if (kind != "start" && !now.holds_gpus())
        throw PlanError("plan: " + state.job_name(job) + " is " +
                        (kind == "move" ? "moved" : "resized") + " but holds no GPUs (it is " +
                        phase_name(now.phase) + ")");
      plan.set(job);
      int gpus = 0;
      add_grants(job, action[2], gpus);
      if (kind == "move" && gpus != now.gpus)
        throw PlanError("plan: " + state.job_name(job) + " is moved with " + std::to_string(gpus) +
                        " GPUs, not the " + std::to_string(now.gpus) +
                        " it holds (a resize changes the count)");
      if (kind == "resize" && gpus == now.gpus)
        throw PlanError("plan: " + state.job_name(job) + " is resized to the " +
                        std::to_string(gpus) + " GPUs it has (a move keeps the count)");
    } else {
      throw py::type_error("plan: unknown action '" + kind + "' with " +
                           std::to_string(action.size() - 1) +
                           " argument(s) (start, stop, move, resize)");
    }
    if (kind == "start" && now.phase == JobPhase::kWaiting) started.push_back(job);
  }

  // An action list: one plan, checked whole and applied at once (or PlanError, nothing changed).
  void apply_actions(const py::sequence& items, std::vector<std::int64_t>& started) {
    State& state = *state_;
    state.plan.clear();
    Plan scratch;
    for (const py::handle item : items) add_action(item, scratch, started);
    state.simulation->apply(state.plan);
  }

  std::shared_ptr<const RunConfig> base_;
  std::shared_ptr<State> state_;
};

py::list names(std::span<const std::string> values) {
  py::list out;
  for (const std::string& value : values) out.append(value);
  return out;
}

}  // namespace

void bind_simulation(py::module_& m) {
  py::list phases;
  for (const char* name : kPhaseNames) phases.append(name);
  m.attr("PHASES") = py::tuple(phases);

  auto observation = py::class_<Observation>(m, "Observation");
  for (std::size_t i = 0; i < fields().size(); ++i)
    observation.def_property_readonly(
        fields()[i].name.c_str(), [i](Observation& o) { return o.get(i); },
        fields()[i].doc.c_str());
  observation.def("to_dict", [](Observation& o) {
    py::dict out;
    for (std::size_t i = 0; i < fields().size(); ++i) out[fields()[i].name.c_str()] = o.get(i);
    return out;
  });
  m.def("observation_fields", [] {
    py::list out;
    for (const Field& f : fields()) out.append(py::make_tuple(f.name, f.kind, f.dtype, f.doc));
    return out;
  });

  py::class_<PySimulation>(m, "Simulation")
      .def(py::init<const Config&>(), py::arg("config"))
      .def("reset", &PySimulation::reset, py::arg("seed") = py::none())
      .def("step", &PySimulation::step)
      .def("observe", &PySimulation::observe)
      .def("apply", &PySimulation::apply, py::arg("plan"))
      .def("can_start", &PySimulation::can_start, py::arg("jobs"))
      .def("run", &PySimulation::run, py::arg("decider"))
      .def("result", &PySimulation::result)
      .def_property_readonly("over", [](PySimulation& s) { return s.state().over; })
      .def_property_readonly("time", [](PySimulation& s) { return s.state().view().now(); })
      .def_property_readonly("job_ids",
                             [](PySimulation& s) {
                               py::list out;
                               for (const JobSpec& spec : s.state().simulation->jobs())
                                 out.append(spec.id);
                               return out;
                             })
      .def_property_readonly("model_names",
                             [](PySimulation& s) { return names(s.state().models.names); })
      .def_property_readonly("user_names",
                             [](PySimulation& s) { return names(s.state().users.names); })
      .def_property_readonly("vc_names",
                             [](PySimulation& s) { return names(s.state().view().vc_names()); })
      .def_property_readonly(
          "gpu_type_names",
          [](PySimulation& s) { return names(s.state().view().cluster().gpu_type_names()); })
      .def_property_readonly("cluster_names", [](PySimulation& s) {
        std::vector<std::string> out;
        if (const FleetSimulation* fleet = s.state().fleet.get())
          for (const FleetClusterSpec& cluster : fleet->spec().clusters)
            out.push_back(cluster.name);
        else
          out.emplace_back();  // one cluster, unnamed
        return names(out);
      });
}

}  // namespace clustersim::python
