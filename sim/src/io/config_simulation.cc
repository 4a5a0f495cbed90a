// Simulation from a parsed config (simulation.h): the workload is read or generated here, and a
// generated workload with a window streams in as the run needs it. A serving side joins the
// run as a mechanism: a mixed config's beside the training jobs, a DAG config's alone.
#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "clustersim/config.h"
#include "clustersim/random.h"
#include "clustersim/serving.h"
#include "clustersim/simulation.h"

namespace clustersim {

namespace {

std::shared_ptr<const Workload> loaded(const RunConfig& config) {
  return std::make_shared<const Workload>(load_workload(config));
}

// A mixed config's serving side ([serving] config): its queries are read and its setup checked
// once, here (errors name the config's key); every run gets a mechanism of its own made from
// them (serving.h, make_mixed_serving), so a reset() replays the same queries.
std::function<std::unique_ptr<MixedServing>()> serving_side(const RunConfig& config) {
  const RunConfig& serving = *config.serving;
  struct Side {
    SimOptions options;
    Workload queries;
    ServingSetup setup;
  };
  auto side = std::make_shared<Side>();
  side->queries = load_workload(serving);
  side->setup = serving_setup(serving, side->queries);
  side->options = serving.sim;
  side->options.serving.priority = config.sim.serving.priority;
  side->options.serving.gpus = config.sim.serving.gpus;
  const auto make = [side] {
    return make_mixed_serving(side->options, side->queries, side->setup);
  };
  // The first run's mechanism is made now: a base pool that cannot hold a model is refused
  // here, not at the run's start.
  auto first = std::make_shared<std::unique_ptr<MixedServing>>();
  try {
    *first = make();
  } catch (const std::invalid_argument& error) {
    // "serving.gpus: ..." (a base pool that cannot hold a model) names its key.
    const std::string what = error.what();
    const std::string key = what.rfind("serving.", 0) == 0 ? what.substr(0, what.find(':'))
                                                           : std::string("serving.config");
    throw InputError(config.source_name, 0, key, what);
  }
  return [make, first]() { return *first ? std::move(*first) : make(); };
}

// A DAG config's serving side, the whole run: its setup is resolved once per workload (errors
// name the trace's line or the config); every run gets a mechanism of its own over them
// (serving.h, make_dag_serving), so a reset() replays the same queries.
std::function<std::unique_ptr<MixedServing>()> dag_side(const RunConfig& config,
                                                        std::shared_ptr<const Workload> workload) {
  auto setup = std::make_shared<const ServingSetup>(serving_setup(config, *workload));
  return [options = config.sim, workload = std::move(workload), setup] {
    return make_dag_serving(options, workload, setup);
  };
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
  auto source = std::make_shared<RunConfig>(config);
  keep_alive_ = source;  // the throughput model options_.throughput points to
  if (workload_->dag) {
    // Serving alone: no training jobs; the queries' tasks are the serving side's, which holds
    // every GPU (make_dag_serving). workload() stays the queries (the records are its tasks').
    jobs_ = {};
    make_serving_ = dag_side(*source, workload_);
    reseed_ = [this, source](std::uint64_t seed) {
      apply_seed(*source, seed);
      options_.seed = source->sim.seed;
      if (source->workload.generator) {
        workload_ = loaded(*source);
        make_serving_ = dag_side(*source, workload_);
      }
    };
    return;
  }
  if (config.serving) make_serving_ = serving_side(config);
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
      // The new seed's LLM jobs (an llm_era workload's), not the first seed's.
      options_.fabric.llm_jobs = workload_->llm;
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
