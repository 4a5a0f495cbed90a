#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload_test_util.h"

namespace clustersim {
namespace {

using testing::expect_input_error;

// Kalos' layout: Seren's columns plus four it adds (ignored), times at +00:00.
const std::string kKalosHeader =
    "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,"
    "submit_time,start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n";

std::string kalos_row(const std::string& id, const std::string& gpus, const std::string& type,
                      const std::string& state, const std::string& submit,
                      const std::string& duration) {
  return id + ",uf794,1," + gpus + ",120,1000,100.0," + type + "," + state + "," + submit +
         ",,,,," + duration + ",10.0,0\n";
}

Workload read_acme_text(const std::string& text, bool skip_invalid = false) {
  std::istringstream in(text);
  ReaderOptions options;
  options.skip_invalid = skip_invalid;
  return read_acme(in, "trace_kalos.csv", options);
}

TEST(AcmeReader, ReadsSerenSampleExactly) {
  const Workload w = read_trace(testing::workload_data("acme_good.csv"), TraceFormat::kAcme, {});
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.filtered_rows, 1u);  // a3 is a CPU job

  const JobSpec& a = w.jobs[0];
  EXPECT_EQ(a.id, "a1");
  EXPECT_EQ(a.user, "u5907");
  EXPECT_EQ(a.vc, "");          // Acme has no VCs: the default one
  EXPECT_EQ(a.model, "Other");  // the workload class (type)
  EXPECT_EQ(a.num_gpus, 8);
  EXPECT_EQ(a.cpus, 128.0);
  // 2023-03-01 00:18:22 at +08:00 = 2023-02-28 16:18:22 UTC: 19,417 days to 2023-03-01,
  // x 86,400 = 1,677,628,800, less 8 h, plus 18 min 22 s.
  EXPECT_EQ(a.submit_time, 1677628800.0 - 8 * 3600 + 18 * 60 + 22);
  EXPECT_EQ(a.duration, 117.0);
  EXPECT_EQ(a.source_line, 2u);

  EXPECT_EQ(w.jobs[1].model, "Pretrain");
  EXPECT_EQ(w.jobs[1].duration, 2693.0);
  const JobSpec& d = w.jobs[2];  // a CANCELLED 256-GPU job without start/end times
  EXPECT_EQ(d.id, "a4");
  EXPECT_EQ(d.num_gpus, 256);
  EXPECT_EQ(d.submit_time, 1677628800.0 - 7 * 3600);
  EXPECT_EQ(d.duration, 5400.0);
  EXPECT_EQ(d.source_line, 5u);
}

TEST(AcmeReader, KalosLayoutAndItsErrors) {
  const Workload w = read_acme_text(
      kKalosHeader + kalos_row("dlc1", "64", "SFT", "TIMEOUT", "2023-05-17 11:00:58+00:00", "18"));
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].model, "SFT");
  EXPECT_EQ(w.jobs[0].submit_time, 1684281600.0 + 11 * 3600 + 58);  // 2023-05-17 = day 19,494

  const auto expect_error = [](const std::string& text, std::size_t line,
                               const std::string& field) {
    expect_input_error([&] { read_acme_text(text); }, "trace_kalos.csv", line, field);
  };
  const std::string ok =
      kalos_row("a", "8", "Debug", "COMPLETED", "2023-05-17 11:00:58+00:00", "5");
  expect_error(
      kKalosHeader + ok + kalos_row("b", "8", "Debug", "RUNNING", "2023-05-17 11:00:58", "5"), 3,
      "state");
  expect_error(kKalosHeader + kalos_row("b", "8", "Debug", "FAILED", "2023-05-17 11:00:58+8", "5"),
               2, "submit_time");
  expect_error(kKalosHeader + kalos_row("b", "8", "Debug", "FAILED", "2023-05-17 11:00:58", "0"), 2,
               "duration");
  expect_error(kKalosHeader + ok + ok, 3, "job_id");
  // Helios' layout (vc, no type) is not an Acme trace: the missing column is named.
  expect_error("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,duration\n", 1, "type");
  // With skip_invalid a bad row is a counted skip.
  const Workload skipped = read_acme_text(
      kKalosHeader + ok + kalos_row("b", "8", "Debug", "PENDING", "2023-05-17 11:00:58", "5"),
      true);
  EXPECT_EQ(skipped.jobs.size(), 1u);
  EXPECT_EQ(skipped.skipped_rows, 1u);
}

}  // namespace
}  // namespace clustersim
