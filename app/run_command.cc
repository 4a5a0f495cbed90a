#include "run_command.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "clustersim/config.h"
#include "clustersim/report.h"
#include "clustersim/simulator.h"

namespace clustersim::app {

int run_command(const RunArguments& args) {
  RunConfig config =
      args.config_path.empty()
          ? parse_run_config(default_config_text(), "<built-in example>", "", args.overrides)
          : load_run_config(args.config_path, args.overrides);
  // Samples are kept only when they are written (frag_mean needs none).
  config.sim.record_samples = !args.timeseries_out.empty();
  const auto started = std::chrono::steady_clock::now();
  auto loaded = std::make_shared<const Workload>(load_workload(config));
  if (loaded->skipped_rows > 0) {
    std::cerr << "clustersim: skipped " << loaded->skipped_rows << " malformed rows";
    if (!loaded->skip_reasons.empty())
      std::cerr << " (first: " << loaded->skip_reasons.front() << ")";
    std::cerr << '\n';
  }
  ConfigRun run = simulate_config(config, std::move(loaded));
  const Workload& workload = *run.workload;
  const RunResult& result = run.result;
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
