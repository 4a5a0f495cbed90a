#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload/internal/text_parsing.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

const std::string kOpenbHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

Workload read_openb_text(const std::string& text, bool skip_invalid = false) {
  std::istringstream in(text);
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  return read_openb(in, "pods.csv", options);
}

void expect_openb_error(const std::string& text, std::size_t line, const std::string& field) {
  expect_input_error([&] { read_openb_text(text); }, "pods.csv", line, field);
}

TEST(OpenbReader, ReadsSampleFileExactly) {
  const Workload w = read_trace(testing::workload_data("openb_good.csv"), TraceFormat::kOpenb, {});
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.filtered_rows, 2u);  // the CPU-only pod and the never-scheduled pod
  EXPECT_EQ(w.skipped_rows, 0u);

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "pod-a");
  EXPECT_EQ(a.submit_time, 0.0);
  EXPECT_EQ(a.duration, 12000.0 - 10.0);
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.cpus, 12.0);
  EXPECT_EQ(a.mem_gb, 16.0);
  EXPECT_EQ(a.gpu_type, "");
  EXPECT_EQ(a.source_line, 2u);

  const JobSpec& b = w.jobs[1];  // 460 milli-GPU: one whole GPU
  EXPECT_EQ(b.id, "pod-b");
  EXPECT_EQ(b.num_gpus, 1);
  EXPECT_EQ(b.submit_time, 100.0);
  EXPECT_EQ(b.duration, 250.0);
  EXPECT_EQ(b.cpus, 6.0);
  EXPECT_EQ(b.mem_gb, 12.0);
  EXPECT_EQ(b.gpu_type, "V100M16");

  const JobSpec& c = w.jobs[2];
  EXPECT_EQ(c.id, "pod-c");
  EXPECT_EQ(c.num_gpus, 8);
  EXPECT_EQ(c.duration, 4995.0);
  EXPECT_EQ(c.gpu_type, "");  // several alternatives: any type
  EXPECT_EQ(c.source_line, 5u);
}

TEST(OpenbReader, ColumnErrors) {
  expect_openb_error("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,1,1000\n", 1,
                     "creation_time");
  expect_openb_error(
      "name,cpu_milli,memory_mib,gpu_milli,creation_time,deletion_time,"
      "scheduled_time\n",
      1, "num_gpu");
  expect_openb_error("", 0, "");
  expect_openb_error(kOpenbHeader, 0, "");
}

TEST(OpenbReader, RowErrorsNameLineAndField) {
  expect_openb_error(kOpenbHeader + "p,1000,1024,1,1000,,LS,Running,0,10,x\n", 2, "scheduled_time");
  expect_openb_error(kOpenbHeader + "p,1000,1024,-1,1000,,LS,Running,0,10,0\n", 2, "num_gpu");
  expect_openb_error(kOpenbHeader + "p,1000,1024,1,0,,LS,Running,0,10,0\n", 2, "gpu_milli");
  expect_openb_error(kOpenbHeader + "p,1000,1024,1,1500,,LS,Running,0,10,0\n", 2, "gpu_milli");
  expect_openb_error(kOpenbHeader + "p,-1,1024,1,1000,,LS,Running,0,10,0\n", 2, "cpu_milli");
  expect_openb_error(kOpenbHeader + "p,1000,1024,1,1000,,LS,Running,0,10,10\n", 2, "deletion_time");
  expect_openb_error(kOpenbHeader + "p,1000,1024,1,1000,,LS,Running,5,10,4\n", 2, "scheduled_time");
  expect_openb_error(kOpenbHeader + "p,1000,1024,1,1000,,LS,Running,0,10\n", 2, "");
  expect_openb_error(
      kOpenbHeader + "p,1000,1024,1,1000,,LS,Running,0,10,0\np,1,1,1,1000,,LS,Running,0,5,0\n", 3,
      "name");
}

