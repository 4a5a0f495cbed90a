// GPU sharing and CPU-only jobs in the event-driven engine ([sharing]; sim/README.md, "GPU
// sharing"): hand-computed runs.
#include <gtest/gtest.h>

#include <stdexcept>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/options.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;
using testing::random_jobs;
using testing::refused_field;
using testing::small_cluster;

JobSpec share(const std::string& id, Time submit, int milli, double duration,
              const std::string& model = "") {
  JobSpec spec = job(id, submit, 1, duration);
  spec.gpu_milli = milli;
  spec.model = model;
  return spec;
}

JobSpec cpu_only(const std::string& id, Time submit, double cpus, double duration) {
  JobSpec spec = job(id, submit, 0, duration);
  spec.cpus = cpus;
  return spec;
}

SimOptions constant_sharing(int nodes, int gpus, double factor) {
  SimOptions options = small_cluster(nodes, gpus);
  options.sharing.interference = Interference::kConstant;
  options.sharing.constant_factor = factor;
  return options;
}

TEST(Sharing, TwoHalfGpuJobsShareOneGpuEachAtTheConstantFactor) {
  // One GPU; both run from 0 at rate 0.8: 100 s of work end at 100 / 0.8 = 125 s.
  const RunResult result =
      simulate(constant_sharing(1, 1, 0.8), {share("a", 0, 500, 100), share("b", 0, 500, 100)});
  ASSERT_EQ(result.metrics.jobs, 2u);
  for (const JobRecord& record : result.jobs) {
    EXPECT_DOUBLE_EQ(record.finish_time, 125.0);
    EXPECT_DOUBLE_EQ(record.queue_delay, 0.0);
    EXPECT_DOUBLE_EQ(record.gpu_seconds, 0.5 * 125.0);  // half a GPU for 125 s
    EXPECT_DOUBLE_EQ(record.colocated_seconds, 125.0);
  }
  // One GPU busy for 125 s of 125: two halves.
  EXPECT_DOUBLE_EQ(result.metrics.gpu_util, 1.0);
}

TEST(Sharing, WhenOneLeavesTheOtherSpeedsBackUp) {
  // a: 40 s of work at 0.8 ends at 50 s. b: by 50 s it has done 40 of its 100 s, then runs
  // alone at rate 1: 60 s more, ends at 110 s.
  const RunResult result =
      simulate(constant_sharing(1, 1, 0.8), {share("a", 0, 500, 40), share("b", 0, 500, 100)});
  ASSERT_EQ(result.metrics.jobs, 2u);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 50.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 110.0);
  EXPECT_DOUBLE_EQ(result.jobs[0].colocated_seconds, 50.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].colocated_seconds, 50.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].gpu_seconds, 0.5 * 110.0);
}

