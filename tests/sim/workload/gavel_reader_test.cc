#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload/internal/gavel_throughputs.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

ReaderOptions gavel_options(bool skip_invalid = false) {
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  options.gavel_throughputs_path = testing::workload_data("gavel_throughputs.json");
  return options;
}

Workload read_gavel_text(const std::string& text, bool skip_invalid = false) {
  std::istringstream in(text);
  return read_gavel(in, "t.trace", gavel_options(skip_invalid));
}

void expect_gavel_error(const std::string& text, std::size_t line, const std::string& field) {
  expect_input_error([&] { read_gavel_text(text); }, "t.trace", line, field);
}

const std::string kGoodRow = "ResNet-18 (batch size 64)\tcmd\t-n\t1\t1000\t0.000000\t1\n";

TEST(GavelReader, ReadsSampleFileExactly) {
  // Line 4 is an A3C row with scale_factor 0, as in Gavel's own traces: invalid, so skip it.
  const Workload w = read_trace(testing::workload_data("gavel_good.trace"), TraceFormat::kGavel,
                                gavel_options(/*skip_invalid=*/true));
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.skipped_rows, 1u);
  ASSERT_EQ(w.skip_reasons.size(), 1u);
  EXPECT_NE(w.skip_reasons[0].find(":4: field 'scale_factor'"), std::string::npos)
      << w.skip_reasons[0];

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "gavel-1");
  EXPECT_EQ(a.model, "ResNet-18 (batch size 64)");
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.submit_time, 0.0);
  EXPECT_EQ(a.duration, 1000.0 / 20.0);
  EXPECT_EQ(a.priority, 1);
  EXPECT_EQ(a.gpu_type, "");
  EXPECT_EQ(a.source_line, 1u);

  const JobSpec& b = w.jobs[1];
  EXPECT_EQ(b.id, "gavel-2");
  EXPECT_EQ(b.model, "Transformer (batch size 128)");
  EXPECT_EQ(b.num_gpus, 2);
  EXPECT_EQ(b.submit_time, 30.0);
  EXPECT_EQ(b.duration, 500.0 / 12.5);
  EXPECT_EQ(b.priority, 4);
}

TEST(GavelReader, ScaleFactorZeroFailsWithoutSkip) {
  expect_input_error(
      [] {
        read_trace(testing::workload_data("gavel_good.trace"), TraceFormat::kGavel,
                   gavel_options());
      },
      testing::workload_data("gavel_good.trace"), 4, "scale_factor");
}

TEST(GavelReader, UsesTheRequestedGpuType) {
  ReaderOptions options = gavel_options();
  options.gavel_gpu_type = "k80";
  std::istringstream in(kGoodRow);
  const Workload w = read_gavel(in, "t.trace", options);
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].duration, 1000.0 / 5.0);
}

TEST(GavelReader, ThroughputTableErrors) {
  ReaderOptions options;
  std::istringstream in(kGoodRow);
  expect_input_error([&] { read_gavel(in, "t.trace", options); }, "t.trace", 0, "throughputs");

  options.gavel_throughputs_path = "/nonexistent/throughputs.json";
  expect_input_error([&] { read_gavel(in, "t.trace", options); }, "/nonexistent/throughputs.json",
                     0, "");

  options = gavel_options();
  options.gavel_gpu_type = "a100";
  expect_input_error([&] { read_gavel(in, "t.trace", options); }, options.gavel_throughputs_path, 0,
                     "gavel_gpu_type");

  // JSON errors name the line (of the failing byte, or of a number too large for a double).
  std::istringstream broken("{\"v100\": {");
  expect_input_error([&] { workload_internal::parse_gavel_throughputs(broken, "tp.json", "v100"); },
                     "tp.json", 1, "");
  std::istringstream overflow("{\"v100\":\n {\"('A', 1)\":\n  {\"null\": 1E500}}}");
  expect_input_error(
      [&] { workload_internal::parse_gavel_throughputs(overflow, "tp.json", "v100"); }, "tp.json",
      3, "");
  std::istringstream negative("{\"v100\": {\"('A', 1)\": {\"null\": -1}}}");
  expect_input_error(
      [&] { workload_internal::parse_gavel_throughputs(negative, "tp.json", "v100"); }, "tp.json",
      0, "v100/('A', 1)/null");
}

