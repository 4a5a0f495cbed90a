// A job's best demand, read from what greedy grants it (greedy gives exactly the best demand).
#include <gtest/gtest.h>

#include <map>

#include "allocation_test_util.h"
#include "clustersim/allocation_mechanism.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

// The first grant greedy gives each job on two of the Synergy study's servers.
std::map<std::string, Grant> first_grants(const std::vector<JobSpec>& jobs) {
  testing::SynergyServers servers = testing::synergy_servers(2, "greedy");
  SimOptions& options = servers.options;
  std::map<std::string, Grant> grants;
  options.observer = [&](const AllocationContext& context) {
    for (std::uint32_t job : context.holders()) {
      const auto& id = context.jobs()[job].spec->id;
      if (!grants.count(id)) grants[id] = context.grants_of(job).front();
    }
  };
  simulate(options, jobs);
  return grants;
}

JobSpec job(const std::string& id, const std::string& model, int gpus, double submit) {
  JobSpec j;
  j.id = id;
  j.model = model;
  j.num_gpus = gpus;
  j.submit_time = submit;
  j.duration = 100;
  return j;
}

TEST(BestDemand, CheapestAllocationNearPeakSpeed) {
  // One at a time (each alone on the cluster), so nothing else limits what greedy grants.
  const auto grants =
      first_grants({job("r18", "resnet18", 1, 0), job("tfm", "transformer", 1, 1000),
                    job("r18x8", "resnet18", 8, 2000)});
  // ResNet-18 peaks (2.4x) at 9 cores per GPU and needs 62.5 GB (20.83 GB thrashes: 0.1x).
  EXPECT_DOUBLE_EQ(grants.at("r18").cpus, 9);
  EXPECT_DOUBLE_EQ(grants.at("r18").mem_gb, 62.5);
  // The transformer's speed depends on neither: the least of both.
  EXPECT_DOUBLE_EQ(grants.at("tfm").cpus, 1);
  EXPECT_DOUBLE_EQ(grants.at("tfm").mem_gb, 20.83);
  // Eight GPUs fill a server: one server cannot give more than its proportional share per GPU.
  EXPECT_DOUBLE_EQ(grants.at("r18x8").cpus, 24);
  EXPECT_DOUBLE_EQ(grants.at("r18x8").mem_gb, 500);
}

}  // namespace
}  // namespace clustersim
