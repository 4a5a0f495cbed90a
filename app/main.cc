// clustersim: the command line. `clustersim run` simulates one configuration; `clustersim
// sweep` (when built with MPI, HDF5 and oneTBB) runs a grid of them. `clustersim --help` lists
// every subcommand.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string_view>

#include "clustersim/error.h"
#include "clustersim/simulator.h"
#include "components_command.h"
#include "run_command.h"

#ifdef CLUSTERSIM_HAVE_SWEEP
#include "clustersim/sweep/merge.h"
#include "clustersim/sweep/snapshot.h"
#include "clustersim/sweep/sweep_command.h"
#endif

int main(int argc, char** argv) {
#ifdef CLUSTERSIM_HAVE_SWEEP
  // The sweep parses its own flags (and initialises MPI only when it runs).
  if (argc > 1 && std::string_view(argv[1]) == "sweep")
    return clustersim::sweep::run_sweep_command(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "snapshot")
    return clustersim::sweep::run_snapshot_command(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "merge")
    return clustersim::sweep::run_merge_command(argc, argv);
#endif
  CLI::App app{"clustersim: trace-driven simulator of multi-tenant GPU clusters"};
  app.set_version_flag("--version", "clustersim " CLUSTERSIM_VERSION);
  app.require_subcommand(1);
  clustersim::app::RunArguments args;
  CLI::App* run =
      app.add_subcommand("run", "Simulate one configuration (the built-in example without CONFIG)");
  run->add_option("config", args.config_path,
                  "TOML config with [cluster], [workload], [scheduler]");
  run->add_option("--set", args.overrides, "Override a config key: section.key=value (repeatable)")
      ->allow_extra_args(false);  // one value per --set, so a config file after it stays positional
  run->add_option("--point", args.point,
                  "CONFIG is a sweep grid: run its point N (as listed by `clustersim sweep "
                  "GRID --dry-run`) exactly as the sweep runs it, with the point's seed");
  run->add_flag("--json", args.json, "Print the run's metrics as one JSON object");
  run->add_option("--jobs-out", args.jobs_out, "Write one CSV row per job to this file");
  run->add_option("--timeseries-out", args.timeseries_out, "Write the sampled time series as CSV");
  run->add_flag("--whole-run", args.whole_run,
                "With --jobs-out/--timeseries-out under the steady-state rule: write every job and "
                "sample (warm-up and drain too) with a `measured` column, not only the measured "
                "ones");
  run->add_option("--list-keys", args.list_keys,
                  "Print every config key (type, default, workloads, meaning) and exit; "
                  "=markdown: as README.md's tables")
      ->expected(0, 1)
      ->default_str("text")
      ->check(CLI::IsMember({"text", "markdown"}));
  bool components_json = false;
  CLI::App* components = app.add_subcommand(
      "components",
      "List every pluggable component (ordering policies, deciders, placements, allocation "
      "mechanisms, mechanisms) with its capabilities and config keys");
  components->add_flag("--json", components_json, "Print the list as one JSON object");
#ifdef CLUSTERSIM_HAVE_SWEEP
  // Listed here for --help; `clustersim sweep ...` is dispatched above.
  app.add_subcommand("sweep",
                     "Run a policy x parameter grid on MPI ranks into one HDF5 file "
                     "(clustersim sweep --help)");
  app.add_subcommand("snapshot",
                     "Write the result file of a sweep still running from its journal "
                     "(clustersim snapshot --help)");
  app.add_subcommand("merge",
                     "Merge the result files of a grid's shards (sweep --shard K/N) into one "
                     "(clustersim merge --help)");
#else
  app.add_subcommand("sweep", "Run a grid of simulations (not built: needs MPI, HDF5 and oneTBB)");
  app.add_subcommand("merge", "Merge a grid's shard files (not built: needs MPI, HDF5 and oneTBB)");
#endif
  CLI11_PARSE(app, argc, argv);
  try {
    if (run->parsed()) return clustersim::app::run_command(args);
    if (components->parsed()) return clustersim::app::components_command(components_json);
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
