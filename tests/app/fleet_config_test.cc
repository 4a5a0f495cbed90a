// [fleet] configs (fleet_config.h): the `home` router's clusters give, job for job, what each
// cluster's own config gives run alone on its share; a one-cluster fleet is today's config
// exactly; `clustersim run` writes the clusters' metrics and the fleet's job columns; bad
// [fleet] input names file, line and field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/metrics.h"
#include "clustersim/report.h"
#include "run_clustersim.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

// Two regions with a cluster each; jobs say their home in `vc`. Sizes differ (4 and 2 GPUs) and
// jobs overlap so that both clusters queue: a job run on the wrong cluster would show.
constexpr const char* kFleetTrace =
    "job_id,submit_time,num_gpus,duration,vc\n"
    "j0,0,4,100,west\nj1,5,2,50,east\nj2,10,4,80,us\nj3,12,1,30,east\n"
    "j4,20,2,60,west\nj5,25,2,40,eu\nj6,30,4,20,west\nj7,31,1,70,east\n";
constexpr const char* kFleetWest = "nodes = 1\ngpus_per_node = 4\n";
constexpr const char* kFleetEast = "nodes = 2\ngpus_per_node = 1\n";
constexpr const char* kFleetRest = R"(
[workload]
trace = "trace.csv"

[scheduler]
policy = "fifo"
)";

class FleetConfigRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clustersim_fleet_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    write("trace.csv", kFleetTrace);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  ConfigRun run(const std::string& name) const {
    const RunConfig config = load_run_config(path(name));
    return simulate_config(config, std::make_shared<const Workload>(load_workload(config)));
  }
  static std::string fleet(const std::string& router) {
    return "[fleet]\nrouter = \"" + router +
           "\"\n\n[[fleet.regions]]\nname = \"us\"\nutc_offset_h = -8\ncarbon_g_per_kwh = "
           "250\n\n[[fleet.regions]]\nname = \"eu\"\nutc_offset_h = 1\ncarbon_g_per_kwh = 350\n\n"
           "[[fleet.clusters]]\nname = \"west\"\nregion = \"us\"\n" +
           kFleetWest + "\n[[fleet.clusters]]\nname = \"east\"\nregion = \"eu\"\n" + kFleetEast +
           "\n[[fleet.links]]\nfrom = \"us\"\nto = \"eu\"\nbandwidth_gbps = 10\nlatency_ms = "
           "80\n" +
           kFleetRest;
  }

  fs::path dir_;
};

// Every JobRecord field of the table (`index`, the position in its own workload, is not one).
void expect_same_fleet_job(const JobRecord& a, const JobRecord& b, const std::string& id) {
  for (const JobField& field : job_record_fields()) {
    if (field.type == FieldType::kCount)
      EXPECT_EQ(a.*field.count, b.*field.count) << field.name << " " << id;
    else
      EXPECT_EQ(a.*field.real, b.*field.real) << field.name << " " << id;
  }
}

double fleet_metric(const ConfigRun& run, const std::string& name) {
  for (const auto& [key, value] : run.cluster_metrics)
    if (key == name) return value;
  ADD_FAILURE() << "no metric " << name;
  return -1.0;
}

