// End to end: `clustersim components` lists every component, grouped by kind, with its
// capabilities and keys; --json the same for machine reading.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "run_clustersim.h"

namespace {

using clustersim::testing::run_clustersim;

TEST(ComponentsCli, JsonListsEveryKindWithCapabilitiesAndKeys) {
  const auto outcome = run_clustersim("components --json");
  ASSERT_EQ(outcome.exit_code, 0);
  const nlohmann::json list = nlohmann::json::parse(outcome.out);
  for (const char* kind :
       {"ordering_policy", "decider", "placement", "allocation", "mechanism", "study_placement",
        "trace_format", "task_placement", "cache_policy", "generator"}) {
    ASSERT_TRUE(list.contains(kind)) << kind;
    ASSERT_FALSE(list[kind].empty()) << kind;
    for (const auto& component : list[kind]) {
      EXPECT_TRUE(component["name"].is_string());
      EXPECT_TRUE(component["capabilities"]["preempts"].is_boolean());
      EXPECT_TRUE(component["capabilities"]["relative_cost"].is_number());
      EXPECT_TRUE(component["keys"].is_array());
    }
  }
  const auto named = [&](const char* kind, const std::string& name) {
    for (const auto& component : list[kind])
      if (component["name"] == name) return component;
    ADD_FAILURE() << kind << " " << name << " not listed";
    return nlohmann::json();
  };
  EXPECT_TRUE(named("ordering_policy", "srtf")["capabilities"]["preempts"]);
  EXPECT_FALSE(named("ordering_policy", "fifo")["capabilities"]["preempts"]);
  EXPECT_TRUE(named("decider", "max_min_fairness")["capabilities"]["own_decider"]);
  EXPECT_TRUE(named("mechanism", "migration")["capabilities"]["needs_built_in_decider"]);
  EXPECT_EQ(named("allocation", "opt")["capabilities"]["relative_cost"], 100.0);
  EXPECT_TRUE(named("trace_format", "openb")["capabilities"]["gpu_shares"]);
  EXPECT_TRUE(named("study_placement", "random_fit")["capabilities"]["random"]);
  const auto keys = named("ordering_policy", "tiresias")["keys"];
  EXPECT_NE(std::find(keys.begin(), keys.end(), "scheduler.tiresias_thresholds"), keys.end());
  EXPECT_TRUE(named("generator", "philly")["capabilities"]["steady_state"]);
  EXPECT_TRUE(named("generator", "philly")["capabilities"]["random"]);
  EXPECT_FALSE(named("generator", "philly")["capabilities"]["serving"]);
  EXPECT_TRUE(named("generator", "query_dag")["capabilities"]["serving"]);
  EXPECT_FALSE(named("generator", "query_dag")["capabilities"]["steady_state"]);
  EXPECT_TRUE(named("task_placement", "compass")["capabilities"]["plans_queries"]);
  EXPECT_FALSE(named("task_placement", "heft")["capabilities"]["plans_queries"]);
  EXPECT_TRUE(named("cache_policy", "compass")["capabilities"]["looks_ahead"]);
  EXPECT_FALSE(named("cache_policy", "lru")["capabilities"]["looks_ahead"]);
  const auto has_key = [](const nlohmann::json& keys, const char* key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  EXPECT_TRUE(has_key(named("cache_policy", "compass")["keys"], "scheduler.cache_lookahead"));
  EXPECT_FALSE(has_key(named("cache_policy", "lru")["keys"], "scheduler.cache_lookahead"));
  EXPECT_TRUE(has_key(named("cache_policy", "lru")["keys"], "scheduler.cache"));
  EXPECT_TRUE(
      has_key(named("task_placement", "compass")["keys"], "scheduler.reschedule_threshold"));
  EXPECT_FALSE(has_key(named("task_placement", "heft")["keys"], "scheduler.reschedule_threshold"));
  EXPECT_TRUE(has_key(named("generator", "synergy")["keys"], "workload.jobs_per_hour"));
  EXPECT_TRUE(has_key(named("generator", "query_dag")["keys"], "workload.queries"));
  const auto reader_keys = named("trace_format", "openb")["keys"];
  EXPECT_NE(std::find(reader_keys.begin(), reader_keys.end(), "workload.failed_pods"),
            reader_keys.end());
}

TEST(ComponentsCli, TextGroupsComponentsByKind) {
  const auto outcome = run_clustersim("components");
  ASSERT_EQ(outcome.exit_code, 0);
  EXPECT_NE(outcome.out.find("ordering_policy:\n  fifo: "), std::string::npos);
  EXPECT_NE(outcome.out.find("mechanism:\n  checkpoints: "), std::string::npos);
  EXPECT_NE(outcome.out.find("capabilities: preempts"), std::string::npos);
  EXPECT_NE(outcome.out.find("generator:\n  philly: "), std::string::npos);
  EXPECT_NE(outcome.out.find("task_placement:\n  compass: "), std::string::npos);
  EXPECT_NE(outcome.out.find("cache_policy:\n  lru: "), std::string::npos);
}

}  // namespace
