// A parsed config run on the simulator it needs (config.h, simulate_config): the placement
// study, the serving engine (DAG workloads), or a Simulation (training, alone or beside serving
// in a mixed config).
#include <memory>
#include <string>
#include <utility>

#include "clustersim/config.h"
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
  // Training, alone or beside serving (a mixed config: the serving side joins the Simulation
  // as a mechanism, serving.h).
  Simulation simulation(config, std::move(workload));
  run.result = simulation.run();
  run.workload = simulation.workload();  // grown, when a window streamed more jobs in
  count_row_changes(*run.workload, run.result.metrics);
  return run;
}

}  // namespace clustersim