TEST_F(FleetConfigRun, HomeRouterGivesEachClusterItsOwnConfigsRunOnItsShare) {
  write("fleet.toml", fleet("home"));
  const ConfigRun fleet_run = run("fleet.toml");
  // Each cluster alone: its own [cluster] config on its share of the trace (homes: the cluster's
  // name or its region's).
  const std::map<std::string, std::vector<std::string>> shares = {
      {"west", {"j0", "j2", "j4", "j6"}}, {"east", {"j1", "j3", "j5", "j7"}}};
  std::istringstream trace(kFleetTrace);
  std::string header, line;
  std::getline(trace, header);
  std::map<std::string, std::string> rows;
  while (std::getline(trace, line)) rows[line.substr(0, line.find(','))] = line + "\n";
  const auto& jobs = fleet_run.workload->jobs;
  ASSERT_EQ(fleet_run.result.jobs.size(), 8u);
  const RunResult::Column* cluster_column = nullptr;
  for (const RunResult::Column& column : fleet_run.result.job_columns)
    if (column.name == "cluster") cluster_column = &column;
  ASSERT_NE(cluster_column, nullptr);
  double cluster_index = 0, gpu_seconds = 0, window_jobs = 0;
  for (const auto& [name, ids] : {std::pair{std::string("west"), shares.at("west")},
                                  std::pair{std::string("east"), shares.at("east")}}) {
    std::string share = header + "\n";
    for (const std::string& id : ids) share += rows.at(id);
    write("trace.csv", share);
    write(name + ".toml",
          "[cluster]\n" + std::string(name == "west" ? kFleetWest : kFleetEast) + kFleetRest);
    const ConfigRun alone = run(name + ".toml");
    ASSERT_EQ(alone.result.jobs.size(), ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
      std::size_t j = 0;
      while (jobs[j].id != ids[k]) ++j;
      expect_same_fleet_job(fleet_run.result.jobs[j], alone.result.jobs[k], ids[k]);
      EXPECT_EQ(cluster_column->values[j], cluster_index) << ids[k];
    }
    EXPECT_EQ(fleet_metric(fleet_run, name + ".jct_mean"), alone.result.metrics.jct_mean);
    EXPECT_EQ(fleet_metric(fleet_run, name + ".queueing_delay_mean"),
              alone.result.metrics.queue_mean);
    EXPECT_EQ(fleet_metric(fleet_run, name + ".jobs"), 4.0);
    gpu_seconds += alone.result.metrics.gpu_seconds;
    window_jobs += static_cast<double>(alone.result.metrics.window_jobs);
    ++cluster_index;
  }
  // Every job measured: the bounds and totals of the clusters' own runs.
  const RunMetrics& m = fleet_run.result.metrics;
  EXPECT_EQ(m.window_first, 0u);
  EXPECT_EQ(m.window_last, 7u);
  EXPECT_EQ(static_cast<double>(m.window_jobs), window_jobs);
  EXPECT_EQ(window_jobs, 8.0);
  EXPECT_EQ(m.gpu_seconds, gpu_seconds);
  // The clusters queue (else the test would not tell them apart): 4 GPUs of j2 wait for j0.
  EXPECT_GT(fleet_run.result.metrics.queue_mean, 0.0);
}

TEST_F(FleetConfigRun, OneClusterFleetIsTodaysConfigExactly) {
  // A generated workload, measured whole in both (a fleet has no steady-state window yet).
  const std::string rest = R"(
[workload]
generator = "philly"
jobs = 300
load = 0.9
seed = 5

[scheduler]
policy = "tiresias"
placement = "consolidate"

[metrics]
steady_state = "off"
)";
  const std::string cluster = "nodes = 4\ngpus_per_node = 8\nnodes_per_rack = 2\n";
  write("today.toml", "[cluster]\n" + cluster + rest);
  write("one.toml",
        "[fleet]\nrouter = \"least_loaded\"\n[[fleet.regions]]\nname = \"r\"\n"
        "[[fleet.clusters]]\nname = \"only\"\nregion = \"r\"\n" +
            cluster + rest);
  const ConfigRun today = run("today.toml"), one = run("one.toml");
  EXPECT_EQ(metrics_json(one.result.metrics), metrics_json(today.result.metrics));
  ASSERT_EQ(one.result.jobs.size(), today.result.jobs.size());
  ASSERT_EQ(one.result.jobs.size(), 300u);
  for (std::size_t j = 0; j < one.result.jobs.size(); ++j) {
    EXPECT_EQ(one.result.jobs[j].index, today.result.jobs[j].index);
    expect_same_fleet_job(one.result.jobs[j], today.result.jobs[j], std::to_string(j));
  }
}

