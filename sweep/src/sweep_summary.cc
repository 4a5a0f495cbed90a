// What a sweep says when it ends (sweep_command.h): its failures, and a table of means over
// points grouped by an axis.
#include <algorithm>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/sweep/sweep_command.h"

namespace clustersim::sweep {

std::string summarize_failures(const std::vector<std::string>& status) {
  std::map<std::string, std::size_t> count_of;
  std::size_t failed = 0;
  for (const std::string& entry : status) {
    if (entry == "ok") continue;
    ++failed;
    ++count_of[entry];
  }
  if (failed == 0) return "";
  std::vector<std::pair<std::string, std::size_t>> reasons(count_of.begin(), count_of.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string line = "sweep: " + std::to_string(failed) + " of " + std::to_string(status.size()) +
                     " points failed (status column of /points): ";
  constexpr std::size_t kShownReasons = 3;
  for (std::size_t i = 0; i < reasons.size() && i < kShownReasons; ++i) {
    line += (i ? "; " : "") + std::to_string(reasons[i].second) + " x " +
            excerpt(reasons[i].first, 160);
  }
  if (reasons.size() > kShownReasons) {
    line += "; and " + std::to_string(reasons.size() - kShownReasons) + " other reasons";
  }
  return line;
}

void write_summary_table(std::ostream& out, const Grid& grid,
                         const std::vector<PointResult>& results, const std::string& group_by) {
  std::optional<std::size_t> axis_index;
  std::string wanted = group_by.empty() ? "scheduler.policy" : group_by;
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    if (grid.axes[a].path == wanted) axis_index = a;
  }
  if (!axis_index && group_by.empty() && !grid.axes.empty()) axis_index = 0;
  struct Row {
    std::size_t points = 0, failed = 0;
    double jct_mean = 0, jct_p99 = 0, queue_mean = 0, makespan = 0, gpu_util = 0, preemptions = 0;
    // Serving (DAG) sweeps.
    double latency_mean = 0, latency_p99 = 0, cache_hit_rate = 0, model_loads = 0, slo = 0;
    // Steady-state verdicts (steady_state.h): steady, overloaded, too short.
    std::size_t steady = 0, overloaded = 0, too_short = 0;
  };
  std::size_t assessed = 0, steady = 0, overloaded = 0, too_short = 0;
  double most_more = 0.0;
  bool serving = false;  // every completed point served queries: show their columns instead
  std::vector<std::string> order;
  std::map<std::string, Row> rows;
  for (const auto& result : results) {
    std::string key = "all";
    if (axis_index)
      key =
          grid.axes[*axis_index].labels[grid_point(grid, result.point_id).value_index[*axis_index]];
    if (!rows.count(key)) order.push_back(key);
    Row& row = rows[key];
    if (!result.error.empty()) {
      ++row.failed;
      continue;
    }
    ++row.points;
    row.jct_mean += result.metrics.jct_mean;
    row.jct_p99 += result.metrics.jct_p99;
    row.queue_mean += result.metrics.queue_mean;
    row.makespan += result.metrics.makespan;
    row.gpu_util += result.metrics.gpu_util;
    row.preemptions += static_cast<double>(result.metrics.preemptions);
    row.latency_mean += result.metrics.query_latency_mean;
    row.latency_p99 += result.metrics.query_latency_p99;
    row.cache_hit_rate += result.metrics.cache_hit_rate;
    row.model_loads += static_cast<double>(result.metrics.model_loads);
    row.slo += result.metrics.query_slo_attainment;
    const RunMetrics& m = result.metrics;
    row.steady += m.steady_state;
    row.overloaded += m.window_overloaded;
    row.too_short += m.window_too_short;
    if (m.steady_state || m.window_too_short || m.window_overloaded) ++assessed;
    steady += m.steady_state;
    overloaded += m.window_overloaded;
    too_short += m.window_too_short;
    most_more = std::max(most_more, m.more_jobs);
  }
  for (const auto& result : results) {
    if (!result.error.empty()) continue;
    serving = result.metrics.queries > 0;
    if (!serving) break;
  }
  const std::string title = axis_index ? grid.axes[*axis_index].path : std::string("grid");
  const int width = static_cast<int>(std::max<std::size_t>(title.size(), 8)) + 2;
  out << "\nmeans over points, by " << title << ":\n";
  if (serving) {
    out << std::left << std::setw(width) << title << std::right << std::setw(7) << "points"
        << std::setw(7) << "failed" << std::setw(17) << "latency_mean_s" << std::setw(16)
        << "latency_p99_s" << std::setw(11) << "slo_met" << std::setw(11) << "cache_hit"
        << std::setw(13) << "model_loads" << std::setw(9) << "gpu_util"
        << "\n";
    for (const auto& key : order) {
      const Row& row = rows[key];
      double n = row.points ? static_cast<double>(row.points) : 1.0;
      out << std::left << std::setw(width) << key << std::right << std::setw(7) << row.points
          << std::setw(7) << row.failed << std::fixed << std::setprecision(3) << std::setw(17)
          << row.latency_mean / n << std::setw(16) << row.latency_p99 / n << std::setw(11)
          << row.slo / n << std::setw(11) << row.cache_hit_rate / n << std::setprecision(1)
          << std::setw(13) << row.model_loads / n << std::setprecision(3) << std::setw(9)
          << row.gpu_util / n << "\n";
    }
    out << std::defaultfloat;
    return;
  }
  out << std::left << std::setw(width) << title << std::right << std::setw(7) << "points"
      << std::setw(7) << "failed" << std::setw(13) << "jct_mean_s" << std::setw(13) << "jct_p99_s"
      << std::setw(13) << "queue_mean_s" << std::setw(13) << "makespan_s" << std::setw(9)
      << "gpu_util" << std::setw(12) << "preemptions";
  if (assessed) out << "  steady/overloaded/too short";
  out << "\n";
  for (const auto& key : order) {
    const Row& row = rows[key];
    double n = row.points ? static_cast<double>(row.points) : 1.0;
    out << std::left << std::setw(width) << key << std::right << std::setw(7) << row.points
        << std::setw(7) << row.failed << std::fixed << std::setprecision(1) << std::setw(13)
        << row.jct_mean / n << std::setw(13) << row.jct_p99 / n << std::setw(13)
        << row.queue_mean / n << std::setw(13) << row.makespan / n << std::setprecision(3)
        << std::setw(9) << row.gpu_util / n << std::setprecision(1) << std::setw(12)
        << row.preemptions / n;
    if (assessed) out << "  " << row.steady << "/" << row.overloaded << "/" << row.too_short;
    out << "\n";
  }
  out << std::defaultfloat;
  if (assessed) {
    out << "steady-state verdicts (columns steady_state, window_overloaded, window_too_short of "
           "/points): "
        << steady << " steady, " << overloaded << " overloaded, " << too_short << " too short";
    if (too_short) out << " (run up to " << most_more << "x more jobs)";
    if (assessed < results.size()) out << ", " << results.size() - assessed << " not assessed";
    out << "\n";
  }
}

}  // namespace clustersim::sweep
