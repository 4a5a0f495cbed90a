#include "clustersim/sweep/sweep_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "clustersim/atomic_file.h"
#include "clustersim/error.h"
#include "clustersim/sweep/communicator.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/output_lock.h"
#include "clustersim/sweep/point_runner.h"
#include "clustersim/sweep/row_spool.h"
#include "dry_run.h"
#include "hdf5_file.h"
#include "rank_loop.h"
#include "resume_plan.h"
#include "sizing.h"
#include "sweep_coordinator.h"
#include "sweep_session.h"
#include "sweep_worker.h"

namespace clustersim::sweep {

namespace {

#include "default_grid.inc"  // kDefaultGridText, generated from sweep/examples/default/grid.toml

// Lowest rank that may print when run without MPI (dry runs launched under mpirun/srun).
bool is_first_process() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value) == 0;
  }
  return true;
}

// The ranks a dry run launched under mpirun/srun shares its launch with: the sweep it plans.
int launcher_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
    if (const char* value = std::getenv(name); value && std::atoi(value) > 0)
      return std::atoi(value);
  }
  return 1;
}

int run_sweep(const SweepOptions& options, bool out_given, int* argc, char*** argv,
              const std::string& command_line) {
  using namespace sweep_internal;  // the plan, the coordinator, the workers
  if (options.dry_run) {
    Grid grid =
        parse_grid(read_grid_text(options), grid_source_name(options), grid_base_dir(options));
    GridCheck check = validate_grid(grid);
    if (is_first_process()) {
      const ShardSpec shard = parse_shard(options.shard);
      SizingInput sizing;
      sizing.ranks = options.ranks > 0 ? options.ranks : launcher_ranks();
      sizing.threads = choose_thread_count(options.threads);
      sizing.save_jobs = options.save_jobs;
      sizing.save_timeseries = options.save_timeseries;
      sizing.whole_run = options.whole_run;
      const std::vector<bool> members = shard_members(grid, check, shard);
      const SizingEstimate estimate = estimate_sizing(grid, check, members, sizing);
      // A folder the sweep could not write is said now (slurm/submit refuses to queue it).
      std::string out_problem;
      if (out_given) {
        try {
          check_output_path(options.out, "--out");
        } catch (const InputError& error) {
          out_problem = error.what();
          std::fprintf(stderr, "sweep: warning: %s (the sweep would refuse it)\n",
                       out_problem.c_str());
        }
      }
      if (options.json) {
        write_sizing_json(std::cout, grid, check, sizing, estimate, options.out, out_problem);
      } else {
        write_dry_run(std::cout, grid, check, shard);
        write_scaling_estimate(std::cerr, grid, check);
        write_sizing_text(std::cerr, sizing, estimate);
        print_warnings(check.warnings);
      }
    }
    return kExitOk;
  }

  MpiSession mpi(argc, argv);
  SessionInfo session;
  session.ranks = mpi.size();
  session.start_time = now_iso8601();
  session.command_line = command_line;
  describe_where_this_runs(session, options.grid_path);
  const int threads = choose_thread_count(options.threads);
  session.threads_per_rank = mpi.all_gather(threads);

  // Rank 0 checks everything before anyone simulates; the others learn the verdict. It owns the
  // result file from before it reads or replaces any of it until it exits (output_lock.h).
  std::string verdict;
  std::optional<Plan> plan;
  std::optional<OutputLock> lock;
  if (mpi.rank() == 0) {
    try {
      plan.emplace();
      plan->grid =
          parse_grid(read_grid_text(options), grid_source_name(options), grid_base_dir(options));
      check_output_path(options.out, "--out");  // its folder exists and can be written
      std::string previous_holder;
      lock.emplace(options.out, describe_this_process(session.start_time, command_line),
                   &previous_holder);
      if (!lock->locked()) {
        std::fprintf(stderr,
                     "sweep: warning: the file system of %s does not support locks; nothing "
                     "stops a second sweep from writing it at the same time\n",
                     options.out.c_str());
      } else if (!previous_holder.empty() && !options.quiet) {
        std::fprintf(stderr,
                     "sweep: took over the lock of a sweep that is no longer running (%s)\n",
                     excerpt(previous_holder, 300).c_str());
      }
      check_existing_output(options);
      check_can_replace(options);
      remove_stale_temporaries(options.out);
      plan->check = validate_grid(plan->grid);
      if (!options.quiet) print_warnings(plan->check.warnings);
      plan->done.resize(plan->grid.size());
      plan->done_session.resize(plan->grid.size(), 0);
      plan->shard = parse_shard(options.shard);
      plan->whole_run = options.whole_run;
      plan->members = shard_members(plan->grid, plan->check, plan->shard);
      plan->scope_points =
          static_cast<std::size_t>(std::count(plan->members.begin(), plan->members.end(), true));
      if (options.resume) load_previous_session(*plan, options);
      if (options.overwrite) set_aside_previous_results(*plan, options);
      if (plan->nothing_to_do && !std::filesystem::exists(journal_path_for(options.out))) {
        // A finished sweep stopped between removing its journal and its spools (kill -9): the
        // file is complete and no journal names them.
        std::filesystem::remove_all(rows_folder_for(options.out));
      }
      if (!plan->nothing_to_do && (options.save_jobs || options.save_timeseries)) {
        // Every rank spools its rows here (row_spool.h). A fresh sweep starts with an empty
        // folder: spools that no journal names are leftovers.
        const std::string rows = rows_folder_for(options.out);
        if (plan->sessions == 1) std::filesystem::remove_all(rows);
        std::filesystem::create_directories(rows);
      }
      verdict =
          plan->nothing_to_do ? "D" : "K" + std::to_string(plan->sessions) + "\n" + plan->grid.text;
    } catch (const OutputBusyError& error) {
      print_error(error.what());
      verdict = "B";
    } catch (const InputError& error) {
      print_error(error.what());
      verdict = "E";
    } catch (const std::exception& error) {
      print_error(error.what());
      verdict = "F";
    }
  }
  mpi.broadcast(verdict, 0);
  if (verdict == "B") return kExitBusy;
  if (verdict == "E") return kExitBadInput;
  if (verdict == "F") return kExitFailure;
  if (verdict == "D") {
    if (mpi.rank() != 0) return kExitOk;
    if (!options.quiet) {
      std::cout << options.out << " already holds all " << plan->already_done << " points of "
                << (plan->shard.sharded() ? "shard " + plan->shard.text() : "this grid") << "\n";
    }
    const std::string failures = summarize_failures(plan->previous_status);
    if (failures.empty()) return kExitOk;
    std::fprintf(stderr, "%s\n", failures.c_str());
    return kExitPointsFailed;
  }

  StopSignals signals;
  if (mpi.rank() == 0) {
    try {
      return run_coordinator(mpi, *plan, options, session, *lock);
    } catch (const std::exception& error) {
      // The journal keeps what is done; the other ranks cannot go on without rank 0.
      const std::string what = error.what();
      const bool full = what.find(std::strerror(ENOSPC)) != std::string::npos ||
                        what.find(std::strerror(EDQUOT)) != std::string::npos;
      print_error(what + " (the journal keeps the finished points: " +
                  (full ? "free space and rerun with --resume)" : "rerun with --resume)"));
      lock->release();
      if (mpi.size() > 1) mpi.abort(kExitFailure);
      // MPI_Finalize would run HDF5's clean-up, which crashes on a file it could not close.
      if (hdf5::file_left_open()) hdf5::leave_without_hdf5_cleanup(kExitFailure);
      return kExitFailure;
    }
  }
  const std::size_t newline = verdict.find('\n');
  const std::int64_t spool_session = std::stoll(verdict.substr(1, newline - 1));
  Grid grid = parse_grid(std::string_view(verdict).substr(newline + 1), grid_source_name(options),
                         grid_base_dir(options));
  return run_worker(mpi, grid, options, threads, spool_session);
}

}  // namespace

