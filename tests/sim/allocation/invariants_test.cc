// Every allocation mechanism under every ordering policy, on the Synergy study's cluster and
// workload shape with the shipped profiles, preemption on: the ledger is checked after every
// batch (no node's GPUs, cores, memory or storage over-allocated), every job finishes, and the
// mechanisms that promise it never leave a running job below its proportional-share speed.
#include <gtest/gtest.h>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/generator.h"
#include "clustersim/policy.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

struct Case {
  std::string mechanism, policy;
};

class EveryMechanismAndPolicy : public ::testing::TestWithParam<Case> {};

TEST_P(EveryMechanismAndPolicy, NeverOverAllocatesAndKeepsItsPromises) {
  const Case& c = GetParam();
  auto library = std::make_shared<ProfileLibrary>(
      load_profile_dir(std::string(CLUSTERSIM_SOURCE_DIR) + "/profiles/v100"));
  ProfileModelOptions profile_options;
  profile_options.ref_cpus_per_gpu = 3;
  profile_options.ref_mem_gb_per_gpu = 62.5;
  profile_options.penalty = {0.9, 0.8};
  auto model = make_profile_throughput_model(library, profile_options);

  SimOptions options;
  NodeGroupSpec group;
  group.nodes = 4;
  group.gpus_per_node = 8;
  group.gpu_type = "v100";
  group.cpus_per_node = 24;
  group.mem_gb_per_node = 500;
  group.storage_mbps_per_node = 500;
  options.cluster.groups = {group};
  options.cluster.nodes_per_rack = 2;
  options.cluster.vcs = {{"x", 16}, {"y", 16}};
  options.scheduler.vc_quota = VcQuotaMode::kLend;
  options.scheduler.policy = c.policy;
  options.scheduler.allocation = c.mechanism;
  options.scheduler.lease_s = 300;
  options.scheduler.checkpoint_s = 20;
  options.scheduler.restore_s = 20;
  options.scheduler.realloc_s = 5;
  options.throughput = model.get();
  options.sample_interval_s = 600;
  options.check_invariants = true;

  GeneratorOptions generator;
  generator.shape = "synergy";
  generator.jobs = 120;
  generator.jobs_per_hour = 6;
  generator.gpu_demand = "philly";
  generator.vcs = {"x", "y"};
  generator.seed = 4;
  const Workload workload = generate_workload(generator);

  const bool promises_share = c.mechanism != "drf";
  std::size_t checked = 0;
  options.observer = [&](const AllocationContext& context) {
    if (!promises_share) return;
    for (std::uint32_t job : context.holders()) {
      if (context.jobs()[job].phase != JobPhase::kRunning) continue;
      const auto grants = context.grants_of(job);
      std::vector<Grant> fair(grants.begin(), grants.end());
      for (Grant& g : fair) {
        const auto& node = context.cluster().node(g.node);
        g.cpus = node.cpus / node.gpus * g.gpus;
        g.mem_gb = node.mem_gb / node.gpus * g.gpus;
      }
      ASSERT_GE(context.rate_if(job, grants), context.rate_if(job, fair) * (1 - 1e-9))
          << context.jobs()[job].spec->model << " at " << context.now();
      ++checked;
    }
  };
  const RunResult result = simulate(options, workload.jobs);  // throws on a broken invariant
  EXPECT_EQ(result.metrics.jobs, workload.jobs.size());
  EXPECT_GT(result.metrics.cpu_util, 0.0);
  EXPECT_LE(result.metrics.cpu_util, 1.0 + 1e-9);
  EXPECT_LE(result.metrics.mem_util, 1.0 + 1e-9);
  EXPECT_LE(result.metrics.storage_util, 1.0 + 1e-9);
  if (promises_share) {
    EXPECT_GT(checked, 0u);
  }
}

std::vector<Case> every_case() {
  std::vector<Case> cases;
  for (const auto& mechanism : allocation_mechanism_names())
    for (const auto& policy : scheduling_policy_names()) cases.push_back({mechanism, policy});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(All, EveryMechanismAndPolicy, ::testing::ValuesIn(every_case()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.mechanism + "_" + info.param.policy;
                         });

}  // namespace
}  // namespace clustersim
