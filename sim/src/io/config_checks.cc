// Checks of a whole run config before it runs: settings that cannot act (said, naming the key
// and why) and settings that would make a run effectively endless (refused with the estimated
// event count). config.h states what each looks at.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/fleet_config.h"
#include "clustersim/llm.h"
#include "clustersim/options.h"
#include "clustersim/policy.h"
#include "clustersim/power.h"
#include "clustersim/throughput_model.h"

namespace clustersim {

namespace {

std::string number(double value) {
  std::ostringstream out;
  out.precision(3);
  out << value;
  return out.str();
}

// What the named component's descriptor says (false for a name no component has).
bool capable(ComponentKind kind, std::string_view name, bool ComponentCapabilities::*capability) {
  if (kind == ComponentKind::kTraceFormat) {
    for (const ComponentDescriptor& format : trace_format_components())
      if (format.name == name) return format.caps.*capability;
    return false;
  }
  if (kind == ComponentKind::kGenerator) {
    const ComponentDescriptor* generator = find_generator(name);
    return generator && generator->caps.*capability;
  }
  const ComponentDescriptor* descriptor = find_component(kind, name);
  return descriptor && descriptor->caps.*capability;
}

// The trace formats with `capability`, as a message lists them: "\"csv\" or \"openb\"".
std::string formats_with(bool ComponentCapabilities::*capability) {
  std::vector<std::string> names;
  for (const ComponentDescriptor& format : trace_format_components())
    if (format.caps.*capability) names.push_back('"' + format.name + '"');
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

// The keys only a decider of its own reads (Gavel's rounds): its descriptors' keys that no
// ordering policy or the built-in decider declares, bound to SimOptions and with no condition
// of their own (the parser refuses those where their condition fails), in declaration order.
std::vector<const KeyDecl*> own_decider_keys() {
  std::vector<std::string> shared;
  for (const ComponentDescriptor* d : components(ComponentKind::kOrderingPolicy))
    for (std::string& name : component_keys(*d)) shared.push_back(std::move(name));
  std::vector<const KeyDecl*> keys;
  for (const ComponentDescriptor* d : components(ComponentKind::kDecider)) {
    for (const std::string& name : component_keys(*d)) {
      const KeyDecl* key = simulator_keys().find(name);
      const bool own =
          d->caps.own_decider && std::find(shared.begin(), shared.end(), name) == shared.end();
      if (!own) shared.push_back(name);  // the built-in decider's keys come first
      if (!own || !key || key->when || key->target != KeyTarget::kSimOptions || !key->bound() ||
          std::find(keys.begin(), keys.end(), key) != keys.end())
        continue;
      keys.push_back(key);
    }
  }
  return keys;
}

// [power] and [supply]: keys that cannot act, and GPU types the meter knows no figures for.
template <class Warn>
void power_warnings(const SimOptions& sim, const Warn& warn) {
  const SupplyOptions& supply = sim.supply;
  const SupplyOptions defaults;
  if (!sim.power.enabled) {
    if (!supply.carbon_trace.empty() || supply.carbon_g_per_kwh != defaults.carbon_g_per_kwh ||
        supply.grid_cap_w || !supply.solar_trace.empty() || supply.battery_kwh > 0.0 ||
        supply.follow || !supply.job_values.empty() || supply.defer != defaults.defer)
      warn("supply", "cannot act: [power] enabled is false, so nothing is metered");
    if (!sim.power.gpu_cap_w.empty())
      warn("power.gpu_cap_w", "cannot act: [power] enabled is false");
    if (sim.power.idle_off_after_s)
      warn("power.idle_off_after_s", "cannot act: [power] enabled is false");
    return;
  }
  const PowerOptions power_defaults;
  if (!sim.power.idle_off_after_s &&
      (sim.power.boot_s != power_defaults.boot_s ||
       sim.power.standby_w_per_node != power_defaults.standby_w_per_node))
    warn("power.boot_s", "cannot act: power.idle_off_after_s is not set (nodes stay on)");
  if (sim.power.idle_off_after_s && has_own_decider(sim.scheduler))
    warn("power.idle_off_after_s", "cannot act: the scheduler has a decider of its own");
  if (supply.follow_cap_floor != defaults.follow_cap_floor && !supply.follow)
    warn("supply.follow_cap_floor", "cannot act: supply.follow is off");
  if (!sim.power.gpu_cap_exponent.empty() && sim.power.gpu_cap_w.empty() &&
      !(supply.follow && supply.follow_cap_floor < 1.0))
    warn("power.gpu_cap_exponent",
         "cannot act: no power.gpu_cap_w and no supply.follow_cap_floor below 1 cap a GPU");
  if (supply.carbon_trace.empty() && supply.carbon_column != defaults.carbon_column)
    warn("supply.carbon_column", "cannot act: no supply.carbon_trace");
  if (!supply.solar_trace.empty() && supply.solar_capacity_w <= 0.0)
    warn("supply.solar_trace", "cannot act: supply.solar_capacity_w is 0");
  if (supply.solar_trace.empty() && supply.solar_capacity_w > 0.0)
    warn("supply.solar_capacity_w", "cannot act: no supply.solar_trace");
  if (supply.follow && !supply.grid_cap_w && supply.solar_trace.empty())
    warn("supply.follow", "cannot act: the supply is unlimited (no grid_cap_w, no solar_trace)");
  else if (supply.follow && !supply.grid_cap_w)
    warn("supply.follow",
         "no grid_cap_w: capacity follows solar alone (the meter still draws any shortfall "
         "from the grid)");
  if (supply.defer != defaults.defer && supply.carbon_trace.empty())
    warn("supply.defer",
         "cannot act: no supply.carbon_trace (a constant intensity gives no "
         "better hour to wait for)");
  if (supply.defer != SupplyOptions::Defer::kBelow &&
      supply.defer_below_g_per_kwh != defaults.defer_below_g_per_kwh)
    warn("supply.defer_below_g_per_kwh", "cannot act: supply.defer is not \"below\"");
  if (supply.defer != defaults.defer && has_own_decider(sim.scheduler))
    warn("supply.defer", "cannot act: the scheduler has a decider of its own");
  if (supply.battery_kwh > 0.0 && supply.solar_trace.empty())
    warn("supply.battery_kwh", "cannot act: the battery charges from solar only (no solar_trace)");
  for (const NodeGroupSpec& group : sim.cluster.groups) {
    const auto given = [&](const std::vector<std::pair<std::string, double>>& table) {
      return std::any_of(table.begin(), table.end(),
                         [&](const auto& entry) { return entry.first == group.gpu_type; });
    };
    if (!vendor_gpu_power(group.gpu_type) &&
        !(given(sim.power.gpu_idle_w) && given(sim.power.gpu_peak_w)))
      warn("power.gpu_peak_w", "no vendor figures for GPU type '" + group.gpu_type +
                                   "': an A100's (idle 60 W, peak 400 W) unless given");
  }
}

bool empirical(const OverheadCost& cost) { return cost.model == OverheadCost::Model::kEmpirical; }

}  // namespace

std::vector<ConfigWarning> config_warnings(const RunConfig& config) {
  std::vector<ConfigWarning> warnings;
  if (config.workload.serving_catalog) return warnings;  // serving keys are refused elsewhere
  const SimOptions& sim = config.sim;
  const MechanismOptions& m = sim.mechanisms;
  const MechanismOptions defaults;
  const auto warn = [&](std::string key, std::string message) {
    warnings.push_back({std::move(key), std::move(message)});
  };

  // [fleet]: the home column is read by the `home` router only; the links carry only what the
  // rebalancer moves, and it moves jobs only over links between clusters.
  if (const FleetConfig* fleet = config.fleet.get()) {
    const FleetSpec& spec = fleet->spec;
    if (fleet->home_column_set && !fleet_router_reads_homes(spec))
      warn("fleet.home_column",
           "cannot act: only the `home` router reads it (router = \"" + spec.router + "\")");
    if (!spec.links.empty() && !spec.rebalance.enabled)
      warn("fleet.links",
           "cannot act: no job moves between clusters with the rebalancer off "
           "([fleet.rebalance] enabled = false)");
    if (spec.rebalance.enabled && spec.clusters.size() < 2)
      warn("fleet.rebalance.enabled", "cannot act: one cluster, nowhere to move a job");
    else if (spec.rebalance.enabled && spec.links.empty())
      warn("fleet.rebalance.enabled", "cannot act: no [[fleet.links]] to move jobs over");
    else if (fleet->rebalance_set && !spec.rebalance.enabled)
      for (const char* key : {"threshold", "interval_s", "input_gb"})
        if (fleet->rebalance_keys.count(key))
          warn(std::string("fleet.rebalance.") + key, "cannot act: the rebalancer is off");
  }

  // The placement study's keys, in time (departures = "trace"): nothing to drop, shuffle or
  // inflate there.
  if (!config.workload.placement_study()) {
    const WorkloadSource& w = config.workload;
    const std::string needs = "cannot act: it needs departures = \"none\" (the placement study)";
    if (w.on_unplaceable == OnUnplaceable::kDrop)
      warn("workload.on_unplaceable", "\"drop\" " + needs + "; in time a job waits");
    if (w.arrival_order == ArrivalOrder::kShuffle)
      warn("workload.arrival_order",
           "\"shuffle\" " + needs + "; in time arrivals keep their times");
    if (w.inflate_to > 0.0) warn("workload.inflate_to", needs);
  }

  // GPU sharing acts on jobs asking for a share of one GPU: only some trace formats have them
  // (their descriptors say which).
  if (sim.sharing.enabled() &&
      (!config.workload.trace_path ||
       !capable(ComponentKind::kTraceFormat, trace_format_name(config.workload.format),
                &ComponentCapabilities::gpu_shares)))
    warn("sharing.interference", "cannot act: only a trace of format " +
                                     formats_with(&ComponentCapabilities::gpu_shares) +
                                     " has jobs asking for a share of one GPU");

  // [fabric] acts on LLM jobs, which only some trace formats (the native CSV's model and layout
  // columns) and generators make (their descriptors say which); its leaves (hosts_per_leaf, a
  // topology map) also bound a leaf-switch failure class's domain.
  const bool llm_jobs =
      config.workload.trace_path
          ? capable(ComponentKind::kTraceFormat, trace_format_name(config.workload.format),
                    &ComponentCapabilities::llm_jobs)
          : config.workload.generator &&
                capable(ComponentKind::kGenerator, config.workload.generator->shape,
                        &ComponentCapabilities::llm_jobs);
  if (!llm_jobs) {
    const FabricOptions& f = sim.fabric;
    const FabricOptions unset;
    const bool leaf_failures =
        std::any_of(m.failure_classes.begin(), m.failure_classes.end(),
                    [](const FailureClass& c) { return c.unit == FailureUnit::kLeaf; });
    const std::pair<const char*, bool> set[] = {
        {"fabric.scale_up_gpus", f.scale_up_gpus != unset.scale_up_gpus},
        {"fabric.scale_out_gbytes_per_s", f.scale_out_gbytes_per_s != unset.scale_out_gbytes_per_s},
        {"fabric.efficiency", f.efficiency != unset.efficiency},
        {"fabric.efficiency_by_type", !f.efficiency_by_type.empty()},
        {"fabric.collective_table", !f.collective_table.empty()},
        {"fabric.tp_exposed", f.tp_exposed != unset.tp_exposed},
        {"fabric.hosts_per_leaf", f.hosts_per_leaf != unset.hosts_per_leaf && !leaf_failures},
        {"fabric.leaves_per_spine", f.leaves_per_spine != unset.leaves_per_spine},
        {"fabric.leaf_oversubscription", f.leaf_oversubscription != unset.leaf_oversubscription},
        {"fabric.spine_oversubscription", f.spine_oversubscription != unset.spine_oversubscription},
        {"fabric.topology", !f.topology.empty() && !leaf_failures}};
    for (const auto& [key, is_set] : set)
      if (is_set)
        warn(key,
             "cannot act: only LLM jobs use [fabric] (a csv trace's model and layout "
             "columns, or generator = \"llm_era\": sim/README.md, \"LLM jobs\")");
  }

  // An efficiency for a GPU type the cluster lacks never applies.
  for (const auto& [key, efficiency] : sim.fabric.efficiency_by_type) {
    const std::string type = key.substr(0, key.rfind('_'));
    const bool present = std::any_of(sim.cluster.groups.begin(), sim.cluster.groups.end(),
                                     [&](const NodeGroupSpec& group) {
                                       const GpuPeak* peak = gpu_peak(group.gpu_type);
                                       return peak && peak->name == type;
                                     });
    if (!present)
      warn("fabric.efficiency_by_type",
           "cannot act on " + key + ": the cluster has no " + type + " GPUs");
  }

  // On-demand migration makes room for the queue's head only where being consolidated helps it:
  // with any locality the head starts split anyway, and only a placement penalty (cross-node or
  // cross-rack factor < 1) makes consolidation worth a move; compaction needs a threshold.
  const bool placement_model = !config.throughput_model;
  if (m.migration == MechanismOptions::Migration::kOnDemand && m.defrag_threshold == 0.0) {
    if (!capable(ComponentKind::kPlacement, sim.scheduler.placement,
                 &ComponentCapabilities::consolidates)) {
      warn(
          "mechanisms.migration",
          "\"on_demand\" cannot act: it makes room for a consolidated start, which placement = \"" +
              sim.scheduler.placement +
              "\" never uses (and defrag_threshold = 0 never compacts); it only costs time");
    } else if (!sim.scheduler.strict_locality && placement_model &&
               sim.penalty.cross_node_factor >= 1.0 && sim.penalty.cross_rack_factor >= 1.0) {
      warn("mechanisms.migration",
           "\"on_demand\" cannot act: with scheduler.locality = \"any\" a waiting job starts "
           "split anyway, and with throughput cross_node_factor = cross_rack_factor = 1 it gains "
           "nothing from being consolidated, so no move ever pays (and defrag_threshold = 0 "
           "never compacts); set locality = \"strict\", a factor below 1, or defrag_threshold > 0");
    }
  }
  if (!m.migrates()) {
    if (m.defrag_threshold != defaults.defrag_threshold)
      warn("mechanisms.defrag_threshold", "cannot act: mechanisms.migration = \"off\"");
    if (m.defrag_max_moves != defaults.defrag_max_moves)
      warn("mechanisms.defrag_max_moves", "cannot act: mechanisms.migration = \"off\"");
  }
  if (m.migration != MechanismOptions::Migration::kPeriodic &&
      m.defrag_period_s != defaults.defrag_period_s)
    warn("mechanisms.defrag_period_s", "cannot act: mechanisms.migration is not \"periodic\"");

  // Preemption costs are paid by a save or a restore: a policy that never preempts, with nothing
  // else that saves or restores a job, never pays them (a trace's own checkpoint_interval_s
  // column may save: traces are not judged here).
  const bool saves = run_preempts(sim.scheduler) || m.fails() || m.checkpoint_interval_s > 0.0 ||
                     m.migrates() || m.elastic || m.preempt_on_arrival ||
                     (config.serving && sim.serving.priority);  // serving preempts training
  if (!saves && !config.workload.trace_path) {
    for (const auto& [key, seconds] :
         {std::pair{"scheduler.checkpoint_s", sim.scheduler.checkpoint_s},
          std::pair{"scheduler.restore_s", sim.scheduler.restore_s}})
      if (seconds > 0.0)
        warn(key, "= " + number(seconds) + " cannot act: scheduler.policy = \"" +
                      sim.scheduler.policy +
                      "\" never preempts, and nothing else saves or restores a job (no failures, "
                      "periodic checkpoints, migration or resizing)");
  }
  // A minimum run holds back preemption rounds; without them it has nothing to hold back.
  if (sim.scheduler.min_run_s > 0.0) {
    if (has_own_decider(sim.scheduler))
      warn("scheduler.min_run_s",
           "= " + number(sim.scheduler.min_run_s) + " cannot act: scheduler.policy = \"" +
               sim.scheduler.policy +
               "\" has a decider of its own (Gavel's), whose leases are its allocation's");
    else if (!run_preempts(sim.scheduler))
      warn("scheduler.min_run_s", "= " + number(sim.scheduler.min_run_s) +
                                      " cannot act: scheduler.policy = \"" + sim.scheduler.policy +
                                      "\" never preempts");
  }
  // The promotion knob is read by the ordering policy that declares it (its descriptor's keys).
  if (sim.scheduler.tiresias_promote_knob > 0.0) {
    const ComponentDescriptor* policy =
        find_component(ComponentKind::kOrderingPolicy, sim.scheduler.policy);
    const std::vector<std::string> keys =
        policy ? component_keys(*policy) : std::vector<std::string>{};
    if (std::find(keys.begin(), keys.end(), "scheduler.tiresias_promote_knob") == keys.end())
      warn("scheduler.tiresias_promote_knob", "= " + number(sim.scheduler.tiresias_promote_knob) +
                                                  " cannot act: scheduler.policy = \"" +
                                                  sim.scheduler.policy +
                                                  "\" does not read it (the Tiresias policy does)");
  }
  if (m.elastic && config.workload.generator && config.workload.generator->elastic_fraction <= 0.0)
    warn("mechanisms.elastic",
         "= true cannot act: no generated job is elastic (workload.elastic_fraction = 0)");
  if (sim.scheduler.honor_priority && config.workload.generator)
    warn("scheduler.honor_priority",
         "= true cannot act: generated jobs all have the same priority");
  if (sim.scheduler.vc_quota == VcQuotaMode::kLend && sim.cluster.vcs.empty())
    warn("scheduler.vc_quota",
         "= \"lend\" cannot act: the cluster has no VC quotas ([cluster] vcs)");
  // Moving to a faster type needs types of different speeds, and the built-in decider.
  if (m.upgrade_type) {
    if (has_own_decider(sim.scheduler) && capable(ComponentKind::kMechanism, "upgrade_type",
                                                  &ComponentCapabilities::needs_built_in_decider))
      warn("mechanisms.upgrade_type",
           "= true cannot act: Gavel's policies (scheduler.policy = \"" + sim.scheduler.policy +
               "\") have a decider of their own, whose allocation chooses each job's type");
    else if (!config.throughput_model || !config.throughput_model->typed())
      warn("mechanisms.upgrade_type",
           "= true cannot act: without per-type speeds ([throughput] model = \"table\") no GPU "
           "type is faster than another");
  }
  // A decider of its own (Gavel's) has none of the mechanisms that plug into the built-in
  // decider (their descriptors say which): their keys, set, cannot act (once each: a key
  // already said above keeps its own reason).
  if (has_own_decider(sim.scheduler)) {
    for (const ComponentDescriptor* mechanism : components(ComponentKind::kMechanism)) {
      if (!mechanism->caps.needs_built_in_decider) continue;
      for (const std::string& name : component_keys(*mechanism)) {
        const KeyDecl* key = simulator_keys().find(name);
        if (!key || key->target != KeyTarget::kSimOptions || !key->bound() ||
            key->get(&sim) == key->default_value ||
            std::any_of(warnings.begin(), warnings.end(),
                        [&](const ConfigWarning& w) { return w.key == name; }))
          continue;
        warn(name, "cannot act: scheduler.policy = \"" + sim.scheduler.policy +
                       "\" has a decider of its own (Gavel's), without the built-in decider's " +
                       mechanism->name + " mechanism");
      }
    }
  }
  // A heterogeneity-aware (`_perf`) policy sees each type's speed through the throughput model.
  // Without per-type speeds every job runs at one speed on every type, so on a cluster of
  // several types its allocation is the agnostic one and the run's times are not Gavel's
  // (measured on Gavel's example without its table: mean JCT 37.2 h instead of 52.6 h).
  if (has_own_decider(sim.scheduler) && sim.scheduler.policy.ends_with("_perf") &&
      (!config.throughput_model || !config.throughput_model->typed())) {
    std::vector<std::string> types;
    for (const NodeGroupSpec& group : sim.cluster.groups)
      if (std::find(types.begin(), types.end(), group.gpu_type) == types.end())
        types.push_back(group.gpu_type);
    if (types.size() > 1)
      warn("scheduler.policy",
           "= \"" + sim.scheduler.policy +
               "\" cannot act as heterogeneity-aware: without per-type speeds ([throughput] "
               "model = \"table\") every job runs at one speed on all " +
               std::to_string(types.size()) +
               " GPU types, so its allocation is the agnostic one and the JCTs are not those of "
               "a cluster whose types differ in speed");
  }
  // How Gavel's allocations become a schedule is for Gavel's policies only; the exact
  // realisation re-solves at every arrival and completion and has no rounds to walk types in.
  const SchedulerOptions scheduler_defaults;
  if (!has_own_decider(sim.scheduler)) {
    const std::string not_gavel =
        "cannot act: scheduler.policy = \"" + sim.scheduler.policy + "\" is not one of Gavel's";
    for (const KeyDecl* key : own_decider_keys())
      if (key->get(&sim) != key->default_value) warn(key->name, not_gavel);
  } else if (sim.scheduler.rounds != "exact") {
    if (sim.scheduler.exact_fill != scheduler_defaults.exact_fill)
      warn("scheduler.exact_fill",
           "cannot act: rounds = \"" + sim.scheduler.rounds +
               "\"; Gavel's rounds give GPUs left over by the allocation to jobs without a "
               "share of their own (except under fifo_perf)");
  } else {
    if (sim.scheduler.allocation_reset_s != scheduler_defaults.allocation_reset_s)
      warn("scheduler.allocation_reset_s",
           "cannot act: rounds = \"exact\" re-solves the allocation at every arrival and "
           "completion");
    if (sim.scheduler.type_order != scheduler_defaults.type_order)
      warn("scheduler.type_order",
           "cannot act: rounds = \"exact\" ranks (job, type) pairs by deficit, not types in "
           "an order");
  }
  if (!m.fails()) {
    // A failure class (a mix's especially) takes repair_h as its repair time unless it sets one.
    if (m.repair_h != defaults.repair_h && !m.has_failure_classes())
      warn("mechanisms.repair_h",
           "cannot act: no failures (mechanisms.mtbf_h = 0, no failure_trace)");
    if (m.failure_model != defaults.failure_model || m.weibull_shape != defaults.weibull_shape)
      warn("mechanisms.failure_model", "cannot act: no generated failures (mechanisms.mtbf_h = 0)");
  }
  if (m.checkpoint_policy == MechanismOptions::CheckpointPolicy::kYoungDaly && !(m.mtbf_h > 0.0) &&
      !m.has_failure_classes())
    warn("mechanisms.checkpoint_policy",
         "cannot act: no failure rate (mechanisms.mtbf_h = 0, no failure classes)");
  if (!m.has_failure_classes()) {
    for (auto [key, set] :
         {std::pair{"hot_spares", m.hot_spares != defaults.hot_spares},
          {"restart_detect_s", m.restart_detect_s != defaults.restart_detect_s},
          {"restart_reschedule_s", m.restart_reschedule_s != defaults.restart_reschedule_s},
          {"lemon_share", m.lemon_share != defaults.lemon_share},
          {"lemon_factor", m.lemon_factor != defaults.lemon_factor},
          {"quarantine_failures", m.quarantine_failures != defaults.quarantine_failures}})
      if (set)
        warn(std::string("mechanisms.") + key,
             "cannot act: no failure classes ([mechanisms.failure_class.*], failure_mix)");
  }
  // Shrinking acts on every source that takes nodes down under jobs: the failure classes,
  // mtbf_h and failure_trace; not on availability windows (planned: their jobs wait again).
  if (m.shrink_on_failure && !m.has_failure_classes() && !m.fails())
    warn("mechanisms.shrink_on_failure",
         "cannot act: no failures (no failure classes, mechanisms.mtbf_h = 0, no failure_trace)" +
             std::string(m.availability_trace.empty()
                             ? ""
                             : "; availability_trace windows do not shrink jobs"));
  else if (m.shrink_on_failure && !m.elastic)
    warn("mechanisms.shrink_on_failure", "cannot act: mechanisms.elastic is false");
  if (m.checkpoint_write != defaults.checkpoint_write && !(m.checkpoint_interval_s > 0.0) &&
      m.checkpoint_policy != MechanismOptions::CheckpointPolicy::kYoungDaly)
    warn("mechanisms.checkpoint_write",
         "applies to periodic saves only, and none is set (checkpoint_interval_s = 0, "
         "checkpoint_policy = \"fixed\"; a job's own interval still saves so)");
  if (!m.has_failure_classes() && (m.failure_mix_days != defaults.failure_mix_days ||
                                   m.failure_mix_gpus != defaults.failure_mix_gpus))
    warn("mechanisms.failure_mix_days", "cannot act: no mechanisms.failure_mix");
  // The baselines differ only in a job's speed alone, which only per-type speeds make differ.
  if (sim.ftf_baseline != SimOptions{}.ftf_baseline &&
      (!config.throughput_model || !config.throughput_model->typed()))
    warn("metrics.ftf_baseline",
         "cannot act: without per-type speeds ([throughput] model = \"table\") every baseline "
         "is the same");
  power_warnings(sim, warn);
  return warnings;
}

double estimated_span_s(const RunConfig& config, const Workload* workload) {
  const auto& generator = config.workload.generator;
  if (workload && !workload->jobs.empty()) {
    double first = workload->jobs.front().submit_time, last = first, longest = 0.0;
    for (const JobSpec& job : workload->jobs) {
      first = std::min(first, job.submit_time);
      last = std::max(last, job.submit_time);
      longest = std::max(longest, job.duration);
    }
    double span = last - first + longest;
    // A stream that grows: the plan's drain limit bounds it.
    if (generator && config.workload.steady_plan && !config.workload.serving_catalog) {
      const WorkloadShape shape = generator_shape(*generator);
      span = std::max(
          span, static_cast<double>(config.workload.steady_plan->grow_limit) / shape.arrival_rate +
                    longest);
    }
    return span;
  }
  if (generator && !config.workload.serving_catalog &&
      capable(ComponentKind::kGenerator, generator->shape, &ComponentCapabilities::steady_state)) {
    const WorkloadShape shape = generator_shape(*generator);
    double longest = 0.0;
    for (const auto& point : shape.durations) longest = std::max(longest, point.first);
    const double jobs = config.workload.steady_plan
                            ? static_cast<double>(config.workload.steady_plan->grow_limit)
                            : static_cast<double>(generator->jobs);
    return jobs / shape.arrival_rate + longest;
  }
  return 0.0;
}

void check_event_budget(const RunConfig& config, const Workload* workload) {
  if (config.workload.serving_catalog) return;
  const double span = estimated_span_s(config, workload);
  if (!(span > 0.0)) return;
  const SimOptions& sim = config.sim;
  const MechanismOptions& m = sim.mechanisms;
  const auto refuse = [&](const std::string& key, double value, double events,
                          const std::string& what) {
    if (!(events > kMaxEstimatedEvents)) return;
    std::ostringstream message;
    message.precision(3);
    message << "= " << value << " would take about " << events << " " << what << " over the "
            << "workload's ~" << span / 86400.0 << " days (more than " << kMaxEstimatedEvents
            << " events: hours or days of simulation); raise it";
    throw InputError(config.source_name, 0, key, message.str());
  };
  if (sim.sample_interval_s > 0.0)
    refuse("metrics.sample_interval_s", sim.sample_interval_s, span / sim.sample_interval_s,
           "samples");
  if (run_preempts(sim.scheduler) && sim.scheduler.lease_s > 0.0)
    refuse("scheduler.lease_s", sim.scheduler.lease_s, span / sim.scheduler.lease_s,
           "lease rounds");
  if (sim.scheduler.plan_interval_s > 0.0)
    refuse("scheduler.plan_interval_s", sim.scheduler.plan_interval_s,
           span / sim.scheduler.plan_interval_s, "planning rounds");
  if (m.migration == MechanismOptions::Migration::kPeriodic)
    refuse("mechanisms.defrag_period_s", m.defrag_period_s, span / m.defrag_period_s,
           "compactions");
  if (m.mtbf_h > 0.0) {
    const double nodes = [&] {
      double n = 0.0;
      for (const auto& group : sim.cluster.groups) n += group.nodes;
      return n;
    }();
    refuse("mechanisms.mtbf_h", m.mtbf_h, nodes * span / (m.mtbf_h * 3600.0), "node failures");
  }
  if (m.checkpoint_interval_s > 0.0) {
    // Saves happen per running job: the work the jobs hold, over the interval.
    double running = 0.0;
    if (workload) {
      for (const JobSpec& job : workload->jobs) running += job.duration;
    } else if (config.workload.generator && config.workload.steady_plan) {
      const WorkloadShape shape = generator_shape(*config.workload.generator);
      double mean = 0.0;
      for (const auto& [seconds, probability] : shape.durations) mean += seconds * probability;
      running = mean * static_cast<double>(config.workload.steady_plan->grow_limit);
    }
    refuse("mechanisms.checkpoint_interval_s", m.checkpoint_interval_s,
           running / m.checkpoint_interval_s, "periodic checkpoints");
  }
}

bool has_randomness(const RunConfig& config) {
  const SimOptions& sim = config.sim;
  const MechanismOptions& m = sim.mechanisms;
  return (config.workload.generator &&
          capable(ComponentKind::kGenerator, config.workload.generator->shape,
                  &ComponentCapabilities::random)) ||
         capable(ComponentKind::kPlacement, sim.scheduler.placement,
                 &ComponentCapabilities::random) ||
         m.mtbf_h > 0.0 ||
         std::any_of(m.failure_classes.begin(), m.failure_classes.end(),
                     [](const FailureClass& c) { return c.rate_per_h > 0.0; }) ||
         empirical(m.checkpoint_cost) || empirical(m.restore_cost) || empirical(m.migration_cost) ||
         empirical(m.resize_cost) ||
         (config.workload.placement_study() &&
          (config.workload.arrival_order == ArrivalOrder::kShuffle ||
           config.workload.inflate_to > 0.0 ||
           capable(ComponentKind::kStudyPlacement, sim.scheduler.placement,
                   &ComponentCapabilities::random)));
}

}  // namespace clustersim
