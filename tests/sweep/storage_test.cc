// Result encoding, the journal (torn tails), and the HDF5 result file read back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "clustersim/error.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/row_spool.h"
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
  // Without added columns a result keeps format 2 (what older builds read).
  std::uint32_t format = 0;
  std::memcpy(&format, bytes.data(), sizeof format);
  EXPECT_EQ(format, 2u);
}

TEST(SweepPointResult, AddedColumnsRoundTrip) {
  PointResult original = sample_result(5);
  original.job_columns = {{"ettr", {0.5, std::nan("")}}, {"energy_kwh", {1.25, 2.5}}};
  original.sample_columns = {{"power_w", {700.0}}};
  const std::string bytes = encode_result(original);
  std::uint32_t format = 0;
  std::memcpy(&format, bytes.data(), sizeof format);
  EXPECT_EQ(format, 4u);
  PointResult copy = decode_result(bytes);
  ASSERT_EQ(copy.job_columns.size(), 2u);
  EXPECT_EQ(copy.job_columns[1].name, "energy_kwh");
  EXPECT_EQ(copy.job_columns[1].values, (std::vector<double>{1.25, 2.5}));
  EXPECT_TRUE(std::isnan(copy.job_columns[0].values[1]));
  ASSERT_EQ(copy.sample_columns.size(), 1u);
  EXPECT_EQ(copy.sample_columns[0].values, std::vector<double>{700.0});
  EXPECT_EQ(encode_result(copy), bytes);
  // A spool reference with the names only (their values went with the rows).
  PointResult reference;
  reference.point_id = 5;
  reference.rows = RowsRef{"s1.r0", 0, 10, 1, 2, 1};
  reference.job_columns = {{"ettr", {}}};
  copy = decode_result(encode_result(reference));
  ASSERT_TRUE(copy.rows);
  ASSERT_EQ(copy.job_columns.size(), 1u);
  EXPECT_EQ(copy.job_columns[0].name, "ettr");
  // Values that do not match the rows are refused.
  original.job_columns[0].values.pop_back();
  EXPECT_THROW(decode_result(encode_result(original)), std::runtime_error);
}

// A sweep killed before its first flush must not leave an empty journal behind: every resume
// would stop at it ("not a clustersim sweep journal"; seen in kill9_test at 303 ms).
TEST(SweepJournal, ANewJournalAppearsWholeAtItsFirstFlush) {
  TempDir dir;
  const std::string path = dir.file("n.h5.journal");
  JournalWriter writer(path, false);
  writer.add(RecordType::kHeader, "grid_sha256=abc\n");
  EXPECT_FALSE(fs::exists(path));
  writer.flush();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".new"));
  const JournalContents contents = read_journal(path);
  ASSERT_EQ(contents.records.size(), 1u);
  EXPECT_EQ(contents.records[0].type, RecordType::kHeader);
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

// A point's rows only: what a rank spools (row_spool.h).
std::string rows_payload(const PointResult& result) {
  PointResult rows;
  rows.point_id = result.point_id;
  rows.jobs = result.jobs;
  rows.samples = result.samples;
  rows.job_columns = result.job_columns;
  rows.sample_columns = result.sample_columns;
  return encode_result(rows);
}

TEST(SweepRowSpool, RecordsReadBackAndDamageIsDetected) {
  TempDir dir;
  const std::string folder = dir.file("");
  PointResult a = sample_result(3), b = sample_result(4);
  b.jobs.resize(1000);
  RowsRef ref_a, ref_b;
  {
    RowSpool spool(folder, spool_file_name(1, 0));
    ref_a = spool.append(rows_payload(a), a.jobs.size(), a.samples.size());
    ref_b = spool.append(rows_payload(b), b.jobs.size(), b.samples.size());
  }
  EXPECT_EQ(ref_a.file, "s1.r0");
  EXPECT_EQ(ref_a.offset, 0u);
  EXPECT_GT(ref_b.offset, ref_a.offset);
  PointResult back = read_spooled_rows(folder, ref_b);
  EXPECT_EQ(back.point_id, 4u);
  ASSERT_EQ(back.jobs.size(), 1000u);
  EXPECT_EQ(back.jobs[0].jct, 42.0);
  EXPECT_TRUE(spooled_rows_intact(folder, ref_a));
  EXPECT_TRUE(spooled_rows_intact(folder, ref_b));
  {  // A reopened spool appends after what is there.
    RowSpool spool(folder, spool_file_name(1, 0));
    EXPECT_EQ(spool.append(rows_payload(a), 2, 1).offset, ref_b.offset + 24 + ref_b.bytes);
  }
  // A record cut short (lost with a node), or with a flipped byte, is not intact.
  fs::resize_file(dir.file("s1.r0"), ref_b.offset + 24 + ref_b.bytes - 1);
  EXPECT_FALSE(spooled_rows_intact(folder, ref_b));
  EXPECT_THROW(read_spooled_rows(folder, ref_b), std::runtime_error);
  {
    std::fstream file(dir.file("s1.r0"), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(ref_a.offset + 30));
    file.put('\x7f');
  }
  EXPECT_FALSE(spooled_rows_intact(folder, ref_a));
  RowsRef missing = ref_a;
  missing.file = "s9.r9";
  EXPECT_FALSE(spooled_rows_intact(folder, missing));
}