TEST(Sharing, ALateArrivalSlowsTheJobAlreadyRunning) {
  // a alone from 0 to 20 (20 s done), then b arrives: both at 0.5 (factor). a has 30 s left:
  // 60 s more, ends at 80; b has done 30 of 100 by then, then alone: 70 s more, ends at 150.
  SimOptions options = constant_sharing(1, 1, 0.5);
  const RunResult result = simulate(options, {share("a", 0, 300, 50), share("b", 20, 700, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 80.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 150.0);
  EXPECT_DOUBLE_EQ(result.jobs[0].colocated_seconds, 60.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].colocated_seconds, 60.0);
}

TEST(Sharing, ThreeJobsOnOneGpuEachSlowedTwice) {
  // Each beside two others: 0.8^2 = 0.64; 64 s of work take 100 s.
  const RunResult result =
      simulate(constant_sharing(1, 1, 0.8),
               {share("a", 0, 300, 64), share("b", 0, 300, 64), share("c", 0, 300, 64)});
  for (const JobRecord& record : result.jobs) EXPECT_NEAR(record.finish_time, 100.0, 1e-9);
}

TEST(Sharing, NoInterferenceRunsSharesAtFullSpeed) {
  SimOptions options = small_cluster(1, 1);
  options.sharing.interference = Interference::kNone;
  const RunResult result = simulate(options, {share("a", 0, 500, 100), share("b", 0, 500, 30)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 30.0);
}

TEST(Sharing, PairTableSlowsEachJobByItsOwnFactor) {
  // a (resnet) beside b (lm): 0.5; b beside a: 0.8. a: 50 s of work at 0.5 end at 100. b: 100 s
  // of work, 80 done by 100, then 20 alone: ends at 120.
  SimOptions options = small_cluster(1, 1);
  options.sharing.interference = Interference::kTable;
  options.sharing.pairs = {{{"resnet", "lm"}, 0.5}, {{"lm", "*"}, 0.8}};
  const RunResult result =
      simulate(options, {share("a", 0, 500, 50, "resnet"), share("b", 0, 500, 100, "lm")});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 120.0);
}

TEST(Sharing, AFractionalJobThatDoesNotFitWaits) {
  // 0.6 + 0.6 > 1: b waits for a (100 s alone, rate 1), then runs alone: 100..200. The whole-GPU
  // job c cannot take the GPU a share holds: it waits behind b (FIFO), 200..300.
  SimOptions options = constant_sharing(1, 1, 0.8);
  options.scheduler.backfill = false;
  const RunResult result =
      simulate(options, {share("a", 0, 600, 100), share("b", 0, 600, 100), job("c", 0, 1, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 200.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].queue_delay, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 300.0);
  EXPECT_DOUBLE_EQ(result.jobs[0].colocated_seconds, 0.0);
}

TEST(Sharing, SharesPackOntoAPartlyUsedGpuBeforeAFreeOne) {
  // Two GPUs: a (0.5) takes GPU 0; b (0.5) joins it (tightest fit) rather than the free GPU, so
  // the whole-GPU job c still starts at once.
  SimOptions options = constant_sharing(1, 2, 0.8);
  const RunResult result =
      simulate(options, {share("a", 0, 500, 80), share("b", 0, 500, 80), job("c", 0, 1, 10)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[2].queue_delay, 0.0);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 10.0);
}

TEST(Sharing, PlacementTakesTheTightestPartlyUsedGpuElseAFreeGpuOnTheFullestNode) {
  // Two nodes of 2 GPUs, all jobs at 0 (FIFO): w takes a whole GPU of node 0 (the tightest node
  // for a whole job). s1 (0.5): no GPU is partly used, so a free GPU of the node with the fewest
  // free GPUs: node 0's second. s2 (0.3): the tightest partly used GPU, the same one (0.8 used).
  // s3 (0.6): no partly used GPU has room for it (0.2 left): a free GPU on node 1 (node 0 has
  // none). s4 (0.4): a partly used GPU before a free one: s3's (0.4 left, an exact fit), not
  // node 1's free GPU.
  SimOptions options = constant_sharing(2, 2, 1.0);
  options.scheduler.placement = "best_fit";
  std::vector<int> used;  // after the first decision: node 0's GPUs, then node 1's
  options.observer = [&](const AllocationContext& context) {
    if (!used.empty()) return;
    for (std::uint32_t node = 0; node < 2; ++node)
      for (int gpu = 0; gpu < 2; ++gpu) used.push_back(context.cluster().used_milli(node, gpu));
  };
  simulate(options, {job("w", 0, 1, 100), share("s1", 0, 500, 100), share("s2", 0, 300, 100),
                     share("s3", 0, 600, 100), share("s4", 0, 400, 100)});
  EXPECT_EQ(used, (std::vector<int>{800, 0, 1000, 0})) << "node 0's GPU 0 holds s1 and s2";
}

TEST(Sharing, WithoutSharingAShareRunsOnAWholeGpu) {
  SimOptions options = small_cluster(1, 1);
  const RunResult result = simulate(options, {share("a", 0, 500, 100), share("b", 0, 500, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 200.0);
  EXPECT_DOUBLE_EQ(result.jobs[0].gpu_seconds, 100.0);
}

TEST(CpuOnlyJobs, RunOnCpusBesideAGpuJob) {
  // 2 GPUs, 16 cores: the GPU job takes 1 GPU and its 8 cores; the CPU-only job 4 cores, no GPU,
  // rate 1: both start at 0.
  SimOptions options = small_cluster(1, 2);
  options.cluster.groups[0].cpus_per_node = 16;
  const RunResult result = simulate(options, {job("g", 0, 1, 100), cpu_only("c", 0, 4, 50)});
  ASSERT_EQ(result.metrics.jobs, 2u);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 50.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].gpu_seconds, 0.0);
  EXPECT_EQ(result.jobs[1].num_gpus, 0);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  // GPU-seconds are the GPU job's alone: 100 of 2 x 100; cores: 8 x 100 + 4 x 50 of 16 x 100.
  EXPECT_DOUBLE_EQ(result.metrics.gpu_util, 0.5);
  EXPECT_DOUBLE_EQ(result.metrics.cpu_util, 1000.0 / 1600.0);
}

TEST(CpuOnlyJobs, StartWithNoGpuFreeAndWaitForCores) {
  // One GPU held by g (8 cores of 16); c1 (6 cores) starts with no GPU free; c2 (6 cores) waits
  // for c1's cores: 40..80.
  SimOptions options = small_cluster(1, 1);
  options.cluster.groups[0].cpus_per_node = 16;
  JobSpec g = job("g", 0, 1, 100);
  g.cpus = 8;
  const RunResult result =
      simulate(options, {g, cpu_only("c1", 0, 6, 40), cpu_only("c2", 0, 6, 40)});
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 40.0);
  EXPECT_DOUBLE_EQ(result.jobs[2].queue_delay, 40.0);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 80.0);
}

