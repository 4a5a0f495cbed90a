// Code written before the cache policies got distinct names, including clustersim/profile.h
// without clustersim/model_cache.h, compiles unchanged: `CachePolicy` is still the input
// pipeline's enum (profile_compat). Kept out of unity batches (CMakeLists.txt).
#include <gtest/gtest.h>

#include <type_traits>

#include "clustersim/profile.h"

namespace clustersim {
namespace {

static_assert(std::is_same_v<CachePolicy, ProfileCachePolicy>);

TEST(PublicHeaders, ProfileHeaderAloneKeepsTheOldName) {
  PipelineParams pipeline;
  EXPECT_EQ(pipeline.cache_policy, CachePolicy::kSubset);
  pipeline.cache_policy = CachePolicy::kLru;
  EXPECT_EQ(cache_hit_fraction(4, 4, 1e9, pipeline.cache_policy), 1.0);
  EXPECT_EQ(cache_hit_fraction(25, 50, 1e5, clustersim::CachePolicy::kSubset), 0.5);
}

}  // namespace
}  // namespace clustersim