std::string_view default_grid_text() { return kDefaultGridText; }

int run_sweep_command(int argc, char** argv) {
  using sweep_internal::print_error;
  SweepOptions options;
  CLI::App app{
      "Runs a grid of simulations (MPI across ranks, threads within a rank) into one HDF5 file.\n"
      "Launch with `mpirun -np N` or `srun --mpi=pmix` for several ranks.",
      "clustersim sweep"};
  app.add_option("grid", options.grid_path,
                 "grid file (TOML: run config tables + [sweep]); default: built-in grid");
  app.add_option("--out,-o", options.out, "HDF5 result file (default: <grid stem>.h5)");
  auto* resume = app.add_flag("--resume", options.resume,
                              "finish an interrupted sweep; only missing points run");
  app.add_flag("--overwrite", options.overwrite, "replace an existing result file")
      ->excludes(resume);
  app.add_flag("--resume-any-build", options.resume_any_build,
               "with --resume: finish a sweep begun by another build of clustersim (refused "
               "otherwise); each point records the session, and so the build, that computed it")
      ->needs(resume);
  auto* dry_run = app.add_flag("--dry-run", options.dry_run,
                               "list the points and their estimated cost, run nothing; on stderr, "
                               "the time, memory per rank and disk it would take");
  app.add_flag("--json", options.json,
               "with --dry-run: print the estimate (points, time, memory per rank, disk) as "
               "JSON instead of the listing")
      ->needs(dry_run);
  app.add_option("--ranks", options.ranks,
                 "with --dry-run: the MPI ranks to size for (default: the launcher's, else 1)")
      ->check(CLI::Range(1, 1000000))
      ->needs(dry_run);
  app.add_option(
         "--threads,-j", options.threads,
         "simulation threads per rank (default: SLURM_CPUS_PER_TASK, else the affinity mask)")
      ->check(CLI::Range(1, 4096));
  app.add_flag("--save-jobs", options.save_jobs, "store per-job records of every point (/jobs)");
  app.add_flag("--save-timeseries", options.save_timeseries,
               "store sampled cluster state of every point (/timeseries)");
  app.add_flag("--whole-run", options.whole_run,
               "with --save-jobs/--save-timeseries: every job and sample of a point, warm-up and "
               "drain included, not only the measured ones (the steady-state window)");
  app.add_option("--max-chunk", options.max_chunk, "most points handed out in one message")
      ->check(CLI::Range(1, 100000));
  app.add_option("--progress-interval", options.progress_interval_s,
                 "seconds between progress lines when stderr is not a terminal")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // CLI::PositiveNumber's message prints DBL_MAX in 300 digits.
            double value = 0.0;
            if (!CLI::detail::lexical_cast(text, value) || !(value > 0.0) || value > 1e9)
              return "must be a number of seconds in (0, 1e9], got '" + excerpt(text) + "'";
            return "";
          },
          "SECONDS"));
  app.add_option("--summary-by", options.summary_by,
                 "axis to group the final summary by (default scheduler.policy)");
  app.add_flag("--quiet,-q", options.quiet, "no progress lines, no summary");
  app.add_option("--shard", options.shard,
                 "run only shard K of N (K = 0..N-1), balanced by estimated cost; join the "
                 "shards' files with `clustersim merge`");

  // argv[0] is the program, argv[1] is "sweep".
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    app.parse(argc - 1, argv + 1);  // argv[1] ("sweep") stands where CLI11 expects the program
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? kExitOk : kExitBadInput;
  }
  try {
    options.shard = parse_shard(options.shard).text();  // "0/1" is the whole grid: ""
  } catch (const InputError& error) {
    print_error(error.what());
    return kExitBadInput;
  }
  const bool out_given = !options.out.empty();
  if (options.out.empty()) {
    std::string stem = options.grid_path.empty()
                           ? "default"
                           : std::filesystem::path(options.grid_path).stem().string();
    options.out = stem + ".h5";
  }
  try {
    return run_sweep(options, out_given, &argc, &argv, command_line);
  } catch (const InputError& error) {
    print_error(error.what());
    return kExitBadInput;
  } catch (const std::exception& error) {
    print_error(error.what());
    return kExitFailure;
  }
}

}  // namespace clustersim::sweep
