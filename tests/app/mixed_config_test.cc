// Mixed configs ([serving] config beside a training workload): what they refuse, naming the key,
// and a run whose serving holds the whole cluster, which must give the serving engine's own
// results (the same code on the training engine's clock).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/metrics.h"
#include "clustersim/simulation.h"

namespace clustersim {
namespace {

namespace fs = std::filesystem;

class MixedConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clustersim_mixed_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // 200 queries of the Compass pipelines on 2 nodes x 2 GPUs.
    write("serving.toml", R"([cluster]
nodes = 2
gpus_per_node = 2
gpu_mem_gb = 16

[workload]
generator = "query_dag"
queries = 200
queries_per_s = 4
seed = 5

[scheduler]
task_placement = "compass"
)");
    write("other_cluster.toml", R"([cluster]
nodes = 3
gpus_per_node = 2

[workload]
generator = "query_dag"
queries = 10
)");
    write("training.toml",
          "[cluster]\nnodes = 2\ngpus_per_node = 2\n\n[workload]\ntrace = \"jobs.csv\"\n");
    write("jobs.csv", "job_id,submit_time,num_gpus,duration\nA,0,1,500\nB,10,2,300\nC,20,1,100\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  // A training config on the same cluster with `extra` appended.
  std::string training(const std::string& extra) const {
    return "[cluster]\nnodes = 2\ngpus_per_node = 2\n\n[workload]\ntrace = \"jobs.csv\"\n\n" +
           extra;
  }
  RunConfig parse(const std::string& text) const {
    return parse_run_config(text, "mixed.toml", dir_.string());
  }
  InputError error(const std::string& text) const {
    try {
      parse(text);
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "expected an InputError";
    return InputError("", 0, "", "");
  }

  fs::path dir_;
};

TEST_F(MixedConfig, RefusesWhatCannotActNamingTheKey) {
  EXPECT_EQ(error(training("[serving]\npriority = false\n")).field(), "serving.priority");
  EXPECT_EQ(error(training("[serving]\ngpus = 2\n")).field(), "serving.gpus");
  const InputError not_serving = error(training("[serving]\nconfig = \"training.toml\"\n"));
  EXPECT_EQ(not_serving.field(), "serving.config");
  EXPECT_NE(not_serving.message().find("not a serving config"), std::string::npos);
  EXPECT_EQ(error(training("[serving]\nconfig = \"other_cluster.toml\"\n")).field(),
            "serving.config");
  EXPECT_EQ(error(training("[serving]\nconfig = \"serving.toml\"\n\n[sharing]\ninterference = "
                           "\"none\"\n"))
                .field(),
            "sharing.interference");
  EXPECT_EQ(error(training("[serving]\nconfig = \"serving.toml\"\n\n[mechanisms]\nmtbf_h = 100\n"))
                .field(),
            "mechanisms.mtbf_h");
  EXPECT_EQ(error(training("[serving]\nconfig = \"serving.toml\"\ngpus = 5\n")).field(),
            "serving.gpus");  // 4 GPUs in all
  // A generated training workload is measured in steady state by default: a window, which would
  // end the run before the queries do.
  EXPECT_EQ(error("[cluster]\nnodes = 2\ngpus_per_node = 2\n\n[workload]\ngenerator = "
                  "\"philly\"\njobs = 50\n\n[serving]\nconfig = \"serving.toml\"\n")
                .field(),
            "metrics.steady_state");
  // The serving side's keys stay in the serving config.
  EXPECT_EQ(error(training("[serving]\nconfig = \"serving.toml\"\n\n[scheduler]\ntask_placement = "
                           "\"heft\"\n"))
                .field(),
            "scheduler.task_placement");
}

TEST_F(MixedConfig, ServingThatHoldsTheWholeClusterGivesTheServingEnginesResults) {
  // serving.gpus = 4: the base pool is every GPU, from the first query (t > 0 here) or the first
  // training arrival (t = 0), whichever is first, until the last query is done. Serving then sees
  // what it sees alone, so every task's record is the standalone run's; the training jobs wait
  // until the pool is given back at the last query's finish, then run as alone.
  const RunConfig alone = load_run_config((dir_ / "serving.toml").string());
  const ConfigRun served =
      simulate_config(alone, std::make_shared<const Workload>(load_workload(alone)));
  const RunConfig mixed = parse(training("[serving]\nconfig = \"serving.toml\"\ngpus = 4\n"));
  const ConfigRun both =
      simulate_config(mixed, std::make_shared<const Workload>(load_workload(mixed)));
  ASSERT_EQ(both.result.tasks.size(), served.result.tasks.size());
  for (std::size_t t = 0; t < served.result.tasks.size(); ++t) {
    EXPECT_EQ(both.result.tasks[t].gpu, served.result.tasks[t].gpu) << t;
    EXPECT_EQ(both.result.tasks[t].finish, served.result.tasks[t].finish) << t;
  }
  const RunMetrics& s = served.result.metrics;
  const RunMetrics& m = both.result.metrics;
  EXPECT_EQ(m.queries, 200u);
  EXPECT_EQ(m.query_latency_p99, s.query_latency_p99);
  EXPECT_EQ(m.model_loads, s.model_loads);
  EXPECT_EQ(m.serving_busy_gpu_seconds, s.gpu_seconds);
  EXPECT_EQ(m.serving_preemptions, 0u);
  // Training: 3 jobs, none could start before the pool went back at the last query's finish F
  // (the latest task finish of the serving run). Then A (1 GPU)
  // and B (2 GPUs) start at F, C (1 GPU) too: 4 GPUs. A: F + 500, B: F + 300, C: F + 100.
  double finish = 0.0;
  for (const TaskRecord& task : served.result.tasks) finish = std::max(finish, task.finish);
  ASSERT_EQ(m.jobs, 3u);
  EXPECT_NEAR(both.result.jobs[0].finish_time, finish + 500.0, 1e-6);
  EXPECT_NEAR(both.result.jobs[1].finish_time, finish + 300.0, 1e-6);
  EXPECT_NEAR(both.result.jobs[2].finish_time, finish + 100.0, 1e-6);
  // The pool held 4 GPUs from t = 0 (the first training arrival, before the first query) to F.
  EXPECT_NEAR(m.serving_gpu_seconds, 4.0 * finish, 1e-6);
}

TEST_F(MixedConfig, ASimulationStepsAMixedConfigAsTheCommandRunsIt) {
  // A serving pool of 2 GPUs with priority: queries preempt training. Stepped decision point by
  // decision point on a Simulation (as clustersim.Simulation does), the run gives the training
  // records, the serving records and the metrics of simulate_config (what `clustersim run`
  // calls); reset() replays it.
  const RunConfig mixed =
      parse(training("[scheduler]\npolicy = \"las\"\nlease_s = 60\ncheckpoint_s = 5\n\n"
                     "[serving]\nconfig = \"serving.toml\"\ngpus = 2\npriority = true\n"));
  const ConfigRun command =
      simulate_config(mixed, std::make_shared<const Workload>(load_workload(mixed)));
  ASSERT_EQ(command.result.metrics.queries, 200u);
  EXPECT_GT(command.result.metrics.serving_preemptions, 0u);  // queries did preempt training
  Simulation simulation(mixed);
  for (int replay = 0; replay < 2; ++replay) {
    std::size_t points = 0;
    while (simulation.step()) ++points;
    EXPECT_GT(points, 200u);
    const RunResult& stepped = simulation.result();
    ASSERT_EQ(stepped.jobs.size(), command.result.jobs.size());
    for (std::size_t j = 0; j < stepped.jobs.size(); ++j) {
      EXPECT_EQ(stepped.jobs[j].finish_time, command.result.jobs[j].finish_time) << j;
      EXPECT_EQ(stepped.jobs[j].preemptions, command.result.jobs[j].preemptions) << j;
    }
    ASSERT_EQ(stepped.tasks.size(), command.result.tasks.size());
    for (std::size_t t = 0; t < stepped.tasks.size(); ++t)
      EXPECT_EQ(stepped.tasks[t].finish, command.result.tasks[t].finish) << t;
    for (const MetricField& field : run_metric_fields()) {
      if (field.type == FieldType::kCount)
        EXPECT_EQ(stepped.metrics.*field.count, command.result.metrics.*field.count) << field.name;
      else
        EXPECT_EQ(stepped.metrics.*field.real, command.result.metrics.*field.real) << field.name;
    }
    simulation.reset();
  }
}

}  // namespace
}  // namespace clustersim
