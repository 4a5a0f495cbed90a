// `clustersim merge`: shards' result files join into the file an unsharded run writes; files that
// do not belong together, and missing or duplicate points, are refused with nothing written.
#include "clustersim/sweep/merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "clustersim/error.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/output_lock.h"
#include "clustersim/sweep/result_store.h"
#include "clustersim/sweep/shard.h"
#include "clustersim/sweep/sweep_command.h"
#include "temp_dir.h"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using sweep::testing::TempDir;

constexpr const char* kGridText = R"(
[cluster]
nodes = 2
[sweep]
"scheduler.policy" = ["fifo", "las", "tiresias"]
"cluster.nodes" = [2, 4]
seeds = 2
)";

// A result whose every value depends on its point (and whose jobs and samples are numbered), so
// that a row in the wrong place shows.
PointResult fake_result(std::uint64_t id) {
  PointResult result;
  result.point_id = id;
  result.rank = static_cast<int>(id % 3);
  result.elapsed_s = 0.5 + static_cast<double>(id);
  result.metrics.jobs = id % 4 + 1;
  result.metrics.jct_mean = 100.25 * static_cast<double>(id + 1);
  result.metrics.gpu_util = 1.0 / static_cast<double>(id + 2);
  result.metrics.preemptions = static_cast<std::int64_t>(id) * 7;
  for (std::size_t j = 0; j < result.metrics.jobs; ++j) {
    JobRecord job;
    job.index = static_cast<std::int32_t>(j);
    job.jct = 10.0 * static_cast<double>(id) + static_cast<double>(j);
    job.num_gpus = static_cast<int>(j + 1);
    result.jobs.push_back(job);
  }
  Sample sample;
  sample.time = 600.0 * static_cast<double>(id);
  sample.busy_gpus = static_cast<int>(id);
  result.samples = {sample, sample};
  // Columns components add, on some points only (point 4's in one shard of three alone): a
  // shard none of whose points has a column lacks it, and merge fills it with NaN as the
  // unsharded run does.
  if (id % 3 == 1) {
    RunResult::Column energy{"energy_kwh", {}};
    for (std::size_t j = 0; j < result.jobs.size(); ++j) energy.values.push_back(0.5 * id + j);
    result.job_columns.push_back(std::move(energy));
    result.sample_columns.push_back({"power_w", {1000.0 + id, 2000.0 + id}});
  }
  if (id == 4) {
    // Added after energy_kwh, but declared first (failure_classes is a mechanism): the file
    // orders the columns by their declarations.
    result.job_columns.push_back({"ettr", std::vector<double>(result.jobs.size(), 0.75)});
  }
  if (id == 3) result.error = "simulation failed: test";
  return result;
}

