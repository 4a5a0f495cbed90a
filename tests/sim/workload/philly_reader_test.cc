#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

Workload read_philly_text(const std::string& text, bool skip_invalid = false) {
  std::istringstream in(text);
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  return read_philly(in, "jobs.json", options);
}

void expect_philly_error(const std::string& text, std::size_t line, const std::string& field) {
  expect_input_error([&] { read_philly_text(text); }, "jobs.json", line, field);
}

// One job on one line, with fields that a test may replace.
std::string job(const std::string& id = "\"j\"",
                const std::string& submitted = "\"2017-10-03 00:00:00\"",
                const std::string& start = "\"2017-10-03 00:01:00\"",
                const std::string& end = "\"2017-10-03 00:02:00\"",
                const std::string& gpus = "[\"gpu0\"]") {
  return "{\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": " + id + ", \"user\": \"u\", " +
         "\"submitted_time\": " + submitted + ", \"attempts\": [{\"start_time\": " + start +
         ", \"end_time\": " + end + ", \"detail\": [{\"ip\": \"m\", \"gpus\": " + gpus + "}]}]}";
}

TEST(PhillyReader, ReadsSampleFileExactly) {
  const Workload w =
      read_trace(testing::workload_data("philly_good.json"), TraceFormat::kPhilly, {});
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.filtered_rows, 2u);  // no attempts; an attempt that never ended

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "application_1");
  EXPECT_EQ(a.vc, "6214e9");
  EXPECT_EQ(a.user, "u1");
  EXPECT_EQ(a.num_gpus, 4);                // two hosts with two GPUs each
  EXPECT_EQ(a.submit_time, 1506998350.0);  // 2017-10-03 02:39:10 UTC
  EXPECT_EQ(a.duration, 3600.0);
  EXPECT_EQ(a.source_line, 2u);

  const JobSpec& b = w.jobs[1];
  EXPECT_EQ(b.id, "application_3");
  EXPECT_EQ(b.num_gpus, 1);            // GPUs of the first attempt
  EXPECT_EQ(b.duration, 60.0 + 30.0);  // sum over attempts
  EXPECT_EQ(b.submit_time, 1507161600.0);
  EXPECT_EQ(b.source_line, 9u);
}

TEST(PhillyReader, ErrorsNameTheJobLineAndPath) {
  const std::string first = "[\n" + job("\"a\"") + ",\n";
  expect_philly_error(first + job("\"a\"") + "\n]", 3, "jobs[1].jobid");  // duplicate
  expect_philly_error(first + job("\"b\"", "\"2017-13-03 00:00:00\"") + "\n]", 3,
                      "jobs[1].submitted_time");
  expect_philly_error(first + job("\"b\"", "17") + "\n]", 3, "jobs[1].submitted_time");
  expect_philly_error(
      first + job("\"b\"", "\"2017-10-03 00:00:00\"", "\"2017-10-03 00:05:00\"") + "\n]", 3,
      "jobs[1].attempts[0].end_time");  // ends before it starts
  expect_philly_error(first +
                          job("\"b\"", "\"2017-10-03 00:00:00\"", "\"2017-10-03 00:01:00\"",
                              "\"2017-10-03 00:02:00\"", "[]") +
                          "\n]",
                      3, "jobs[1].attempts[0].detail");  // no GPUs
  expect_philly_error(first +
                          job("\"b\"", "\"2017-10-03 00:00:00\"", "\"2017-10-03 00:01:00\"",
                              "\"2017-10-03 00:01:00\"") +
                          "\n]",
                      3, "jobs[1].attempts");  // 0 s in total
  // Issue 13: an attempt before the job's submission was accepted silently.
  expect_philly_error(
      first + job("\"b\"", "\"2017-10-03 00:03:00\"", "\"2017-10-03 00:01:00\"") + "\n]", 3,
      "jobs[1].attempts[0].start_time");  // submitted after the attempt ended
  expect_philly_error(first + job("7") + "\n]", 3, "jobs[1].jobid");
  expect_philly_error(first + "42\n]", 3, "jobs[1]");
  expect_philly_error(first + "{\"jobid\": \"c\", \"submitted_time\": null}\n]", 3,
                      "jobs[1].attempts");
}

TEST(PhillyReader, SyntaxErrorsReportLine) {
  expect_philly_error("[\n" + job() + ",\n{\"jobid\": \n", 4, "");  // truncated
  expect_philly_error("", 1, "");
  expect_philly_error("{\"jobs\": []}", 1, "");  // not a list
  expect_philly_error("[]", 0, "");              // no jobs
  // Found by fuzz_philly: a number too large for a double is nlohmann's out_of_range, not a
  // parse_error; it must still be an InputError, at the number's line.
  expect_philly_error("[44446440000000E500]", 1, "");
  expect_philly_error("[\n" + job() + ",\n  {\"jobid\": 1e999}\n]", 3, "");
  try {
    read_philly_text("[\n  {\"a\": tru}\n]");
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(error.message().find("column"), std::string::npos) << error.what();
  }
}

TEST(PhillyReader, NullTimesAreFilteredAndSkipInvalidCounts) {
  const Workload w = read_philly_text(std::string("[") + job("\"a\"") + "," + job("\"b\"", "null") +
                                          "," + job("\"c\"", "\"2017-10-03 00:00:00\"", "null") +
                                          "," + job("\"d\"", "\"bad\"") + "]",
                                      true);
  EXPECT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.filtered_rows, 2u);
  EXPECT_EQ(w.skipped_rows, 1u);
}

TEST(PhillyReader, StringsWithBracketsDoNotConfuseLineNumbers) {
  const std::string tricky = job("\"x[\\\"{,\"") + ",\n" + job("\"x[\\\"{,\"");
  expect_philly_error("[\n" + tricky + "\n]", 3, "jobs[1].jobid");
}

}  // namespace
}  // namespace clustersim
