// DAG configs (serving queries alone) on a Simulation: stepped decision point by decision point,
// reset and replayed (also with a new seed), a run gives `clustersim run`'s records and metrics
// exactly (what clustersim.Simulation steps from Python), and the records keep the serving
// execution model (serving.h), checked here field by field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/metrics.h"
#include "clustersim/simulation.h"
#include "run_clustersim.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;
using testing::run_clustersim;

class DagConfig : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clustersim_dag_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // 150 queries of the Compass pipelines on 2 nodes x 2 GPUs of 16 GB, the placement under
    // test and a cache that looks at the GPU's queue.
    std::ofstream(dir_ / "serving.toml") << R"([cluster]
nodes = 2
gpus_per_node = 2
gpu_mem_gb = 16

[workload]
generator = "query_dag"
queries = 150
queries_per_s = 3
seed = 11

[scheduler]
task_placement = ")" << GetParam() << R"("
cache = "compass"

[metrics]
query_slo_s = 2
)";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

void expect_same_records(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t j = 0; j < a.jobs.size(); ++j) {
    EXPECT_EQ(a.jobs[j].index, b.jobs[j].index) << j;
    for (const JobField& field : job_record_fields()) {
      if (field.type == FieldType::kCount)
        EXPECT_EQ(a.jobs[j].*field.count, b.jobs[j].*field.count) << field.name << " " << j;
      else
        EXPECT_EQ(a.jobs[j].*field.real, b.jobs[j].*field.real) << field.name << " " << j;
    }
  }
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t t = 0; t < a.tasks.size(); ++t) {
    EXPECT_EQ(a.tasks[t].gpu, b.tasks[t].gpu) << t;
    EXPECT_EQ(a.tasks[t].ready, b.tasks[t].ready) << t;
    EXPECT_EQ(a.tasks[t].head, b.tasks[t].head) << t;
    EXPECT_EQ(a.tasks[t].compute_start, b.tasks[t].compute_start) << t;
    EXPECT_EQ(a.tasks[t].finish, b.tasks[t].finish) << t;
    EXPECT_EQ(a.tasks[t].load_s, b.tasks[t].load_s) << t;
    EXPECT_EQ(a.tasks[t].transfer_s, b.tasks[t].transfer_s) << t;
    EXPECT_EQ(a.tasks[t].cache_hit, b.tasks[t].cache_hit) << t;
  }
  ASSERT_EQ(a.queries.size(), b.queries.size());
  for (std::size_t q = 0; q < a.queries.size(); ++q) {
    EXPECT_EQ(a.queries[q].arrival, b.queries[q].arrival) << q;
    EXPECT_EQ(a.queries[q].finish, b.queries[q].finish) << q;
    EXPECT_EQ(a.queries[q].latency, b.queries[q].latency) << q;
  }
  for (const MetricField& field : run_metric_fields()) {
    if (field.type == FieldType::kCount)
      EXPECT_EQ(a.metrics.*field.count, b.metrics.*field.count) << field.name;
    else
      EXPECT_EQ(a.metrics.*field.real, b.metrics.*field.real) << field.name;
  }
}

TEST_P(DagConfig, ASimulationStepsADagConfigAsTheCommandRunsIt) {
  const RunConfig config = load_run_config(path("serving.toml"));
  const ConfigRun command =
      simulate_config(config, std::make_shared<const Workload>(load_workload(config)));
  const RunResult& c = command.result;
  ASSERT_EQ(c.metrics.queries, 150u);
  ASSERT_EQ(c.tasks.size(), command.workload->jobs.size());
  ASSERT_EQ(c.jobs.size(), c.tasks.size());  // one record per task

  // The records keep the execution model (serving.h): a task computes once its model is
  // resident and its inputs are there, for its duration; a query ends with its last task.
  const DagInfo& dag = *command.workload->dag;
  std::vector<double> last_finish(dag.query_count(), 0.0);
  for (std::size_t t = 0; t < c.tasks.size(); ++t) {
    const TaskRecord& task = c.tasks[t];
    EXPECT_EQ(task.compute_start, std::max(task.head + task.load_s, task.ready + task.transfer_s))
        << t;
    EXPECT_EQ(task.finish, task.compute_start + command.workload->jobs[t].duration) << t;
    EXPECT_GE(task.head, task.ready) << t;
    EXPECT_TRUE(task.gpu >= 0 && task.gpu < 4) << t;
    if (task.cache_hit) {
      EXPECT_EQ(task.load_s, 0.0) << t;
    }
    EXPECT_EQ(c.jobs[t].start_time, task.compute_start) << t;
    EXPECT_EQ(c.jobs[t].finish_time, task.finish) << t;
    EXPECT_EQ(c.jobs[t].queue_delay, task.head - task.ready) << t;
    last_finish[dag.query_of[t]] = std::max(last_finish[dag.query_of[t]], task.finish);
  }
  for (std::size_t q = 0; q < dag.query_count(); ++q) {
    EXPECT_EQ(c.queries[q].finish, last_finish[q]) << q;
    EXPECT_EQ(c.queries[q].latency, last_finish[q] - dag.arrival_time[q]) << q;
  }
  // One event per query arrival and one per task finish, as the serving engine counts them.
  EXPECT_EQ(c.metrics.events, c.metrics.queries + c.tasks.size());
  EXPECT_EQ(c.metrics.jobs, c.tasks.size());

  // The command line's --json: every metric, at full precision (%.17g).
  const testing::Outcome cli = run_clustersim("run " + path("serving.toml") + " --json");
  ASSERT_EQ(cli.exit_code, 0);
  const auto json = nlohmann::json::parse(cli.out);
  for (const MetricField& field : run_metric_fields()) {
    ASSERT_TRUE(json.contains(std::string(field.name))) << field.name;
    if (field.type == FieldType::kCount)
      EXPECT_EQ(json[std::string(field.name)].get<std::uint64_t>(), c.metrics.*field.count)
          << field.name;
    else
      EXPECT_EQ(json[std::string(field.name)].get<double>(), c.metrics.*field.real) << field.name;
  }

  // Stepped on a Simulation (the built-in decider has no jobs to decide on; serving's timers
  // make the points), twice: reset() replays it.
  Simulation simulation(config);
  EXPECT_TRUE(simulation.jobs().empty());  // no training jobs
  EXPECT_EQ(simulation.workload()->jobs.size(), c.tasks.size());
  for (int replay = 0; replay < 2; ++replay) {
    std::size_t points = 0;
    while (simulation.step()) ++points;
    EXPECT_GT(points, 150u);  // at least one per query arrival
    expect_same_records(simulation.result(), c);
    simulation.reset();
  }
  EXPECT_THROW(simulation.result(), std::logic_error);  // reset: not run yet
  expect_same_records(simulation.run(), c);

  // With a seed, the queries are generated anew, as a sweep seeds a point (apply_seed).
  RunConfig seeded = config;
  apply_seed(seeded, 7);
  const ConfigRun reseeded =
      simulate_config(seeded, std::make_shared<const Workload>(load_workload(seeded)));
  EXPECT_NE(reseeded.result.metrics.query_latency_mean, c.metrics.query_latency_mean);
  simulation.reset(7);
  expect_same_records(simulation.run(), reseeded.result);
}

INSTANTIATE_TEST_SUITE_P(Placements, DagConfig,
                         ::testing::Values("compass", "heft", "round_robin", "least_loaded",
                                           "model_affinity"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace clustersim
