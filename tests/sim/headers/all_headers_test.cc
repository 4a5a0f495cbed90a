// A user's translation unit can include every public header (sim/include/clustersim/*.h) at
// once: no two of them declare the same name. The list below is checked against the folder by
// the first test, so a new header is added here or that test fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <type_traits>

// Every public header, in name order.
#include "clustersim/allocation_mechanism.h"
#include "clustersim/atomic_file.h"
#include "clustersim/cluster.h"
#include "clustersim/cluster_state.h"
#include "clustersim/component.h"
#include "clustersim/config.h"
#include "clustersim/dag.h"
#include "clustersim/decider.h"
#include "clustersim/engine_limits.h"
#include "clustersim/error.h"
#include "clustersim/fabric.h"
#include "clustersim/failure_mix.h"
#include "clustersim/failure_trace.h"
#include "clustersim/fleet.h"
#include "clustersim/fleet_config.h"
#include "clustersim/generator.h"
#include "clustersim/host.h"
#include "clustersim/input_file.h"
#include "clustersim/job.h"
#include "clustersim/job_state.h"
#include "clustersim/llm.h"
#include "clustersim/mechanism.h"
#include "clustersim/mechanisms.h"
#include "clustersim/metrics.h"
#include "clustersim/mig.h"
#include "clustersim/model_cache.h"
#include "clustersim/node_index.h"
#include "clustersim/options.h"
#include "clustersim/placement.h"
#include "clustersim/placement_study.h"
#include "clustersim/plan.h"
#include "clustersim/policy.h"
#include "clustersim/power.h"
#include "clustersim/profile.h"
#include "clustersim/random.h"
#include "clustersim/rate_model.h"
#include "clustersim/report.h"
#include "clustersim/serving.h"
#include "clustersim/serving_catalog.h"
#include "clustersim/side_file_cache.h"
#include "clustersim/simulation.h"
#include "clustersim/simulator.h"
#include "clustersim/steady_state.h"
#include "clustersim/task_placement.h"
#include "clustersim/throughput_model.h"
#include "clustersim/throughput_table.h"
#include "clustersim/time_share.h"
#include "clustersim/view.h"
#include "clustersim/workload.h"

namespace clustersim {
namespace {

TEST(PublicHeaders, ThisFileIncludesEveryPublicHeader) {
  const std::filesystem::path root(CLUSTERSIM_SOURCE_DIR);
  std::set<std::string> headers;
  for (const auto& entry : std::filesystem::directory_iterator(root / "sim/include/clustersim"))
    if (entry.path().extension() == ".h") headers.insert(entry.path().filename().string());
  std::set<std::string> included;
  std::ifstream in(root / "tests/sim/headers/all_headers_test.cc");
  const std::string prefix = "#include \"clustersim/";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0)
      included.insert(line.substr(prefix.size(), line.size() - prefix.size() - 1));
  std::set<std::string> missing, stale;
  std::set_difference(headers.begin(), headers.end(), included.begin(), included.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(included.begin(), included.end(), headers.begin(), headers.end(),
                      std::inserter(stale, stale.end()));
  EXPECT_TRUE(missing.empty()) << "not included here: " << ::testing::PrintToString(missing);
  EXPECT_TRUE(stale.empty()) << "included here but not a public header: "
                             << ::testing::PrintToString(stale);
  EXPECT_GT(headers.size(), 30u);  // the folder was found
}

// With both cache headers, the canonical names are distinct types and each old name stays
// reachable through its own inline namespace; only an unqualified CachePolicy is ambiguous.
static_assert(std::is_enum_v<ProfileCachePolicy>);
static_assert(std::is_polymorphic_v<ModelCachePolicy>);
static_assert(std::is_same_v<profile_compat::CachePolicy, ProfileCachePolicy>);
static_assert(std::is_same_v<model_cache_compat::CachePolicy, ModelCachePolicy>);

TEST(PublicHeaders, BothCachePoliciesAreUsableTogether) {
  PipelineParams pipeline;
  pipeline.cache_policy = ProfileCachePolicy::kLru;
  EXPECT_EQ(cache_hit_fraction(4, 4, 1e9, pipeline.cache_policy), 1.0);
  const std::unique_ptr<ModelCachePolicy> lru = make_cache_policy("lru");
  EXPECT_EQ(lru->name(), "lru");
}

}  // namespace
}  // namespace clustersim
