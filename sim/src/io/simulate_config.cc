// A parsed config run on the simulator its run kind needs (config.h, simulate_config): the
// placement study (no time), or a Simulation (training, serving DAGs, or both on one cluster).
#include <memory>
#include <string>
#include <utility>

#include "clustersim/config.h"
#include "clustersim/placement_study.h"
#include "clustersim/simulation.h"

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
  // Training, serving (a DAG config: its queries on every GPU) or both (a mixed config): a
  // Simulation, the serving side joining it as a mechanism (serving.h).
  Simulation simulation(config, std::move(workload));
  run.result = simulation.run();
  run.workload = simulation.workload();  // grown, when a window streamed more jobs in
  count_row_changes(*run.workload, run.result.metrics);
  return run;
}

}  // namespace clustersim