// Equal values, NaN equal to NaN.
bool same_column(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

Provenance run_provenance(const std::string& shard, std::int64_t ranks, const std::string& start,
                          const std::string& job) {
  Provenance provenance;
  provenance.text["software_version"] = "0.1.0";
  provenance.text["git_commit"] = "abc";
  provenance.text["start_time"] = start;
  provenance.text["session_start_time"] = start;
  provenance.text["end_time"] = start;
  provenance.text["hostname"] = "node-" + job;
  provenance.text["slurm_job_id"] = job;
  provenance.text["command_line"] = "clustersim sweep g.toml --shard " + shard;
  provenance.text["threads_per_rank"] = "2";
  provenance.text["shard"] = shard;
  provenance.integers["ranks"] = ranks;
  provenance.integers["threads"] = 2 * ranks;
  provenance.integers["sessions"] = 1;
  return provenance;
}

class SweepMerge : public ::testing::Test {
 protected:
  SweepMerge() : grid_(parse_grid(kGridText, "g.toml", ".")) {}

  // Writes the points of shard k of n (by a cost that grows with the point_id) to a file.
  std::string write_shard(std::size_t k, std::size_t n, const Grid& grid,
                          ResultFileOptions options = {true, true}) {
    std::vector<double> costs;
    for (std::uint64_t id = 0; id < grid.size(); ++id) costs.push_back(1.0 + id % 5);
    auto split = assign_shards(costs, n);
    std::vector<PointResult> results;
    for (std::uint64_t id = 0; id < grid.size(); ++id)
      if (split[id] == k) results.push_back(fake_result(id));
    Provenance provenance =
        run_provenance(ShardSpec{k, n}.text(), static_cast<std::int64_t>(k + 1),
                       "2030-01-0" + std::to_string(k + 1) + "T00:00:00Z", std::to_string(100 + k));
    provenance.integers["shard_points"] = static_cast<std::int64_t>(results.size());
    const std::string path = dir_.file("s" + std::to_string(k) + "of" + std::to_string(n) + ".h5");
    write_result_file(path, grid, results, options, provenance);
    return path;
  }

  std::string write_unsharded() {
    std::vector<PointResult> results;
    for (std::uint64_t id = 0; id < grid_.size(); ++id) results.push_back(fake_result(id));
    Provenance provenance = run_provenance("", 2, "2030-02-01T00:00:00Z", "7");
    provenance.integers["shard_points"] = static_cast<std::int64_t>(grid_.size());
    const std::string path = dir_.file("full.h5");
    write_result_file(path, grid_, results, ResultFileOptions{true, true}, provenance);
    return path;
  }

  std::string refusal(const MergeOptions& options) {
    try {
      merge_result_files(options);
    } catch (const InputError& error) {
      EXPECT_FALSE(fs::exists(options.out)) << "a refused merge wrote " << options.out;
      EXPECT_FALSE(fs::exists(options.out + ".tmp"));
      return error.what();
    }
    return "merged without error";
  }

  TempDir dir_;
  Grid grid_;
};

TEST_F(SweepMerge, ShardsMergeIntoTheFileOfAnUnshardedRun) {
  const std::string full = write_unsharded();
  std::vector<std::string> shards;
  for (std::size_t k : {2u, 0u, 1u}) shards.push_back(write_shard(k, 3, grid_));  // any order
  MergeOptions options{dir_.file("merged.h5"), shards};
  MergeReport report = merge_result_files(options);
  EXPECT_EQ(report.points_total, grid_.size());
  EXPECT_EQ(report.points_merged, grid_.size());
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.warnings.empty());

  const std::string& merged = options.out;
  for (const char* column :
       {"points/point_id", "points/config_id", "points/replicate", "points/seed",
        "points/cluster.nodes", "points/jobs", "points/jct_mean", "points/gpu_util",
        "points/preemptions", "points/rank", "points/elapsed_s", "jobs/point_id", "jobs/job_index",
        "jobs/jct", "jobs/num_gpus", "timeseries/point_id", "timeseries/time",
        "timeseries/busy_gpus"}) {
    EXPECT_EQ(read_numeric_column(merged, column), read_numeric_column(full, column)) << column;
  }
  for (const char* column : {"jobs/ettr", "jobs/energy_kwh", "timeseries/power_w"}) {
    const std::vector<double> values = read_numeric_column(merged, column);
    EXPECT_TRUE(same_column(values, read_numeric_column(full, column))) << column;
    EXPECT_TRUE(std::isnan(values[0])) << column << ": point 0 did not add it";
  }
  // Only one shard has ettr: the others' files lack it.
  std::size_t with_ettr = 0;
  for (const std::string& shard : shards) {
    try {
      read_numeric_column(shard, "jobs/ettr");
      ++with_ettr;
    } catch (const std::exception&) {
    }
  }
  EXPECT_EQ(with_ettr, 1u);
  Attributes a = read_root_attributes(full), b = read_root_attributes(merged);
  // What may differ: where and when the runs ran (sweep/README.md, "Merging shards").
  const std::set<std::string> provenance = {
      "start_time", "session_start_time", "end_time",     "sessions",     "ranks",
      "threads",    "threads_per_rank",   "hostname",     "slurm_job_id", "command_line",
      "grid_path",  "mpi_version",        "hdf5_version", "tbb_version",  "merged_from"};
  for (const auto& [name, value] : a) {
    if (provenance.count(name)) continue;
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_EQ(b[name], value) << name;
  }
  for (const auto& [name, value] : b) EXPECT_TRUE(a.count(name) || provenance.count(name)) << name;
  EXPECT_EQ(b["complete"], AttributeValue(std::int64_t{1}));
  EXPECT_EQ(b["shard"], AttributeValue(std::string()));
  // Provenance combined: earliest start, latest end, ranks summed, job ids listed.
  EXPECT_EQ(b["start_time"], AttributeValue(std::string("2030-01-01T00:00:00Z")));
  EXPECT_EQ(b["end_time"], AttributeValue(std::string("2030-01-03T00:00:00Z")));
  EXPECT_EQ(b["ranks"], AttributeValue(std::int64_t{1 + 2 + 3}));
  EXPECT_EQ(b["sessions"], AttributeValue(std::int64_t{3}));
  EXPECT_EQ(b["slurm_job_id"], AttributeValue(std::string("102,100,101")));
  EXPECT_EQ(b["threads_per_rank"], AttributeValue(std::string("2,2,2")));
  EXPECT_THAT(std::get<std::string>(b["merged_from"]), HasSubstr("\"shard\":\"2/3\""));
  EXPECT_THAT(std::get<std::string>(b["command_line"]), HasSubstr("--shard 1/3"));
}

