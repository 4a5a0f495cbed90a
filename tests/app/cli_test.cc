// End to end: the `clustersim run` contract as users' scripts rely on it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_clustersim.h"

namespace {

namespace fs = std::filesystem;

using clustersim::testing::Outcome;
using clustersim::testing::run_clustersim;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("clustersim_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "jobs.csv") << "job_id,submit_time,num_gpus,duration,model,vc\n"
                                        "a,0,4,100,resnet50,x\n"
                                        "b,10,8,50,bert,y\n"
                                        "c,20,1,10,,x\n";
    std::ofstream(dir_ / "run.toml") << "[cluster]\nnodes = 1\ngpus_per_node = 8\n"
                                        "[workload]\ntrace = \"jobs.csv\"\nformat = \"csv\"\n"
                                        "[scheduler]\npolicy = \"fifo\"\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CliTest, JsonHasTheContractKeys) {
  const Outcome outcome = run_clustersim("run " + path("run.toml") + " --json");
  ASSERT_EQ(outcome.exit_code, 0);
  const auto json = nlohmann::json::parse(outcome.out);
  for (const char* key : {"jobs", "jct_mean", "jct_p50", "jct_p99", "queue_mean", "makespan",
                          "gpu_util", "preemptions"})
    EXPECT_TRUE(json.contains(key)) << key;
  EXPECT_EQ(json["jobs"], 3);
  // a runs 0..100; b needs all 8 GPUs: 100..150; c fits beside a at 20..30.
  EXPECT_DOUBLE_EQ(json["makespan"].get<double>(), 150);
  EXPECT_DOUBLE_EQ(json["jct_mean"].get<double>(), (100.0 + 140.0 + 10.0) / 3);
}

TEST_F(CliTest, JobsOutHasOneRowPerJob) {
  ASSERT_EQ(
      run_clustersim("run " + path("run.toml") + " --jobs-out " + path("jobs_out.csv")).exit_code,
      0);
  std::ifstream in(path("jobs_out.csv"));
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(
      header.rfind("job_id,submit_time,start_time,finish_time,jct,queue_delay,num_gpus,preemptions",
                   0),
      0u);
  std::vector<std::string> rows;
  while (std::getline(in, row)) rows.push_back(row);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].rfind("b,10,100,150,140,90,8,0,", 0), 0u) << rows[1];
}

TEST_F(CliTest, HalfGpuJobsShareAGpuWithSharingOn) {
  // Two half-GPU jobs and a CPU-only one on one 1-GPU node with 8 cores: with [sharing] the
  // halves share the GPU at 0.8 each (100 s of work: 0..125) and the CPU-only job runs on 2
  // cores beside them (0..30); without it the halves take the GPU in turn (0..100, 100..200).
  std::ofstream(dir_ / "shares.csv") << "job_id,submit_time,num_gpus,duration,cpus\n"
                                        "h1,0,0.5,100,2\nh2,0,0.5,100,2\nc,0,0,30,2\n";
  std::ofstream(dir_ / "shares.toml")
      << "[cluster]\nnodes = 1\ngpus_per_node = 1\ncpus_per_node = 8\n"
         "[workload]\ntrace = \"shares.csv\"\nformat = \"csv\"\n"
         "[scheduler]\npolicy = \"fifo\"\n"
         "[sharing]\ninterference = \"constant\"\nconstant_factor = 0.8\n";
  const Outcome shared =
      run_clustersim("run " + path("shares.toml") + " --json --jobs-out " + path("shares_out.csv"));
  ASSERT_EQ(shared.exit_code, 0);
  const auto json = nlohmann::json::parse(shared.out);
  EXPECT_EQ(json["jobs"], 3);
  EXPECT_DOUBLE_EQ(json["makespan"].get<double>(), 125);
  EXPECT_DOUBLE_EQ(json["gpu_seconds"].get<double>(), 125);  // two halves x 125 s
  std::ifstream in(path("shares_out.csv"));
  std::string header, row;
  std::getline(in, header);
  EXPECT_NE(header.find(",colocated_seconds"), std::string::npos) << header;
  std::vector<std::string> rows;
  while (std::getline(in, row)) rows.push_back(row);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].rfind("h1,0,0,125,125,0,1,0,", 0), 0u) << rows[0];
  EXPECT_EQ(rows[2].rfind("c,0,0,30,30,0,0,0,0,", 0), 0u) << rows[2];
  // Without [sharing] (an override cannot remove a table: the same trace on a config without it).
  std::ofstream(dir_ / "whole.toml") << "[cluster]\nnodes = 1\ngpus_per_node = 1\n"
                                        "cpus_per_node = 8\n[workload]\ntrace = \"shares.csv\"\n"
                                        "format = \"csv\"\n[scheduler]\npolicy = \"fifo\"\n";
  const Outcome whole = run_clustersim("run " + path("whole.toml") + " --json");
  ASSERT_EQ(whole.exit_code, 0);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(whole.out)["makespan"].get<double>(), 200);
}