TEST(OpenbReader, CpuOnlyPodsRunAndSharesStaySharesWhenAsked) {
  const std::string text = kOpenbHeader +
                           "cpu,2000,1024,0,0,,LS,Running,0,10,0\n"
                           "half,1000,1024,1,500,,LS,Running,0,10,0\n"
                           "two,1000,1024,2,500,,LS,Running,0,10,0\n";
  const auto read = [&](CpuOnlyPods cpu_only, bool shares) {
    std::istringstream in(text);
    ReaderOptions options;
    options.cpu_only_pods = cpu_only;
    options.gpu_shares = shares;
    return read_openb(in, "pods.csv", options);
  };
  const auto changed = [](const Workload& w) {
    std::size_t rows = 0;
    for (const auto& change : w.row_changes) rows += change.dropped ? 0 : change.rows;
    return rows;
  };
  const Workload before = read(CpuOnlyPods::kDrop, false);  // as before: dropped, changed
  ASSERT_EQ(before.jobs.size(), 2u);
  EXPECT_EQ(before.filtered_rows, 1u);
  EXPECT_EQ(changed(before), 2u);
  const Workload after = read(CpuOnlyPods::kRun, true);
  ASSERT_EQ(after.jobs.size(), 3u);
  EXPECT_EQ(after.jobs[0].num_gpus, 0);
  EXPECT_EQ(after.jobs[0].cpus, 2.0);
  EXPECT_EQ(after.jobs[1].gpu_milli, 500);
  EXPECT_EQ(changed(after), 1u);  // a share of each of 2 GPUs still runs on whole GPUs
  // A CPU-only pod run as a job needs CPUs.
  std::istringstream in(kOpenbHeader + "cpu,0,1024,0,0,,LS,Running,0,10,0\n");
  ReaderOptions options;
  options.cpu_only_pods = CpuOnlyPods::kRun;
  expect_input_error([&] { read_openb(in, "pods.csv", options); }, "pods.csv", 2, "cpu_milli");
}

TEST(OpenbReader, SkipInvalidCounts) {
  const Workload w = read_openb_text(kOpenbHeader +
                                         "p1,1000,1024,1,1000,,LS,Running,0,10,0\n"
                                         "p2,1000,1024,1,1000,,LS,Running,0,nan,0\n"
                                         "p3,1000,1024,0,0,,LS,Running,0,10,0\n",
                                     true);
  EXPECT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.skipped_rows, 1u);
  EXPECT_EQ(w.filtered_rows, 1u);
}

// ---- The real openb pod lists in ../shared (skipped when absent). ----

struct PodCounts {
  std::size_t rows = 0, cpu_only = 0, unscheduled_gpu = 0;
};

// Counts from the raw text, independently of the reader.
PodCounts count_pods(const std::filesystem::path& path) {
  PodCounts counts;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::string> f;
  while (std::getline(in, line)) {
    workload_internal::split_plain(line, ',', f);
    ++counts.rows;
    if (f[3] == "0") {
      ++counts.cpu_only;
    } else if (f[10].empty()) {
      ++counts.unscheduled_gpu;
    }
  }
  return counts;
}

TEST(OpenbReader, ReadsRealPodLists) {
  const auto folder = testing::shared_traces() / "alibaba-gpu-v2023";
  if (!std::filesystem::exists(folder)) GTEST_SKIP() << folder << " not present";
  for (const char* name : {"openb_pod_list_default.csv", "openb_pod_list_gpuspec33.csv",
                           "openb_pod_list_gpushare100.csv"}) {
    SCOPED_TRACE(name);
    const auto path = folder / name;
    const PodCounts counts = count_pods(path);
    EXPECT_EQ(counts.rows, 8152u);
    const Workload w = read_trace(path.string(), TraceFormat::kOpenb, {});
    EXPECT_EQ(w.skipped_rows, 0u);
    EXPECT_EQ(w.filtered_rows, counts.cpu_only + counts.unscheduled_gpu);
    EXPECT_EQ(w.jobs.size(), counts.rows - w.filtered_rows);
    for (const JobSpec& job : w.jobs) {
      EXPECT_GE(job.num_gpus, 1);
      EXPECT_GT(job.duration, 0.0);
    }
  }
  // Facts of the data at clusterdata @ 7a6c496e (1,088 CPU-only pods in each list; 861 resp.
  // 1,173 GPU pods still Pending, never scheduled).
  const auto jobs_in = [&](const char* name) {
    return read_trace((folder / name).string(), TraceFormat::kOpenb, {}).jobs.size();
  };
  EXPECT_EQ(jobs_in("openb_pod_list_default.csv"), 6203u);
  EXPECT_EQ(jobs_in("openb_pod_list_gpushare100.csv"), 5891u);

  // gpuspec33 names GPU types; default does not.
  const Workload spec =
      read_trace((folder / "openb_pod_list_gpuspec33.csv").string(), TraceFormat::kOpenb, {});
  std::size_t typed = 0;
  for (const JobSpec& job : spec.jobs) typed += job.gpu_type.empty() ? 0 : 1;
  EXPECT_GT(typed, 0u);
}

TEST(OpenbReader, MultiGpu50HasNoTimesAndIsRejected) {
  const auto path =
      testing::shared_traces() / "alibaba-gpu-v2023" / "openb_pod_list_multigpu50.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
  expect_input_error([&] { read_trace(path.string(), TraceFormat::kOpenb, {}); }, path.string(), 1,
                     "creation_time");
}

}  // namespace
}  // namespace clustersim
