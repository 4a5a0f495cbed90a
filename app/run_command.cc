#include "run_command.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "clustersim/atomic_file.h"
#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/metrics.h"
#include "clustersim/options.h"
#include "clustersim/report.h"
#include "clustersim/simulator.h"
#include "clustersim/steady_state.h"
#ifdef CLUSTERSIM_HAVE_SWEEP
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"
#endif

namespace clustersim::app {

namespace {

// `--point N` of a grid file: the run config the sweep makes for that point.
RunConfig point_config(const RunArguments& args) {
  if (args.config_path.empty())
    throw InputError("<command line>", 0, "--point",
                     "needs a grid file (clustersim run GRID.toml --point N)");
#ifdef CLUSTERSIM_HAVE_SWEEP
  const sweep::Grid grid = sweep::load_grid(args.config_path);
  if (*args.point >= grid.size())
    throw InputError(args.config_path, 0, "--point",
                     "point " + std::to_string(*args.point) + " does not exist: the grid has " +
                         std::to_string(grid.size()) + " points (0.." +
                         std::to_string(grid.size() - 1) + ")");
  return sweep::make_point_config(grid, sweep::grid_point(grid, *args.point), args.overrides);
#else
  throw InputError(args.config_path, 0, "--point",
                   "this build has no sweep support (MPI, HDF5 and oneTBB were not found)");
#endif
}

}  // namespace

int run_command(const RunArguments& args) {
  if (!args.list_keys.empty()) {
    std::cout << (args.list_keys == "markdown" ? keys_markdown(config_keys())
                                               : keys_text(config_keys()));
    return 0;
  }
  RunConfig config =
      args.point ? point_config(args)
      : args.config_path.empty()
          ? parse_run_config(default_config_text(), "<built-in example>", "", args.overrides)
          : load_run_config(args.config_path, args.overrides);
  // Samples are kept only when they are written (frag_mean needs none).
  config.sim.record_samples = !args.timeseries_out.empty();
  // A setting that cannot act is said, naming it and why.
  for (const ConfigWarning& warning : config_warnings(config))
    std::cerr << "clustersim: warning: " << warning.key << " " << warning.message << '\n';
  // Outputs are checked before the work and written together at the end: all of them or none.
  OutputFiles outputs;
  ConfigRun run;
  // Under the steady-state rule the rows written are the measured ones (the population of every
  // metric), or, with --whole-run, all of them marked.
  const bool steady = config.workload.steady_plan.has_value();
  const bool marked = steady && args.whole_run;
  if (args.whole_run && !steady)
    std::cerr << "clustersim: note: --whole-run changes nothing here: without the steady-state "
                 "rule ([metrics] steady_state = \"auto\" on a generated workload) every row is "
                 "written already\n";
  if (!args.jobs_out.empty()) {
    check_output_path(args.jobs_out, "--jobs-out");
    outputs.add(args.jobs_out, "--jobs-out", [&](std::ostream& out) {
      if (marked)
        write_jobs_csv_marked(out, run.workload->jobs, run.result);
      else
        write_jobs_csv(out, run.workload->jobs, run.result);
    });
  }
  if (!args.timeseries_out.empty()) {
    check_output_path(args.timeseries_out, "--timeseries-out");
    outputs.add(args.timeseries_out, "--timeseries-out", [&](std::ostream& out) {
      if (marked)
        write_timeseries_csv_marked(out, run.result);
      else
        write_timeseries_csv(out, run.result);
    });
  }

  const auto started = std::chrono::steady_clock::now();
  auto loaded = std::make_shared<const Workload>(load_workload(config));
  if (loaded->skipped_rows > 0) {
    std::cerr << "clustersim: skipped " << loaded->skipped_rows << " malformed rows";
    if (!loaded->skip_reasons.empty())
      std::cerr << " (first: " << loaded->skip_reasons.front() << ")";
    std::cerr << '\n';
  }
  for (const Workload::RowChange& change : loaded->row_changes)
    std::cerr << "clustersim: warning: " << config.workload.trace_path.value_or("trace") << ": "
              << change.rows << (change.rows == 1 ? " row: " : " rows: ") << change.reason << '\n';
  check_event_budget(config, loaded.get());  // an effectively endless setting: refused now
  try {
    run = simulate_config(config, std::move(loaded));
  } catch (const ImpossibleJobError& error) {
    throw impossible_job_error(config, error);
  }
  // What the metrics measure (a duration cap that binds the p99, ...), while the rows still
  // line up with the workload's jobs.
  for (const std::string& warning : metric_warnings(run.workload->jobs, run.result))
    std::cerr << "clustersim: warning: " << warning << '\n';
  if (steady && !args.whole_run) keep_measured_rows(run.result);
  const Workload& workload = *run.workload;
  const RunResult& result = run.result;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  outputs.commit();
  // The measured population and the verdict: in the summary, or beside the JSON on stderr.
  std::string measured;
  if (steady) {
    const RunMetrics& m = result.metrics;
    measured = "jobs " + std::to_string(m.window_first) + ".." + std::to_string(m.window_last) +
               " of " + std::to_string(workload.jobs.size()) +
               " (steady-state rule; [metrics] steady_state = \"off\" measures every job): " +
               steady_state_verdict(result);
    if (args.json) std::cerr << "clustersim: measured " << measured << '\n';
  }
  if (args.json) {
    std::cout << metrics_json(result.metrics, run.cluster_metrics) << '\n';
  } else {
    std::cout << "clustersim run: " << config.source_name << "  (" << config.sim.scheduler.policy
              << ", " << config.sim.scheduler.placement << ", " << config.sim.cluster.total_gpus()
              << " GPUs, " << workload.jobs.size() << " jobs, " << seconds << " s)\n";
    write_summary(std::cout, result.metrics);
    for (const auto& [name, value] : run.cluster_metrics) {  // a fleet's clusters
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", value);
      std::cout << name << std::string(name.size() < 26 ? 26 - name.size() : 1, ' ') << text
                << '\n';
    }
    if (!measured.empty()) std::cout << "measured            " << measured << '\n';
  }
  return 0;
}

}  // namespace clustersim::app
