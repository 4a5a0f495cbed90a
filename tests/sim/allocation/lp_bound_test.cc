// opt's LP: a hand-solved instance, and its bound against what every mechanism achieves on the
// same round (the same jobs on the same GPUs).
#include <gtest/gtest.h>

#include <algorithm>

#include "allocation/allocation_lp.h"
#include "allocation_test_util.h"
#include "clustersim/allocation_mechanism.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

using allocation::LpConfig;
using allocation::LpJob;
using allocation::LpNode;
using allocation::solve_allocation_lp;

// Two 1-GPU jobs on a 6-core node (3 cores per GPU). A: 0.5x / 1x / 2x at 1 / 3 / 5 cores;
// B: 0.5x / 1x / 1x. Without fairness the best is A at 5 cores and B at 1 (2.5). With it, B
// needs 3 cores, leaving A 3, where the LP mixes A's 1- and 5-core configurations half and
// half: 1.25 (its profile's concave hull; A's real speed at 3 cores is 1), so the bound is 2.25.
TEST(AllocationLp, HandSolvedInstance) {
  const std::vector<LpConfig> a = {{1, 0, 0.5}, {3, 0, 1.0}, {5, 0, 2.0}};
  const std::vector<LpConfig> b = {{1, 0, 0.5}, {3, 0, 1.0}, {5, 0, 1.0}};
  const std::vector<LpJob> jobs = {{{{0, 1}}, a}, {{{0, 1}}, b}};
  const std::vector<LpNode> nodes = {{6, 0, true, false}};
  const auto unfair = solve_allocation_lp(jobs, nodes, false);
  ASSERT_TRUE(unfair.optimal);
  EXPECT_NEAR(unfair.bound, 2.5, 1e-9);
  EXPECT_NEAR(unfair.cpus_per_gpu[0], 5, 1e-7);
  const auto fair = solve_allocation_lp(jobs, nodes, true);
  ASSERT_TRUE(fair.optimal);
  EXPECT_NEAR(fair.bound, 2.25, 1e-9);
  EXPECT_NEAR(fair.cpus_per_gpu[0], 3, 1e-7);
  EXPECT_NEAR(fair.cpus_per_gpu[1], 3, 1e-7);
}

// What one mechanism achieves at its first round, and the LP bounds for the same jobs on the
// same GPUs (built here from the jobs' profiles, independently of opt's own code).
struct Round {
  double achieved = 0;  // sum over running jobs of speed / speed at the proportional share
  double bound_fair = 0, bound_any = 0;
  bool seen = false;
};

Round first_round(const std::string& mechanism) {
  testing::SynergyServers servers = testing::synergy_servers(1, mechanism);
  SimOptions& options = servers.options;
  std::vector<JobSpec> jobs;
  const char* models[] = {"resnet18",   "resnet50",    "alexnet",    "mobilenet_v2",
                          "shufflenet", "transformer", "deepspeech", "resnet18"};
  for (int i = 0; i < 8; ++i) {
    JobSpec j;
    j.id = "j";
    j.id += std::to_string(i);
    j.model = models[i];
    j.duration = 1e5;
    jobs.push_back(j);
  }
  Round round;
  options.observer = [&](const AllocationContext& context) {
    if (round.seen) return;
    round.seen = true;
    const auto& node = context.cluster().node(0);
    const double fair_c = node.cpus / node.gpus, fair_m = node.mem_gb / node.gpus;
    std::vector<LpJob> lp;
    for (std::uint32_t job : context.holders()) {
      const auto grants = context.grants_of(job);
      std::vector<Grant> fair(grants.begin(), grants.end());
      for (Grant& g : fair) g.cpus = fair_c * g.gpus, g.mem_gb = fair_m * g.gpus;
      const double fair_rate = context.rate_if(job, fair);
      round.achieved += context.rate_if(job, grants) / fair_rate;
      // Configurations: the profile's grid plus the proportional share.
      const SensitivityAxes axes = context.axes(job, 0);
      std::vector<double> cs(*axes.cpus_per_gpu), ms(*axes.mem_gb_per_gpu);
      cs.push_back(fair_c);
      ms.push_back(fair_m);
      LpJob j;
      for (const Grant& g : grants) j.shares.push_back({g.node, g.gpus});
      for (double c : cs)
        for (double m : ms)
          j.configs.push_back({c, m,
                               context.rate_per_gpu(job, 0, {c, m, -1}) /
                                   context.rate_per_gpu(job, 0, {fair_c, fair_m, -1})});
      lp.push_back(j);
    }
    const std::vector<LpNode> nodes = {{node.cpus, node.mem_gb, true, true}};
    round.bound_fair = solve_allocation_lp(lp, nodes, true).bound;
    round.bound_any = solve_allocation_lp(lp, nodes, false).bound;
  };
  simulate(options, jobs);
  return round;
}

TEST(AllocationLp, BoundsEveryMechanismOnTheSameRound) {
  for (const std::string& mechanism : allocation_mechanism_names()) {
    SCOPED_TRACE(mechanism);
    const Round round = first_round(mechanism);
    ASSERT_TRUE(round.seen);
    EXPECT_GT(round.achieved, 0);
    EXPECT_LE(round.achieved, round.bound_any + 1e-9);
    // Mechanisms that never leave a job below its proportional-share speed are fair
    // allocations, so the tighter bound holds for them too.
    if (mechanism != "drf") {
      EXPECT_LE(round.achieved, round.bound_fair + 1e-9);
    }
  }
  // And opt, rounded, comes close to its bound.
  const Round opt = first_round("opt");
  EXPECT_GE(opt.achieved, 0.9 * opt.bound_fair);
  EXPECT_GT(opt.achieved, first_round("proportional").achieved);
}

}  // namespace
}  // namespace clustersim
