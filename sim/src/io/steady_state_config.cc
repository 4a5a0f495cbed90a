// The steady-state rule in a run config ([metrics] steady_state and its settings): the plan is
// made when the config is parsed (it sets the window and how many jobs to generate), the verdict
// after the run (Simulation's config constructor, config_simulation.cc).
#include "io/internal/steady_state_config.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/error.h"
#include "options/declare.h"

namespace clustersim {

namespace io_internal {

bool steady_state_applies(const RunConfig& config) {
  const WorkloadSource& workload = config.workload;
  if (workload.steady_state != SteadyStateMode::kAuto || !workload.generator ||
      workload.serving_catalog)
    return false;
  // The generators whose jobs have a steady-state shape (their descriptors say which).
  const ComponentDescriptor* generator = find_generator(workload.generator->shape);
  return generator && generator->caps.steady_state;
}

void plan_measurement(RunConfig& config, const std::vector<std::string>& steady_keys_set) {
  WorkloadSource& workload = config.workload;
  if (!steady_state_applies(config)) {
    // Its settings would do nothing: say which and why.
    if (!steady_keys_set.empty()) {
      const std::string why =
          workload.steady_state == SteadyStateMode::kOff
              ? "[metrics] steady_state = \"off\""
              : "the steady-state rule measures generated workloads only (a trace is replayed "
                "and measured whole; set [workload] window to measure part of it)";
      throw InputError(config.source_name, 0, "metrics." + steady_keys_set.front(),
                       "has no effect with " + why);
    }
    return;
  }
  std::optional<std::pair<std::size_t, std::size_t>> window;
  if (workload.window) window.emplace(workload.window->first, workload.window->last);
  std::optional<std::size_t> jobs;
  if (workload.jobs_set) jobs = workload.generator->jobs;
  try {
    workload.steady_plan =
        plan_steady_state(generator_shape(*workload.generator), workload.steady, jobs, window);
  } catch (const std::invalid_argument& error) {
    throw InputError(config.source_name, 0, "metrics.steady_state", error.what());
  }
  if (workload.window && workload.steady.extend_limit > 1.0)
    throw InputError(config.source_name, 0, "metrics.extend_limit",
                     "has no effect with [workload] window (its measured jobs are set by hand)");
  const SteadyStatePlan& plan = *workload.steady_plan;
  if (!workload.window) {
    workload.window = SimOptions::Window{plan.first, plan.last};
    workload.generator->jobs = plan.generate;
  }
  config.sim.window = workload.window;
}

void extend_measurement(RunConfig& config, const SteadyStatePlan& planned, double factor) {
  WorkloadSource& workload = config.workload;
  const std::size_t measured = planned.last - planned.first + 1;
  // The plan takes the warm-up out of `jobs` (up to half of them): as many as keep it whole.
  const std::size_t jobs = std::max(
      planned.first + static_cast<std::size_t>(std::ceil(factor * measured)), 2 * planned.first);
  workload.steady_plan =
      plan_steady_state(generator_shape(*workload.generator), workload.steady, jobs, std::nullopt);
  workload.window = SimOptions::Window{workload.steady_plan->first, workload.steady_plan->last};
  workload.generator->jobs = workload.steady_plan->generate;
  config.sim.window = workload.window;
}

}  // namespace io_internal

namespace options {

// [metrics] steady_state and its settings, bound to WorkloadSource (config.h).
void declare_steady_state_keys(KeyRegistry& keys) {
  choice<WorkloadSource>(
      keys, "metrics.steady_state", [](auto& w) -> auto& { return w.steady_state; },
      std::vector<std::pair<std::string, SteadyStateMode>>{{"auto", SteadyStateMode::kAuto},
                                                           {"off", SteadyStateMode::kOff}})
      .component("steady state")
      .training_only()
      .doc(
          "`auto`: a generated workload is measured in steady state: a warm-up is left out, as "
          "many jobs as `precision` needs are measured (or those `jobs` or `window` give), "
          "arrivals go on while they finish (up to `drain_limit`), and each run gets a verdict "
          "(steady, overloaded, too short: run N x more jobs) "
          "([`sim/README.md`](sim/README.md#steady-state)); saved jobs and samples are the "
          "measured ones. `off`: every job is measured (or `window`'s), as before the rule.");
  const auto key = [&](std::string name, auto ref) {
    return field<WorkloadSource>(keys, "metrics." + std::move(name), ref)
        .when("metrics.steady_state", {"auto"})
        .component("steady state")
        .training_only();
  };
  key(
      "precision", [](auto& w) -> auto& { return w.steady.precision; })
      .range(1e-4, 1.0)
      .doc(
          "Target relative standard error of a run's measured `gpu_util`: sizes the measured "
          "jobs when neither `jobs` nor `window` is set, and a run with fewer is too short.");
  key(
      "warmup_s", [](auto& w) -> auto& { return w.steady.warmup_s; })
      .range(-1.0, 1e12)
      .default_note("the workload's fill time")
      .doc(
          "Arrival time left out before the measured jobs (-1: until jobs that arrived before "
          "would hold under 2% of the steady work, from the generator's durations).");
  key(
      "extend_limit", [](auto& w) -> auto& { return w.steady.extend_limit; })
      .range(1.0, 1000.0)
      .doc(
          "A run whose verdict is too short is run again (same seed) with its measured jobs "
          "multiplied by the verdict's factor, while it stays too short, up to this many times "
          "the plan's measured jobs; the run's warnings and `window_extension` say what was "
          "done. 1: never (a too-short run is reported as it is). Not with [workload] window.");
  key(
      "drain_limit", [](auto& w) -> auto& { return w.steady.drain_limit; })
      .range(0.0, 1e6)
      .doc(
          "After the last measured arrival, arrivals go on for at most the longest duration plus "
          "this many times the measured jobs' arrival span; a window unfinished then is "
          "overloaded.");
}

}  // namespace options

}  // namespace clustersim
