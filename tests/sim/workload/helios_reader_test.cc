#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

const std::string kHeliosHeader =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
    "queue\n";

std::string row(const std::string& id, const std::string& gpus, const std::string& state,
                const std::string& submit, const std::string& duration) {
  return id + ",u,vc," + gpus + ",4,1," + state + "," + submit + ",,," + duration + ",0\n";
}

Workload read_helios_text(const std::string& text, bool skip_invalid = false) {
  std::istringstream in(text);
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  return read_helios(in, "log.csv", options);
}

void expect_helios_error(const std::string& text, std::size_t line, const std::string& field) {
  expect_input_error([&] { read_helios_text(text); }, "log.csv", line, field);
}

TEST(HeliosReader, ReadsSampleFileExactly) {
  const Workload w =
      read_trace(testing::workload_data("helios_good.csv"), TraceFormat::kHelios, {});
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.filtered_rows, 1u);  // h3 is a CPU job

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "h1");
  EXPECT_EQ(a.user, "u1");
  EXPECT_EQ(a.vc, "vc1");
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.cpus, 8.0);
  EXPECT_EQ(a.submit_time, 1583020800.0);  // 2020-03-01 00:00:00 UTC
  EXPECT_EQ(a.duration, 3600.0);
  EXPECT_EQ(a.source_line, 2u);

  const JobSpec& b = w.jobs[1];
  EXPECT_EQ(b.id, "h2");
  EXPECT_EQ(b.num_gpus, 16);
  EXPECT_EQ(b.submit_time, 1583020799.0);  // leap day 2020-02-29 23:59:59
  EXPECT_EQ(b.duration, 30.0);

  const JobSpec& c = w.jobs[2];
  EXPECT_EQ(c.id, "h4");
  EXPECT_EQ(c.submit_time, 1609504245.0);  // 2021-01-01 12:30:45
  EXPECT_EQ(c.source_line, 5u);
}

TEST(HeliosReader, RowErrorsNameLineAndField) {
  const std::string ok = row("a", "1", "COMPLETED", "2020-03-01 00:00:00", "10");
  expect_helios_error(kHeliosHeader + ok + row("b", "1", "RUNNING", "2020-03-01 00:00:00", "10"), 3,
                      "state");
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "2019-02-29 00:00:00", "10"), 2,
                      "submit_time");  // not a leap year
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "2020-13-01 00:00:00", "10"), 2,
                      "submit_time");
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "2020-03-01 24:00:00", "10"), 2,
                      "submit_time");
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "2020-03-01T00:00:00", "10"), 2,
                      "submit_time");
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "1969-12-31 23:59:59", "10"), 2,
                      "submit_time");
  expect_helios_error(kHeliosHeader + row("b", "x", "COMPLETED", "2020-03-01 00:00:00", "10"), 2,
                      "gpu_num");
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "2020-03-01 00:00:00", "0"), 2,
                      "duration");
  expect_helios_error(kHeliosHeader + row("b", "1", "COMPLETED", "2020-03-01 00:00:00", "-3"), 2,
                      "duration");
  expect_helios_error(kHeliosHeader + ok + ok, 3, "job_id");
  expect_helios_error("job_id,user,vc,gpu_num,cpu_num,state,submit_time\n", 1, "duration");
}

// Issue 13: a row whose times contradict each other was accepted silently.
TEST(HeliosReader, TimesOutOfOrderAreInvalid) {
  const auto timed = [](const std::string& id, const std::string& submit, const std::string& start,
                        const std::string& end) {
    return id + ",u,vc,1,4,1,COMPLETED," + submit + "," + start + "," + end + ",60,0\n";
  };
  const std::string t0 = "2020-03-01 00:00:00", t1 = "2020-03-01 00:01:00",
                    t2 = "2020-03-01 00:02:00";
  EXPECT_EQ(read_helios_text(kHeliosHeader + timed("a", t0, t1, t2)).jobs.size(), 1u);
  expect_helios_error(kHeliosHeader + timed("a", t0, t1, t2) + timed("b", t2, t1, t2), 3,
                      "start_time");
  expect_helios_error(kHeliosHeader + timed("b", t2, "", t1), 2,
                      "end_time");  // submitted after it ended
  expect_helios_error(kHeliosHeader + timed("b", t0, t2, t1), 2,
                      "end_time");  // ends before it starts
  expect_helios_error(kHeliosHeader + timed("b", t0, "yesterday", t1), 2, "start_time");
  // With skip_invalid such rows are counted skips.
  const Workload w =
      read_helios_text(kHeliosHeader + timed("a", t0, t1, t2) + timed("b", t2, "", t1), true);
  EXPECT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.skipped_rows, 1u);
}

TEST(HeliosReader, SkipInvalidCounts) {
  const Workload w =
      read_helios_text(kHeliosHeader + row("a", "1", "COMPLETED", "2020-03-01 00:00:00", "10") +
                           row("b", "1", "PENDING", "2020-03-01 00:00:00", "10") +
                           row("c", "0", "COMPLETED", "2020-03-01 00:00:00", "0") +
                           row("d", "2", "TIMEOUT", "2020-03-01 00:00:00", "0"),
                       true);
  EXPECT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.skipped_rows, 2u);
  EXPECT_EQ(w.filtered_rows, 1u);
}

}  // namespace
}  // namespace clustersim
