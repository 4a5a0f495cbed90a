// Result encoding, the journal (torn tails), and the HDF5 result file read back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "clustersim/error.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/result_store.h"
#include "temp_dir.h"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;

using sweep::testing::TempDir;

PointResult sample_result(std::uint64_t id) {
  PointResult result;
  result.point_id = id;
  result.rank = 1;
  result.elapsed_s = 0.25;
  result.metrics.jobs = 10 + id;
  result.metrics.jct_mean = 123.5 + static_cast<double>(id);
  result.metrics.gpu_util = 0.75;
  result.metrics.events = 99;
  JobRecord job;
  job.index = 3;
  job.jct = 42.0;
  job.num_gpus = 4;
  job.rejected = true;
  result.jobs = {job, job};
  Sample sample;
  sample.time = 600;
  sample.busy_gpus = 7;
  result.samples = {sample};
  return result;
}

TEST(SweepPointResult, EncodingRoundTrips) {
  PointResult original = sample_result(5);
  original.error = "boom";
  PointResult copy = decode_result(encode_result(original));
  EXPECT_EQ(copy.point_id, 5u);
  EXPECT_EQ(copy.error, "boom");
  EXPECT_EQ(copy.metrics.jobs, original.metrics.jobs);
  EXPECT_EQ(copy.metrics.jct_mean, original.metrics.jct_mean);
  ASSERT_EQ(copy.jobs.size(), 2u);
  EXPECT_EQ(copy.jobs[1].num_gpus, 4);
  EXPECT_TRUE(copy.jobs[1].rejected);
  ASSERT_EQ(copy.samples.size(), 1u);
  EXPECT_EQ(copy.samples[0].busy_gpus, 7);
  EXPECT_EQ(encode_result(copy), encode_result(original));
  std::string bytes = encode_result(original);
  EXPECT_THROW(decode_result(std::string_view(bytes).substr(0, bytes.size() - 1)),
               std::runtime_error);
}

TEST(SweepJournal, KeepsWholeRecordsAndDropsATornTail) {
  TempDir dir;
  const std::string path = dir.file("r.h5.journal");
  {
    JournalWriter writer(path, false);
    writer.add(RecordType::kHeader, "grid_sha256=abc\n");
    writer.add(RecordType::kPoint, encode_result(sample_result(0)));
    writer.add(RecordType::kPoint, encode_result(sample_result(1)));
    writer.sync();
  }
  auto whole = fs::file_size(path);
  {
    // A record cut short, as a SIGKILL during write() would leave it.
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out.write("\x30\x00\x00\x00\x01\x02", 6);
  }
  JournalContents contents = read_journal(path);
  ASSERT_EQ(contents.records.size(), 3u);
  EXPECT_TRUE(contents.torn_tail);
  EXPECT_EQ(contents.valid_bytes, whole);
  EXPECT_EQ(contents.records[0].type, RecordType::kHeader);
  EXPECT_EQ(decode_result(contents.records[2].payload).point_id, 1u);

  {
    JournalWriter writer(path, true, contents.valid_bytes);
    writer.add(RecordType::kPoint, encode_result(sample_result(2)));
  }
  JournalContents resumed = read_journal(path);
  EXPECT_FALSE(resumed.torn_tail);
  ASSERT_EQ(resumed.records.size(), 4u);
  EXPECT_EQ(decode_result(resumed.records[3].payload).point_id, 2u);
}

TEST(SweepJournal, RejectsOtherFiles) {
  TempDir dir;
  std::ofstream(dir.file("x")) << "hello";
  EXPECT_THROW(read_journal(dir.file("x")), InputError);
  EXPECT_THROW(read_journal(dir.file("missing")), InputError);
}

TEST(SweepResultStore, WritesTheSchemaAndReadsItBack) {
  TempDir dir;
  Grid grid = parse_grid(R"(
[cluster]
nodes = 2
[sweep]
"scheduler.policy" = ["fifo", "las"]
"scheduler.backfill" = [true, false]
"cluster.nodes" = [2, 4]
seeds = 2
)",
                         "g.toml", ".");
  std::vector<PointResult> results;
  for (std::uint64_t id = 0; id < grid.size(); id += 2) results.push_back(sample_result(id));
  Provenance provenance;
  provenance.text["git_commit"] = "deadbeef";
  provenance.integers["ranks"] = 2;
  const std::string path = dir.file("r.h5");
  write_result_file(path, grid, results, ResultFileOptions{true, true}, provenance);
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  ResultFileSummary summary = read_result_file_summary(path);
  EXPECT_EQ(summary.schema_version, kResultSchemaVersion);
  EXPECT_EQ(summary.grid_sha256, grid.sha256);
  EXPECT_FALSE(summary.complete);
  EXPECT_EQ(summary.point_ids, (std::vector<std::int64_t>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(read_numeric_column(path, "points/jct_mean")[1], 125.5);
  // Row 1 = point 2 = config 1: fifo, backfill true, 4 nodes; row 2 = point 4 = config 2:
  // fifo, backfill false, 2 nodes.
  EXPECT_EQ(read_numeric_column(path, "points/cluster.nodes")[1], 4.0);
  EXPECT_EQ(read_numeric_column(path, "points/scheduler.backfill")[1], 1.0);
  EXPECT_EQ(read_numeric_column(path, "points/scheduler.backfill")[2], 0.0);
  EXPECT_EQ(read_numeric_column(path, "jobs/point_id").size(), 16u);
  EXPECT_EQ(read_numeric_column(path, "timeseries/busy_gpus").size(), 8u);
  EXPECT_EQ(read_text_attribute(path, "git_commit"), "deadbeef");
  EXPECT_EQ(read_text_attribute(path, "grid_text"), grid.text);
  EXPECT_EQ(read_text_attribute(path, "axes"),
            R"(["scheduler.policy", "scheduler.backfill", "cluster.nodes"])");
}

TEST(SweepResultStore, RejectsFilesThatAreNotSweepResults) {
  TempDir dir;
  std::ofstream(dir.file("x.h5")) << "not hdf5";
  EXPECT_THROW(read_result_file_summary(dir.file("x.h5")), InputError);
}

}  // namespace
}  // namespace clustersim::sweep