TEST(CpuOnlyJobs, NeedModelledCpus) {
  SimOptions options = small_cluster(1, 1);  // no cores modelled
  EXPECT_THROW(simulate(options, {cpu_only("c", 0, 4, 10)}), ImpossibleJobError);
  JobSpec no_cpus = job("c", 0, 0, 10);
  options.cluster.groups[0].cpus_per_node = 8;
  EXPECT_THROW(simulate(options, {no_cpus}), std::invalid_argument);
}

TEST(Sharing, WholeGpuRunsAreUnchangedBitForBit) {
  const auto jobs = random_jobs(800, 20.0, 600.0, {1, 1, 2, 4, 8}, 5);
  SimOptions options = small_cluster(8, 4, 2);
  options.sample_interval_s = 100;
  const RunResult plain = simulate(options, jobs);
  options.sharing.interference = Interference::kNone;
  const RunResult shared = simulate(options, jobs);
  ASSERT_EQ(plain.jobs.size(), shared.jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(plain.jobs[i].finish_time, shared.jobs[i].finish_time) << i;
    EXPECT_EQ(plain.jobs[i].gpu_seconds, shared.jobs[i].gpu_seconds) << i;
  }
  EXPECT_EQ(plain.metrics.jct_mean, shared.metrics.jct_mean);
  EXPECT_EQ(plain.metrics.gpu_util, shared.metrics.gpu_util);
  EXPECT_EQ(plain.metrics.frag_mean, shared.metrics.frag_mean);
  EXPECT_EQ(plain.metrics.events, shared.metrics.events);
}

TEST(Sharing, MixedWorkloadKeepsTheLedgerConsistent) {
  // Whole-GPU, fractional and CPU-only jobs under load, invariants checked after every batch.
  auto jobs = random_jobs(600, 10.0, 300.0, {1, 2, 4}, 9);
  for (std::size_t i = 0; i < jobs.size(); i += 3) jobs[i].gpu_milli = 250 + 125 * (i % 5);
  for (std::size_t i = 1; i < jobs.size(); i += 7) {
    jobs[i].num_gpus = 0;
    jobs[i].cpus = 2;
  }
  SimOptions options = constant_sharing(4, 4, 0.7);
  options.cluster.groups[0].cpus_per_node = 32;
  const RunResult result = simulate(options, jobs);  // throws on any invariant violation
  EXPECT_EQ(result.metrics.jobs, jobs.size());
}

