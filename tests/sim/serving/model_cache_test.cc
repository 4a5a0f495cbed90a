// GPU memory as a model cache: exact loads, hits and evictions under each policy.
#include "clustersim/model_cache.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace clustersim {
namespace {

constexpr int kA = 0, kB = 1, kC = 2, kD = 3;

std::vector<int> resident_models(const ModelCache& cache) {
  std::vector<int> out;
  for (const ResidentModel& r : cache.resident()) out.push_back(r.model);
  return out;
}

TEST(ModelCache, LruMustEvictExactly) {
  // 10 GB GPU, three 4 GB models: two fit. Uses A B A C B.
  const auto lru = make_cache_policy("lru");
  ModelCache cache(10.0);
  std::vector<int> evicted;
  int loads = 0, hits = 0, evictions = 0;
  const auto use = [&](int model) {
    const ModelCache::Access access = cache.access(model, 4.0, *lru, {}, -1, evicted);
    loads += access == ModelCache::Access::kLoaded;
    hits += access == ModelCache::Access::kHit;
    evictions += static_cast<int>(evicted.size());
    return access;
  };
  EXPECT_EQ(use(kA), ModelCache::Access::kLoaded);
  EXPECT_EQ(use(kB), ModelCache::Access::kLoaded);
  EXPECT_EQ(use(kA), ModelCache::Access::kHit);  // A becomes most recent: order B, A
  EXPECT_EQ(resident_models(cache), std::vector<int>({kB, kA}));
  EXPECT_EQ(use(kC), ModelCache::Access::kLoaded);  // evicts B, the least recently used
  EXPECT_EQ(evicted, std::vector<int>({kB}));
  EXPECT_EQ(resident_models(cache), std::vector<int>({kA, kC}));
  EXPECT_EQ(use(kB), ModelCache::Access::kLoaded);  // evicts A
  EXPECT_EQ(evicted, std::vector<int>({kA}));
  EXPECT_EQ(resident_models(cache), std::vector<int>({kC, kB}));
  EXPECT_EQ(loads, 4);
  EXPECT_EQ(hits, 1);
  EXPECT_EQ(evictions, 2);
  EXPECT_DOUBLE_EQ(cache.used_gb(), 8.0);
}

TEST(ModelCache, LruEvictsAsManyAsNeededAndSparesTheModelInUse) {
  const auto lru = make_cache_policy("lru");
  ModelCache cache(10.0);
  std::vector<int> evicted;
  cache.access(kA, 3.0, *lru, {}, -1, evicted);
  cache.access(kB, 3.0, *lru, {}, -1, evicted);
  cache.access(kC, 3.0, *lru, {}, -1, evicted);
  // D (7 GB) needs two of the three out; A is in use, so B and C go.
  EXPECT_EQ(cache.access(kD, 7.0, *lru, {}, kA, evicted), ModelCache::Access::kLoaded);
  EXPECT_EQ(evicted, std::vector<int>({kB, kC}));
  EXPECT_EQ(resident_models(cache), std::vector<int>({kA, kD}));
  EXPECT_DOUBLE_EQ(cache.used_gb(), 10.0);  // exactly full fits
  // 8 GB more cannot fit while D is in use (only A's 3 GB could go): nothing changes.
  EXPECT_EQ(cache.access(kB, 8.0, *lru, {}, kD, evicted), ModelCache::Access::kNoRoom);
  EXPECT_TRUE(evicted.empty());
  EXPECT_EQ(resident_models(cache), std::vector<int>({kA, kD}));
}

TEST(ModelCache, CompassKeepsWhatQueuedTasksNeed) {
  // A, B, C resident (3 GB each, LRU order), D (3 GB) incoming on a 10 GB GPU; the next queued
  // task needs A. LRU would evict A; Compass evicts B, which nobody needs soon.
  const auto compass = make_cache_policy("compass");
  const auto lru = make_cache_policy("lru");
  for (const bool use_compass : {true, false}) {
    ModelCache cache(10.0);
    std::vector<int> evicted;
    const ModelCachePolicy& policy = use_compass ? *compass : *lru;
    for (const int m : {kA, kB, kC}) cache.access(m, 3.0, policy, {}, -1, evicted);
    const int upcoming[] = {kA, kD};
    cache.access(kD, 3.0, policy, upcoming, -1, evicted);
    EXPECT_EQ(evicted, std::vector<int>({use_compass ? kB : kA}));
  }
}

TEST(ModelCache, CompassEvictsTheModelNeededLatestWhenAllAreNeeded) {
  const auto compass = make_cache_policy("compass");
  ModelCache cache(9.0);
  std::vector<int> evicted;
  for (const int m : {kA, kB, kC}) cache.access(m, 3.0, *compass, {}, -1, evicted);
  // Queue: C, A, B (all needed within the lookahead of 3): B is needed last, so B goes.
  const int upcoming[] = {kC, kA, kB};
  cache.access(kD, 3.0, *compass, upcoming, -1, evicted);
  EXPECT_EQ(evicted, std::vector<int>({kB}));
  // With a lookahead of 1, only C counts as needed: A (least recently used of the rest) goes.
  const auto short_sighted = make_cache_policy("compass", 1);
  ModelCache other(9.0);
  for (const int m : {kA, kB, kC}) other.access(m, 3.0, *short_sighted, {}, -1, evicted);
  other.access(kD, 3.0, *short_sighted, upcoming, -1, evicted);
  EXPECT_EQ(evicted, std::vector<int>({kA}));
}

TEST(ModelCache, ZeroFootprintAndOversizedModels) {
  const auto lru = make_cache_policy("lru");
  ModelCache cache(10.0);
  std::vector<int> evicted;
  EXPECT_EQ(cache.access(kA, 0.0, *lru, {}, -1, evicted), ModelCache::Access::kNoModel);
  EXPECT_TRUE(cache.resident().empty());
  EXPECT_THROW(cache.access(kB, 10.5, *lru, {}, -1, evicted), std::invalid_argument);
}

// A policy that claims to make room and does not: the cache refuses to trust it.
class LyingPolicy final : public ModelCachePolicy {
 public:
  std::string_view name() const override { return "liar"; }
  bool choose_victims(const EvictionRequest&, std::vector<std::size_t>&) const override {
    return true;
  }
};

TEST(ModelCache, ChecksThePolicysChoice) {
  const auto lru = make_cache_policy("lru");
  ModelCache cache(4.0);
  std::vector<int> evicted;
  cache.access(kA, 3.0, *lru, {}, -1, evicted);
  EXPECT_THROW(cache.access(kB, 3.0, LyingPolicy(), {}, -1, evicted), std::logic_error);
}

TEST(ModelCache, RegistryKnowsEveryPolicyByName) {
  for (const std::string& name : cache_policy_names())
    EXPECT_EQ(make_cache_policy(name)->name(), name);
  EXPECT_THROW(make_cache_policy("fifo"), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