TEST_F(FleetConfigRun, RunWritesClusterMetricsAndJobColumns) {
  write("fleet.toml", fleet("home"));
  const auto json = testing::run_clustersim("run " + path("fleet.toml") + " --json --jobs-out " +
                                            path("jobs.csv"));
  ASSERT_EQ(json.exit_code, 0);
  const auto metrics = nlohmann::json::parse(json.out);
  EXPECT_EQ(metrics.at("jobs").get<double>(), 8.0);
  EXPECT_EQ(metrics.at("west.routed").get<double>(), 4.0);
  EXPECT_EQ(metrics.at("east.jobs").get<double>(), 4.0);
  std::ifstream jobs(path("jobs.csv"));
  std::string header;
  std::getline(jobs, header);
  EXPECT_NE(header.find(",cluster,migrations_wan"), std::string::npos) << header;
  // Both clusters are of one GPU type: no per-type GPU-seconds, as one cluster of it has none
  // (the partitions' type ids share the type's name).
  EXPECT_EQ(header.find("gpu_seconds."), std::string::npos) << header;
}

// A fleet of two GPU types writes one per-type GPU-seconds column per type name, and each job's
// GPU-seconds are on its cluster's type.
TEST_F(FleetConfigRun, JobsOutHasOneGpuSecondsColumnPerTypeName) {
  std::string text = fleet("home");
  const std::string east = "name = \"east\"\nregion = \"eu\"\n";
  text.insert(text.find(east) + east.size(), "gpu_type = \"a100\"\n");
  write("fleet.toml", text);
  const auto run =
      testing::run_clustersim("run " + path("fleet.toml") + " --jobs-out " + path("jobs.csv"));
  ASSERT_EQ(run.exit_code, 0);
  std::ifstream jobs(path("jobs.csv"));
  std::string header, row;
  std::getline(jobs, header);
  const auto count = [&](const std::string& column) {
    std::size_t n = 0;
    for (auto at = header.find(column); at != std::string::npos; at = header.find(column, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(",gpu_seconds.generic,"), 1u) << header;
  EXPECT_EQ(count(",gpu_seconds.a100,"), 1u) << header;
  EXPECT_EQ(count(",gpu_seconds."), 2u) << header;
  // j1 ran on east (a100): 2 GPUs x 50 s there, none on generic; j0 on west: 4 x 100 s.
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, ',');) out.push_back(field);
    return out;
  };
  const std::vector<std::string> names = fields(header);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  std::map<std::string, std::vector<std::string>> rows;
  while (std::getline(jobs, row)) rows[fields(row)[0]] = fields(row);
  EXPECT_EQ(std::stod(rows.at("j1").at(column("gpu_seconds.a100"))), 100.0);
  EXPECT_EQ(std::stod(rows.at("j1").at(column("gpu_seconds.generic"))), 0.0);
  EXPECT_EQ(std::stod(rows.at("j0").at(column("gpu_seconds.generic"))), 400.0);
  EXPECT_EQ(std::stod(rows.at("j0").at(column("gpu_seconds.a100"))), 0.0);
}

TEST_F(FleetConfigRun, SettingsThatCannotActAreWarned) {
  const auto warned = [&](const std::string& text) {
    write("fleet.toml", text);
    std::vector<std::string> keys;
    for (const ConfigWarning& warning : config_warnings(load_run_config(path("fleet.toml"))))
      keys.push_back(warning.key);
    return keys;
  };
  // The links carry nothing before the rebalancer; the home column only serves `home`.
  EXPECT_EQ(warned(fleet("home")), std::vector<std::string>{"fleet.links"});
  std::string with_home = fleet("least_loaded");
  with_home.insert(with_home.find("\n\n"), "\nhome_column = \"vc\"");
  EXPECT_EQ(warned(with_home), (std::vector<std::string>{"fleet.home_column", "fleet.links"}));
  // The rebalancer moves jobs over the links; off, its settings cannot act.
  std::string rebalanced = fleet("home");
  rebalanced.insert(rebalanced.find("[workload]"), "[fleet.rebalance]\nenabled = true\n\n");
  EXPECT_EQ(warned(rebalanced), std::vector<std::string>{});
  std::string idle = fleet("home");
  idle.insert(idle.find("[workload]"), "[fleet.rebalance]\nthreshold = 0.2\n\n");
  EXPECT_EQ(warned(idle), (std::vector<std::string>{"fleet.links", "fleet.rebalance.threshold"}));
}

