// The built-in components' descriptors (clustersim/component.h), one explicit table per kind,
// and the components a program or a test registers. The tables' order is the order of the name
// lists (and of the [mechanisms] a run builds, which orders their timers: host.h).
#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "allocation/factories.h"
#include "clustersim/component.h"
#include "clustersim/options.h"
#include "mechanisms/availability.h"
#include "mechanisms/carbon_deferral.h"
#include "mechanisms/checkpoints.h"
#include "mechanisms/elastic.h"
#include "mechanisms/failure_classes.h"
#include "mechanisms/failures.h"
#include "mechanisms/idle_power_off.h"
#include "mechanisms/migration.h"
#include "mechanisms/preemption.h"
#include "mechanisms/supply_following.h"
#include "mechanisms/type_upgrade.h"
#include "metrics/power_meter.h"
#include "placement/factories.h"
#include "policies/factories.h"
#include "serving/factories.h"
#include "study/factories.h"
#include "throughput/llm_rate_model.h"
#include "throughput/sharing_interference.h"
#include "timeshare/factories.h"

namespace clustersim {

namespace {

ComponentDescriptor policy_entry(
    std::string name, std::string summary, std::vector<std::string> key_components,
    std::unique_ptr<SchedulingPolicy> (*make)(const SchedulerOptions&)) {
  ComponentDescriptor d = describe(ComponentKind::kOrderingPolicy, std::move(name),
                                   std::move(summary), std::move(key_components));
  d.key_components.insert(d.key_components.begin(), "policies");
  // The policy's own answer (SchedulingPolicy::preemptive), asked once, not written again.
  d.caps.preempts = make(SchedulerOptions{})->preemptive();
  d.factory.ordering_policy = make;
  return d;
}

std::vector<ComponentDescriptor> ordering_policies() {
  std::vector<ComponentDescriptor> t;
  t.push_back(policy_entry("fifo", "first in, first out", {}, policies::make_fifo));
  t.push_back(policy_entry("sjf", "shortest job first (oracle durations)", {}, policies::make_sjf));
  t.push_back(policy_entry("srtf", "shortest remaining time first (oracle durations)", {},
                           policies::make_srtf));
  t.push_back(policy_entry("las", "least attained service", {}, policies::make_las));
  t.push_back(policy_entry("tiresias", "discretized two-dimensional LAS (Tiresias)",
                           {"policy tiresias"}, policies::make_tiresias));
  t.push_back(
      policy_entry("drf", "fair share across VCs by progressive filling", {}, policies::make_drf));
  t.push_back(policy_entry("qssf", "least expected GPU-time, learned per user (Helios)",
                           {"policy estimates"}, policies::make_qssf));
  t.push_back(policy_entry("sju", "shortest job by the user's history (PAI)", {"policy estimates"},
                           policies::make_sju));
  t.push_back(policy_entry("sjg", "shortest job by the model's history (PAI)", {"policy estimates"},
                           policies::make_sjg));
  t.push_back(policy_entry("sjgg", "shortest job by the model's and GPU count's history (PAI)",
                           {"policy estimates"}, policies::make_sjgg));
  return t;
}

ComponentDescriptor time_share_decider(std::string name, std::string summary,
                                       TimeShare (*solve)(const TimeShareProblem&)) {
  ComponentDescriptor d = describe(ComponentKind::kDecider, std::move(name), std::move(summary),
                                   {"policies", "policies gavel"});
  // Gavel's policies re-decide every round: they preempt, with no ordering policy to ask.
  d.caps.preempts = true;
  d.caps.own_decider = true;
  d.factory.time_share = solve;
  return d;
}

std::vector<ComponentDescriptor> deciders() {
  std::vector<ComponentDescriptor> t;
  ComponentDescriptor built_in =
      describe(ComponentKind::kDecider, "built_in",
               "an ordering policy's queue, placement, allocation and the decision mechanisms",
               {"scheduler"});
  built_in.caps.small_jobs = true;
  t.push_back(std::move(built_in));
  const std::string gavel = "Gavel's allocation over jobs x GPU types: ";
  t.push_back(time_share_decider(
      "max_min_fairness", gavel + "max-min fairness, heterogeneity-agnostic",
      [](const TimeShareProblem& p) { return timeshare::max_min_fairness(p, false); }));
  t.push_back(time_share_decider(
      "max_min_fairness_perf", gavel + "max-min fairness",
      [](const TimeShareProblem& p) { return timeshare::max_min_fairness(p, true); }));
  t.push_back(time_share_decider(
      "finish_time_fairness", gavel + "finish-time fairness, heterogeneity-agnostic",
      [](const TimeShareProblem& p) { return timeshare::finish_time_fairness(p, false); }));
  t.push_back(time_share_decider(
      "finish_time_fairness_perf", gavel + "finish-time fairness",
      [](const TimeShareProblem& p) { return timeshare::finish_time_fairness(p, true); }));
  t.push_back(time_share_decider(
      "min_total_duration", gavel + "least total duration, heterogeneity-agnostic",
      [](const TimeShareProblem& p) { return timeshare::min_total_duration(p, false); }));
  t.push_back(time_share_decider(
      "min_total_duration_perf", gavel + "least total duration",
      [](const TimeShareProblem& p) { return timeshare::min_total_duration(p, true); }));
  t.push_back(time_share_decider("max_sum_throughput_perf", gavel + "most summed throughput",
                                 timeshare::max_sum_throughput));
  t.push_back(time_share_decider("isolated", gavel + "an equal share of the cluster each",
                                 timeshare::isolated));
  t.push_back(time_share_decider("fifo_perf", gavel + "arrival order, fastest type first",
                                 timeshare::fifo_perf));
  return t;
}

ComponentDescriptor placement_entry(std::string name, std::string summary,
                                    std::unique_ptr<PlacementPolicy> (*make)(Rng&),
                                    bool consolidates = false, bool random = false) {
  ComponentDescriptor d =
      describe(ComponentKind::kPlacement, std::move(name), std::move(summary), {"placement"});
  d.caps.consolidates = consolidates;
  d.caps.random = random;
  d.factory.placement = make;
  return d;
}

std::vector<ComponentDescriptor> placements() {
  std::vector<ComponentDescriptor> t;
  t.push_back(placement_entry("consolidate", "fewest nodes", placement::make_consolidate, true));
  t.push_back(placement_entry("spread", "most nodes", placement::make_spread));
  t.push_back(placement_entry("best_fit", "the nodes left fullest", placement::make_best_fit));
  t.push_back(
      placement_entry("random", "random nodes (seeded)", placement::make_random, false, true));
  t.push_back(placement_entry("topology",
                              "TP groups inside a scale-up domain, then fewest leaves and spines",
                              placement::make_topology, true));
  return t;
}

ComponentDescriptor study_entry(std::string name, std::string summary,
                                std::unique_ptr<StudyPlacement> (*make)(const StudyContext&),
                                bool random = false) {
  ComponentDescriptor d = describe(ComponentKind::kStudyPlacement, std::move(name),
                                   std::move(summary), {"placement", "placement study"});
  d.caps.random = random;
  d.factory.study_placement = make;
  return d;
}

// The placement study's placements: every pod placed once, no departures (placement_study.h).
std::vector<ComponentDescriptor> study_placements() {
  std::vector<ComponentDescriptor> t;
  t.push_back(study_entry("fgd", "Fragmentation Gradient Descent: least fragmentation growth",
                          study::make_fgd));
  t.push_back(
      study_entry("best_fit", "the node left with the least CPU and GPU", study::make_best_fit));
  t.push_back(study_entry("dot_product", "Tetris' alignment of free resources and request",
                          study::make_dot_product));
  t.push_back(study_entry("gpu_packing", "shared GPUs first, then used nodes, then idle ones",
                          study::make_gpu_packing));
  t.push_back(study_entry("gpu_clustering", "pods of a kind together", study::make_gpu_clustering));
  t.push_back(study_entry("random_fit", "a node drawn among those that fit (seeded)",
                          study::make_random_fit, true));
  return t;
}

ComponentDescriptor allocation_entry(
    std::string name, std::string summary,
    std::unique_ptr<AllocationMechanism> (*make)(const SchedulerOptions&), double relative_cost,
    bool small_jobs) {
  ComponentDescriptor d =
      describe(ComponentKind::kAllocation, std::move(name), std::move(summary), {"allocation"});
  d.caps.relative_cost = relative_cost;
  d.caps.small_jobs = small_jobs;
  d.factory.allocation = make;
  return d;
}

std::vector<ComponentDescriptor> allocations() {
  std::vector<ComponentDescriptor> t;
  // Only the proportional grant knows CPU-only, fractional and MIG jobs. Those that re-plan
  // every running job at each change cost more per event: opt solves an LP, drf re-divides
  // every node (factors measured on sweep/examples/synergy).
  t.push_back(allocation_entry("proportional", "CPU and memory in proportion to GPUs",
                               allocation::make_proportional, 1.0, true));
  t.push_back(allocation_entry("greedy", "each job its best demand, in queue order",
                               allocation::make_greedy, 1.0, false));
  t.push_back(allocation_entry("tune", "Synergy-TUNE: best demands, tuned to fit",
                               allocation::make_tune, 1.0, false));
  t.push_back(allocation_entry("opt", "Synergy-OPT: an LP over all jobs", allocation::make_opt,
                               100.0, false));
  t.push_back(allocation_entry("drf", "dominant resource fairness per node", allocation::make_drf,
                               4.0, false));
  t.push_back(allocation_entry("tetris", "Tetris: packing by alignment", allocation::make_tetris,
                               1.0, false));
  return t;
}

template <typename T>
ComponentDescriptor mechanism_entry(
    std::string name, std::string summary, bool needs_built_in_decider,
    std::function<bool(const SimOptions&, const MechanismContext&)> wanted) {
  std::string key_tag = "mechanism " + name;
  ComponentDescriptor d = describe(ComponentKind::kMechanism, std::move(name), std::move(summary),
                                   {std::move(key_tag)});
  d.caps.needs_built_in_decider = needs_built_in_decider;
  d.factory.wanted = std::move(wanted);
  d.factory.mechanism = [](const SimOptions& options) -> std::unique_ptr<Mechanism> {
    if constexpr (std::is_constructible_v<T, const SimOptions&>)
      return std::make_unique<T>(options);
    else
      return std::make_unique<T>();
  };
  return d;
}

// In the order a run builds them (mechanisms/registry.h says why the order matters).
std::vector<ComponentDescriptor> mechanism_table() {
  std::vector<ComponentDescriptor> t;
  t.push_back(mechanism_entry<internal::Checkpoints>(
      "checkpoints", "periodic saves", false, [](const SimOptions& o, const MechanismContext& c) {
        return internal::Checkpoints::needed(o, c.any_job_checkpoint_interval);
      }));
  t.push_back(mechanism_entry<internal::Failures>(
      "failures", "node failures (generated, replayed)", false,
      [](const SimOptions& o, const MechanismContext&) { return o.mechanisms.fails(); }));
  ComponentDescriptor failure_classes = mechanism_entry<internal::FailureClasses>(
      "failure_classes", "failures by class: GPU, memory, NIC, host, switch, software, ...", false,
      [](const SimOptions& o, const MechanismContext&) {
        return o.mechanisms.has_failure_classes();
      });
  failure_classes.job_columns = {
      {"ettr", "fraction",
       "effective training time ratio: productive GPU time / (GPUs x wall time since its first "
       "start); NaN for a job that did not finish"},
      {"interruptions", "", "times a failure of a class interrupted it"}};
  t.push_back(std::move(failure_classes));
  t.push_back(mechanism_entry<internal::Availability>(
      "availability", "nodes unavailable in windows (maintenance, preemptible capacity)", false,
      [](const SimOptions& o, const MechanismContext&) {
        return !o.mechanisms.availability_trace.empty();
      }));
  t.push_back(mechanism_entry<internal::SupplyFollowing>(
      "supply_following", "capacity follows the power supply (pause, resume)", false,
      [](const SimOptions& o, const MechanismContext&) {
        return o.power.enabled && o.supply.follow;
      }));
  t.push_back(mechanism_entry<internal::Preemption>(
      "preemption", "lease rounds, priority evictions", true,
      [](const SimOptions& o, const MechanismContext& c) { return run_preempts(o, c); }));
  t.push_back(mechanism_entry<internal::Elastic>(
      "elastic", "shrink for the queue's head, grow when idle", true,
      [](const SimOptions& o, const MechanismContext&) { return o.mechanisms.elastic; }));
  t.push_back(mechanism_entry<internal::Migration>(
      "migration", "make room, compact", true,
      [](const SimOptions& o, const MechanismContext&) { return o.mechanisms.migrates(); }));
  t.push_back(mechanism_entry<internal::TypeUpgrade>(
      "upgrade_type", "move a job to a faster GPU type", true,
      [](const SimOptions& o, const MechanismContext&) { return o.mechanisms.upgrade_type; }));
  t.push_back(mechanism_entry<internal::IdlePowerOff>(
      "idle_power_off", "idle nodes switched off, booted again for a waiting job", true,
      [](const SimOptions& o, const MechanismContext&) {
        return o.power.enabled && o.power.idle_off_after_s.has_value();
      }));
  t.push_back(mechanism_entry<internal::CarbonDeferral>(
      "carbon_deferral", "deferrable jobs wait for low-carbon hours within their slack", true,
      [](const SimOptions& o, const MechanismContext&) {
        return o.power.enabled && o.supply.defer != SupplyOptions::Defer::kOff;
      }));
  return t;
}

// In the order a run multiplies their factors.
std::vector<ComponentDescriptor> rate_models() {
  std::vector<ComponentDescriptor> t;
  ComponentDescriptor sharing =
      describe(ComponentKind::kRateModel, "sharing",
               "GPU shares slow each other (constant or pair table); co-located time", {"sharing"});
  sharing.caps.small_jobs = true;  // it rates GPU shares
  sharing.factory.wanted = [](const SimOptions& o, const MechanismContext&) {
    return o.sharing.enabled();
  };
  sharing.factory.rate_model = [](const SimOptions& o) -> std::unique_ptr<RateModel> {
    return std::make_unique<internal::SharingInterference>(o.sharing);
  };
  t.push_back(std::move(sharing));
  ComponentDescriptor llm =
      describe(ComponentKind::kRateModel, "llm",
               "LLM jobs' iteration time on what they hold (GPU peak, layout, scale-up domains)",
               {"fabric"});
  llm.factory.wanted = [](const SimOptions& o, const MechanismContext&) {
    return o.fabric.has_llm_jobs();
  };
  llm.factory.rate_model = [](const SimOptions& o) -> std::unique_ptr<RateModel> {
    return std::make_unique<internal::LlmRateModel>(o.fabric);
  };
  llm.job_columns = {
      {"iter_alone_s", "s", "mean iteration time alone on its GPUs; NaN for a job without a model"},
      {"iter_s", "s", "mean iteration time as run, shared links included"},
      {"contention_slowdown", "", "iter_s / iter_alone_s (1: no contention)"}};
  llm.sample_columns = {{"leaf_uplink_util", "fraction",
                         "mean utilisation of the leaf uplinks (with [fabric] tiers)"},
                        {"spine_uplink_util", "fraction", "mean utilisation of the spine uplinks"}};
  t.push_back(std::move(llm));
  // An observer of factor 1 (metrics/power_meter.h): the rate seam tells it of every change of
  // holdings, between which power is constant.
  ComponentDescriptor power = describe(ComponentKind::kRateModel, "power",
                                       "meters power, energy and carbon; supply from grid, "
                                       "solar and battery ([power], [supply])",
                                       {"power"});
  power.caps.small_jobs = true;  // a share of a GPU draws that share of its dynamic power
  power.factory.wanted = [](const SimOptions& o, const MechanismContext&) {
    return o.power.enabled;
  };
  power.factory.rate_model = [](const SimOptions& o) -> std::unique_ptr<RateModel> {
    return std::make_unique<internal::PowerMeter>(o.power, o.supply);
  };
  power.job_columns = {
      {"energy_kwh", "kWh", "facility energy attributed to the job (PUE included)"},
      {"carbon_kg", "kgCO2e", "carbon of the grid energy attributed to the job"}};
  power.sample_columns = {
      {"power_w", "W", "facility power"},
      {"solar_w", "W", "solar output (with a [supply] of solar, battery or grid cap)"},
      {"grid_w", "W", "power drawn from the grid"},
      {"battery_kwh", "kWh", "energy stored in the battery"}};
  t.push_back(std::move(power));
  return t;
}

ComponentDescriptor task_placement_entry(
    std::string name, std::string summary,
    std::function<std::unique_ptr<TaskPlacementPolicy>(const CompassOptions&)> make,
    bool plans_queries = false) {
  ComponentDescriptor d = describe(ComponentKind::kTaskPlacement, std::move(name),
                                   std::move(summary), {"serving task placement"});
  if (plans_queries) d.key_components.push_back("serving compass placement");
  d.caps.plans_queries = plans_queries;
  d.factory.task_placement = std::move(make);
  return d;
}

// The serving engine's task placements (task_placement.h); the first is the default.
std::vector<ComponentDescriptor> task_placements() {
  std::vector<ComponentDescriptor> t;
  t.push_back(task_placement_entry(
      "compass", "Compass: plans each query's tasks on arrival, re-plans a task kept waiting",
      serving_internal::make_compass_placement, true));
  t.push_back(task_placement_entry("round_robin", "GPUs in turn", [](const CompassOptions&) {
    return serving_internal::make_round_robin_placement();
  }));
  t.push_back(task_placement_entry(
      "least_loaded", "the GPU that frees up first",
      [](const CompassOptions&) { return serving_internal::make_least_loaded_placement(); }));
  t.push_back(task_placement_entry(
      "model_affinity", "a GPU holding the task's model, else the least loaded",
      [](const CompassOptions&) { return serving_internal::make_model_affinity_placement(); }));
  t.push_back(task_placement_entry(
      "heft", "earliest finish time, counting model loads and transfers (HEFT)",
      [](const CompassOptions&) { return serving_internal::make_heft_placement(); }));
  return t;
}

// The serving engine's model cache policies (model_cache.h); the first is the default.
std::vector<ComponentDescriptor> cache_policies() {
  std::vector<ComponentDescriptor> t;
  ComponentDescriptor lru = describe(ComponentKind::kCachePolicy, "lru",
                                     "evicts the least recently used models", {"serving cache"});
  lru.factory.cache_policy = [](int) { return serving_internal::make_lru_cache(); };
  t.push_back(std::move(lru));
  ComponentDescriptor compass = describe(
      ComponentKind::kCachePolicy, "compass",
      "keeps the models of the next queued tasks (Compass' lookahead), then least recently used",
      {"serving cache", "serving compass cache"});
  compass.caps.looks_ahead = true;
  compass.factory.cache_policy = serving_internal::make_compass_cache;
  t.push_back(std::move(compass));
  return t;
}

// The fleet's global routers (fleet.h); the first is the default.
std::vector<ComponentDescriptor> routers() {
  std::vector<ComponentDescriptor> t;
  const auto entry = [&](std::string name, std::string summary,
                         std::unique_ptr<FleetRouter> (*make)()) {
    ComponentDescriptor d =
        describe(ComponentKind::kRouter, std::move(name), std::move(summary), {});
    d.factory.router = make;
    t.push_back(std::move(d));
  };
  entry("least_loaded", "the cluster with the least queued + running GPU demand per GPU",
        policies::make_least_loaded_router);
  entry("capacity_fit",
        "a cluster with the job's GPU type and count where it can start soonest (fleet.h's "
        "estimate)",
        policies::make_capacity_fit_router);
  entry("carbon_aware", "the region with the lowest carbon intensity now, then the least loaded",
        policies::make_carbon_aware_router);
  entry("home", "the job's own cluster or region (fleet homes)", policies::make_home_router);
  return t;
}

const std::vector<ComponentDescriptor>& built_in(ComponentKind kind) {
  // In ComponentKind's order: the trace formats and generators are the I/O edge's tables.
  static const std::vector<ComponentDescriptor> tables[] = {ordering_policies(),
                                                            deciders(),
                                                            placements(),
                                                            allocations(),
                                                            mechanism_table(),
                                                            study_placements(),
                                                            rate_models(),
                                                            {},
                                                            task_placements(),
                                                            cache_policies(),
                                                            {},
                                                            routers()};
  return tables[static_cast<std::size_t>(kind)];
}

// Registered components: pointers stay valid as the list grows.
std::vector<std::unique_ptr<ComponentDescriptor>>& registered() {
  static std::vector<std::unique_ptr<ComponentDescriptor>> list;
  return list;
}

}  // namespace

std::string_view component_kind_name(ComponentKind kind) {
  switch (kind) {
    case ComponentKind::kOrderingPolicy:
      return "ordering_policy";
    case ComponentKind::kDecider:
      return "decider";
    case ComponentKind::kPlacement:
      return "placement";
    case ComponentKind::kAllocation:
      return "allocation";
    case ComponentKind::kMechanism:
      return "mechanism";
    case ComponentKind::kStudyPlacement:
      return "study_placement";
    case ComponentKind::kRateModel:
      return "rate_model";
    case ComponentKind::kTraceFormat:
      return "trace_format";
    case ComponentKind::kTaskPlacement:
      return "task_placement";
    case ComponentKind::kCachePolicy:
      return "cache_policy";
    case ComponentKind::kGenerator:
      return "generator";
    case ComponentKind::kRouter:
      return "router";
  }
  return "unknown";
}

ComponentDescriptor describe(ComponentKind kind, std::string name, std::string summary,
                             std::vector<std::string> key_components) {
  ComponentDescriptor d;
  d.kind = kind;
  d.name = std::move(name);
  d.summary = std::move(summary);
  d.key_components = std::move(key_components);
  return d;
}

std::vector<const ComponentDescriptor*> components(ComponentKind kind) {
  std::vector<const ComponentDescriptor*> out;
  for (const ComponentDescriptor& d : built_in(kind)) out.push_back(&d);
  for (const auto& d : registered())
    if (d->kind == kind) out.push_back(d.get());
  return out;
}

const ComponentDescriptor* find_component(ComponentKind kind, std::string_view name) {
  for (const ComponentDescriptor& d : built_in(kind))
    if (d.name == name) return &d;
  for (const auto& d : registered())
    if (d->kind == kind && d->name == name) return d.get();
  return nullptr;
}

std::vector<std::string> component_names(ComponentKind kind) {
  std::vector<std::string> names;
  for (const ComponentDescriptor* d : components(kind)) names.push_back(d->name);
  return names;
}

std::vector<std::string> component_keys(const ComponentDescriptor& descriptor) {
  std::vector<std::string> names;
  for (const KeyDecl& key : simulator_keys().keys())
    if (std::find(descriptor.key_components.begin(), descriptor.key_components.end(),
                  key.component) != descriptor.key_components.end())
      names.push_back(key.name);
  return names;
}

std::vector<ColumnDecl> declared_columns(bool samples) {
  std::vector<ColumnDecl> out;
  for (ComponentKind kind : {ComponentKind::kMechanism, ComponentKind::kRateModel})
    for (const ComponentDescriptor* d : components(kind))
      for (const ColumnDecl& column : samples ? d->sample_columns : d->job_columns)
        if (std::none_of(out.begin(), out.end(),
                         [&](const ColumnDecl& known) { return known.name == column.name; }))
          out.push_back(column);
  return out;
}

ComponentRegistrar::ComponentRegistrar(ComponentDescriptor descriptor) {
  const std::string what =
      std::string(component_kind_name(descriptor.kind)) + " '" + descriptor.name + "'";
  if (descriptor.name.empty()) throw std::invalid_argument("a component needs a name");
  if (find_component(descriptor.kind, descriptor.name))
    throw std::invalid_argument(what + " is registered already");
  const ComponentFactory& f = descriptor.factory;
  const bool buildable = [&] {
    switch (descriptor.kind) {
      case ComponentKind::kOrderingPolicy:
        return static_cast<bool>(f.ordering_policy);
      case ComponentKind::kDecider:
        return f.time_share != nullptr;
      case ComponentKind::kPlacement:
        return static_cast<bool>(f.placement);
      case ComponentKind::kAllocation:
        return static_cast<bool>(f.allocation);
      case ComponentKind::kStudyPlacement:
        return static_cast<bool>(f.study_placement);
      case ComponentKind::kRateModel:
        return f.wanted && f.rate_model;
      case ComponentKind::kTaskPlacement:
        return static_cast<bool>(f.task_placement);
      case ComponentKind::kCachePolicy:
        return static_cast<bool>(f.cache_policy);
      case ComponentKind::kRouter:
        return static_cast<bool>(f.router);
      case ComponentKind::kTraceFormat:
      case ComponentKind::kGenerator:
        return false;  // the readers' and generators' tables (workload.h, generator.h)
      case ComponentKind::kMechanism:
        // One that plugs into the built-in decider must be one of the simulator's own.
        return f.wanted && f.mechanism && !descriptor.caps.needs_built_in_decider;
    }
    return false;
  }();
  if (!buildable)
    throw std::invalid_argument(what + " has no factory for its kind" +
                                (descriptor.kind == ComponentKind::kMechanism
                                     ? " (a registered mechanism acts under any decider)"
                                     : ""));
  registered().push_back(std::make_unique<ComponentDescriptor>(std::move(descriptor)));
}

bool has_own_decider(const SchedulerOptions& scheduler) {
  const ComponentDescriptor* d = find_component(ComponentKind::kDecider, scheduler.policy);
  return d && d->caps.own_decider;
}

bool run_preempts(const SchedulerOptions& scheduler, const SchedulingPolicy& policy) {
  return has_own_decider(scheduler) || scheduler.preemption.value_or(policy.preemptive());
}

bool run_preempts(const SchedulerOptions& scheduler) {
  if (has_own_decider(scheduler)) return true;  // no ordering policy to build
  return run_preempts(scheduler, *make_scheduling_policy(scheduler));
}

bool run_preempts(const SimOptions& options, const MechanismContext& context) {
  if (context.users_decisions && !has_own_decider(options.scheduler))
    return options.scheduler.preemption.value_or(false);
  return run_preempts(options);
}

bool run_preempts(const SimOptions& options) {
  if (has_own_decider(options.scheduler)) return true;
  return run_preempts(options.scheduler, *make_scheduling_policy(options));
}

}  // namespace clustersim
