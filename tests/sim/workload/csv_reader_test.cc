#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/mig.h"
#include "clustersim/workload.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

Workload read_csv_text(const std::string& text, bool skip_invalid = false) {
  std::istringstream in(text);
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  return read_native_csv(in, "t.csv", options);
}

void expect_csv_error(const std::string& text, std::size_t line, const std::string& field) {
  expect_input_error([&] { read_csv_text(text); }, "t.csv", line, field);
}

constexpr const char* kHeader = "job_id,submit_time,num_gpus,duration\n";

TEST(NativeCsvReader, ReadsSampleFileExactly) {
  const std::string path = testing::workload_data("native_good.csv");
  const Workload w = read_trace(path, TraceFormat::kCsv, {});
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.skipped_rows, 0u);
  EXPECT_EQ(w.filtered_rows, 0u);

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "j1");
  EXPECT_EQ(a.submit_time, 0.0);
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.duration, 3600.0);
  EXPECT_EQ(a.model, "resnet50");
  EXPECT_EQ(a.vc, "vcA");
  EXPECT_EQ(a.user, "alice");
  EXPECT_EQ(a.cpus, 4.0);
  EXPECT_EQ(a.mem_gb, 32.5);
  EXPECT_EQ(a.priority, 0);
  EXPECT_EQ(a.gpu_type, "");
  EXPECT_EQ(a.source_line, 4u);

  const JobSpec& b = w.jobs[1];  // rows keep file order (the simulator sorts)
  EXPECT_EQ(b.id, "j2");
  EXPECT_EQ(b.submit_time, 12.5);
  EXPECT_EQ(b.num_gpus, 8);
  EXPECT_EQ(b.duration, 60.25);
  EXPECT_EQ(b.model, "transformer, big");
  EXPECT_EQ(b.cpus, 0.0);
  EXPECT_EQ(b.mem_gb, 0.0);
  EXPECT_EQ(b.priority, -2);
  EXPECT_EQ(b.gpu_type, "V100");
  EXPECT_EQ(b.source_line, 5u);

  const JobSpec& c = w.jobs[2];
  EXPECT_EQ(c.id, "j\"3\"");
  EXPECT_EQ(c.submit_time, 7.0);
  EXPECT_EQ(c.num_gpus, 2);
  EXPECT_EQ(c.duration, 1.0);
  EXPECT_EQ(c.model, "");
  EXPECT_EQ(c.source_line, 7u);
}

TEST(NativeCsvReader, AcceptsCrLfAndOnlyRequiredColumns) {
  const Workload w = read_csv_text("duration,num_gpus,submit_time,job_id\r\n5,4,1e3,x\r\n");
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].id, "x");
  EXPECT_EQ(w.jobs[0].submit_time, 1000.0);
  EXPECT_EQ(w.jobs[0].num_gpus, 4);
  EXPECT_EQ(w.jobs[0].duration, 5.0);
}

TEST(NativeCsvReader, HeaderErrors) {
  expect_csv_error("job_id,submit_time,num_gpus,duration,colour\n1,0,1,1\n", 1, "colour");
  expect_csv_error("job_id,submit_time,num_gpus\n1,0,1\n", 1, "duration");
  expect_csv_error("job_id,job_id,submit_time,num_gpus,duration\n", 1, "job_id");
  expect_csv_error("# only a comment\n\njob_id,submit_time,num_gpus,duration,bad\n", 3, "bad");
  expect_csv_error("", 0, "");
  expect_csv_error(kHeader, 0, "");  // header only: no jobs
}

TEST(NativeCsvReader, RowErrorsNameLineAndField) {
  const std::string h = kHeader;
  expect_csv_error(h + "a,0,1,10\nb,abc,1,10\n", 3, "submit_time");
  expect_csv_error(h + "a,-1,1,10\n", 2, "submit_time");
  expect_csv_error(h + "a,0,0,10\n", 2, "num_gpus");
  expect_csv_error(h + "a,0,1.5,10\n", 2, "num_gpus");
  expect_csv_error(h + "a,0,1,0\n", 2, "duration");
  expect_csv_error(h + "a,0,1,nan\n", 2, "duration");
  expect_csv_error(h + "a,0,1,inf\n", 2, "duration");
  expect_csv_error(h + "a,0,1,10s\n", 2, "duration");
  expect_csv_error(h + "a,0,1\n", 2, "duration");    // missing field
  expect_csv_error(h + "a,0,,10\n", 2, "num_gpus");  // missing value
  expect_csv_error(h + ",0,1,10\n", 2, "job_id");
  expect_csv_error(h + "a,0,1,10,extra\n", 2, "");
  expect_csv_error(h + "\"a,0,1,10\n", 2, "");                          // unterminated quote
  expect_csv_error(h + "a,0,1,10\nb,0,1,10\na,5,1,10\n", 4, "job_id");  // duplicate id
  expect_csv_error(h + "a,0,99999999999,10\n", 2, "num_gpus");
  expect_csv_error("job_id,submit_time,num_gpus,duration,cpus\na,0,1,10,-4\n", 2, "cpus");
  expect_csv_error("job_id,submit_time,num_gpus,duration,priority\na,0,1,10,high\n", 2, "priority");
}

