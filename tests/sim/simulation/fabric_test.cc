// LLM jobs on a fabric, measured ([fabric]; sim/README.md, "Contention metrics"): the per-job
// columns iter_alone_s, iter_s and contention_slowdown, the run's contention metrics and the
// per-tier link utilisation, computed by hand on two DP jobs over 2:1 and 1:1 leaves; and the
// topology placement keeping each job inside a leaf, where no uplink is shared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "clustersim/llm.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

constexpr double kNoCap = std::numeric_limits<double>::infinity();

// A small model whose DP all-reduce outlasts its compute, on 16 GPUs: TP 4 inside a node, DP 4.
LlmJob fabric_dp_job() {
  LlmJob job;
  job.shape = {4096, 8, 32, 32, 0, 32000, 2048, false};
  job.global_batch = 4;
  job.micro_batch = 1;
  job.precision = Precision::kBf16;
  job.tp = 4;
  job.dp = 4;
  return job;
}

// Its iteration on H100s with `gpus_per_domain` GPUs of a scale-up domain and its DP traffic at
// `dp_bytes_per_s` per GPU, by the public model and the [fabric] defaults.
double fabric_iteration(int gpus_per_domain, double dp_bytes_per_s) {
  const LlmJob job = fabric_dp_job();
  const GpuPeak& h100 = *gpu_peak("h100");
  LlmRates rates = packed_llm_rates(job, h100, gpus_per_domain, 50e9, 0.425);
  rates.dp_bytes_per_s = std::min(rates.dp_bytes_per_s, dp_bytes_per_s);
  return llm_iteration(job, h100, rates).total();
}

// Four 8-GPU H100 nodes, two per leaf; a leaf's uplinks carry 16 x 50 GB/s / oversubscription.
// Jobs a (1000 s of work) and b (400 s), both LLM jobs of 16 GPUs, arrive at 0.
RunResult two_dp_jobs(const std::string& placement, double oversubscription) {
  SimOptions options = testing::small_cluster(4, 8);
  options.cluster.groups[0].gpu_type = "h100";
  options.scheduler.placement = placement;
  options.fabric.hosts_per_leaf = 2;
  options.fabric.leaf_oversubscription = oversubscription;
  options.sample_interval_s = 100;
  const LlmJob llm = fabric_dp_job();
  options.fabric.llm_jobs = std::make_shared<const LlmJobTable>(LlmJobTable{{0, llm}, {1, llm}});
  return simulate(options, {testing::job("a", 0, 16, 1000), testing::job("b", 0, 16, 400)});
}

const std::vector<double>& column(const std::vector<RunResult::Column>& columns,
                                  const std::string& name) {
  for (const RunResult::Column& c : columns)
    if (c.name == name) return c.values;
  static const std::vector<double> none;
  ADD_FAILURE() << "no column " << name;
  return none;
}

TEST(FabricMetrics, TwoDpJobsOverA2To1LeafByHand) {
  // Spread: each job holds 4 GPUs (one TP group) of every node, 8 behind each leaf. Alone a
  // job's GPUs get 400 GB/s / 8 = 50 GB/s, their NIC's bound; together 16 GPUs share 400 GB/s:
  // 25 GB/s each (the contention test in llm_test.cc checks the JCTs this gives).
  const double alone = fabric_iteration(4, kNoCap), shared = fabric_iteration(4, 25e9);
  const double s = shared / alone;
  ASSERT_GT(s, 1.3);
  const RunResult r = two_dp_jobs("spread", 2.0);
  const double end = 400 * s + 600;
  ASSERT_NEAR(r.jobs[0].jct, end, 1e-6);
  // b ran 400 s of work, all shared; a 400 s shared (400 s x s of time), then 600 s alone.
  const auto& iter_alone = column(r.job_columns, "iter_alone_s");
  const auto& iter = column(r.job_columns, "iter_s");
  const auto& slowdown = column(r.job_columns, "contention_slowdown");
  ASSERT_EQ(iter.size(), 2u);
  EXPECT_NEAR(iter_alone[0], alone, 1e-12);
  EXPECT_NEAR(iter_alone[1], alone, 1e-12);
  EXPECT_NEAR(iter[1], shared, 1e-12);
  EXPECT_NEAR(slowdown[1], s, 1e-12);
  const double a_iter = (400 * s * shared + 600 * alone) / end;
  EXPECT_NEAR(iter[0], a_iter, 1e-12);
  EXPECT_NEAR(slowdown[0], a_iter / alone, 1e-12);
  // The run: slowdown weighted by running time; each job lost 16 GPUs x 400 s x s x (1 - 1/s).
  EXPECT_NEAR(r.metrics.contention_slowdown_mean, (2 * 400 * s * s + 600) / (2 * 400 * s + 600),
              1e-12);
  EXPECT_NEAR(r.metrics.contention_gpu_hours_lost, 2 * 16 * 400 * (s - 1) / 3600, 1e-9);
  // Both leaves' uplinks full throughout: 16 x 25 GB/s, then a's 8 x 50 GB/s, of 400 GB/s. One
  // spine group: no tier above the leaves.
  EXPECT_NEAR(r.metrics.link_util_leaf, 1.0, 1e-12);
  EXPECT_EQ(r.metrics.link_util_spine, 0.0);
}

