// Overheads as data (mechanisms.h, OverheadCost): each model's seconds, reproducible empirical
// draws, and the accounting of periodic checkpoints in a run.
#include "core/overheads.h"

#include <gtest/gtest.h>

#include <set>

#include "test_util.h"

namespace clustersim {
namespace {

using internal::OverheadModel;
using testing::job;

JobSpec model_job(const std::string& model) {
  JobSpec spec = job("a", 0, 1, 10);
  spec.model = model;
  return spec;
}

TEST(OverheadModel, ConstantSizeAndSaveRestore) {
  SimOptions options;
  options.scheduler.checkpoint_s = 3;
  options.scheduler.restore_s = 2;
  options.scheduler.realloc_s = 7;
  options.mechanisms.restore_cost.model = OverheadCost::Model::kSize;
  options.mechanisms.restore_cost.gbps = 4;  // GB/s
  options.mechanisms.checkpoint_gb = {{"resnet50", 8}};
  options.mechanisms.default_checkpoint_gb = 2;
  options.mechanisms.resize_cost = OverheadCost{OverheadCost::Model::kConstant, 11, 1, {}};
  OverheadModel overheads(options, 1);
  overheads.load(2);
  const JobSpec resnet = model_job("resnet50"), other = model_job("unknown");
  EXPECT_DOUBLE_EQ(overheads.seconds(OverheadKind::kCheckpoint, 0, resnet), 3);
  EXPECT_DOUBLE_EQ(overheads.seconds(OverheadKind::kRestore, 0, resnet), 2 + 8.0 / 4);
  EXPECT_DOUBLE_EQ(overheads.seconds(OverheadKind::kRestore, 1, other), 2 + 2.0 / 4);
  EXPECT_DOUBLE_EQ(overheads.seconds(OverheadKind::kRealloc, 0, resnet), 7);
  EXPECT_DOUBLE_EQ(overheads.seconds(OverheadKind::kResize, 0, resnet), 11);
  // Migration defaults to a save plus a restore, each by its own model.
  EXPECT_DOUBLE_EQ(overheads.seconds(OverheadKind::kMigration, 0, resnet), 3 + 2 + 8.0 / 4);
}

TEST(OverheadModel, EmpiricalDrawsAreReproducibleAndComeFromTheSamples) {
  SimOptions options;
  options.mechanisms.migration_cost.model = OverheadCost::Model::kEmpirical;
  options.mechanisms.migration_cost.samples = {10, 20, 60};
  const JobSpec spec = model_job("x");
  OverheadModel first(options, 42), second(options, 42), other(options, 43);
  std::vector<double> a, b, c;
  for (int i = 0; i < 300; ++i) {
    a.push_back(first.seconds(OverheadKind::kMigration, 0, spec));
    b.push_back(second.seconds(OverheadKind::kMigration, 0, spec));
    c.push_back(other.seconds(OverheadKind::kMigration, 0, spec));
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<double>(a.begin(), a.end()), (std::set<double>{10, 20, 60}));
  EXPECT_DOUBLE_EQ(first.expected_seconds(OverheadKind::kMigration, 0, spec), 30);
}

TEST(OverheadModel, RejectsNegativeAndEmptyCosts) {
  SimOptions options;
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kConstant, -1, 1, {}};
  EXPECT_THROW(OverheadModel(options, 1), std::invalid_argument);
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kEmpirical, 0, 1, {}};
  EXPECT_THROW(OverheadModel(options, 1), std::invalid_argument);
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kSize, 0, 0, {}};
  EXPECT_THROW(OverheadModel(options, 1), std::invalid_argument);
}

// One GPU, one 1000 s job saving a checkpoint after every 100 s of running, each save 5 s: it
// saves after 100, 200, ..., 900 s of progress (not at 1000: it is done then), so 9 saves.
TEST(PeriodicCheckpoints, EachSaveDelaysTheJobByItsCost) {
  SimOptions options = testing::small_cluster(1, 1);
  options.mechanisms.checkpoint_interval_s = 100;
  options.scheduler.checkpoint_s = 5;
  const RunResult result = simulate(options, {job("a", 0, 1, 1000)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 1000 + 9 * 5);
  EXPECT_EQ(result.metrics.checkpoints, 9u);
  EXPECT_DOUBLE_EQ(result.jobs[0].checkpoint_gpu_seconds, 9 * 5);
  EXPECT_DOUBLE_EQ(result.metrics.overhead_checkpoint_gpu_seconds, 9 * 5);
  EXPECT_EQ(result.jobs[0].preemptions, 0);  // a periodic save is not a preemption
  EXPECT_DOUBLE_EQ(result.metrics.goodput, 1000.0 / 1045.0);
}

TEST(PeriodicCheckpoints, AJobsOwnIntervalTakesPrecedence) {
  SimOptions options = testing::small_cluster(1, 2);
  options.mechanisms.checkpoint_interval_s = 100;
  options.scheduler.checkpoint_s = 5;
  JobSpec own = job("own", 0, 1, 1000);
  own.checkpoint_interval_s = 250;  // saves at 250, 500, 750
  const RunResult result = simulate(options, {own, job("policy", 0, 1, 1000)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 1000 + 3 * 5);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 1000 + 9 * 5);
  EXPECT_EQ(result.metrics.checkpoints, 12u);
}

TEST(PeriodicCheckpoints, TwoGpusPayTwiceTheGpuSeconds) {
  SimOptions options = testing::small_cluster(1, 2);
  options.mechanisms.checkpoint_interval_s = 400;  // saves at 400 and 800
  options.scheduler.checkpoint_s = 10;
  const RunResult result = simulate(options, {job("a", 0, 2, 1000)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 1000 + 2 * 10);
  EXPECT_DOUBLE_EQ(result.jobs[0].checkpoint_gpu_seconds, 2 * 2 * 10);
  EXPECT_DOUBLE_EQ(result.jobs[0].gpu_seconds, 2 * 1020);
}

}  // namespace
}  // namespace clustersim
