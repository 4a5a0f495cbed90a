// clustersim: command-line front end. `clustersim run` simulates one configuration; `clustersim
// sweep` (when built with MPI, HDF5 and oneTBB) runs a grid of them.
#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/report.h"
#include "clustersim/simulator.h"

#ifdef CLUSTERSIM_HAVE_SWEEP
#include "clustersim/sweep/sweep_command.h"
#endif

namespace {

struct RunArguments {
  std::string config_path;
  std::vector<std::string> overrides;
  bool json = false;
  std::string jobs_out;
  std::string timeseries_out;
};

int run_command(const RunArguments& args) {
  using namespace clustersim;
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

}  // namespace

int main(int argc, char** argv) {
#ifdef CLUSTERSIM_HAVE_SWEEP
  if (argc > 1 && std::string_view(argv[1]) == "sweep")
    return clustersim::sweep::run_sweep_command(argc, argv);
#endif
  CLI::App app{"clustersim: trace-driven simulator of multi-tenant GPU clusters"};
  app.set_version_flag("--version", "clustersim " CLUSTERSIM_VERSION);
  app.require_subcommand(1);
  RunArguments args;
  CLI::App* run =
      app.add_subcommand("run", "Simulate one configuration (the built-in example without CONFIG)");
  run->add_option("config", args.config_path,
                  "TOML config with [cluster], [workload], [scheduler]");
  run->add_option("--set", args.overrides, "Override a config key: section.key=value (repeatable)")
      ->allow_extra_args(false);  // one value per --set, so a config file after it stays positional
  run->add_flag("--json", args.json, "Print the run's metrics as one JSON object");
  run->add_option("--jobs-out", args.jobs_out, "Write one CSV row per job to this file");
  run->add_option("--timeseries-out", args.timeseries_out, "Write the sampled time series as CSV");
#ifndef CLUSTERSIM_HAVE_SWEEP
  app.add_subcommand("sweep", "Run a grid of simulations (not built: needs MPI, HDF5 and oneTBB)");
#endif
  CLI11_PARSE(app, argc, argv);
  try {
    if (run->parsed()) return run_command(args);
    std::cerr
        << "clustersim: this build has no sweep support (MPI, HDF5 and oneTBB were not found)\n";
    return 2;
  } catch (const clustersim::InputError& error) {
    std::cerr << "clustersim: error: " << error.what() << '\n';
    return 2;
  } catch (const clustersim::ImpossibleJobError& error) {
    std::cerr << "clustersim: error: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "clustersim: error: " << error.what() << '\n';
    return 1;
  }
}
