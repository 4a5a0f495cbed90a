// MIG partitions in the event-driven engine ([cluster] mig, a job's mig_profile; sim/README.md,
// "MIG partitions"): the geometry's placement rules and hand-computed runs.
#include "clustersim/mig.h"

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

JobSpec slice(const std::string& id, Time submit, const std::string& profile, double duration) {
  JobSpec spec = job(id, submit, 1, duration);
  spec.mig_profile = static_cast<std::uint8_t>(mig_profile_id(profile));
  EXPECT_NE(spec.mig_profile, 0) << profile;
  return spec;
}

// One node of `gpus` GPUs in MIG mode.
SimOptions mig_cluster(int gpus, const std::string& geometry = "a100-40gb") {
  SimOptions options = small_cluster(1, gpus);
  options.cluster.groups[0].mig = geometry;
  return options;
}

TEST(MigGeometry, AllowedStartsFollowNvidiasPlacements) {
  const int a40 = mig_geometry_id("a100-40gb");
  const int a80 = mig_geometry_id("a100-80gb");
  ASSERT_GE(a40, 0);
  ASSERT_GE(a80, 0);
  const int g1 = mig_profile_id("1g.5gb"), g2 = mig_profile_id("2g.10gb");
  const int g3 = mig_profile_id("3g.20gb"), g4 = mig_profile_id("4g.20gb");
  const int g7 = mig_profile_id("7g.40gb");
  // An empty GPU: every profile at start 0.
  for (int profile : {g1, g2, g3, g4, g7}) EXPECT_EQ(mig_first_start(a40, profile, 0), 0);
  // Memory slice 0 taken: 1g.5gb {0..6} -> 1; 2g.10gb {0,2,4} -> 2; 3g.20gb {0,4} -> 4;
  // 4g.20gb and 7g.40gb {0} -> none.
  EXPECT_EQ(mig_first_start(a40, g1, 0x01), 1);
  EXPECT_EQ(mig_first_start(a40, g2, 0x01), 2);
  EXPECT_EQ(mig_first_start(a40, g3, 0x01), 4);
  EXPECT_EQ(mig_first_start(a40, g4, 0x01), -1);
  EXPECT_EQ(mig_first_start(a40, g7, 0x01), -1);
  // Slices 0..6 taken: slice 7 alone is no 1g.5gb start (starts 0..6 only).
  EXPECT_EQ(mig_first_start(a40, g1, 0x7F), -1);
  // 1g.10gb on the 40 GB A100 takes 2 memory slices at {0,2,4,6}; on the 80 GB, 1 at {0..6}.
  const int g1_10 = mig_profile_id("1g.10gb");
  EXPECT_EQ(mig_first_start(a40, g1_10, 0x3F), 6);
  EXPECT_EQ(mig_mask(a40, g1_10, 6), 0xC0);
  EXPECT_EQ(mig_first_start(a80, g1_10, 0x3F), 6);
  EXPECT_EQ(mig_mask(a80, g1_10, 6), 0x40);
  // Profiles of another geometry are not offered.
  EXPECT_EQ(mig_first_start(a40, mig_profile_id("3g.40gb"), 0), -1);
  EXPECT_EQ(mig_first_start(a80, g1, 0), -1);
  EXPECT_EQ(mig_compute_slices(g3), 3);
  EXPECT_EQ(mig_profile_id("5g.20gb"), 0);
}

