// A parsed config run on the simulator it needs (config.h, simulate_config): the placement
// study, the serving engine (DAG workloads), training and serving on one cluster (a mixed
// config), or a Simulation.
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/placement_study.h"
#include "clustersim/serving.h"
#include "clustersim/simulation.h"
#include "clustersim/steady_state.h"

namespace clustersim {

ConfigRun simulate_config(const RunConfig& config, std::shared_ptr<const Workload> workload) {
  ConfigRun run;
  if (config.workload.placement_study()) {  // no time: each pod placed once (placement_study.h)
    StudyOptions study;
    study.placement = config.sim.scheduler.placement;
    study.shuffle = config.workload.arrival_order == ArrivalOrder::kShuffle;
    study.inflate_to = config.workload.inflate_to;
    study.seed = config.sim.seed;
    StudyRun placed = run_placement_study(*config.node_list, workload->jobs, study);
    run.result = std::move(placed.result);
    // The arrival sequence (clones included) is what was simulated: one job per arrival.
    auto arrived = std::make_shared<Workload>();
    arrived->jobs.reserve(placed.workload_index.size());
    for (std::size_t a = 0; a < placed.workload_index.size(); ++a) {
      JobSpec job = workload->jobs[placed.workload_index[a]];
      if (a >= workload->jobs.size()) job.id += "-clone-" + std::to_string(a);
      arrived->jobs.push_back(std::move(job));
    }
    arrived->row_changes = workload->row_changes;
    arrived->filtered_rows = workload->filtered_rows;
    arrived->skipped_rows = workload->skipped_rows;
    count_row_changes(*arrived, run.result.metrics);
    run.workload = std::move(arrived);
    return run;
  }
  if (workload->dag) {  // serving: queries of model tasks (serving.h); no window
    run.result = simulate_serving(config.sim, *workload, serving_setup(config, *workload));
    describe_population(std::nullopt, workload->jobs, run.result);
    run.workload = std::move(workload);
    return run;
  }
  if (config.serving) {  // training and serving on one cluster (serving.h, make_mixed_serving)
    const RunConfig& serving = *config.serving;
    Workload queries = load_workload(serving);
    ServingSetup setup = serving_setup(serving, queries);
    SimOptions options = serving.sim;
    options.serving.priority = config.sim.serving.priority;
    options.serving.gpus = config.sim.serving.gpus;
    std::unique_ptr<MixedServing> mechanism;
    try {
      mechanism = make_mixed_serving(options, std::move(queries), std::move(setup));
    } catch (const std::invalid_argument& error) {
      // "serving.gpus: ..." (a base pool that cannot hold a model) names its key.
      const std::string what = error.what();
      const std::string key = what.rfind("serving.", 0) == 0 ? what.substr(0, what.find(':'))
                                                             : std::string("serving.config");
      throw InputError(config.source_name, 0, key, what);
    }
    MixedServing& mixed = *mechanism;
    RunConfig training = config;  // the Simulation runs the training side; serving joins it
    training.serving.reset();
    Simulation simulation(training, std::move(workload));
    simulation.add_mechanism(std::move(mechanism));
    run.result = simulation.run();
    mixed.collect(run.result);
    run.workload = simulation.workload();
    count_row_changes(*run.workload, run.result.metrics);
    return run;
  }
  Simulation simulation(config, std::move(workload));
  run.result = simulation.run();
  run.workload = simulation.workload();  // grown, when a window streamed more jobs in
  count_row_changes(*run.workload, run.result.metrics);
  return run;
}

}  // namespace clustersim
