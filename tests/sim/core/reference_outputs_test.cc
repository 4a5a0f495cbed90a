// Optimisations must not change results: every policy x placement x quota mode (and a few
// mechanisms) on thousand-job runs gives per-job outputs bit-identical to the engine before the
// performance work. data/reference_digests.txt holds a digest of each run's full per-job output
// (every field of every JobRecord, as the bytes of the doubles) from that engine.
//
// To regenerate after an intended change of behaviour (say why in the commit), run the test
// with CLUSTERSIM_WRITE_DIGESTS=tests/sim/core/data/reference_digests.txt in the environment
// (from the repository root: build/bin/core_test --gtest_filter='ReferenceOutputs.*').
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "clustersim/placement.h"
#include "clustersim/policy.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

// FNV-1a over the bytes of every field of every job record, and of the run metrics' counts.
class Digest {
 public:
  template <typename T>
  void add(const T& value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes) hash_ = (hash_ ^ b) * 1099511628211ull;
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 1469598103934665603ull;
};

std::uint64_t digest(const RunResult& result) {
  Digest d;
  for (const JobRecord& r : result.jobs) {
    d.add(r.index);
    d.add(r.submit_time);
    d.add(r.start_time);
    d.add(r.finish_time);
    d.add(r.jct);
    d.add(r.queue_delay);
    d.add(r.num_gpus);
    d.add(r.preemptions);
    d.add(r.gpu_seconds);
    d.add(r.overhead_gpu_seconds);
    d.add(r.nodes);
    d.add(r.rejected);
  }
  d.add(result.metrics.events);
  d.add(result.metrics.rounds);
  d.add(result.metrics.frag_mean);
  d.add(result.metrics.queue_len_mean);
  return d.value();
}

struct ReferenceRun {
  std::string name;
  SimOptions options;
  std::vector<JobSpec> jobs;
};

// 16 nodes of 4 GPUs in racks of 4 (enough to fragment and to span racks), three VCs, costs,
// CPUs and memory modelled, a loaded random workload of 1, 2, 4, 8 and 16-GPU jobs.
std::vector<ReferenceRun> reference_runs() {
  std::vector<ReferenceRun> runs;
  const auto jobs =
      testing::random_jobs(2500, 15.0, 900.0, {1, 1, 1, 2, 4, 8, 16}, 23, {"a", "b", "c"});
  for (const auto& policy : scheduling_policy_names())
    for (const auto& placement : placement_policy_names())
      for (const VcQuotaMode quota : {VcQuotaMode::kStrict, VcQuotaMode::kLend}) {
        SimOptions options = testing::small_cluster(16, 4, 4);
        options.check_invariants = false;
        options.cluster.groups[0].cpus_per_node = 32;
        options.cluster.groups[0].mem_gb_per_node = 256;
        options.cluster.vcs = {{"a", 24}, {"b", 24}, {"c", 16}};
        options.reject_impossible = true;
        options.scheduler.policy = policy;
        options.scheduler.placement = placement;
        options.scheduler.vc_quota = quota;
        options.scheduler.lease_s = 120;
        options.scheduler.checkpoint_s = 7;
        options.scheduler.restore_s = 11;
        options.penalty = {0.9, 0.8};
        options.sample_interval_s = 500;
        runs.push_back(
            {policy + "/" + placement + "/" + (quota == VcQuotaMode::kStrict ? "strict" : "lend"),
             options, jobs});
      }
  // One GPU type and no VCs (rounds take their fast path), with and without backfill, at two
  // loads.
  for (const auto& policy : scheduling_policy_names())
    for (const bool backfill : {true, false})
      for (const double interarrival : {15.0, 6.0}) {
        SimOptions options = testing::small_cluster(16, 4, 4);
        options.check_invariants = false;
        options.scheduler.policy = policy;
        options.scheduler.backfill = backfill;
        options.scheduler.lease_s = 120;
        options.scheduler.checkpoint_s = 7;
        options.scheduler.restore_s = 11;
        options.sample_interval_s = 500;
        runs.push_back(
            {policy + "/one-type" + (backfill ? "" : "/strict-order") +
                 (interarrival < 10 ? "/overloaded" : ""),
             options, testing::random_jobs(2500, interarrival, 900.0, {1, 1, 1, 2, 4, 8, 16}, 29)});
      }
  // Strict order, priorities, two GPU types.
  for (const auto& policy : scheduling_policy_names()) {
    SimOptions options = testing::small_cluster(16, 4, 4);
    options.check_invariants = false;
    options.scheduler.policy = policy;
    options.scheduler.backfill = false;
    options.scheduler.honor_priority = true;
    options.sample_interval_s = 500;
    NodeGroupSpec other = options.cluster.groups[0];
    other.name = "k80";
    other.gpu_type = "k80";
    other.nodes = 6;
    options.cluster.groups.push_back(other);
    auto typed = jobs;
    for (std::size_t i = 0; i < typed.size(); ++i) typed[i].priority = static_cast<int>(i % 3);
    runs.push_back({policy + "/strict-order+priority+two-types", options, typed});
  }
  return runs;
}

TEST(ReferenceOutputs, EveryPolicyAndPlacementIsBitIdenticalToTheReferenceEngine) {
  const std::string path =
      std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/sim/core/data/reference_digests.txt";
  std::map<std::string, std::uint64_t> expected;
  {
    std::ifstream in(path);
    std::string name;
    std::uint64_t value;
    while (in >> name >> std::hex >> value) expected[name] = value;
  }
  std::ostringstream written;
  for (const ReferenceRun& run : reference_runs()) {
    const std::uint64_t value = digest(simulate(run.options, run.jobs));
    written << run.name << ' ' << std::hex << value << '\n';
    if (std::getenv("CLUSTERSIM_WRITE_DIGESTS")) continue;
    ASSERT_TRUE(expected.count(run.name)) << run.name << " has no reference digest";
    EXPECT_EQ(value, expected[run.name]) << run.name << " differs from the reference engine";
  }
  if (const char* out = std::getenv("CLUSTERSIM_WRITE_DIGESTS"))
    std::ofstream(out) << written.str();
}

}  // namespace
}  // namespace clustersim
