// Profile math: interpolation, the analytic pipeline model, rates and the throughput model.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "clustersim/error.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

Profile toy() {
  Profile p;
  p.file = "toy.json";
  p.model = "toy";
  p.gpu_type = "v100";
  p.provenance_kind = "measured";
  p.provenance_source = "test";
  p.ref_cpus_per_gpu = 2;
  p.ref_mem_gb_per_gpu = 10;
  p.cpus_per_gpu = {1, 2, 4};
  p.mem_gb_per_gpu = {10, 20};
  p.throughput = {{50, 60}, {100, 110}, {150, 200}};
  return p;
}

Allocation alloc(int gpus, double cpus, double mem_gb, double storage = 0.0, int nodes = 1,
                 int racks = 1) {
  Allocation a;
  a.gpus = gpus;
  a.nodes = nodes;
  a.racks = racks;
  a.cpus = cpus;
  a.mem_gb = mem_gb;
  a.storage_mbps = storage;
  return a;
}

TEST(ProfileMath, InterpolationHitsGridPoints) {
  const Profile p = toy();
  validate_profile(p);
  for (std::size_t i = 0; i < p.cpus_per_gpu.size(); ++i) {
    for (std::size_t j = 0; j < p.mem_gb_per_gpu.size(); ++j) {
      EXPECT_DOUBLE_EQ(interpolate_throughput(p, p.cpus_per_gpu[i], p.mem_gb_per_gpu[j]),
                       p.throughput[i][j]);
    }
  }
}

TEST(ProfileMath, BilinearBetweenPoints) {
  const Profile p = toy();
  // Along one axis.
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 1.5, 10), 75.0);
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 3.0, 10), 125.0);
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 2.0, 15), 105.0);
  // In a cell: cpus 3 (t = 0.5 between 2 and 4), mem 15 (t = 0.5): mean of 100, 110, 150, 200.
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 3.0, 15), (100 + 110 + 150 + 200) / 4.0);
  // cpus 2.5 (t = 0.25), mem 12.5 (t = 0.25).
  const double low = 100 * 0.75 + 110 * 0.25;
  const double high = 150 * 0.75 + 200 * 0.25;
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 2.5, 12.5), low * 0.75 + high * 0.25);
}

TEST(ProfileMath, ClampedAtTheEdges) {
  const Profile p = toy();
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 0.25, 1), 50.0);
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 64, 1000), 200.0);
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 0, 15), 55.0);
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 8, 5), 150.0);
}

TEST(ProfileMath, SinglePointAxes) {
  Profile p = toy();
  p.cpus_per_gpu = {3};
  p.mem_gb_per_gpu = {10};
  p.throughput = {{42}};
  p.ref_cpus_per_gpu = 3;
  validate_profile(p);
  EXPECT_DOUBLE_EQ(interpolate_throughput(p, 1, 100), 42.0);
}

TEST(ProfileMath, StorageRate) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Dataset fully cached: nothing is read from storage.
  EXPECT_EQ(storage_rate(1.0, 1e5, 10), kInf);
  // No cache: every sample from storage. 10 MB/s / 0.1 MB = 100 samples/s.
  EXPECT_DOUBLE_EQ(storage_rate(0.0, 1e5, 10), 100.0);
  // Half cached: misses are half the samples -> 200 samples/s.
  EXPECT_DOUBLE_EQ(storage_rate(0.5, 1e5, 10), 200.0);
  // No share (0): not a limit.
  EXPECT_EQ(storage_rate(0.5, 1e5, 0), kInf);
}

