// LLM jobs on a fabric, measured ([fabric]; sim/README.md, "Contention metrics"): the per-job
// columns iter_alone_s, iter_s and contention_slowdown, the run's contention metrics and the
// per-tier link utilisation, computed by hand on two DP jobs over 2:1 and 1:1 leaves; and the
// topology placement keeping each job inside a leaf, where no uplink is shared; scale-up domains
// spanning nodes (an NVL72 rack) computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
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

// ---- Scale-up domains spanning nodes (fabric.scale_up_gpus above a node's GPUs) -------------

// Two GB200 NVL72 domains: 36 nodes of 4 GPUs, nodes 0-17 and 18-35 each one 72-GPU domain.
// `blockers` jobs without LLM columns of `blocker_gpus` each arrive first and hold their GPUs
// past the end; then the LLM job `llm` of `gpus` GPUs (1000 s of work) arrives at t = 1.
RunResult on_nvl72(const LlmJob& llm, int gpus, int blockers, int blocker_gpus,
                   int hosts_per_leaf = 0) {
  SimOptions options = testing::small_cluster(36, 4);
  options.cluster.groups[0].gpu_type = "gb200";
  options.scheduler.placement = "topology";
  options.fabric.scale_up_gpus = 72;
  options.fabric.hosts_per_leaf = hosts_per_leaf;
  options.fabric.leaf_oversubscription = 2.0;
  std::vector<JobSpec> jobs;
  for (int i = 0; i < blockers; ++i)
    jobs.push_back(testing::job("blocker" + std::to_string(i), 0, blocker_gpus, 1e6));
  jobs.push_back(testing::job("llm", 1, gpus, 1000));
  options.fabric.llm_jobs =
      std::make_shared<const LlmJobTable>(LlmJobTable{{static_cast<std::uint32_t>(blockers), llm}});
  return simulate(options, jobs);
}

// hidden 1024, 4 layers, 8 heads, MLP 4096 (GELU), vocab 1000, seq 1000; TP 16, one sequence.
LlmJob tp16_job() {
  LlmJob job;
  job.shape = {1024, 4, 8, 8, 4096, 1000, 1000, false};
  job.global_batch = 1;
  job.micro_batch = 1;
  job.tp = 16;
  return job;
}

TEST(ScaleUpDomains, Tp16InsideA72GpuDomainRunsAtNvlinkAcrossTwoAtScaleOut) {
  // By hand (sim/README.md, "One iteration"; GB200: 2.5e15 BF16, NVLink 900 GB/s, efficiency
  // 0.425). A layer per sequence: (6 x 12,582,912 x 1000 + 6 x 1024 x 1000 x 1000) / 2.5e15 =
  // 3.26565888e-5 s; the output layer 6 x 1,024,000 x 1000 / 2.5e15 = 2.4576e-6 s; over
  // tp 16 x 0.425: compute = (4 x 3.26565888e-5 + 2.4576e-6) / 6.8. TP: 4 layers x 4 all-reduces
  // x 2 (15/16) x 2,048,000 bytes = 61,440,000 bytes, half exposed.
  const double compute = (4 * 3.26565888e-5 + 2.4576e-6) / 6.8;
  const double inside = compute + 0.5 * 61'440'000 / 900e9;
  const double across = compute + 0.5 * 61'440'000 / 50e9;  // the scale-out 50 GB/s per GPU
  const LlmJob llm = tp16_job();
  ASSERT_EQ(check_llm_job(llm, 16), "");
  // A blocker fills 64 of domain 0's 72 GPUs: the job's group fits domain 1 whole (4 nodes
  // there), its packed reference: its duration.
  const RunResult one = on_nvl72(llm, 16, 1, 64);
  EXPECT_NEAR(one.jobs[1].jct, 1000, 1e-6);
  const auto& alone = column(one.job_columns, "iter_alone_s");
  EXPECT_NEAR(alone[1], inside, 1e-15);
  // Blockers leave 8 GPUs in each domain: no domain holds the group, so it splits 8 + 8 and its
  // TP traffic runs at the scale-out bandwidth.
  const RunResult two = on_nvl72(llm, 16, 2, 64);
  EXPECT_NEAR(column(two.job_columns, "iter_alone_s")[2], across, 1e-15);
  EXPECT_NEAR(two.jobs[2].jct, 1000 * across / inside, 1e-6);
  EXPECT_GT(across / inside, 10.0);
}