// Every merged point's status, whichever shard holds it: what makes `clustersim merge` exit 3 as
// the one-job sweep does (fake_result fails point 3 only).
TEST_F(SweepMerge, ReportsEveryPointsStatus) {
  std::vector<std::string> shards;
  for (std::size_t k = 0; k < 3; ++k) shards.push_back(write_shard(k, 3, grid_));
  MergeReport report = merge_result_files(MergeOptions{dir_.file("merged.h5"), shards});
  ASSERT_EQ(report.status.size(), grid_.size());
  std::vector<std::string> failed;
  for (const std::string& status : report.status)
    if (status != "ok") failed.push_back(status);
  EXPECT_EQ(failed, std::vector<std::string>{"simulation failed: test"});
  EXPECT_EQ(summarize_failures(report.status),
            "sweep: 1 of " + std::to_string(grid_.size()) +
                " points failed (status column of /points): 1 x simulation failed: test");
}

TEST_F(SweepMerge, WorksWithOneShardAndWithoutOptionalTables) {
  std::string only = write_shard(0, 1, grid_, ResultFileOptions{false, false});
  MergeOptions options{dir_.file("merged.h5"), {only}};
  EXPECT_EQ(merge_result_files(options).points_merged, grid_.size());
  EXPECT_EQ(read_numeric_column(options.out, "points/jct_mean"),
            read_numeric_column(only, "points/jct_mean"));
}

TEST_F(SweepMerge, TakesSnapshotsOfShardsStillRunning) {
  std::string s0 = write_shard(0, 2, grid_), s1 = write_shard(1, 2, grid_);
  // As `clustersim snapshot` writes them (its own provenance attributes).
  Attributes attributes = read_root_attributes(s1);
  attributes["snapshot"] = std::int64_t{1};
  attributes["snapshot_of"] = s1 + ".journal";
  attributes["snapshot_time"] = std::string("2030-03-01T00:00:00Z");
  const std::string snapshot = dir_.file("s1.snapshot.h5");
  write_merged_result_file(snapshot, {s1}, attributes);
  MergeOptions options{dir_.file("merged.h5"), {s0, snapshot}};
  EXPECT_EQ(merge_result_files(options).points_merged, grid_.size());
  Attributes merged = read_root_attributes(options.out);
  EXPECT_EQ(merged["snapshot"], AttributeValue(std::int64_t{1}));
  EXPECT_EQ(merged["snapshot_of"], AttributeValue(s1 + ".journal"));
}