TEST(ProfileMath, CacheHitFractionByPolicy) {
  // A fixed subset: memory over dataset, clamped.
  EXPECT_DOUBLE_EQ(cache_hit_fraction(25, 50, 1e5, ProfileCachePolicy::kSubset), 0.5);
  EXPECT_DOUBLE_EQ(cache_hit_fraction(60, 50, 1e5, ProfileCachePolicy::kSubset), 1.0);
  EXPECT_DOUBLE_EQ(cache_hit_fraction(0, 50, 1e5, ProfileCachePolicy::kSubset), 0.0);
  // LRU under a shuffling sampler: 4 samples of 1 GB, 2 cached. The epoch's first read hits
  // with probability 2/4, the second 1/3, the rest miss: (1/2 + 1/3) / 4 hits per read.
  EXPECT_DOUBLE_EQ(cache_hit_fraction(2, 4, 1e9, ProfileCachePolicy::kLru),
                   (0.5 + 1.0 / 3.0) / 4.0);
  EXPECT_DOUBLE_EQ(cache_hit_fraction(4, 4, 1e9, ProfileCachePolicy::kLru), 1.0);
  // Half of a large dataset: f + (1 - f) ln(1 - f) = 0.5 - 0.5 ln 2 (thrashing: far below 0.5).
  EXPECT_NEAR(cache_hit_fraction(50, 100, 1e5, ProfileCachePolicy::kLru), 0.5 - 0.5 * std::log(2.0),
              1e-5);
}

TEST(ProfileMath, MoreCacheNeverSlowsTheStorageTerm) {
  double last = 0;
  for (double cache = 0; cache <= 60; cache += 5) {
    const double t = std::min(
        400.0,
        storage_rate(cache_hit_fraction(cache, 50, 1e5, ProfileCachePolicy::kSubset), 1e5, 20));
    EXPECT_GE(t, last);
    last = t;
  }
  EXPECT_DOUBLE_EQ(last, 400.0);
}

TEST(ProfileRate, RelativeToReference) {
  const Profile p = toy();
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 2, 10)), 1.0);
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 20)), 2.0);
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 1, 10)), 0.5);
  // Totals are divided by GPUs: 4 GPUs with 16 cores and 80 GB = 4 cores, 20 GB per GPU.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(4, 16, 80)), 2.0);
  // 0 = not modelled: taken at the reference.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(2, 0, 0)), 1.0);
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(2, 8, 0)), 1.5);
}

TEST(ProfileRate, ReferenceOverrideAndPenalty) {
  const Profile p = toy();
  ProfileModelOptions o;
  o.ref_cpus_per_gpu = 4;
  o.ref_mem_gb_per_gpu = 20;
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 20), o), 1.0);
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 2, 10), o), 0.5);
  o = {};
  o.penalty.cross_node_factor = 0.8;
  o.penalty.cross_rack_factor = 0.5;
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(2, 4, 20, 0, 2, 1), o), 0.8);
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(2, 4, 20, 0, 2, 2), o), 0.5);
}

TEST(ProfileRate, StorageLimitsThroughTheStorageTerm) {
  Profile p = toy();
  // Dataset 20 GB of 0.1 MB samples, measured with 5 MB/s storage per GPU.
  p.pipeline = PipelineParams{200, 20, 1e5, 0, 5};
  validate_profile(p);
  // Reference: 10 GB cache -> h = 0.5, fetch = 5 / 0.05 = 100 = matrix(2, 10): rate 1.0.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 2, 10, 5)), 1.0);
  // Storage not modelled (0): the matrix alone.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 10, 0)), 1.5);
  // 4 cores, 10 GB, 5 MB/s: matrix 150 but fetch 100 -> 1.0.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 10, 5)), 1.0);
  // Twice the storage: fetch 200 -> matrix binds at 150.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 10, 10)), 1.5);
  // Full cache (20 GB): storage irrelevant -> 200.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 20, 1)), 2.0);
  // Starved storage: 1 MB/s -> fetch 20 samples/s -> 0.2.
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 4, 10, 1)), 0.2);
}