TEST(Mig, JobsOnSlicesRunAtTheirComputeSlicesOfSeven) {
  // One A100-40GB in MIG mode: a 1g (10 s of whole-GPU work) runs at 1/7: 70 s; a 2g (20 s) at
  // 2/7: 70 s; a 3g (30 s) at 3/7: 70 s. They take 1 + 2 + 4 memory slices at starts 0, 2, 4:
  // all fit at once. GPU-seconds: compute slices / 7 x 70 s = 10, 20, 30; the GPU is busy
  // (1 + 2 + 3) / 7 of the 70 s.
  const RunResult result = simulate(
      mig_cluster(1),
      {slice("a", 0, "1g.5gb", 10), slice("b", 0, "2g.10gb", 20), slice("c", 0, "3g.20gb", 30)});
  ASSERT_EQ(result.metrics.jobs, 3u);
  for (const JobRecord& record : result.jobs) {
    EXPECT_NEAR(record.finish_time, 70.0, 1e-9);
    EXPECT_DOUBLE_EQ(record.queue_delay, 0.0);
  }
  EXPECT_NEAR(result.jobs[0].gpu_seconds, 10.0, 1e-9);
  EXPECT_NEAR(result.jobs[1].gpu_seconds, 20.0, 1e-9);
  EXPECT_NEAR(result.jobs[2].gpu_seconds, 30.0, 1e-9);
  EXPECT_NEAR(result.metrics.gpu_util, 6.0 / 7.0, 1e-12);
  // Finish-time fairness: each ran as fast as alone on its slice (70 s): 1.
  EXPECT_NEAR(result.metrics.ftf_mean, 1.0, 1e-12);
}

TEST(Mig, PlacementStartsAreRespectedAndAProfileThatDoesNotFitWaits) {
  // One A100-40GB GPU, all at 0 in FIFO order (backfill):
  //   a 1g.5gb  -> start 0            (memory slice 0)
  //   b 3g.20gb -> {0,4}: 0 is taken -> start 4 (slices 4..7)
  //   c 4g.20gb -> {0} only: taken    -> waits, though slices 1..3 and 4 compute slices are free
  //   d 2g.10gb -> {0,2,4}: start 2   (slices 2..3)
  //   e 1g.5gb  -> start 1            (slice 1)
  // All 8 memory slices are then taken. a, d, e (10, 20, 10 s of work at 1/7, 2/7, 1/7) and b
  // (30 s at 3/7) end at 70; c (40 s at 4/7) runs 70..140.
  SimOptions options = mig_cluster(1);
  std::vector<int> masks;
  options.observer = [&](const AllocationContext& context) {
    if (masks.empty()) masks.push_back(context.cluster().mig_used(0, 0));
  };
  const RunResult result =
      simulate(options, {slice("a", 0, "1g.5gb", 10), slice("b", 0, "3g.20gb", 30),
                         slice("c", 0, "4g.20gb", 40), slice("d", 0, "2g.10gb", 20),
                         slice("e", 0, "1g.5gb", 10)});
  ASSERT_EQ(masks.size(), 1u);
  EXPECT_EQ(masks[0], 0xFF);
  for (std::size_t i : {0u, 1u, 3u, 4u}) EXPECT_NEAR(result.jobs[i].finish_time, 70.0, 1e-9) << i;
  EXPECT_NEAR(result.jobs[2].queue_delay, 70.0, 1e-9);
  EXPECT_NEAR(result.jobs[2].finish_time, 140.0, 1e-9);
}

TEST(Mig, ASliceGoesToTheFullestGpuWithAnAllowedStart) {
  // Two MIG GPUs. a (1g) -> GPU 0 (both empty: the first), start 0. b (7g.40gb, start 0 only) ->
  // GPU 0 has slice 0 taken: GPU 1. c (1g) -> GPU 1 is full; GPU 0 at start 1. Masks: 0x03, 0xFF.
  SimOptions options = mig_cluster(2);
  std::vector<int> masks;
  options.observer = [&](const AllocationContext& context) {
    if (!masks.empty()) return;
    for (int gpu = 0; gpu < 2; ++gpu) masks.push_back(context.cluster().mig_used(0, gpu));
  };
  simulate(options, {slice("a", 0, "1g.5gb", 10), slice("b", 0, "7g.40gb", 10),
                     slice("c", 0, "1g.5gb", 10)});
  EXPECT_EQ(masks, (std::vector<int>{0x03, 0xFF}));
}