// A full disk (here: the file-size limit, which fails write() the same way) is an I/O error
// naming the spool, for this append and every later one.
TEST(SweepRowSpool, AWriteThatFailsIsAnErrorNamingTheFile) {
  TempDir dir;
  RowSpool spool(dir.file(""), spool_file_name(2, 5));
  PointResult big = sample_result(1);
  big.jobs.resize(20000);
  const std::string payload = rows_payload(big);
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = saved;
  limited.rlim_cur = payload.size() / 2;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string message;
  try {
    spool.append(payload, big.jobs.size(), 0);
  } catch (const SpoolWriteError& error) {
    message = error.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_THAT(message, ::testing::HasSubstr("s2.r5: cannot write the row spool"));
  EXPECT_THROW(spool.append(rows_payload(sample_result(2)), 2, 1), SpoolWriteError);
}

// 2 policies x 2 seeds on a 2-node cluster.
Grid four_point_grid() {
  return parse_grid(R"(
[cluster]
nodes = 2
[sweep]
"scheduler.policy" = ["fifo", "las"]
seeds = 2
)",
                    "g.toml", ".");
}

// Each of `columns` reads the same from files `a` and `b`.
void expect_same_columns(const std::string& a, const std::string& b,
                         std::initializer_list<const char*> columns) {
  for (const char* column : columns) {
    SCOPED_TRACE(column);
    const std::vector<double> x = read_numeric_column(a, column),
                              y = read_numeric_column(b, column);
    ASSERT_EQ(x.size(), y.size());
    // Bit for bit: the NaN of a point without an added column is equal too.
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)), 0);
  }
}

// One result per point of `grid`: base_jobs + 7 x id job rows (none for point 1), 3 x id
// samples; as carried by the results, and spooled to `dir` (the results holding references).
std::pair<std::vector<PointResult>, std::vector<PointResult>> carried_and_spooled(
    const TempDir& dir, const Grid& grid, std::size_t base_jobs) {
  std::vector<PointResult> carried, spooled;
  RowSpool spool(dir.file(""), spool_file_name(1, 1));
  for (std::uint64_t id = 0; id < grid.size(); ++id) {
    PointResult result = sample_result(id);
    result.jobs.resize(id == 1 ? 0 : base_jobs + 7 * id);
    for (std::size_t j = 0; j < result.jobs.size(); ++j) {
      result.jobs[j].index = static_cast<std::uint32_t>(j);
      result.jobs[j].jct = static_cast<double>(id * 1000000 + j);
      result.jobs[j].num_gpus = static_cast<int>(j % 17);
    }
    result.samples.resize(3 * id);
    // A column components added, on points 0 and 2 (NaN elsewhere); a sample column on point 2.
    if (id % 2 == 0) {
      RunResult::Column iter{"iter_s", {}};
      for (std::size_t j = 0; j < result.jobs.size(); ++j) iter.values.push_back(id + 0.5 * j);
      result.job_columns.push_back(std::move(iter));
    }
    if (id == 2) result.sample_columns.push_back({"power_w", {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}});
    carried.push_back(result);
    PointResult reference = result;
    reference.rows = spool.append(rows_payload(result), result.jobs.size(), result.samples.size());
    reference.jobs.clear();
    reference.samples.clear();
    for (auto* columns : {&reference.job_columns, &reference.sample_columns})
      for (RunResult::Column& column : *columns) column.values.clear();  // names stay (spool_rows)
    spooled.push_back(reference);
  }
  return {carried, spooled};
}

