// The Synergy-shaped generator: its distributions, and the prefix stability windows rely on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "clustersim/generator.h"

namespace clustersim {
namespace {

GeneratorOptions synergy(std::size_t jobs, std::uint64_t seed = 7) {
  GeneratorOptions options;
  options.shape = "synergy";
  options.jobs = jobs;
  options.jobs_per_hour = 9;
  options.seed = seed;
  return options;
}

int class_of(const std::string& model) {
  const auto& classes = synergy_model_classes();
  for (std::size_t c = 0; c < classes.size(); ++c)
    if (std::find(classes[c].begin(), classes[c].end(), model) != classes[c].end())
      return static_cast<int>(c);
  return -1;
}

TEST(SynergyGenerator, MoreJobsLeaveTheFirstOnesUnchanged) {
  const Workload short_run = generate_workload(synergy(100));
  const Workload long_run = generate_workload(synergy(1000));
  for (std::size_t i = 0; i < 100; ++i) {
    ASSERT_EQ(short_run.jobs[i].id, long_run.jobs[i].id);
    ASSERT_EQ(short_run.jobs[i].submit_time, long_run.jobs[i].submit_time);
    ASSERT_EQ(short_run.jobs[i].duration, long_run.jobs[i].duration);
    ASSERT_EQ(short_run.jobs[i].model, long_run.jobs[i].model);
  }
  EXPECT_EQ(long_run.jobs[42].id, "42");  // ids are positions: what a window names
}

TEST(SynergyGenerator, FollowsTheStudysDistributions) {
  const std::size_t n = 40000;
  GeneratorOptions options = synergy(n);
  options.gpu_demand = "philly";
  const Workload w = generate_workload(options);
  std::map<int, double> classes;
  std::map<int, double> gpus;
  double long_jobs = 0;
  for (const JobSpec& job : w.jobs) {
    const int c = class_of(job.model);
    ASSERT_GE(c, 0) << job.model;
    classes[c] += 1.0 / n;
    gpus[job.num_gpus] += 1.0 / n;
    const double minutes = job.duration / 60.0;
    ASSERT_GE(minutes, std::pow(10.0, 1.5) * (1 - 1e-12));
    ASSERT_LE(minutes, 1e4 * (1 + 1e-12));
    if (minutes > 1e3) long_jobs += 1.0 / n;
  }
  // Default split [20, 70, 10] (image, language, speech).
  EXPECT_NEAR(classes[0], 0.20, 0.01);
  EXPECT_NEAR(classes[1], 0.70, 0.01);
  EXPECT_NEAR(classes[2], 0.10, 0.01);
  // 20% of jobs are 10^U(3, 4) minutes long.
  EXPECT_NEAR(long_jobs, 0.20, 0.01);
  // Philly's GPU mix over 1..16, normalised (0.70 / 0.99 single-GPU).
  EXPECT_NEAR(gpus[1], 0.70 / 0.99, 0.01);
  EXPECT_NEAR(gpus[16], 0.02 / 0.99, 0.005);
  EXPECT_EQ(gpus.size(), 5u);
  // Poisson arrivals at 9 per hour.
  EXPECT_NEAR(w.jobs.back().submit_time / n, 3600.0 / 9, 3600.0 / 9 * 0.02);
}

TEST(SynergyGenerator, SingleGpuByDefaultAndZeroSharesAreNeverDrawn) {
  GeneratorOptions options = synergy(5000);
  options.class_split = {0, 100, 0};
  for (const JobSpec& job : generate_workload(options).jobs) {
    ASSERT_EQ(job.num_gpus, 1);
    ASSERT_EQ(class_of(job.model), 1);
  }
}

TEST(SynergyGenerator, RejectsBadOptions) {
  GeneratorOptions options = synergy(10);
  options.class_split = {50, 40, 5};
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
  options = synergy(10);
  options.jobs_per_hour = 0;
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
  options = synergy(10);
  options.gpu_demand = "lots";
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
