// The columns components add (RunResult::job_columns, sample_columns: the fabric's, the power
// meter's, the failure classes') reach the sweep's /jobs and /timeseries: a point with the
// components has the values `clustersim run --jobs-out/--timeseries-out` writes for it, through
// the rank's row spool, and a point without them has NaN there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/report.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
#include "rank_points.h"
#include "temp_dir.h"

namespace clustersim::sweep {
namespace {

using sweep::testing::TempDir;

// Point 0: LLM jobs on a two-leaf fabric, metered, with GPU failures; point 1: plain jobs, no
// meter (the fabric acts on LLM jobs only), the same failures.
constexpr const char* kColumnsGrid = R"(
[cluster]
nodes = 4
gpus_per_node = 8
gpu_type = "h100"
nodes_per_rack = 2

[workload]
trace = "llm.csv"

[scheduler]
policy = "fifo"

[fabric]
hosts_per_leaf = 2
leaf_oversubscription = 2

[power]
enabled = true

[mechanisms.failure_class.gpu]
rate_per_h = 0.02
repair_h = 0.5

[metrics]
sample_interval_s = 600

[sweep]
"workload.trace" = ["llm.csv", "plain.csv"]
"power.enabled" = [true, false]
zip = [["workload.trace", "power.enabled"]]
seed = 5
)";

constexpr const char* kLlmJobs =
    "job_id,submit_time,num_gpus,duration,model,precision,tp,pp,dp,global_batch,micro_batch\n"
    "a,0,16,7200,llama2-7b,bf16,1,1,16,32,1\n"
    "b,60,16,5400,llama2-7b,bf16,1,1,16,32,1\n"
    "c,600,8,3600,llama2-13b,bf16,2,1,4,16,1\n"
    "d,900,16,3000,llama2-7b,bf16,1,1,16,32,1\n";
constexpr const char* kPlainJobs =
    "job_id,submit_time,num_gpus,duration\n"
    "a,0,16,7200\n"
    "b,60,8,5400\n"
    "c,600,4,3600\n";

// A CSV's columns by name (numbers as written: %.17g, "nan" for NaN).
std::map<std::string, std::vector<double>> read_csv_columns(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream header(line);
  for (std::string name; std::getline(header, name, ',');) names.push_back(name);
  std::map<std::string, std::vector<double>> columns;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string cell;
    for (std::size_t c = 0; c < names.size() && std::getline(row, cell, ','); ++c)
      columns[names[c]].push_back(std::strtod(cell.c_str(), nullptr));
  }
  return columns;
}

bool same_bits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

// The rows of point `point` of a row table column.
std::vector<double> rows_of_point(const std::string& path, const std::string& table,
                                  const std::string& column, double point) {
  const std::vector<double> ids = read_numeric_column(path, table + "/point_id");
  const std::vector<double> values = read_numeric_column(path, table + "/" + column);
  std::vector<double> out;
  for (std::size_t row = 0; row < ids.size(); ++row)
    if (ids[row] == point) out.push_back(values.at(row));
  return out;
}

