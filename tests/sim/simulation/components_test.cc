// Component descriptors (component.h): every name a name list gives has a descriptor whose
// factory builds; "does the run preempt" has one answer, the descriptors'; a mechanism
// registered from this file alone is built and runs in a Simulation; and the files that check
// or refuse a configuration compare no scheduler name against a component's name (what a
// component can do is its descriptor's to say): scheduler, serving, trace format or generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/generator.h"
#include "clustersim/model_cache.h"
#include "clustersim/placement_study.h"
#include "clustersim/simulation.h"
#include "clustersim/steady_state.h"
#include "clustersim/task_placement.h"
#include "clustersim/workload.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// A mechanism known only to this file: one timer at `kAt` seconds, which counts itself.
int ticks = 0;
bool tick_wanted = false;
constexpr double kAt = 30.0;

class Tick final : public Mechanism {
 public:
  std::string_view name() const override { return "test_tick"; }
  void attach(Host& host) override {
    host_ = &host;
    kind_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  }
  void start() override { host_->schedule(kAt, kind_, 0); }
  void on_timer(const Timer& timer) override {
    EXPECT_EQ(timer.time, kAt);
    ++ticks;
  }

 private:
  Host* host_ = nullptr;
  TimerKind kind_ = 0;
};

const ComponentRegistrar register_tick([] {
  ComponentDescriptor d;
  d.kind = ComponentKind::kMechanism;
  d.name = "test_tick";
  d.summary = "a timer at 30 s (components_test.cc)";
  d.factory.wanted = [](const SimOptions&, const MechanismContext&) { return tick_wanted; };
  d.factory.mechanism = [](const SimOptions&) { return std::make_unique<Tick>(); };
  return d;
}());

TEST(Components, AMechanismRegisteredInATestFileIsBuiltAndRuns) {
  ASSERT_NE(find_component(ComponentKind::kMechanism, "test_tick"), nullptr);
  EXPECT_EQ(component_names(ComponentKind::kMechanism).back(), "test_tick");  // after built-ins
  const SimOptions options = testing::small_cluster(2, 1);
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100)};
  ticks = 0;
  tick_wanted = false;
  Simulation(options, jobs).run();
  EXPECT_EQ(ticks, 0);  // not wanted: not built
  tick_wanted = true;
  const RunResult result = Simulation(options, jobs).run();
  tick_wanted = false;
  EXPECT_EQ(ticks, 1);
  EXPECT_EQ(result.jobs[0].finish_time, 100.0);
}

TEST(Components, ARegistrationWithoutAFactoryOrWithATakenNameIsRefused) {
  ComponentDescriptor taken;
  taken.kind = ComponentKind::kOrderingPolicy;
  taken.name = "fifo";
  taken.factory.ordering_policy = [](const SchedulerOptions& s) {
    return make_scheduling_policy(s);
  };
  EXPECT_THROW(ComponentRegistrar{taken}, std::invalid_argument);
  ComponentDescriptor no_factory;
  no_factory.kind = ComponentKind::kPlacement;
  no_factory.name = "test_nothing";
  EXPECT_THROW(ComponentRegistrar{no_factory}, std::invalid_argument);
}