TEST(NativeCsvReader, ReadsCpuOnlyAndFractionalJobs) {
  const Workload w = read_csv_text(
      "job_id,submit_time,num_gpus,duration,cpus\nc,0,0,10,4\nh,0,0.5,10,\nt,0,0.125,10,\n"
      "w,0,2,10,\n");
  ASSERT_EQ(w.jobs.size(), 4u);
  EXPECT_EQ(w.jobs[0].num_gpus, 0);
  EXPECT_EQ(w.jobs[0].cpus, 4.0);
  EXPECT_EQ(w.jobs[1].num_gpus, 1);
  EXPECT_EQ(w.jobs[1].gpu_milli, 500);
  EXPECT_EQ(w.jobs[2].gpu_milli, 125);
  EXPECT_EQ(w.jobs[3].num_gpus, 2);
  EXPECT_EQ(w.jobs[3].gpu_milli, 1000);
  const std::string h = kHeader;
  expect_csv_error(h + "a,0,0.0005,10\n", 2, "num_gpus");  // not a whole thousandth
  expect_csv_error(h + "a,0,2.5,10\n", 2, "num_gpus");
  expect_csv_error("job_id,submit_time,num_gpus,duration,min_gpus\na,0,0.5,10,1\n", 2,
                   "min_gpus");  // a share cannot be elastic
}

TEST(NativeCsvReader, ReadsGpuMemoryAndMigProfiles) {
  const Workload w = read_csv_text(
      "job_id,submit_time,num_gpus,duration,gpu_mem_gb,mig_profile\n"
      "s,0,0.5,10,12.5,\nm,0,1,10,,3g.40gb\nw,0,2,10,,\n");
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].gpu_mem_gb, 12.5);
  EXPECT_EQ(w.jobs[0].mig_profile, 0);
  EXPECT_EQ(w.jobs[1].mig_profile, mig_profile_id("3g.40gb"));
  EXPECT_EQ(w.jobs[1].gpu_mem_gb, 0.0);
  EXPECT_EQ(w.jobs[2].gpu_mem_gb, 0.0);
  const std::string h = "job_id,submit_time,num_gpus,duration,gpu_mem_gb,mig_profile\n";
  expect_csv_error(h + "a,0,1,10,-2,\n", 2, "gpu_mem_gb");
  expect_csv_error(h + "a,0,1,10,,3g.30gb\n", 2, "mig_profile");  // no such profile
  expect_csv_error(h + "a,0,2,10,,1g.10gb\n", 2, "mig_profile");  // a slice is one GPU's
  expect_csv_error(h + "a,0,0.5,10,,1g.10gb\n", 2, "mig_profile");
}

TEST(NativeCsvReader, SkipInvalidCountsAndKeepsReasons) {
  const std::string h = kHeader;
  const Workload w = read_csv_text(h + "a,0,1,10\nb,x,1,10\nc,0,0,10\nd,1,2,20\na,0,1,10\n", true);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[0].id, "a");
  EXPECT_EQ(w.jobs[1].id, "d");
  EXPECT_EQ(w.skipped_rows, 3u);
  ASSERT_EQ(w.skip_reasons.size(), 3u);
  EXPECT_NE(w.skip_reasons[0].find("t.csv:3"), std::string::npos) << w.skip_reasons[0];
  EXPECT_NE(w.skip_reasons[2].find("duplicate"), std::string::npos) << w.skip_reasons[2];
}

TEST(NativeCsvReader, SkipReasonsAreCapped) {
  std::string text = kHeader;
  for (int i = 0; i < 50; ++i) text += "bad" + std::to_string(i) + ",0,0,1\n";
  text += "ok,0,1,1\n";
  const Workload w = read_csv_text(text, true);
  EXPECT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.skipped_rows, 50u);
  EXPECT_EQ(w.skip_reasons.size(), 20u);
}

TEST(NativeCsvReader, AllRowsSkippedIsNoJobs) {
  expect_input_error([] { read_csv_text(std::string(kHeader) + "a,0,0,1\n", true); }, "t.csv", 0,
                     "");
}

}  // namespace
}  // namespace clustersim
