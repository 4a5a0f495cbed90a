#include "clustersim/simulation.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "clustersim/component.h"
#include "clustersim/options.h"
#include "clustersim/serving.h"
#include "clustersim/steady_state.h"
#include "core/engine.h"
#include "core/forwarding_host.h"
#include "decider/admission.h"
#include "decider/decision_hooks.h"
#include "decider/default_decider.h"
#include "decider/exact_time_share_decider.h"
#include "decider/placement_stage.h"
#include "decider/time_share_decider.h"
#include "mechanisms/idle_power_off.h"
#include "mechanisms/registry.h"
#include "mechanisms/supply_following.h"
#include "metrics/power_meter.h"
#include "throughput/job_speed.h"

namespace clustersim {

namespace {

// What a decider or mechanism that is not built in gets as its host: every plan is checked
// whole, against what is free, before it is applied (PlanError, nothing changed).
class CheckedHost final : public internal::ForwardingHost {
 public:
  explicit CheckedHost(internal::Engine& engine) : ForwardingHost(engine), engine_(engine) {}
  void apply(const Plan& plan) override {
    engine_.check_feasible(plan);
    engine_.apply(plan);
  }

 private:
  internal::Engine& engine_;
};

}  // namespace

struct Simulation::Parts {
  std::unique_ptr<ThroughputModel> owned_model;
  std::unique_ptr<internal::JobSpeed> speed;
  std::unique_ptr<internal::Engine> engine;
  std::vector<std::unique_ptr<RateModel>> rate_models;  // those the options turn on
  internal::PowerMeter* meter = nullptr;                // among them, with [power]
  std::unique_ptr<MixedServing> serving;                // a mixed or DAG config's serving side
  std::unique_ptr<Host> checked;                        // a CheckedHost (file-local)
  std::unique_ptr<internal::Admission> admission;
  std::unique_ptr<internal::PlacementStage> placement;
  internal::Mechanisms mechanisms;
  std::unique_ptr<internal::DefaultDecider> built_in;
  std::unique_ptr<Decider> time_share;  // Gavel's rounds or the exact realisation
  // The decision mechanisms around a user's decider or a program's own plans.
  std::unique_ptr<internal::DecisionHooks> hooks;
  Decider* decider = nullptr;  // what decide()s at each point (none: the program applies plans)
};

Simulation::Simulation(SimOptions options, std::vector<JobSpec> jobs)
    : options_(std::move(options)) {
  auto workload = std::make_shared<Workload>();
  workload->jobs = std::move(jobs);
  workload_ = std::move(workload);
  jobs_ = workload_->jobs;
}

Simulation::Simulation(SimOptions options, std::span<const JobSpec> jobs)
    : options_(std::move(options)), jobs_(jobs) {}

Simulation::Simulation(SimOptions options, std::shared_ptr<const Workload> workload, Grow grow,
                       std::size_t grow_limit)
    : options_(std::move(options)),
      workload_(std::move(workload)),
      grow_(std::move(grow)),
      grow_limit_(grow_limit) {
  if (!workload_) throw std::invalid_argument("Simulation: no workload");
  jobs_ = workload_->jobs;
  if (workload_->llm && !options_.fabric.llm_jobs) options_.fabric.llm_jobs = workload_->llm;
}

Simulation::~Simulation() = default;

void Simulation::set_decider(std::unique_ptr<Decider> decider) {
  if (parts_) throw std::logic_error("set_decider: the simulation has started (reset() first)");
  external_ = decider == nullptr;
  user_decider_ = std::move(decider);
}

void Simulation::add_mechanism(std::unique_ptr<Mechanism> mechanism) {
  if (parts_) throw std::logic_error("add_mechanism: the simulation has started (reset() first)");
  if (!mechanism) throw std::invalid_argument("add_mechanism: no mechanism");
  user_mechanisms_.push_back(std::move(mechanism));
}

void Simulation::add_rate_model(std::unique_ptr<RateModel> model) {
  if (parts_) throw std::logic_error("add_rate_model: the simulation has started (reset() first)");
  if (!model) throw std::invalid_argument("add_rate_model: no rate model");
  user_rate_models_.push_back(std::move(model));
}

void Simulation::bind_arrivals(internal::ArrivalBinder* binder) {
  if (parts_) throw std::logic_error("bind_arrivals: the simulation has started (reset() first)");
  binder_ = binder;
}

void Simulation::reset(std::optional<std::uint64_t> seed) {
  parts_.reset();
  in_point_ = over_ = result_taken_ = false;
  result_.reset();
  if (!seed) return;
  if (reseed_) {
    reseed_(*seed);  // a config: its workload and its run, as a sweep's seed does
  } else {
    options_.seed = *seed;
  }
}

void Simulation::start() {
  validate(options_);  // the declared ranges of every key (options.h)
  // Assembled in place, so that deciders and mechanisms may read the simulation (view(),
  // context()) as they attach; a failure leaves it unstarted.
  parts_ = std::make_unique<Parts>();
  try {
    assemble(*parts_);
  } catch (...) {
    parts_.reset();
    throw;
  }
}

void Simulation::assemble(Parts& parts) {
  const ThroughputModel* model = options_.throughput;
  if (!model) {
    parts.owned_model = make_placement_throughput_model(options_.penalty);
    model = parts.owned_model.get();
  }
  parts.speed = std::make_unique<internal::JobSpeed>(*model, options_.mechanisms);
  parts.engine =
      std::make_unique<internal::Engine>(options_, *parts.speed, options_.mechanisms.elastic);
  internal::Engine& engine = *parts.engine;
  engine.set_arrival_binder(binder_);
  // Rate models (rate_model.h): those the options turn on, from their descriptors (the
  // built-in ones, then the registered ones), then the ones added here, in order.
  for (const ComponentDescriptor* d : components(ComponentKind::kRateModel))
    if (d->factory.wanted(options_, MechanismContext{})) {
      parts.rate_models.push_back(d->factory.rate_model(options_));
      engine.add_rate_model(*parts.rate_models.back());
      if (auto* meter = dynamic_cast<internal::PowerMeter*>(parts.rate_models.back().get()))
        parts.meter = meter;
    }
  for (auto& model : user_rate_models_) engine.add_rate_model(*model);
  parts.checked = std::make_unique<CheckedHost>(engine);
  parts.placement = std::make_unique<internal::PlacementStage>(options_, engine);
  if (parts.placement->uses_free_gpu_prefix_sums()) engine.track_free_gpu_prefix_sums();
  parts.admission = std::make_unique<internal::Admission>(options_, engine.cluster());
  engine.load(jobs_, *parts.admission);
  parts.admission->vcs_known(engine.vc_names().size());
  const bool users_decisions = user_decider_ || external_;
  parts.mechanisms = internal::make_mechanisms(
      options_, MechanismContext{engine.any_job_checkpoint_interval(), users_decisions});
  if (binder_) {  // a fleet: its rebalancer, if on, decides with the built-in decider
    binder_->attach(engine);
    if (internal::DecisionMechanism* own = binder_->decision_mechanism()) {
      if (users_decisions || has_own_decider(options_.scheduler))
        throw std::invalid_argument(
            "fleet.rebalance: needs the built-in decider (not a time-share policy, nor an "
            "external or user's decider)");
      parts.mechanisms.built_in_decider.push_back(own);
    }
  }
  // Supply following caps GPUs through the power meter (supply.follow_cap_floor): the one
  // decides the cap, the other meters it and re-rates the running jobs.
  if (parts.meter && options_.supply.follow && options_.supply.follow_cap_floor < 1.0)
    for (auto& mechanism : parts.mechanisms.owned)
      if (auto* follow = dynamic_cast<internal::SupplyFollowing*>(mechanism.get()))
        follow->cap_through(*parts.meter);
  // Idle nodes switched off draw standby power through the meter.
  if (parts.meter)
    for (auto& mechanism : parts.mechanisms.owned)
      if (auto* power_off = dynamic_cast<internal::IdlePowerOff*>(mechanism.get()))
        power_off->meter_through(*parts.meter);
  if (make_serving_) parts.serving = make_serving_();
  if (user_decider_) {
    parts.decider = user_decider_.get();
  } else if (!external_ && has_own_decider(options_.scheduler)) {
    if (options_.scheduler.rounds == "exact")
      parts.time_share =
          std::make_unique<internal::ExactTimeShareDecider>(options_, *parts.placement);
    else
      parts.time_share = std::make_unique<internal::TimeShareDecider>(options_, *parts.placement);
    parts.decider = parts.time_share.get();
  } else if (!external_) {
    parts.built_in = std::make_unique<internal::DefaultDecider>(
        options_, *parts.admission, *parts.placement, parts.mechanisms.built_in_decider);
    parts.decider = parts.built_in.get();
  }
  if (users_decisions && !parts.mechanisms.built_in_decider.empty()) {
    parts.hooks = std::make_unique<internal::DecisionHooks>(
        options_, *parts.admission, *parts.placement, parts.mechanisms.built_in_decider,
        *parts.checked, user_decider_.get());
    if (user_decider_) parts.decider = parts.hooks.get();  // it asks the user's decider
  }
  if (engine.small_jobs() > 0 || engine.cluster().mig_gpus() > 0) {
    // CPU-only, fractional and MIG jobs start through the built-in decider's own path and are
    // never moved: what would move them (mechanisms, other deciders, rebalancing) is refused.
    // So is a cluster with GPUs in MIG mode (cluster.mig) there: those paths know whole GPUs.
    // Which parts can take them is each part's descriptor's answer (caps.small_jobs); a user's
    // decider, mechanism or allocation has none, so cannot.
    const auto small_jobs = [](ComponentKind kind, std::string_view name) {
      const ComponentDescriptor* descriptor = find_component(kind, name);
      return descriptor && descriptor->caps.small_jobs;
    };
    const bool mechanisms_take_them =
        user_mechanisms_.empty() && !parts.serving &&
        std::all_of(
            parts.mechanisms.owned.begin(), parts.mechanisms.owned.end(),
            [&](const auto& m) { return small_jobs(ComponentKind::kMechanism, m->name()); });
    std::string why;
    if (!parts.built_in || !small_jobs(ComponentKind::kDecider, "built_in"))
      why =
          "run with the built-in decider only (not a time-share policy, nor an external or "
          "user's decider)";
    else if (!mechanisms_take_them)
      why =
          "cannot be preempted, checkpointed, migrated or failed yet: leave [mechanisms] and "
          "preemption (scheduler.preemption, preemptive policies) off";
    else if (options_.make_allocation ||
             !small_jobs(ComponentKind::kAllocation, options_.scheduler.allocation))
      why = "need scheduler.allocation = \"proportional\"";
    if (!why.empty() && engine.small_jobs() == 0)
      throw std::invalid_argument("cluster.mig: " + std::to_string(engine.cluster().mig_gpus()) +
                                  " GPUs in MIG mode; MIG slices " + why);
    if (!why.empty())
      throw std::invalid_argument("the workload has " + std::to_string(engine.small_jobs()) +
                                  " CPU-only (0-GPU), fractional or MIG jobs; they " + why);
  }
  // The engine tells the hooks (when there are) of every job event; they tell the user's decider.
  engine.set_decider(parts.hooks ? parts.hooks.get() : parts.decider);
  // Timer kinds are registered in this order (host.h): mechanisms for any decider (the
  // registry's, then the user's), the decision mechanisms, the decider.
  for (Mechanism* mechanism : parts.mechanisms.any_decider) {
    engine.add_mechanism(*mechanism);
    mechanism->attach(engine);
  }
  if (parts.serving) {  // a mixed or DAG config's serving side, as the first of the user's
    engine.add_mechanism(*parts.serving);
    parts.serving->attach(*parts.checked);
  }
  for (auto& mechanism : user_mechanisms_) {
    engine.add_mechanism(*mechanism);
    mechanism->attach(*parts.checked);
  }
  for (const internal::DecisionMechanism* mechanism : parts.mechanisms.built_in_decider)
    if (mechanism->endless()) engine.end_with_last_job();
  if (parts.built_in) {
    for (internal::DecisionMechanism* mechanism : parts.mechanisms.built_in_decider)
      mechanism->attach(engine);
    parts.built_in->attach(engine);
  } else if (parts.hooks) {
    for (internal::DecisionMechanism* mechanism : parts.mechanisms.built_in_decider)
      mechanism->attach(engine);
    parts.hooks->attach(engine);  // the user's decider, if any, attaches to hooks->user_host()
  } else if (parts.decider) {
    parts.decider->attach(*parts.checked);
  }
  if (grow_ && options_.window) engine.set_arrivals_exhausted([this] { return extend(); });
  if (options_.observer) {
    const internal::PlacementStage* context = parts.placement.get();
    engine.set_after_decision([this, context] { options_.observer(*context); });
  }
}

// The window outlived the arrivals: the workload grows (twice the jobs, up to the limit).
bool Simulation::extend() {
  if (jobs_.size() >= grow_limit_) return false;
  std::shared_ptr<const Workload> grown = grow_(std::min(grow_limit_, jobs_.size() * 2));
  if (grown->jobs.size() <= jobs_.size()) return false;
  parts_->engine->load(grown->jobs, *parts_->admission);
  parts_->admission->vcs_known(parts_->engine->vc_names().size());
  if (parts_->decider) parts_->decider->jobs_added();
  workload_ = std::move(grown);  // the engine points into it now
  jobs_ = workload_->jobs;
  return true;
}

bool Simulation::step() {
  if (over_) return false;
  if (!parts_) start();
  internal::Engine& engine = *parts_->engine;
  // The program's plans of this point are in: the decision mechanisms finish it (or have it
  // decide again at this instant).
  const bool hooks_around_program = parts_->hooks && !parts_->decider;
  if (in_point_) {
    if (hooks_around_program && parts_->hooks->finish()) return true;
    in_point_ = false;
    engine.conclude();
  }
  const auto point = engine.advance();
  if (!point) {
    over_ = true;
    return false;
  }
  in_point_ = true;
  if (parts_->decider) {
    parts_->decider->decide(*point);
  } else if (hooks_around_program) {
    parts_->hooks->begin(*point);
  }
  return true;
}

const View& Simulation::view() {
  if (!parts_) start();
  return *parts_->engine;
}

std::optional<SupplyState> Simulation::supply_state() {
  if (!parts_) start();
  if (!parts_->meter) return std::nullopt;
  internal::PowerMeter& meter = *parts_->meter;
  const SupplyOptions& supply = options_.supply;
  const Time now = parts_->engine->now();
  meter.advance_to(now);
  SupplyState state;
  state.facility_w = meter.facility_w();
  state.solar_w = solar_w_at(supply, now);
  state.grid_cap_w = supply.grid_cap_w ? *supply.grid_cap_w : -1.0;
  state.battery_kwh = meter.stored_j() / 3.6e6;
  state.battery_capacity_kwh = supply.battery_kwh;
  state.carbon_g_per_kwh = carbon_g_per_kwh_at(supply, now);
  state.cap_level = meter.cap_level();
  return state;
}

AllocationContext& Simulation::context() {
  if (!parts_) start();
  return *parts_->placement;
}

void Simulation::apply(const Plan& plan) {
  if (!parts_) start();
  if (parts_->decider)
    throw std::logic_error(
        "Simulation::apply: this simulation has a decider (set_decider(nullptr) to decide "
        "yourself)");
  if (!in_point_) throw std::logic_error("Simulation::apply: not at a decision point (step())");
  (parts_->hooks ? parts_->hooks->user_host() : *parts_->checked).apply(plan);
}

RunResult Simulation::run() {
  if (!parts_) start();
  if (!parts_->decider)
    throw std::logic_error("Simulation::run: no decider (step() and apply() instead)");
  // step()'s loop without its bookkeeping between instants.
  internal::Engine& engine = *parts_->engine;
  Decider& decider = *parts_->decider;
  if (in_point_) engine.conclude();
  in_point_ = false;
  while (const auto point = engine.advance()) {
    decider.decide(*point);
    engine.conclude();
  }
  over_ = true;
  RunResult result = parts_->engine->collect_results();  // moves the per-job records out
  complete(result);
  result_taken_ = true;
  return result;
}

const RunResult& Simulation::result() {
  if (!result_) {
    if (!over_) throw std::logic_error("Simulation::result: the run is not over");
    if (result_taken_) throw std::logic_error("Simulation::result: run() returned the results");
    result_ = parts_->engine->collect_results();
    complete(*result_);
  }
  return *result_;
}

// What every run reports of its measured population, then a config's own finish (its verdict).
// A serving side's records come first: a DAG config's (its queries' tasks, not jobs_) are the
// whole result.
void Simulation::complete(RunResult& result) const {
  if (parts_ && parts_->serving) parts_->serving->collect(result);
  std::optional<std::pair<std::size_t, std::size_t>> window;
  if (options_.window) window.emplace(options_.window->first, options_.window->last);
  const bool dag = workload_ && workload_->dag;
  const std::span<const JobSpec> jobs = dag ? std::span<const JobSpec>(workload_->jobs) : jobs_;
  describe_population(window, jobs, result);
  if (finish_) finish_(result);
  // After the verdict: a steady-state run's measured jobs are known only then.
  describe_duration_cap(jobs, result);
}

}  // namespace clustersim
