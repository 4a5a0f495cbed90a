#include "run_command.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "clustersim/atomic_file.h"
#include "clustersim/config.h"
#include "clustersim/options.h"
#include "clustersim/report.h"
#include "clustersim/simulator.h"

namespace clustersim::app {

int run_command(const RunArguments& args) {
  if (!args.list_keys.empty()) {
    std::cout << (args.list_keys == "markdown" ? keys_markdown(config_keys())
                                               : keys_text(config_keys()));
    return 0;
  }
  RunConfig config =
      args.config_path.empty()
          ? parse_run_config(default_config_text(), "<built-in example>", "", args.overrides)
          : load_run_config(args.config_path, args.overrides);
  // Samples are kept only when they are written (frag_mean needs none).
  config.sim.record_samples = !args.timeseries_out.empty();
  // Outputs are checked before the work and written together at the end: all of them or none.
  OutputFiles outputs;
  ConfigRun run;
  if (!args.jobs_out.empty()) {
    check_output_path(args.jobs_out, "--jobs-out");
    outputs.add(args.jobs_out, "--jobs-out",
                [&](std::ostream& out) { write_jobs_csv(out, run.workload->jobs, run.result); });
  }
  if (!args.timeseries_out.empty()) {
    check_output_path(args.timeseries_out, "--timeseries-out");
    outputs.add(args.timeseries_out, "--timeseries-out",
                [&](std::ostream& out) { write_timeseries_csv(out, run.result); });
  }

  const auto started = std::chrono::steady_clock::now();
  auto loaded = std::make_shared<const Workload>(load_workload(config));
  if (loaded->skipped_rows > 0) {
    std::cerr << "clustersim: skipped " << loaded->skipped_rows << " malformed rows";
    if (!loaded->skip_reasons.empty())
      std::cerr << " (first: " << loaded->skip_reasons.front() << ")";
    std::cerr << '\n';
  }
  try {
    run = simulate_config(config, std::move(loaded));
  } catch (const ImpossibleJobError& error) {
    throw impossible_job_error(config, error);
  }
  const Workload& workload = *run.workload;
  const RunResult& result = run.result;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  outputs.commit();
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
