// A parsed config run on the simulator its run kind needs (config.h, simulate_config): the
// placement study (no time), or a Simulation (training, serving DAGs, or both on one cluster).
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "clustersim/config.h"
#include "clustersim/fleet_config.h"
#include "clustersim/placement_study.h"
#include "clustersim/simulation.h"
#include "io/internal/steady_state_config.h"

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
  if (config.fleet) {  // [fleet]: the clusters' runs under the router (fleet_config.h)
    const FleetSpec spec = fleet_for_workload(*config.fleet, *workload);
    FleetResult fleet;
    try {
      fleet = simulate_fleet(spec, config.sim, workload->jobs);
    } catch (const std::invalid_argument& error) {  // a job no cluster takes, or without a home
      throw InputError(config.source_name, 0, "fleet", error.what());
    }
    run.result = std::move(fleet.fleet);
    // The fleet-wide named metrics are RunMetrics fields already, but for the rebalancer's
    // `migrations_wan`: it goes beside, with the clusters' and the links'.
    for (auto& [name, value] : fleet.metrics)
      if (name.find('.') != std::string::npos || name == "migrations_wan")
        run.cluster_metrics.emplace_back(name, value);
    run.workload = std::move(workload);
    count_row_changes(*run.workload, run.result.metrics);
    return run;
  }
  // Training, serving (a DAG config: its queries on every GPU) or both (a mixed config): a
  // Simulation, the serving side joining it as a mechanism (serving.h).
  const auto simulate = [&run](const RunConfig& what, std::shared_ptr<const Workload> jobs) {
    Simulation simulation(what, std::move(jobs));
    run.result = simulation.run();
    run.workload = simulation.workload();  // grown, when a window streamed more jobs in
  };
  const auto& plan = config.workload.steady_plan;
  const double limit = config.workload.steady.extend_limit;
  if (!plan || !(limit > 1.0)) {
    simulate(config, std::move(workload));
  } else {
    // Auto-extension: a plan already short of jobs starts extended; a run the verdict calls too
    // short runs again (same seed) with its measured jobs x the verdict's factor, up to the limit.
    // Each run is a whole run of its own: the result is the last one's.
    double factor = plan->more_jobs > 1.0 ? std::min(limit, plan->more_jobs) : 1.0;
    for (;;) {
      if (factor > 1.0) {
        RunConfig extended = config;
        io_internal::extend_measurement(extended, *plan, factor);
        simulate(extended, std::make_shared<const Workload>(load_workload(extended)));
      } else {
        simulate(config, workload);
      }
      const RunMetrics& m = run.result.metrics;
      const double next = std::min(limit, factor * m.more_jobs);
      if (!m.window_too_short || next <= factor * (1.0 + 1e-9)) break;
      factor = next;
    }
    run.result.metrics.window_extension = factor;
  }
  count_row_changes(*run.workload, run.result.metrics);
  return run;
}

}  // namespace clustersim
