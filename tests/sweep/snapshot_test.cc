// `clustersim snapshot`: a result file from a sweep's journal alone (torn tails, duplicate
// records, old and newer journals, output that must not replace the sweep's own files), and the
// escaping of the journal's text records that carries the grid text.
#include "clustersim/sweep/snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "clustersim/error.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/journal.h"
#include "clustersim/sweep/point_result.h"
#include "clustersim/sweep/result_store.h"

namespace clustersim::sweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class SnapshotDir {
 public:
  SnapshotDir() {
    path_ = fs::temp_directory_path() /
            ("clustersim_snapshot_test_" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~SnapshotDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

constexpr const char* kGridText = R"(# a grid with a comment, quotes "and" a backslash \ in it
[cluster]
nodes = 2
[sweep]
"scheduler.policy" = ["fifo", "las"]
"workload.load" = [0.5, 0.9]
seeds = 2
)";

std::map<std::string, std::string> header_fields(const Grid& grid) {
  return {{"schema_version", std::to_string(kResultSchemaVersion)},
          {"grid_sha256", grid.sha256},
          {"points", std::to_string(grid.size())},
          {"save_jobs", "1"},
          {"save_timeseries", "0"},
          {"grid_text", grid.text},
          {"grid_path", "study/grid.toml"},
          {"software_version", "9.9.9"},
          {"git_commit", "abc123"}};
}

PointResult point(std::uint64_t id, double jct_mean) {
  PointResult result;
  result.point_id = id;
  result.rank = 1;
  result.metrics.jobs = 7;
  result.metrics.jct_mean = jct_mean;
  JobRecord job;
  job.index = 0;
  job.jct = jct_mean;
  result.jobs = {job};
  return result;
}

std::string error_of(const SnapshotOptions& options) {
  try {
    write_snapshot(options);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(SweepJournalFields, EscapeMultiLineValuesAndReadOldOnes) {
  std::map<std::string, std::string> fields = {
      {"grid_text", "a = 1\r\nb = \"x\\n\" # not a newline\n\\"}, {"empty", ""}, {"eq", "a=b"}};
  EXPECT_EQ(parse_journal_fields(format_journal_fields(fields)), fields);
  // Every field is one line, whatever its value holds.
  std::string text = format_journal_fields(fields);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  // Journals written before escaping existed read as they did.
  auto old = parse_journal_fields("grid_sha256=ab12\nstart_time=2024-01-01T00:00:00Z\n");
  EXPECT_EQ(old["grid_sha256"], "ab12");
  EXPECT_EQ(old["start_time"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(journal_path_for("out/r.h5"), "out/r.h5.journal");
}

TEST(SweepSnapshot, WritesThePointsDoneSoFarFromTheJournal) {
  SnapshotDir dir;
  Grid grid = parse_grid(kGridText, "study/grid.toml", "study");
  const std::string results = dir.file("r.h5");
  {
    JournalWriter journal(journal_path_for(results), false);
    journal.add(RecordType::kHeader, format_journal_fields(header_fields(grid)));
    journal.add(RecordType::kSession,
                format_journal_fields({{"start_time", "T0"}, {"ranks", "2"}}));
    journal.add(RecordType::kPoint, encode_result(point(5, 50.0)));
    journal.add(RecordType::kPoint, encode_result(point(2, 20.0)));
    journal.add(RecordType::kSession,
                format_journal_fields({{"start_time", "T1"}, {"ranks", "4"}}));
    journal.add(RecordType::kPoint, encode_result(point(5, 99.0)));  // a rerun: the first counts
    journal.add(RecordType::kPoint, encode_result(point(7, 70.0)));
  }
  {
    std::ofstream torn(journal_path_for(results), std::ios::binary | std::ios::app);
    torn.write("\x40\x00\x00\x00garbage", 11);  // a record whose write was cut short
  }
  SnapshotSummary summary = write_snapshot({results, "", false, true});
  EXPECT_EQ(summary.out, dir.file("r.snapshot.h5"));
  EXPECT_EQ(summary.points_done, 3u);
  EXPECT_EQ(summary.points_total, 8u);
  EXPECT_FALSE(fs::exists(results));  // the sweep's own file is not created

  ResultFileSummary file = read_result_file_summary(summary.out);
  EXPECT_EQ(file.schema_version, kResultSchemaVersion);
  EXPECT_EQ(file.grid_sha256, grid.sha256);
  EXPECT_FALSE(file.complete);
  EXPECT_EQ(file.point_ids, (std::vector<std::int64_t>{2, 5, 7}));
  EXPECT_EQ(read_numeric_column(summary.out, "points/jct_mean"),
            (std::vector<double>{20.0, 50.0, 70.0}));
  // Axis columns come from the grid text: points 2, 5, 7 are configs 1, 2, 3.
  EXPECT_EQ(read_numeric_column(summary.out, "points/workload.load"),
            (std::vector<double>{0.9, 0.5, 0.9}));
  EXPECT_EQ(read_numeric_column(summary.out, "jobs/jct"), (std::vector<double>{20.0, 50.0, 70.0}));
  EXPECT_EQ(read_text_attribute(summary.out, "grid_text"), grid.text);
  EXPECT_EQ(read_text_attribute(summary.out, "grid_path"), "study/grid.toml");
  EXPECT_EQ(read_text_attribute(summary.out, "software_version"), "9.9.9");
  EXPECT_EQ(read_text_attribute(summary.out, "start_time"), "T0");
  EXPECT_EQ(read_text_attribute(summary.out, "session_start_time"), "T1");
  EXPECT_EQ(read_text_attribute(summary.out, "snapshot_of"), journal_path_for(results));

  // The journal path names the same sweep; an existing snapshot needs --overwrite.
  EXPECT_THAT(error_of({journal_path_for(results), "", false, true}),
              HasSubstr("already exists: pass --overwrite"));
  EXPECT_EQ(write_snapshot({journal_path_for(results), "", true, true}).points_done, 3u);
  // Never onto the sweep's own files.
  EXPECT_THAT(error_of({results, results, true, true}), HasSubstr("sweep's own files"));
  EXPECT_THAT(error_of({results, journal_path_for(results), true, true}),
              HasSubstr("sweep's own files"));
  EXPECT_THAT(error_of({results, dir.file("missing/s.h5"), true, true}),
              HasSubstr("does not exist"));
}

TEST(SweepSnapshot, RefusesWhatItCannotRead) {
  SnapshotDir dir;
  Grid grid = parse_grid(kGridText, "g.toml", ".");
  const std::string results = dir.file("r.h5");
  EXPECT_THAT(error_of({results, "", false, true}), HasSubstr("no such sweep journal"));

  std::ofstream(results) << "finished";
  EXPECT_THAT(error_of({results, "", false, true}), HasSubstr("has no journal"));

  auto write_header = [&](std::map<std::string, std::string> fields) {
    JournalWriter journal(journal_path_for(results), false);
    journal.add(RecordType::kHeader, format_journal_fields(fields));
  };
  auto old = header_fields(grid);
  old.erase("grid_text");
  write_header(old);
  EXPECT_THAT(error_of({results, "", false, true}), HasSubstr("no grid text"));

  auto newer = header_fields(grid);
  newer["schema_version"] = std::to_string(kResultSchemaVersion + 1);
  write_header(newer);
  EXPECT_THAT(error_of({results, "", false, true}), HasSubstr("newer clustersim"));

  std::ofstream(journal_path_for(results)) << "not a journal";
  EXPECT_THAT(error_of({results, "", false, true}), HasSubstr("not a clustersim sweep journal"));
  EXPECT_FALSE(fs::exists(dir.file("r.snapshot.h5")));
}

}  // namespace
}  // namespace clustersim::sweep