TEST_F(SweepMerge, ReportsMissingPointsAndWhichShardsLackThem) {
  std::string s0 = write_shard(0, 4, grid_), s2 = write_shard(2, 4, grid_);
  MergeOptions options{dir_.file("merged.h5"), {s0, s2}};
  std::string message = refusal(options);
  EXPECT_THAT(message, HasSubstr("points are in no input"));
  EXPECT_THAT(message, HasSubstr("no input is shard 1, 3 of 4"));
  EXPECT_THAT(message, HasSubstr("--allow-missing"));

  options.allow_missing = true;
  MergeReport report = merge_result_files(options);
  EXPECT_EQ(report.points_merged + report.missing.size(), grid_.size());
  EXPECT_FALSE(report.missing.empty());
  Attributes merged = read_root_attributes(options.out);
  EXPECT_EQ(merged["complete"], AttributeValue(std::int64_t{0}));
  EXPECT_EQ(merged["points_done"], AttributeValue(static_cast<std::int64_t>(report.points_merged)));
}

TEST_F(SweepMerge, PointsThatAShardHasNotFinishedAreNamed) {
  std::string s0 = write_shard(0, 2, grid_), s1 = write_shard(1, 2, grid_);
  // Shard 1 claims one point more than it holds, as a file saved on a stop signal does.
  Attributes attributes = read_root_attributes(s1);
  attributes["shard_points"] = std::get<std::int64_t>(attributes["shard_points"]) + 1;
  attributes["points_total"] = std::get<std::int64_t>(attributes["points_total"]) + 1;
  const std::string partial = dir_.file("partial.h5");
  write_merged_result_file(partial, {s1}, attributes);
  Attributes a0 = read_root_attributes(s0);
  a0["points_total"] = attributes["points_total"];
  const std::string s0b = dir_.file("s0b.h5");
  write_merged_result_file(s0b, {s0}, a0);
  std::ofstream(partial + ".journal") << "x";
  std::string message = refusal({dir_.file("merged.h5"), {s0b, partial}});
  EXPECT_THAT(message, HasSubstr("1 of " + std::to_string(grid_.size() + 1) + " points"));
  EXPECT_THAT(message, HasSubstr("(shard 1/2) holds"));
  EXPECT_THAT(message, HasSubstr("--shard 1/2 --resume"));
}

TEST_F(SweepMerge, RefusesDuplicatePoints) {
  std::string s0 = write_shard(0, 2, grid_), s1 = write_shard(1, 2, grid_);
  const std::string copy = dir_.file("copy.h5");
  fs::copy_file(s1, copy);
  std::string message = refusal({dir_.file("merged.h5"), {s0, s1, copy}});
  EXPECT_THAT(message, HasSubstr("points are in more than one input"));
  EXPECT_THAT(message, HasSubstr("is in both " + s1 + " and " + copy));
  // The same file twice, and a split from another shard count overlapping this one.
  EXPECT_THAT(refusal({dir_.file("merged.h5"), {s0, s1, s1}}), HasSubstr("is given twice"));
  std::string other = write_shard(0, 3, grid_);
  EXPECT_THAT(refusal({dir_.file("merged.h5"), {s0, s1, other}}), HasSubstr("more than one input"));
}

TEST_F(SweepMerge, RefusesFilesOfAnotherGrid) {
  std::string s0 = write_shard(0, 2, grid_);
  Grid other = parse_grid(std::string(kGridText) + "seed = 2\n", "g.toml", ".");
  fs::rename(s0, dir_.file("a.h5"));
  std::string s1 = write_shard(1, 2, other);
  std::string message = refusal({dir_.file("merged.h5"), {dir_.file("a.h5"), s1}});
  EXPECT_THAT(message, HasSubstr("is from another grid"));
  EXPECT_THAT(message, ::testing::StartsWith(s1 + ": "));
}

