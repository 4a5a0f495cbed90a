#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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
const std::string kGoodRow10 =
    "ResNet-18 (batch size 64)\tcmd\tdir\t-n\t1\t1000\t1\t1\t-1\t0.000000\n";

TEST(GavelReader, ReadsTheOlderSevenFieldLayout) {
  // job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor.
  // Line 4 (the third row: id 2) asks 4 GPUs of A3C, whose V100 throughput is 0 (cannot run on
  // the reference type, so no duration): invalid, skipped.
  const Workload w = read_trace(testing::workload_data("gavel_good.trace"), TraceFormat::kGavel,
                                gavel_options(/*skip_invalid=*/true));
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.skipped_rows, 1u);
  ASSERT_EQ(w.skip_reasons.size(), 1u);
  EXPECT_NE(w.skip_reasons[0].find(":4: field 'job_type'"), std::string::npos) << w.skip_reasons[0];

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "0");  // Gavel's 0-based job ids
  EXPECT_EQ(a.model, "ResNet-18 (batch size 64)");
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.submit_time, 0.0);
  EXPECT_EQ(a.steps, 1000.0);
  EXPECT_EQ(a.duration, 1000.0 / 20.0);
  EXPECT_EQ(a.weight, 1.0);
  EXPECT_EQ(a.slo, 0.0);
  EXPECT_EQ(a.priority, 0);
  EXPECT_EQ(a.gpu_type, "");
  EXPECT_EQ(a.source_line, 1u);

  const JobSpec& b = w.jobs[1];
  EXPECT_EQ(b.id, "1");
  EXPECT_EQ(b.model, "Transformer (batch size 128)");
  EXPECT_EQ(b.num_gpus, 2);  // column 7, not column 4 (needs_data_dir)
  EXPECT_EQ(b.submit_time, 30.0);
  EXPECT_EQ(b.steps, 500.0);
  EXPECT_EQ(b.duration, 500.0 / 12.5);
  EXPECT_EQ(b.source_line, 2u);
}

TEST(GavelReader, ReadsTheCurrentTenFieldLayout) {
  // job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps,
  // scale_factor, priority_weight, SLO, arrival_time.
  const Workload w = read_trace(testing::workload_data("gavel_good_10.trace"), TraceFormat::kGavel,
                                gavel_options());
  ASSERT_EQ(w.jobs.size(), 2u);
  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "0");
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.steps, 1000.0);
  EXPECT_EQ(a.duration, 50.0);
  EXPECT_EQ(a.weight, 1.0);
  EXPECT_EQ(a.slo, 0.0);  // -1: none
  EXPECT_EQ(a.submit_time, 0.0);
  const JobSpec& b = w.jobs[1];
  EXPECT_EQ(b.id, "1");
  EXPECT_EQ(b.model, "Transformer (batch size 128)");
  EXPECT_EQ(b.num_gpus, 2);
  EXPECT_EQ(b.steps, 500.0);
  EXPECT_EQ(b.duration, 40.0);
  EXPECT_EQ(b.weight, 4.5);
  EXPECT_EQ(b.slo, 1.2);
  EXPECT_EQ(b.submit_time, 30.5);
}