TEST(Sharing, BadInputIsRefused) {
  SimOptions options = constant_sharing(1, 1, 0.8);
  EXPECT_THROW(simulate(options, {share("a", 0, 0, 10)}), std::invalid_argument);
  EXPECT_THROW(simulate(options, {share("a", 0, 1001, 10)}), std::invalid_argument);
  options.sharing.constant_factor = 0.0;
  EXPECT_THROW(validate(options), std::invalid_argument);
  options.sharing.constant_factor.reset();
  EXPECT_THROW(validate(options), std::invalid_argument);  // constant needs its factor
  SimOptions table = small_cluster(1, 1);
  table.sharing.interference = Interference::kTable;
  table.sharing.pairs = {{{"resnet", "lm"}, 0.5}};
  // lm beside resnet has no entry: named when they meet.
  EXPECT_THROW(simulate(table, {share("a", 0, 500, 10, "resnet"), share("b", 0, 500, 10, "lm")}),
               std::invalid_argument);
}

TEST(Sharing, RefusedWhereTheyCannotAct) {
  SimOptions options = constant_sharing(1, 2, 0.8);
  options.scheduler.policy = "srtf";  // preemptive
  EXPECT_THROW(simulate(options, {share("a", 0, 500, 10)}), std::invalid_argument);
  options = constant_sharing(1, 2, 0.8);
  options.scheduler.policy = "max_min_fairness";  // a time-share decider
  EXPECT_THROW(simulate(options, {share("a", 0, 500, 10)}), std::invalid_argument);
  options = constant_sharing(1, 2, 0.8);
  options.mechanisms.elastic = true;
  EXPECT_THROW(simulate(options, {share("a", 0, 500, 10)}), std::invalid_argument);
}

// --- GPU memory in the share ledger -----------------------------------------------------------

JobSpec share_mem(const std::string& id, Time submit, int milli, double gpu_mem_gb,
                  double duration) {
  JobSpec spec = share(id, submit, milli, duration);
  spec.gpu_mem_gb = gpu_mem_gb;
  return spec;
}

TEST(SharingMemory, ASecondShareWaitsWhenItsMemoryDoesNotFit) {
  // One GPU of 16 GB, no interference (rate 1). a (0.3, 10 GB) starts at 0. b (0.3, 10 GB):
  // thousandths fit (600) but memory does not (10 + 10 > 16): it waits. c (0.3, 6 GB) fits
  // beside a (600 thousandths, 16 GB: exactly full) and starts at 0 (backfill), ends at 50. At
  // 50 b still does not fit beside a (10 + 10 > 16); at 100 a leaves: b runs 100..200.
  SimOptions options = small_cluster(1, 1);
  options.sharing.interference = Interference::kNone;
  options.cluster.groups[0].gpu_mem_gb = 16;
  const std::vector<JobSpec> jobs = {share_mem("a", 0, 300, 10, 100),
                                     share_mem("b", 0, 300, 10, 100),
                                     share_mem("c", 0, 300, 6, 50)};
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].queue_delay, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 200.0);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 50.0);
  // Without GPU memory modelled the same jobs share by thousandths alone (900): all start at 0.
  options.cluster.groups[0].gpu_mem_gb = 0;
  const RunResult unmodelled = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(unmodelled.jobs[1].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(unmodelled.jobs[2].finish_time, 50.0);
}