TEST(SweepComponentColumns, RowTablesCarryTheColumnsClustersimRunWrites) {
  TempDir dir;
  std::ofstream(dir.file("llm.csv")) << kLlmJobs;
  std::ofstream(dir.file("plain.csv")) << kPlainJobs;
  const Grid grid = parse_grid(kColumnsGrid, dir.file("g.toml"), dir.file(""));
  ASSERT_EQ(grid.size(), 2u);

  SweepOptions options;
  options.save_jobs = options.save_timeseries = true;
  sweep_internal::WorkloadCache workloads;
  const std::string rows_folder = rows_folder_for(dir.file("r.h5"));
  std::filesystem::create_directories(rows_folder);
  std::vector<PointResult> results;
  {
    sweep_internal::RankRows rows(rows_folder, 1, 0);
    for (std::uint64_t id = 0; id < grid.size(); ++id) {
      results.push_back(sweep_internal::run_point(grid, options, workloads, 0, id, &rows));
      ASSERT_EQ(results.back().error, "") << id;
      ASSERT_TRUE(results.back().rows) << "the rows were spooled";
    }
  }
  const std::string path = dir.file("r.h5");
  write_result_file(path, grid, results, ResultFileOptions{true, true}, {}, rows_folder);

  // What `clustersim run GRID --point N --jobs-out --timeseries-out` writes for each point.
  std::vector<std::map<std::string, std::vector<double>>> csv_jobs, csv_samples;
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    const RunConfig config = make_point_config(grid, grid_point(grid, id));
    auto workload = std::make_shared<const Workload>(load_workload(config));
    RunConfig sampled = config;
    sampled.sim.record_samples = true;
    const ConfigRun run = simulate_config(sampled, workload);
    std::ostringstream jobs, samples;
    write_jobs_csv(jobs, workload->jobs, run.result);
    write_timeseries_csv(samples, run.result);
    csv_jobs.push_back(read_csv_columns(jobs.str()));
    csv_samples.push_back(read_csv_columns(samples.str()));
  }

  const std::vector<std::string> job_columns = {"ettr",     "interruptions",       "iter_alone_s",
                                                "iter_s",   "contention_slowdown", "energy_kwh",
                                                "carbon_kg"};
  const std::vector<std::string> sample_columns = {"leaf_uplink_util", "spine_uplink_util",
                                                   "power_w"};
  auto check = [&](const std::string& table, const std::string& column, std::uint64_t id,
                   const std::map<std::string, std::vector<double>>& csv) {
    const std::vector<double> file = rows_of_point(path, table, column, static_cast<double>(id));
    ASSERT_FALSE(file.empty()) << table << "/" << column << " point " << id;
    const auto found = csv.find(column);
    if (found == csv.end()) {  // the point's run did not add it: NaN in every row
      for (double value : file) EXPECT_TRUE(std::isnan(value)) << column << " point " << id;
      return;
    }
    ASSERT_EQ(file.size(), found->second.size()) << column << " point " << id;
    for (std::size_t row = 0; row < file.size(); ++row)
      EXPECT_TRUE(same_bits(file[row], found->second[row]))
          << table << "/" << column << " point " << id << " row " << row << ": " << file[row]
          << " vs " << found->second[row];
  };
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    for (const std::string& column : job_columns) check("jobs", column, id, csv_jobs[id]);
    for (const std::string& column : sample_columns)
      check("timeseries", column, id, csv_samples[id]);
  }
  // Point 0 ran every component; point 1 neither the fabric (no LLM jobs) nor the meter.
  for (const std::string& column : job_columns) EXPECT_TRUE(csv_jobs[0].count(column)) << column;
  for (const std::string& column : sample_columns)
    EXPECT_TRUE(csv_samples[0].count(column)) << column;
  EXPECT_TRUE(csv_jobs[1].count("ettr"));
  EXPECT_FALSE(csv_jobs[1].count("energy_kwh"));
  EXPECT_FALSE(csv_jobs[1].count("iter_s"));
  EXPECT_FALSE(csv_samples[1].count("power_w"));
  EXPECT_GT(rows_of_point(path, "jobs", "energy_kwh", 0)[0], 0.0);
  // No point had a supply: its columns are not in the file at all.
  EXPECT_ANY_THROW(read_numeric_column(path, "timeseries/solar_w"));
}

// sweep/README.md's table of the added columns is the one their declarations give.
TEST(SweepComponentColumns, ReadmeTableIsTheDeclarations) {
  std::ifstream in(std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "sweep/README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const auto begin = readme.find("<!-- columns:begin");
  const auto end = readme.find("<!-- columns:end");
  ASSERT_NE(begin, std::string::npos) << "sweep/README.md has no <!-- columns:begin --> marker";
  ASSERT_NE(end, std::string::npos);
  const auto table = readme.find('\n', begin) + 1;
  std::string shown = readme.substr(table, end - table);
  while (!shown.empty() && shown.front() == '\n') shown.erase(0, 1);
  while (shown.size() > 1 && shown[shown.size() - 2] == '\n') shown.pop_back();
  EXPECT_EQ(shown, added_columns_markdown()) << "paste this table into sweep/README.md:\n"
                                             << added_columns_markdown();
  EXPECT_NE(shown.find("| /jobs | `contention_slowdown` |"), std::string::npos);
}

}  // namespace
}  // namespace clustersim::sweep