TEST(GavelReader, ZeroThroughputOnTheReferenceTypeFailsWithoutSkip) {
  expect_input_error(
      [] {
        read_trace(testing::workload_data("gavel_good.trace"), TraceFormat::kGavel,
                   gavel_options());
      },
      testing::workload_data("gavel_good.trace"), 4, "job_type");
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
  const std::string r18 = "ResNet-18 (batch size 64)\tcmd\t-n\t";
  expect_gavel_error(kGoodRow + r18 + "1\t1000\n", 2, "arrival_time");  // too few fields
  expect_gavel_error(kGoodRow + kGoodRow.substr(0, kGoodRow.size() - 1) + "\textra\n", 2, "");
  expect_gavel_error(r18 + "1\t1000\t0\n", 1, "");   // neither layout
  expect_gavel_error(kGoodRow + kGoodRow10, 2, "");  // layouts mixed: the first row's holds
  expect_gavel_error(kGoodRow10 + kGoodRow, 2, "priority_weight");
  expect_gavel_error(r18 + "1\t1000\t0\tx\n", 1, "scale_factor");
  expect_gavel_error(r18 + "1\t1000\t0\t1.5\n", 1, "scale_factor");
  expect_gavel_error(r18 + "1\t1000\t0\t0\n", 1, "scale_factor");
  expect_gavel_error(r18 + "2\t1000\t0\t1\n", 1, "needs_data_dir");
  expect_gavel_error(r18 + "1\t0\t0\t1\n", 1, "total_steps");
  expect_gavel_error(r18 + "1\t10\t-5\t1\n", 1, "arrival_time");
  expect_gavel_error("\tcmd\t-n\t1\t10\t0\t1\n", 1, "job_type");
  const std::string r18_10 = "ResNet-18 (batch size 64)\tcmd\tdir\t-n\t1\t1000\t1\t";
  expect_gavel_error(r18_10 + "0\t-1\t0\n", 1, "priority_weight");
  expect_gavel_error(r18_10 + "1\tx\t0\n", 1, "SLO");
  expect_gavel_error(r18_10 + "1\t-1\tsoon\n", 1, "arrival_time");
  // No throughput for this job type / scale factor.
  expect_gavel_error("\nResNet-50 (batch size 64)\tcmd\t-n\t1\t10\t0\t1\n", 2, "job_type");
  expect_gavel_error(r18 + "1\t10\t0\t4\n", 1, "job_type");
  expect_gavel_error("", 0, "");
}

// ---- The real Gavel/Philly traces in ../shared (skipped when absent). ----

bool shared_gavel_present() {
  return std::filesystem::exists(testing::shared_traces() / "gavel-philly") &&
         std::filesystem::exists(testing::shared_throughputs());
}

std::filesystem::path gavel_trace(const std::string& name) {
  return testing::shared_traces() / "gavel-philly" / (name + ".trace");
}

TEST(GavelReader, RealRowsOfTheOlderLayout) {
  if (!shared_gavel_present()) GTEST_SKIP() << "no ../shared gavel traces";
  ReaderOptions options;
  options.skip_invalid = true;  // rows with no V100 throughput (e.g. 8-GPU Recommendation)
  options.gavel_throughputs_path = testing::shared_throughputs();
  const Workload w = read_trace(gavel_trace("ee9e8c").string(), TraceFormat::kGavel, options);
  // Line 1: "Transformer (batch size 128) ... -step 1 15486530 0.000000 1".
  const JobSpec& first = w.jobs[0];
  EXPECT_EQ(first.id, "0");
  EXPECT_EQ(first.model, "Transformer (batch size 128)");
  EXPECT_EQ(first.num_gpus, 1);
  EXPECT_EQ(first.steps, 15486530.0);
  EXPECT_EQ(first.submit_time, 0.0);
  EXPECT_DOUBLE_EQ(first.duration, 15486530.0 / 5.44610521981264);  // V100 steps/s in the table
  // Line 4: "ResNet-18 (batch size 32) ... 1 52322471 476285.000000 8": 8 GPUs (the old reader
  // took column 4, needs_data_dir, and made it 1 GPU). Line 2 (8-GPU Recommendation) has no
  // throughput entry and is skipped, so this is the third job read; its id is still 3.
  ASSERT_EQ(w.jobs[1].id, "2");
  const JobSpec& fourth = w.jobs[2];
  EXPECT_EQ(fourth.id, "3");
  EXPECT_EQ(fourth.source_line, 4u);
  EXPECT_EQ(fourth.model, "ResNet-18 (batch size 32)");
  EXPECT_EQ(fourth.num_gpus, 8);
  EXPECT_EQ(fourth.steps, 52322471.0);
  EXPECT_EQ(fourth.submit_time, 476285.0);
  EXPECT_DOUBLE_EQ(fourth.duration, 52322471.0 / 340.0383618985821);
  EXPECT_NE(w.skip_reasons[0].find(":2: field 'job_type': no throughput for ('Recommendation "
                                   "(batch size 8192)', 8) on 'v100'"),
            std::string::npos)
      << w.skip_reasons[0];
}

