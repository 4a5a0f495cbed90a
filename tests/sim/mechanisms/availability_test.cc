// Node availability traces ([mechanisms] availability_trace): windows in which nodes run
// nothing, worked out by hand, and the trace reader's forms and errors.
#include "mechanisms/availability.h"

#include <gtest/gtest.h>

#include <sstream>

#include "clustersim/error.h"
#include "io/internal/availability_trace.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

std::vector<NodeOutage> windows_from(const std::string& text, const ClusterSpec& cluster) {
  std::istringstream in(text);
  return io_internal::read_availability_trace(in, "windows.csv", cluster);
}

// Two 1-GPU nodes, both unavailable from 50 to 80 (one row, a range). a and b (100 s each)
// start at 0, one per node; c (50 s) arrives at 10 and waits. At 50 a and b are interrupted
// with no checkpoint: their 50 s are lost and they wait again, before c (FIFO). Nothing runs
// from 50 to 80; then a and b run 80..180 and c 180..230.
TEST(Availability, ANodeUnavailableInTheTraceRunsNothing) {
  SimOptions options = testing::small_cluster(2, 1);
  options.mechanisms.availability_trace =
      windows_from("nodes,down,up\n0-1,50,80\n", options.cluster);
  ASSERT_EQ(options.mechanisms.availability_trace.size(), 2u);
  const RunResult result =
      simulate(options, {job("a", 0, 1, 100), job("b", 0, 1, 100), job("c", 10, 1, 50)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 180);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 180);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 230);
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 180);
  EXPECT_DOUBLE_EQ(result.metrics.jct_mean, (180.0 + 180.0 + 220.0) / 3.0);
  EXPECT_DOUBLE_EQ(result.metrics.lost_gpu_seconds, 100);
  // GPUs held: 50 + 50 before the window, 100 + 100 + 50 after it; none inside it.
  EXPECT_DOUBLE_EQ(result.metrics.gpu_seconds, 350);
  EXPECT_EQ(result.metrics.failures, 2u);
  EXPECT_EQ(result.metrics.node_failures, 0u);  // no node failed
}

// One 1-GPU node named by its group, unavailable from 60 to 80; a (100 s) saves every 20 s of
// running (5 s a save): 0..20 run, 20..25 save, 25..45 run, 45..50 save (40 s saved), 50..60
// run (10 s lost). Back at 80: 80..100 run (60), save to 105, 105..125 (80), save to 130,
// 130..150 (100): done at 150. b (50 s, arrives 10) then runs 150..170, saves to 175, runs
// 175..195, saves to 200, runs 200..210.
TEST(Availability, AWindowRollsJobsBackToTheirLastSave) {
  SimOptions options = testing::small_cluster(1, 1);
  options.cluster.groups[0].name = "g";
  options.mechanisms.checkpoint_interval_s = 20;
  options.scheduler.checkpoint_s = 5;
  options.mechanisms.availability_trace =
      windows_from("# maintenance\nnodes,down,up\ng/0,60,80\n", options.cluster);
  const RunResult result = simulate(options, {job("a", 0, 1, 100), job("b", 10, 1, 50)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 150);
  EXPECT_DOUBLE_EQ(result.jobs[0].lost_gpu_seconds, 10);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 150);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 210);
}

// A window after the last job does not keep the run going.
TEST(Availability, WindowsAfterTheLastJobDoNotExtendTheRun) {
  SimOptions options = testing::small_cluster(1, 1);
  options.mechanisms.availability_trace =
      windows_from("nodes,down,up\n0,500,900\n", options.cluster);
  const RunResult result = simulate(options, {job("a", 0, 1, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100);
  EXPECT_DOUBLE_EQ(result.metrics.makespan, 100);
}

TEST(Availability, TraceFormsAndErrors) {
  ClusterSpec cluster;
  NodeGroupSpec a, b;
  a.name = "a";
  a.nodes = 2;
  b.name = "b";
  b.nodes = 3;
  cluster.groups = {a, b};
  const auto nodes_of = [&](const std::string& field) {
    std::vector<std::uint32_t> out;
    for (const NodeOutage& w : windows_from("nodes,down,up\n" + field + ",1,2\n", cluster))
      out.push_back(w.node);
    return out;
  };
  EXPECT_EQ(nodes_of("4"), (std::vector<std::uint32_t>{4}));
  EXPECT_EQ(nodes_of("1-3"), (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(nodes_of("b"), (std::vector<std::uint32_t>{2, 3, 4}));
  EXPECT_EQ(nodes_of("b/1"), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(nodes_of("b/1-2"), (std::vector<std::uint32_t>{3, 4}));
  const auto error_of = [&](const std::string& text) -> std::pair<std::size_t, std::string> {
    try {
      windows_from(text, cluster);
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), "windows.csv");
      return {error.line(), error.field()};
    }
    return {0, "no error"};
  };
  using Where = std::pair<std::size_t, std::string>;
  EXPECT_EQ(error_of("nodes,down,up\n0,1,2\n5,1,2\n"), (Where{3, "nodes"}));
  EXPECT_EQ(error_of("nodes,down,up\n3-1,1,2\n"), (Where{2, "nodes"}));
  EXPECT_EQ(error_of("nodes,down,up\nb/3,1,2\n"), (Where{2, "nodes"}));
  EXPECT_EQ(error_of("nodes,down,up\nc/0,1,2\n"), (Where{2, "nodes"}));
  EXPECT_EQ(error_of("nodes,down,up\n0,2,2\n"), (Where{2, "up"}));
  EXPECT_EQ(error_of("nodes,down,up\n0,-1,2\n"), (Where{2, "down"}));
  EXPECT_EQ(error_of("node,down,up\n0,1,2\n"), (Where{1, "node"}));
  EXPECT_EQ(error_of("nodes,down\n0,1\n"), (Where{1, "up"}));
}

}  // namespace
}  // namespace clustersim