TEST(ScaleUpDomains, ADomainsTrafficLoadsNoUplink) {
  // TP 16 x DP 2 on 32 GPUs, one leaf per domain (18 hosts), 2:1 uplinks. A 40-GPU blocker
  // leaves 32 in domain 0: the whole job fits there (the tightest domain), its DP ring on
  // NVLink, no uplink loaded.
  LlmJob llm = tp16_job();
  llm.dp = 2;
  llm.global_batch = 2;
  ASSERT_EQ(check_llm_job(llm, 32), "");
  const RunResult r = on_nvl72(llm, 32, 1, 40, 18);
  EXPECT_NEAR(r.jobs[1].jct, 1000, 1e-6);
  EXPECT_EQ(r.metrics.link_util_leaf, 0.0);
  // Domains must be whole nodes under one leaf: 16 hosts per leaf cut an 18-node domain.
  EXPECT_THROW(on_nvl72(llm, 32, 1, 40, 16), std::invalid_argument);
}

// ---- Efficiency per GPU type and precision ([fabric.efficiency_by_type]) -------------------

TEST(LlmEfficiency, PerTypeAndPrecisionThenTheOneNumberThenTheBuiltIn) {
  // Two identical DP jobs, one BF16 and one FP8, each alone on two 8-GPU H100 nodes.
  SimOptions options = testing::small_cluster(4, 8);
  options.cluster.groups[0].gpu_type = "h100";
  // 16 sequences: 4 micro-batches, compute outlasts the DP all-reduce, so the efficiency shows.
  LlmJob bf16 = fabric_dp_job();
  bf16.global_batch = 16;
  LlmJob fp8 = bf16;
  fp8.precision = Precision::kFp8;
  options.fabric.llm_jobs = std::make_shared<const LlmJobTable>(LlmJobTable{{0, bf16}, {1, fp8}});
  const std::vector<JobSpec> jobs = {testing::job("bf16", 0, 16, 100),
                                     testing::job("fp8", 0, 16, 100)};
  // The iteration by the public model at `efficiency` (packed: TP in a node, DP at 50 GB/s).
  const GpuPeak& h100 = *gpu_peak("h100");
  const auto iteration = [&](const LlmJob& job, double efficiency) {
    return llm_iteration(job, h100, packed_llm_rates(job, h100, 8, 50e9, efficiency)).total();
  };
  const auto iter_s = [&](const SimOptions& o) {
    const RunResult r = simulate(o, jobs);
    return std::pair{column(r.job_columns, "iter_s")[0], column(r.job_columns, "iter_s")[1]};
  };
  // Nothing set: the built-in 0.425 for both.
  auto [b, f] = iter_s(options);
  EXPECT_DOUBLE_EQ(b, iteration(bf16, 0.425));
  EXPECT_DOUBLE_EQ(f, iteration(fp8, 0.425));
  // The table names H100 BF16 only: FP8 falls back to fabric.efficiency.
  options.fabric.efficiency_by_type = {{"h100_bf16", 0.3}};
  options.fabric.efficiency = 0.5;
  std::tie(b, f) = iter_s(options);
  EXPECT_DOUBLE_EQ(b, iteration(bf16, 0.3));
  EXPECT_DOUBLE_EQ(f, iteration(fp8, 0.5));
  EXPECT_GT(b, iteration(bf16, 0.5));  // a lower efficiency: a longer iteration
}

TEST(LlmEfficiency, TableKeysAreCheckedAndAnAbsentTypeIsWarned) {
  const auto parse = [](const std::string& table) {
    return parse_run_config(
        "[cluster]\nnodes = 2\ngpu_type = \"h100\"\n"
        "[fabric.efficiency_by_type]\n" +
            table + "[workload]\ngenerator = \"philly\"\n",
        "run.toml", ".");
  };
  const auto error_of = [&](const std::string& table) -> std::string {
    try {
      parse(table);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(parse("H100_FP8 = 0.4\n").sim.fabric.efficiency_by_type.at("h100_fp8"), 0.4);
  EXPECT_NE(error_of("v100_fp8 = 0.4\n")
                .find("run.toml:5: field 'fabric.efficiency_by_type."
                      "v100_fp8': expected TYPE_PRECISION"),
            std::string::npos);
  EXPECT_NE(error_of("h100_fp4 = 0.4\n").find("expected TYPE_PRECISION"), std::string::npos);
  EXPECT_NE(error_of("h100_fp8 = 1.5\n").find("run.toml:5"), std::string::npos);
  std::vector<std::string> warned;
  for (const ConfigWarning& warning : config_warnings(parse("a100_bf16 = 0.5\n")))
    warned.push_back(warning.message);
  EXPECT_TRUE(std::any_of(warned.begin(), warned.end(), [](const std::string& m) {
    return m.find("cannot act on a100_bf16: the cluster has no a100 GPUs") != std::string::npos;
  }));
}

}  // namespace
}  // namespace clustersim
