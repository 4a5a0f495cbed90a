// What a sweep will take (sizing.h): a model whose constants were measured on the 2-core
// development VM with sweep/bench/memory_bench.sh (sweep/README.md, "Sizing", has the table).
#include "sizing.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace clustersim::sweep::sweep_internal {

// Time: the measured training grids ran at 1/kSecondsPerCostUnit units per thread-second within
// a factor of kSlowestGridFactor either way (README, "Sizing"); serving points (query DAGs)
// kServingCostFactor times slower per unit (Compass: 27,000-46,000 units/s).
const double kSecondsPerCostUnit = 2.5e-7;
constexpr double kSlowestGridFactor = 5.0;
constexpr double kServingCostFactor = 120.0;
constexpr double kStartupSeconds = 0.5;  // MPI start-up, grid check, final file of metrics

// Memory of a rank: the process (binary, MPI, HDF5, oneTBB: 33-45 MB on small grids), plus each
// point its threads hold at once (the simulation's jobs, its cluster and samples), plus rank 0's
// per-point records.
constexpr double kRankBaseBytes = 40e6;
constexpr double kBytesPerSimulatedJob = 1060;
constexpr double kBytesPerSample = 200;
constexpr double kBytesPerGpu = 2000;
constexpr double kRank0BytesPerPoint = 2000;
// --save-jobs / --save-timeseries: a point's rows in memory until its rank spools them, and the
// final file's row tables: built by rank 0 alone on one rank (measured 1,846 MB for 10.7 M rows
// of the 300,000-job grid, 1 x 1), else compressed by the other ranks in turn. What a compressing
// rank holds does not follow the rows (measured on 2 ranks: +90 MB on rank 1 for the 300,000-job
// grid's 10.7 M rows, 8 bytes a row; +267 MB for the default grid's 4.1 M, 65 a row): the rate
// below is the largest measured, so the estimate is an upper bound there (+133% and -1%:
// README, "Sizing") and `slurm/submit` never asks for less than a rank took.
constexpr double kMemoryBytesPerRow = 120;
constexpr double kAloneBytesPerRow = 137;
constexpr double kWriterBytesPerRow = 65;

// Disk: the final file, and the spools (rows as the ranks wrote them, uncompressed) and journal
// beside it while it is written.
constexpr double kFileBaseBytes = 100e3;
constexpr double kFileBytesPerPoint = 500;
constexpr double kFileBytesPerJobRow = 30;
constexpr double kFileBytesPerSampleRow = 40;
constexpr double kJournalBytesPerPoint = 600;
constexpr double kSpoolBytesPerJobRow = 150;
constexpr double kSpoolBytesPerSampleRow = 150;

SizingEstimate estimate_sizing(const Grid& grid, const GridCheck& check,
                               const std::vector<bool>& members, const SizingInput& input) {
  SizingEstimate estimate;
  const int ranks = std::max(1, input.ranks), threads = std::max(1, input.threads);
  std::vector<double> point_bytes;  // of each point that runs
  double largest_point_seconds = 0.0;
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    if (!members.empty() && !members[id]) continue;
    const std::size_t config = id / grid.replicates;
    const ConfigSize& size = check.config_size[config];
    const double cost = check.config_cost[config];
    const double seconds = cost * kSecondsPerCostUnit * (size.serving ? kServingCostFactor : 1.0);
    ++estimate.points;
    estimate.cost += cost;
    estimate.cpu_seconds += seconds;
    largest_point_seconds = std::max(largest_point_seconds, seconds);
    const double job_rows = !input.save_jobs  ? 0.0
                            : input.whole_run ? static_cast<double>(size.simulated_jobs)
                                              : static_cast<double>(check.config_jobs[config]);
    // Samples are stored whole or in the window; the estimate keeps them all (a bound).
    const double sample_rows = input.save_timeseries ? size.samples : 0.0;
    estimate.job_rows += job_rows;
    estimate.timeseries_rows += sample_rows;
    point_bytes.push_back(kBytesPerSimulatedJob * static_cast<double>(size.simulated_jobs) +
                          kBytesPerSample * size.samples + kBytesPerGpu * size.gpus +
                          kMemoryBytesPerRow * (job_rows + sample_rows));
  }
  estimate.wall_seconds =
      kStartupSeconds + std::max(estimate.cpu_seconds / (ranks * threads), largest_point_seconds);
  estimate.wall_seconds_high = estimate.wall_seconds * kSlowestGridFactor;

  // Points go out largest estimated cost first, so a rank's threads may hold the largest points
  // at once: the `threads` largest.
  const std::size_t held = std::min<std::size_t>(point_bytes.size(), threads);
  std::partial_sort(point_bytes.begin(), point_bytes.begin() + held, point_bytes.end(),
                    std::greater<>());
  double simulating = 0.0;
  for (std::size_t i = 0; i < held; ++i) simulating += point_bytes[i];
  estimate.point_peak_bytes = point_bytes.empty() ? 0.0 : point_bytes.front();
  const double rows = estimate.job_rows + estimate.timeseries_rows;
  const double final_rows =
      ranks == 1 ? kAloneBytesPerRow * rows : kWriterBytesPerRow * rows / (ranks - 1);
  estimate.peak_rss_bytes_per_rank = kRankBaseBytes + simulating +
                                     kRank0BytesPerPoint * static_cast<double>(estimate.points) +
                                     final_rows;

  estimate.final_bytes =
      kFileBaseBytes + kFileBytesPerPoint * static_cast<double>(estimate.points) +
      kFileBytesPerJobRow * estimate.job_rows + kFileBytesPerSampleRow * estimate.timeseries_rows;
  estimate.spool_peak_bytes =
      estimate.final_bytes + kJournalBytesPerPoint * static_cast<double>(estimate.points) +
      kSpoolBytesPerJobRow * estimate.job_rows + kSpoolBytesPerSampleRow * estimate.timeseries_rows;
  return estimate;
}

