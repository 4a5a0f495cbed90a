#include "clustersim/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_set>

namespace clustersim {
namespace {

GeneratorOptions options_with(std::size_t jobs, std::uint64_t seed) {
  GeneratorOptions options;
  options.jobs = jobs;
  options.seed = seed;
  return options;
}

// Offered load of a generated workload: GPU-seconds submitted per second of arrivals, over the
// cluster's GPUs.
double empirical_load(const Workload& w, int cluster_gpus) {
  double gpu_seconds = 0.0;
  for (const JobSpec& job : w.jobs) gpu_seconds += job.num_gpus * job.duration;
  return gpu_seconds / (w.jobs.back().submit_time * cluster_gpus);
}

TEST(Generator, SameSeedSameJobsDifferentSeedDifferentJobs) {
  GeneratorOptions options = options_with(2000, 42);
  options.vcs = {"a", "b", "c"};
  const Workload first = generate_workload(options);
  const Workload second = generate_workload(options);
  ASSERT_EQ(first.jobs.size(), 2000u);
  ASSERT_EQ(second.jobs.size(), 2000u);
  for (std::size_t i = 0; i < first.jobs.size(); ++i) {
    const JobSpec& a = first.jobs[i];
    const JobSpec& b = second.jobs[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.submit_time, b.submit_time);
    EXPECT_EQ(a.num_gpus, b.num_gpus);
    EXPECT_EQ(a.duration, b.duration);
    EXPECT_EQ(a.model, b.model);
    EXPECT_EQ(a.vc, b.vc);
  }
  options.seed = 43;
  const Workload other = generate_workload(options);
  std::size_t same = 0;
  for (std::size_t i = 0; i < other.jobs.size(); ++i) {
    same += other.jobs[i].duration == first.jobs[i].duration ? 1 : 0;
  }
  EXPECT_LT(same, 20u);
}

TEST(Generator, FixedSeedGivesFixedNumbers) {
  // Pins the RNG and the tables: a change here changes every generated experiment.
  const Workload w = generate_workload(options_with(3, 1));
  ASSERT_EQ(w.jobs.size(), 3u);
  // Integers and names depend on the RNG only; times go through std::log/std::exp, so they are
  // compared to within 4 ulps.
  EXPECT_EQ(w.jobs[0].id, "g1");
  EXPECT_EQ(w.jobs[0].num_gpus, 1);
  EXPECT_EQ(w.jobs[0].model, "bert_base");
  EXPECT_DOUBLE_EQ(w.jobs[0].submit_time, 864.38240705138821);
  EXPECT_DOUBLE_EQ(w.jobs[0].duration, 1668.6520249243295);
  EXPECT_EQ(w.jobs[1].model, "transformer");
  EXPECT_DOUBLE_EQ(w.jobs[1].duration, 54.650938395149353);
  EXPECT_EQ(w.jobs[2].id, "g3");
  EXPECT_EQ(w.jobs[2].model, "alexnet");
  EXPECT_DOUBLE_EQ(w.jobs[2].submit_time, 3152.6462701567161);
  EXPECT_DOUBLE_EQ(w.jobs[2].duration, 27349.337558542844);
}

TEST(Generator, ArrivalsSortedIdsUniqueFieldsValid) {
  GeneratorOptions options = options_with(50000, 7);
  options.vcs = {"x", "y"};
  const Workload w = generate_workload(options);
  std::unordered_set<std::string> ids;
  std::map<std::string, std::size_t> per_vc;
  double last = 0.0;
  for (const JobSpec& job : w.jobs) {
    EXPECT_GE(job.submit_time, last);
    last = job.submit_time;
    EXPECT_TRUE(ids.insert(job.id).second) << job.id;
    EXPECT_GE(job.duration, 1.0);
    EXPECT_LE(job.duration, 4628239.0 * (1 + 1e-12));
    EXPECT_FALSE(job.model.empty());
    ++per_vc[job.vc];
  }
  ASSERT_EQ(per_vc.size(), 2u);
  EXPECT_NEAR(per_vc["x"] / 50000.0, 0.5, 0.01);
}

TEST(Generator, GpuDemandFollowsTheTable) {
  const Workload w = generate_workload(options_with(200000, 11));
  std::map<int, double> share;
  for (const JobSpec& job : w.jobs) share[job.num_gpus] += 1.0 / w.jobs.size();
  const std::map<int, double> expected = {{1, 0.70}, {2, 0.10},  {4, 0.11},
                                          {8, 0.06}, {16, 0.02}, {32, 0.01}};
  ASSERT_EQ(share.size(), expected.size());
  for (const auto& [gpus, p] : expected) EXPECT_NEAR(share[gpus], p, 0.01) << gpus << " GPUs";
}

TEST(Generator, MaxGpusPerJobClamps) {
  GeneratorOptions options = options_with(20000, 3);
  options.max_gpus_per_job = 4;
  const Workload w = generate_workload(options);
  std::size_t at_cap = 0;
  for (const JobSpec& job : w.jobs) {
    EXPECT_LE(job.num_gpus, 4);
    at_cap += job.num_gpus == 4 ? 1 : 0;
  }
  EXPECT_NEAR(at_cap / 20000.0, 0.11 + 0.06 + 0.02 + 0.01, 0.01);
  EXPECT_LT(generator_mean_gpu_seconds(options), generator_mean_gpu_seconds(options_with(1, 1)));
}

TEST(Generator, MeanGpuSecondsComesFromTheTables) {
  // E[gpus] = 2.46 with the demand table; E[runtime] ~ 14,822 s (see generator.cc).
  EXPECT_NEAR(generator_mean_gpu_seconds(options_with(1, 1)), 2.46 * 14822.0, 2.46 * 5.0);
}

TEST(Generator, EmpiricalLoadMatchesTarget) {
  // Philly runtimes are heavy-tailed (CV ~ 6.3; the top 0.1% of jobs carry much of the GPU
  // time), so the GPU-seconds of one 200k-job sample have a standard deviation of ~2.7%: about
  // half of all seeds land within 2%. The seed is fixed (seed 2024 gives 1.0005), which keeps the
  // check deterministic; the arrival-rate check below is the seed-robust one (sd ~0.2%).
  // Both loads replay the same random draws with time scaled, so the ratio is the same.
  for (const double load : {0.5, 0.9}) {
    GeneratorOptions options = options_with(200000, 2024);
    options.load = load;
    options.cluster_gpus = 256;
    const Workload w = generate_workload(options);
    EXPECT_NEAR(empirical_load(w, options.cluster_gpus) / load, 1.0, 0.02) << "load " << load;
    // The arrival process alone (no heavy tail): jobs per second = rate.
    const double rate = load * options.cluster_gpus / generator_mean_gpu_seconds(options);
    EXPECT_NEAR(w.jobs.size() / w.jobs.back().submit_time / rate, 1.0, 0.01);
  }
}

// Speed is measured by clustersim_bench, not asserted here; this checks the memory behaviour.
TEST(Generator, MillionJobsAreGeneratedIntoOneReservation) {
  const Workload w = generate_workload(options_with(1000000, 5));
  ASSERT_EQ(w.jobs.size(), 1000000u);
  EXPECT_EQ(w.jobs.capacity(), 1000000u);  // reserved once, no regrowth
}

TEST(Generator, RejectsBadOptions) {
  GeneratorOptions options;
  options.shape = "helios";
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
  options = {};
  options.load = 0.0;
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
  options = {};
  options.cluster_gpus = 0;
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
  options = {};
  options.max_gpus_per_job = -1;
  EXPECT_THROW(generate_workload(options), std::invalid_argument);
  options = {};
  options.jobs = 0;
  EXPECT_TRUE(generate_workload(options).jobs.empty());
}

}  // namespace
}  // namespace clustersim