TEST(Mig, WholeGpuAndSharedJobsNeverGetAGpuInMigMode) {
  // Node 0: one whole GPU; node 1: one GPU in MIG mode. w1 and w2 (1 GPU, 100 s each) run one
  // after the other on node 0 (w2: 100..200), not on the MIG GPU, which the slice s takes at 0
  // (1g.5gb, 10 s at 1/7: 70 s). A 2-GPU job can never run (one whole GPU): refused.
  SimOptions options = small_cluster(1, 1);
  NodeGroupSpec mig = options.cluster.groups[0];
  mig.name = "mig";
  mig.mig = "a100-40gb";
  options.cluster.groups.push_back(mig);
  options.sharing.interference = Interference::kNone;
  JobSpec half = job("h", 0, 1, 50);
  half.gpu_milli = 500;
  const RunResult result = simulate(
      options, {job("w1", 0, 1, 100), job("w2", 0, 1, 100), slice("s", 0, "1g.5gb", 10), half});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 200.0);
  EXPECT_NEAR(result.jobs[2].finish_time, 70.0, 1e-9);
  // The half-GPU share waits for node 0's GPU too: after w1 (FIFO with backfill: w2 is ahead
  // of it and takes the GPU at 100), then 200..250.
  EXPECT_DOUBLE_EQ(result.jobs[3].finish_time, 250.0);
  EXPECT_EQ(refused_field(options, {job("w", 0, 2, 10)}), "num_gpus");
}

TEST(Mig, ProfilesTheClusterDoesNotOfferAreRefused) {
  SimOptions options = mig_cluster(1);  // a100-40gb: no 1g.20gb
  EXPECT_EQ(refused_field(options, {slice("a", 0, "1g.20gb", 10)}), "mig_profile");
  EXPECT_EQ(refused_field(small_cluster(1, 1), {slice("a", 0, "1g.5gb", 10)}), "mig_profile");
  JobSpec big = slice("a", 0, "1g.5gb", 10);
  big.gpu_mem_gb = 8;  // more than a 1g.5gb slice has
  EXPECT_EQ(refused_field(options, {big}), "gpu_mem_gb");
  JobSpec unknown = slice("a", 0, "1g.5gb", 10);
  unknown.mig_profile = 200;  // no profile of mig.h
  EXPECT_THROW(simulate(options, {unknown}), std::invalid_argument);
  JobSpec two = slice("a", 0, "1g.5gb", 10);
  two.num_gpus = 2;
  EXPECT_THROW(simulate(options, {two}), std::invalid_argument);
}

TEST(Mig, RefusedWhereItCannotAct) {
  // A cluster with GPUs in MIG mode, even for whole-GPU jobs only, and a preemptive policy.
  SimOptions options = small_cluster(1, 1);
  NodeGroupSpec mig = options.cluster.groups[0];
  mig.name = "mig";
  mig.mig = "a100-40gb";
  options.cluster.groups.push_back(mig);
  options.scheduler.policy = "srtf";
  try {
    simulate(options, {job("w", 0, 1, 10)});
    ADD_FAILURE() << "not refused";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("cluster.mig"), std::string::npos) << error.what();
  }
  options = mig_cluster(1);
  options.scheduler.policy = "max_min_fairness";  // a time-share decider
  EXPECT_THROW(simulate(options, {slice("a", 0, "1g.5gb", 10)}), std::invalid_argument);
  options = mig_cluster(1);
  options.mechanisms.elastic = true;
  EXPECT_THROW(simulate(options, {slice("a", 0, "1g.5gb", 10)}), std::invalid_argument);
}

TEST(Mig, MixedWorkloadKeepsTheLedgerConsistent) {
  // Whole-GPU jobs on two whole nodes, slices of every A100-80GB profile on two MIG nodes, under
  // load, invariants (no overlapping slices, masks = holders') checked after every batch.
  auto jobs = random_jobs(600, 10.0, 300.0, {1, 2, 4}, 13);
  const char* profiles[] = {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"};
  for (std::size_t i = 0; i < jobs.size(); i += 2) {
    jobs[i].num_gpus = 1;
    jobs[i].mig_profile = static_cast<std::uint8_t>(mig_profile_id(profiles[i % 6]));
  }
  SimOptions options = small_cluster(2, 4);
  NodeGroupSpec mig = options.cluster.groups[0];
  mig.name = "mig";
  mig.mig = "h100-80gb";
  options.cluster.groups.push_back(mig);
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.metrics.jobs, jobs.size());
}

}  // namespace
}  // namespace clustersim