// A throughput table with 1 step/s for every (job_type, scale_factor) of the files, so that every
// row is a job: the layout and GPU counts are checked apart from the table's coverage.
std::string covering_table(const std::vector<std::filesystem::path>& files) {
  std::set<std::string> keys;
  for (const auto& file : files) {
    std::ifstream raw(file);
    std::string line;
    while (std::getline(raw, line)) {
      if (line.empty()) continue;
      std::vector<std::string> fields;
      std::stringstream split(line);
      std::string field;
      while (std::getline(split, field, '\t')) fields.push_back(field);
      keys.insert("('" + fields[0] + "', " + fields[6] + ")");
    }
  }
  std::string json = "{\"v100\": {";
  for (const std::string& key : keys)
    json += (json.back() == '{' ? "\"" : ", \"") + key + "\": {\"null\": 1.0}";
  return json + "}}";
}

TEST(GavelReader, ReadsEveryRealTraceWithItsGpuCounts) {
  if (!shared_gavel_present()) GTEST_SKIP() << "no ../shared gavel traces";
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::shared_traces() / "gavel-philly"))
    if (entry.path().extension() == ".trace") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 15u);
  std::istringstream table_json(covering_table(files));
  const auto table =
      workload_internal::parse_gavel_throughputs(table_json, "covering.json", "v100");
  std::size_t jobs = 0;
  std::map<std::string, std::map<int, int>> histograms;
  for (const auto& file : files) {
    std::ifstream in(file);
    const Workload w =
        workload_internal::read_gavel_with_throughputs(in, file.string(), ReaderOptions{}, table);
    jobs += w.jobs.size();
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      EXPECT_EQ(w.jobs[i].id, std::to_string(i));
      ++histograms[file.stem().string()][w.jobs[i].num_gpus];
    }
  }
  EXPECT_EQ(jobs, 15264u);  // every row of the 15 files
  // GPU counts (column 7) as `cut -f7 FILE | sort -n | uniq -c` gives them.
  const std::map<int, int> ee9e8c = {{1, 975}, {2, 47},   {4, 321}, {7, 2},
                                     {8, 543}, {16, 106}, {20, 1},  {32, 5}};
  const std::map<int, int> c11cb48 = {{1, 1559}, {2, 81}, {4, 257}, {8, 23},
                                      {16, 69},  {24, 2}, {32, 8},  {64, 1}};
  EXPECT_EQ(histograms["ee9e8c"], ee9e8c);
  EXPECT_EQ(histograms["11cb48"], c11cb48);
  EXPECT_EQ(histograms["ed69ec"], (std::map<int, int>{{1, 951}}));
}

TEST(GavelReader, RealTracesAgainstGavelsThroughputTable) {
  if (!shared_gavel_present()) GTEST_SKIP() << "no ../shared gavel traces";
  ReaderOptions options;
  options.skip_invalid = true;
  options.gavel_throughputs_path = testing::shared_throughputs();
  std::size_t jobs = 0, skipped = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::shared_traces() / "gavel-philly")) {
    if (entry.path().extension() != ".trace") continue;
    const Workload w = read_trace(entry.path().string(), TraceFormat::kGavel, options);
    jobs += w.jobs.size();
    skipped += w.skipped_rows;
    if (entry.path().stem() == "ed69ec") {
      EXPECT_EQ(w.jobs.size(), 951u);  // every row has a V100 entry
      EXPECT_EQ(w.skipped_rows, 0u);
    }
    for (const JobSpec& job : w.jobs) {
      EXPECT_GT(job.duration, 0.0);
      EXPECT_GT(job.steps, 0.0);
    }
  }
  // Rows whose (job_type, scale_factor) has no V100 entry (GPU counts 7, 12, 16, 20, 24, 32, 64;
  // multi-GPU A3C, CycleGAN, Recommendation): counted with a script over the files.
  EXPECT_EQ(skipped, 1548u);
  EXPECT_EQ(jobs, 15264u - 1548u);
}

}  // namespace
}  // namespace clustersim