// The row tables built from spooled rows equal those built from rows carried by the results,
// across chunk boundaries that fall inside points, and around a point without rows.
TEST(SweepResultStore, SpooledRowsWriteTheSameTables) {
  TempDir dir;
  const Grid grid = four_point_grid();
  const auto [carried, spooled] = carried_and_spooled(dir, grid, 50000);
  write_result_file(dir.file("carried.h5"), grid, carried, ResultFileOptions{true, true}, {});
  write_result_file(dir.file("spooled.h5"), grid, spooled, ResultFileOptions{true, true}, {},
                    dir.file(""));
  expect_same_columns(
      dir.file("carried.h5"), dir.file("spooled.h5"),
      {"jobs/point_id", "jobs/job_index", "jobs/jct", "jobs/num_gpus", "jobs/rejected",
       "jobs/iter_s", "timeseries/point_id", "timeseries/busy_gpus", "timeseries/power_w"});
  const auto iter = read_numeric_column(dir.file("spooled.h5"), "jobs/iter_s");
  EXPECT_EQ(iter[1], 0.5);
  EXPECT_TRUE(std::isnan(iter[50000 + 50014]));  // point 3 did not add it
  EXPECT_EQ(iter[50000 + 3], 2.0 + 1.5);
  const auto jct = read_numeric_column(dir.file("spooled.h5"), "jobs/jct");
  ASSERT_EQ(jct.size(), 50000u + 50014u + 50021u);
  EXPECT_EQ(jct[50000], 2000000.0);  // point 1 has no rows: point 2 follows point 0
  EXPECT_EQ(jct.back(), 3000000.0 + 50020.0);
  // Spooled rows without their folder cannot be written (and nothing is left behind).
  EXPECT_THROW(
      write_result_file(dir.file("x.h5"), grid, spooled, ResultFileOptions{true, true}, {}),
      std::runtime_error);
  EXPECT_FALSE(fs::exists(dir.file("x.h5")));
}

// The default final write below 16 ranks: rank 0 writes the skeleton, the other ranks compress
// the row tables' blocks (block i by worker i % workers) and write them in turn.
TEST(SweepResultStore, BlocksWrittenInTurnByOtherRanksGiveTheSameFile) {
  TempDir dir;
  const Grid grid = four_point_grid();
  // ~600,000 job rows: 10 chunks of 65,536, two blocks of /jobs; one of /timeseries.
  const auto [carried, spooled] = carried_and_spooled(dir, grid, 200000);
  const ResultFileOptions options{true, true};
  constexpr int kWorkers = 2;
  std::map<std::size_t, std::vector<std::string>> blocks;
  std::map<std::size_t, int> made_by;
  for (int worker = 0; worker < kWorkers; ++worker) {
    compress_row_blocks(spooled, options, dir.file(""), worker, kWorkers,
                        [&](std::size_t block, std::vector<std::string> chunks) {
                          EXPECT_FALSE(blocks.contains(block)) << "block " << block << " twice";
                          blocks[block] = std::move(chunks);
                          made_by[block] = worker;
                        });
  }
  ASSERT_EQ(blocks.size(), 3u);
  for (const auto& [block, worker] : made_by) EXPECT_EQ(worker, static_cast<int>(block % kWorkers));
  EXPECT_EQ(count_row_blocks(spooled, options), 3u);
  // Rank 0 has only the results' references: no rows folder, nothing read from the spools.
  write_result_skeleton(dir.file("compressed.h5"), grid, spooled, options, {});
  for (const auto& [block, chunks] : blocks)  // in block order, each writer opening the file anew
    write_row_block(dir.file("compressed.h5"), spooled, options, block, chunks);
  write_result_file(dir.file("carried.h5"), grid, carried, options, {});
  expect_same_columns(
      dir.file("carried.h5"), dir.file("compressed.h5"),
      {"jobs/point_id", "jobs/job_index", "jobs/jct", "jobs/rejected", "jobs/iter_s",
       "timeseries/point_id", "timeseries/busy_gpus", "timeseries/power_w"});
  // A block with chunks missing, or one the tables do not have, is refused.
  blocks[1].pop_back();
  EXPECT_THROW(write_row_block(dir.file("compressed.h5"), spooled, options, 1, blocks[1]),
               std::runtime_error);
  EXPECT_THROW(write_row_block(dir.file("compressed.h5"), spooled, options, 3, blocks[0]),
               std::runtime_error);
}

TEST(SweepResultStore, RejectsFilesThatAreNotSweepResults) {
  TempDir dir;
  std::ofstream(dir.file("x.h5")) << "not hdf5";
  EXPECT_THROW(read_result_file_summary(dir.file("x.h5")), InputError);
}

}  // namespace
}  // namespace clustersim::sweep