TEST(Components, EveryListedNameHasADescriptorWhoseFactoryBuilds) {
  for (const std::string& name : scheduling_policy_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kOrderingPolicy, name);
    ASSERT_NE(d, nullptr) << name;
    SchedulerOptions scheduler;
    scheduler.policy = name;
    ASSERT_NE(d->factory.ordering_policy(scheduler), nullptr) << name;
  }
  for (const std::string& name : time_share_policy_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kDecider, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_TRUE(d->caps.own_decider) << name;
    TimeShareProblem problem;
    problem.types = 1;
    problem.capacity = {1};
    problem.throughput = {1.0};
    problem.gpus = {1};
    problem.remaining = {100.0};
    problem.elapsed = {0.0};
    problem.total_steps = {100.0};
    EXPECT_EQ(solve_time_share(name, problem).x.size(), 1u) << name;
  }
  for (const std::string& name : placement_policy_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kPlacement, name);
    ASSERT_NE(d, nullptr) << name;
    Rng rng(1);
    EXPECT_NE(d->factory.placement(rng), nullptr) << name;
  }
  for (const std::string& name : allocation_mechanism_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kAllocation, name);
    ASSERT_NE(d, nullptr) << name;
    SchedulerOptions scheduler;
    scheduler.allocation = name;
    EXPECT_NE(d->factory.allocation(scheduler), nullptr) << name;
  }
  for (const std::string& name : study_placement_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kStudyPlacement, name);
    ASSERT_NE(d, nullptr) << name;
    Rng rng(1);
    StudyContext context;
    context.rng = &rng;
    EXPECT_NE(d->factory.study_placement(context), nullptr) << name;
  }
  for (TraceFormat format : {TraceFormat::kCsv, TraceFormat::kGavel, TraceFormat::kOpenb,
                             TraceFormat::kHelios, TraceFormat::kPhilly, TraceFormat::kDag}) {
    const auto& formats = trace_format_components();
    ASSERT_LT(static_cast<std::size_t>(format), formats.size());
    const ComponentDescriptor& d = formats[static_cast<std::size_t>(format)];
    EXPECT_EQ(d.name, trace_format_name(format));
    EXPECT_EQ(parse_trace_format(d.name), format);
    EXPECT_NE(d.factory.trace_reader, nullptr) << d.name;
  }
  for (const std::string& name : task_placement_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kTaskPlacement, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_EQ(d->factory.task_placement(CompassOptions{})->name(), name);
  }
  for (const std::string& name : cache_policy_names()) {
    const ComponentDescriptor* d = find_component(ComponentKind::kCachePolicy, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_EQ(d->factory.cache_policy(3)->name(), name);
  }
  // Every generator generates; those with a steady-state shape have one, the others throw.
  for (const ComponentDescriptor& d : generator_components()) {
    EXPECT_EQ(find_generator(d.name), &d);
    EXPECT_TRUE(d.caps.random) << d.name;  // every generator draws on workload.seed
    GeneratorOptions generator;
    generator.shape = d.name;
    generator.jobs = 5;
    generator.queries = 5;
    const Workload workload = d.factory.generator(generator);
    EXPECT_EQ(workload.dag.has_value(), d.caps.serving) << d.name;
    EXPECT_EQ(d.caps.serving ? workload.dag->query_count() : workload.jobs.size(), 5u) << d.name;
    EXPECT_EQ(d.factory.workload_shape != nullptr, d.caps.steady_state) << d.name;
    if (d.caps.steady_state)
      EXPECT_GT(generator_shape(generator).arrival_rate, 0.0) << d.name;
    else
      EXPECT_THROW(generator_shape(generator), std::invalid_argument) << d.name;
  }
  EXPECT_EQ(find_generator("no_such_generator"), nullptr);
  const SimOptions options = testing::small_cluster(2, 1);
  for (const ComponentDescriptor* d : components(ComponentKind::kMechanism)) {
    ASSERT_TRUE(d->factory.wanted && d->factory.mechanism) << d->name;
    const auto mechanism = d->factory.mechanism(options);
    ASSERT_NE(mechanism, nullptr) << d->name;
    EXPECT_EQ(mechanism->name(), d->name);  // the descriptor names what it builds
  }
  // Every kind has components, and every component's key tags name declared keys.
  for (ComponentKind kind : kComponentKinds) {
    EXPECT_FALSE(components(kind).empty()) << component_kind_name(kind);
    for (const ComponentDescriptor* d : components(kind))
      if (!d->key_components.empty()) {
        EXPECT_FALSE(component_keys(*d).empty()) << d->name;
      }
  }
}

TEST(Components, WhetherARunPreemptsIsTheDescriptorsAnswerUnlessOverridden) {
  for (const ComponentDescriptor* d : components(ComponentKind::kOrderingPolicy)) {
    SchedulerOptions scheduler;
    scheduler.policy = d->name;
    EXPECT_EQ(run_preempts(scheduler), d->caps.preempts) << d->name;
    EXPECT_EQ(run_preempts(scheduler), make_scheduling_policy(scheduler)->preemptive());
    scheduler.preemption = !d->caps.preempts;
    EXPECT_EQ(run_preempts(scheduler), !d->caps.preempts) << d->name;
  }
  for (const std::string& name : time_share_policy_names()) {
    SchedulerOptions scheduler;
    scheduler.policy = name;
    scheduler.preemption = false;  // Gavel's re-decide every round regardless
    EXPECT_TRUE(has_own_decider(scheduler));
    EXPECT_TRUE(run_preempts(scheduler)) << name;
  }
}

// The keys only Gavel's deciders read are their descriptors' (not a list in the checks): set
// under another policy, each is said to be unable to act, in declaration order.
TEST(Components, GavelOnlyKeysUnderAnotherPolicyAreSaidToBeUnableToAct) {
  const std::string base =
      "[cluster]\nnodes = 1\ngpus_per_node = 8\n"
      "[workload]\ngenerator = \"philly\"\njobs = 10\n"
      "[scheduler]\nrounds = \"exact\"\nallocation_reset_s = 10\ntype_order = \"fixed\"\n";
  const auto keys_warned = [](const RunConfig& config) {
    std::vector<std::string> keys;
    for (const ConfigWarning& warning : config_warnings(config))
      if (warning.message.find("is not one of Gavel's") != std::string::npos)
        keys.push_back(warning.key);
    return keys;
  };
  EXPECT_EQ(keys_warned(parse_run_config(base + "policy = \"fifo\"\n", "t.toml", ".")),
            (std::vector<std::string>{"scheduler.rounds", "scheduler.allocation_reset_s",
                                      "scheduler.type_order"}));
  EXPECT_TRUE(keys_warned(parse_run_config(base + "policy = \"max_min_fairness\"\n", "t.toml", "."))
                  .empty());
}

