// Component descriptors: every pluggable part of a run (ordering policy, decider, placement,
// allocation mechanism, mechanism, rate model, the serving engine's task placement and cache
// policy, trace reader, workload generator) is described once — its name, the config keys it
// declares, what it can do and how to build it. Capability questions ("does the run preempt", "does
// this mechanism need the built-in decider", "who handles CPU-only, fractional and MIG jobs"), the
// name lists and the sweep's cost estimate are answered from here, never by a name written
// again elsewhere.
//
// The built-in components are explicit tables (sim/src/components/components.cc), in a fixed
// order; a program or a test adds its own with a ComponentRegistrar, after the built-in ones,
// in the order it registers them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/fleet.h"
#include "clustersim/generator.h"
#include "clustersim/mechanism.h"
#include "clustersim/model_cache.h"
#include "clustersim/placement.h"
#include "clustersim/placement_study.h"
#include "clustersim/policy.h"
#include "clustersim/rate_model.h"
#include "clustersim/simulator.h"
#include "clustersim/task_placement.h"
#include "clustersim/time_share.h"
#include "clustersim/workload.h"

namespace clustersim {

enum class ComponentKind {
  kOrderingPolicy,  // scheduler.policy: which waiting job goes next
  kDecider,         // scheduler.policy of a decider of its own (Gavel's), or the built-in one
  kPlacement,       // scheduler.placement
  kAllocation,      // scheduler.allocation: CPU, memory and storage per job
  kMechanism,       // [mechanisms]: preemption, migration, failures, ...
  kStudyPlacement,  // scheduler.placement in the placement study (placement_study.h)
  kRateModel,       // a factor of every job's rate (rate_model.h): [sharing]'s interference, ...
  // workload.format: a trace reader. The readers sit at the I/O edge, above the core: their
  // table is trace_format_components() (workload.h), not components().
  kTraceFormat,
  kTaskPlacement,  // scheduler.task_placement: where the serving engine runs each ready task
  kCachePolicy,    // scheduler.cache: which models the serving engine keeps in GPU memory
  // workload.generator: a synthetic workload. Like the readers, the generators sit above the
  // core: their table is generator_components() (generator.h), not components().
  kGenerator,
  // [fleet] router: which cluster of a fleet an arriving job goes to (fleet.h).
  kRouter,
};
inline constexpr ComponentKind kComponentKinds[] = {
    ComponentKind::kOrderingPolicy, ComponentKind::kDecider,       ComponentKind::kPlacement,
    ComponentKind::kAllocation,     ComponentKind::kMechanism,     ComponentKind::kStudyPlacement,
    ComponentKind::kRateModel,      ComponentKind::kTaskPlacement, ComponentKind::kCachePolicy,
    ComponentKind::kRouter};
// The kinds components() answers (all but kTraceFormat and kGenerator).
// "ordering_policy", "decider", "placement", "allocation", "mechanism", "study_placement",
// "rate_model", "trace_format", "task_placement", "cache_policy", "generator", "router".
std::string_view component_kind_name(ComponentKind kind);

struct ComponentCapabilities {
  // Ordering policies and deciders: whether running jobs are preempted (an ordering policy's
  // answer is its own; scheduler.preemption overrides it: run_preempts()).
  bool preempts = false;
  // Deciders: replaces the built-in decider (and with it the built-in decider's mechanisms).
  bool own_decider = false;
  // Mechanisms: a decision mechanism, hooked into each decision and reading the built-in
  // stages (ordering, admission, placement): it acts under the built-in decider and around a
  // user's decisions (a C++ or Python decider, or plans between step() calls), not under a
  // decider of its own (Gavel's). Only the simulator's own can be one.
  bool needs_built_in_decider = false;
  // Runs with CPU-only (0-GPU), fractional and MIG jobs, and MIG slices: those start through
  // the built-in decider's own path and are never moved, nor re-divided.
  bool small_jobs = false;
  // Trace formats: has jobs asking for a share of one GPU (what [sharing] acts on).
  bool gpu_shares = false;
  // Trace formats and generators: may have LLM jobs (a model and a layout: llm.h), what
  // [fabric] acts on.
  bool llm_jobs = false;
  // Trace formats and generators: its workload is serving query DAGs (run on the serving
  // engine), not training jobs.
  bool serving = false;
  // Placements: starts a job on as few nodes as it can (what on-demand migration makes room for).
  bool consolidates = false;
  // Draws on the run's seed (placements, the study's too; generators: workload.seed), so
  // replicates differ.
  bool random = false;
  // Generators: its jobs have a steady-state shape (generator_shape, steady_state.h): arrival
  // rate, GPU demand and duration distributions, which the steady-state rule and the event
  // budget's span estimate use. A generator with `serving` set yields query DAGs instead.
  bool steady_state = false;
  // Task placements: plans a whole query's tasks when it arrives (and re-plans a task whose
  // planned GPU would keep it waiting too long), rather than choosing each ready task alone.
  bool plans_queries = false;
  // Cache policies: looks at the tasks queued on a GPU to choose what to evict, not only at
  // the resident models' past use.
  bool looks_ahead = false;
  // The sweep's cost estimate: events of a run with this component cost this much relative to
  // the cheapest (allocation mechanisms that re-plan every running job cost more).
  double relative_cost = 1.0;
};

// Mechanisms are wanted by a run's options (and the workload's own checkpoint intervals).
struct MechanismContext {
  bool any_job_checkpoint_interval = false;
  // The decisions are a user's (a C++ or Python decider, or plans between step() calls), not the
  // built-in decider's: an ordering policy's own wish to preempt is the built-in decider's, so
  // only scheduler.preemption turns preemption on (run_preempts).
  bool users_decisions = false;
};

// How a component is built: the one member its kind uses is set.
struct ComponentFactory {
  std::function<std::unique_ptr<SchedulingPolicy>(const SchedulerOptions&)> ordering_policy;
  TimeShare (*time_share)(const TimeShareProblem&) = nullptr;  // a decider's allocation
  std::function<std::unique_ptr<PlacementPolicy>(Rng&)> placement;
  std::function<std::unique_ptr<StudyPlacement>(const StudyContext&)> study_placement;
  std::function<std::unique_ptr<AllocationMechanism>(const SchedulerOptions&)> allocation;
  // Mechanisms and rate models: whether the options turn it on, and the mechanism (one that
  // needs the built-in decider is one of the simulator's own: a decision mechanism) or the rate
  // model (it may keep a reference to the options: they outlive it).
  std::function<bool(const SimOptions&, const MechanismContext&)> wanted;
  std::function<std::unique_ptr<Mechanism>(const SimOptions&)> mechanism;
  std::function<std::unique_ptr<RateModel>(const SimOptions&)> rate_model;
  // Trace formats: reads `in` (`source_name` names it in errors).
  Workload (*trace_reader)(std::istream& in, const std::string& source_name,
                           const ReaderOptions& options) = nullptr;
  // Task placements (CompassOptions: the compass placement's settings) and cache policies
  // (ServingOptions::cache_lookahead: the queued tasks a looking-ahead policy considers).
  std::function<std::unique_ptr<TaskPlacementPolicy>(const CompassOptions&)> task_placement;
  std::function<std::unique_ptr<ModelCachePolicy>(int lookahead)> cache_policy;
  // Generators: the workload, and (with caps.steady_state) its steady-state shape.
  Workload (*generator)(const GeneratorOptions& options) = nullptr;
  WorkloadShape (*workload_shape)(const GeneratorOptions& options) = nullptr;
  // Fleet routers (fleet.h).
  std::function<std::unique_ptr<FleetRouter>()> router;
};

// A column a mechanism or rate model may add to a run's per-job or per-sample output
// (RunResult::job_columns, sample_columns): declared once, in its descriptor, so that an output
// with a fixed schema (the sweep's /jobs and /timeseries tables) knows the columns, their units
// and meanings before any row is written, and the schema docs are generated from them.
struct ColumnDecl {
  std::string_view name;
  std::string_view unit;  // "s", "kWh", "fraction", "" (a count or a ratio)
  std::string_view meaning;
};

struct ComponentDescriptor {
  ComponentKind kind = ComponentKind::kOrderingPolicy;
  std::string name;
  std::string summary;
  // The `component` tags of the config keys it declares (KeyDecl::component): its keys are
  // those of simulator_keys() with one of these tags.
  std::vector<std::string> key_components;
  ComponentCapabilities caps;
  ComponentFactory factory;
  // Mechanisms and rate models: every column its run may add (a run may add fewer: the power
  // meter's supply columns only with a supply), in the order it adds them.
  std::vector<ColumnDecl> job_columns;
  std::vector<ColumnDecl> sample_columns;
};

// A descriptor of `kind`: its name, what it is and the tags of its keys; its capabilities and
// factory are the caller's to set.
ComponentDescriptor describe(ComponentKind kind, std::string name, std::string summary,
                             std::vector<std::string> key_components);

// Every component of `kind`: the built-in table, then the registered ones.
std::vector<const ComponentDescriptor*> components(ComponentKind kind);
// The component of `kind` named `name`, or nullptr.
const ComponentDescriptor* find_component(ComponentKind kind, std::string_view name);
// The names of components(kind), in order.
std::vector<std::string> component_names(ComponentKind kind);
// The names of the config keys `descriptor` declares, in declaration order.
std::vector<std::string> component_keys(const ComponentDescriptor& descriptor);

// Every column the mechanisms and rate models declare (ComponentDescriptor::job_columns, or
// ::sample_columns with `samples`), mechanisms first, each kind in components() order: the order
// of the columns a fixed-schema output appends. A name two components declare is listed once.
std::vector<ColumnDecl> declared_columns(bool samples);

// Adds `descriptor` to its kind (after the built-in ones); a name its kind already has is
// refused (std::invalid_argument). A static ComponentRegistrar in a program's or a test's own
// file registers its component before main.
class ComponentRegistrar {
 public:
  explicit ComponentRegistrar(ComponentDescriptor descriptor);
};

// Whether scheduler.policy names a decider of its own (Gavel's time-share policies), which
// replaces the built-in decider.
bool has_own_decider(const SchedulerOptions& scheduler);
// Whether the run preempts running jobs: a decider of its own re-decides every round (it
// preempts); else scheduler.preemption overrides the ordering policy's own answer. The forms
// differ only in which policy is asked: the registry's, the run's (SimOptions::make_policy
// when set), or one already built.
bool run_preempts(const SchedulerOptions& scheduler);
bool run_preempts(const SimOptions& options);
bool run_preempts(const SchedulerOptions& scheduler, const SchedulingPolicy& policy);
// The same for a run whose decisions may be a user's (MechanismContext::users_decisions):
// then only scheduler.preemption = true preempts.
bool run_preempts(const SimOptions& options, const MechanismContext& context);

}  // namespace clustersim
