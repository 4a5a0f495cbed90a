#include "run_command.h"

#include <chrono>
#include <iostream>

#include "clustersim/config.h"
#include "clustersim/report.h"
#include "clustersim/simulator.h"

namespace clustersim::app {

int run_command(const RunArguments& args) {
  RunConfig config =
      args.config_path.empty()
          ? parse_run_config(default_config_text(), "<built-in example>", "", args.overrides)
          : load_run_config(args.config_path, args.overrides);
  const auto started = std::chrono::steady_clock::now();
  Workload workload = load_workload(config);
  if (workload.skipped_rows > 0) {
    std::cerr << "clustersim: skipped " << workload.skipped_rows << " malformed rows";
    if (!workload.skip_reasons.empty())
      std::cerr << " (first: " << workload.skip_reasons.front() << ")";
    std::cerr << '\n';
  }
  RunResult result = simulate(config.sim, workload.jobs);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (!args.jobs_out.empty())
    write_file_atomically(args.jobs_out,
                          [&](std::ostream& out) { write_jobs_csv(out, workload.jobs, result); });
  if (!args.timeseries_out.empty())
    write_file_atomically(args.timeseries_out,
                          [&](std::ostream& out) { write_timeseries_csv(out, result); });
  if (args.json) {
    std::cout << metrics_json(result.metrics) << '\n';
  } else {
    std::cout << "clustersim run: " << config.source_name << "  (" << config.sim.scheduler.policy
              << ", " << config.sim.scheduler.placement << ", " << config.sim.cluster.total_gpus()
              << " GPUs, " << workload.jobs.size() << " jobs, " << seconds << " s)\n";
    write_summary(std::cout, result.metrics);
  }
  return 0;
}

}  // namespace clustersim::app
