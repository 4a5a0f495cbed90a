// Code written before the cache policies got distinct names, including clustersim/model_cache.h
// without clustersim/profile.h, compiles unchanged: `CachePolicy` is still the serving cache's
// policy interface (model_cache_compat), and a policy derived from it works with ModelCache.
// Kept out of unity batches (CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "clustersim/model_cache.h"

namespace clustersim {
namespace {

static_assert(std::is_same_v<CachePolicy, ModelCachePolicy>);

// Evicts the most recently used model first (the opposite of LRU).
class NewestFirst final : public CachePolicy {
 public:
  std::string_view name() const override { return "newest_first"; }
  bool choose_victims(const EvictionRequest& request,
                      std::vector<std::size_t>& victims) const override {
    double free_gb = request.capacity_gb;
    for (const ResidentModel& model : request.resident) free_gb -= model.size_gb;
    for (std::size_t i = request.resident.size();
         i-- > 0 && free_gb + kCacheSlackGb < request.incoming_gb;) {
      victims.push_back(i);
      free_gb += request.resident[i].size_gb;
    }
    return free_gb + kCacheSlackGb >= request.incoming_gb;
  }
};

TEST(PublicHeaders, ModelCacheHeaderAloneKeepsTheOldName) {
  const NewestFirst policy;
  const CachePolicy& as_old_name = policy;
  ModelCache cache(10.0);
  std::vector<int> evicted;
  EXPECT_EQ(cache.access(1, 4.0, as_old_name, {}, -1, evicted), ModelCache::Access::kLoaded);
  EXPECT_EQ(cache.access(2, 4.0, as_old_name, {}, -1, evicted), ModelCache::Access::kLoaded);
  EXPECT_EQ(cache.access(3, 4.0, as_old_name, {}, -1, evicted), ModelCache::Access::kLoaded);
  EXPECT_EQ(evicted, std::vector<int>{2});  // the newest, not the least recently used (1)
  const std::unique_ptr<CachePolicy> lru = make_cache_policy("lru");
  EXPECT_EQ(lru->name(), "lru");
}

}  // namespace
}  // namespace clustersim