// [fleet.rebalance] from a config: `clustersim run --json` writes the moves in all, per cluster
// and per link, and the job column counts the same moves.
TEST_F(FleetConfigRun, RebalancerRunWritesItsMetrics) {
  std::string text = fleet("home");
  text.insert(
      text.find("[workload]"),
      "[fleet.rebalance]\nenabled = true\nthreshold = 0.1\ninterval_s = 5\ninput_gb = 2\n\n");
  write("fleet.toml", text);
  const auto json = testing::run_clustersim("run " + path("fleet.toml") + " --json --jobs-out " +
                                            path("jobs.csv"));
  ASSERT_EQ(json.exit_code, 0);
  const auto metrics = nlohmann::json::parse(json.out);
  const double moves = metrics.at("migrations_wan").get<double>();
  EXPECT_EQ(
      metrics.at("west.migrated_out").get<double>() + metrics.at("east.migrated_out").get<double>(),
      moves);
  EXPECT_EQ(metrics.at("wan.us.eu.migrated").get<double>(), moves);
  // FIFO preempts none: every moved job never ran and moves its input, 2 GB.
  EXPECT_EQ(metrics.at("wan.us.eu.bytes_gb").get<double>(), 2 * moves);
  const ConfigRun run_again = run("fleet.toml");
  double column_moves = 0;
  for (const RunResult::Column& column : run_again.result.job_columns)
    if (column.name == "migrations_wan")
      for (double value : column.values) column_moves += value;
  EXPECT_EQ(column_moves, moves);
  EXPECT_GT(moves, 0.0);  // west's 4 GPUs queue behind j0 while east has room
}

std::string fleet_error_of(const std::string& text, const std::string& source) {
  try {
    parse_run_config(text, source, "");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST_F(FleetConfigRun, BadFleetInputNamesFileLineAndField) {
  // The cluster's table opens on line 4, its keys follow.
  const std::string base =
      "[fleet]\n[[fleet.regions]]\nname = \"r\"\n[[fleet.clusters]]\nname = \"c\"\n";
  const auto expect_error = [](const std::string& text, const std::string& expected) {
    const std::string error = fleet_error_of(text, "f.toml");
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  };
  expect_error(base + "region = \"x\"\nnodes = 1\n" + kFleetRest,
               "f.toml:6: field 'fleet.clusters[0].region': unknown region 'x'");
  expect_error(base + "region = \"r\"\nnodez = 1\n" + kFleetRest,
               "f.toml:7: field 'fleet.clusters[0].nodez': unknown key (did you mean 'nodes'?)");
  expect_error("[fleet]\nrouter = \"nearest\"\n" + base.substr(8) + "region = \"r\"\nnodes = 1\n" +
                   kFleetRest,
               "f.toml:2: field 'fleet.router': unknown value 'nearest'");
  expect_error("[cluster]\nnodes = 1\n" + base + "region = \"r\"\nnodes = 1\n" + kFleetRest,
               "f.toml:1: field 'cluster': a fleet's clusters are [[fleet.clusters]]");
  expect_error(base +
                   "region = \"r\"\nnodes = 1\n[[fleet.links]]\nfrom = \"r\"\nto = "
                   "\"r\"\nbandwidth_gbps = 1\n" +
                   kFleetRest,
               "field 'fleet.links.r-r': a link joins two known regions");
  expect_error(base + "region = \"r\"\nnodes = 1\n[[fleet.links]]\nfrom = \"r\"\n" + kFleetRest,
               "f.toml:8: field 'fleet.links[0].to': missing");
  expect_error(base + "region = \"r\"\nnodes = 1\n[fleet.rebalance]\nthreshold = -1\n" + kFleetRest,
               "f.toml:9: field 'fleet.rebalance.threshold'");
  expect_error(base + "region = \"r\"\nnodes = 1\n[fleet.rebalance]\nintervl_s = 5\n" + kFleetRest,
               "f.toml:9: field 'fleet.rebalance.intervl_s': unknown key (did you mean "
               "'interval_s'?)");
}

}  // namespace
}  // namespace clustersim