TEST_F(CliTest, SetOverridesAKey) {
  const Outcome outcome =
      run_clustersim("run " + path("run.toml") + " --set cluster.gpus_per_node=16 --json");
  ASSERT_EQ(outcome.exit_code, 0);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(outcome.out)["makespan"].get<double>(), 100);
}

TEST_F(CliTest, ConfigMayFollowRepeatedSetOptions) {
  const Outcome outcome =
      run_clustersim("run --set cluster.gpus_per_node=16 --set scheduler.policy=sjf " +
                     path("run.toml") + " --json");
  ASSERT_EQ(outcome.exit_code, 0);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(outcome.out)["makespan"].get<double>(), 100);
}

TEST_F(CliTest, TimeSeriesOutHasItsHeaderAndSamples) {
  ASSERT_EQ(run_clustersim("run " + path("run.toml") +
                           " --set metrics.sample_interval_s=50 --timeseries-out " + path("ts.csv"))
                .exit_code,
            0);
  std::ifstream in(path("ts.csv"));
  std::string line;
  std::getline(in, line);
  // (alloc_ratio, unallocated_share, frag_rate: the placement study's; 0 in time)
  EXPECT_EQ(line,
            "time,busy_gpus,idle_gpus,fragmented_gpus,queue_length,running_jobs,alloc_ratio,"
            "unallocated_share,frag_rate,down_gpus,frag_typical_gpus");
  std::getline(in, line);
  // At t=0 job a holds 4 of the 8 GPUs; no node is down; of the typical jobs (a, b, c: one
  // each), b (8 GPUs) cannot use the 4 idle GPUs: 4 x 1/3.
  EXPECT_EQ(line, "0,4,4,0,0,1,0,0,0,0,1.3333333333333333");
}

TEST_F(CliTest, BuiltInExampleRuns) {
  const Outcome outcome = run_clustersim("run --json");
  ASSERT_EQ(outcome.exit_code, 0);
  EXPECT_GT(nlohmann::json::parse(outcome.out)["jobs"].get<int>(), 1000);
}

TEST_F(CliTest, BadInputFailsAndLeavesNoResultFile) {
  std::ofstream(path("bad.csv")) << "job_id,submit_time,num_gpus,duration\na,0,4,100\nb,zero,1,5\n";
  std::ofstream(path("bad.toml")) << "[cluster]\nnodes = 1\n[workload]\ntrace = \"bad.csv\"\n";
  EXPECT_NE(run_clustersim("run " + path("bad.toml") + " --jobs-out " + path("out.csv")).exit_code,
            0);
  EXPECT_FALSE(fs::exists(path("out.csv")));
  std::ofstream(path("big.csv")) << "job_id,submit_time,num_gpus,duration\na,0,9,100\n";
  std::ofstream(path("big.toml")) << "[cluster]\nnodes = 1\n[workload]\ntrace = \"big.csv\"\n";
  EXPECT_NE(run_clustersim("run " + path("big.toml") + " --jobs-out " + path("out.csv")).exit_code,
            0);
  EXPECT_FALSE(fs::exists(path("out.csv")));
  EXPECT_EQ(
      run_clustersim("run " + path("big.toml") + " --set scheduler.reject_impossible=true --json")
          .exit_code,
      0);
  EXPECT_NE(run_clustersim("run " + path("missing.toml")).exit_code, 0);
}

}  // namespace
