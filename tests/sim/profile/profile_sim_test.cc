// The simulator runs the shipped profiles: a job's completion time follows its model's
// sensitivity to the CPU cores and memory it gets.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/profile.h"
#include "clustersim/simulator.h"

namespace clustersim {
namespace {

JobSpec job(const std::string& id, const std::string& model, double cpus, double duration) {
  JobSpec j;
  j.id = id;
  j.model = model;
  j.num_gpus = 1;
  j.cpus = cpus;
  j.duration = duration;
  return j;
}

TEST(ProfileSimulation, ShippedProfilesDriveJobSpeed) {
  auto library = std::make_shared<ProfileLibrary>(
      load_profile_dir(std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles"));
  ProfileModelOptions options;
  options.on_missing = MissingProfile::kNeutral;
  auto model = make_profile_throughput_model(library, options);

  SimOptions sim;
  NodeGroupSpec group;
  group.nodes = 2;
  group.gpus_per_node = 8;
  group.gpu_type = "v100";
  group.cpus_per_node = 72;       // room for CPU-rich jobs
  group.mem_gb_per_node = 500.0;  // 62.5 GB per GPU
  sim.cluster.groups = {group};
  sim.throughput = model.get();
  sim.sample_interval_s = 0.0;

  const std::vector<JobSpec> jobs = {
      job("r18-rich", "resnet18", 9, 1000),     // 9 cores/GPU: Synergy's 2.4x
      job("r18-fair", "ResNet-18", 3, 1000),    // the reference share: 1.0x
      job("r50-rich", "res50", 9, 1000),        // 1.15x
      job("tfm-poor", "transformer", 1, 1000),  // insensitive: 1.0x
      job("unknown", "cyclegan", 3, 1000),      // no profile, neutral: 1.0x
  };
  const RunResult result = simulate(sim, jobs);
  ASSERT_EQ(result.jobs.size(), jobs.size());
  const double expected[] = {1000 / 2.4, 1000, 1000 / 1.15, 1000, 1000};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(jobs[i].id);
    const JobRecord& r = result.jobs[i];
    ASSERT_GE(r.finish_time, 0.0);
    EXPECT_NEAR(r.finish_time - r.start_time, expected[i], 1e-3 * expected[i]);
  }
}

TEST(ProfileSimulation, MissingProfileIsAnErrorByDefault) {
  auto library = std::make_shared<ProfileLibrary>(
      load_profile_dir(std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles"));
  const std::vector<JobSpec> jobs = {job("a", "resnet18", 3, 10), job("b", "cyclegan", 3, 10)};
  EXPECT_THROW(check_profile_coverage(*library, jobs, {}, "trace.csv"), InputError);
}

}  // namespace
}  // namespace clustersim