namespace {

std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, bytes >= 10e6 ? "%.0f MB" : "%.1f MB", bytes / 1e6);
  return text;
}

std::string duration(double seconds) {
  char text[32];
  if (seconds < 120)
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 7200)
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

}  // namespace

void write_sizing_text(std::ostream& out, const SizingInput& input,
                       const SizingEstimate& estimate) {
  out << "# sizing (sweep/README.md, Sizing): " << estimate.points << " points, ~"
      << duration(estimate.cpu_seconds) << " on one thread; on " << input.ranks << " rank"
      << (input.ranks == 1 ? "" : "s") << " x " << input.threads << " thread"
      << (input.threads == 1 ? "" : "s") << " ~" << duration(estimate.wall_seconds)
      << " (measured grids: up to " << kSlowestGridFactor << "x either way); peak memory ~"
      << megabytes(estimate.peak_rss_bytes_per_rank) << " per rank (the largest point ~"
      << megabytes(estimate.point_peak_bytes) << " per thread); result file ~"
      << megabytes(estimate.final_bytes);
  if (input.save_jobs || input.save_timeseries)
    out << ", the output folder ~" << megabytes(estimate.spool_peak_bytes)
        << " at its fullest (spools and journal beside the file being written)";
  out << "\n";
}

void write_sizing_json(std::ostream& out, const Grid& grid, const GridCheck& check,
                       const SizingInput& input, const SizingEstimate& estimate,
                       const std::string& result_path, const std::string& result_problem) {
  nlohmann::json json{
      {"grid", grid.source_name},
      {"grid_points", grid.size()},
      {"configurations", grid.configurations()},
      {"replicates", grid.replicates},
      {"points", estimate.points},
      {"warnings", check.warnings},
      {"out", result_path},
      {"out_problem", result_problem},
      {"run",
       {{"ranks", input.ranks},
        {"threads", input.threads},
        {"save_jobs", input.save_jobs},
        {"save_timeseries", input.save_timeseries},
        {"whole_run", input.whole_run}}},
      {"time",
       {{"cost", estimate.cost},
        {"seconds_per_cost_unit", kSecondsPerCostUnit},
        {"cpu_seconds", estimate.cpu_seconds},
        {"wall_seconds", estimate.wall_seconds},
        {"wall_seconds_high", estimate.wall_seconds_high}}},
      {"memory",
       {{"peak_rss_bytes_per_rank", estimate.peak_rss_bytes_per_rank},
        {"point_peak_bytes", estimate.point_peak_bytes}}},
      {"disk",
       {{"job_rows", estimate.job_rows},
        {"timeseries_rows", estimate.timeseries_rows},
        {"final_bytes", estimate.final_bytes},
        {"spool_peak_bytes", estimate.spool_peak_bytes}}},
  };
  out << json.dump(2) << "\n";
}

}  // namespace clustersim::sweep::sweep_internal
