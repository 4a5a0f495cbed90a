// The steady-state rule in a run config (steady_state_config.cc).
#pragma once

#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/options.h"

namespace clustersim::io_internal {

// Whether the rule measures this config's runs: [metrics] steady_state = "auto" on a generated
// training workload (philly or synergy).
bool steady_state_applies(const RunConfig& config);

// Plans the measurement (config.workload.steady_plan, its window and the jobs to generate) once
// the whole config is read. `steady_keys_set`: the rule's settings the config sets (precision,
// warmup_s, drain_limit), refused where the rule does not apply.
void plan_measurement(RunConfig& config, const std::vector<std::string>& steady_keys_set);

// Re-plans a planned config's measurement with `factor` x the measured jobs of `planned` (its
// first plan; [metrics] extend_limit): the same warm-up, more measured jobs, a drain limit to
// match, and the jobs to generate for them.
void extend_measurement(RunConfig& config, const SteadyStatePlan& planned, double factor);

}  // namespace clustersim::io_internal

namespace clustersim::options {
void declare_steady_state_keys(KeyRegistry& keys);  // io/steady_state_config.cc
}  // namespace clustersim::options