// The mechanisms that need the built-in decider (their descriptors say so) cannot act under a
// decider of its own: their keys, set, are said to be unable to act.
TEST(Components, BuiltInDeciderMechanismKeysUnderGavelAreSaidToBeUnableToAct) {
  const std::string base =
      "[cluster]\nnodes = 1\ngpus_per_node = 8\n"
      "[workload]\ngenerator = \"philly\"\njobs = 10\n"
      "[mechanisms]\nmigration = \"periodic\"\npreempt_on_arrival = true\n"
      "[scheduler]\nhonor_priority = true\n";
  const auto keys_warned = [](const RunConfig& config) {
    std::vector<std::string> keys;
    for (const ConfigWarning& warning : config_warnings(config))
      if (warning.message.find("has a decider of its own") != std::string::npos)
        keys.push_back(warning.key);
    return keys;
  };
  EXPECT_EQ(keys_warned(parse_run_config(base + "policy = \"max_min_fairness\"\n", "t.toml", ".")),
            (std::vector<std::string>{"mechanisms.preempt_on_arrival", "mechanisms.migration"}));
  EXPECT_TRUE(keys_warned(parse_run_config(base + "policy = \"fifo\"\n", "t.toml", ".")).empty());
}

// The files that check, refuse or estimate a configuration ask descriptors what a component
// can do; none compares a scheduler name with a component's name.

// Whether `source` compares something with the string literal "name" (== or !=, spaces allowed
// before the literal). (A scan by hand: std::regex draws a false -Wmaybe-uninitialized from GCC
// 12 under the sanitizers.)
bool compares_with(const std::string& source, const std::string& name) {
  const std::string literal = "\"" + name + "\"";
  for (std::size_t at = source.find(literal); at != std::string::npos;
       at = source.find(literal, at + 1)) {
    std::size_t before = at;
    while (before > 0 && (source[before - 1] == ' ' || source[before - 1] == '\n')) --before;
    if (before >= 2 && source[before - 1] == '=' &&
        (source[before - 2] == '=' || source[before - 2] == '!'))
      return true;
  }
  return false;
}

TEST(Components, NoCapabilityRuleNamesAComponentOutsideTheDescriptors) {
  // The scan finds what it looks for, and only that.
  EXPECT_TRUE(compares_with("if (policy == \"fifo\")", "fifo"));
  EXPECT_TRUE(compares_with("policy !=\n      \"fifo\"", "fifo"));
  EXPECT_FALSE(compares_with("names = {\"fifo\"}; x = \"fifo\";", "fifo"));
  // The names: every kind's, the trace formats' and the generators' too.
  std::vector<std::string> names;
  for (ComponentKind kind : kComponentKinds)
    for (const ComponentDescriptor* d : components(kind)) names.push_back(d->name);
  for (const auto* table : {&trace_format_components(), &generator_components()})
    for (const ComponentDescriptor& d : *table) names.push_back(d.name);
  std::sort(names.begin(), names.end());  // once each ("philly" is a format and a generator)
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const char* files[] = {"sim/src/io/config_checks.cc",       "sim/src/simulation/simulation.cc",
                         "sim/src/mechanisms/registry.cc",    "sim/src/options/core_keys.cc",
                         "sweep/src/point_config.cc",         "sim/src/decider/ordering.cc",
                         "sim/src/io/steady_state_config.cc", "sim/src/io/config_run_modes.cc",
                         "sim/src/io/workload_loading.cc",    "sweep/src/dry_run.cc",
                         "sim/src/serving/registry.cc"};
  for (const char* file : files) {
    std::ifstream in(std::string(CLUSTERSIM_SOURCE_DIR) + "/" + file);
    ASSERT_TRUE(in) << file;
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    EXPECT_EQ(source.find("preemptive()"), std::string::npos) << file << ": ask run_preempts()";
    for (const std::string& name : names)
      EXPECT_FALSE(compares_with(source, name))
          << file << " compares a name with \"" << name
          << "\": say what it can do in its descriptor (sim/src/components/components.cc; "
             "generators: generator.cc, trace formats: read_trace.cc)";
  }
}

}  // namespace
}  // namespace clustersim