TEST(FabricMetrics, UnsharedLinksAtOneToOneAndTheUtilisationSamples) {
  // 1:1: a leaf carries 800 GB/s, both jobs' 16 GPUs at 50 GB/s fill it (utilisation 1) for
  // 400 s, then a's 8 GPUs half of it for 600 s; no slowdown, nothing lost.
  const RunResult r = two_dp_jobs("spread", 1.0);
  EXPECT_NEAR(r.jobs[0].jct, 1000, 1e-6);
  EXPECT_NEAR(column(r.job_columns, "contention_slowdown")[0], 1.0, 1e-12);
  EXPECT_NEAR(r.metrics.contention_slowdown_mean, 1.0, 1e-12);
  EXPECT_NEAR(r.metrics.contention_gpu_hours_lost, 0.0, 1e-12);
  EXPECT_NEAR(r.metrics.link_util_leaf, (400 * 1.0 + 600 * 0.5) / 1000, 1e-12);
  const auto& samples = column(r.sample_columns, "leaf_uplink_util");
  ASSERT_EQ(samples.size(), r.samples.size());
  ASSERT_GE(samples.size(), 8u);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double t = r.samples[i].time;
    if (t > 0 && t < 400) {
      EXPECT_NEAR(samples[i], 1.0, 1e-12) << "t = " << t;
    } else if (t > 400 && t < 1000) {
      EXPECT_NEAR(samples[i], 0.5, 1e-12) << "t = " << t;
    }
  }
  EXPECT_EQ(column(r.sample_columns, "spine_uplink_util").size(), samples.size());
}

TEST(FabricMetrics, TopologyPlacementKeepsEachJobInALeaf) {
  // Each 16-GPU job fits one leaf (two whole nodes): no DP flow leaves it, the 2:1 uplinks
  // carry nothing and both run their durations.
  const RunResult r = two_dp_jobs("topology", 2.0);
  EXPECT_NEAR(r.jobs[0].jct, 1000, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 400, 1e-6);
  EXPECT_NEAR(column(r.job_columns, "contention_slowdown")[1], 1.0, 1e-12);
  EXPECT_EQ(r.metrics.link_util_leaf, 0.0);
  EXPECT_EQ(r.metrics.contention_gpu_hours_lost, 0.0);
  // A job without LLM columns gets no iteration (NaN, written "nan" in the CSV).
  SimOptions options = testing::small_cluster(2, 8);
  options.cluster.groups[0].gpu_type = "h100";
  options.fabric.llm_jobs = std::make_shared<const LlmJobTable>(LlmJobTable{{0, fabric_dp_job()}});
  const RunResult mixed =
      simulate(options, {testing::job("llm", 0, 16, 100), testing::job("plain", 0, 4, 50)});
  EXPECT_TRUE(std::isnan(column(mixed.job_columns, "iter_s")[1]));
  EXPECT_NEAR(column(mixed.job_columns, "iter_s")[0], fabric_iteration(8, kNoCap), 1e-12);
}

}  // namespace
}  // namespace clustersim