TEST(GavelReader, RowErrorsNameLineAndField) {
  expect_gavel_error(kGoodRow + "ResNet-18 (batch size 64)\tcmd\t-n\t1\t1000\n", 2,
                     "arrival_time");  // too few fields
  expect_gavel_error(kGoodRow + kGoodRow.substr(0, kGoodRow.size() - 1) + "\textra\n", 2, "");
  expect_gavel_error("ResNet-18 (batch size 64)\tcmd\t-n\tx\t1000\t0\t1\n", 1, "scale_factor");
  expect_gavel_error("ResNet-18 (batch size 64)\tcmd\t-n\t1.5\t1000\t0\t1\n", 1, "scale_factor");
  expect_gavel_error("ResNet-18 (batch size 64)\tcmd\t-n\t1\t0\t0\t1\n", 1, "total_steps");
  expect_gavel_error("ResNet-18 (batch size 64)\tcmd\t-n\t1\t10\t-5\t1\n", 1, "arrival_time");
  expect_gavel_error("ResNet-18 (batch size 64)\tcmd\t-n\t1\t10\t0\t1.5\n", 1, "priority_weight");
  expect_gavel_error("\tcmd\t-n\t1\t10\t0\t1\n", 1, "job_type");
  // No throughput for this job type / scale factor.
  expect_gavel_error("\nResNet-50 (batch size 64)\tcmd\t-n\t1\t10\t0\t1\n", 2, "job_type");
  expect_gavel_error("ResNet-18 (batch size 64)\tcmd\t-n\t4\t10\t0\t1\n", 1, "job_type");
  expect_gavel_error("", 0, "");
}

// ---- The real Gavel/Philly traces in ../shared (skipped when absent). ----

TEST(GavelReader, ReadsEveryRealTrace) {
  const auto folder = testing::shared_traces() / "gavel-philly";
  if (!std::filesystem::exists(folder) || !std::filesystem::exists(testing::shared_throughputs())) {
    GTEST_SKIP() << folder << " not present";
  }
  ReaderOptions options;
  options.skip_invalid = true;
  options.gavel_throughputs_path = testing::shared_throughputs();
  std::size_t files = 0, rows = 0, scale_zero_rows = 0, jobs = 0, skipped = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".trace") continue;
    ++files;
    // Count rows and scale_factor-0 rows from the raw text, independently of the reader.
    std::ifstream raw(entry.path());
    std::string line;
    while (std::getline(raw, line)) {
      if (line.empty()) continue;
      ++rows;
      std::size_t pos = 0;
      for (int tab = 0; tab < 3; ++tab) pos = line.find('\t', pos) + 1;
      if (line.compare(pos, 2, "0\t") == 0) ++scale_zero_rows;
    }
    const Workload w = read_trace(entry.path().string(), TraceFormat::kGavel, options);
    jobs += w.jobs.size();
    skipped += w.skipped_rows;
    EXPECT_EQ(w.filtered_rows, 0u);
    for (const JobSpec& job : w.jobs) {
      EXPECT_GE(job.num_gpus, 1);
      EXPECT_GT(job.duration, 0.0);
      EXPECT_GE(job.submit_time, 0.0);
    }
  }
  EXPECT_EQ(files, 15u);
  EXPECT_EQ(rows, 15264u);
  EXPECT_GT(scale_zero_rows, 0u);
  EXPECT_EQ(skipped, scale_zero_rows);
  EXPECT_EQ(jobs, rows - scale_zero_rows);
  // Facts of the data at gavel @ c4fa4009: all 537 A3C rows have scale_factor 0.
  EXPECT_EQ(scale_zero_rows, 537u);
  EXPECT_EQ(jobs, 14727u);
}

}  // namespace
}  // namespace clustersim