TEST_F(SweepMerge, RefusesAnotherSchemaVersion) {
  std::string s0 = write_shard(0, 2, grid_), s1 = write_shard(1, 2, grid_);
  Attributes attributes = read_root_attributes(s1);
  attributes["schema_version"] = kResultSchemaVersion + 1;
  const std::string newer = dir_.file("newer.h5");
  write_merged_result_file(newer, {s1}, attributes);
  std::string message = refusal({dir_.file("merged.h5"), {s0, newer}});
  EXPECT_THAT(message, HasSubstr("schema version " + std::to_string(kResultSchemaVersion + 1)));
}

TEST_F(SweepMerge, RefusesFilesThatDisagreeOnWhatMustAgree) {
  std::string s0 = write_shard(0, 2, grid_);
  std::string s1 = write_shard(1, 2, grid_, ResultFileOptions{false, true});
  EXPECT_THAT(refusal({dir_.file("merged.h5"), {s0, s1}}), HasSubstr("attribute 'save_jobs'"));
  // Any attribute merge has no rule for must agree: a future one is never silently mixed.
  std::string s1b = write_shard(1, 2, grid_);
  Attributes attributes = read_root_attributes(s1b);
  attributes["git_commit"] = std::string("other");
  const std::string changed = dir_.file("changed.h5");
  write_merged_result_file(changed, {s1b}, attributes);
  EXPECT_THAT(refusal({dir_.file("merged.h5"), {s0, changed}}),
              HasSubstr("attribute 'git_commit' is 'other', but 'abc'"));
}

TEST_F(SweepMerge, ProtectsTheOutputAndTheInputs) {
  std::string s0 = write_shard(0, 1, grid_);
  try {
    merge_result_files({s0, {s0}});
    FAIL();
  } catch (const InputError& error) {
    EXPECT_THAT(error.what(), HasSubstr("is also an input"));
  }
  EXPECT_EQ(read_numeric_column(s0, "points/point_id").size(), grid_.size());  // untouched
  std::ofstream(dir_.file("exists.h5")) << "x";
  try {
    merge_result_files({dir_.file("exists.h5"), {s0}});
    FAIL();
  } catch (const InputError& error) {
    EXPECT_THAT(error.what(), HasSubstr("--overwrite"));
  }
  MergeOptions overwrite{dir_.file("exists.h5"), {s0}, true};
  EXPECT_EQ(merge_result_files(overwrite).points_merged, grid_.size());
  EXPECT_THAT(refusal({dir_.file("m.h5"), {dir_.file("nothing.h5")}}), HasSubstr("no such file"));
  std::ofstream(dir_.file("text.h5")) << "not hdf5";
  EXPECT_THAT(refusal({dir_.file("m.h5"), {s0, dir_.file("text.h5")}}),
              HasSubstr("cannot open as an HDF5 file"));
  EXPECT_THAT(refusal({dir_.file("no/such/dir/m.h5"), {s0}}), HasSubstr("does not exist"));
}

TEST_F(SweepMerge, RefusedWhileAnotherWriterHoldsTheOutput) {
  std::string s0 = write_shard(0, 1, grid_);
  const std::string out = dir_.file("merged.h5");
  {
    OutputLock sweep_writing(out, "host h, pid 1, started t: clustersim sweep");
    EXPECT_THROW(merge_result_files({out, {s0}}), OutputBusyError);
    EXPECT_FALSE(fs::exists(out));
  }
  EXPECT_EQ(merge_result_files({out, {s0}}).points_merged, grid_.size());
  EXPECT_FALSE(fs::exists(lock_path_for(out)));  // released, and its file removed
}

TEST(SweepMergeFormat, IdRangesAreShort) {
  EXPECT_EQ(format_id_ranges({}), "");
  EXPECT_EQ(format_id_ranges({3}), "3");
  EXPECT_EQ(format_id_ranges({1, 2, 3, 7, 9, 10}), "1-3, 7, 9-10");
  EXPECT_EQ(format_id_ranges({1, 3, 5, 7}, 2), "1, 3, ... (4 in all)");
}

}  // namespace
}  // namespace clustersim::sweep