TEST(SharingMemory, AShareGoesToAFreeGpuWhenThePartlyUsedOneLacksMemory) {
  // Two GPUs of 16 GB. a (0.5, 12 GB) takes GPU 0; b (0.3, 8 GB) would fit GPU 0 by thousandths
  // (800, the tightest) but not by memory (20 > 16): it takes GPU 1. c (0.4, 4 GB) fits GPU 0
  // (900, 16 GB) and GPU 1 (700, 12 GB): the tightest, GPU 0.
  SimOptions options = small_cluster(1, 2);
  options.sharing.interference = Interference::kNone;
  options.cluster.groups[0].gpu_mem_gb = 16;
  std::vector<int> used_milli, used_mb;
  options.observer = [&](const AllocationContext& context) {
    if (!used_milli.empty()) return;
    for (int gpu = 0; gpu < 2; ++gpu) {
      used_milli.push_back(context.cluster().used_milli(0, gpu));
      used_mb.push_back(context.cluster().used_mem_mb(0, gpu));
    }
  };
  simulate(options, {share_mem("a", 0, 500, 12, 100), share_mem("b", 0, 300, 8, 100),
                     share_mem("c", 0, 400, 4, 100)});
  EXPECT_EQ(used_milli, (std::vector<int>{900, 300}));
  EXPECT_EQ(used_mb, (std::vector<int>{16000, 8000}));
}

TEST(SharingMemory, AJobNeedingMoreThanAnyGpuIsRefusedNamingTheField) {
  SimOptions options = small_cluster(1, 2);
  options.sharing.interference = Interference::kNone;
  options.cluster.groups[0].gpu_mem_gb = 16;
  EXPECT_EQ(refused_field(options, {share_mem("a", 0, 500, 20, 10)}), "gpu_mem_gb");
  JobSpec whole = job("w", 0, 1, 10);
  whole.gpu_mem_gb = 24;
  EXPECT_EQ(refused_field(options, {whole}), "gpu_mem_gb");
  whole.gpu_mem_gb = 16;  // a whole GPU gives its job all of its memory
  EXPECT_EQ(refused_field(options, {whole}), "");
  options.reject_impossible = true;
  const RunResult result = simulate(options, {share_mem("a", 0, 500, 20, 10), whole});
  EXPECT_EQ(result.metrics.rejected, 1u);
  EXPECT_EQ(result.metrics.jobs, 1u);
}

TEST(SharingMemory, AWholeGpuJobMustFitEveryGpuItMayGet) {
  // Groups of 16 GB and 40 GB GPUs: whole-GPU placement does not look at memory, so a job of
  // 24 GB naming no type is refused; naming the 40 GB type, it runs.
  SimOptions options = small_cluster(1, 1);
  options.cluster.groups[0].gpu_mem_gb = 16;
  options.cluster.groups[0].gpu_type = "small";
  NodeGroupSpec big = options.cluster.groups[0];
  big.name = "big";
  big.gpu_type = "big";
  big.gpu_mem_gb = 40;
  options.cluster.groups.push_back(big);
  JobSpec whole = job("w", 0, 1, 10);
  whole.gpu_mem_gb = 24;
  EXPECT_EQ(refused_field(options, {whole}), "gpu_mem_gb");
  whole.gpu_type = "big";
  EXPECT_EQ(refused_field(options, {whole}), "");
}

TEST(SharingMemory, MixedWorkloadKeepsTheMemoryLedgerConsistent) {
  // Shares with memory needs beside whole-GPU jobs under load, invariants (each GPU's memory =
  // its shares') checked after every batch.
  auto jobs = random_jobs(600, 10.0, 300.0, {1, 2, 4}, 11);
  for (std::size_t i = 0; i < jobs.size(); i += 2) {
    jobs[i].num_gpus = 1;
    jobs[i].gpu_milli = 200 + 100 * static_cast<int>(i % 6);
    jobs[i].gpu_mem_gb = 4.0 + static_cast<double>(i % 5) * 3.5;
  }
  SimOptions options = constant_sharing(4, 4, 0.8);
  options.cluster.groups[0].gpu_mem_gb = 24;
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.metrics.jobs, jobs.size());
}

}  // namespace
}  // namespace clustersim
