// How a rank runs its points (rank_points.h).
#include "rank_points.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "clustersim/simulator.h"
#include "clustersim/sweep/hash.h"
#include "rank_loop.h"

namespace clustersim::sweep::sweep_internal {

namespace {

PointResult failed_for_size(const PointResult& result, std::size_t bytes) {
  PointResult failed;
  failed.point_id = result.point_id;
  failed.rank = result.rank;
  failed.elapsed_s = result.elapsed_s;
  failed.error = "the result is " + std::to_string(bytes) + " bytes (" +
                 std::to_string(result.jobs.size()) + " saved jobs, " +
                 std::to_string(result.samples.size()) + " samples), over the limit of " +
                 std::to_string(kMaxResultBytes) +
                 " per point: save fewer jobs or samples (--save-jobs, --save-timeseries)";
  return failed;
}

// Writes the point's rows to this rank's spool (on the calling, simulating thread) and leaves
// only their reference in the result, so that the rows never travel to rank 0.
void spool_rows(PointResult& result, RankRows& rows) {
  if (!result.error.empty()) return;
  PointResult only_rows;
  only_rows.point_id = result.point_id;
  only_rows.jobs = std::move(result.jobs);
  only_rows.samples = std::move(result.samples);
  // The added columns' values go with the rows; their names stay (the file's schema).
  auto move_values = [](std::vector<RunResult::Column>& from, std::vector<RunResult::Column>& to) {
    to.resize(from.size());
    for (std::size_t c = 0; c < from.size(); ++c) {
      to[c].name = from[c].name;
      to[c].values = std::move(from[c].values);
      from[c].values.clear();
    }
  };
  move_values(result.job_columns, only_rows.job_columns);
  move_values(result.sample_columns, only_rows.sample_columns);
  const std::string payload = encode_result(only_rows);
  if (payload.size() > kMaxResultBytes) {
    result.jobs = std::move(only_rows.jobs);
    result.samples = std::move(only_rows.samples);
    result = failed_for_size(result, payload.size());
    return;
  }
  try {
    result.rows = rows.spool().append(payload, only_rows.jobs.size(), only_rows.samples.size());
  } catch (const SpoolWriteError& error) {
    rows.fail(error.what());
    result.point_id = kDroppedPoint;
  }
}

}  // namespace

// Benchmark hook (sweep/bench/capacity_bench.sh): with CLUSTERSIM_SWEEP_SYNTHETIC set to
// "jobs=N,samples=S,ms=T", points are not simulated: each result gets N job rows and S samples
// of varied, deterministic values after T ms of sleep (no CPU), so that rank 0 and the row
// writers can be driven at a chosen rate and size, and ranks that only sleep can stand for many
// more ranks than there are cores.
const Synthetic& synthetic() {
  static const Synthetic parsed = [] {
    Synthetic value;
    const char* text = std::getenv("CLUSTERSIM_SWEEP_SYNTHETIC");
    if (!text || !*text) return value;
    value.on = true;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
      const auto equals = item.find('=');
      if (equals == std::string::npos) continue;
      const std::string key = item.substr(0, equals);
      const double number = std::atof(item.c_str() + equals + 1);
      if (key == "jobs") value.jobs = static_cast<std::size_t>(number);
      if (key == "samples") value.samples = static_cast<std::size_t>(number);
      if (key == "ms") value.ms = number;
    }
    return value;
  }();
  return parsed;
}

