// Simulation from a parsed config (simulation.h): the workload is read or generated here, and a
// generated workload with a window streams in as the run needs it.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "clustersim/config.h"
#include "clustersim/random.h"
#include "clustersim/simulation.h"

namespace clustersim {

namespace {

std::shared_ptr<const Workload> loaded(const RunConfig& config) {
  return std::make_shared<const Workload>(load_workload(config));
}

}  // namespace

void apply_seed(RunConfig& config, std::uint64_t seed) {
  if (config.workload.generator) config.workload.generator->seed = seed;
  // A separate stream for placement and policy randomness than for workload generation.
  config.sim.seed = stream_seed(seed, 0x51ed5eedULL);
}

Simulation::Simulation(const RunConfig& config) : Simulation(config, loaded(config)) {}

Simulation::Simulation(const RunConfig& config, std::shared_ptr<const Workload> workload)
    : Simulation(config.sim, std::move(workload)) {
  if (workload_->dag)
    throw std::invalid_argument(
        "a DAG workload runs on the serving engine (simulate_config), not on a Simulation");
  if (config.serving)
    throw std::invalid_argument(
        "a mixed config ([serving] config) runs with simulate_config, not on a Simulation");
  auto source = std::make_shared<RunConfig>(config);
  keep_alive_ = source;  // the throughput model options_.throughput points to
  // A window on a generated workload must drain while jobs keep arriving: it grows. An
  // overloaded cluster never drains a window while jobs keep coming: arrivals stop at the
  // steady-state plan's drain limit, else at 8x the jobs the window reaches (the result then
  // says window_overloaded = 1).
  const auto limit = [source](std::size_t generated) {
    const auto& plan = source->workload.steady_plan;
    return std::max(generated, plan ? plan->grow_limit : 8 * (source->sim.window->last + 1));
  };
  if (config.workload.generator && config.sim.window) {
    grow_ = [source](std::size_t jobs) {
      GeneratorOptions generator = *source->workload.generator;
      generator.jobs = jobs;
      return std::make_shared<const Workload>(generate_workload(generator));
    };
    grow_limit_ = limit(workload_->jobs.size());
  }
  reseed_ = [this, source, limit](std::uint64_t seed) {
    apply_seed(*source, seed);
    options_.seed = source->sim.seed;
    if (source->workload.generator) {
      workload_ = loaded(*source);
      jobs_ = workload_->jobs;
      if (grow_) grow_limit_ = limit(workload_->jobs.size());
    }
  };
  // The steady-state verdict needs the sampled busy GPUs and queue; samples the caller did not
  // ask for are dropped once it is made.
  if (source->workload.steady_plan) {
    const bool keep_samples = options_.record_samples;
    options_.record_samples = true;
    finish_ = [this, source, keep_samples](RunResult& result) {
      assess_steady_state(*source->workload.steady_plan, source->workload.steady, jobs_,
                          source->sim.cluster.total_gpus(), result);
      if (!keep_samples) {
        result.samples.clear();
        result.samples.shrink_to_fit();
      }
    };
  }
}

}  // namespace clustersim