TEST(ProfileRate, LruCachePolicyThrashes) {
  Profile p = toy();
  p.pipeline = PipelineParams{200, 20, 1e5, 0, 5};
  p.pipeline->cache_policy = ProfileCachePolicy::kLru;
  validate_profile(p);
  // 10 GB of a 20 GB dataset as an LRU page cache: hit fraction h (about 0.153, not 0.5), so the
  // reference is storage-bound at 5 / ((1 - h) 0.1) samples/s, below the matrix's 100.
  const double h = cache_hit_fraction(10, 20, 1e5, ProfileCachePolicy::kLru);
  EXPECT_NEAR(h, 0.5 - 0.5 * std::log(2.0), 1e-5);
  const double ref = 5 / ((1 - h) * 0.1);
  ASSERT_LT(ref, 100.0);
  EXPECT_DOUBLE_EQ(profile_rate(p, alloc(1, 2, 10, 5)), 1.0);
  // Twice the storage: the storage term doubles and stays below the matrix's 150 at 4 cores.
  EXPECT_NEAR(profile_rate(p, alloc(1, 4, 10, 10)), 2.0, 1e-12);
  // Full cache: the matrix's 200.
  EXPECT_NEAR(profile_rate(p, alloc(1, 4, 20, 1)), 200.0 / ref, 1e-12);
}

TEST(ProfileModel, UsesLibraryAndHandlesMissingModels) {
  auto lib = std::make_shared<ProfileLibrary>();
  Profile p = toy();
  p.aliases = {"Toy-Net"};
  lib->add(p);

  JobSpec job;
  job.id = "j1";
  job.model = "TOY-NET";
  const std::string v100 = "v100";
  Allocation a = alloc(1, 4, 20);
  a.gpu_type = &v100;

  auto strict = make_profile_throughput_model(lib);
  EXPECT_DOUBLE_EQ(strict->rate(job, a), 2.0);

  JobSpec unknown = job;
  unknown.model = "mystery";
  try {
    strict->rate(unknown, a);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mystery"), std::string::npos);
  }

  ProfileModelOptions neutral;
  neutral.on_missing = MissingProfile::kNeutral;
  neutral.penalty.cross_node_factor = 0.9;
  auto lenient = make_profile_throughput_model(lib, neutral);
  EXPECT_DOUBLE_EQ(lenient->rate(unknown, a), 1.0);
  EXPECT_DOUBLE_EQ(lenient->rate(unknown, alloc(2, 0, 0, 0, 2)), 0.9);
}

TEST(ProfileModel, CoverageCheckNamesTheModel) {
  ProfileLibrary lib;
  lib.add(toy());
  std::vector<JobSpec> jobs(3);
  jobs[0].id = "a";
  jobs[0].model = "toy";
  jobs[1].id = "b";
  jobs[1].model = "mystery";
  jobs[1].source_line = 7;
  jobs[2].id = "c";
  jobs[2].model = "enigma";
  ProfileModelOptions o;
  try {
    check_profile_coverage(lib, jobs, o, "trace.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "trace.csv");
    EXPECT_EQ(e.line(), 7u);
    EXPECT_EQ(e.field(), "model");
    EXPECT_NE(e.message().find("'mystery'"), std::string::npos);
    EXPECT_NE(e.message().find("'enigma'"), std::string::npos);
  }
  o.on_missing = MissingProfile::kNeutral;
  EXPECT_NO_THROW(check_profile_coverage(lib, jobs, o, "trace.csv"));
}

TEST(ProfileModel, DuplicateAliasIsAnError) {
  ProfileLibrary lib;
  Profile a = toy();
  a.aliases = {"shared"};
  lib.add(a);
  Profile b = toy();
  b.model = "other";
  b.file = "other.json";
  b.aliases = {"Shared"};
  try {
    lib.add(b);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "other.json");
    EXPECT_EQ(e.field(), "aliases");
  }
}

TEST(ProfileModel, NullLibraryRejected) {
  EXPECT_THROW(make_profile_throughput_model(nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