namespace {

double unit_double(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

void fill_synthetic(PointResult& result, std::uint64_t seed) {
  const Synthetic& spec = synthetic();
  if (spec.ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(spec.ms));
  RunMetrics& m = result.metrics;
  m.jobs = spec.jobs;
  m.jct_mean = 1000.0 * (1.0 + unit_double(splitmix64(seed)));
  m.makespan = 1e6 * (1.0 + unit_double(splitmix64(seed + 1)));
  m.gpu_util = unit_double(splitmix64(seed + 2));
  m.events = 3 * spec.jobs;
  result.jobs.resize(spec.jobs);
  double clock = 0.0;
  for (std::size_t j = 0; j < spec.jobs; ++j) {
    const std::uint64_t h = splitmix64(seed ^ (j * 0x9E3779B97F4A7C15ull));
    JobRecord& job = result.jobs[j];
    job.index = static_cast<std::uint32_t>(j);
    clock += 60.0 * unit_double(h);
    job.submit_time = clock;
    job.queue_delay = (h & 7) == 0 ? 3600.0 * unit_double(splitmix64(h)) : 0.0;
    job.start_time = job.submit_time + job.queue_delay;
    const double duration = 60.0 + 36000.0 * unit_double(splitmix64(h + 1));
    job.finish_time = job.start_time + duration;
    job.jct = job.finish_time - job.submit_time;
    job.num_gpus = 1 << (h >> 60 & 3);
    job.nodes = 1;
    job.gpu_seconds = duration * job.num_gpus;
  }
  result.samples.resize(spec.samples);
  for (std::size_t i = 0; i < spec.samples; ++i) {
    Sample& sample = result.samples[i];
    sample.time = 600.0 * static_cast<double>(i);
    sample.busy_gpus = static_cast<int>(splitmix64(seed + i) % 1024);
    sample.idle_gpus = 1024 - sample.busy_gpus;
  }
}

}  // namespace

PointResult run_point(const Grid& grid, const SweepOptions& options, WorkloadCache& workloads,
                      int rank, std::uint64_t point_id, RankRows* rows) {
  PointResult result;
  result.point_id = point_id;
  result.rank = rank;
  auto start = Clock::now();
  if (synthetic().on) {
    fill_synthetic(result, grid_point(grid, point_id).seed);
    if (!options.save_jobs) result.jobs.clear();
    if (!options.save_timeseries) result.samples.clear();
  } else
    try {
      GridPoint point = grid_point(grid, point_id);
      RunConfig config = make_point_config(grid, point, &workloads.side_files());
      config.sim.record_samples = options.save_timeseries;
      ConfigRun config_run;
      try {
        config_run = simulate_config(config, workloads.get(config));
      } catch (const ImpossibleJobError& error) {
        throw impossible_job_error(config, error);  // TRACE:LINE: field 'num_gpus': ...
      }
      RunResult& run = config_run.result;
      // The rows saved are the population of the metrics: the measured jobs and samples.
      if (config.workload.steady_plan && !options.whole_run) keep_measured_rows(run);
      for (const RunResult::Column& column : run.sample_columns)
        if (options.save_timeseries && column.values.size() != run.samples.size())
          throw std::logic_error("sample column " + column.name + " has " +
                                 std::to_string(column.values.size()) + " values for " +
                                 std::to_string(run.samples.size()) + " samples");
      result.metrics = run.metrics;
      if (options.save_jobs) {
        // A job column is by workload position (JobRecord::index); the rows kept are a part.
        for (const RunResult::Column& column : run.job_columns) {
          RunResult::Column& kept = result.job_columns.emplace_back();
          kept.name = column.name;
          kept.values.reserve(run.jobs.size());
          for (const JobRecord& job : run.jobs) kept.values.push_back(column.values.at(job.index));
        }
        result.jobs = std::move(run.jobs);
      }
      if (options.save_timeseries) {
        result.sample_columns = std::move(run.sample_columns);
        result.samples = std::move(run.samples);
      }
    } catch (const std::exception& error) {
      result.job_columns.clear();  // a failed point has no rows
      result.jobs.clear();
      result.error = error.what();
      if (result.error.empty()) result.error = "simulation failed";
    } catch (...) {
      result.error = "simulation failed (unknown exception)";
    }
  result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (rows) {
    const double cpu = thread_cpu_seconds();
    spool_rows(result, *rows);
    rows->add_cpu(thread_cpu_seconds() - cpu);
  }
  return result;
}

// encode_result, or, for a result over kMaxResultBytes (rows that were not spooled), the
// encoding of the point failed for that reason.
std::string encode_checked(const PointResult& result) {
  std::string bytes = encode_result(result);
  if (bytes.size() <= kMaxResultBytes) return bytes;
  return encode_result(failed_for_size(result, bytes.size()));
}

}  // namespace clustersim::sweep::sweep_internal
